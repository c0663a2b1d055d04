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
    assert "1 claims checked against claims.toml, 0 differences" in gate.stdout, gate.stdout
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
