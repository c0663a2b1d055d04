"""Mutation testing of certification: every broken object against every check that takes it.

A claim's broken variants replace objects of its subject (``registry.Broken``). For each
variant, every check that takes a replaced object is rebuilt from the broken one and run at
the same seed as the genuine claim. The rule, which ``theorems meta``, the meta-tests and the
gate of another project's claims all apply:

1. every variant is refuted by some check;
2. every check refutes some variant (a check that cannot fail is a defect);
3. a certifying check (non-corroborating, certified on the genuine subject) never certifies a
   variant that replaces an object it takes: a certificate a broken object can pass proves
   nothing about the genuine one.

A claim with no broken variant breaks rule 2 for every check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .context import Context
from .registry import Broken, Claim
from .runner import ClaimResult, run_check, run_claim, torch_threads
from .verdicts import Verdict

if TYPE_CHECKING:
    from .generated_mutants import GeneratedReport


@dataclass
class VariantRun:
    """One broken variant and the verdict of each check that takes one of its objects."""

    id: str
    variant: Broken
    verdicts: dict[str, Verdict]

    @property
    def refuted(self) -> bool:
        return any(verdict is Verdict.REFUTED for verdict in self.verdicts.values())

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "description": self.variant.description, "replaces": sorted(self.variant.replaces),
                "refuted_by_case": self.variant.refuted_by, "refuted": self.refuted,
                "verdicts": {name: verdict.value for name, verdict in self.verdicts.items()}}


@dataclass
class CheckMutations:
    """What the broken variants did to one check of the claim."""

    check: str
    certifying: bool
    scope: str | None
    takes: tuple[str, ...]
    refuted_by: list[str] = field(default_factory=list)
    certified: list[str] = field(default_factory=list)

    def to_json(self, claim_id: str) -> dict[str, Any]:
        return {"claim": claim_id, "check": self.check, "certifying": self.certifying, "scope": self.scope,
                "takes": list(self.takes), "refuted_by": self.refuted_by, "certifies_broken": self.certified}


@dataclass
class MutationReport:
    claim: Claim
    profile: str
    seed: int
    checks: list[CheckMutations]
    variants: list[VariantRun]
    failures: list[str]
    # The mutants nobody chose (``generated_mutants``), where they were run: their score and survivors.
    generated: GeneratedReport | None = None

    @property
    def passed(self) -> bool:
        return not self.failures

    def to_json(self) -> dict[str, Any]:
        return {"claim": self.claim.id, "profile": self.profile, "seed": self.seed, "passed": self.passed,
                "checks": [check.to_json(self.claim.id) for check in self.checks],
                "variants": [variant.to_json() for variant in self.variants], "failures": self.failures,
                **({"generated": self.generated.to_json()} if self.generated is not None else {})}


def variant_id(index: int) -> str:
    """The id of a claim's broken variant in listings: ``broken-1``, ``broken-2``, … in declaration order."""
    return f"broken-{index + 1}"


def mutation_test(claim: Claim, context: Context, genuine: ClaimResult | None = None) -> MutationReport:
    """Run every broken variant of ``claim`` against every check that takes one of its objects
    (``genuine``: the claim's own result at ``context``, run here when not given) and apply the
    rule of the module docstring. Torch runs on one thread, as in every claim run."""
    with torch_threads():
        return _mutation_test(claim, context, genuine if genuine is not None else run_claim(claim, context))


def _mutation_test(claim: Claim, context: Context, genuine: ClaimResult) -> MutationReport:
    outcomes = {result.check.name: result.outcome for result in genuine.checks}
    table = [CheckMutations(check.name, not check.corroborating and outcomes[check.name].verdict is Verdict.CERTIFIED,
                            outcomes[check.name].scope, check.takes) for check in claim.checks]
    by_name = {row.check: row for row in table}
    failures: list[str] = []
    variants = []
    for index, variant in enumerate(claim.broken):
        name = variant_id(index)
        broken = claim.with_objects(variant.replaces)
        affected = [check for check in broken.checks if set(check.takes) & set(variant.replaces)]
        results = [run_check(check, claim.id, context) for check in affected]
        run = VariantRun(name, variant, {result.check.name: result.outcome.verdict for result in results})
        variants.append(run)
        for result in results:
            row = by_name[result.check.name]
            if result.outcome.verdict is Verdict.REFUTED:
                row.refuted_by.append(name)
            elif result.outcome.verdict is Verdict.CERTIFIED and row.certifying:
                row.certified.append(name)
                failures.append(f"certifying check {row.check!r} certifies {name} ({variant.description}): "
                                f"{result.outcome.summary}")
        if not affected:
            failures.append(f"{name} ({variant.description}) replaces {sorted(variant.replaces)}, which no check takes")
        elif not run.refuted:
            failures.append(f"{name} ({variant.description}) is not refuted by any check")
    for row in table:
        if not row.refuted_by:
            kind = "certifying check" if row.certifying else "check"
            failures.append(f"{kind} {row.check!r} refutes no broken variant"
                            + ("" if claim.broken else " (the claim has none)") + ": a check that cannot fail")
    return MutationReport(claim, context.profile, context.seed, table, variants, failures)
