"""Reproducibility records: one self-contained JSON (and Markdown) file per claim run.

A record holds what a reader needs to judge and re-run one claim without the rest of the
report: the claim and its statement, the profile, seed and device, the sizes and dtypes
its checks name, versions and commit, timings, peak memory and sizes capped for lack of it,
the verdict with every check's evidence, and the command that re-runs it.
``reproduce`` re-runs a record and says what differs. Evidence is compared only on the
device the record was made on: CUDA draws other random streams than the CPU, so there only
the verdict has to match.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from . import environment
from .context import Context
from .runner import ClaimResult

RECORD_FORMAT = "theorems reproducibility record, version 1"

# Evidence keys that name an instance's size or the amount of sampling, collected into the
# record's "sizes" so a reader sees them without reading every check's evidence.
_SIZE_WORDS = ("size", "sizes", "shape", "dim", "dims", "width", "widths", "depth", "depths", "trials", "samples",
               "chains", "examples", "n", "m", "d", "k", "l", "r", "rank", "batch", "layers", "grid")


def _size_key(key: str) -> bool:
    words = key.lower().replace("-", "_").split("_")
    return any(word in _SIZE_WORDS for word in words)


def _collect(evidence: list[dict], wanted) -> dict[str, Any]:
    found = {}
    for check in evidence:
        values = {key: value for key, value in (check.get("evidence") or {}).items() if wanted(key)}
        if values:
            found[check["check"]] = values
    return found


def build_record(result: ClaimResult, run_environment: dict | None = None, folder: str = "records") -> dict[str, Any]:
    """The record of ``result``; ``folder`` is where it will be read from (for its command)."""
    claim = result.to_json()
    context = result.context
    env = run_environment or environment.describe(context)
    return {
        "format": RECORD_FORMAT,
        "claim": {key: claim[key] for key in ("id", "paper", "label", "statement", "source", "hypotheses",
                                              "variant_of", "depends_on", "notes")},
        "run": {
            "profile": context.profile,
            "seed": context.seed,
            "seeds_note": "each check draws from a generator seeded by (seed, claim id, check name, labels)",
            "device": context.device,
            "device_name": (env.get("gpu") or {}).get("name") if context.device == "cuda" else env.get("cpu"),
            "sizes": _collect(claim["evidence"], _size_key),
            "dtypes": _collect(claim["evidence"], lambda key: "dtype" in key.lower())
            or "float64 for floating-point checks; exact checks use integers, residues or rationals",
            "search_budget": env.get("search_budget"),
        },
        "environment": {key: env[key] for key in ("python", "platform", "cpu", "cpu_count", "gpu", "blas", "packages",
                                                  "git_commit") if key in env},
        "timing_s": claim["timing_s"],
        "resources": claim["resources"],
        "verdict": claim["verdict"],
        "evidence": claim["evidence"],
        **({"erratum": claim["erratum"]} if "erratum" in claim else {}),
        "reproduce": {
            "command": f"theorems reproduce {folder}/{record_filename(claim['id'])}",
            "equivalent": (f"theorems check {claim['id']} --profile {context.profile} --seed {context.seed} "
                           f"--device {context.device} --json"),
            "commit": env.get("git_commit"),
        },
    }


def record_filename(claim_id: str, suffix: str = ".json") -> str:
    return claim_id + suffix


def render_record_markdown(record: dict) -> str:
    claim, run = record["claim"], record["run"]
    resources = record["resources"]
    peak = resources.get("peak_resident_bytes")
    lines = [
        f"# {claim['id']} — {claim['label']}: **{record['verdict']}**",
        "",
        f"> {claim['statement']}",
        "",
        f"Source: {claim['source']}.",
        "",
        "| | |",
        "|---|---|",
        f"| profile, seed | {run['profile']}, {run['seed']} |",
        f"| device | {run['device']} ({run['device_name']}) |",
        f"| commit | `{record['environment']['git_commit']}` |",
        f"| time | {record['timing_s']['total']:.1f} s |",
        f"| peak memory | {peak / 2**20:.0f} MiB resident (since {resources.get('peak_resident_since')}) |"
        if peak is not None else "| peak memory | not measured on this platform |",
    ]
    if "peak_cuda_allocated_bytes" in resources:
        lines.append(f"| peak CUDA allocation | {resources['peak_cuda_allocated_bytes'] / 2**20:.0f} MiB |")
    caps = resources.get("capped") or []
    lines.append("| capped sizes | " + ("; ".join(f"{c['parameter']} {c['wanted']} → {c['used']} ({c['where']})"
                                                for c in caps) or "none") + " |")
    packages = record["environment"].get("packages", {})
    lines.append("| versions | " + ", ".join(f"{name} {version}" for name, version in packages.items()) + " |")
    lines += ["", "Re-run it:", "", "```sh", record["reproduce"]["command"], "# or", record["reproduce"]["equivalent"],
              "```", "", "## Checks", "", "| check | kind | verdict | summary |", "|---|---|---|---|"]
    for check in record["evidence"]:
        lines.append(f"| {check['check']} | {check['kind']} | {check['verdict']} | {check['summary'].replace('|', '/')} |")
    lines += ["", "## Sizes", "", "```json", json.dumps(run["sizes"], indent=1, ensure_ascii=False), "```"]
    if "erratum" in record:
        erratum = record["erratum"]
        lines += ["", "## Erratum", "", f"*{erratum['severity']}*: {erratum['reason']}"]
    lines += ["", "The JSON record beside this file has every check's full evidence.", ""]
    return "\n".join(lines)


def write_records(results: list[ClaimResult], run_environment: dict, folder: Path, final_folder: Path) -> None:
    """Write ``<id>.json`` and ``<id>.md`` for every result into ``folder``, a staging folder
    that the report moves to ``final_folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for result in results:
        record = build_record(result, run_environment, final_folder.as_posix())
        (folder / record_filename(result.claim.id)).write_text(
            json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        (folder / record_filename(result.claim.id, ".md")).write_text(render_record_markdown(record), encoding="utf-8")


def load_record(path: Path) -> dict:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ValueError(f"cannot read record {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise ValueError(f"{path} is not JSON: {error}") from None
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ValueError(f"{path} is not a theorems reproducibility record (expected format {RECORD_FORMAT!r})")
    return record


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


def reproduce(record: dict, claim, device: str) -> dict[str, Any]:
    """Re-run ``record``'s claim (``claim``, resolved by the caller) at its profile and seed on
    ``device``; compare the verdict, and the evidence when the device is the record's."""
    from .runner import run_claim

    run = record["run"]
    result = run_claim(claim, Context(run["profile"], run["seed"], device))
    rerun_evidence = json.loads(json.dumps(result.to_json()["evidence"], ensure_ascii=False))
    same_device = device == run["device"]
    differences, rounding = evidence_differences(record["evidence"], rerun_evidence) if same_device else ([], [])
    commit_now = environment.describe(result.context)["git_commit"]
    return {
        "id": record["claim"]["id"],
        "recorded_verdict": record["verdict"],
        "verdict": result.verdict.value,
        "verdict_matches": record["verdict"] == result.verdict.value,
        "evidence_compared": same_device,
        "evidence_matches": same_device and not differences,
        "differences": differences,
        "rounding_differences": rounding,
        "recorded_device": run["device"],
        "device": device,
        "recorded_commit": record["environment"]["git_commit"],
        "commit": commit_now,
        "seconds": round(result.seconds, 3),
    }
