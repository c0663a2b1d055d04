"""Whose code a failure is: a check that raises in another project's claim package is that
package's error, named by the file:line of the deepest frame in its files; in the suite's own
claims it stays an internal error."""

import functools
import importlib
import sys

import pytest

from theorems.engine import blame, registry
from theorems.engine.context import Context
from theorems.engine.registry import Check
from theorems.engine.runner import run_check
from theorems.errors import CheckCrashed

HELPERS = "SCALES = {}\n\n\ndef scaled(x):\n    return x * SCALES['scale']\n"  # raises at line 5
CLAIMS = "from .helpers import scaled\n\n\ndef check(ctx):\n    return scaled(2)\n"


@pytest.fixture
def demopkg(tmp_path, monkeypatch):
    """A claim package of another project, ``demopkg``, imported from the working directory,
    whose claims module registered ``demopkg.lemma``."""
    (tmp_path / "demopkg").mkdir()
    (tmp_path / "demopkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "demopkg" / "helpers.py").write_text(HELPERS, encoding="utf-8")
    (tmp_path / "demopkg" / "claims.py").write_text(CLAIMS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry._REGISTERED_BY, "demopkg.lemma", "demopkg.claims")
    yield importlib.import_module("demopkg.claims")
    for name in [name for name in sys.modules if name.split(".")[0] == "demopkg"]:
        del sys.modules[name]


def test_a_location_is_relative_to_the_working_directory_where_it_lies_inside(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert blame.location(str(tmp_path / "pkg" / "mod.py"), 12) == "pkg/mod.py:12"
    assert blame.location("/elsewhere/mod.py", 3) == "/elsewhere/mod.py:3"


def test_where_a_function_is_defined():
    def build(case):
        return case

    assert blame.defined_at(build) == blame.location(__file__, build.__code__.co_firstlineno)
    assert blame.defined_at(functools.partial(build, 1)) == blame.defined_at(build)
    assert blame.defined_at(len) is None


def test_the_deepest_frame_in_the_packages_files_is_named(demopkg):
    with pytest.raises(KeyError) as raised:
        demopkg.check(None)
    assert blame.raised_at(raised.value, "demopkg") == "demopkg/helpers.py:5"
    with pytest.raises(ZeroDivisionError) as elsewhere:
        _ = 1 / 0
    assert blame.raised_at(elsewhere.value, "demopkg") is None


def test_a_check_that_raises_in_a_packages_code_is_its_crash_with_file_line_and_traceback(demopkg):
    with pytest.raises(CheckCrashed) as crash:
        run_check(Check("scaled", "symbolic", demopkg.check), "demopkg.lemma", Context("quick", 1, "cpu"))
    error = crash.value
    assert str(error) == ("check 'scaled' of demopkg.lemma crashed in demopkg's code at demopkg/helpers.py:5: "
                          "KeyError: 'scale'")
    assert (error.package, error.at) == ("demopkg", "demopkg/helpers.py:5")
    assert error.traceback.startswith("Traceback (most recent call last):")
    assert "demopkg/claims.py\", line 5, in check" in error.traceback
    assert error.traceback.endswith("KeyError: 'scale'\n")
    assert error.details() == {"package": "demopkg", "at": "demopkg/helpers.py:5", "traceback": error.traceback}


def test_a_crash_outside_the_packages_code_stays_an_internal_error(demopkg):
    def raises(ctx):
        raise RuntimeError("a defect of the suite")

    with pytest.raises(CheckCrashed) as crash:
        run_check(Check("suite", "symbolic", raises), "demopkg.lemma", Context("quick", 1, "cpu"))
    assert crash.value.package is None and crash.value.at is None
    assert str(crash.value) == "check 'suite' of demopkg.lemma crashed: RuntimeError: a defect of the suite"


def test_a_long_traceback_keeps_its_head_and_tail():
    try:
        raise ValueError("x" * (3 * blame.TRACEBACK_CHARACTERS))
    except ValueError as error:
        text = blame.traceback_text(error)
    assert len(text) < blame.TRACEBACK_CHARACTERS + 100 and "characters left out" in text
    assert text.startswith("Traceback (most recent call last):") and text.endswith("xxx\n")
