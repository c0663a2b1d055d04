"""The command-line contract: JSON shapes, exit codes, one-line errors."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from theorems import cli
from theorems.engine import papers, registry
from theorems.engine.catalog import catalog
from theorems.engine.registry import claims


def _first_refuted() -> str:
    from theorems.cli import default_manifest_path
    from theorems.engine.manifest import load_manifest
    from theorems.engine.verdicts import Verdict

    return next(claim_id for claim_id, verdict in load_manifest(default_manifest_path()).items()
                if verdict is Verdict.REFUTED)


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


def test_list_json_names_each_claims_paper_and_location(capsys):
    rows = {row["id"]: row for row in json.loads(run(capsys, "list", "--json")[1])}
    row = rows["giannou2023.lemma6"]
    assert row["source"] == "App. A.4, Lemma 6 (main text Lemma 2)"
    assert row["paper_metadata"]["title"] == "The Expressive Power of Tuning Only the Normalization Layers"
    assert (row["paper_metadata"]["venue"], row["paper_metadata"]["year"]) == ("COLT", 2023)
    assert row["paper_metadata"]["link"] == "https://arxiv.org/abs/2302.07937"
    assert all(row["paper_metadata"]["id"] == row["paper"] for row in rows.values())


LONG_ID = "longpaper." + "a_very_long_lemma_name_about_normalization_layers2"  # 60 characters
LONG_PAPER = f"""
from theorems.engine.papers import Paper, register_paper
from theorems.engine.registry import Check, Claim, register

register_paper(Paper(id="longpaper", title="A Paper", authors=("Ada Lovelace",), venue="ICLR", year=2024,
                     link="https://openreview.net/forum?id=abc"))
register(Claim(id={LONG_ID!r}, source="Sec. 1, Lemma 1", label="Lemma 1", statement="a statement", hypotheses=(),
               checks=(Check("never run", "randomized", lambda context: None),), broken=()))
"""


def test_list_has_a_header_and_columns_that_long_ids_do_not_break(capsys, tmp_path, monkeypatch):
    assert len(LONG_ID) == 60
    (tmp_path / "longpaper_claims.py").write_text(LONG_PAPER, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)  # no manifest here: statuses, not verdicts
    for module, name in ((registry, "_REGISTRY"), (registry, "_REGISTERED_BY"), (papers, "_PAPERS")):
        monkeypatch.setattr(module, name, dict(getattr(module, name)))  # restored after the test
    code, out, _ = run(capsys, "list", "--package", "longpaper_claims")
    header, row = out.splitlines()
    assert code == 0 and header.split() == ["id", "label", "verdict", "in", "the", "manifest", "(or", "status)"]
    assert row.split("  ")[0] == LONG_ID and row.endswith("  implemented")
    assert header.index("label") == row.index("Lemma 1") == len(LONG_ID) + 2
    lines = run(capsys, "list")[1].splitlines()
    column = lines[0].index("label")  # every label starts there, after the id and two spaces
    assert all(line[column - 2:column] == "  " and line[column] != " " for line in lines)


def test_check_json_contract(capsys):
    code, out, _ = run(capsys, "check", "giannou2023.thm6", "--profile", "quick", "--seed", "5", "--device", "cpu",
                       "--json")
    (record,) = json.loads(out)
    assert code == 0
    assert record["id"] == "giannou2023.thm6" and record["seed"] == 5
    assert record["verdict"] in {"certified", "supported", "refuted", "inconclusive"}
    assert record["evidence"] and all("verdict" in check for check in record["evidence"])


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["check", "giannou2023.lema6"], "closest: giannou2023.lemma6"),
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


def test_unimplemented_catalog_id_exits_2_without_a_verdict(capsys, monkeypatch):
    from theorems.engine import registry

    claim_id = next(iter(catalog()))
    implemented = {key: claim for key, claim in claims().items() if key != claim_id}
    monkeypatch.setattr(registry, "claims", lambda: implemented)  # as before the claim was written
    code, out, err = run(capsys, "check", claim_id)
    assert code == 2 and "not implemented" in err and err.count("\n") == 1 and out == ""


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


def test_multi_seed_gate_counts_agreeing_seeds_per_claim(capsys, tmp_path):
    manifest = tmp_path / "claims.toml"
    manifest.write_text('[verdicts]\n"giannou2023.thm6" = "certified"\n"giannou2023.lemma4" = "refuted"\n')
    code, out, _ = run(capsys, "gate", "giannou2023.thm6", "giannou2023.lemma4", "--manifest", str(manifest),
                       "--profile", "quick", "--device", "cpu", "--seed", "10", "--seeds", "2")
    assert code == 1
    assert "giannou2023.thm6: certified at 2/2 seeds\n" in out
    assert "giannou2023.lemma4: refuted at 0/2 seeds; seed 11: certified; seed 12: certified\n" in out
    assert "at 2 seeds (11, 12; profile quick, device cpu)" in out and "1 differ from the manifest" in out
    code, out, _ = run(capsys, "gate", "giannou2023.thm6", "--manifest", str(manifest), "--profile", "quick",
                       "--device", "cpu", "--seed-list", "3", "99")
    assert code == 0 and "giannou2023.thm6: certified at 2/2 seeds\n" in out and "(3, 99;" in out


@pytest.mark.parametrize("argv, needle", [
    (["gate", "--seeds", "0"], "at least 1"),
    (["gate", "--seeds", "2", "--seed-list", "1"], "not allowed with"),
    (["gate", "--seed", str(2**63 - 2), "--seeds", "3"], "leave [0, 2^63)"),
    # A repeated seed is refused, not deduplicated: most likely a typo, and it would run fewer seeds than asked.
    (["gate", "--seed-list", "1", "2", "1", "2", "3"], "seed of --seed-list given more than once: 1, 2"),
])
def test_multi_seed_gate_rejects_bad_seed_options(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2 and needle in err and err.count("\n") == 1 and out == ""


def test_report_writes_both_files(capsys, tmp_path, monkeypatch):
    subset = {key: claims()[key] for key in ("giannou2023.thm6", _first_refuted())}
    monkeypatch.setattr(cli, "claims", lambda: subset)
    code, _, _ = run(capsys, "report", "--out", str(tmp_path / "r"), "--profile", "quick", "--device", "cpu")
    assert code == 0
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert [c["id"] for c in report["claims"]] == list(subset)
    assert {"packages", "git_commit", "cpu", "command"} <= set(report["environment"])
    markdown = (tmp_path / "r" / "report.md").read_text()
    assert _first_refuted() in markdown and "Counterexample" in markdown and "## Errata" in markdown


@pytest.mark.parametrize("command", [["report", "giannou2023.thm6"], ["bench", "all"]])
def test_a_file_as_the_report_folder_exits_2_with_one_line(capsys, tmp_path, command):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code, out, err = run(capsys, *command, "--out", str(blocker))
    assert code == 2 and out == "" and err == f"theorems: error: --out {blocker} is a file, not a folder\n"
    assert blocker.read_text() == "not a folder"


def test_report_runs_a_worker_per_core_capped_and_the_other_commands_one(monkeypatch):
    """Its evidence does not depend on --jobs (tests/engine/test_parallel.py), so report uses the cores."""
    from theorems.engine import settings

    for cores, jobs in ((16, settings.REPORT_JOBS_CAP), (2, 2), (1, 1)):
        monkeypatch.setattr(settings, "usable_cores", lambda cores=cores: cores)
        assert cli.build_parser().parse_args(["report"]).jobs == jobs
    assert settings.REPORT_JOBS_CAP == 4
    for command in (["check", "x"], ["gate"], ["meta"]):
        assert cli.build_parser().parse_args(command).jobs == 1
    assert cli.build_parser().parse_args(["report", "--jobs", "3"]).jobs == 3


def test_unwritable_report_folder_exits_2_before_running(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code, _, err = run(capsys, "report", "--out", str(blocker / "r"))
    assert code == 2 and "not writable" in err


def test_module_entry_point_and_help_documents_exit_codes():
    result = subprocess.run([sys.executable, "-m", "theorems", "--help"], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and "exit codes" in result.stdout


@pytest.mark.slow
def test_randomized_claims_give_their_manifest_verdict_at_five_fresh_seeds(capsys, theorems_profile):
    """Issue 8: a verdict must not depend on the seed (nor, on a GPU machine, the device).
    Every claim with a randomized check, at the five seeds after the default one."""
    randomized = [claim_id for claim_id, claim in claims().items() if any(c.kind == "randomized" for c in claim.checks)]
    code, out, _ = run(capsys, "gate", *randomized, "--profile", theorems_profile, "--seeds", "5")
    assert code == 0, out
    assert out.count("at 5/5 seeds") == len(randomized)


def test_the_claims_table_says_which_scopes_are_machine_checked_for_all_sizes():
    def row(claim_id, verdict, scope, argument):
        return {"id": claim_id, "paper": "p", "label": "L", "core": False, "check_kinds": ["symbolic"],
                "expected_verdict": verdict, "expected_scope": scope, "general_argument": argument}

    table = cli.markdown_claims_table([row("p.a", "certified", "all", None), row("p.b", "certified", "n ≤ 3", "prose"),
                                       row("p.c", "supported", None, "prose")])
    assert "| `p.a` | L | symbolic | **certified** (all sizes, machine-checked) |" in table
    assert "| `p.b` | L | symbolic | **certified** (n ≤ 3; general argument: not machine-checked) |" in table
    assert "| `p.c` | L | symbolic | **supported** (general argument: not machine-checked) |" in table


def test_meta_prints_for_each_check_the_variants_it_refutes(capsys, monkeypatch):
    monkeypatch.delenv("THEOREMS_PROFILE", raising=False)  # meta's default profile: the gate's, ci
    code, out, _ = run(capsys, "meta", "giannou2023.thm6", "--device", "cpu", "--json", "--coverage")
    document = json.loads(out)
    assert code == 0 and document["passed"] and document["profile"] == "ci" and document["failures"] == []
    assert [entry["claim"] for entry in document["coverage"]] == ["giannou2023.thm6"]
    assert all(row["cells"] for entry in document["coverage"] for row in entry["matrix"])
    assert {row["claim"] for row in document["checks"]} == {"giannou2023.thm6"}
    assert all(row["refuted_by"] and set(row["refuted_by"]) <= {v["id"] for v in document["variants"]}
               for row in document["checks"])
    code, out, _ = run(capsys, "meta", "giannou2023.thm6", "--device", "cpu")
    assert code == 0 and out.startswith("giannou2023.thm6 (certified") and "refutes broken-1" in out


def test_theorems_profile_is_the_default_profile_and_the_option_wins(capsys, monkeypatch):
    """As for the pytest plugin (tests/test_pytest_plugin.py): theorems.engine.settings.default_profile."""
    def profile_run(*options):
        code, out, err = run(capsys, "check", "giannou2023.thm6", "--device", "cpu", "--json", *options)
        assert code == 0, err
        return json.loads(out)[0]["profile"]

    monkeypatch.setenv("THEOREMS_PROFILE", "quick")
    assert profile_run() == "quick"
    assert profile_run("--profile", "ci") == "ci"
    monkeypatch.setenv("THEOREMS_PROFILE", "")  # set empty: unset
    assert profile_run() == "ci"
    monkeypatch.setenv("THEOREMS_PROFILE", "junk")
    assert profile_run("--profile", "quick") == "quick"
    for command in (["check", "giannou2023.thm6"], ["meta", "giannou2023.thm6"], ["report"], ["gate"]):
        code, out, err = run(capsys, *command)
        assert code == 2 and out == ""
        assert err == ("theorems: error: THEOREMS_PROFILE='junk' is not a profile; choose one of quick, ci, thorough, "
                       "large\n")


def test_progress_bars_only_on_a_terminal_unless_asked(capsys):
    """capsys' stderr is not a terminal: no bar, as into a redirected file; --progress draws one."""
    code, _, err = run(capsys, "enumerate", "boolean", "--n", "2")
    assert code == 0 and "enumerate n=2" not in err and err.count("\n") == 1
    code, _, err = run(capsys, "enumerate", "boolean", "--n", "2", "--progress")
    assert code == 0 and "enumerate n=2: 100%" in err


def test_bench_chain_prints_its_row_as_json_or_as_a_line(capsys, monkeypatch):
    from theorems.maths import bn_chain

    benchmark = bn_chain.benchmark_chain
    monkeypatch.setattr(bn_chain, "benchmark_chain", lambda device: benchmark(8, 8, 2, device, rounds=1, chains=2))
    code, out, _ = run(capsys, "bench", "chain", "--device", "cpu", "--json")
    (row,) = json.loads(out)
    assert code == 0 and row["d"] == 8 and row["chains"] == 2 and row["ratio"] > 0
    code, out, _ = run(capsys, "bench", "chain", "--device", "cpu")
    assert code == 0 and out.startswith("2 BN chains, d = 8, N = 8, on cpu (float64,") and "layers/s" in out


PROJECT_CLAIMS = '''
import sympy

from theorems.engine.checks import symbolic_identity
from theorems.engine.papers import Paper, register_paper
from theorems.engine.registry import Broken, Claim, register, takes

register_paper(Paper(id="mypaper", title="Doubling", authors=("A. Author",), venue="arXiv preprint", year=2026,
                     link="https://example.org/mypaper.pdf"))


def doubles(f):
    x = sympy.Symbol("x")
    return symbolic_identity("f(x) = x + x", lambda ctx: [1], lambda n: (sympy.Matrix([f(x)]), sympy.Matrix([x + x])),
                             scope="all", describe_case=lambda n: "x")


register(Claim(id="mypaper.double", label="Lemma 1", statement="f(x) = x + x", source="Lemma 1",
               hypotheses=(), subject={"f": lambda x: 2 * x}, checks=(takes("f", build=doubles),),
               broken=(Broken("3x", replaces={"f": lambda x: 3 * x}, refuted_by="x"),)))
'''


def test_the_console_script_imports_a_project_package_from_the_working_directory(tmp_path):
    """As `python -m theorems` does: the installed `theorems` script puts the working directory
    first on the module path for --package (and its --jobs workers inherit it); a package that
    is truly missing is one line with a hint."""
    script = Path(sys.executable).with_name("theorems")
    if not script.is_file():
        pytest.skip("no `theorems` console script beside this interpreter")
    (tmp_path / "mypaper").mkdir()
    (tmp_path / "mypaper" / "__init__.py").write_text("")
    (tmp_path / "mypaper" / "claims.py").write_text(PROJECT_CLAIMS)
    (tmp_path / "claims.toml").write_text('[verdicts]\n"mypaper.double" = "certified"\n')
    root = str(Path(__file__).resolve().parents[1])
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}

    def theorems(*argv):
        return subprocess.run([str(script), *argv], cwd=tmp_path, env=environment, capture_output=True, text=True,
                              timeout=300)

    for jobs in ("1", "2"):
        gate = theorems("gate", "--package", "mypaper.claims", "--profile", "quick", "--jobs", jobs)
        assert gate.returncode == 0, gate.stderr
        assert "1 claim checked against" in gate.stdout and ", 0 differences" in gate.stdout
    missing = theorems("check", "nopaper.lemma1", "--package", "nopaper.claims")
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr == ("theorems: error: cannot import claim package 'nopaper.claims': ModuleNotFoundError: No "
                              f"module named 'nopaper' (nopaper is neither in the working directory {tmp_path} nor "
                              "installed: run from the folder that holds nopaper/, or install it)\n")


# A failing run of each command, quickly: (argv, the exception its traceback ends with).
FAILING = {
    "list": (["list", "--package", "nopaper.claims"], "ClaimPackageError: cannot import claim package"),
    "check": (["check", "nopaper.lemma1"], "UnknownClaim: unknown claim id 'nopaper.lemma1'"),
    "report": (["report", "nopaper.lemma1"], "UnknownClaim: unknown claim id 'nopaper.lemma1'"),
    "gate": (["gate", "--manifest", "/nonexistent/claims.toml"], "ManifestError: "),
    "meta": (["meta", "nopaper.lemma1"], "UnknownClaim: unknown claim id 'nopaper.lemma1'"),
    "reproduce": (["reproduce", "/nonexistent/record.json"], "RecordError: cannot read record"),
    "enumerate": (["enumerate", "boolean", "--n", "32"], "ValueError: n = 32 means 2^1024 matrices"),
    "bench": (["bench", "certificate", "--sizes", "10"], "perfect square"),
}


def test_every_command_has_a_traceback_option(capsys):
    assert set(FAILING) == set(cli.build_parser()._subparsers._group_actions[0].choices)
    for command, (argv, raised) in FAILING.items():
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, command
        again, _, shown = run(capsys, *argv, "--traceback")
        assert again == code, command
        assert shown.startswith("Traceback (most recent call last):") and shown.endswith(err), command
        assert raised in shown, command  # the original exception, which the one line may hide


def test_a_setting_from_the_environment_is_checked_by_every_command(capsys, monkeypatch):
    """Also by a command that has no use for it (`list`): a typo there is bad input, never ignored."""
    monkeypatch.setenv("THEOREMS_PROFILE", "junk")
    for argv in (["list"], ["enumerate", "boolean", "--n", "1"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and err == ("theorems: error: THEOREMS_PROFILE='junk' is not a profile; "
                                                   "choose one of quick, ci, thorough, large\n")
    monkeypatch.setenv("THEOREMS_PROFILE", "quick")
    monkeypatch.setenv("THEOREMS_SCHEDULER", "tcp://a b")
    code, out, err = run(capsys, "list")
    assert code == 2 and err.startswith("theorems: error: THEOREMS_SCHEDULER: scheduler must be") and out == ""


def test_enumerating_past_the_bound_names_it_in_one_line_however_large_n_is(capsys):
    for n in ("6", "32", str(10**6)):
        code, out, err = run(capsys, "enumerate", "boolean", "--n", n)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith(f"theorems: error: n = {n} means 2^{int(n) ** 2} matrices; at most n = 5 is enumerable")


# Prints, when the command has finished (or argparse exited), which of these libraries it imported,
# and whether it imported a claim module.
IMPORTS_AT_EXIT = """
import atexit, json, sys
LIBRARIES = ("torch", "matplotlib", "scipy.stats", "sympy", "flint", "hypothesis", "numpy")
atexit.register(lambda: sys.stderr.write("\\nimported " + json.dumps({
    "libraries": [name for name in LIBRARIES if name in sys.modules],
    "claim_modules": any(name.startswith("theorems.papers.") for name in sys.modules)}) + "\\n"))
from theorems.cli import main
sys.exit(main(sys.argv[1:]))
"""


def imported_by(*argv) -> dict:
    result = subprocess.run([sys.executable, "-c", IMPORTS_AT_EXIT, *argv], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stderr.rpartition("imported ")[2])


@pytest.mark.parametrize("argv", [["--help"], ["list"], ["list", "--json"]])
def test_commands_that_run_no_claim_import_no_claim_module_and_no_heavy_library(argv):
    # (not even sympy or numpy: `theorems list` reads the packaged index, engine.listing)
    assert imported_by(*argv) == {"libraries": [], "claim_modules": False}


def test_a_claim_that_needs_no_torch_is_checked_without_torch_matplotlib_or_scipy_stats():
    from importlib import metadata

    # auto: a CPU build of torch sees no GPU without being imported; another build must be asked
    device = [] if metadata.version("torch").endswith("+cpu") else ["--device", "cpu"]
    imported = imported_by("check", "giannou2023.thm6", "--profile", "quick", *device)
    assert not {"torch", "matplotlib", "scipy.stats"} & set(imported["libraries"]), imported
