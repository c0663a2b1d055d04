"""Every check name is written once in its claim module.

Reports, records and the mutation table (``theorems meta``) key on check names, and a broken
variant's rebuilt check is matched with the genuine one by its name (``Claim.with_objects``),
so a name copied as a literal between two checks is one edit away from two checks that drift
apart under one name. A claim module writes each name once: in the builder that owns it, in
the function that builds the check from the objects under test (``takes(..., build=...)``),
or as a module constant.
"""

import ast
from collections import Counter
from pathlib import Path

import pytest

from theorems.engine.registry import claims

PAPERS = Path(__file__).resolve().parents[1] / "theorems" / "papers"
CHECK_NAMES = {check.name for claim in claims().values() for check in claim.checks}


def check_name_literals(tree: ast.AST) -> Counter:
    """How often each check name is passed to a call as a string literal, positionally or as
    ``name=``; not as ``part=``, the conjunct a check covers, which may read like its name."""
    found = Counter()
    for call in ast.walk(tree):
        if isinstance(call, ast.Call):
            arguments = [*call.args, *(keyword.value for keyword in call.keywords if keyword.arg == "name")]
            found.update(argument.value for argument in arguments
                         if isinstance(argument, ast.Constant) and argument.value in CHECK_NAMES)
    return found


@pytest.mark.parametrize("module", sorted(PAPERS.rglob("*.py")), ids=lambda path: str(path.relative_to(PAPERS)))
def test_each_check_name_is_written_once_per_module(module):
    literals = check_name_literals(ast.parse(module.read_text(encoding="utf-8")))
    repeated = {name: count for name, count in literals.items() if count > 1}
    assert not repeated, f"theorems/papers/{module.relative_to(PAPERS)} writes check names more than once: {repeated}"


def test_a_copied_check_name_is_seen():
    name = min(CHECK_NAMES)
    copied = f"(symbolic_identity({name!r}, cases, build), symbolic_identity({name!r}, cases, other))"
    assert check_name_literals(ast.parse(copied))[name] == 2
