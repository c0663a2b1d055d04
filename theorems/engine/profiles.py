"""Run profiles: how hard each check tries.

``quick`` is for meta-tests and smoke runs, ``ci`` is the default for tests, checks and
reports (minutes on two cores), ``thorough`` produces the committed report, ``large``
adds the biggest instances (GPU-sized where a check uses torch).
"""

from __future__ import annotations

from typing import TypeVar

from hypothesis import HealthCheck, Phase, settings

PROFILES = ("quick", "ci", "thorough", "large")
DEFAULT_PROFILE = "ci"
DEFAULT_SEED = 2023

# Hypothesis examples per randomized check (the search budget); `large` is about bigger
# instances, not longer searches, so it searches as `thorough` does.
HYPOTHESIS_EXAMPLES = {"quick": 30, "ci": 150, "thorough": 1500, "large": 1500}

T = TypeVar("T")


def validate_profile(profile: str) -> str:
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    return profile


def by_profile(profile: str, quick: T, ci: T | None = None, thorough: T | None = None, large: T | None = None) -> T:
    """The value for ``profile``, falling back to the nearest less demanding profile."""
    values = dict(zip(PROFILES, (quick, ci, thorough, large)))
    for name in reversed(PROFILES[: PROFILES.index(validate_profile(profile)) + 1]):
        if values[name] is not None:
            return values[name]
    raise AssertionError("quick always has a value")


def hypothesis_settings(profile: str, **overrides) -> settings:
    """Settings for one search: reproducible (no example database, seeded by the caller),
    no deadline (exact arithmetic is slow by design), shrinking on."""
    base = dict(
        max_examples=HYPOTHESIS_EXAMPLES[validate_profile(profile)],
        database=None,
        deadline=None,
        derandomize=False,
        print_blob=False,
        report_multiple_bugs=False,
        phases=(Phase.explicit, Phase.generate, Phase.target, Phase.shrink),
        suppress_health_check=list(HealthCheck),
    )
    base.update(overrides)
    return settings(**base)
