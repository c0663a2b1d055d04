"""Re-run a reproducibility record and say what differs.

Evidence is compared only on the device the record was made on: CUDA draws other random
streams than the CPU, so there only the verdict has to match. Floats that differ below 1e-9
relative are reported apart from real differences: another BLAS build may round so.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from ..engine import environment
from ..engine.context import Context
from ..engine.registry import Claim
from ..engine.runner import run_claim
from ..engine.vocabulary import Device, Verdict


@dataclass(frozen=True)
class Reproduction:
    """What re-running a record found. ``matches`` is the one answer a gate needs."""

    id: str
    recorded_verdict: Verdict
    verdict: Verdict
    recorded_device: Device
    device: Device
    differences: list[str]  # evidence paths that differ (empty when not compared)
    rounding_differences: list[str]  # floats within 1e-9 relative: reported, not failures
    recorded_commit: str | None
    commit: str | None
    seconds: float

    @property
    def verdict_matches(self) -> bool:
        return self.verdict is self.recorded_verdict

    @property
    def evidence_compared(self) -> bool:
        return self.device is self.recorded_device

    @property
    def evidence_matches(self) -> bool:
        return self.evidence_compared and not self.differences

    @property
    def matches(self) -> bool:
        return self.verdict_matches and (self.evidence_matches or not self.evidence_compared)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "recorded_verdict": self.recorded_verdict.value, "verdict": self.verdict.value,
                "verdict_matches": self.verdict_matches, "evidence_compared": self.evidence_compared,
                "evidence_matches": self.evidence_matches, "differences": self.differences,
                "rounding_differences": self.rounding_differences, "recorded_device": self.recorded_device.value,
                "device": self.device.value, "recorded_commit": self.recorded_commit, "commit": self.commit,
                "seconds": self.seconds}


def _flatten(value: Any, path: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        flat = {}
        for key, item in value.items():
            flat.update(_flatten(item, f"{path}.{key}" if path else str(key)))
        return flat or {path: {}}
    if isinstance(value, list):
        flat = {}
        for index, item in enumerate(value):
            flat.update(_flatten(item, f"{path}[{index}]"))
        return flat or {path: []}
    return {path: value}


def _close(a: Any, b: Any) -> bool:
    return (isinstance(a, float) and isinstance(b, float) and math.isfinite(a) and math.isfinite(b)
            and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300))


def evidence_differences(recorded: list[dict], rerun: list[dict]) -> tuple[list[str], list[str]]:
    """(differences, last-bit float differences) between two evidence lists, by JSON path.
    Floats within 1e-9 relative are reported apart: another BLAS build may round so."""
    old, new = _flatten(recorded), _flatten(rerun)
    differences, rounding = [], []
    for path in sorted(set(old) | set(new)):
        if path not in new:
            differences.append(f"{path}: recorded {old[path]!r}, missing in the re-run")
        elif path not in old:
            differences.append(f"{path}: not in the record, re-run has {new[path]!r}")
        elif old[path] != new[path]:
            (rounding if _close(old[path], new[path]) else differences).append(
                f"{path}: recorded {old[path]!r}, re-run {new[path]!r}")
    return differences, rounding


def reproduce(record: dict, claim: Claim, device: Device) -> Reproduction:
    """Re-run ``record``'s claim (``claim``, resolved by the caller) at its profile and seed on
    ``device``; compare the verdict, and the evidence when the device is the record's."""
    run = record["run"]
    result = run_claim(claim, Context(run["profile"], run["seed"], device))
    rerun_evidence = json.loads(json.dumps(result.to_json()["evidence"], ensure_ascii=False))
    recorded_device = Device(run["device"])
    same_device = result.context.device is recorded_device
    differences, rounding = evidence_differences(record["evidence"], rerun_evidence) if same_device else ([], [])
    return Reproduction(
        id=record["claim"]["id"],
        recorded_verdict=Verdict(record["verdict"]),
        verdict=result.verdict,
        recorded_device=recorded_device,
        device=result.context.device,
        differences=differences,
        rounding_differences=rounding,
        recorded_commit=record["environment"]["git_commit"],
        commit=environment.describe(result.context)["git_commit"],
        seconds=round(result.seconds, 3),
    )
