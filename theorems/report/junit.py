"""JUnit XML of a gate (``theorems gate --junit FILE``), the format CI systems show as tests.

One ``<testcase>`` per claim and seed: classname the paper, name ``<claim id> [<seed>]``. It
fails (``<failure>``) where the verdict or scope differs from the manifest or the claim breaks
the discipline (``theorems.discipline``, on its first seed's case), and errs (``<error>``)
where the claim crashed; each message says the verdict, the scope and why (the deciding check's
summary), and each case carries them as properties too, as pytest's ``record_property`` does.
A manifest entry that names no claim fails as a case of its own, without a seed.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.manifest import claim_difference
from ..engine.runner import ClaimResult
from ..engine.vocabulary import Verdict
from .document import shown_verdict

SUITE_NAME = "theorems gate"


@dataclass
class Case:
    """One test case: a claim at one seed (None: a manifest entry that names no claim)."""

    claim_id: str
    seed: int | None
    verdict: str | None = None
    scope: str | None = None
    reason: str = ""
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    error: str | None = None
    checks: list[str] = field(default_factory=list)  # each check's verdict and summary

    @property
    def name(self) -> str:
        return self.claim_id if self.seed is None else f"{self.claim_id} [{self.seed}]"

    def message(self, what: str) -> str:
        verdict = "no verdict" if self.verdict is None else f"verdict {shown_verdict(self.verdict, self.scope)}"
        return f"{self.name}: {verdict}; {what}" + (f"; reason: {self.reason}" if self.reason else "")


def _reason(result: ClaimResult) -> str:
    """Why the claim got its verdict: the first check that gave that verdict, and its summary."""
    deciding = next((check for check in result.checks if check.outcome.verdict is result.verdict), None)
    return f"{deciding.check.name}: {deciding.outcome.summary}" if deciding else ""


def gate_cases(runs: Sequence[tuple[int, Sequence[ClaimResult]]], expected: Mapping[str, Verdict],
               scopes: Mapping[str, str], broken: Mapping[str, list[str]] | None = None,
               crashes: Sequence[dict] = (), packages: Sequence[str] = ()) -> list[Case]:
    """The cases of a gate's ``runs`` (each seed with its results): against the manifest's
    ``expected`` verdicts and ``scopes``, with the lines of each claim that breaks the
    discipline (``broken``) and the ``crashes`` of the last run (``ClaimsCrashed.crashes``);
    ``packages``: the claim packages gated, if not the suite's."""
    cases, first = [], {}
    seen = set()
    for seed, results in runs:
        for result in results:
            claim_id = result.claim.id
            seen.add(claim_id)
            difference = claim_difference(claim_id, expected.get(claim_id), result.verdict, scopes.get(claim_id),
                                          result.scope, packages)
            case = Case(claim_id, seed, result.verdict.value, result.scope, _reason(result), round(result.seconds, 3),
                        [difference] if difference else [],
                        checks=[f"{check.check.name}: {shown_verdict(check.outcome.verdict, check.outcome.scope)} — "
                                f"{check.outcome.summary}" for check in result.checks])
            first.setdefault(claim_id, case)
            cases.append(case)
    for claim_id, lines in (broken or {}).items():
        if claim_id in first:
            first[claim_id].failures += lines
        else:
            cases.append(Case(claim_id, None, failures=list(lines)))
    seed = runs[-1][0] if runs else None
    for crash in crashes:
        for claim_id in crash["claims"]:
            seen.add(claim_id)
            cases.append(Case(claim_id, seed, error=f"crashed on {crash['worker']}: {crash['reason']}"))
    cases += [Case(claim_id, None, failures=[claim_difference(claim_id, verdict, None, packages=packages)])
              for claim_id, verdict in sorted(expected.items()) if claim_id not in seen]
    return cases


def junit_xml(cases: Sequence[Case]) -> ET.ElementTree:
    failures = sum(bool(case.failures) for case in cases)
    errors = sum(case.error is not None for case in cases)
    seconds = f"{sum(case.seconds for case in cases):.3f}"
    attributes = {"name": SUITE_NAME, "tests": str(len(cases)), "failures": str(failures), "errors": str(errors),
                  "skipped": "0", "time": seconds}
    root = ET.Element("testsuites", attributes)
    suite = ET.SubElement(root, "testsuite", attributes)
    for case in cases:
        element = ET.SubElement(suite, "testcase", {"classname": case.claim_id.split(".", 1)[0], "name": case.name,
                                                    "time": f"{case.seconds:.3f}"})
        properties = ET.SubElement(element, "properties")
        for name, value in (("verdict", case.verdict), ("scope", case.scope), ("seed", case.seed)):
            if value is not None:
                ET.SubElement(properties, "property", {"name": name, "value": str(value)})
        if case.error is not None:
            ET.SubElement(element, "error", {"message": case.message(case.error), "type": "crashed"}).text = case.error
        elif case.failures:
            failure = ET.SubElement(element, "failure", {"message": case.message("; ".join(case.failures)),
                                                         "type": "differs"})
            failure.text = "\n".join([*case.failures, *case.checks])
        if case.checks:
            ET.SubElement(element, "system-out").text = "\n".join(case.checks)
    ET.indent(root)
    return ET.ElementTree(root)


def write_junit(path: Path, cases: Sequence[Case]) -> None:
    junit_xml(cases).write(path, encoding="utf-8", xml_declaration=True)
