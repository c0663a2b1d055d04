import json
import subprocess
import sys

import pytest

from theorems.engine.context import Context
from theorems.engine.parallel import run_claims
from theorems.engine.registry import resolve
from theorems.engine.settings import validate_jobs

# Fast at the quick profile, from different papers and kinds of check (symbolic,
# certificate, randomized, torch statistics).
IDS = ("giannou2023.lemma6", "giannou2023.thm6", "giannou2023.fact1", "daneshmand2020.lemma12", "daneshmand2020.thm5")


def run_cli(*arguments):
    """A fresh process, as a user runs it: the evidence must not depend on what this test
    process has imported (Hypothesis draws constants from the loaded local modules)."""
    completed = subprocess.run([sys.executable, "-m", "theorems", "check", *IDS, "--profile", "quick", "--seed", "7",
                                "--json", *arguments], capture_output=True, text=True, check=True)
    return [{key: value for key, value in record.items() if key not in ("timing_s", "environment", "resources")}
            for record in json.loads(completed.stdout)]


def test_verdicts_and_evidence_do_not_depend_on_the_number_of_jobs():
    one, two = run_cli("--jobs", "1"), run_cli("--jobs", "2")
    assert [record["id"] for record in two] == list(IDS)  # the order asked for, not the order of completion
    assert one == two


def test_results_come_back_as_claim_results_in_order():
    selected = [resolve(claim_id) for claim_id in IDS[:3]]
    results = run_claims(selected, Context("quick", 7, "cpu"), jobs=2, expected_seconds={IDS[2]: 9.0})
    assert [r.claim.id for r in results] == list(IDS[:3])
    assert all(r.checks and r.seconds > 0 and len(r.checks) == len(r.claim.checks) for r in results)


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True])
def test_bad_job_counts(jobs):
    with pytest.raises(ValueError, match="jobs"):
        validate_jobs(jobs)


@pytest.mark.parametrize("command", ["check giannou2023.thm6", "report", "gate"])
def test_cli_rejects_a_bad_job_count(command, capsys):
    from theorems.cli import main

    assert main([*command.split(), "--jobs", "0"]) == 2
    assert "jobs must be at least 1" in capsys.readouterr().err


def test_importing_every_suite_module_never_runs_the_command_line(monkeypatch):
    """Workers inherit the parent's sys.argv; importing theorems.__main__ there would run the
    command line again and start a pool in every worker (a fork bomb)."""
    import sys

    from theorems.engine.parallel import import_every_suite_module

    monkeypatch.setattr(sys, "argv", ["theorems", "report", "--jobs", "2"])
    monkeypatch.delitem(sys.modules, "theorems.__main__", raising=False)
    import_every_suite_module()
    assert "theorems.__main__" not in sys.modules


def test_ctrl_c_keeps_the_claims_that_finished():
    from theorems.engine.registry import Check, Claim
    from theorems.engine.verdicts import Outcome, Verdict
    from theorems.errors import Interrupted

    def finishes(ctx):
        return Outcome(Verdict.SUPPORTED, "done", {})

    def interrupted(ctx):
        raise KeyboardInterrupt

    first = Claim("giannou2023.lemma6", "test", (), (Check("ok", "randomized", finishes),), ())
    second = Claim("giannou2023.lemma9", "test", (), (Check("stopped", "randomized", interrupted),), ())
    third = Claim("giannou2023.thm6", "test", (), (Check("ok", "randomized", finishes),), ())
    with pytest.raises(Interrupted) as stop:
        run_claims([first, second, third], Context("quick", 0, "cpu"))
    assert [result.claim.id for result in stop.value.finished] == ["giannou2023.lemma6"]


def test_an_interrupted_report_keeps_what_finished_and_says_what_did_not_run(tmp_path, monkeypatch, capsys):
    from theorems import cli
    from theorems.engine.registry import claims
    from theorems.engine.runner import run_claim
    from theorems.errors import Interrupted

    def stopped_after_one(selected, context, *args, **kwargs):
        raise Interrupted([run_claim(selected[0], context)])

    monkeypatch.setattr(cli, "_run_claims", stopped_after_one)
    assert cli.main(["report", "--profile", "quick", "--out", str(tmp_path)]) == 130
    report = json.loads((tmp_path / "report.json").read_text())
    first = next(iter(claims()))
    assert [claim["id"] for claim in report["claims"]] == [first]
    assert len(report["interrupted"]["not_run"]) == len(claims()) - 1
    assert (tmp_path / "records" / f"{first}.json").exists()
    assert "Interrupted" in (tmp_path / "report.md").read_text()
    assert "did not run" in capsys.readouterr().err
