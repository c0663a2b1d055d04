"""Run metadata records what reproducing a run's evidence needs."""

import json

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
