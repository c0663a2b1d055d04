"""No traceback on any input: every bad input to the command line, the Python API and the
pytest plugin's options gets one line naming the problem — exit 2 from the command line, a
``TheoremsError`` from Python, a pytest usage error (exit 4, one ``ERROR:`` line) from the
plugin, or a collection error (exit 2) for a claim package that cannot be imported — and
nothing on stdout."""

import json

import pytest

import theorems
from theorems.cli import main
from theorems.errors import TheoremsError
from theorems.report.records import RECORD_FORMAT

CLAIM = "giannou2023.thm6"


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bad")
    (folder / "binary.toml").write_bytes(b"\xff\xfe\x00binary")
    (folder / "nul.toml").write_bytes(b"\x00\x01\x02")
    (folder / "empty.json").write_text("", encoding="utf-8")
    (folder / "list.json").write_text("[1, 2]", encoding="utf-8")
    (folder / "adir").mkdir()
    (folder / "unscoped.toml").write_text(f'[verdicts]\n"{CLAIM}" = "certified"\n[scopes]\n', encoding="utf-8")
    (folder / "stray-scope.toml").write_text(f'[verdicts]\n"{CLAIM}" = "supported"\n[scopes]\n"{CLAIM}" = "all"\n',
                                             encoding="utf-8")
    record = {"format": RECORD_FORMAT, "claim": {"id": CLAIM},
              "run": {"profile": "quick", "seed": 1, "device": "cpu"}, "verdict": "certified", "scope": "all",
              "environment": {"git_commit": "x"}}
    (folder / "no-evidence.json").write_text(json.dumps(record), encoding="utf-8")
    for name, change in (("bad-profile", ("run", "profile", "huge")), ("bad-seed", ("run", "seed", -3)),
                         ("bool-seed", ("run", "seed", True)), ("bad-device", ("run", "device", "auto")),
                         ("bad-verdict", (None, "verdict", "proved")), ("no-scope", (None, "scope", None))):
        tampered = json.loads(json.dumps({**record, "evidence": []}))
        section, key, value = change
        (tampered[section] if section else tampered)[key] = value
        (folder / f"{name}.json").write_text(json.dumps(tampered), encoding="utf-8")
    other = {**record, "claim": {"id": "nopaper.lemma1"}, "evidence": []}
    (folder / "other-project.json").write_text(json.dumps(other), encoding="utf-8")
    (folder / "unimportable.json").write_text(json.dumps({**other, "claim_packages": [{"module": "nopaper.claims"}]}),
                                              encoding="utf-8")
    return folder


# (argv with {bad} for the folder of bad files, a phrase the one line must contain)
CLI_CASES = [
    ([], "required: command"),
    (["nonsense"], "invalid choice: 'nonsense'"),
    (["check"], "required: ID"),
    (["check", ""], "unknown claim id ''"),
    (["check", "giannou2023.lema6"], "closest: giannou2023.lemma6"),
    (["check", CLAIM, CLAIM], "given more than once: giannou2023.thm6"),
    (["check", CLAIM, "--seed", "abc"], "seed must be an integer, got 'abc'"),
    (["check", CLAIM, "--seed", "-1"], "seed must be in [0, 2^63)"),
    (["check", CLAIM, "--seed", str(2**63)], "seed must be in [0, 2^63)"),
    (["check", CLAIM, "--jobs", "0"], "jobs must be at least 1"),
    (["check", CLAIM, "--jobs", "two"], "jobs must be an integer"),
    (["check", CLAIM, "--profile", "huge"], "invalid choice: 'huge'"),
    (["check", CLAIM, "--device", "tpu"], "invalid choice: 'tpu'"),
    (["check", CLAIM, "--package", ""], "is not a dotted module name"),
    (["check", CLAIM, "--package", "no.such.package"], "cannot import claim package 'no.such.package'"),
    (["check", CLAIM, "--package", "json"], "no claims registered by json"),
    (["list", "--package", "../x"], "is not a dotted module name"),
    (["meta", "giannou2023.lema6"], "closest: giannou2023.lemma6"),
    (["meta", "--profile", "huge"], "invalid choice: 'huge'"),
    (["meta", "--package", "no.such.package"], "cannot import claim package 'no.such.package'"),
    (["report", "--package", "json"], "no claims registered by json"),
    (["report", "--out", ""], "--out: the path is empty"),
    (["report", "--out", "{bad}/binary.toml/r"], "is not writable"),
    (["gate", "--manifest", ""], "--manifest: the path is empty"),
    (["gate", "--manifest", "{bad}/adir"], "is a folder, not a TOML file"),
    (["gate", "--manifest", "{bad}/binary.toml"], "binary.toml is not text (UTF-8)"),
    (["gate", "--manifest", "{bad}/nul.toml"], "nul.toml is not valid TOML"),
    (["gate", "--manifest", "{bad}/missing.toml"], "missing.toml not found"),
    (["gate", "--manifest", "{bad}/unscoped.toml"], f"certified claims without a scope under [scopes]: {CLAIM}"),
    (["gate", "--manifest", "{bad}/stray-scope.toml"], f"scopes given for claims not expected certified: {CLAIM}"),
    (["gate", "--seeds", "0"], "at least 1"),
    (["gate", "--seeds", "many"], "the number of seeds must be an integer"),
    (["gate", "--seed-list", "-5"], "seed must be in [0, 2^63)"),
    (["gate", "--seed", str(2**63 - 2), "--seeds", "3"], "leave [0, 2^63)"),
    (["reproduce", ""], "the path is empty"),
    (["reproduce", "{bad}/missing.json"], "cannot read record"),
    (["reproduce", "{bad}/adir"], "cannot read record"),
    (["reproduce", "{bad}/empty.json"], "is not JSON"),
    (["reproduce", "{bad}/list.json"], "is not a theorems reproducibility record"),
    (["reproduce", "{bad}/no-evidence.json"], "the record has no evidence"),
    (["reproduce", "{bad}/bad-profile.json"], "unknown profile 'huge'"),
    (["reproduce", "{bad}/bad-seed.json"], "seed must be in [0, 2^63), got -3"),
    (["reproduce", "{bad}/bool-seed.json"], "seed must be an integer, got True"),
    (["reproduce", "{bad}/bad-device.json"], "not auto"),
    (["reproduce", "{bad}/bad-verdict.json"], "unknown verdict 'proved'"),
    (["reproduce", "{bad}/no-scope.json"], "scope must be a string for a certified claim"),
    (["reproduce", "{bad}/missing.json", "--device", "tpu"], "invalid choice: 'tpu'"),
    (["reproduce", "{bad}/other-project.json"], "a claim of another project needs its claims module: --package MODULE"),
    (["reproduce", "{bad}/unimportable.json"], "is a record of a claim of nopaper.claims: cannot import claim package "
                                               "'nopaper.claims': ModuleNotFoundError: No module named 'nopaper' "
                                               "(nopaper is neither in the working directory"),
    (["gate", "--junit", "{bad}/adir"], "cannot write the JUnit file there (is a folder)"),
    (["enumerate", "boolean", "--n", "9"], "at most n = 5"),
    (["enumerate", "boolean", "--n", "0"], "at least 1"),
    (["enumerate", "boolean", "--n", "x"], "invalid int value: 'x'"),
    (["bench", "certificate", "--sizes", "-4"], "perfect square n·n ≥ 4 (n = m), got -4"),
    (["bench", "certificate", "--sizes", "10"], "perfect square"),
    (["bench", "certificate", "--sizes", str(2**20)], "GiB are available"),
    (["bench", "construction", "--dims", "0"], "width must be ≥ 1, got 0"),
    (["bench", "all", "--out", ""], "--out: the path is empty"),
]


@pytest.mark.parametrize("argv, phrase", CLI_CASES, ids=[" ".join(argv) or "(nothing)" for argv, _ in CLI_CASES])
def test_the_command_line_answers_bad_input_with_one_line_and_exit_2(capsys, bad_files, argv, phrase):
    code = main([part.replace("{bad}", str(bad_files)) for part in argv])
    out, err = capsys.readouterr()
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("theorems") and phrase in err, err
    assert out == ""


def test_the_command_line_without_a_gpu_says_so(capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    for argv in (["check", CLAIM, "--device", "cuda"], ["bench", "certificate", "--sizes", "16", "--device", "cuda"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "no CUDA GPU" in err


API_CASES = [
    ((None,), {}, "a claim id is a string"),
    ((123,), {}, "a claim id is a string"),
    (("giannou2023.lema6",), {}, "closest: giannou2023.lemma6"),
    (("nopaper.lemma1",), {}, "unknown claim id"),
    ((CLAIM,), {"profile": "huge"}, "unknown profile 'huge'"),
    ((CLAIM,), {"profile": None}, "unknown profile None"),
    ((CLAIM,), {"seed": True}, "seed must be an integer, got True"),
    ((CLAIM,), {"seed": 1.5}, "seed must be an integer, got 1.5"),
    ((CLAIM,), {"seed": -1}, "seed must be in [0, 2^63)"),
    ((CLAIM,), {"seed": 2**63}, "seed must be in [0, 2^63)"),
    ((CLAIM,), {"seed": "abc"}, "seed must be an integer, got 'abc'"),
    ((CLAIM,), {"device": "tpu"}, "unknown device 'tpu'"),
    ((CLAIM,), {"device": None}, "unknown device None"),
    ((CLAIM,), {"package": 3}, "package= is a module name such as 'mypaper.claims', or a list of them; got 3"),
    ((CLAIM,), {"package": "no.such.package"}, "cannot import claim package 'no.such.package'"),
    ((CLAIM,), {"package": "theorems.papers.daneshmand2020"}, "(not a claim of theorems.papers.daneshmand2020)"),
]


@pytest.mark.parametrize("args, kwargs, phrase", API_CASES)
def test_the_python_api_raises_the_suites_error_with_one_line(args, kwargs, phrase):
    with pytest.raises(TheoremsError) as raised:
        theorems.check(*args, **kwargs)
    assert phrase in str(raised.value) and "\n" not in str(raised.value)


GATE_INI = "[pytest]\ntheorems_package = theorems.papers.giannou2023\ntheorems_manifest = claims.toml\n"
PLUGIN_CASES = [
    ([], "", None, "THEOREMS_PROFILE='huge' is not a profile; choose one of quick, ci, thorough, large",
     {"THEOREMS_PROFILE": "huge"}),
    (["--theorems-profile", "huge"], "", None, "unknown profile 'huge'", {}),
    (["--theorems-seed", "abc"], "", None, "seed must be an integer, got 'abc'", {}),
    (["--theorems-seed", "-2"], "", None, "seed must be in [0, 2^63)", {}),
    (["--theorems-seeds", "0"], "", None, "the number of seeds must be at least 1", {}),
    (["--theorems-device", "tpu"], "", None, "unknown device 'tpu'", {}),
    ([], "[pytest]\ntheorems_manifest = claims.toml\n", None, "but no claim package", {}),
    ([], "[pytest]\ntheorems_package = theorems.papers.giannou2023\n", None, "no manifest is set", {}),
    ([], GATE_INI, None, "claims.toml not found", {}),
    ([], GATE_INI, "[verdicts\n", "is not valid TOML", {}),
    ([], GATE_INI, '[verdicts]\n"otherpaper.lemma1" = "certified"\n', "names no claim of theorems.papers.giannou2023",
     {}),
]


@pytest.mark.parametrize("args, ini, manifest, phrase, environment", PLUGIN_CASES)
def test_the_plugin_stops_a_run_it_cannot_gate_with_one_line(pytester, monkeypatch, args, ini, manifest, phrase,
                                                             environment):
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    if ini:
        pytester.makefile(".ini", pytest=ini)
    if manifest is not None:
        pytester.makefile(".toml", claims=manifest)
    pytester.makepyfile(test_ordinary="def test_ordinary():\n    pass\n")
    result = pytester.runpytest_inprocess(*args, "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1 and phrase in errors[0], result.stderr.str()


def test_the_plugin_reports_an_unimportable_claim_package_as_a_collection_error(pytester):
    pytester.makefile(".toml", claims='[verdicts]\n"x.y" = "certified"\n')
    pytester.makepyfile(test_ordinary="def test_ordinary():\n    pass\n")
    result = pytester.runpytest_inprocess("--theorems-package", "no.such.package", "--theorems-manifest", "claims.toml",
                                          "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["*ERROR collecting claims.toml*",
                                 "theorems: cannot import claim package 'no.such.package': ModuleNotFoundError: *",
                                 "*1 error during collection*"])
