"""The gate manifest: the expected verdict of every implemented claim of a package.

The format (README, "The manifest format"): a TOML file with an optional ``version = 1``
and one ``[verdicts]`` table mapping each claim id, quoted, to its expected verdict::

    version = 1
    [verdicts]
    "mypaper.lemma1" = "certified"

Anything else is an error that names the file and what is wrong, on one line.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from ..errors import ManifestError, SettingError
from .catalog import CLAIM_ID
from .settings import SEED_LIMIT
from .verdicts import Verdict

# The manifest format this suite reads; a file stating another version is refused rather
# than half understood.
MANIFEST_VERSION = 1

def load_manifest(path: Path) -> dict[str, Verdict]:
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
    unknown_keys = sorted(set(data) - {"version", "verdicts"})
    if unknown_keys:
        raise ManifestError(f"manifest {path}: unknown top-level keys {unknown_keys} (expected version and [verdicts])")
    if data.get("version", MANIFEST_VERSION) != MANIFEST_VERSION:
        raise ManifestError(f"manifest {path}: version {data['version']!r} is not supported (this suite reads version "
                         f"{MANIFEST_VERSION})")
    table = data.get("verdicts")
    if not isinstance(table, dict):
        raise ManifestError(f"manifest {path} has no [verdicts] table")
    allowed = [verdict.value for verdict in Verdict]
    expected = {}
    for claim_id, verdict in table.items():
        if isinstance(verdict, dict):  # an unquoted dotted key makes nested tables
            raise ManifestError(f"manifest {path}: quote the claim ids: write \"{claim_id}.…\" = \"<verdict>\"")
        if not re.fullmatch(CLAIM_ID, claim_id):
            raise ManifestError(f"manifest {path}: {claim_id!r} is not a claim id ('<paper>.<name>')")
        if not isinstance(verdict, str) or verdict not in allowed:
            raise ManifestError(f"manifest {path}: {claim_id} has unknown verdict {verdict!r} "
                                f"(allowed: {', '.join(allowed)})")
        expected[claim_id] = Verdict(verdict)
    return expected


def differences(expected: dict[str, Verdict], observed: dict[str, Verdict]) -> list[str]:
    """One line per disagreement between the manifest and a run (both keyed by claim id)."""
    lines = []
    for claim_id in sorted(set(expected) | set(observed)):
        if claim_id not in observed:
            lines.append(f"{claim_id}: in the manifest as {expected[claim_id]} but not implemented")
        elif claim_id not in expected:
            lines.append(f"{claim_id}: verdict {observed[claim_id]} but missing from the manifest")
        elif expected[claim_id] is not observed[claim_id]:
            lines.append(f"{claim_id}: expected {expected[claim_id]}, got {observed[claim_id]}")
    return lines


def seeds_after(seed: int, count: int) -> list[int]:
    """The seeds of a multi-seed gate: the ``count`` integers after ``seed`` (2024, …, 2033
    after the default 2023). Fresh for the committed verdicts, and the same on every machine,
    so a disagreement can be rerun with ``theorems check ID --seed N``."""
    if count < 1:
        raise SettingError(f"the number of seeds must be at least 1, got {count}")
    if seed + count >= SEED_LIMIT:
        raise SettingError(f"seeds {seed + 1}…{seed + count} leave [0, 2^63)")
    return list(range(seed + 1, seed + count + 1))


def seed_agreement(expected: dict[str, Verdict], runs: dict[int, dict[str, Verdict]]) -> tuple[list[str], int]:
    """One line per claim of a multi-seed gate (``runs`` maps each seed to its verdicts):
    how many seeds gave the manifest verdict and what the others gave. Returns the lines
    and the number of claims that differ at some seed."""
    seeds = list(runs)
    lines, differing = [], 0
    for claim_id in sorted(set(expected).union(*runs.values())):
        if claim_id not in expected:
            observed = sorted({str(run[claim_id]) for run in runs.values() if claim_id in run})
            lines.append(f"{claim_id}: verdict {', '.join(observed)} but missing from the manifest")
            differing += 1
            continue
        if not any(claim_id in run for run in runs.values()):
            lines.append(f"{claim_id}: in the manifest as {expected[claim_id]} but not implemented")
            differing += 1
            continue
        others = [f"seed {seed}: {runs[seed][claim_id]}" for seed in seeds
                  if runs[seed].get(claim_id) is not expected[claim_id]]
        agreeing = len(seeds) - len(others)
        lines.append(f"{claim_id}: {expected[claim_id]} at {agreeing}/{len(seeds)} seeds"
                     + "".join(f"; {o}" for o in others))
        differing += bool(others)
    return lines, differing
