"""Reproducibility records: one self-contained JSON (and Markdown) file per claim run.

A record holds what a reader needs to judge and re-run one claim without the rest of the
report: the claim, its statement and the paper it is from, the profile, seed and device, the sizes and dtypes
its checks name, versions and commit, timings, peak memory and sizes capped for lack of it,
the verdict with every check's evidence, the generated mutants' score where they ran
(``report --mutants``), the command that re-runs it and, for another project's claims
(``--package``), that project's version and commit.

Every field is covered by the record's digest (``digest``: sha256 of the canonical JSON of
the others), so that a hand edit of any of them, the scope included, is found before the
re-run: tamper-evident, not forgery-proof (anyone can compute a digest).
``theorems.report.reproduce`` re-runs a record and says what differs.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..engine import environment, settings
from ..engine.papers import papers_json
from ..engine.runner import ClaimResult
from ..engine.vocabulary import Device, Verdict
from ..errors import RecordError, SettingError
from .document import (
    GENERAL_ARGUMENT_LABEL,
    RELIES_ON_LABEL,
    citation_markdown,
    claim_document,
    project_text,
    scope_limit,
    shown_verdict,
)
from .mutants import counts_text, score_text

# version 2: the claim's "scope" and each certified check's; version 3: the digest, and the
# claim packages' provenance
RECORD_FORMAT = "theorems reproducibility record, version 3"
# Read too: written before records carried a digest, so compared field by field only.
FORMATS_WITHOUT_DIGEST = ("theorems reproducibility record, version 2",)
DIGEST = "digest"
DIGEST_COVERS = ("every other field of this record, as JSON with sorted keys and no spaces, UTF-8: "
                 "json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(',', ':'))")

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


def build_record(result: ClaimResult, run_environment: dict | None = None, folder: str = "records",
                 packages: Sequence[str] = ()) -> dict[str, Any]:
    """The record of ``result``; ``folder`` is where it will be read from (for its command),
    ``packages`` the claim packages the claim comes from when not the packaged papers."""
    claim = claim_document(result)
    context = result.context
    # The machine that ran the claim (a cluster's worker), over the run's (the client's).
    env = {**(run_environment or environment.describe(context)), **result.environment}
    package_options = "".join(f" --package {package}" for package in packages)
    return sealed({
        "format": RECORD_FORMAT,
        "claim": {key: claim[key] for key in ("id", "paper", "label", "statement", "source", "hypotheses",
                                              "variant_of", "depends_on", "notes", "general_argument")
                  if key in claim},
        # The paper's title, authors, venue, year and link (None where its package declares none).
        "paper": papers_json([claim["paper"]])[claim["paper"]],
        "run": {
            "profile": context.profile,
            "seed": context.seed,
            "seeds_note": "each check draws from a generator seeded by (seed, claim id, check name, labels)",
            "device": context.device.value,
            "device_name": (env.get("gpu") or {}).get("name") if context.device is Device.CUDA else env.get("cpu"),
            "sizes": _collect(claim["evidence"], _size_key),
            "dtypes": _collect(claim["evidence"], lambda key: "dtype" in key.lower())
            or "float64 for floating-point checks; exact checks use integers, residues or rationals",
            "search_budget": env.get("search_budget"),
        },
        "environment": {key: env[key] for key in ("host", "worker", "python", "platform", "cpu", "cpu_count", "gpu",
                                                  "blas", "packages", "git_commit", "software_digest")
                        if key in env},
        # Another project's claims: its distribution, version and commit, which the suite's do not pin.
        **({"claim_packages": [environment.claim_package(package) for package in packages]} if packages else {}),
        "timing_s": claim["timing_s"],
        "resources": claim["resources"],
        "verdict": claim["verdict"],
        "scope": claim["scope"],
        **({"own_scope": claim["own_scope"]} if "own_scope" in claim else {}),
        "evidence": claim["evidence"],
        **({"erratum": claim["erratum"]} if "erratum" in claim else {}),
        **({"generated_mutants": claim["generated_mutants"]} if "generated_mutants" in claim else {}),
        "reproduce": {
            "command": f"theorems reproduce {folder}/{record_filename(claim['id'])}{package_options}",
            "equivalent": (f"theorems check {claim['id']} --profile {context.profile} --seed {context.seed} "
                           f"--device {context.device}{package_options} --json"),
            "commit": env.get("git_commit"),
        },
    })


def canonical_json(record: dict) -> str:
    """The fields of ``record`` that its digest covers (all but the digest), as ``DIGEST_COVERS`` says."""
    fields = {key: value for key, value in record.items() if key != DIGEST}
    return json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def sealed(record: dict) -> dict:
    """``record`` as it will be read back (JSON: tuples as lists, keys as strings) with its digest."""
    record = json.loads(json.dumps(record, ensure_ascii=False))
    digest = hashlib.sha256(canonical_json(record).encode("utf-8")).hexdigest()
    return {**record, DIGEST: {"sha256": digest, "covers": DIGEST_COVERS}}


class Integrity(StrEnum):
    """Whether a record holds what it was written with, as far as its digest tells."""

    INTACT = "intact"  # its digest covers what it holds
    EDITED = "edited by hand"  # it holds something else than its digest covers, or its digest is gone
    NO_DIGEST = "no digest"  # written before records carried one (FORMATS_WITHOUT_DIGEST)


def integrity(record: dict) -> Integrity:
    if record.get("format") in FORMATS_WITHOUT_DIGEST:
        return Integrity.NO_DIGEST
    digest = record.get(DIGEST)
    recomputed = sealed({key: value for key, value in record.items() if key != DIGEST})[DIGEST]["sha256"]
    return Integrity.INTACT if isinstance(digest, dict) and digest.get("sha256") == recomputed else Integrity.EDITED


def record_packages(record: dict) -> list[str]:
    """The claim packages (``--package``) a record's claim comes from; read from its re-run
    command in a record written before records named them."""
    if "claim_packages" in record:
        return [package["module"] for package in record["claim_packages"]]
    rerun = record.get("reproduce")
    return re.findall(r" --package (\S+)", rerun.get("command") or "") if isinstance(rerun, dict) else []


def record_filename(claim_id: str, suffix: str = ".json") -> str:
    return claim_id + suffix


def render_record_markdown(record: dict) -> str:
    claim, run = record["claim"], record["run"]
    resources = record["resources"]
    peak = resources.get("peak_resident_bytes")
    lines = [
        f"# {claim['id']} — {claim['label']}: **{shown_verdict(record['verdict'], record['scope'])}**",
        "",
        f"> {claim['statement']}",
        "",
        f"Source: {citation_markdown(record['paper'], claim['paper'], claim['source'])}.",
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
    lines += [f"| claims of {package['module']} | {project_text(package)} |"
              for package in record.get("claim_packages", [])]
    lines += ["", "Re-run it:", "", "```sh", record["reproduce"]["command"], "# or", record["reproduce"]["equivalent"],
              "```", "", "## Checks", "", "| check | kind | verdict | summary |", "|---|---|---|---|"]
    for check in record["evidence"]:
        summary = check["summary"].replace("|", "/")
        verdict = shown_verdict(check["verdict"], check.get("scope"))
        lines.append(f"| {check['check']} | {check['kind']} | {verdict} | {summary} |")
    lines += [f"\n{check['check']} {RELIES_ON_LABEL}: " + "; ".join(check["relies_on"]) + "."
              for check in record["evidence"] if check.get("relies_on")]
    limit = scope_limit(record)
    if limit:
        lines += ["", f"Scope: {limit}."]
    if claim.get("general_argument"):
        lines += ["", f"*{GENERAL_ARGUMENT_LABEL}* — {claim['general_argument']}"]
    lines += ["", "## Sizes", "", "```json", json.dumps(run["sizes"], indent=1, ensure_ascii=False), "```"]
    if "erratum" in record:
        erratum = record["erratum"]
        lines += ["", "## Erratum", "", f"*{erratum['severity']}*: {erratum['reason']}"]
    if "generated_mutants" in record:
        mutants = record["generated_mutants"]
        lines += ["", "## Generated mutants", "", f"Score {score_text(mutants)}: {counts_text(mutants)}."]
        lines += [f"- survived ({survivor['object']}, within the certified scope: {survivor['within_scope']}): "
                  f"{survivor['description']}" for survivor in mutants["survivors"]]
    lines += ["", "The JSON record beside this file has every check's full evidence.", ""]
    return "\n".join(lines)


def write_records(results: list[ClaimResult], run_environment: dict, folder: Path, final_folder: Path,
                  packages: Sequence[str] = ()) -> None:
    """Write ``<id>.json`` and ``<id>.md`` for every result into ``folder``, a staging folder
    that the report moves to ``final_folder`` (``packages``: as for ``build_record``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for result in results:
        record = build_record(result, run_environment, final_folder.as_posix(), packages)
        (folder / record_filename(result.claim.id)).write_text(
            json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        (folder / record_filename(result.claim.id, ".md")).write_text(render_record_markdown(record), encoding="utf-8")


def load_record(path: Path) -> dict:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise RecordError(f"cannot read record {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise RecordError(f"{path} is not JSON: {error}") from None
    if not isinstance(record, dict) or record.get("format") not in (RECORD_FORMAT, *FORMATS_WITHOUT_DIGEST):
        raise RecordError(f"{path} is not a theorems reproducibility record (expected format {RECORD_FORMAT!r})")
    _check_fields(record, path)
    return record


def _check_fields(record: dict, path: Path) -> None:
    """The fields ``reproduce`` reads, each validated as the command line validates it."""
    def field(*keys: str):
        value = record
        for key in keys:
            if not isinstance(value, dict) or key not in value:
                raise RecordError(f"{path}: the record has no {'.'.join(keys)}")
            value = value[key]
        return value

    try:
        if not isinstance(field("claim", "id"), str):
            raise SettingError("claim.id is not a claim id")
        settings.validate_profile(field("run", "profile"))
        settings.validate_seed(field("run", "seed"))
        if settings.validate_device(field("run", "device")) is Device.AUTO:
            raise SettingError("run.device must be the device it ran on (cpu or cuda), not auto")
        if field("verdict") not in list(Verdict):
            raise SettingError(f"unknown verdict {field('verdict')!r}")
        if (field("verdict") == Verdict.CERTIFIED) != isinstance(field("scope"), str):
            raise SettingError("scope must be a string for a certified claim and null otherwise, "
                               f"got {field('scope')!r}")
    except SettingError as error:
        raise RecordError(f"{path}: {error}") from None
    if not isinstance(field("evidence"), list):
        raise RecordError(f"{path}: evidence is not a list of checks")
    field("environment", "git_commit")
    packages = record.get("claim_packages", [])
    if not isinstance(packages, list) or not all(isinstance(package, dict) and isinstance(package.get("module"), str)
                                                 for package in packages):
        raise RecordError(f"{path}: claim_packages is not a list of packages, each with its module")
