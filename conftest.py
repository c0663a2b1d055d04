"""pytest configuration specific to this repository.

The test options, markers and Hypothesis profiles live in ``theorems/pytest_plugin.py``,
which every project that installs the suite loads through its ``pytest11`` entry point; it
must not be loaded a second time from here (its options would be added twice).
"""

import pytest


def pytest_configure(config):
    # A checkout installed before the entry point existed has none of the plugin's options,
    # markers or fixtures: say how to fix that instead of failing test by test.
    if not config.pluginmanager.has_plugin("theorems"):
        raise pytest.UsageError("the theorems pytest plugin is not registered: reinstall the suite "
                                "(`.venv/bin/pip install -e .`) so that its pytest11 entry point exists")
