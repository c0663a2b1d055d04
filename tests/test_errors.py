"""Every exception the suite defines derives from ``TheoremsError`` (so one ``except`` catches
the suite's errors) and keeps the built-in base its callers caught before."""

import importlib
import inspect
import pkgutil

import pytest

import theorems
from theorems.errors import TheoremsError


def suite_modules():
    for module in pkgutil.walk_packages(theorems.__path__, prefix="theorems."):
        if module.name not in ("theorems.__main__",):
            yield importlib.import_module(module.name)


def defined_exception_classes() -> dict[str, type]:
    """Every exception class defined (not imported) by a module of the suite, by its full name."""
    return {f"{module.__name__}.{name}": value for module in suite_modules() for name, value in vars(module).items()
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == module.__name__}


def test_every_exception_class_of_the_suite_derives_from_theorems_error():
    defined = defined_exception_classes()
    assert "theorems.errors.UnknownClaim" in defined, "the walk over the suite's modules is broken"
    # A private control-flow signal that is no Exception (so that no check's `except Exception` swallows it:
    # generated_mutants' time limit) is caught inside the suite and never reaches a caller.
    strays = sorted(name for name, cls in defined.items() if not issubclass(cls, TheoremsError)
                    and not (name.rpartition(".")[2].startswith("_") and not issubclass(cls, Exception)))
    assert not strays, f"exceptions outside the TheoremsError family: {strays}"


def test_public_exceptions_live_in_errors():
    """Private control-flow exceptions (a leading underscore) may stay beside their use."""
    elsewhere = sorted(name for name in defined_exception_classes()
                       if not name.startswith("theorems.errors.") and not name.rpartition(".")[2].startswith("_"))
    assert not elsewhere, f"define these in theorems/errors.py: {elsewhere}"


@pytest.mark.parametrize("raise_it, builtin", [
    (lambda: theorems.check("giannou2023.lema6"), LookupError),
    (lambda: theorems.check("giannou2023.thm6", profile="huge"), ValueError),
    (lambda: theorems.check("giannou2023.thm6", seed=-1), ValueError),
    (lambda: theorems.check("giannou2023.thm6", device="tpu"), ValueError),
])
def test_one_except_catches_the_suites_errors_and_the_old_builtin_still_does(raise_it, builtin):
    with pytest.raises(TheoremsError):
        raise_it()
    with pytest.raises(builtin):
        raise_it()
