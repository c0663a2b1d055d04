"""The gate manifest: the expected verdict of every implemented claim (tests/claims.toml)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from .verdicts import Verdict

MANIFEST_NAME = Path("tests") / "claims.toml"


def default_manifest_path() -> Path:
    """tests/claims.toml in the working directory, else beside the package's source tree."""
    here = Path.cwd() / MANIFEST_NAME
    if here.is_file():
        return here
    return Path(__file__).resolve().parent.parent / MANIFEST_NAME


def load_manifest(path: Path) -> dict[str, Verdict]:
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"manifest {path} not found") from None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"manifest {path} is not valid TOML: {error}") from None
    table = data.get("verdicts")
    if not isinstance(table, dict):
        raise ValueError(f"manifest {path} has no [verdicts] table")
    expected = {}
    for claim_id, verdict in table.items():
        try:
            expected[claim_id] = Verdict(verdict)
        except ValueError:
            raise ValueError(f"manifest {path}: {claim_id} has unknown verdict {verdict!r}") from None
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
