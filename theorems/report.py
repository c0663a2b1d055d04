"""Verification reports: report.json (everything) and report.md (for people), with figures.

Files are staged in a temporary folder beside the target and moved into place with
os.replace, so a crash or a full disk never leaves a half-written report.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

from . import __version__
from .engine.catalog import catalog
from .engine.runner import ClaimResult
from .engine.verdicts import Verdict

_MAX_BLOCK = 1500  # characters of a counterexample shown in report.md (report.json has all)


def ensure_writable(out: Path) -> None:
    """Fail before any work is done if the report folder cannot be written."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".probe-"):
            pass
    except OSError as error:
        raise ValueError(f"report folder {out} is not writable: {error.strerror or error}") from None


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")


def build_report(results: list[ClaimResult], run: dict) -> dict:
    implemented = {r.claim.id for r in results}
    return {
        "suite": "theorems",
        "version": __version__,
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **run,
        "summary": dict(Counter(r.verdict.value for r in results)),
        "claims": [r.to_json() for r in results],
        "not_implemented": [claim_id for claim_id in catalog() if claim_id not in implemented],
    }


def _check_lines(claim: dict) -> list[str]:
    lines = ["| check | kind | part | verdict | summary |", "|---|---|---|---|---|"]
    for check in claim["evidence"]:
        role = " (corroborating)" if check["corroborating"] else ""
        summary = check["summary"].replace("|", "\\|")
        lines.append(f"| {check['check']} | {check['kind']} | {check['part']}{role} | {check['verdict']} | {summary} |")
    return lines


def _block(value) -> list[str]:
    text = json.dumps(value, indent=1, ensure_ascii=False)
    if len(text) > _MAX_BLOCK:
        text = text[:_MAX_BLOCK] + "\n… (truncated; see report.json)"
    return ["```json", text, "```"]


def _certificate_summary(certificate: dict) -> dict:
    """Certificates can list a thousand sizes; the markdown shows their head and tail."""
    entries = certificate.get("entries")
    if not isinstance(entries, list) or len(entries) <= 4:
        return certificate
    return {**certificate, "entries": entries[:2] + [f"… {len(entries) - 3} more …"] + entries[-1:]}


def render_markdown(report: dict, figures: dict[str, list[str]]) -> str:
    claims = report["claims"]
    by_id = {c["id"]: c for c in claims}
    env = report["environment"]
    lines = [
        f"# Verification report — theorems {report['version']}",
        "",
        f"Profile **{report['profile']}**, seed **{report['seed']}**, device **{report['device']}**, "
        f"generated {report['generated_at']}, commit `{env['git_commit']}`.",
        f"Command: `{env['command']}`. Total time {report['seconds']:.0f} s.",
        "",
        "Verdicts: " + ", ".join(f"{n} {v}" for v, n in sorted(report["summary"].items()))
        + f"; {len(report['not_implemented'])} catalog ids not implemented yet.",
        "",
        "## Verdicts by paper",
    ]
    ids = list(catalog()) + [c["id"] for c in claims if c["id"] not in catalog()]
    papers = list(dict.fromkeys(claim_id.split(".", 1)[0] for claim_id in ids))
    for paper in papers:
        lines += ["", f"### {paper}", "", "| id | label | verdict | time (s) |", "|---|---|---|---|"]
        for claim_id in ids:
            if not claim_id.startswith(paper + "."):
                continue
            claim = by_id.get(claim_id)
            if claim is None:
                lines.append(f"| {claim_id} | {catalog()[claim_id].label} | not implemented | |")
            else:
                lines.append(f"| [{claim_id}](#{_slug(claim_id).lower().replace('.', '')}) | {claim['label']} | "
                             f"**{claim['verdict']}** | {claim['timing_s']['total']:.1f} |")
    refuted = [c for c in claims if c["verdict"] == Verdict.REFUTED.value]
    if refuted:
        lines += ["", "## Findings: refuted claims", ""]
        for claim in refuted:
            reasons = [e["summary"] for e in claim["evidence"] if e["verdict"] == Verdict.REFUTED.value]
            lines.append(f"- **{claim['id']}** ({claim['label']}): {reasons[0]}")
    lines += ["", "## Claims"]
    for claim in claims:
        lines += ["", f"### {claim['id']}", "", f"**{claim['label']}** — verdict **{claim['verdict']}**", "",
                  f"> {claim['statement']}", "", f"Source: {claim['source']}."]
        if claim["variant_of"]:
            lines.append(f"Variant of {claim['variant_of']}.")
        if claim["depends_on"]:
            steps = [f"{d} ({by_id[d]['verdict']})" if d in by_id else f"{d} (not implemented)" for d in claim["depends_on"]]
            warning = " **Rests on a refuted step.**" if any(d in by_id and by_id[d]["verdict"] == Verdict.REFUTED.value
                                                             for d in claim["depends_on"]) else ""
            lines.append("Rests on: " + ", ".join(steps) + "." + warning)
        if claim["hypotheses"]:
            lines += ["", "Hypotheses: " + "; ".join(claim["hypotheses"]) + "."]
        if claim["notes"]:
            lines += ["", f"Notes: {claim['notes']}"]
        lines += [""] + _check_lines(claim)
        for check in claim["evidence"]:
            if "counterexample" in check:
                lines += ["", f"Counterexample ({check['check']}):"] + _block(check["counterexample"])
            if "certificate" in check:
                lines += ["", f"Certificate ({check['check']}):"] + _block(_certificate_summary(check["certificate"]))
        for path in figures.get(claim["id"], []):
            lines += ["", f"![{claim['id']}]({path})"]
    lines += ["", "## Environment", "", "| package | version |", "|---|---|"]
    lines += [f"| {name} | {version} |" for name, version in env["packages"].items()]
    lines += ["", f"Python {env['python']} on {env['platform']}; CPU {env['cpu']} ({env['cpu_count']} cores); GPU {env['gpu']}.", ""]
    return "\n".join(lines)


def write_report(results: list[ClaimResult], run: dict, out: Path) -> tuple[Path, Path]:
    """Write report.json, report.md and figures/ under ``out`` atomically; return the paths."""
    ensure_writable(out)
    report = build_report(results, run)
    staging = Path(tempfile.mkdtemp(prefix=".report-", dir=out))
    try:
        figures: dict[str, list[str]] = {}
        (staging / "figures").mkdir()
        for result in results:
            for name, figure in result.figures.items():
                filename = f"{_slug(result.claim.id)}--{_slug(name)}.png"
                figure.savefig(staging / "figures" / filename, dpi=110, bbox_inches="tight")
                figures.setdefault(result.claim.id, []).append(f"figures/{filename}")
        report["figures"] = figures
        (staging / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        (staging / "report.md").write_text(render_markdown(report, figures), encoding="utf-8")
        (out / "figures").mkdir(exist_ok=True)
        for stale in (out / "figures").glob("*.png"):
            if not (staging / "figures" / stale.name).exists():
                stale.unlink()
        for figure_file in (staging / "figures").iterdir():
            os.replace(figure_file, out / "figures" / figure_file.name)
        for name in ("report.json", "report.md"):
            os.replace(staging / name, out / name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out / "report.json", out / "report.md"
