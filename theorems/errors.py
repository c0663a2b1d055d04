"""Every exception the suite defines, under one base: ``except theorems.TheoremsError``
catches the suite's own errors and nothing else.

Each also derives from the built-in class its callers caught before it existed
(``ValueError``, ``LookupError``, …), so ``except ValueError`` around a manifest load keeps
working. This module imports nothing of the suite: every room may raise from it.
"""

from __future__ import annotations


class TheoremsError(Exception):
    """Base class of every exception the suite raises on purpose."""


# --- bad input: the command line turns these into one line on stderr and exit 2 ----------

class UsageError(TheoremsError, ValueError):
    """Bad input from the user (an option value, a path, an argument); ``prog`` is the
    command that received it, for the one-line message."""

    def __init__(self, message: str, prog: str = "theorems"):
        super().__init__(message)
        self.prog = prog


class SettingError(TheoremsError, ValueError):
    """A profile, seed, device or number of jobs outside what the suite accepts."""


class DeviceUnavailable(SettingError):
    """``cuda`` asked for on a machine where torch sees no GPU."""


class ManifestError(TheoremsError, ValueError):
    """A gate manifest that cannot be read or does not follow the format."""


class RecordError(TheoremsError, ValueError):
    """A file that is not a readable reproducibility record."""


class CatalogError(TheoremsError, ValueError):
    """A claims catalog (CLAIMS.md) with an id listed twice or under the wrong paper."""


class ClaimDefinitionError(TheoremsError, ValueError):
    """A claim, check, broken variant or erratum that is malformed (raised when it is
    defined or registered, so the claim module's author sees it at import)."""


class ClaimPackageError(TheoremsError, ImportError):
    """A claim package (``--package``) or one of its modules that cannot be imported."""


class UnknownClaim(TheoremsError, LookupError):
    """An id that names no claim (of ``packages``, when it was looked up among another project's
    claims); ``suggestions`` are the closest known ids."""

    def __init__(self, claim_id: str, suggestions: list[str], packages: tuple[str, ...] = ()):
        self.claim_id = claim_id
        self.suggestions = suggestions
        self.packages = tuple(packages)
        among = f" (not a claim of {', '.join(packages)})" if packages else ""
        hint = f"; closest: {', '.join(suggestions)}" if suggestions else ""
        super().__init__(f"unknown claim id {claim_id!r}{among}{hint}")


class NotImplementedClaim(TheoremsError, LookupError):
    """A catalog id that no check implements yet, so it has no verdict."""

    def __init__(self, claim_id: str):
        self.claim_id = claim_id
        super().__init__(f"{claim_id} is in the catalog but not implemented yet (no verdict)")


# --- runs ---------------------------------------------------------------------------------

class CheckCrashed(TheoremsError, RuntimeError):
    """A check raised instead of returning an outcome: a defect, not a verdict. A defect in the
    suite (an internal error) unless ``package`` names the claim package (another project's)
    whose code raised, ``at`` the file:line of the deepest frame in its files. ``traceback``:
    the original exception's, chained, as Python prints it (plain text, so that it crosses
    from a worker process and goes into report.json)."""

    def __init__(self, message: str, package: str | None = None, at: str | None = None,
                 traceback: str | None = None):
        super().__init__(message)  # (the one argument: a crash unpickles from its message, then its attributes)
        self.package, self.at, self.traceback = package, at, traceback

    def details(self) -> dict[str, str]:
        """What a crash entry of a run adds to the claims, worker and reason: the package, the
        file:line and the traceback, where known."""
        return {key: value for key, value in (("package", self.package), ("at", self.at),
                                              ("traceback", self.traceback)) if value is not None}


class ClaimsCrashed(CheckCrashed):
    """Claims of a run that ended without a verdict: a check raised, or the worker running them
    died more often than the cluster retries. ``finished`` holds the results of the claims that
    completed, in the order they were selected; ``crashes`` one dict per crash (``claims``,
    ``worker``, ``reason``)."""

    def __init__(self, finished: list, crashes: list[dict]):
        first = crashes[0]
        claims = [claim_id for crash in crashes for claim_id in crash["claims"]]
        packages = {crash.get("package") for crash in crashes}
        super().__init__(f"{len(claims)} claim{'s' * (len(claims) != 1)} crashed ({', '.join(claims)}); first: "
                         f"{', '.join(first['claims'])} on {first['worker']}: {first['reason']}",
                         # the package's error when each crash is in the same package's code
                         package=packages.pop() if len(packages) == 1 else None)
        self.finished = finished
        self.crashes = crashes


class SchedulerError(TheoremsError):
    """A Dask scheduler that cannot be used: unreachable, without the workers a claim needs,
    or with a worker whose software differs from this process's (``--scheduler``)."""


class SchedulerLost(TheoremsError):
    """The Dask scheduler of a run stopped answering and did not answer again within
    ``cluster.RECONNECT_TIMEOUT_S``: the run stops. ``finished`` and ``crashes`` are the claims
    that ended before, as in ``ClaimsCrashed`` (the command line writes them, exit 5)."""

    def __init__(self, scheduler: str, waited_s: float):
        super().__init__(f"lost the Dask scheduler at {scheduler}: no answer for {waited_s:.0f} s, the run stopped")
        self.scheduler, self.waited_s = scheduler, waited_s
        self.finished: list = []
        self.crashes: list[dict] = []


class Interrupted(TheoremsError, KeyboardInterrupt):
    """A run stopped by Ctrl-C, SIGTERM or SIGHUP; ``finished`` holds the results of the
    claims that completed, in the order they were selected, and ``signum`` the signal (the
    command line exits 128 + signum)."""

    def __init__(self, finished: list, signum: int = 2):  # 2: SIGINT, Ctrl-C
        super().__init__(f"interrupted after {len(finished)} claims")
        self.finished = finished
        self.signum = signum


class VerdictMismatch(TheoremsError, AssertionError):
    """A gated claim whose verdict differs from its manifest entry, or that has none."""


# --- mathematics --------------------------------------------------------------------------

class ConstructionInputError(TheoremsError, ValueError):
    """A target or an option ``build_source`` cannot construct from (an unsupported layer,
    mismatched dimensions, a parameter out of range)."""


class ConstructionFailed(TheoremsError, RuntimeError):
    """The random draw is degenerate for this target (a singular system, a zero pivot)."""


class GeneratedMutantWarning(TheoremsError, UserWarning):
    """A generated mutant survived a gated claim's checks, not shown to change its object within
    the certified scope nor shown not to (``theorems.discipline.generated_mutant_failures``)."""
