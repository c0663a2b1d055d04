"""The tree shows the architecture: the engine knows no paper, no paper knows another, every
claim is registered under ``theorems/papers/``, claim modules are found without a list, and
``tests/`` mirrors the package."""

import ast
import subprocess
import sys
from pathlib import Path

import theorems

PACKAGE = Path(theorems.__file__).resolve().parent
TESTS = Path(__file__).resolve().parent
PAPERS = sorted(p.name for p in (PACKAGE / "papers").iterdir() if (p / "__init__.py").exists())


def imported_modules(path: Path) -> set[str]:
    """Absolute names of every module a file imports (relative imports resolved)."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def python_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def test_engine_and_shared_mathematics_import_no_paper():
    for folder in ("engine", "maths"):
        for path in python_files(PACKAGE / folder):
            papers = {name for name in imported_modules(path) if name.startswith("theorems.papers")}
            assert not papers, f"{path.relative_to(PACKAGE)} imports {sorted(papers)}"


def test_no_paper_imports_another_paper():
    for paper in PAPERS:
        for path in python_files(PACKAGE / "papers" / paper):
            others = {name for name in imported_modules(path)
                      if name.startswith("theorems.papers.") and name.split(".")[2] != paper}
            assert not others, f"{path.relative_to(PACKAGE)} imports another paper: {sorted(others)}"


def test_every_register_call_is_under_papers():
    for path in python_files(PACKAGE):
        if path.is_relative_to(PACKAGE / "papers") or path == PACKAGE / "engine" / "registry.py":
            continue
        calls = [node for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "register"]
        assert not calls, f"{path.relative_to(PACKAGE)} registers a claim outside theorems/papers/"


def test_every_paper_module_opens_with_the_paper_location_it_covers():
    for paper in PAPERS:
        for path in python_files(PACKAGE / "papers" / paper):
            if path.name == "__init__.py":
                continue
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
            assert doc.startswith(paper), f"{path.relative_to(PACKAGE)}: docstring should open with {paper!r} and its location"


def test_importing_the_engine_registers_nothing():
    code = ("import theorems.engine.registry as r, theorems.engine.runner, theorems.engine.checks, theorems.api; "
            "assert not r._REGISTRY, sorted(r._REGISTRY); "
            "import sys; assert not [m for m in sys.modules if m.startswith('theorems.papers.')]")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_claim_modules_are_discovered_by_walking_the_papers():
    from theorems.engine.registry import CLAIM_PACKAGES, claim_modules, claims

    found = {module for package in CLAIM_PACKAGES for module in claim_modules(package)}
    on_disk = {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts)
               for p in python_files(PACKAGE / "papers") if p.name != "__init__.py"}
    assert found == on_disk
    claims()
    assert on_disk <= set(sys.modules)


def test_tests_mirror_the_package():
    for folder in ("engine", "maths", *(f"papers/{paper}" for paper in PAPERS)):
        assert (TESTS / folder).is_dir(), f"tests/{folder} is missing"
    for paper in PAPERS:
        for path in python_files(PACKAGE / "papers" / paper):
            if path.name == "__init__.py":
                continue
            mirror = TESTS / "papers" / paper / f"test_{path.name}"
            helper_users = [t for t in python_files(TESTS / "papers" / paper) if path.stem in t.read_text(encoding="utf-8")]
            assert mirror.exists() or helper_users, f"no tests for theorems/papers/{paper}/{path.name}"
