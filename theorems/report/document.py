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
from ..engine.papers import papers_json
from ..engine.registry import affected_by, registered_claim
from ..engine.registry import claims as registered_claims
from ..engine.runner import ClaimResult
from ..engine.verdicts import scope_text
from ..engine.verdicts import shown_verdict as shown_verdict  # (the report's modules read it here)
from ..engine.vocabulary import Severity, Verdict
from .mutants import mutants_document

# The erratum severities explained, in the words report.md and the HTML errata page use.
SEVERITY_EXPLANATION = (
    f"Each refuted claim, with its severity: *{Severity.AS_PRINTED}* (the printed text is false, but a reading "
    "the paper's proof or surrounding text supports holds, and nothing later relies on the false "
    f"reading) or *{Severity.SUBSTANTIVE}* (a later result or proof step relies on it, or no nearby reading "
    "repairs it).")


def affects_relation(severity: str, affects: list) -> str:
    """How an erratum's severity bears on the claims it affects (``affects``: the implemented
    claims resting on the refuted one through ``depends_on``, directly or through other claims),
    in the words report.md and the HTML use beside "Affects"."""
    if not affects:
        return "No implemented claim rests on it."
    count = f"{len(affects)} claim{'' if len(affects) == 1 else 's'}"
    if severity == Severity.AS_PRINTED:
        return (f"The {count} resting on it through depends_on need only the corrected reading (as-printed: none "
                "uses the false one), so each verdict is the claim's own; a refuted one has its own erratum.")
    return (f"The {count} resting on it through depends_on are where the false reading may matter (substantive: a "
            "later result or proof step relies on it, or no nearby reading repairs it).")


# How the reports label what the machine did not check: a claim's prose argument for the sizes
# its certificates do not cover, and the standard results a certificate cites (``relies_on``).
GENERAL_ARGUMENT_LABEL = "general argument: not machine-checked"
RELIES_ON_LABEL = "relies on (cited, not machine-checked)"
# The claims table's words for a scope the machine checks for every size.
MACHINE_CHECKED_ALL_SIZES = "all sizes, machine-checked"


# What a report of another project's claims holds them to (``theorems.discipline``), as its gate does.
DISCIPLINE_APPLIED = ("the erratum, paper and mutation rules of theorems.discipline (the generated mutants' rule too, "
                      "with --mutants), as `theorems gate --package` applies them")
DISCIPLINE_MARK = "breaks the discipline"


def discipline_mark(claim: dict) -> str:
    """" (breaks the discipline)" after the verdict of a claim that breaks it (report.json's
    ``breaks_discipline``), else ""."""
    return f" ({DISCIPLINE_MARK})" if claim.get("breaks_discipline") else ""


def rerun_command(report: dict) -> str | None:
    """The command that gives the report's evidence again (with this commit and these
    releases), its claim packages included; None when the run did not record one."""
    env = report.get("environment", {})
    if "rerun" not in env:
        return None
    return f"theorems report {env['rerun']}" + "".join(f" --package {package}"
                                                     for package in report.get("claim_packages", ()))


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


def short_authors(authors: list[str]) -> str:
    """Surnames, as a citation gives them: up to three, else the first "et al."."""
    surnames = [author.split()[-1] for author in authors]
    return ", ".join(surnames) if len(surnames) <= 3 else f"{surnames[0]} et al."


def link_label(link: str) -> str:
    """How a paper's link reads: "arXiv:2302.07937", "OpenReview", else the URL itself."""
    arxiv = re.fullmatch(r"https://arxiv\.org/abs/(\S+)", link)
    if arxiv:
        return f"arXiv:{arxiv.group(1)}"
    return "OpenReview" if link.startswith("https://openreview.net/") else link


def citation_markdown(paper: dict | None, paper_id: str, location: str) -> str:
    """A claim's source in Markdown: "Giannou, Rajput, Papailiopoulos, *The Expressive Power
    of …*, COLT 2023 ([arXiv:2302.07937](https://arxiv.org/abs/2302.07937)), App. A.2, Theorem 5"."""
    if paper is None:
        return f"{paper_id} (no paper metadata declared), {location}"
    return (f"{short_authors(paper['authors'])}, *{paper['title']}*, {paper['venue']} {paper['year']} "
            f"([{link_label(paper['link'])}]({paper['link']})), {location}")


def reference_markdown(paper: dict) -> str:
    """A paper's full reference in Markdown, every author named, with its link and note."""
    note = f" {paper['note'][0].upper()}{paper['note'][1:]}." if paper.get("note") else ""
    return (f"{', '.join(paper['authors'])}. *{paper['title']}*. {paper['venue']} {paper['year']}. "
            f"[{link_label(paper['link'])}]({paper['link']}).{note}")


def project_text(package: dict) -> str:
    """Another project's provenance (``environment.claim_package``) as people read it."""
    installed = (f"{package['distribution']} {package['version']}" if package.get("version")
                 else "not installed (imported from its folder)")
    if package.get("commit") is None:
        return f"{installed}; not in a git checkout"
    return f"{installed}; commit `{package['commit']}`" + (" with uncommitted changes" if package["dirty"] else "")


def slug(text: str) -> str:
    """``text`` as a file name or anchor: runs of anything but letters, digits, '.', '_'
    and '-' become one '-'."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")


def claim_document(result: ClaimResult) -> dict[str, Any]:
    """One claim's entry in report.json, in records and in ``theorems check --json``: the
    engine's JSON, for a refuted claim the implemented claims resting on it, and the score of
    its generated mutants where they ran (``report --mutants``)."""
    document = result.to_json()
    if "erratum" in document:
        document["erratum"]["affects"] = affected_by(result.claim.id)
    if result.generated_mutants is not None:
        document["generated_mutants"] = mutants_document(result.generated_mutants)
    return document


def build_report(results: list[ClaimResult], run: dict, not_run: list[str] = (),
                 expected: Mapping[str, Verdict] | None = None,
                 discipline: Mapping[str, list[str]] | None = None) -> dict:
    """The report of ``results``. ``not_run``: the claims (variants included) that the run
    selected but did not finish, because it was interrupted; ``not_implemented``: the catalog
    ids no registered claim implements (none in the report of another project's claim
    packages, ``run["claim_packages"]``: the packaged catalog is not its paper). An
    implemented claim in neither and without a result was not selected (``theorems report ID ...``).
    ``expected``: the gate manifest's verdicts, where one is known; each claim it names gets
    ``manifest_verdict``, so that the renderers mark a verdict that differs (``manifest_mark``).
    ``discipline``: where the report applied ``theorems.discipline`` (another project's claims),
    the lines of each claim that breaks it: the claim gets ``breaks_discipline``, which the
    renderers mark (``discipline_mark``), and the report ``discipline``, the claims breaking it."""
    claims = [claim_document(r) for r in results]
    for claim in claims:
        if expected and claim["id"] in expected:
            claim["manifest_verdict"] = expected[claim["id"]].value
        if discipline and claim["id"] in discipline:
            claim["breaks_discipline"] = list(discipline[claim["id"]])
    packaged = "claim_packages" not in run
    have = {r.claim.id for r in results} | set(not_run) | (set(registered_claims()) if packaged else set())
    not_implemented = [claim_id for claim_id in catalog() if claim_id not in have] if packaged else []
    return {
        "suite": "theorems",
        "version": __version__,
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        **run,
        "summary": dict(Counter(r.verdict.value for r in results)),
        # Every paper the report names: title, authors, venue, year, link (None where undeclared).
        "papers": papers_json([*(r.claim.paper for r in results),
                               *(claim_id.split(".", 1)[0] for claim_id in [*not_run, *not_implemented])]),
        "claims": claims,
        "errata": errata(claims),
        "not_run": list(not_run),
        "not_implemented": not_implemented,
        # The label of each claim not run, which the catalog may not know (a variant, another
        # project's claim), for the tables that list it all the same.
        "labels": {claim_id: claim.catalog_label() for claim_id in not_run
                   if (claim := registered_claim(claim_id)) is not None},
        **({"discipline": {"applied": DISCIPLINE_APPLIED, "breaking": list(discipline)}} if discipline is not None
           else {}),
    }


def absent_label(claim_id: str, report: dict) -> str:
    """The label of a claim without a verdict in ``report``: as recorded for a claim not run,
    else the catalog's (a claim not implemented, or not selected); empty when neither knows it."""
    recorded = report.get("labels", {}).get(claim_id)
    return recorded or (catalog()[claim_id].label if claim_id in catalog() else "")


def crashed_ids(report: dict) -> set[str]:
    """The claims of ``report`` without a verdict because a check crashed."""
    return {claim_id for crash in report.get("crashed", ()) for claim_id in crash["claims"]}


def not_run_summary(report: dict) -> str:
    """"2 not run (interrupted)", "1 not run (crashed)", "3 not run (1 crashed, 2 interrupted)"."""
    not_run = report.get("not_run", [])
    crashed = len(set(not_run) & crashed_ids(report))
    interrupted = len(not_run) - crashed
    why = ("interrupted" if not crashed else "crashed" if not interrupted
           else f"{crashed} crashed, {interrupted} interrupted")
    return f"{len(not_run)} not run ({why})"


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
