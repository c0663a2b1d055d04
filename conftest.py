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


def pytest_collection_modifyitems(config, items):
    for marker in ("large", "slow"):
        if config.getoption(f"--run-{marker}"):
            continue
        skip = pytest.mark.skip(reason=f"{marker} test: run with --run-{marker}")
        for item in items:
            if item.get_closest_marker(marker):
                item.add_marker(skip)
