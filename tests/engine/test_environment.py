"""Run metadata records what reproducing a run's evidence needs."""

import importlib
import json
import subprocess
import sys
from importlib import metadata

from theorems.engine import environment
from theorems.engine.context import Context
from theorems.engine.settings import HYPOTHESIS_EXAMPLES


def test_describe_records_seed_profile_device_versions_and_commit():
    record = environment.describe(Context("quick", 7, "cpu"))
    assert (record["profile"], record["seed"], record["device"]) == ("quick", 7, "cpu")
    assert record["search_budget"]["hypothesis_examples"] == HYPOTHESIS_EXAMPLES["quick"]
    assert record["rerun"] == "--profile quick --seed 7 --device cpu"
    assert set(environment.PACKAGES) == set(record["packages"])
    assert all(record["packages"][name] != "not installed" for name in ("numpy", "scipy", "torch", "python-flint"))
    assert record["gpu"] == {"name": "none used"}
    assert record["blas"]["numpy"] and record["blas"]["scipy"]
    assert record["git_commit"]
    json.dumps(record)  # goes into report.json as it is


def _git(folder, *arguments):
    subprocess.run(["git", "-c", "user.email=a@example.org", "-c", "user.name=a", *arguments], cwd=folder, check=True,
                   capture_output=True)


def test_a_claim_package_records_its_projects_version_commit_and_dirty_tree(tmp_path, monkeypatch):
    """Another project's claims are its code: the record names its commit, whether its tree
    differed (an uncommitted claims module included) and, when installed, its version."""
    package = tmp_path / "toyproject" / "toypaper"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.syspath_prepend(str(package.parent))
    monkeypatch.delitem(sys.modules, "toypaper", raising=False)
    importlib.import_module("toypaper")

    def provenance():
        environment.claim_package.cache_clear()
        return environment.claim_package("toypaper.claims")

    assert provenance() == {"module": "toypaper.claims", "distribution": None, "version": None, "commit": None,
                            "dirty": None}  # not installed, not a git checkout
    _git(package.parent, "init", "-q")
    _git(package.parent, "add", ".")
    _git(package.parent, "commit", "-q", "-m", "first")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=package.parent, capture_output=True, text=True).stdout
    assert provenance() == {"module": "toypaper.claims", "distribution": None, "version": None,
                            "commit": head.strip(), "dirty": False}
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"")  # what an import leaves
    assert provenance()["dirty"] is False
    (package / "claims.py").write_text("", encoding="utf-8")  # not committed yet
    assert provenance()["dirty"] is True
    environment.claim_package.cache_clear()
    installed = environment.claim_package("numpy")
    assert (installed["distribution"], installed["version"]) == ("numpy", metadata.version("numpy"))


def test_the_software_files_are_every_module_of_the_suite_and_the_claim_packages_tracked_or_not(tmp_path,
                                                                                                monkeypatch):
    """What a cluster's workers must share with the client: every .py file where it would be
    imported from (an untracked one too), never a compiled file; one digest for them all."""
    package = tmp_path / "toydigest"
    (package / "__pycache__").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"compiled")
    monkeypatch.syspath_prepend(str(tmp_path))
    files = environment.software_files(("toydigest.claims", "absentdigest"))
    assert "theorems/engine/environment.py" in files and "toydigest/__init__.py" in files
    assert files["absentdigest"] == "not importable"
    assert not any(name.endswith(".pyc") for name in files)
    (package / "extra.py").write_text("CASES = 2\n", encoding="utf-8")  # in no commit
    more = environment.software_files(("toydigest",))
    assert "toydigest/extra.py" in more
    assert environment.digest_of(more) != environment.digest_of({name: sha for name, sha in more.items()
                                                                 if name != "toydigest/extra.py"})
    assert environment.software_differences(environment.software(()), {
        **environment.software(()), "files": more}) == ["toydigest/__init__.py only there, and 1 more file"]
    assert environment.software_differences(environment.software(("toydigest",)), {
        **environment.software(()), "files": files}) == ["absentdigest not importable there, and 1 more file"]


def test_describe_records_the_digest_of_the_code_that_ran():
    record = environment.describe(Context("quick", 7, "cpu"))
    assert record["software_digest"] == environment.digest_of(environment.software_files())
