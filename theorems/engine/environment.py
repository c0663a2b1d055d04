"""What a run needs to record to be reproducible: seed, profile (the sizes and search
budgets), device, versions, BLAS, machine, commit and command.

The same seed, profile, device, commit and releases give identical evidence; the verdicts
are meant to be the same for any seed, device and release inside the tested range (README,
"Reproducibility").
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from ..lazy import torch
from .context import Context
from .settings import HYPOTHESIS_EXAMPLES
from .vocabulary import Device

PACKAGES = ("theorems", "numpy", "scipy", "sympy", "mpmath", "hypothesis", "python-flint", "torch", "matplotlib",
            "tqdm")


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git(folder: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *arguments], cwd=folder, capture_output=True, text=True, timeout=10, check=False)


# What importing code leaves beside it: never a change to the code.
_COMPILED = (".pyc", ".pyo")


def git_state(folder: Path, untracked: Path | None = None) -> tuple[str | None, bool | None, str]:
    """The commit of the git checkout holding ``folder``, whether its tracked files (and the
    untracked ones under ``untracked``, the code a run imported) differ from it, and in words
    ("unknown (not a git checkout)" where there is no commit to name: then both are None)."""
    try:
        commit = _git(folder, "rev-parse", "HEAD")
        if commit.returncode != 0:
            return None, None, "unknown (not a git checkout)"
        changed = _git(folder, "status", "--porcelain", "--untracked-files=no").stdout.strip()
        if untracked is not None and not changed:
            new = _git(folder, "status", "--porcelain", "--untracked-files=all", "--", str(untracked)).stdout
            changed = any(not line.endswith(_COMPILED) for line in new.splitlines())
    except (OSError, subprocess.TimeoutExpired):
        return None, None, "unknown (git unavailable)"
    sha = commit.stdout.strip()
    return sha, bool(changed), sha + (" (with uncommitted changes)" if changed else "")


def _git_commit() -> str:
    return git_state(Path(__file__).resolve().parent.parent)[2]


def _distribution(top_level: str) -> tuple[str | None, str | None]:
    """The installed distribution that provides the import package ``top_level`` and its
    version; (None, None) when none does (a project run from its own folder)."""
    names = metadata.packages_distributions().get(top_level) or []
    for name in names:
        try:
            return name, metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None, None


def imported_from(top_level: str) -> list[Path]:
    """The folders of the imported package ``top_level`` (a namespace package may have several),
    or its file when it is a module; none when it is not imported."""
    imported = sys.modules.get(top_level)
    folders = list(getattr(imported, "__path__", []))
    if folders:
        return [Path(folder).resolve() for folder in folders]
    file = getattr(imported, "__file__", None)
    return [Path(file).resolve()] if file else []


@functools.cache
def claim_package(module: str) -> dict:
    """Where the claims of ``module`` (a ``--package``, already imported) come from: the
    distribution and version that provide it (None when not installed) and the commit of
    the checkout it is imported from, with whether its tree differs from that commit (None
    outside git). Recorded beside the suite's own commit: another project's claims are that
    project's code, which the suite's commit does not pin."""
    top_level = module.split(".", 1)[0]
    distribution, version = _distribution(top_level)
    source = next(iter(imported_from(top_level)), None)
    commit, dirty = None, None
    if source is not None:
        commit, dirty, _ = git_state(source if source.is_dir() else source.parent, untracked=source)
    return {"module": module, "distribution": distribution, "version": version, "commit": commit, "dirty": dirty}


def _gpu(device: Device) -> dict:
    """The GPU and the CUDA runtime torch used: CUDA's random streams differ from the CPU's."""
    if device != Device.CUDA:
        return {"name": "none used"}
    return {"name": torch.cuda.get_device_name(0), "cuda": torch.version.cuda,
            "capability": ".".join(map(str, torch.cuda.get_device_capability(0)))}


def _blas() -> dict:
    """The BLAS numpy and scipy were built with: float results may differ in the last bits
    between BLAS builds (evidence rounds them; verdicts do not depend on them)."""
    import numpy
    import scipy

    def name(config: dict) -> str:
        blas = config.get("Build Dependencies", {}).get("blas", {})
        return f"{blas.get('name', 'unknown')} {blas.get('version', '')}".strip()

    return {"numpy": name(numpy.show_config(mode="dicts")), "scipy": name(scipy.show_config(mode="dicts"))}


@functools.cache
def machine(device: Device) -> dict:
    """The machine and software this process runs claims with on ``device``: recorded for each
    claim by the process that ran it (a worker of a cluster may be another machine)."""
    return {
        "host": platform.node(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "gpu": _gpu(device),
        "blas": _blas(),
        "packages": {name: _version(name) for name in PACKAGES},
        "git_commit": _git_commit(),
    }


def _package_files(top_level: str) -> dict[str, Path] | None:
    """The .py files of the package (or module) ``top_level`` where this process imports it from,
    as ``top_level/path`` -> file, found without importing it; None when it cannot be imported."""
    try:
        spec = importlib.util.find_spec(top_level)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if not spec.submodule_search_locations:
        return {Path(spec.origin).name: Path(spec.origin)} if spec.origin and spec.origin.endswith(".py") else {}
    return {f"{top_level}/{file.relative_to(folder).as_posix()}": file
            for folder in map(Path, spec.submodule_search_locations) for file in folder.rglob("*.py")
            if "__pycache__" not in file.parts}


NOT_IMPORTABLE = "not importable"


def software_files(packages: tuple[str, ...] = ()) -> dict[str, str]:
    """Each .py file of the suite and of the claim packages ``packages`` (``--package``), tracked by
    git or not, as ``package/path`` -> the SHA-256 of its bytes: what a run imports, which a commit
    and a dirty flag do not pin (an untracked module is imported all the same). A package that
    cannot be imported here is listed as ``package`` -> ``NOT_IMPORTABLE``."""
    files = {}
    for top_level in dict.fromkeys(["theorems", *(package.split(".", 1)[0] for package in packages)]):
        found = _package_files(top_level)
        if found is None:
            files[top_level] = NOT_IMPORTABLE
        else:
            files.update((name, hashlib.sha256(file.read_bytes()).hexdigest()) for name, file in found.items())
    return dict(sorted(files.items()))


def digest_of(files: dict[str, str]) -> str:
    """One SHA-256 for ``software_files``: equal digests, equal code."""
    return hashlib.sha256("".join(f"{name} {sha}\n" for name, sha in files.items()).encode()).hexdigest()


@functools.cache
def software_digest(packages: tuple[str, ...] = ()) -> str:
    """The digest of the code this process runs claims of ``packages`` with (read once: recorded
    with each claim, provenance as the commit is, never compared as evidence)."""
    return digest_of(software_files(packages))


def software(packages: tuple[str, ...]) -> dict:
    """What two processes must share for one run's verdicts to be reproducible together: Python,
    the dependencies' versions and every file of the code (a worker that differs from the client
    is refused, ``engine.cluster``)."""
    return {"python": sys.version.split()[0], "packages": {name: _version(name) for name in PACKAGES},
            "files": software_files(packages)}


def software_differences(mine: dict, theirs: dict) -> list[str]:
    """What differs between two ``software`` records, one phrase each ("numpy 2.3.1 here, 2.2.0
    there"), the files by the first that differs."""
    differences = [f"python {mine['python']} here, {theirs['python']} there"] if mine["python"] != theirs["python"] \
        else []
    ours, others = mine["packages"], theirs["packages"]
    differences += [f"{name} {ours.get(name)} here, {others.get(name)} there"
                    for name in sorted(set(ours) | set(others)) if ours.get(name) != others.get(name)]
    ours, others = mine["files"], theirs["files"]
    changed = [name for name in sorted(set(ours) | set(others)) if ours.get(name) != others.get(name)]
    if changed:
        first = changed[0]
        how = ("not importable here" if ours.get(first) == NOT_IMPORTABLE
               else "not importable there" if others.get(first) == NOT_IMPORTABLE
               else "only there" if first not in ours else "only here" if first not in others else "edited")
        more = f", and {len(changed) - 1} more file{'s' * (len(changed) > 2)}" if len(changed) > 1 else ""
        differences.append(f"{first} {how}{more}")
    return differences


def describe(context: Context, packages: tuple[str, ...] = ()) -> dict:
    """Everything needed to rerun ``context``'s run (of the claim packages ``packages``) and get
    the same evidence."""
    return {
        "profile": context.profile,
        "seed": context.seed,
        "device": context.device.value,
        "search_budget": {"hypothesis_examples": HYPOTHESIS_EXAMPLES[context.profile],
                          "note": "examples per randomized check; each check's evidence records its sizes and trials"},
        "rerun": f"--profile {context.profile} --seed {context.seed} --device {context.device}",
        **machine(context.device),
        "software_digest": software_digest(tuple(packages)),
        "command": " ".join(["theorems", *sys.argv[1:]]) if sys.argv else "",
    }
