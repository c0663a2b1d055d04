"""report.md: the report for people, rendered from the report's data (``document``)."""

from __future__ import annotations

import json

from ..engine.catalog import catalog
from ..engine.vocabulary import Verdict
from .benchmarks import render_benchmarks_markdown
from .document import (
    GENERAL_ARGUMENT_LABEL,
    RELIES_ON_LABEL,
    SEVERITY_EXPLANATION,
    absent_label,
    affects_relation,
    citation_markdown,
    crashed_ids,
    discipline_mark,
    manifest_mark,
    not_run_summary,
    project_text,
    reference_markdown,
    rerun_command,
    scope_limit,
    scope_text,
    shown_verdict,
    slug,
)
from .mutants import counts_text, score_text, within_scope

_MAX_BLOCK = 1500  # characters of a counterexample shown in report.md (report.json has all)
_MAX_CELL = 60  # characters of a verdict with its scope in a table cell; a longer scope is shown with its claim


def _table_verdict(verdict: str, scope: str | None) -> str:
    """A verdict for a table cell: with its scope where that is short, else pointing below (a
    check's summary, a claim's section), where the scope is stated in full."""
    shown = shown_verdict(verdict, scope)
    return shown if len(shown) <= _MAX_CELL else f"{verdict} (scope below)"


def _check_lines(claim: dict) -> list[str]:
    """The checks as a table of short cells, each check's summary (often a long sentence) below it."""
    lines = ["| check | kind | part | verdict |", "|---|---|---|---|"]
    for check in claim["evidence"]:
        role = " (corroborating)" if check["corroborating"] else ""
        verdict = _table_verdict(check["verdict"], check.get("scope"))
        lines.append(f"| {check['check']} | {check['kind']} | {check['part']}{role} | {verdict} |")
    lines.append("")
    for check in claim["evidence"]:
        long_scope = len(shown_verdict(check["verdict"], check.get("scope"))) > _MAX_CELL
        scope = f" ({check['verdict']} for {scope_text(check['scope'])})" if long_scope else ""
        lines.append(f"- *{check['check']}*{scope}: {check['summary']}")
    for check in claim["evidence"]:
        if check.get("relies_on"):
            lines += ["", f"{check['check']} {RELIES_ON_LABEL}: " + "; ".join(check["relies_on"]) + "."]
    return lines


def _compact_json(value, indent: str = "") -> str:
    """JSON with one line per row: lists of scalars (matrix rows, vectors) stay on one line."""
    inner = indent + " "
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {_compact_json(v, inner)}"
                 for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(v, (list, dict)) for v in value):
        return "[\n" + ",\n".join(inner + _compact_json(v, inner) for v in value) + "\n" + indent + "]"
    return json.dumps(value, ensure_ascii=False)


def _block(value) -> list[str]:
    text = _compact_json(value)
    if len(text) > _MAX_BLOCK:
        text = text[:_MAX_BLOCK] + "\n… (truncated; see report.json)"
    return ["```json", text, "```"]


def _certificate_summary(certificate: dict) -> dict:
    """Certificates can list a thousand sizes; the markdown shows their head and tail."""
    entries = certificate.get("entries")
    if not isinstance(entries, list) or len(entries) <= 4:
        return certificate
    return {**certificate, "entries": entries[:2] + [f"… {len(entries) - 3} more …"] + entries[-1:]}


def _verdict_list(entries: list[dict]) -> str:
    return ", ".join(f"`{e['id']}` ({e['verdict']})" for e in entries)


def _affects_count(entries: list[dict]) -> str:
    """The errata table's short cell: how many claims rest on the refuted one (listed below it)."""
    if not entries:
        return "—"
    refuted = sum(e["verdict"] == Verdict.REFUTED.value for e in entries)
    return f"{len(entries)} ({refuted} refuted)" if refuted else str(len(entries))


def _errata_lines(entries: list[dict]) -> list[str]:
    """Every refuted claim: how much it matters (severity), why, the minimal counterexample,
    the corrected reading and the claims resting on it."""
    if not entries:
        return ["", "## Errata", "", "No claim was refuted in this run."]
    lines = ["", "## Errata", "", SEVERITY_EXPLANATION, "",
             "| claim | severity | corrected | claims resting on it |", "|---|---|---|---|"]
    for entry in entries:
        lines.append(f"| `{entry['id']}` | {entry['severity']} | {_verdict_list(entry['corrected']) or '—'} | "
                     f"{_affects_count(entry['affects'])} |")
    for entry in entries:
        lines += ["", f"**{entry['id']}** ({entry['label']}) — *{entry['severity']}*. {entry['reason']}"]
        if entry["corrected"]:
            lines += ["", f"Corrected: {_verdict_list(entry['corrected'])}."]
        if entry["affects"]:
            lines += ["", f"Affects: {_verdict_list(entry['affects'])}."]
        lines += ["", affects_relation(entry["severity"], entry["affects"])]
        for refutation in entry["counterexamples"]:
            lines += ["", f"Refuted by {refutation['check']}: {refutation['summary']}"]
            if refutation["counterexample"] is not None:
                lines += _block(refutation["counterexample"])
    return lines


def _mutants_lines(claims: list[dict]) -> list[str]:
    """The generated mutants' table (``report --mutants``): each certified claim's score, its
    counts and the survivors that change the object within the certified scope or are not shown
    not to; nothing when the report has none."""
    scored = [claim for claim in claims if "generated_mutants" in claim]
    if not scored:
        return []
    lines = ["", "## Generated mutants", "",
             "Mutants of each certified claim's subject objects that nobody chose (`theorems meta --generated`); "
             "score = killed / (generated − equivalent).", "",
             "| claim | score | mutants | survivors within the certified scope |", "|---|---|---|---|"]
    for claim in scored:
        mutants = claim["generated_mutants"]
        concerns = "; ".join(f"{survivor['object']}: {survivor['description']} ({survivor['within_scope']})"
                             for survivor in within_scope(mutants)).replace("|", "/")
        lines.append(f"| {claim['id']} | {score_text(mutants)} | {counts_text(mutants)} | {concerns or 'none'} |")
    return lines


def _gpu_text(gpu: dict | str) -> str:
    if isinstance(gpu, str):
        return gpu
    details = ", ".join(f"{key} {value}" for key, value in gpu.items() if key != "name")
    return gpu["name"] + (f" ({details})" if details else "")


def _absent(claim_id: str, report: dict) -> str:
    """Why a claim has no verdict in this report."""
    if claim_id in report.get("not_run", ()):
        return "crashed" if claim_id in crashed_ids(report) else "not run"
    return "not implemented" if claim_id in report["not_implemented"] else "not in this run"


def render_markdown(report: dict, figures: dict[str, list[str]]) -> str:
    claims = report["claims"]
    not_run = report.get("not_run", [])
    by_id = {c["id"]: c for c in claims}
    env = report["environment"]
    lines = [
        f"# Verification report — theorems {report['version']}",
        "",
        (f"Profile **{report['profile']}**, seed **{report['seed']}**, device **{report['device']}**, "
         f"generated {report['generated_at']}, commit `{env['git_commit']}`."),
        f"Command: `{env['command']}`. Total time {report['seconds']:.0f} s.",
        "",
        "Verdicts: " + ", ".join(f"{n} {v}" for v, n in sorted(report["summary"].items()))
        + (f"; {not_run_summary(report)}" if not_run else "")
        + f"; {len(report['not_implemented'])} catalog ids not implemented yet.",
        "",
    ]
    breaking = report.get("discipline", {}).get("breaking", [])
    if breaking:
        lines += [f"**Breaking the discipline** ({report['discipline']['applied']}): "
                  + ", ".join(f"`{i}`" for i in breaking) + ". Each is marked below with what it breaks.", ""]
    for crash in report.get("crashed", ()):
        lines += [f"**Crashed on {crash['worker']}, without a verdict: "
                  + ", ".join(f"`{i}`" for i in crash["claims"]) + f". {crash['reason']}**", ""]
    if "interrupted" in report:
        lines += [f"**Interrupted ({report['interrupted'].get('signal', 'SIGINT')}): this report holds only the claims "
                  f"that finished; {len(not_run)} did not run: " + ", ".join(f"`{i}`" for i in not_run) + ".**", ""]
    cited = report["papers"]
    lines += ["## Papers", ""]
    lines += [f"- **{paper_id}**: " + (reference_markdown(paper) if paper else "no paper metadata declared.")
              for paper_id, paper in cited.items()]
    lines += ["", "## Verdicts by paper"]
    # Another project's report lists its own claims, not the packaged catalog.
    catalog_ids = [] if "claim_packages" in report else list(catalog())
    ids = list(dict.fromkeys([*catalog_ids, *(c["id"] for c in claims), *not_run]))
    papers = list(dict.fromkeys(claim_id.split(".", 1)[0] for claim_id in ids))
    for paper in papers:
        lines += ["", f"### {paper}", "", "| id | label | verdict | time (s) |", "|---|---|---|---|"]
        for claim_id in ids:
            if not claim_id.startswith(paper + "."):
                continue
            claim = by_id.get(claim_id)
            if claim is None:
                lines.append(f"| {claim_id} | {absent_label(claim_id, report)} | {_absent(claim_id, report)} | |")
            else:
                verdict = (_table_verdict(claim["verdict"], claim["scope"]) + manifest_mark(claim)
                           + discipline_mark(claim))
                lines.append(f"| [{claim_id}](#{slug(claim_id).lower().replace('.', '')}) | {claim['label']} | "
                             f"**{verdict}** | {claim['timing_s']['total']:.1f} |")
    lines += _errata_lines(report["errata"])
    lines += _mutants_lines(claims)
    lines += ["", "## Claims"]
    for claim in claims:
        verdict = shown_verdict(claim["verdict"], claim["scope"]) + manifest_mark(claim) + discipline_mark(claim)
        lines += ["", f"### {claim['id']}", "", f"**{claim['label']}** — verdict **{verdict}**", "",
                  *(["**Breaks the discipline:** " + " ".join(f"{line}." for line in claim["breaks_discipline"]), ""]
                    if claim.get("breaks_discipline") else []),
                  f"> {claim['statement']}", "",
                  f"Source: {citation_markdown(cited.get(claim['paper']), claim['paper'], claim['source'])}."]
        limit = scope_limit(claim)
        if limit:
            lines.append(f"Scope: {limit}.")
        if claim["variant_of"]:
            lines.append(f"Variant of {claim['variant_of']}.")
        if "erratum" in claim:
            lines.append(f"Erratum: **{claim['erratum']['severity']}** (see [Errata](#errata)).")
        if claim["depends_on"]:
            steps = [f"{d} ({by_id[d]['verdict']})" if d in by_id else f"{d} ({_absent(d, report)})"
                     for d in claim["depends_on"]]
            warning = " **Rests on a refuted step.**" if any(d in by_id and by_id[d]["verdict"] == Verdict.REFUTED.value
                                                             for d in claim["depends_on"]) else ""
            lines.append("Rests on: " + ", ".join(steps) + "." + warning)
        if claim["hypotheses"]:
            lines += ["", "Hypotheses: " + "; ".join(claim["hypotheses"]) + "."]
        if claim["notes"]:
            lines += ["", f"Notes: {claim['notes']}"]
        if claim.get("general_argument"):
            lines += ["", f"*{GENERAL_ARGUMENT_LABEL}* — {claim['general_argument']}"]
        if claim.get("profile_note"):
            lines += ["", f"Profiles: {claim['profile_note']}"]
        lines += [""] + _check_lines(claim)
        for check in claim["evidence"]:
            if "counterexample" in check:
                lines += ["", f"Counterexample ({check['check']}):"] + _block(check["counterexample"])
            if "certificate" in check:
                lines += ["", f"Certificate ({check['check']}):"] + _block(_certificate_summary(check["certificate"]))
        for path in figures.get(claim["id"], []):
            lines += ["", f"![{claim['id']}]({path})"]
    if "benchmarks" in report:
        lines += ["", render_benchmarks_markdown(report["benchmarks"]).rstrip()]
    lines += ["", "## Environment", "", "| package | version |", "|---|---|"]
    lines += [f"| {name} | {version} |" for name, version in env["packages"].items()]
    machine = (f"Python {env['python']} on {env['platform']}; CPU {env['cpu']} ({env['cpu_count']} cores); "
               f"GPU {_gpu_text(env['gpu'])}.")
    lines += ["", machine]
    if "blas" in env:
        lines.append(f"BLAS: numpy {env['blas']['numpy']}, scipy {env['blas']['scipy']}.")
    for project in report.get("claim_projects", ()):
        lines.append(f"Claims of {project['module']}: {project_text(project)}.")
    if rerun_command(report):
        lines.append(f"Same evidence again: this commit and these releases, `{rerun_command(report)}`.")
    lines.append("")
    return "\n".join(lines)
