"""pytest configuration: run profiles, Hypothesis profiles and opt-in large/slow tests.

Choose the profile with ``--theorems-profile`` or ``THEOREMS_PROFILE`` (default: ci).
Hypothesis-driven unit tests use the Hypothesis profile of the same name, derandomized so
that a test run never flakes.
"""

import os

import pytest
from hypothesis import settings

from theorems.engine.profiles import DEFAULT_PROFILE, HYPOTHESIS_EXAMPLES, PROFILES

for _name in PROFILES:
    settings.register_profile(
        _name,
        max_examples=HYPOTHESIS_EXAMPLES[_name],
        deadline=None,
        derandomize=True,
        database=None,
        print_blob=True,
    )


def pytest_addoption(parser):
    parser.addoption(
        "--theorems-profile",
        choices=PROFILES,
        default=os.environ.get("THEOREMS_PROFILE", DEFAULT_PROFILE),
        help="profile for claim runs and Hypothesis (env THEOREMS_PROFILE; default %(default)s)",
    )
    parser.addoption("--run-large", action="store_true", help="also run tests marked large")
    parser.addoption("--run-slow", action="store_true", help="also run tests marked slow")


def pytest_configure(config):
    profile = config.getoption("--theorems-profile")
    if profile not in PROFILES:
        raise pytest.UsageError(f"THEOREMS_PROFILE={profile!r} is not one of {', '.join(PROFILES)}")
    settings.load_profile(profile)


def pytest_collection_modifyitems(config, items):
    for marker in ("large", "slow"):
        if config.getoption(f"--run-{marker}"):
            continue
        skip = pytest.mark.skip(reason=f"{marker} test: run with --run-{marker}")
        for item in items:
            if item.get_closest_marker(marker):
                item.add_marker(skip)


@pytest.fixture(scope="session")
def theorems_profile(pytestconfig):
    return pytestconfig.getoption("--theorems-profile")
