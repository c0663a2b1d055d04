"""Verdicts, the outcome of one check, and how outcomes combine into a claim's verdict.

A claim is a conjunction of *parts* (``"statement"`` unless the claim splits, e.g. an
identity and a rank formula). Any refutation refutes the claim. Otherwise each part takes
the strongest verdict its checks establish, and the claim the weakest over its parts.
Corroborating checks (float statistics beside an exact certificate) count only through a
refutation: they may refute, but they never lower a certification to "supported".

A certification states its *scope*: ``"all"`` when the check covers every size the claim
quantifies over (a symbolic argument in the dimensions, or a checked reduction of the
general case to the finite cases it decides), else the bounded range it covers (``"d ≤ 2"``).
A claim's scope is "all" when every part is certified for all sizes, and no claim it rests on
(``depends_on``) is certified for fewer (``limit_by_dependencies``). A certification names the
standard results it relies on (``relies_on``: Schwartz–Zippel, rank–nullity, …, with a
reference), so that a reader sees the whole trusted base.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import ClaimDefinitionError
from .vocabulary import Verdict

__all__ = ["ALL_SIZES", "Outcome", "Verdict", "claim_scope", "combine", "limit_by_dependencies", "scope_text",
           "shown_verdict"]

ALL_SIZES = "all"
# Evidence under this key measures the run itself (seconds, peak memory): reported with the
# evidence, never compared, since no two runs take the same time.
MEASURED = "measured"

def scope_text(scope: str | None) -> str:
    """What a certification covers, as people read it ("" when there is no certification)."""
    if scope is None:
        return ""
    return "all sizes" if scope == ALL_SIZES else scope


def shown_verdict(verdict: str, scope: str | None) -> str:
    """A verdict with the scope of a certification: "certified (all sizes)", "certified
    (d ≤ 2)"; other verdicts as they are. The words of every command and report, here where
    ``theorems list`` reads them without the report room."""
    return f"{verdict} ({scope_text(scope)})" if scope is not None else str(verdict)


# Strength used within a part (best wins) and across parts (worst wins).
_STRENGTH = {Verdict.INCONCLUSIVE: 0, Verdict.SUPPORTED: 1, Verdict.CERTIFIED: 2}


@dataclass
class Outcome:
    """What one check established.

    ``evidence`` must be JSON-serialisable and a function of the seed alone (no timings),
    so that the same seed reproduces it exactly. ``figures`` maps a short name to a
    matplotlib Figure; reports save them, other commands ignore them. ``scope`` is what a
    certification covers (``ALL_SIZES`` or a bounded range such as ``"d ≤ 2"``); only a
    certified outcome has one, and it must. ``relies_on`` names the standard results the
    outcome's argument cites rather than checks, each with a reference.
    """

    verdict: Verdict
    summary: str
    evidence: dict[str, Any] = field(default_factory=dict)
    counterexample: dict[str, Any] | None = None
    certificate: dict[str, Any] | None = None
    figures: dict[str, Any] = field(default_factory=dict)
    scope: str | None = None
    relies_on: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.verdict = Verdict(self.verdict)
        self.relies_on = tuple(self.relies_on)
        if self.verdict is Verdict.REFUTED and self.counterexample is None:
            raise ClaimDefinitionError(f"a refuted outcome needs its counterexample: {self.summary}")
        if self.verdict is not Verdict.CERTIFIED and self.scope is not None:
            raise ClaimDefinitionError(f"only a certified outcome has a scope: {self.summary}")
        if self.verdict is Verdict.CERTIFIED and not (isinstance(self.scope, str) and self.scope.strip()):
            raise ClaimDefinitionError(f"a certified outcome states its scope ({ALL_SIZES!r} or the range it covers, "
                                       f"e.g. 'd ≤ 2'): {self.summary}")


def combine(outcomes: list[tuple[str, bool, Outcome]]) -> Verdict:
    """Combine (part, corroborating, outcome) triples into one claim verdict."""
    if not outcomes:
        raise ClaimDefinitionError("a claim needs at least one check")
    if any(o.verdict is Verdict.REFUTED for _, _, o in outcomes):
        return Verdict.REFUTED
    per_part: dict[str, list[Verdict]] = {}
    for part, corroborating, outcome in outcomes:
        per_part.setdefault(part, [])
        if not corroborating:
            per_part[part].append(outcome.verdict)
    for part, verdicts in per_part.items():
        if not verdicts:
            raise ClaimDefinitionError(f"part {part!r} has only corroborating checks")
    best = [max(verdicts, key=_STRENGTH.__getitem__) for verdicts in per_part.values()]
    return min(best, key=_STRENGTH.__getitem__)


def claim_scope(outcomes: list[tuple[str, bool, Outcome]], verdict: Verdict,
                explicit: list[bool] | None = None, names: list[str] | None = None) -> str | None:
    """What a certified claim's certificates cover (None unless ``verdict`` is certified):
    ``ALL_SIZES`` when every part has a certification for all sizes, else the bounded
    scopes of the parts that lack one, "; " between the ranges of one part (it holds on
    each) and " · " between parts, each then named (``"statement: d ≤ 2 · chain: d ≤ 2"``).

    Scopes within a part never merge silently: where several checks certify the default part
    with different scopes (one for n ≤ 6, one for all n), each must say with ``part=`` which
    conjunct it covers (``explicit``: whether each check named its part; ``names``: the
    checks' names, for the message), so that a bounded check of one conjunct and an
    all-sizes check of another cannot add up to "all sizes"."""
    if verdict is not Verdict.CERTIFIED:
        return None
    per_part: dict[str, list[str]] = {}
    implicit: dict[str, list[tuple[str, str]]] = {}
    for index, (part, corroborating, outcome) in enumerate(outcomes):
        if not corroborating and outcome.verdict is Verdict.CERTIFIED:
            per_part.setdefault(part, [])
            if outcome.scope not in per_part[part]:
                per_part[part].append(outcome.scope)
            if explicit is not None and not explicit[index]:
                implicit.setdefault(part, []).append((names[index] if names else f"check {index + 1}", outcome.scope))
    for part, certified in implicit.items():
        if len({scope for _, scope in certified}) > 1:
            listed = ", ".join(f"{name!r} ({scope})" for name, scope in certified)
            raise ClaimDefinitionError(f"checks {listed} certify part {part!r} with different scopes: give each the "
                                       "conjunct it covers with part= (or the same part= where each covers the whole "
                                       "statement)")
    bounded = {part: scopes for part, scopes in per_part.items() if ALL_SIZES not in scopes}
    if not bounded:
        return ALL_SIZES
    named = len(per_part) > 1
    return " · ".join(f"{part}: {'; '.join(scopes)}" if named else "; ".join(scopes)
                      for part, scopes in bounded.items())


def limit_by_dependencies(own: str | None, dependencies: dict[str, tuple[Verdict, str | None] | None]) -> str | None:
    """A certified claim's scope limited by the claims it rests on: ``dependencies`` maps each
    implemented claim of ``depends_on`` to its (verdict, scope), or None where it was not run.
    A claim is never certified for more sizes than they are: every dependency that is not
    certified for all sizes is named with its scope (or verdict), "as <id>: …"."""
    if own is None:
        return None
    limits = []
    for dependency, result in dependencies.items():
        if result is None:
            limits.append(f"as {dependency}: not run")
        elif result[0] is not Verdict.CERTIFIED:
            limits.append(f"as {dependency}: {result[0].value}")
        elif result[1] != ALL_SIZES:
            limits.append(f"as {dependency}: {result[1]}")
    if not limits:
        return own
    return " · ".join(([] if own == ALL_SIZES else [own]) + limits)
