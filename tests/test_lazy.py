"""The heavy libraries are imported when first used: importing the whole suite loads none of
them, and the suite reaches torch only through ``theorems.lazy``."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import theorems
from theorems import lazy

PACKAGE = Path(theorems.__file__).resolve().parent


def test_an_attribute_read_imports_the_module_and_reaches_its_submodules():
    import xml.dom

    assert lazy.Deferred("json").dumps([1]) == "[1]"
    assert lazy.Deferred("xml").dom is xml.dom  # a submodule its package does not import
    with pytest.raises(AttributeError):
        lazy.Deferred("json").no_such_name  # noqa: B018


def test_an_action_waits_for_the_first_import_within_its_block(tmp_path, monkeypatch):
    (tmp_path / "waited_for.py").write_text("VALUE = 1\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "waited_for", raising=False)
    seen = []
    with lazy.on_import("waited_for", seen.append):
        assert seen == []
        assert lazy.Deferred("waited_for").VALUE == 1
        assert [module.__name__ for module in seen] == ["waited_for"]
        lazy.load("waited_for")
        assert len(seen) == 1  # once
    with lazy.on_import("waited_for", seen.append):  # imported already: now
        assert len(seen) == 2


def test_an_action_never_run_is_forgotten_after_its_block():
    seen = []
    with lazy.on_import("module_never_imported", seen.append):
        pass
    assert not lazy._waiting.get("module_never_imported")


def test_importing_every_suite_module_imports_no_heavy_library():
    code = ("import sys; from theorems.engine.tasks import import_every_suite_module; import_every_suite_module(); "
            f"print([name for name in {lazy.HEAVY!r} if name in sys.modules])")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_the_suite_imports_torch_only_through_theorems_lazy_and_no_heavy_library_at_its_top():
    """torch anywhere through ``theorems.lazy`` (which gives a running claim its threads when it
    loads torch); matplotlib and scipy.stats never with a module (a function may import them)."""
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "lazy.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top_level = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            else:
                continue
            where = f"{path.relative_to(PACKAGE)}:{node.lineno}"
            assert not any(name == "torch" or name.startswith("torch.") for name in names), \
                f"{where} imports torch: read it from theorems.lazy"
            heavy = [name for name in names for library in lazy.HEAVY
                     if name == library or name.startswith(library + ".")]
            assert id(node) not in top_level or not heavy, f"{where} imports {heavy} with its module"
