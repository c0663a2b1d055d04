"""What a gate asks of a claim beyond its manifest verdict, the same for every paper.

- **The erratum rule.** A refuted claim carries its erratum (``registry.Erratum``: how much
  the refutation matters and what repairs it): a refutation is a finding about the paper,
  and a finding without its judgement is unfinished work.
- **The paper rule.** The paper a claim is from is declared (``engine.papers``: title,
  authors, venue, year and link), so that every report cites it.
- **The mutation rule** (``engine.mutation``): every broken variant comes out refuted, every
  check refutes some variant, and no certifying check certifies a broken object it takes.
  A vacuous variant (an object that behaves like the genuine one), ``broken=()`` or a
  certificate that never looks at its object cannot pass it.

- **The generated mutants' rule** (``engine.generated_mutants``): no mutant that nobody chose
  survives a certified claim's checks while changing its object within the certified scope.
  A survivor not shown to change it there (nor shown not to) is a warning.

``theorems gate --package`` and the pytest plugin apply all four to another project's claims,
the two mutation rules at the gate's profile and first seed (``--no-generated``,
``--theorems-no-generated``: not the generated mutants); ``theorems gate`` applies the
erratum and paper rules to the suite's own claims, whose mutation rules the meta-tests
(``tests/test_meta.py``) apply; ``theorems meta`` prints the whole mutation table.
"""

from __future__ import annotations

from .engine.generated_mutants import GeneratedReport, InScope
from .engine.mutation import MutationReport
from .engine.papers import paper
from .engine.runner import ClaimResult
from .engine.vocabulary import Verdict


def erratum_failure(result: ClaimResult) -> str | None:
    """One line when ``result`` is a refutation of a claim that has no erratum."""
    if result.verdict is not Verdict.REFUTED or result.claim.erratum is not None:
        return None
    return (f"{result.claim.id}: refuted without an erratum: give the claim erratum=Erratum(severity, reason) "
            "saying how much the refutation matters")


def mutation_failures(report: MutationReport) -> list[str]:
    """One line per breach of the mutation rule in ``report``, naming the claim."""
    return [f"{report.claim.id}: mutation rule: {failure}" for failure in report.failures]


def generated_mutant_failures(report: GeneratedReport) -> tuple[list[str], list[str]]:
    """One line per generated mutant of ``report`` that survived: the breaches (it changes its
    object within the certified scope) and the warnings (not shown either way), each naming the
    claim, the object, the mutant and why."""
    lines: dict[InScope, list[str]] = {InScope.YES: [], InScope.NOT_SHOWN: []}
    for mutant in report.survivors:
        where, why = mutant.within_scope or (InScope.NOT_SHOWN, "not judged")
        if where in lines:
            lines[where].append(f"{report.claim_id}: generated mutant of {mutant.object} survives "
                                f"{'within' if where is InScope.YES else 'perhaps within'} the certified scope: "
                                f"{mutant.description}: {mutant.reason}; {why}")
    return lines[InScope.YES], lines[InScope.NOT_SHOWN]


def paper_failure(result: ClaimResult) -> str | None:
    """One line, naming the paper and the call that declares it, when ``result``'s claim is
    from a paper that its package does not declare."""
    paper_id = result.claim.paper
    if paper(paper_id) is not None:
        return None
    return (f"{paper_id}: paper without metadata: add register_paper(Paper(id={paper_id!r}, title=..., authors=(...), "
            "venue=..., year=..., link=...)) (from theorems.engine.papers) to the module that holds its claims")
