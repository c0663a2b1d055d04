"""Run settings, in one place: the profiles and their Hypothesis budgets, the defaults, and
the one validator of each setting (profile, seed, device, jobs) that the command line, the
Python API and the pytest plugin all use.

Profiles say how hard each check tries: ``quick`` is for meta-tests and smoke runs, ``ci``
is the default for tests, checks and reports (minutes on two cores), ``thorough`` produces
the committed report, ``large`` adds the biggest instances (GPU-sized where a check uses
torch).

Two kinds of Hypothesis settings live here. A claim's search (``hypothesis_settings``) carries
all its settings, from Hypothesis' defaults and not from any loaded profile, and is seeded by
its context, so the same run seed gives the same examples in any project; the suite's own
test runs use the derandomized profiles that ``register_test_profiles`` registers under the
suite's own names, so that a test run never flakes.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, TypeVar

from ..errors import DeviceUnavailable, SettingError
from ..lazy import torch
from .vocabulary import Device, choices

if TYPE_CHECKING:  # imported where used: the command line reads this module before it runs anything
    from hypothesis import settings

PROFILES = ("quick", "ci", "thorough", "large")
DEFAULT_PROFILE = "ci"
SCHEDULER_VARIABLE = "THEOREMS_SCHEDULER"  # the default --scheduler of the command line and the pytest plugin
PROFILE_VARIABLE = "THEOREMS_PROFILE"  # the default profile of the command line and the pytest plugin
DEFAULT_SEED = 2023
SEED_LIMIT = 2**63  # seeds feed numpy's SeedSequence and torch's manual_seed: [0, 2^63)

# Hypothesis examples per randomized check (the search budget); `large` is about bigger
# instances, not longer searches, so it searches as `thorough` does.
HYPOTHESIS_EXAMPLES = {"quick": 30, "ci": 150, "thorough": 1500, "large": 1500}

T = TypeVar("T")


def validate_profile(profile: object) -> str:
    if profile not in PROFILES:
        raise SettingError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    return profile


def default_profile(fallback: str = DEFAULT_PROFILE) -> str:
    """The profile a run uses when no option names one: ``THEOREMS_PROFILE`` when set, else
    ``fallback`` (also when it is set empty, the shell's way to unset it for one command). The
    command line and the pytest plugin both ask here, so that the variable means the same to
    both; an explicit option wins over it."""
    value = os.environ.get(PROFILE_VARIABLE)
    if not value:
        return fallback
    if value not in PROFILES:
        raise SettingError(f"{PROFILE_VARIABLE}={value!r} is not a profile; choose one of {', '.join(PROFILES)}")
    return value


def _integer(value: object, what: str) -> int:
    """``value`` as an int: an int (not a bool) or its decimal text (from a command line)."""
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            raise SettingError(f"{what} must be an integer, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise SettingError(f"{what} must be an integer, got {value!r}")
    return value


def validate_seed(seed: object) -> int:
    value = _integer(seed, "seed")
    if not 0 <= value < SEED_LIMIT:
        raise SettingError(f"seed must be in [0, 2^63), got {value}")
    return value


def validate_seed_count(count: object) -> int:
    """The number of seeds of a multi-seed gate."""
    value = _integer(count, "the number of seeds")
    if value < 1:
        raise SettingError(f"the number of seeds must be at least 1, got {value}")
    return value


def validate_scheduler(scheduler: object) -> str:
    """A Dask scheduler's address (``tcp://host:8786``, a scheduler file's address) or "local"."""
    if not isinstance(scheduler, str) or not scheduler.strip() or any(c.isspace() for c in scheduler.strip()):
        raise SettingError(f"scheduler must be 'local' or a Dask scheduler address like tcp://host:8786, "
                           f"got {scheduler!r}")
    return scheduler.strip()


def default_scheduler() -> str | None:
    """The Dask scheduler a run uses when no option names one: ``THEOREMS_SCHEDULER`` when set
    (and not empty), else None (this machine's processes)."""
    value = os.environ.get(SCHEDULER_VARIABLE)
    if not value:
        return None
    try:
        return validate_scheduler(value)
    except SettingError as error:
        raise SettingError(f"{SCHEDULER_VARIABLE}: {error}") from None


def validate_jobs(jobs: object) -> int:
    value = _integer(jobs, "jobs")
    if value < 1:
        raise SettingError(f"jobs must be at least 1, got {value}")
    return value


# `theorems report`'s --jobs when none is given: a worker per usable core, at most this many
# (each worker holds the suite in memory, and ``parallel.worker_count`` also caps by what is free).
REPORT_JOBS_CAP = 4


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def default_report_jobs() -> int:
    """The workers of a report run without --jobs: its verdicts and evidence are those of
    --jobs 1, so only the time depends on it."""
    return min(usable_cores(), REPORT_JOBS_CAP)


def validate_device(device: object) -> Device:
    """A device request (auto, cpu or cuda), not yet checked against this machine."""
    try:
        return Device(device)
    except ValueError:
        raise SettingError(f"unknown device {device!r}; choose one of {choices(Device)}") from None


def resolve_device(requested: object) -> Device:
    """The device a run uses: 'auto' picks CUDA when torch sees a GPU (a CPU build of torch
    sees none, and is not imported to say so); asking for 'cuda' without one is an error."""
    device = validate_device(requested)
    if device is Device.CPU or (device is Device.AUTO and _cpu_build_of_torch()):
        return Device.CPU
    if torch.cuda.is_available():
        return Device.CUDA
    if device is Device.CUDA:
        raise DeviceUnavailable("--device cuda asked for, but torch sees no CUDA GPU on this machine")
    return Device.CPU


def _cpu_build_of_torch() -> bool:
    """Whether the torch installed is a CPU build ("2.13.0+cpu", as the CPU wheels are
    versioned): known without importing torch, which takes seconds, and which a run of claims
    that do not use it never needs."""
    from importlib import metadata

    try:
        return metadata.version("torch").endswith("+cpu")
    except metadata.PackageNotFoundError:
        return False


def by_profile(profile: str, quick: T, ci: T | None = None, thorough: T | None = None, large: T | None = None) -> T:
    """The value for ``profile``, falling back to the nearest less demanding profile."""
    values = dict(zip(PROFILES, (quick, ci, thorough, large), strict=True))
    for name in reversed(PROFILES[: PROFILES.index(validate_profile(profile)) + 1]):
        if values[name] is not None:
            return values[name]
    raise AssertionError("quick always has a value")


def hypothesis_settings(profile: str, **overrides) -> settings:
    """Settings for one claim's search: reproducible (no example database, seeded by the
    caller's context, so not derandomized), no deadline (exact arithmetic is slow by
    design), shrinking on."""
    from hypothesis import HealthCheck, Phase, settings

    # Every field from Hypothesis' built-in defaults, not from whatever profile the process
    # loaded: a project's profile must not change a claim's search.
    base = dict(
        parent=settings.get_profile("default"),
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


def test_profile_name(profile: str) -> str:
    """The Hypothesis profile registered for a suite profile: under the suite's own name, so
    that it never replaces a project's profile of the same name."""
    return f"theorems-{validate_profile(profile)}"


def register_test_profiles() -> None:
    """Register one Hypothesis profile per suite profile, ``theorems-<profile>``, for the
    suite's own property tests: derandomized (a test run never flakes), with the profile's
    example budget, and printing the blob that replays a failure. Registering loads none:
    the suite's conftest.py loads one for its own tests, anyone else with
    ``--hypothesis-profile theorems-<profile>``."""
    from hypothesis import settings

    for name in PROFILES:
        settings.register_profile(
            test_profile_name(name),
            max_examples=HYPOTHESIS_EXAMPLES[name],
            deadline=None,
            derandomize=True,
            database=None,
            print_blob=True,
        )
