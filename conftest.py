"""pytest configuration of this repository's own tests.

The pytest plugin (``theorems/pytest_plugin.py``, loaded through the ``pytest11`` entry point
in every project that installs the suite) adds only what other projects gate with. What is
particular to this repository's test run lives here: the ``--run-large`` / ``--run-slow``
options and the ``meta``, ``large`` and ``slow`` markers, and the derandomized Hypothesis
profile of the test profile (``theorems-<profile>``; an explicit ``--hypothesis-profile``
wins), which the suite's property tests run under.
"""

import pytest
from hypothesis import settings as hypothesis_settings

from theorems.engine.settings import test_profile_name

# pytest's own fixture for running pytest inside a test (tests/test_bad_input.py drives the
# plugin's options through it).
pytest_plugins = ["pytester"]

MARKERS = {
    "meta": "runs a deliberately broken variant of a claim, which must come out refuted",
    "large": "large instances (thousands of rows); run with --run-large",
    "slow": "long runs beyond the default budget; run with --run-slow",
}


def pytest_addoption(parser):
    group = parser.getgroup("theorems-tests", "this repository's tests")
    group.addoption("--run-large", action="store_true", help="also run tests marked large")
    group.addoption("--run-slow", action="store_true", help="also run tests marked slow")


@pytest.hookimpl(trylast=True)  # after the plugin has validated --theorems-profile
def pytest_configure(config):
    # A checkout installed before the entry point existed has none of the plugin's options,
    # markers or fixtures: say how to fix that instead of failing test by test.
    if not config.pluginmanager.has_plugin("theorems"):
        raise pytest.UsageError("the theorems pytest plugin is not registered: reinstall the suite "
                                "(`.venv/bin/pip install -e .`) so that its pytest11 entry point exists")
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")
    if not config.getoption("hypothesis_profile", None):
        hypothesis_settings.load_profile(test_profile_name(config.getoption("--theorems-profile")))


# The longest tests of the default run (about 35–110 s each on the 2-core development machine),
# moved to the front: pytest-xdist hands tests out in collection order, and one of these handed
# out near the end kept the run waiting minutes for it alone. In this order, test_meta's run of
# each claim follows test_claims' in the same worker (the first tests go to one worker together),
# where the rows that run computed are cached (giannou2023.app_e_experiments.experiment_row).
STARTED_FIRST = tuple(f"tests/{test}[giannou2023.{claim}]" for claim in ("fig4", "fig4.sparse") for test in (
    "test_claims.py::test_claim_reaches_its_manifest_verdict", "test_meta.py::test_mutation_rule"))


def pytest_collection_modifyitems(config, items):
    first = {node_id: index for index, node_id in enumerate(STARTED_FIRST)}
    items.sort(key=lambda item: first.get(item.nodeid, len(first)))  # stable: the rest keep their order
    for marker in ("large", "slow"):
        if config.getoption(f"--run-{marker}"):
            continue
        skip = pytest.mark.skip(reason=f"{marker} test: run with --run-{marker}")
        for item in items:
            if item.get_closest_marker(marker):
                item.add_marker(skip)
