"""Another project gates its own paper with the suite: the README's worked example ("Gating
your own paper"), built in a temporary folder from the README's own code blocks, so that the
README cannot drift from what runs, then gated by ``theorems gate --package`` and by the
pytest plugin, with the right manifest and with a wrong one; and projects that break the
suite's discipline (a vacuous broken variant, no broken variant, a refutation without an
erratum, a paper without metadata, a claims module that raises on import, two scopes merged
in one part, a certificate that a generated mutant passes within its scope), which must fail
their gate both ways; and the CI workflow the README names, step by step, with only a wheel of
the suite installed."""

import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from theorems.engine import papers, registry
from theorems.engine.catalog import catalog
from theorems.engine.context import Context
from theorems.engine.mutation import mutation_test
from theorems.engine.settings import DEFAULT_SEED

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = re.compile(r"^## Gating your own paper\n(.*?)^## ", re.S | re.M)
# A file of the example: its path in bold code, then its code block.
FILE_BLOCK = re.compile(r"^\*\*`(?P<path>[^`]+)`\*\*[^\n]*\n\n```\w+\n(?P<code>.*?)^```", re.S | re.M)
COMMANDS = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)
GATE = "python -m theorems gate --package mypaper.claims --manifest claims.toml"
PYTEST = "python -m pytest -m theorem"


def readme_example() -> tuple[dict[str, str], list[str]]:
    """The example's files (path: code) and its commands, as the README gives them."""
    section = SECTION.search(README.read_text(encoding="utf-8"))
    assert section, "README lacks the section 'Gating your own paper'"
    files = {match["path"]: match["code"] for match in FILE_BLOCK.finditer(section.group(1))}
    return files, COMMANDS.search(section.group(1)).group(1).splitlines()


def run(folder: Path, command: str) -> subprocess.CompletedProcess:
    """A README command in the project's folder, with this interpreter, outside this test run
    (no PYTEST_* variables from it, nor its THEOREMS_PROFILE: the commands run at their default)."""
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith("PYTEST_") and name != "THEOREMS_PROFILE"}
    return subprocess.run([sys.executable, *command.split()[1:]], cwd=folder, env=environment,
                          capture_output=True, text=True, timeout=300)


def test_readme_example_is_complete():
    files, commands = readme_example()
    assert set(files) == {"mypaper/claims.py", "claims.toml", "pyproject.toml"}
    assert commands == [GATE, PYTEST]


def test_a_project_gates_its_own_paper(tmp_path):
    files, _ = readme_example()
    for path, code in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(code, encoding="utf-8")

    gate, tests = run(tmp_path, GATE), run(tmp_path, PYTEST)
    assert gate.returncode == 0, gate.stdout + gate.stderr
    assert "1 claim checked against claims.toml, 0 differences" in gate.stdout, gate.stdout
    assert "mutation rule (profile ci, seed 2023): 1 claim, 1 broken variant, 0 breaking it" in gate.stdout
    # Its generated mutants are killed, or agree with center wherever the checks ran it (its scope).
    assert re.search(r"^generated mutants \(profile ci, seed 2023\): 1 certified claim, \d+ mutants, 0 with a survivor "
                     r"within the certified scope$", gate.stdout, re.M), gate.stdout
    assert "warning:" not in gate.stdout
    assert tests.returncode == 0 and "1 passed" in tests.stdout, tests.stdout + tests.stderr

    # Wrong: a verdict that differs, and entries that name no claim of the package (one a packaged paper's).
    wrong = (files["claims.toml"].replace('"certified"', '"refuted"') + '"mypaper.lemma0" = "certified"\n'
             '"giannou2023.lemma6" = "certified"\n')
    (tmp_path / "claims.toml").write_text(wrong, encoding="utf-8")
    gate, tests = run(tmp_path, GATE), run(tmp_path, PYTEST)
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert "mypaper.lemma1: expected refuted, got certified" in gate.stdout
    for claim_id in ("mypaper.lemma0", "giannou2023.lemma6"):  # the gate and the plugin say it alike
        assert f"{claim_id}: in the manifest as certified but not a claim of mypaper.claims" in gate.stdout
        assert f"{claim_id}: in " in tests.stdout and "as certified but not a claim of mypaper.claims" in tests.stdout
    assert tests.returncode == 1 and "3 failed" in tests.stdout, tests.stdout + tests.stderr
    assert "mypaper.lemma1: expected refuted" in tests.stdout and "got certified at profile" in tests.stdout


# The CI workflow a downstream paper copies (README, "Gating your own paper"), shipped in the
# package; each of its run: lines is one line, read here without a YAML library.
WORKFLOW = README.parent / "theorems" / "examples" / "gate-my-paper.yml"
RUN_LINE = re.compile(r"^\s+(?:- )?run: (.+)$", re.M)
SUITE_REQUIREMENT = re.compile(r'^\s+THEOREMS: "(.+)"$', re.M)


def workflow_run_lines() -> list[str]:
    return RUN_LINE.findall(WORKFLOW.read_text(encoding="utf-8"))


def test_the_workflow_checks_out_caches_and_installs_the_suite_as_the_readme_says():
    text = WORKFLOW.read_text(encoding="utf-8")
    for action in ("actions/checkout@", "actions/setup-python@", "actions/cache@"):
        assert f"uses: {action}" in text, action
    assert re.search(r"^\s+path: ~/\.cache/pip$", text, re.M) and "key: pip-${{ runner.os }}-${{ hashFiles(" in text
    requirement = SUITE_REQUIREMENT.search(text).group(1)
    assert re.fullmatch(r"theorems\[test\] @ git\+https://\S+@REF", requirement), requirement
    assert f"pip install '{requirement}'" in " ".join(README.read_text(encoding="utf-8").split())
    assert workflow_run_lines() == ['python -m pip install "$THEOREMS"', "python -m pip install -e .",
                                    "theorems gate --package mypaper.claims"]


@pytest.fixture(scope="module")
def wheel_environment(tmp_path_factory) -> tuple[Path, Path]:
    """A wheel of this checkout, and a fresh virtual environment holding only it. The wheel is
    built from a copy of what it packages (a build in the checkout would pack whatever a stale
    build/ folder holds). The environment reaches the test environment's dependencies through
    a .pth file naming this interpreter's site-packages, which never runs that folder's own
    .pth files, so the checkout's editable install stays out of reach; the .pth file comes
    after the install, so that pip sees no other copy of the suite to replace."""
    folder = tmp_path_factory.mktemp("wheel")
    source = folder / "source"
    shutil.copytree(README.parent / "theorems", source / "theorems", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(README.parent / name, source / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    succeeded([*pip, "wheel", "--no-deps", "--wheel-dir", str(folder), str(source)])
    [wheel] = folder.glob("theorems-*.whl")
    venv = folder / "venv"
    succeeded([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    succeeded([*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)])
    site_packages = succeeded([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    Path(site_packages.stdout.strip(), "test-environment.pth").write_text("".join(f"{path}\n" for path in ours))
    return wheel, venv


def succeeded(command: list[str], **options) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, **options)
    assert result.returncode == 0, f"{' '.join(command)}: exit {result.returncode}\n{result.stdout}{result.stderr}"
    return result


def outside_the_checkout(venv: Path, **variables: str) -> dict[str, str]:
    """This run's environment with ``venv`` activated, less what leads back to the checkout or
    to this test run (PYTHONPATH, PYTEST_*, THEOREMS_PROFILE)."""
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith("PYTEST_") and name not in ("PYTHONPATH", "THEOREMS_PROFILE")}
    return {**environment, "PATH": f"{venv / 'bin'}{os.pathsep}{environment['PATH']}", "VIRTUAL_ENV": str(venv),
            **variables}


def test_the_workflow_gates_the_readmes_paper_with_only_a_wheel_of_the_suite(wheel_environment, tmp_path):
    """Its steps in the order GitHub runs them (bash -e), in a project written from the README
    alone, the suite installed from the wheel where the workflow names its repository."""
    wheel, venv = wheel_environment
    with zipfile.ZipFile(wheel) as packaged:  # the package data: the catalog, and this workflow for users to copy
        assert {"theorems/papers/CLAIMS.md", "theorems/examples/gate-my-paper.yml"} <= set(packaged.namelist())
    files, _ = readme_example()
    for path, code in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(code, encoding="utf-8")
    environment = outside_the_checkout(venv, THEOREMS=f"theorems[test] @ {wheel.as_uri()}")
    for line in workflow_run_lines():
        result = succeeded(["bash", "-ec", line], cwd=tmp_path, env=environment)
    gated = re.search(r"^gate: 1 claim checked against .*claims\.toml, 0 differences$", result.stdout, re.M)
    assert gated, result.stdout
    found = succeeded(["bash", "-ec", "command -v theorems; python -c 'import theorems; print(theorems.__file__)'"],
                      cwd=tmp_path, env=environment)
    assert [Path(path).is_relative_to(venv) for path in found.stdout.split()] == [True, True], found.stdout


@pytest.mark.slow
def test_every_command_works_from_the_wheel_or_says_what_it_needs(wheel_environment, tmp_path):
    """Outside a checkout, the packaged catalog and claims are listed, checked, reported and
    reproduced; the suite's own gate, whose manifest stays with its tests, says so in one line."""
    _, venv = wheel_environment

    def theorems(*arguments: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(venv / "bin" / "theorems"), *arguments], cwd=tmp_path, capture_output=True,
                              text=True, timeout=600, env=outside_the_checkout(venv))

    listed = theorems("list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert {row["id"] for row in json.loads(listed.stdout)} >= catalog().keys()
    for command in (["check", "giannou2023.thm6"], ["report", "--profile", "quick", "giannou2023.thm6"],
                    ["reproduce", "reports/quick/records/giannou2023.thm6.json"]):
        result = theorems(*command)
        assert result.returncode == 0, f"{command}: {result.stdout}{result.stderr}"
    gate = theorems("gate")
    assert gate.returncode == 2 and gate.stderr.count("\n") == 1, gate.stderr
    assert gate.stderr.startswith("theorems: error: the suite's own gate manifest, tests/claims.toml, is in a checkout")


def test_the_suites_own_gate_outside_a_checkout_says_where_its_manifest_is(tmp_path, monkeypatch, capsys):
    from theorems import cli

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "__file__", str(tmp_path / "site-packages" / "theorems" / "cli.py"))
    assert cli.main(["gate"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorems: error: the suite's own gate manifest, tests/claims.toml, is in a checkout of the "
                          "suite, not in an installed copy: run there, pass --manifest FILE") and err.count("\n") == 1


def test_the_examples_broken_variant_passes_the_mutation_rule(tmp_path, monkeypatch):
    """Its near-miss is refuted by both certificates, as the suite's own variants must be
    (tests/test_meta.py); registered into copies of the registries, which are restored."""
    files, _ = readme_example()
    module = tmp_path / "claims.py"
    module.write_text(files["mypaper/claims.py"], encoding="utf-8")
    registry.claims()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_REGISTERED_BY", dict(registry._REGISTERED_BY))
    monkeypatch.setattr(papers, "_PAPERS", dict(papers._PAPERS))
    runpy.run_path(str(module), run_name="mypaper.claims")
    report = mutation_test(registry._REGISTRY["mypaper.lemma1"], Context("quick", DEFAULT_SEED, "cpu"))
    assert report.passed, report.failures
    assert [(row.check, row.certifying, row.refuted_by) for row in report.checks] == [
        ("C(C(x)) = C(x)", True, ["broken-1"]), ("Σ C(x) = 0", True, ["broken-1"])]


def test_an_unimportable_package_is_bad_input(tmp_path, capsys):
    from theorems.cli import main

    manifest = tmp_path / "claims.toml"
    manifest.write_text('[verdicts]\n"nopaper.lemma1" = "certified"\n', encoding="utf-8")
    for command in (["gate", "--manifest", str(manifest)], ["list"], ["check", "nopaper.lemma1"]):
        assert main([*command, "--package", "nopaper.claims"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("theorems: error: cannot import claim package 'nopaper.claims': ModuleNotFoundError: "
                              "No module named 'nopaper' (nopaper is neither in the working directory ")
        assert err.count("\n") == 1


def example_project(folder: Path, pyproject_extra: str = "", manifest: str | None = None) -> dict[str, str]:
    """The README's example project in ``folder`` (its pytest configuration extended by
    ``pyproject_extra``; ``manifest`` replaces claims.toml), with an ordinary test beside it."""
    files, _ = readme_example()
    files = {**files, "pyproject.toml": files["pyproject.toml"] + pyproject_extra,
             "tests/test_ordinary.py": "def test_ordinary():\n    assert True\n"}
    if manifest is not None:
        files["claims.toml"] = manifest
    for path, code in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(code, encoding="utf-8")
    return files


def test_the_gate_runs_whatever_paths_pytest_walks(tmp_path):
    """The usual layout (testpaths = ["tests"], the manifest at the root, which pytest never
    walks): the claims are gated all the same, in `pytest` and in `pytest tests`."""
    files = example_project(tmp_path, 'testpaths = ["tests"]\n')
    for command in ("python -m pytest -p no:cacheprovider", "python -m pytest -p no:cacheprovider tests"):
        result = run(tmp_path, command)
        assert result.returncode == 0 and "2 passed" in result.stdout, result.stdout + result.stderr
        assert "collected 2 items" in result.stdout, result.stdout  # the claim counted with the walked test
    collected = run(tmp_path, "python -m pytest -p no:cacheprovider --collect-only -q tests")
    assert "claims.toml::mypaper.lemma1" in collected.stdout, collected.stdout

    (tmp_path / "claims.toml").write_text(files["claims.toml"].replace('"certified"', '"refuted"'), encoding="utf-8")
    for command in ("python -m pytest -p no:cacheprovider", "python -m pytest -p no:cacheprovider tests"):
        result = run(tmp_path, command)
        assert result.returncode == 1, result.stdout + result.stderr
        assert "1 failed, 1 passed" in result.stdout and "mypaper.lemma1: expected refuted" in result.stdout


@pytest.mark.parametrize("extra, manifest, message", [
    ('testpaths = ["tests"]\n', "[verdicts\n", "claims.toml is not valid TOML"),
    ('testpaths = ["tests"]\n', '[verdicts]\n"otherpaper.lemma1" = "certified"\n', "names no claim of mypaper.claims"),
])
def test_a_gate_that_cannot_run_stops_the_run_with_one_line(tmp_path, extra, manifest, message):
    example_project(tmp_path, extra, manifest)
    result = run(tmp_path, "python -m pytest -p no:cacheprovider tests")
    assert result.returncode not in (0, 5), result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 1 and message in errors[0], result.stderr


def test_a_configured_manifest_that_does_not_exist_stops_the_run(tmp_path):
    example_project(tmp_path)
    (tmp_path / "claims.toml").unlink()
    result = run(tmp_path, "python -m pytest -p no:cacheprovider tests")
    assert result.returncode not in (0, 5)
    assert "gate manifest" in result.stderr and "claims.toml not found" in result.stderr, result.stderr


def test_the_plugin_options_run_the_gate_at_other_seeds_and_devices(tmp_path):
    example_project(tmp_path)
    result = run(tmp_path, "python -m pytest -p no:cacheprovider --theorems-seed 5 --theorems-seeds 2 "
                           "--theorems-device cpu")
    assert result.returncode == 0 and "2 passed" in result.stdout, result.stdout + result.stderr
    result = run(tmp_path, "python -m pytest -p no:cacheprovider --theorems-seeds 0")
    assert result.returncode not in (0, 5) and "the number of seeds must be at least 1" in result.stderr


def test_gate_finds_the_projects_manifest_and_never_the_suites(tmp_path):
    example_project(tmp_path)
    gate = "python -m theorems gate --package mypaper.claims"
    result = run(tmp_path, gate)  # theorems_manifest = "claims.toml" in its pyproject.toml
    assert result.returncode == 0 and "against " + str(tmp_path / "claims.toml") in result.stdout, result.stderr
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'mypaper'\n", encoding="utf-8")
    result = run(tmp_path, gate)  # no setting: claims.toml in the working directory
    assert result.returncode == 0, result.stderr
    (tmp_path / "claims.toml").unlink()
    result = run(tmp_path, gate)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "no gate manifest" in result.stderr


def test_a_project_that_asks_for_nothing_keeps_its_own_hypothesis_profile_and_options(tmp_path):
    # derandomize=False stated: with CI set, Hypothesis itself loads its "ci" profile
    # (derandomized) before the conftest, and a registered profile inherits from it.
    (tmp_path / "conftest.py").write_text(
        "from hypothesis import settings\n"
        "settings.register_profile('mine', max_examples=7, derandomize=False)\n"
        "settings.load_profile('mine')\n"
        "def pytest_addoption(parser):\n"
        "    parser.addoption('--run-slow', action='store_true')\n", encoding="utf-8")
    (tmp_path / "test_mine.py").write_text(
        "import pytest\n"
        "from hypothesis import settings\n"
        "def test_profile():\n"
        "    assert settings.default.max_examples == 7 and not settings.default.derandomize\n"
        "@pytest.mark.slow\n"
        "def test_slow_runs_unless_this_project_says_otherwise():\n"
        "    pass\n", encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers = slow: mine\n", encoding="utf-8")
    result = run(tmp_path, "python -m pytest -p no:cacheprovider")
    assert result.returncode == 0 and "2 passed" in result.stdout, result.stdout + result.stderr


# A false claim of the example's paper: centering over n − 1 entries is not idempotent
# (refuted at n = 2). Its broken variant is a version of the object for which the claim is
# false in another way, refuted by a case of its own (the README's rule for refuted claims).
REFUTED_CLAIM = """

register(Claim(
    id="mypaper.lemma2",
    label="Lemma 2",
    statement="centering over n − 1 entries is idempotent",
    source="Sec. 2, Lemma 2",
    hypotheses=("x ∈ ℝⁿ, n ≥ 2",),
    subject={"center": center_over_n_minus_1},
    checks=(takes("center", build=idempotent),),
    broken=(Broken("doubling, x ↦ 2x", replaces={"center": lambda x: 2 * x}, refuted_by="n = 2, the first case"),),
    ERRATUM
))
"""
ERRATUM = 'erratum=Erratum("substantive", "the n − 1 divisor does not center: C(C(x)) ≠ C(x) at n = 2"),'


def replaced(code: str, old: str, new: str) -> str:
    assert old in code, f"the README's example no longer has {old!r}"
    return code.replace(old, new)


def broken_project(folder: Path, change, manifest_extra: str = "") -> None:
    """The README's example with its claims module changed by ``change`` (code -> code)."""
    files = example_project(folder)
    (folder / "mypaper" / "claims.py").write_text(change(files["mypaper/claims.py"]), encoding="utf-8")
    (folder / "claims.toml").write_text(files["claims.toml"] + manifest_extra, encoding="utf-8")


def with_refuted_claim(erratum: str):
    def change(code: str) -> str:
        code = replaced(code, "import Broken, Claim, register, takes", "import Broken, Claim, Erratum, register, takes")
        return code + REFUTED_CLAIM.replace("ERRATUM", erratum)
    return change


BREACHES = {
    "vacuous variant": (lambda code: replaced(code, 'replaces={"center": center_over_n_minus_1}',
                                              'replaces={"center": lambda x: center(x)}'), "", [
        "mypaper.lemma1: mutation rule: certifying check 'C(C(x)) = C(x)' certifies broken-1",
        "mypaper.lemma1: mutation rule: broken-1 (the mean over n − 1 entries (the unbiased-variance divisor)) "
        "is not refuted by any check"]),
    "no broken variant": (lambda code: re.sub(r"broken=\(Broken\(.*?\),\),\n", "broken=(),\n", code, flags=re.S), "", [
        "mypaper.lemma1: mutation rule: certifying check 'C(C(x)) = C(x)' refutes no broken variant (the claim has "
        "none)"]),
    "refuted without an erratum": (with_refuted_claim(""), '"mypaper.lemma2" = "refuted"\n', [
        "mypaper.lemma2: refuted without an erratum"]),
    "paper without metadata": (lambda code: re.sub(r"^register_paper\(Paper\(.*?\)\)\n", "", code, flags=re.S | re.M),
                               "", ["mypaper: paper without metadata: add register_paper(Paper(id='mypaper', "
                                    "title=..., authors=(...), venue=..., year=..., link=...)) "
                                    "(from theorems.engine.papers)"]),
}


@pytest.mark.parametrize("breach", BREACHES)
def test_a_project_that_breaks_the_discipline_fails_its_gate(tmp_path, breach):
    change, manifest_extra, lines = BREACHES[breach]
    broken_project(tmp_path, change, manifest_extra)
    # (generated mutants aside: each breach here is of another rule, and they have their own test below)
    gate = run(tmp_path, GATE + " --no-generated")
    tests = run(tmp_path, "python -m pytest -p no:cacheprovider --theorems-no-generated")
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert tests.returncode == 1 and "1 failed" in tests.stdout, tests.stdout + tests.stderr
    for line in lines:
        assert line in gate.stdout, gate.stdout
        assert line in tests.stdout, tests.stdout


# A weak certificate: any shift-invariant function passes it, so that generated mutants of the
# variance survive it while changing the variance where the check ran it (n ≤ 5).
WEAK_CLAIM = """

def variance(x):
    mean = sum(x) / len(x)
    return sum((value - mean) ** 2 for value in x) / len(x)


def shift_invariant(variance):
    c = sympy.Symbol("c")
    return symbolic_identity("Var(x + c·1) = Var(x)", lambda ctx: SIZES,
                             lambda n: (sympy.Matrix([variance(variables(n) + c * sympy.ones(n, 1))]),
                                        sympy.Matrix([variance(variables(n))])),
                             scope="n ≤ 5", describe_case=lambda n: f"n = {n}")


register(Claim(
    id="mypaper.lemma3",
    label="Lemma 3",
    statement="the variance is shift-invariant: Var(x + c·1) = Var(x)",
    source="Sec. 2, Lemma 3",
    hypotheses=("x ∈ ℝⁿ, c ∈ ℝ, n ≥ 2",),
    subject={"variance": variance},
    checks=(takes("variance", build=shift_invariant),),
    broken=(Broken("the second moment", replaces={"variance": lambda x: sum(v ** 2 for v in x) / len(x)},
                   refuted_by="n = 2"),),
))
"""


def test_a_certificate_that_a_generated_mutant_passes_within_its_scope_fails_the_gate(tmp_path):
    broken_project(tmp_path, lambda code: code + WEAK_CLAIM, '"mypaper.lemma3" = "certified"\n')
    gate, tests = run(tmp_path, GATE), run(tmp_path, "python -m pytest -p no:cacheprovider")
    assert gate.returncode == 1 and "2 claims checked against claims.toml, 3 differences" in gate.stdout, gate.stdout
    assert tests.returncode == 1 and "1 failed, 2 passed" in tests.stdout, tests.stdout + tests.stderr
    breach = "mypaper.lemma3: generated mutant of variance survives within the certified scope: variance, line "
    mutant = "`(value - mean) ** 2` → `(value - mean) ** 3` (constant): survived: it differs at a call of"
    for output in (gate.stdout, tests.stdout):
        # a set: pytest ≥ 9.2 repeats a multi-line failure message in its short summary
        lines = {line for line in output.splitlines() if line.startswith(breach)}
        assert len(lines) == 3 and any(mutant in line for line in lines), output
        assert all(line.endswith("which did not notice") for line in lines), lines
    skipped = run(tmp_path, GATE + " mypaper.lemma3 --no-generated")
    assert skipped.returncode == 0 and "generated mutants" not in skipped.stdout, skipped.stdout


def test_a_claim_found_malformed_as_it_runs_is_named_at_its_register_call_in_every_worker_count(tmp_path):
    """Bad input, as at registration: the same one line and exit 2 from a worker process as from
    the main one, never a crash of the suite."""
    def uncertifiable(code: str) -> str:  # a check that certifies without taking the claim's object
        code = replaced(code, "checks=(takes(\"center\", build=idempotent), ",
                        "checks=(Check(\"plain\", \"symbolic\", lambda ctx: Outcome(Verdict.CERTIFIED, "
                        "\"C(C(x)) = C(x)\", scope=\"all\")), ")
        return (code.replace("import Broken, Claim,", "import Broken, Check, Claim,")
                .replace("import sympy\n", "import sympy\n\nfrom theorems.engine.verdicts import Outcome, Verdict\n"))

    broken_project(tmp_path, uncertifiable)
    code = (tmp_path / "mypaper" / "claims.py").read_text(encoding="utf-8")
    line = code[:code.index("register(Claim(")].count("\n") + 1
    for jobs in (1, 2):
        result = run(tmp_path, f"python -m theorems report --package mypaper.claims --jobs {jobs} --out out")
        assert (result.returncode, result.stderr) == (2, f"theorems: error: mypaper/claims.py:{line}: check 'plain' "
                                                         "of mypaper.lemma1 certifies but takes no object under test: "
                                                         "build it with takes(...) from the claim's subject, so that "
                                                         "a broken object can fail it\n"), result.stderr
        assert not (tmp_path / "out").exists()


def test_a_refuted_claim_with_its_erratum_passes(tmp_path):
    broken_project(tmp_path, with_refuted_claim(ERRATUM), '"mypaper.lemma2" = "refuted"\n')
    gate = run(tmp_path, GATE + " --no-generated")
    tests = run(tmp_path, "python -m pytest -p no:cacheprovider --theorems-no-generated")
    assert gate.returncode == 0 and "2 claims checked against claims.toml, 0 differences" in gate.stdout, gate.stdout
    assert tests.returncode == 0 and "3 passed" in tests.stdout, tests.stdout + tests.stderr


def test_a_claims_module_that_raises_on_import_is_named_in_one_line_with_its_file_line(tmp_path):
    broken_project(tmp_path, lambda code: code + '\nraise RuntimeError("the paper\'s data file is missing")\n')
    line = (tmp_path / "mypaper" / "claims.py").read_text(encoding="utf-8").count("\n")
    message = (f"mypaper/claims.py:{line}: cannot import claim package 'mypaper.claims': RuntimeError: the paper's "
               "data file is missing")
    for command in (GATE, "python -m theorems list --package mypaper.claims",
                    "python -m theorems check mypaper.lemma1 --package mypaper.claims",
                    "python -m theorems meta --package mypaper.claims",
                    "python -m theorems report --package mypaper.claims --out out"):
        result = run(tmp_path, command)
        assert result.returncode == 2 and result.stdout == "", command + result.stdout + result.stderr
        assert result.stderr == f"theorems: error: {message}\n", command + result.stderr
    tests = run(tmp_path, "python -m pytest -p no:cacheprovider")
    assert tests.returncode == 2, tests.stdout + tests.stderr
    assert "ERROR collecting claims.toml" in tests.stdout and message in tests.stdout, tests.stdout
    assert "INTERNALERROR" not in tests.stdout + tests.stderr and "Traceback" not in tests.stdout


def test_a_check_that_says_all_sizes_covers_only_the_sizes_its_object_ran_at(tmp_path):
    """A check claiming every n that runs the object at n ≤ 5 only: the part's scope is generated
    from what ran (``engine.coverage``), whatever the check says, and the gate holds it to that."""
    def merge(code: str) -> str:
        code = replaced(code, ', part="idempotent"', "")
        return replaced(code, 'scope="n ≤ 5", describe_case=lambda n: f"n = {n}", part="sums to zero"',
                        'scope="all", describe_case=lambda n: f"n = {n}"')
    broken_project(tmp_path, merge)
    check = run(tmp_path, "python -m theorems check mypaper.lemma1 --package mypaper.claims --json")
    [result] = json.loads(check.stdout)
    assert (result["verdict"], result["scope"]) == ("certified", "center ran at x ≤ 5×1"), check.stdout
    assert [entry.get("stated_scope") for entry in result["evidence"]] == ["n ≤ 5", "all"]
    assert result["object_coverage"][0]["reason"] == "center is never evaluated at symbolic sizes by an all-sizes " \
                                                     "certificate"


def test_meta_prints_what_each_check_refutes(tmp_path):
    example_project(tmp_path)
    meta = run(tmp_path, "python -m theorems meta --package mypaper.claims")
    assert meta.returncode == 0, meta.stdout + meta.stderr
    ran = "center ran at x ≤ 5×1"  # generated from the sizes the checks ran the object at
    scope = f"idempotent: {ran} · sums to zero: {ran}"
    assert f"mypaper.lemma1 (certified ({scope})): passes the mutation rule (1 broken variant)" in meta.stdout
    assert f"  check 'Σ C(x) = 0' (certifying, {ran}): refutes broken-1\n" in meta.stdout
    assert "meta: 1 claim (profile ci, seed 2023), 0 breaking the mutation rule" in meta.stdout
    meta = run(tmp_path, "python -m theorems meta mypaper.lemma1 --package mypaper.claims --json")
    document = json.loads(meta.stdout)
    assert meta.returncode == 0 and document["passed"] and document["failures"] == []
    assert [(row["claim"], row["check"], row["scope"], row["refuted_by"]) for row in document["checks"]] == [
        ("mypaper.lemma1", "C(C(x)) = C(x)", ran, ["broken-1"]), ("mypaper.lemma1", "Σ C(x) = 0", ran, ["broken-1"])]

    broken_project(tmp_path, BREACHES["vacuous variant"][0])
    meta = run(tmp_path, "python -m theorems meta --package mypaper.claims --json")
    document = json.loads(meta.stdout)
    assert meta.returncode == 1 and not document["passed"]
    assert document["checks"][0]["certifies_broken"] == ["broken-1"] and document["variants"][0]["refuted"] is False
    assert any("is not refuted by any check" in failure["failure"] for failure in document["failures"])


def test_a_project_gets_its_own_report_records_and_html(tmp_path):
    example_project(tmp_path)
    report = run(tmp_path, "python -m theorems report --package mypaper.claims --profile quick --html")
    assert report.returncode == 0, report.stdout + report.stderr
    folder = tmp_path / "reports" / "quick"
    document = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    assert [claim["id"] for claim in document["claims"]] == ["mypaper.lemma1"]
    assert document["claim_packages"] == ["mypaper.claims"] and document["not_implemented"] == []
    assert document["papers"]["mypaper"]["link"] == "https://example.org/mypaper.pdf"
    markdown = (folder / "report.md").read_text(encoding="utf-8")
    assert "giannou2023" not in markdown and "general argument: not machine-checked" in markdown
    assert "Source: Lovelace, Turing, *Centering, Revisited*, arXiv preprint 2026" in markdown
    page = (folder / "html" / "claims" / "mypaper.lemma1.html").read_text(encoding="utf-8")
    assert "general argument: not machine-checked" in page and (folder / "html" / "index.html").is_file()
    # Without --mutants, no generated mutants (tests/report/test_mutants.py: with them).
    assert "generated_mutants" not in document["claims"][0] and "Generated mutants" not in markdown + page
    record = json.loads((folder / "records" / "mypaper.lemma1.json").read_text(encoding="utf-8"))
    assert record["reproduce"]["command"].endswith("mypaper.lemma1.json --package mypaper.claims")
    # The project's own provenance beside the suite's: not installed, and here not a git checkout.
    assert record["claim_packages"] == [{"module": "mypaper.claims", "distribution": None, "version": None,
                                         "commit": None, "dirty": None}]
    assert document["claim_projects"] == record["claim_packages"]
    assert ("Same evidence again: this commit and these releases, `theorems report --profile quick --seed 2023 "
            "--device cpu --package mypaper.claims`.") in markdown
    assert "| same evidence again | theorems report --profile quick --seed 2023 --device cpu --package mypaper.claims" \
        in (folder / "html" / "index.html").read_text(encoding="utf-8").replace("<tr><th>", "| ") \
        .replace("</th><td>", " | ")
    # The record names its package: reproduce needs no --package, and says in one line what it cannot import.
    again = run(tmp_path, "python -m theorems reproduce reports/quick/records/mypaper.lemma1.json")
    assert again.returncode == 0 and "matches" in again.stdout, again.stdout + again.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    again = run(elsewhere, f"python -m theorems reproduce {folder / 'records' / 'mypaper.lemma1.json'}")
    assert again.returncode == 2 and again.stderr.count("\n") == 1, again.stdout + again.stderr
    assert "is a record of a claim of mypaper.claims: cannot import claim package 'mypaper.claims'" in again.stderr
    assert "run from the folder that holds mypaper/, or install it" in again.stderr


# A scalar identity (sympy scalars on both sides, no Matrix wrapping) and a check that crashes in
# the project's own code: a KeyError at SCALES[n], the line the reports must name.
SCALAR_AND_CRASHING_CLAIMS = """

def trace_of_product(a, b):
    return (a * b).trace()


def square_matrices(n):
    return tuple(sympy.Matrix(n, n, lambda i, j, name=name: sympy.Symbol(f"{name}{i}{j}")) for name in "ab")


def commutes(trace_of_product):
    return symbolic_identity("tr(AB) = tr(BA)", lambda ctx: range(1, 4),
                             lambda n: (trace_of_product(*square_matrices(n)),
                                        trace_of_product(*reversed(square_matrices(n)))),
                             scope="n ≤ 3", describe_case=lambda n: f"n = {n}")


SCALES = {}


def scaled(trace_of_product):
    return symbolic_identity("s·tr(AB) = s·tr(BA)", lambda ctx: range(1, 4),
                             lambda n: (SCALES[n] * trace_of_product(*square_matrices(n)), 0),
                             scope="n ≤ 3", describe_case=lambda n: f"n = {n}")


for name, build in (("lemma4", commutes), ("lemma5", scaled)):
    register(Claim(
        id=f"mypaper.{name}", label=f"Lemma {name[-1]}", statement="tr(AB) = tr(BA)", source="Sec. 3",
        hypotheses=("A, B ∈ ℝⁿˣⁿ",), subject={"trace_of_product": trace_of_product},
        checks=(takes("trace_of_product", build=build),),
        broken=(Broken("the first entry of AB", replaces={"trace_of_product": lambda a, b: (a * b)[0, 0]},
                       refuted_by="n = 2"),),
    ))
"""


def scalar_and_crashing_project(folder: Path) -> tuple[str, str]:
    """The README's example with ``SCALAR_AND_CRASHING_CLAIMS``; the file:line of the crash and
    the crash's reason."""
    broken_project(folder, lambda code: code + SCALAR_AND_CRASHING_CLAIMS,
                   '"mypaper.lemma4" = "certified"\n"mypaper.lemma5" = "certified"\n')
    code = (folder / "mypaper" / "claims.py").read_text(encoding="utf-8").splitlines()
    at = f"mypaper/claims.py:{1 + next(i for i, line in enumerate(code) if 'SCALES[n]' in line)}"
    return at, f"check 's·tr(AB) = s·tr(BA)' of mypaper.lemma5 crashed in mypaper's code at {at}: KeyError: 1"


def test_a_scalar_identity_is_certified_and_a_crash_in_the_projects_code_is_its_error_with_file_line(tmp_path):
    at, reason = scalar_and_crashing_project(tmp_path)
    check = run(tmp_path, "python -m theorems check mypaper.lemma5 --package mypaper.claims --profile quick "
                          "--traceback")
    *traceback, line = check.stderr.splitlines()
    assert check.returncode == 3 and line.startswith("theorems: error: 1 claim crashed (mypaper.lemma5); first: ")
    assert line.endswith(f": {reason}") and "internal error" not in check.stderr, check.stderr
    # --traceback: the original exception's, down to the project's line
    assert traceback[0].startswith("mypaper.lemma5 crashed on process ") and traceback[0].endswith(":")
    assert traceback[1] == "Traceback (most recent call last):", check.stderr
    assert f'claims.py", line {at.rsplit(":", 1)[1]}, in <lambda>' in check.stderr and traceback[-1] == "KeyError: 1"

    report = run(tmp_path, "python -m theorems report mypaper.lemma4 mypaper.lemma5 --package mypaper.claims "
                           "--profile quick --out out")
    assert report.returncode == 3 and "--traceback" not in report.stderr and "Traceback" not in report.stderr
    document = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert [(claim["id"], claim["verdict"]) for claim in document["claims"]] == [("mypaper.lemma4", "certified")]
    [crash] = document["crashed"]
    assert (crash["claims"], crash["reason"], crash["package"], crash["at"]) == (["mypaper.lemma5"], reason,
                                                                                 "mypaper", at)
    assert crash["traceback"].startswith("Traceback (most recent call last):") and crash["traceback"].endswith(
        "KeyError: 1\n")
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert f". {reason}**" in markdown and "1 not run (crashed)" in markdown
    assert "| mypaper.lemma5 | Lemma 5 | crashed | |" in markdown


def test_under_pytest_a_crashing_claim_fails_with_the_traceback_of_what_its_check_raised(tmp_path):
    at, reason = scalar_and_crashing_project(tmp_path)
    tests = run(tmp_path, "python -m pytest -p no:cacheprovider --theorems-no-generated --theorems-profile quick "
                          "-k lemma5")
    assert tests.returncode == 1 and "1 failed" in tests.stdout, tests.stdout + tests.stderr
    # as pytest shows a test's exception: source lines, "E" lines, the file:line; then the suite's one line
    assert f"\n{at}: KeyError\n" in tests.stdout and re.search(r"^E +KeyError: 1$", tests.stdout, re.M), tests.stdout
    assert reason in tests.stdout and "FAILED claims.toml::mypaper.lemma5 - KeyError: 1" in tests.stdout


def test_a_project_report_marks_each_claim_that_breaks_the_discipline(tmp_path):
    """As its gate does (the same rules: each breach is tested through the gate above)."""
    change, manifest_extra, lines = BREACHES["vacuous variant"]
    broken_project(tmp_path, change, manifest_extra)
    report = run(tmp_path, "python -m theorems report --package mypaper.claims --profile quick --html --out out")
    assert report.returncode == 1, report.stdout + report.stderr
    for line in lines:
        assert line in report.stdout, report.stdout
    claim_id = lines[0].split(":", 1)[0]
    assert f"report: 1 claim breaking the discipline, marked in the report: {claim_id}" in report.stdout
    document = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert document["discipline"]["breaking"] == [claim_id]
    marked = {claim["id"]: claim.get("breaks_discipline") for claim in document["claims"]}
    assert all(line in " ".join(marked[claim_id]) for line in lines)
    assert all(not marks for other, marks in marked.items() if other != claim_id)
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "(breaks the discipline)**" in markdown and "**Breaking the discipline** (" in markdown
    assert f"**Breaks the discipline:** {lines[0]}" in markdown
    page = (tmp_path / "out" / "html" / "claims" / f"{claim_id}.html").read_text(encoding="utf-8")
    assert "Breaks the discipline:" in page and "(breaks the discipline)</span>" in page
    assert "Breaking the discipline" in (tmp_path / "out" / "html" / "index.html").read_text(encoding="utf-8")


def test_the_plugin_works_with_pytests_junitxml(tmp_path):
    """pytest's own --junitxml: a test case per claim, with its verdict and scope as properties."""
    import xml.etree.ElementTree as ET

    example_project(tmp_path, manifest=readme_example()[0]["claims.toml"] + '"mypaper.lemma0" = "certified"\n')
    result = run(tmp_path, "python -m pytest -p no:cacheprovider --theorems-no-generated --junitxml=out.xml")
    assert result.returncode == 1, result.stdout + result.stderr
    cases = {case.get("name"): case for case in ET.parse(tmp_path / "out.xml").getroot().iter("testcase")}
    assert set(cases) == {"mypaper.lemma1", "mypaper.lemma0", "test_ordinary"}
    properties = {p.get("name"): p.get("value") for p in cases["mypaper.lemma1"].iter("property")}
    assert properties["verdict"] == "certified" and properties["scope"].startswith("idempotent: center ran at")
    assert cases["mypaper.lemma1"].find("failure") is None
    assert "as certified but not a claim of mypaper.claims" in cases["mypaper.lemma0"].find("failure").get("message")
