"""Run a claim's checks in a context and collect the verdict with its evidence."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import CheckCrashed
from . import resources
from .context import Context
from .registry import Check, Claim
from .verdicts import Outcome, Verdict, claim_scope, combine


@dataclass
class CheckResult:
    check: Check
    outcome: Outcome
    seconds: float

    def to_json(self) -> dict[str, Any]:
        record = {
            "check": self.check.name,
            "kind": self.check.kind.value,
            "part": self.check.part,
            "corroborating": self.check.corroborating,
            "verdict": self.outcome.verdict.value,
            "summary": self.outcome.summary,
            **({"scope": self.outcome.scope} if self.outcome.verdict is Verdict.CERTIFIED else {}),
            "evidence": self.outcome.evidence,
        }
        if self.outcome.counterexample is not None:
            record["counterexample"] = self.outcome.counterexample
        if self.outcome.certificate is not None:
            record["certificate"] = self.outcome.certificate
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

    @property
    def scope(self) -> str | None:
        """What the claim's certificates cover (None unless it is certified)."""
        return claim_scope([(r.check.part, r.check.corroborating, r.outcome) for r in self.checks], self.verdict)

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
            "seed": self.context.seed,
            "profile": self.context.profile,
            "device": self.context.device.value,
            "source": self.claim.source,
            "hypotheses": list(self.claim.hypotheses),
            "notes": self.claim.notes,
            "evidence": [result.to_json() for result in self.checks],
            **({"erratum": self.erratum()} if self.verdict is Verdict.REFUTED else {}),
            "timing_s": {"total": round(self.seconds, 3), **{r.check.name: round(r.seconds, 3) for r in self.checks}},
            "resources": self.resources,
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
def one_torch_thread():
    """Run torch's CPU kernels on one thread, restoring the setting afterwards. The checks'
    tensors are small (chains of 32×32 products, batches of tiny solves): splitting them
    over threads gains nothing, and on a busy machine the threads' barriers made chains
    30× slower (measured on the 2-core development machine)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def run_claim(claim: Claim, context: Context) -> ClaimResult:
    with one_torch_thread(), resources.measured(context.device) as usage:
        result = _run_checks(claim, context)
    result.resources = usage
    return result


def _run_checks(claim: Claim, context: Context) -> ClaimResult:
    started = time.perf_counter()
    results = []
    for check in claim.checks:
        check_started = time.perf_counter()
        try:
            outcome = check.run(context.for_check(claim.id, check.name))
        except Exception as error:
            raise CheckCrashed(f"check {check.name!r} of {claim.id} crashed: "
                               f"{type(error).__name__}: {error}") from error
        if not isinstance(outcome, Outcome):
            raise CheckCrashed(f"check {check.name!r} of {claim.id} returned {type(outcome).__name__}, not an Outcome")
        results.append(CheckResult(check, outcome, time.perf_counter() - check_started))
    verdict = combine([(r.check.part, r.check.corroborating, r.outcome) for r in results])
    return ClaimResult(claim, verdict, results, context, time.perf_counter() - started)
