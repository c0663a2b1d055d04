"""The command-line contract: JSON shapes, exit codes, one-line errors."""

import json
import subprocess
import sys

import pytest

from theorems import cli
from theorems.engine.catalog import catalog
from theorems.engine.registry import claims


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_json_lists_every_catalog_id(capsys):
    code, out, _ = run(capsys, "list", "--json")
    rows = json.loads(out)
    assert code == 0
    assert set(catalog()) <= {row["id"] for row in rows}
    for row in rows:
        assert {"id", "paper", "label", "statement", "implemented"} <= set(row)
        assert row["implemented"] == (row["id"] in claims())


def test_check_json_contract(capsys):
    code, out, _ = run(capsys, "check", "giannou2023.thm6", "--profile", "quick", "--seed", "5", "--device", "cpu", "--json")
    (record,) = json.loads(out)
    assert code == 0
    assert record["id"] == "giannou2023.thm6" and record["seed"] == 5
    assert record["verdict"] in {"certified", "supported", "refuted", "inconclusive"}
    assert record["evidence"] and all("verdict" in check for check in record["evidence"])


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["check", "giannou2023.lema6"], "closest: giannou2023.lemma6"),
        (["check", "giannou2023.thm8"], "not implemented"),
        (["check", "giannou2023.thm6", "--seed", "-1"], "seed must be in"),
        (["check", "giannou2023.thm6", "--profile", "huge"], "invalid choice"),
        (["enumerate", "boolean", "--n", "0"], "n"),
        (["bench", "certificate", "--sizes", "10"], "perfect square"),
        (["gate", "--manifest", "/nonexistent/claims.toml"], "not found"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert needle in err and err.count("\n") == 1 and out == ""


def test_cuda_without_gpu_is_a_usage_error(capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    code, _, err = run(capsys, "check", "giannou2023.thm6", "--device", "cuda")
    assert code == 2 and "no CUDA GPU" in err


def test_gate_reports_each_difference(capsys, tmp_path, monkeypatch):
    subset = {key: claims()[key] for key in ("giannou2023.thm6", "giannou2023.lemma4")}
    monkeypatch.setattr(cli, "claims", lambda: subset)
    manifest = tmp_path / "claims.toml"
    manifest.write_text('[verdicts]\n"giannou2023.thm6" = "refuted"\n"giannou2023.lemma4" = "certified"\n')
    code, out, _ = run(capsys, "gate", "--manifest", str(manifest), "--profile", "quick", "--device", "cpu")
    assert code == 1
    assert "giannou2023.thm6: expected refuted, got certified" in out
    manifest.write_text('[verdicts]\n"giannou2023.thm6" = "certified"\n"giannou2023.lemma4" = "certified"\n')
    assert run(capsys, "gate", "--manifest", str(manifest), "--profile", "quick", "--device", "cpu")[0] == 0


def test_report_writes_both_files(capsys, tmp_path, monkeypatch):
    subset = {key: claims()[key] for key in ("giannou2023.thm6", "giannou2023.lemma8.proof_witness")}
    monkeypatch.setattr(cli, "claims", lambda: subset)
    code, out, _ = run(capsys, "report", "--out", str(tmp_path / "r"), "--profile", "quick", "--device", "cpu")
    assert code == 0
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert [c["id"] for c in report["claims"]] == list(subset)
    assert {"packages", "git_commit", "cpu", "command"} <= set(report["environment"])
    markdown = (tmp_path / "r" / "report.md").read_text()
    assert "giannou2023.lemma8.proof_witness" in markdown and "Counterexample" in markdown


def test_unwritable_report_folder_exits_2_before_running(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code, _, err = run(capsys, "report", "--out", str(blocker / "r"))
    assert code == 2 and "not writable" in err


def test_module_entry_point_and_help_documents_exit_codes():
    result = subprocess.run([sys.executable, "-m", "theorems", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "exit codes" in result.stdout
