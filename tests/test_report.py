import json

import pytest

from theorems import report
from theorems.engine.context import Context
from theorems.engine.registry import claims
from theorems.engine.runner import run_claim


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

    monkeypatch.setattr(report, "render_markdown", broken)
    with pytest.raises(RuntimeError):
        report.write_report(_results(), {**RUN, "seed": 2}, out)
    assert (out / "report.json").read_text() == before  # the old report is intact
    assert sorted(p.name for p in out.iterdir()) == ["figures", "report.json", "report.md"]  # no staging left


def test_report_lists_unimplemented_ids_without_verdicts(tmp_path):
    json_path, md_path = report.write_report(_results(), RUN, tmp_path)
    data = json.loads(json_path.read_text())
    assert "giannou2023.thm8" in data["not_implemented"]
    assert "| giannou2023.thm8 | Thm 8 [Thm 1] | not implemented | |" in md_path.read_text()
