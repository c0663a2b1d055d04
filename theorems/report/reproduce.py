"""Re-run a reproducibility record and say what differs.

First the record's digest (``records.integrity``): a record that holds other than what it
was written with was edited by hand, and never matches; the re-run then names the first field
where the two differ. A record written before records carried a digest is compared field by
field only, and the answer says so.

A record is reproduced only by the claim it records: another statement, hypotheses, location
in the paper (``source``) or paper (its link: another paper, or another version of it) is a
difference, and nothing is re-run. The fields a re-run must give again (``REPRODUCED``: the
scope, each check's verdict, scope, summary and evidence, the sizes) are compared only on the
device the record was made on (CUDA draws other random streams than the CPU): re-run anywhere
else, only the verdict is compared, and the answer says so (``Agreement.NOT_COMPARED``), never
"matches". Floats that differ below 1e-9 relative are reported apart from real differences:
another BLAS build may round so. Evidence under ``measured`` (``verdicts.MEASURED``: a run's
seconds and peak memory) is never compared.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..engine import environment
from ..engine.context import Context
from ..engine.papers import paper
from ..engine.parallel import run_claims
from ..engine.registry import Claim
from ..engine.verdicts import MEASURED
from ..engine.vocabulary import Device, Verdict
from .records import Integrity, build_record, integrity

# The parts of a record's claim that say which claim it is: a record of another version of
# the claim (another statement, hypotheses or location in the paper, or another paper, named by
# its link) reproduces nothing about this one. The paper's other metadata (a corrected title) does
# not change the claim.
CLAIM_IDENTITY = ("id", "statement", "hypotheses", "source", "paper link")
# The fields a re-run on the record's device gives again (the verdict: on any device), in the order
# a difference is named.
REPRODUCED = ("scope", "own_scope", "evidence", "run.sizes", "run.dtypes")
# What the installed claim and paper describe: a later version may reword them (a corrected title),
# so they are compared with a re-run only to name where a record edited by hand was edited.
DESCRIBED = ("claim", "paper", "erratum")


class Agreement(StrEnum):
    """How a re-run compares with its record."""

    MATCHES = "matches"  # same claim, same verdict, same evidence on the record's device
    DIFFERS = "differs"  # edited by hand, or another claim text, verdict or evidence
    NOT_COMPARED = "evidence not compared"  # same claim and verdict, re-run on another device


@dataclass(frozen=True)
class Reproduction:
    """What re-running a record found. ``agreement`` is the one answer a gate needs."""

    id: str
    claim_differences: list[str]  # the record's claim against the installed one; non-empty: not re-run
    recorded_verdict: Verdict
    verdict: Verdict | None  # None when the claim differs (nothing was re-run)
    recorded_device: Device
    device: Device
    differences: list[str]  # paths of REPRODUCED fields that differ (empty when not compared)
    rounding_differences: list[str]  # floats within 1e-9 relative: reported, not failures
    recorded_commit: str | None
    commit: str | None
    seconds: float
    integrity: Integrity
    # A record edited by hand: the first field where it differs from the re-run (None: in none
    # that a re-run gives again, such as timings, resources or the environment).
    edited_field: str | None = None
    # Another project's claims: "<module>: recorded at commit A, re-run at B" where they differ.
    package_commits: list[str] = field(default_factory=list)

    @property
    def verdict_matches(self) -> bool:
        return self.verdict is self.recorded_verdict

    @property
    def evidence_compared(self) -> bool:
        return self.verdict is not None and self.device is self.recorded_device

    @property
    def evidence_matches(self) -> bool:
        return self.evidence_compared and not self.differences

    @property
    def agreement(self) -> Agreement:
        if (self.integrity is Integrity.EDITED or self.claim_differences or not self.verdict_matches
                or (self.evidence_compared and self.differences)):
            return Agreement.DIFFERS
        return Agreement.MATCHES if self.evidence_compared else Agreement.NOT_COMPARED

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "agreement": self.agreement.value, "integrity": self.integrity.value,
                "edited_field": self.edited_field, "claim_differences": self.claim_differences,
                "recorded_verdict": self.recorded_verdict.value,
                "verdict": None if self.verdict is None else self.verdict.value,
                "verdict_matches": self.verdict_matches, "evidence_compared": self.evidence_compared,
                "evidence_matches": self.evidence_matches, "differences": self.differences,
                "rounding_differences": self.rounding_differences, "recorded_device": self.recorded_device.value,
                "device": self.device.value, "recorded_commit": self.recorded_commit, "commit": self.commit,
                "package_commits": self.package_commits, "seconds": self.seconds}


def json_path_order(path: str) -> list:
    """Sort key for JSON paths with list indices in numeric order: [2] before [10]."""
    return [(0, int(token), "") if token.isdigit() else (1, 0, token) for token in re.split(r"(\d+)", path)]


def _flatten(value: Any, path: str = "") -> dict[str, Any]:
    """JSON paths to leaves, without the run's own measurements (``verdicts.MEASURED``)."""
    if isinstance(value, dict):
        flat = {}
        for key, item in value.items():
            if key == MEASURED:
                continue
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


def evidence_differences(recorded: Any, rerun: Any, prefix: str = "") -> tuple[list[str], list[str]]:
    """(differences, last-bit float differences) between two JSON values (evidence lists), by
    JSON path under ``prefix``. Floats within 1e-9 relative are reported apart: another BLAS
    build may round so."""
    old, new = _flatten(recorded, prefix), _flatten(rerun, prefix)
    differences, rounding = [], []
    for path in sorted(set(old) | set(new), key=json_path_order):
        if path not in new:
            differences.append(f"{path}: recorded {old[path]!r}, missing in the re-run")
        elif path not in old:
            differences.append(f"{path}: not in the record, re-run has {new[path]!r}")
        elif old[path] != new[path]:
            (rounding if _close(old[path], new[path]) else differences).append(
                f"{path}: recorded {old[path]!r}, re-run {new[path]!r}")
    return differences, rounding


def claim_differences(record: dict, claim: Claim) -> list[str]:
    """The identity of the record's claim against the installed one, one line per field."""
    declared = paper(claim.paper)
    recorded = {**record["claim"], "paper link": (record.get("paper") or {}).get("link")}
    installed = {"id": claim.id, "statement": claim.catalog_statement(), "hypotheses": list(claim.hypotheses),
                 "source": claim.source, "paper link": declared.link if declared else None}
    return [f"claim.{key}: recorded {recorded.get(key)!r}, installed {installed[key]!r}"
            for key in CLAIM_IDENTITY if recorded.get(key) != installed[key]]


_ABSENT = object()


def _at(record: dict, dotted: str) -> Any:
    value = record
    for key in dotted.split("."):
        if not isinstance(value, dict) or key not in value:
            return _ABSENT
        value = value[key]
    return value


def field_differences(recorded: dict, rerun: dict, fields: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(differences, last-bit float differences) between two records over ``fields`` (dotted
    paths), field by field in that order, each by JSON path."""
    differences, rounding = [], []
    for name in fields:
        old, new = _at(recorded, name), _at(rerun, name)
        if old is _ABSENT and new is _ABSENT:
            continue
        if old is _ABSENT or new is _ABSENT:
            differences.append(f"{name}: recorded {old!r}, missing in the re-run" if new is _ABSENT
                               else f"{name}: not in the record, re-run has {new!r}")
            continue
        more, close = evidence_differences(old, new, name)
        differences += more
        rounding += close
    return differences, rounding


def reproduce(record: dict, claim: Claim, device: Device, packages: Sequence[str] = ()) -> Reproduction:
    """Re-run ``record``'s claim (``claim``, resolved by the caller from the claim ``packages``,
    default the packaged papers) at its profile and seed on ``device``; compare the verdict,
    and the ``REPRODUCED`` fields when the device is the record's. A record of another version
    of the claim is not re-run: it reproduces nothing about it. A record edited by hand
    (``records.integrity``) never matches: the answer names the first field where it differs
    from the re-run."""
    run = record["run"]
    recorded_device = Device(run["device"])
    identity = claim_differences(record, claim)
    state = integrity(record)
    common = {"id": record["claim"]["id"], "claim_differences": identity, "integrity": state,
              "recorded_verdict": Verdict(record["verdict"]), "recorded_device": recorded_device, "device": device,
              "recorded_commit": record["environment"]["git_commit"]}
    if identity:
        return Reproduction(**common, verdict=None, differences=[], rounding_differences=[], commit=None, seconds=0.0,
                            edited_field=identity[0] if state is Integrity.EDITED else None)
    # With the claims it rests on, as the report ran it: they limit its scope.
    [result] = run_claims([claim], Context(run["profile"], run["seed"], device), packages=packages)
    rerun = build_record(result, packages=packages)
    same_device = result.context.device is recorded_device
    differences, rounding = field_differences(record, rerun, REPRODUCED if same_device else ())
    edited = None
    if state is Integrity.EDITED:
        verdict, _ = field_differences(record, rerun, ("verdict",))
        described, _ = field_differences(record, rerun, DESCRIBED)
        edited = next(iter([*verdict, *differences, *described]), None)
    return Reproduction(**common, verdict=result.verdict, differences=differences, rounding_differences=rounding,
                        commit=environment.describe(result.context)["git_commit"], seconds=round(result.seconds, 3),
                        edited_field=edited,
                        package_commits=_package_commits(record, rerun))


def _package_commits(record: dict, rerun: dict) -> list[str]:
    """Where another project's commit differs between the record and the re-run."""
    now = {package["module"]: package for package in rerun.get("claim_packages", [])}
    lines = []
    for package in record.get("claim_packages", []):
        then, again = package.get("commit"), now.get(package["module"], {}).get("commit")
        if then != again:
            lines.append(f"{package['module']}: recorded at commit {then}, re-run at {again}")
    return lines
