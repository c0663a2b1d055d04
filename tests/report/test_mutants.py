"""`theorems report --mutants`: the generated mutants' score of each certified claim in
report.json, report.md, the records and the HTML pages, the same at any --jobs; made for a
tiny claim package written in the test (as another project's would be)."""

import json
import os
import subprocess
import sys
from pathlib import Path

CLAIMS = '''
import sympy

from theorems.engine.checks import symbolic_identity
from theorems.engine.papers import Paper, register_paper
from theorems.engine.registry import Broken, Claim, register, takes

register_paper(Paper(id="tinypaper", title="Tiny", authors=("A. Author",), venue="arXiv preprint", year=2026,
                     link="https://example.org/tiny.pdf"))
SIZES = range(2, 5)


def variables(n):
    return sympy.Matrix(sympy.symbols(f"x0:{n}"))


def center(x):
    return x - sympy.ones(len(x), 1) * (sum(x) / len(x))


def variance(x):
    mean = sum(x) / len(x)
    return sum((value - mean) ** 2 for value in x) / len(x)


def sums_to_zero(center):
    return symbolic_identity("sum C(x) = 0", lambda ctx: SIZES,
                             lambda n: (sympy.Matrix([sum(center(variables(n)))]), sympy.zeros(1, 1)),
                             scope="n <= 4", describe_case=lambda n: f"n = {n}")


def shift_invariant(variance):  # a weak certificate: any shift-invariant function passes it
    c = sympy.Symbol("c")
    return symbolic_identity("Var(x + c) = Var(x)", lambda ctx: SIZES,
                             lambda n: (sympy.Matrix([variance(variables(n) + c * sympy.ones(n, 1))]),
                                        sympy.Matrix([variance(variables(n))])),
                             scope="n <= 4", describe_case=lambda n: f"n = {n}")


register(Claim(id="tinypaper.center", label="Lemma 1", statement="C(x) sums to zero", source="Lemma 1",
               hypotheses=("n >= 2",), subject={"center": center}, checks=(takes("center", build=sums_to_zero),),
               broken=(Broken("n - 1 divisor", replaces={"center": lambda x: x - sympy.ones(len(x), 1) * (
                   sum(x) / (len(x) - 1))}, refuted_by="n = 2"),)))
register(Claim(id="tinypaper.variance", label="Lemma 2", statement="Var is shift-invariant", source="Lemma 2",
               hypotheses=("n >= 2",), subject={"variance": variance},
               checks=(takes("variance", build=shift_invariant),),
               broken=(Broken("the second moment", replaces={"variance": lambda x: sum(v ** 2 for v in x) / len(x)},
                              refuted_by="n = 2"),)))
'''
# The survivors of the weak certificate: each changes the variance where the check ran it.
SURVIVORS = {"`(value - mean) ** 2` → `(value - mean) ** 3` (constant)",
             "`(value - mean) ** 2` → `(value - mean) * 2` (arithmetic)"}


def report(folder: Path, *options: str) -> dict:
    """The claims of a report of the tiny package with --mutants at quick (``options[-1]``: the folder)."""
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith("PYTEST_") and name != "THEOREMS_PROFILE"}
    done = subprocess.run([sys.executable, "-m", "theorems", "report", "--package", "tinypaper.claims", "--profile",
                           "quick", "--mutants", *options], cwd=folder, env=environment, capture_output=True, text=True,
                          timeout=120)
    # The weak certificate breaks the generated mutants' rule: the report marks it and exits 1, as the gate does.
    assert done.returncode == 1, done.stdout + done.stderr
    assert "generated mutants of 2 certified claims:" in done.stdout, done.stdout
    assert "report: 1 claim breaking the discipline, marked in the report: tinypaper.variance" in done.stdout
    return {claim["id"]: claim for claim in json.loads((folder / options[-1] / "report.json").read_text())["claims"]}


def test_report_with_mutants_scores_each_certified_claim_the_same_at_any_jobs(tmp_path):
    (tmp_path / "tinypaper").mkdir()
    (tmp_path / "tinypaper" / "__init__.py").write_text("")
    (tmp_path / "tinypaper" / "claims.py").write_text(CLAIMS, encoding="utf-8")
    claims = report(tmp_path, "--html", "--out", "one")
    in_workers = report(tmp_path, "--jobs", "2", "--out", "two")
    assert {claim_id: claim["generated_mutants"] for claim_id, claim in in_workers.items()} == {
        claim_id: claim["generated_mutants"] for claim_id, claim in claims.items()}

    assert "breaks_discipline" not in claims["tinypaper.center"]
    assert all(line.startswith("tinypaper.variance: generated mutant of variance survives within the certified scope")
               for line in claims["tinypaper.variance"]["breaks_discipline"])
    center, variance = (claims[f"tinypaper.{name}"]["generated_mutants"] for name in ("center", "variance"))
    assert set(center) == {"score", "generated", "killed", "killed_by_crash", "equivalent", "survived", "survivors"}
    killed = center["killed"] + center["killed_by_crash"]
    assert center["score"] == killed / (center["generated"] - center["equivalent"]) > 0
    assert all(survivor["within_scope"] == "no" for survivor in center["survivors"])
    within = [survivor["description"] for survivor in variance["survivors"] if survivor["within_scope"] == "yes"]
    assert all(any(mutant in description for description in within) for mutant in SURVIVORS), within

    markdown = (tmp_path / "one" / "report.md").read_text(encoding="utf-8")
    score = f"{variance['score']:.2f}"
    row = next(line for line in markdown.splitlines() if line.startswith("| tinypaper.variance | "))
    assert "## Generated mutants" in markdown and row.startswith(f"| tinypaper.variance | {score} (")
    assert all(mutant in row for mutant in SURVIVORS) and row.count("(yes)") == len(within), row
    lines = markdown.splitlines()
    assert any(line.startswith("| tinypaper.center | ") and line.endswith(" | none |") for line in lines)
    page = (tmp_path / "one" / "html" / "claims" / "tinypaper.variance.html").read_text(encoding="utf-8")
    assert f"<h2>Generated mutants</h2><p>Score <strong>{score} (" in page and "<td>yes: " in page
    record = json.loads((tmp_path / "one" / "records" / "tinypaper.variance.json").read_text(encoding="utf-8"))
    assert record["generated_mutants"] == variance
    assert f"Score {score} (" in (tmp_path / "one" / "records" / "tinypaper.variance.md").read_text(encoding="utf-8")
