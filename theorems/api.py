"""The suite from Python: ``theorems.check(id)`` runs one claim, ``theorems.claims()`` lists
the implemented ones. Same claims, contexts, validation and errors as the command line:

>>> import theorems
>>> result = theorems.check("giannou2023.thm6", profile="quick", seed=0)
>>> result.verdict.value
'certified'

``package=`` reaches another project's claims, as ``--package`` does:
``theorems.check("mypaper.lemma1", package="mypaper.claims")``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .engine import settings
from .engine.context import Context
from .engine.parallel import run_claims
from .engine.registry import Claim, resolve
from .engine.registry import claims as registered_claims
from .engine.runner import ClaimResult
from .engine.tasks import import_every_suite_module
from .errors import NotImplementedClaim, TheoremsError, UnknownClaim, UsageError

__all__ = ["Claim", "ClaimResult", "NotImplementedClaim", "TheoremsError", "UnknownClaim", "check", "claims"]


Package = str | Sequence[str] | None


def _packages(package: Package) -> tuple[str, ...]:
    """``package=`` as the command line's ``--package`` list: one module name or several; none
    for the packaged papers."""
    if package is None:
        return ()
    if isinstance(package, str):
        return (package,)
    if isinstance(package, (list, tuple)) and all(isinstance(name, str) for name in package):
        return tuple(package)
    raise UsageError(f"package= is a module name such as 'mypaper.claims', or a list of them; got {package!r}")


def claims(package: Package = None) -> dict[str, Claim]:
    """Every implemented claim (catalog ids and variants), keyed by id; with ``package``, those
    of that claim package or module (another project's paper; a list for several) instead.
    Raises ``ClaimPackageError`` for a package that cannot be imported and
    ``ClaimDefinitionError`` for one that defines a malformed claim."""
    return dict(registered_claims(*_packages(package)))


def check(claim_id: str, *, package: Package = None, profile: str = settings.DEFAULT_PROFILE,
          seed: int = settings.DEFAULT_SEED, device: str = "auto", progress: bool = False) -> ClaimResult:
    """Run one claim's checks and return its result: ``verdict``, per-check ``checks``
    (outcome, evidence, seconds), ``seconds``, ``scope`` (limited by the claims it rests on,
    which run too) and ``to_json()`` (the engine's JSON). ``package``: the claim is one of
    that claim package's (``claims(package)``), not a packaged paper's.

    Raises ``UnknownClaim`` (with the closest ids, and the package when one is given) or
    ``NotImplementedClaim`` for an id without a verdict, ``UsageError`` for an id that is not
    a string, ``SettingError`` for a bad profile, seed or device (both ``ValueError``s), the
    errors of ``claims`` for the package, and ``CheckCrashed`` when a check raises instead of
    returning an outcome (its ``package`` and ``at`` name the line of a package's code that
    raised, its ``traceback`` the original traceback); all derive from ``theorems.TheoremsError``.
    """
    if not isinstance(claim_id, str):
        raise UsageError(f"a claim id is a string such as 'giannou2023.lemma6', got {claim_id!r}")
    packages = _packages(package)
    claim = resolve(claim_id, packages)
    context = Context(settings.validate_profile(profile), settings.validate_seed(seed),
                      settings.resolve_device(device), show_progress=progress)
    # The same modules loaded as in a CLI run, so that the same seed gives the same evidence
    # (Hypothesis draws constants from the source of the modules loaded so far).
    import_every_suite_module()
    [result] = run_claims([claim], context, packages=packages)
    return result
