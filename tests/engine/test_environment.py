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
