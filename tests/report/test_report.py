import json

import pytest

from theorems import report
from theorems.engine.context import Context
from theorems.engine.registry import affected_by, claims
from theorems.engine.runner import run_claim
from theorems.report import claim_seconds
from theorems.report import files as report_files


def _results():
    return [run_claim(claims()["giannou2023.thm6"], Context("quick", 1, "cpu"))]


RUN = {"profile": "quick", "seed": 1, "device": "cpu", "seconds": 0.1,
       "environment": {"git_commit": "x", "command": "t", "packages": {}, "python": "3", "platform": "p", "cpu": "c",
                       "cpu_count": 1, "gpu": "none"}}


def test_report_is_written_atomically(tmp_path, monkeypatch):
    out = tmp_path / "r"
    report.write_report(_results(), RUN, out)
    before = (out / "report.json").read_text()

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(report_files, "render_markdown", broken)
    with pytest.raises(RuntimeError):
        report.write_report(_results(), {**RUN, "seed": 2}, out)
    assert (out / "report.json").read_text() == before  # the old report is intact
    # ... and no staging folder is left
    assert sorted(p.name for p in out.iterdir()) == ["figures", "records", "report.json", "report.md"]


def test_report_lists_unimplemented_ids_without_verdicts(tmp_path):
    json_path, md_path = report.write_report(_results(), RUN, tmp_path)
    data = json.loads(json_path.read_text())
    assert "giannou2023.thm8" in data["not_implemented"]
    assert "| giannou2023.thm8 | Thm 8 [Thm 1] | not implemented | |" in md_path.read_text()


def _refuted_claim_id() -> str:
    """A claim the gate manifest records as refuted (the first one: kept cheap at quick)."""
    from theorems.cli import default_manifest_path
    from theorems.engine.manifest import load_manifest
    from theorems.engine.verdicts import Verdict

    return next(claim_id for claim_id, verdict in load_manifest(default_manifest_path()).items()
                if verdict is Verdict.REFUTED)


def test_errata_list_every_refuted_claim_with_counterexample_severity_and_consequences(tmp_path):
    refuted = claims()[_refuted_claim_id()]
    context = Context("quick", 1, "cpu")
    results = [run_claim(refuted, context)] + [run_claim(claims()[i], context) for i in refuted.erratum.corrected]
    json_path, md_path = report.write_report(results, RUN, tmp_path)
    data = json.loads(json_path.read_text())

    (entry,) = data["errata"]  # the corrected variants are not refuted
    assert entry["id"] == refuted.id and entry["severity"] == refuted.erratum.severity
    assert entry["reason"] == refuted.erratum.reason
    assert [c["id"] for c in entry["corrected"]] == list(refuted.erratum.corrected)
    assert all(c["verdict"] in {"certified", "supported"} for c in entry["corrected"])
    assert [a["id"] for a in entry["affects"]] == affected_by(refuted.id)
    assert entry["counterexamples"] and all(c["summary"] for c in entry["counterexamples"])
    assert any(c["counterexample"] is not None for c in entry["counterexamples"])

    markdown = md_path.read_text()
    errata = markdown[markdown.index("## Errata"):markdown.index("## Claims")]
    assert f"| `{refuted.id}` | {refuted.erratum.severity} |" in errata
    assert refuted.erratum.reason in errata and "```json" in errata


def test_report_without_refutations_says_so(tmp_path):
    _, md_path = report.write_report(_results(), RUN, tmp_path)
    assert "## Errata\n\nNo claim was refuted in this run." in md_path.read_text()
    assert json.loads((tmp_path / "report.json").read_text())["errata"] == []


def test_claim_seconds_reads_an_earlier_report_or_nothing(tmp_path):
    path = tmp_path / "report.json"
    assert claim_seconds(path) == {}
    path.write_text('{"claims": [{"id": "a.b", "timing_s": {"total": 2.5}}]}')
    assert claim_seconds(path) == {"a.b": 2.5}
    path.write_text("not json")
    assert claim_seconds(path) == {}
