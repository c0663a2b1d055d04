"""Fault injection: ``theorems report`` killed at every stage leaves one whole report.

A report is run into a folder that already holds one, paused at a named point (the test hook
of ``theorems/engine/pauses.py``: after the first claim, with the new folder staged beside
the old one, and just after the swap) and sent SIGKILL, SIGTERM or SIGINT (to the whole
process group, as Ctrl-C is). After each, the folder holds exactly one whole report, whose
report.json, report.md, records/, figures/ and html/ agree: the old one (killed before the
swap, or stopped while writing), the new partial one (stopped while the claims ran: it lists
the claims not run), or the new one (after the swap). Each run also checks, while paused, that
it removed what the run before it left beside the folder.
"""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from theorems.report.records import record_filename

ROOT = Path(__file__).resolve().parents[2]
# Fast at quick; a figure (remark3), a refuted claim and its corrected variant.
IDS = ("giannou2023.lemma6", "giannou2023.remark3", "giannou2023.thm10", "giannou2023.thm10.corrected")


def start(out: Path, *options: str, pause: str | None = None) -> subprocess.Popen:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    environment.pop("THEOREMS_TEST_PAUSE_AT", None)
    if pause:
        environment["THEOREMS_TEST_PAUSE_AT"] = pause
    # --jobs 1: the claims run one after the other in the process paused, so a stop after the first leaves
    # the others not run (report's default runs them in workers, which a paused main process does not hold)
    process = subprocess.Popen([sys.executable, "-m", "theorems", "report", *IDS, "--profile", "quick", "--jobs", "1",
                                "--out", str(out), *options], env=environment, cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    if pause:
        for line in process.stderr:
            if line.strip() == f"theorems: test pause at {pause}":
                return process
        process.wait()
        raise AssertionError(f"the report ended ({process.returncode}) before pausing at {pause}")
    return process


def whole_report(out: Path, html: bool) -> dict:
    """The report in ``out``, after checking that all its parts are of that one report."""
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    ids = [claim["id"] for claim in report["claims"]]
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert all(f"\n### {claim_id}\n" in markdown for claim_id in ids)
    assert all(f"| {claim_id} |" in markdown and "| not run |" in markdown for claim_id in report["not_run"])
    records = sorted(path.name for path in (out / "records").iterdir())
    assert records == sorted(record_filename(i, suffix) for i in ids for suffix in (".json", ".md"))
    for claim in report["claims"]:  # the records of this very run: same verdicts, same timings
        record = json.loads((out / "records" / record_filename(claim["id"])).read_text(encoding="utf-8"))
        assert (record["verdict"], record["timing_s"]) == (claim["verdict"], claim["timing_s"])
    figures = sorted(path.name for path in (out / "figures").iterdir())
    assert figures == sorted(Path(path).name for paths in report["figures"].values() for path in paths)
    assert (out / "html").exists() == html
    if html:
        assert report["generated_at"] in (out / "html" / "index.html").read_text(encoding="utf-8")
        pages = sorted(path.stem for path in (out / "html" / "claims").iterdir())
        assert pages == sorted(ids)
    return report


def leftovers(parent: Path, name: str) -> list[str]:
    return sorted(entry.name for entry in parent.iterdir() if entry.name != name)


@pytest.mark.slow
def test_a_report_killed_at_any_point_leaves_one_whole_report(tmp_path):
    out = tmp_path / "r"
    first = start(out, "--html")
    assert first.wait(timeout=300) == 0, first.stderr.read()
    held = whole_report(out, html=True)
    html = True
    seen = {}
    for point in ("claim", "staged", "swapped"):
        for signum in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT):
            with_html = not html  # alternate, so that a report without --html replaces one with html/
            process = start(out, *(["--html"] if with_html else []), pause=point)
            # What the run before this one left beside the folder is gone; only this run's staging remains.
            staging = [] if point == "claim" else [".r.staging-"]
            assert [name[:len(".r.staging-")] for name in leftovers(tmp_path, "r")] == staging
            before = (out / "report.json").read_text(encoding="utf-8")
            if signum == signal.SIGINT:
                os.killpg(process.pid, signum)
            else:
                process.send_signal(signum)
            process.communicate(timeout=300)
            assert process.returncode == (-signum if signum == signal.SIGKILL else 128 + signum)
            stopped = signum != signal.SIGKILL
            if point == "swapped" or (point == "claim" and stopped):
                html = with_html
            report = whole_report(out, html)
            if point == "staged" or (point == "claim" and not stopped):
                outcome = "the old report"
                assert (out / "report.json").read_text(encoding="utf-8") == before
            elif point == "claim":
                outcome = "a new partial report"
                assert report["interrupted"]["signal"] == signal.Signals(signum).name
                assert 1 <= len(report["claims"]) < len(IDS)
                assert sorted(report["not_run"] + [c["id"] for c in report["claims"]]) == sorted(IDS)
            else:
                outcome = "the new report"
                assert report["not_run"] == [] and [c["id"] for c in report["claims"]] == list(IDS)
                assert report["generated_at"] >= held["generated_at"]
            held = report
            seen[point, signal.Signals(signum).name] = outcome
    last = start(out)
    assert last.wait(timeout=300) == 0
    whole_report(out, html=False)
    assert leftovers(tmp_path, "r") == []
    print(seen)


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_a_first_report_killed_while_its_claims_run_leaves_no_empty_folder(tmp_path, signum):
    """No folder appears before its report is whole: killed, a first run leaves none; stopped
    (SIGTERM), it leaves the partial report of the claims that finished."""
    out = tmp_path / "new" / "r"
    process = start(out, pause="claim")
    assert not out.exists()
    process.send_signal(signum)
    process.communicate(timeout=300)
    assert process.returncode == (-signum if signum == signal.SIGKILL else 128 + signum)
    if signum == signal.SIGKILL:
        assert not out.exists()
    else:
        report = whole_report(out, html=False)
        assert report["interrupted"]["signal"] == "SIGTERM" and 1 <= len(report["claims"]) < len(IDS)
        assert leftovers(out.parent, "r") == []
