"""Another project gates its own paper with the suite: the README's worked example ("Gating
your own paper"), built in a temporary folder from the README's own code blocks, so that the
README cannot drift from what runs, then gated by ``theorems gate --package`` and by the
pytest plugin, with the right manifest and with a wrong one."""

import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from theorems.engine import registry
from theorems.engine.context import Context
from theorems.engine.runner import run_claim
from theorems.engine.settings import DEFAULT_SEED
from theorems.engine.verdicts import Verdict

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
    (no PYTEST_* variables from it)."""
    environment = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
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
    assert tests.returncode == 0 and "1 passed" in tests.stdout, tests.stdout + tests.stderr

    # Wrong: a verdict that differs, and an entry that names no claim of the package.
    wrong = files["claims.toml"].replace('"certified"', '"refuted"') + '"mypaper.lemma0" = "certified"\n'
    (tmp_path / "claims.toml").write_text(wrong, encoding="utf-8")
    gate, tests = run(tmp_path, GATE), run(tmp_path, PYTEST)
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert "mypaper.lemma1: expected refuted, got certified" in gate.stdout
    assert "mypaper.lemma0: in the manifest as certified but not implemented" in gate.stdout
    assert tests.returncode == 1 and "2 failed" in tests.stdout, tests.stdout + tests.stderr
    assert "mypaper.lemma1: expected refuted" in tests.stdout and "got certified at profile" in tests.stdout
    assert "mypaper.lemma0: in " in tests.stdout and "as certified but not a claim of mypaper.claims" in tests.stdout


def test_the_examples_broken_variant_is_refuted(tmp_path, monkeypatch):
    """Its near-miss comes out refuted, as every broken variant of the suite's must
    (tests/test_meta.py); registered into a copy of the registry, which is restored."""
    files, _ = readme_example()
    module = tmp_path / "claims.py"
    module.write_text(files["mypaper/claims.py"], encoding="utf-8")
    registry.claims()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_REGISTERED_BY", dict(registry._REGISTERED_BY))
    runpy.run_path(str(module), run_name="mypaper.claims")
    claim = registry._REGISTRY["mypaper.lemma1"]
    for broken in claim.broken:
        result = run_claim(claim.with_checks(broken.checks), Context("quick", DEFAULT_SEED, "cpu"))
        assert result.verdict is Verdict.REFUTED, f"{broken.description}: {result.verdict}"


def test_an_unimportable_package_is_bad_input(tmp_path, capsys):
    from theorems.cli import main

    manifest = tmp_path / "claims.toml"
    manifest.write_text('[verdicts]\n"nopaper.lemma1" = "certified"\n', encoding="utf-8")
    for command in (["gate", "--manifest", str(manifest)], ["list"], ["check", "nopaper.lemma1"]):
        assert main([*command, "--package", "nopaper.claims"]) == 2
        err = capsys.readouterr().err
        assert err == "theorems: error: cannot import claim package 'nopaper.claims': No module named 'nopaper'\n"


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
