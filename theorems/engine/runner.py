"""Run a claim's checks in a context and collect the verdict with its evidence."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import CheckCrashed, ClaimDefinitionError
from ..lazy import on_import, torch
from . import blame, coverage, environment, resources
from .context import Context
from .registry import Check, Claim, claim_package, malformed
from .verdicts import Outcome, Verdict, claim_scope, combine, limit_by_dependencies
from .vocabulary import CheckKind


@dataclass
class CheckResult:
    check: Check
    outcome: Outcome
    seconds: float
    # The subject's objects the check ran, how and at what sizes (``coverage``): measured, and a
    # function of the seed like the evidence.
    coverage: coverage.CheckCoverage = field(default_factory=coverage.CheckCoverage)
    # The scope the check itself stated, where the object-coverage rule replaced it.
    stated_scope: str | None = None

    def to_json(self) -> dict[str, Any]:
        record = {
            "check": self.check.name,
            "kind": self.check.kind.value,
            "part": self.check.part,
            "corroborating": self.check.corroborating,
            "verdict": self.outcome.verdict.value,
            "summary": self.outcome.summary,
            **({"scope": self.outcome.scope} if self.outcome.verdict is Verdict.CERTIFIED else {}),
            **({"stated_scope": self.stated_scope} if self.stated_scope not in (None, self.outcome.scope) else {}),
            **({"relies_on": list(self.outcome.relies_on)} if self.outcome.relies_on else {}),
            "evidence": self.outcome.evidence,
        }
        if self.outcome.counterexample is not None:
            record["counterexample"] = self.outcome.counterexample
        if self.outcome.certificate is not None:
            record["certificate"] = self.outcome.certificate
        if self.coverage:
            record["coverage"] = self.coverage.to_json()
        return record


@dataclass
class ClaimResult:
    claim: Claim
    verdict: Verdict
    checks: list[CheckResult]
    context: Context
    seconds: float
    # Caps on sizes and peak memory (``resources.measured``): what the machine allowed,
    # not evidence, so two runs that agree on evidence may differ here.
    resources: dict = field(default_factory=dict)
    # The (verdict, scope) of each implemented claim of ``depends_on`` in the same run (None:
    # not run), set by ``parallel.run_claims``; None when this claim was run on its own.
    dependencies: dict[str, tuple[Verdict, str | None] | None] | None = None
    # The machine and software of the process that ran the claim (``environment.machine``): a
    # worker of a cluster may differ from the process that writes the report.
    environment: dict = field(default_factory=dict)
    # What the object-coverage rule decided for each certified part (``coverage.apply_rule``).
    covers: list[coverage.PartCover] = field(default_factory=list)
    # The generated mutants of a certified claim (``generated_mutants.GeneratedReport``), where a
    # run asked for them (``theorems report --mutants``); None otherwise.
    generated_mutants: Any = None

    @property
    def own_scope(self) -> str | None:
        """What the claim's own certificates cover (None unless it is certified)."""
        try:
            return claim_scope([(r.check.part, r.check.corroborating, r.outcome) for r in self.checks], self.verdict,
                               [r.check.explicit_part for r in self.checks], [r.check.name for r in self.checks])
        except ClaimDefinitionError as error:  # named, so that the one line says which claim overclaims
            raise malformed(self.claim.id, error) from None

    @property
    def scope(self) -> str | None:
        """The claim's scope: its own certificates' cover, limited by the claims it rests on
        where they were run beside it (``verdicts.limit_by_dependencies``)."""
        if self.dependencies is None:
            return self.own_scope
        return limit_by_dependencies(self.own_scope, self.dependencies)

    def to_json(self) -> dict[str, Any]:
        """The result as JSON. A refuted claim's ``erratum`` has its severity, reason and
        corrected variants; which claims rest on it depends on every claim registered, so the
        report adds that (``affects``) when it is built."""
        return {
            "id": self.claim.id,
            "paper": self.claim.paper,
            "label": self.claim.catalog_label(),
            "statement": self.claim.catalog_statement(),
            "variant_of": self.claim.variant_of,
            "depends_on": list(self.claim.depends_on),
            "verdict": self.verdict.value,
            "scope": self.scope,
            **({"own_scope": self.own_scope} if self.scope != self.own_scope else {}),
            **({"general_argument": self.claim.general_argument} if self.claim.general_argument else {}),
            **({"profile_note": self.claim.profile_note} if self.claim.profile_note else {}),
            "seed": self.context.seed,
            "profile": self.context.profile,
            "device": self.context.device.value,
            "source": self.claim.source,
            "hypotheses": list(self.claim.hypotheses),
            "notes": self.claim.notes,
            "evidence": [result.to_json() for result in self.checks],
            **({"object_coverage": [cover.to_json() for cover in self.covers]} if self.covers else {}),
            **({"erratum": self.erratum()} if self.verdict is Verdict.REFUTED else {}),
            "timing_s": {"total": round(self.seconds, 3), **{r.check.name: round(r.seconds, 3) for r in self.checks}},
            "resources": self.resources,
            **({"environment": self.environment} if self.environment else {}),
        }

    def erratum(self) -> dict[str, Any]:
        """The refuted claim's erratum; a claim refuted without one says so rather than
        passing silently (a test forbids it)."""
        erratum = self.claim.erratum
        if erratum is None:
            return {"severity": "unjudged", "reason": "no erratum recorded for this claim", "corrected": []}
        return {"severity": erratum.severity.value, "reason": erratum.reason, "corrected": list(erratum.corrected)}

    @property
    def figures(self) -> dict[str, Any]:
        return {f"{r.check.name}: {name}": figure for r in self.checks for name, figure in r.outcome.figures.items()}


@contextlib.contextmanager
def torch_threads(count: int = 1):
    """Run torch's CPU kernels on ``count`` threads, restoring the setting afterwards. Claims
    run on one: their tensors are small (chains of 32×32 products, batches of tiny solves),
    splitting them over threads gains nothing, and on a busy machine the threads' barriers
    made chains 30× slower (measured on the 2-core development machine). A claim that needs
    the whole machine (``Claim.alone_at``) gets every core for its large products. torch is
    not imported for it: a claim that never uses torch runs without it, and one that does
    gets ``count`` threads when it first reads torch (``theorems.lazy.on_import``)."""
    previous = []

    def set_threads(module) -> None:
        previous.append(module.get_num_threads())
        module.set_num_threads(count)

    with on_import("torch", set_threads):
        try:
            yield
        finally:
            if previous:
                torch.set_num_threads(previous[0])


def run_claim(claim: Claim, context: Context, threads: int = 1) -> ClaimResult:
    """Run every check of ``claim`` in ``context``, on ``threads`` torch threads."""
    with torch_threads(threads), resources.measured(context.device) as usage:
        result = _run_checks(claim, context)
    result.resources = usage
    result.environment = environment.machine(context.device)
    return result


# A crash is reported in one line: some exceptions (a serialization error quoting its object)
# run to megabytes. The traceback, chained, keeps the whole.
CRASH_MESSAGE_CHARACTERS = 300


def _first_line(message: str) -> str:
    line = message.strip().split("\n", 1)[0]
    return line if len(line) <= CRASH_MESSAGE_CHARACTERS else line[:CRASH_MESSAGE_CHARACTERS - 1] + "…"


def crashed(check: str, claim_id: str, error: Exception) -> CheckCrashed:
    """The crash of ``check`` of ``claim_id``, which raised ``error``: the error of the claim's
    package when raised in its code, named with the file:line there; else an internal error."""
    package = claim_package(claim_id)
    at = blame.raised_at(error, package) if package else None
    whose = f" in {package}'s code at {at}" if at else ""
    return CheckCrashed(f"check {check!r} of {claim_id} crashed{whose}: {type(error).__name__}: "
                        f"{_first_line(str(error))}", package if at else None, at, blame.traceback_text(error))


def _require_power_statement(check: str, claim_id: str, outcome: Outcome) -> None:
    """A statistical test proves nothing and says how little it could see unless it states its power."""
    if outcome.verdict is Verdict.CERTIFIED:
        raise ClaimDefinitionError(f"statistical check {check!r} of {claim_id} certifies: a test at a false-alarm "
                                   "rate can support or refute, never certify")
    if "detectable_effect" not in outcome.evidence:
        raise ClaimDefinitionError(f"statistical check {check!r} of {claim_id} states no 'detectable_effect' in its "
                                   "evidence: the smallest effect it detects at its false-alarm rate, in the claim's "
                                   "units")


def run_check(check: Check, claim_id: str, context: Context) -> CheckResult:
    """Run one check of ``claim_id`` in its own stream of the run's randomness. A claim found
    malformed as it runs is bad input, as at registration (``registry.malformed``)."""
    started = time.perf_counter()
    try:
        try:
            with coverage.recording(check.takes, check.traces.__contains__) as used:
                outcome = check.run(context.for_check(claim_id, check.name))
        except ClaimDefinitionError:
            raise
        except Exception as error:
            raise crashed(check.name, claim_id, error) from error
        if not isinstance(outcome, Outcome):
            raise CheckCrashed(f"check {check.name!r} of {claim_id} returned {type(outcome).__name__}, "
                               "not an Outcome")
        if check.kind is CheckKind.STATISTICAL:
            _require_power_statement(check.name, claim_id, outcome)
        if outcome.verdict is Verdict.CERTIFIED and not check.takes:
            raise ClaimDefinitionError(f"check {check.name!r} of {claim_id} certifies but takes no object under "
                                       "test: build it with takes(...) from the claim's subject, so that a broken "
                                       "object can fail it")
    except ClaimDefinitionError as error:
        raise malformed(claim_id, error) from error
    return CheckResult(check, outcome, time.perf_counter() - started, used, outcome.scope)


def _run_checks(claim: Claim, context: Context) -> ClaimResult:
    started = time.perf_counter()
    results = [run_check(check, claim.id, context) for check in claim.checks]
    # Before the verdict: a certificate covers the objects it ran, at the sizes it ran them.
    covers = coverage.apply_rule(results, claim.parts)
    verdict = combine([(r.check.part, r.check.corroborating, r.outcome) for r in results])
    return ClaimResult(claim, verdict, results, context, time.perf_counter() - started, covers=covers)


def dependency_ids(claim: Claim, registered: dict[str, Claim]) -> list[str]:
    """The implemented claims ``claim`` rests on directly (``depends_on`` entries that are
    registered ids)."""
    return [dependency for dependency in claim.depends_on if dependency in registered]


def attach_dependencies(results: list[ClaimResult], registered: dict[str, Claim]) -> None:
    """Give each result the (verdict, scope) of the claims it rests on, from ``results``,
    dependencies first, so that a scope limited by a dependency limits its dependents too."""
    by_id = {result.claim.id: result for result in results}
    done: set[str] = set()

    def attach(result: ClaimResult, visiting: frozenset[str]) -> None:
        if result.claim.id in done:
            return
        dependencies: dict[str, tuple[Verdict, str | None] | None] = {}
        for dependency in dependency_ids(result.claim, registered):
            found = by_id.get(dependency)
            if found is not None and dependency not in visiting:
                attach(found, visiting | {result.claim.id})
            dependencies[dependency] = None if found is None else (found.verdict, found.scope)
        result.dependencies = dependencies
        done.add(result.claim.id)

    for result in results:
        attach(result, frozenset())
