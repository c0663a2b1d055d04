"""The report as data: what ``report.json`` holds, built from the engine's results.

Everything a renderer (Markdown, HTML, records) shows is computed here once: each claim's
JSON with, for a refuted claim, the implemented claims that rest on it (``affects``, which
depends on every registered claim and so is added when the report is built, not by the
engine's result), the errata, the claims an interrupted run did not finish (``not_run``) and
the catalog ids not implemented yet.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import __version__
from ..engine.catalog import catalog
from ..engine.registry import affected_by
from ..engine.registry import claims as registered_claims
from ..engine.runner import ClaimResult
from ..engine.verdicts import ALL_SIZES
from ..engine.vocabulary import Severity, Verdict

# The erratum severities explained, in the words report.md and the HTML errata page use.
SEVERITY_EXPLANATION = (
    f"Each refuted claim, with its severity: *{Severity.AS_PRINTED}* (the printed text is false, but a reading "
    "the paper's proof or surrounding text supports holds, and nothing later relies on the false "
    f"reading) or *{Severity.SUBSTANTIVE}* (a later result or proof step relies on it, or no nearby reading "
    "repairs it).")


# How the reports label what the machine did not check: a claim's prose argument for the sizes
# its certificates do not cover, and the standard results a certificate cites (``relies_on``).
GENERAL_ARGUMENT_LABEL = "general argument: not machine-checked"
RELIES_ON_LABEL = "relies on (cited, not machine-checked)"
# The claims table's words for a scope the machine checks for every size.
MACHINE_CHECKED_ALL_SIZES = "all sizes, machine-checked"


def scope_text(scope: str | None) -> str:
    """What a certification covers, as people read it ("" when there is no certification)."""
    if scope is None:
        return ""
    return "all sizes" if scope == ALL_SIZES else scope


def shown_verdict(verdict: str, scope: str | None) -> str:
    """A verdict with the scope of a certification: "certified (all sizes)", "certified
    (d ≤ 2)"; other verdicts as they are."""
    return f"{verdict} ({scope_text(scope)})" if scope is not None else str(verdict)


def manifest_mark(claim: dict) -> str:
    """" (manifest: inconclusive)" after a claim's verdict where it differs from the gate
    manifest's expected verdict (report.json's ``manifest_verdict``), else ""."""
    expected = claim.get("manifest_verdict")
    return f" (manifest: {expected})" if expected is not None and expected != claim["verdict"] else ""


def scope_limit(claim: dict) -> str | None:
    """Where a claim's scope is narrower than its own certificates' because of the claims it
    rests on: a sentence saying both ("" scopes as people read them), else None."""
    if "own_scope" not in claim or claim["own_scope"] is None:
        return None
    return (f"its own certificates cover {scope_text(claim['own_scope'])}; limited by the claims it rests on to "
            f"{scope_text(claim['scope'])}")


def slug(text: str) -> str:
    """``text`` as a file name or anchor: runs of anything but letters, digits, '.', '_'
    and '-' become one '-'."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")


def claim_document(result: ClaimResult) -> dict[str, Any]:
    """One claim's entry in report.json, in records and in ``theorems check --json``: the
    engine's JSON, and for a refuted claim the implemented claims resting on it."""
    document = result.to_json()
    if "erratum" in document:
        document["erratum"]["affects"] = affected_by(result.claim.id)
    return document


def build_report(results: list[ClaimResult], run: dict, not_run: list[str] = (),
                 expected: Mapping[str, Verdict] | None = None) -> dict:
    """The report of ``results``. ``not_run``: the claims (variants included) that the run
    selected but did not finish, because it was interrupted; ``not_implemented``: the catalog
    ids no registered claim implements (none in the report of another project's claim
    packages, ``run["claim_packages"]``: the packaged catalog is not its paper). An
    implemented claim in neither and without a result was not selected (``theorems report ID ...``).
    ``expected``: the gate manifest's verdicts, where one is known; each claim it names gets
    ``manifest_verdict``, so that the renderers mark a verdict that differs (``manifest_mark``)."""
    claims = [claim_document(r) for r in results]
    for claim in claims:
        if expected and claim["id"] in expected:
            claim["manifest_verdict"] = expected[claim["id"]].value
    packaged = "claim_packages" not in run
    have = {r.claim.id for r in results} | set(not_run) | (set(registered_claims()) if packaged else set())
    return {
        "suite": "theorems",
        "version": __version__,
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        **run,
        "summary": dict(Counter(r.verdict.value for r in results)),
        "claims": claims,
        "errata": errata(claims),
        "not_run": list(not_run),
        "not_implemented": [claim_id for claim_id in catalog() if claim_id not in have] if packaged else [],
    }


def errata(claims: list[dict]) -> list[dict]:
    """One entry per refuted claim: the erratum (severity, reason), the shrunk counterexample
    of every refuting check, and the verdicts of the corrected variants and of the claims
    that rest on it (as far as this run has them)."""
    verdicts = {claim["id"]: claim["verdict"] for claim in claims}
    entries = []
    for claim in claims:
        if claim["verdict"] != Verdict.REFUTED:
            continue
        erratum = claim["erratum"]
        entries.append({
            "id": claim["id"],
            "label": claim["label"],
            "severity": erratum["severity"],
            "reason": erratum["reason"],
            "counterexamples": [
                {"check": check["check"], "summary": check["summary"], "counterexample": check.get("counterexample")}
                for check in claim["evidence"] if check["verdict"] == Verdict.REFUTED
            ],
            "corrected": [{"id": i, "verdict": verdicts.get(i, "not run")} for i in erratum["corrected"]],
            "affects": [{"id": i, "verdict": verdicts.get(i, "not run")} for i in erratum["affects"]],
        })
    return entries


def claim_seconds(report_path: Path) -> dict[str, float]:
    """Each claim's run time in an earlier report.json (empty if there is none or it cannot
    be read): ``--jobs`` uses it to start the longest claims first, so it orders work and
    never changes a result."""
    try:
        report = json.loads(Path(report_path).read_text(encoding="utf-8"))
        return {claim["id"]: float(claim["timing_s"]["total"]) for claim in report["claims"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}
