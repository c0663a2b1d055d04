"""The tree shows the architecture: the faces (command line, reports, Python API, plugin,
benchmarks, constructions) on top; four paper packages that use the engine and the shared
mathematics and know no face nor each other; an engine that knows no paper and renders
nothing; no import circle anywhere; every claim registered under ``theorems/papers/``, claim
modules found without a list, ``tests/`` mirroring the package, and nothing else at the
root."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import theorems

PACKAGE = Path(theorems.__file__).resolve().parent
TESTS = Path(__file__).resolve().parent
PAPERS = sorted(p.name for p in (PACKAGE / "papers").iterdir() if (p / "__init__.py").exists())
# The faces: what people and other programs call. Papers and the engine import none of them.
FACES = ("theorems.cli", "theorems.api", "theorems.report", "theorems.bench", "theorems.constructions",
         "theorems.pytest_plugin", "theorems.__main__")


def module_name(path: Path) -> str:
    """``theorems.engine.runner`` for engine/runner.py, ``theorems.engine`` for its __init__.py."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> set[str]:
    """Absolute names of every module a file imports (relative imports resolved)."""
    module = module_name(path)
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


def test_engine_shared_mathematics_and_reports_import_no_paper():
    for folder in ("engine", "maths", "report"):
        for path in python_files(PACKAGE / folder):
            papers = {name for name in imported_modules(path) if name.startswith("theorems.papers")}
            assert not papers, f"{path.relative_to(PACKAGE)} imports {sorted(papers)}"


def test_engine_renders_nothing_and_knows_no_face():
    """The engine produces results; the report room renders them, and the faces own the
    default paths (tests/claims.toml, reports/<profile>)."""
    for path in python_files(PACKAGE / "engine"):
        imported = imported_modules(path)
        faces = {name for name in imported if name.startswith(FACES)}
        assert not faces, f"{path.relative_to(PACKAGE)} imports faces {sorted(faces)}"
        assert "html" not in imported, f"{path.relative_to(PACKAGE)} renders HTML"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        renderers = [node.name for node in ast.walk(tree)
                     if isinstance(node, ast.FunctionDef) and node.name.startswith(("render", "write"))]
        assert not renderers, f"{path.relative_to(PACKAGE)} renders or writes files: {renderers}"
        paths = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
                 and node.value in ("reports", "tests", "claims.toml", "report.json")]
        assert not paths, f"{path.relative_to(PACKAGE)} knows the face's paths {paths}"


def test_papers_use_no_face():
    for path in python_files(PACKAGE / "papers"):
        faces = {name for name in imported_modules(path) if name.startswith(FACES)}
        assert not faces, f"{path.relative_to(PACKAGE)} imports faces {sorted(faces)}"


def test_no_import_circles():
    """No module imports, at any depth and even inside a function, a module that imports it
    back: each circle found is listed (strongly connected components of the import graph)."""
    modules = {module_name(path): path for path in python_files(PACKAGE)}
    graph = {name: sorted(imported & modules.keys() - {name})
             for name, path in modules.items() for imported in [imported_modules(path)]}
    circles = [component for component in strongly_connected_components(graph) if len(component) > 1]
    assert not circles, f"import circles: {circles}"


def strongly_connected_components(graph: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iteratively (the import graph is deep enough for recursion limits)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            successor = next(successors, None)
            if successor is not None:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(graph[successor])))
                elif successor in on_stack:
                    low[node] = min(low[node], index[successor])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def test_the_circle_finder_finds_circles():
    graph = {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": [], "e": ["e"]}
    assert sorted(strongly_connected_components(graph)) == [["a", "b", "c"], ["d"], ["e"]]


def test_no_paper_imports_another_paper():
    for paper in PAPERS:
        for path in python_files(PACKAGE / "papers" / paper):
            others = {name for name in imported_modules(path)
                      if name.startswith("theorems.papers.") and name.split(".")[2] != paper}
            assert not others, f"{path.relative_to(PACKAGE)} imports another paper: {sorted(others)}"


def test_no_suite_module_uses_the_global_random_module():
    # Randomness comes from the run's seeded streams (Context) and Hypothesis' draws only; a strategy that
    # read `random` would be reproducible only by accident (and the searches ignore Hypothesis' warning
    # about `random` moving during a draw, which the host process causes: engine/checks.py).
    for path in python_files(PACKAGE):
        assert "random" not in imported_modules(path), f"{path.relative_to(PACKAGE)} imports the random module"


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
            assert doc.startswith(paper), \
                f"{path.relative_to(PACKAGE)}: docstring should open with {paper!r} and its location"


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
    for folder in ("engine", "maths", "report", *(f"papers/{paper}" for paper in PAPERS)):
        assert (TESTS / folder).is_dir(), f"tests/{folder} is missing"
    for paper in PAPERS:
        for path in python_files(PACKAGE / "papers" / paper):
            if path.name == "__init__.py":
                continue
            mirror = TESTS / "papers" / paper / f"test_{path.name}"
            helper_users = [t for t in python_files(TESTS / "papers" / paper)
                            if path.stem in t.read_text(encoding="utf-8")]
            assert mirror.exists() or helper_users, f"no tests for theorems/papers/{paper}/{path.name}"


# The repository's root: the package, its tests, the committed reports and what builds and tests them.
ROOT_ENTRIES = {"pyproject.toml", "README.md", "conftest.py", "theorems", "tests", "reports", ".ci", ".gitignore"}


def test_the_root_holds_only_the_package_its_tests_reports_and_build():
    root = PACKAGE.parent
    listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the tracked files are unknown")
    tracked = {path.split("/", 1)[0] for path in listed.stdout.splitlines()}
    assert tracked <= ROOT_ENTRIES, f"files at the root beyond the layout: {sorted(tracked - ROOT_ENTRIES)}"
