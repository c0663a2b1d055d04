"""The supported dependency range is the tested one: .ci/run's lower-bounds environment pins
every dependency (test extras included) at exactly the lowest version pyproject.toml allows."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENT = re.compile(r"^([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9A-Za-z.]*)$")


def release(version: str) -> tuple[int, ...]:
    """'4.60' and '4.60.0' are the same release."""
    parts = [int(part) for part in version.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def lower_bounds_in_pyproject() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    bounds = {}
    for requirement in requirements:
        match = REQUIREMENT.match(requirement.strip())
        assert match, f"pyproject.toml: {requirement!r} is not of the form 'name>=version' (a tested lower bound)"
        bounds[match.group(1).lower()] = release(match.group(2))
    return bounds


def pinned_in_lower_bounds_file() -> dict[str, str]:
    pins = {}
    for line in (ROOT / ".ci" / "lower-bounds.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            pins[name.strip().lower()] = release(version.strip())
    return pins


def test_lower_bounds_file_pins_exactly_the_lowest_allowed_versions():
    assert pinned_in_lower_bounds_file() == lower_bounds_in_pyproject()

