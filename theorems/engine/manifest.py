"""The gate manifest: the expected verdict of every implemented claim of a package.

The format (README, "Gating your own paper"): a TOML file with an optional ``version = 1``,
one ``[verdicts]`` table mapping each claim id, quoted, to its expected verdict, and an
optional ``[scopes]`` table giving each certified claim's scope ("all", or the bounded range
its certificates cover at the ci profile)::

    version = 1
    [verdicts]
    "mypaper.lemma1" = "certified"
    [scopes]
    "mypaper.lemma1" = "all"

Anything else is an error that names the file and what is wrong, on one line.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from pathlib import Path

from ..errors import ManifestError, SettingError
from .catalog import CLAIM_ID
from .settings import SEED_LIMIT
from .verdicts import ALL_SIZES, Verdict

# The manifest format this suite reads; a file stating another version is refused rather
# than half understood.
MANIFEST_VERSION = 1

def _read(path: Path) -> dict:
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"manifest {path} not found") from None
    except IsADirectoryError:
        raise ManifestError(f"manifest {path} is a folder, not a TOML file") from None
    except OSError as error:
        raise ManifestError(f"cannot read manifest {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ManifestError(f"manifest {path} is not text (UTF-8): is it the TOML manifest?") from None
    except tomllib.TOMLDecodeError as error:
        raise ManifestError(f"manifest {path} is not valid TOML: {error}") from None
    unknown_keys = sorted(set(data) - {"version", "verdicts", "scopes"})
    if unknown_keys:
        raise ManifestError(f"manifest {path}: unknown top-level keys {unknown_keys} "
                            "(expected version, [verdicts] and [scopes])")
    if data.get("version", MANIFEST_VERSION) != MANIFEST_VERSION:
        raise ManifestError(f"manifest {path}: version {data['version']!r} is not supported (this suite reads version "
                         f"{MANIFEST_VERSION})")
    return data


def _quoted(path: Path, table: dict, name: str) -> None:
    for claim_id, value in table.items():
        if isinstance(value, dict):  # an unquoted dotted key makes nested tables
            raise ManifestError(f"manifest {path}: quote the claim ids: write \"{claim_id}.…\" = \"<{name}>\"")
        if not re.fullmatch(CLAIM_ID, claim_id):
            raise ManifestError(f"manifest {path}: {claim_id!r} is not a claim id ('<paper>.<name>')")


def load_manifest(path: Path) -> dict[str, Verdict]:
    """The manifest's expected verdicts, by claim id."""
    table = _read(path).get("verdicts")
    if not isinstance(table, dict):
        raise ManifestError(f"manifest {path} has no [verdicts] table")
    _quoted(path, table, "verdict")
    allowed = [verdict.value for verdict in Verdict]
    expected = {}
    for claim_id, verdict in table.items():
        if not isinstance(verdict, str) or verdict not in allowed:
            raise ManifestError(f"manifest {path}: {claim_id} has unknown verdict {verdict!r} "
                                f"(allowed: {', '.join(allowed)})")
        expected[claim_id] = Verdict(verdict)
    return expected


def load_scopes(path: Path) -> dict[str, str] | None:
    """The manifest's expected scopes, by claim id; None when it has no ``[scopes]`` table.
    A table, once there, names every claim the manifest expects certified, and no other."""
    data = _read(path)
    if "scopes" not in data:
        return None
    table = data["scopes"]
    if not isinstance(table, dict):
        raise ManifestError(f"manifest {path}: scopes must be a [scopes] table")
    _quoted(path, table, "scope")
    for claim_id, scope in table.items():
        if not isinstance(scope, str) or not scope.strip():
            raise ManifestError(f"manifest {path}: {claim_id} has scope {scope!r}; give \"all\" or a range such as "
                                "\"d ≤ 2\"")
    certified = {claim_id for claim_id, verdict in load_manifest(path).items() if verdict is Verdict.CERTIFIED}
    missing, extra = sorted(certified - table.keys()), sorted(table.keys() - certified)
    if missing:
        raise ManifestError(f"manifest {path}: certified claims without a scope under [scopes]: {', '.join(missing)}")
    if extra:
        raise ManifestError(f"manifest {path}: scopes given for claims not expected certified: {', '.join(extra)}")
    return dict(table)


def scope_difference(claim_id: str, expected: str, observed: str | None) -> str | None:
    """One line when a certified claim's scope and the manifest's disagree on whether it
    covers every size. Bounded ranges are not compared with each other: the manifest
    records the ci profile's, and a larger profile certifies more."""
    if observed is None or (expected == ALL_SIZES) == (observed == ALL_SIZES):
        return None
    if expected == ALL_SIZES:
        return f"{claim_id}: certified for all sizes in the manifest, got scope {observed!r}"
    return f"{claim_id}: certified for all sizes, the manifest says {expected!r}: update its [scopes]"


def _without_verdict(packages: Sequence[str]) -> str:
    """Why a manifest entry got no verdict: a catalog id not implemented yet, or, gating another
    project's claim ``packages``, an id that is none of theirs (a packaged paper's, a typo)."""
    return f"not a claim of {', '.join(packages)}" if packages else "not implemented"


def claim_difference(claim_id: str, expected: Verdict | None, observed: Verdict | None,
                     expected_scope: str | None = None, observed_scope: str | None = None,
                     packages: Sequence[str] = ()) -> str | None:
    """The line of one claim that the manifest (``expected``, None: not in it) and a run
    (``observed``, None: no verdict) disagree on, scopes included when the manifest gives
    one; None when they agree. ``packages``: the claim packages gated, if not the suite's."""
    if observed is None:
        return f"{claim_id}: in the manifest as {expected} but {_without_verdict(packages)}"
    if expected is None:
        return f"{claim_id}: verdict {observed} but missing from the manifest"
    if expected is not observed:
        return f"{claim_id}: expected {expected}, got {observed}"
    return None if expected_scope is None else scope_difference(claim_id, expected_scope, observed_scope)


def differences(expected: dict[str, Verdict], observed: dict[str, Verdict],
                expected_scopes: dict[str, str] | None = None, observed_scopes: dict[str, str | None] | None = None,
                packages: Sequence[str] = ()) -> list[str]:
    """One line per disagreement between the manifest and a run (both keyed by claim id),
    scopes included when both are given; ``packages``: the claim packages gated, if not the suite's."""
    scoped = expected_scopes is not None and observed_scopes is not None
    lines = [claim_difference(claim_id, expected.get(claim_id), observed.get(claim_id),
                              expected_scopes.get(claim_id) if scoped else None,
                              observed_scopes.get(claim_id) if scoped else None, packages)
             for claim_id in sorted(set(expected) | set(observed))]
    return [line for line in lines if line]


def seeds_after(seed: int, count: int) -> list[int]:
    """The seeds of a multi-seed gate: the ``count`` integers after ``seed`` (2024, …, 2033
    after the default 2023). Fresh for the committed verdicts, and the same on every machine,
    so a disagreement can be rerun with ``theorems check ID --seed N``."""
    if count < 1:
        raise SettingError(f"the number of seeds must be at least 1, got {count}")
    if seed + count >= SEED_LIMIT:
        raise SettingError(f"seeds {seed + 1}…{seed + count} leave [0, 2^63)")
    return list(range(seed + 1, seed + count + 1))


def seed_agreement(expected: dict[str, Verdict], runs: dict[int, dict[str, Verdict]], packages: Sequence[str] = ()
                   ) -> tuple[list[str], int]:
    """One line per claim of a multi-seed gate (``runs`` maps each seed to its verdicts):
    how many seeds gave the manifest verdict and what the others gave. Returns the lines
    and the number of claims that differ at some seed. ``packages`` as in ``differences``."""
    seeds = list(runs)
    lines, differing = [], 0
    for claim_id in sorted(set(expected).union(*runs.values())):
        if claim_id not in expected:
            observed = sorted({str(run[claim_id]) for run in runs.values() if claim_id in run})
            lines.append(f"{claim_id}: verdict {', '.join(observed)} but missing from the manifest")
            differing += 1
            continue
        if not any(claim_id in run for run in runs.values()):
            lines.append(f"{claim_id}: in the manifest as {expected[claim_id]} but {_without_verdict(packages)}")
            differing += 1
            continue
        others = [f"seed {seed}: {runs[seed][claim_id]}" for seed in seeds
                  if runs[seed].get(claim_id) is not expected[claim_id]]
        agreeing = len(seeds) - len(others)
        lines.append(f"{claim_id}: {expected[claim_id]} at {agreeing}/{len(seeds)} seeds"
                     + "".join(f"; {o}" for o in others))
        differing += bool(others)
    return lines, differing
