"""What a run needs to record to be reproducible: seed, profile (the sizes and search
budgets), device, versions, BLAS, machine, commit and command.

The same seed, profile, device, commit and releases give identical evidence; the verdicts
are meant to be the same for any seed, device and release inside the tested range (README,
"Reproducibility").
"""

from __future__ import annotations

import functools
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


def _source(top_level: str) -> Path | None:
    """The folder of the imported package ``top_level`` (a namespace package's first), or its
    file when it is a module."""
    imported = sys.modules.get(top_level)
    folders = list(getattr(imported, "__path__", []))
    if folders:
        return Path(folders[0]).resolve()
    file = getattr(imported, "__file__", None)
    return Path(file).resolve() if file else None


@functools.cache
def claim_package(module: str) -> dict:
    """Where the claims of ``module`` (a ``--package``, already imported) come from: the
    distribution and version that provide it (None when not installed) and the commit of
    the checkout it is imported from, with whether its tree differs from that commit (None
    outside git). Recorded beside the suite's own commit: another project's claims are that
    project's code, which the suite's commit does not pin."""
    top_level = module.split(".", 1)[0]
    distribution, version = _distribution(top_level)
    source = _source(top_level)
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


# What two processes must share for one run's verdicts to be reproducible together: a worker
# that differs from the client in one of these is refused (``engine.cluster``).
SOFTWARE = ("python", "packages", "git_commit")


def software_differences(mine: dict, theirs: dict) -> list[str]:
    """What differs between two ``machine`` records in ``SOFTWARE``, one phrase each
    ("numpy 2.3.1 here, 2.2.0 there")."""
    differences = []
    for key in SOFTWARE:
        if key == "packages":
            ours, others = mine.get(key, {}), theirs.get(key, {})
            differences += [f"{name} {ours.get(name)} here, {others.get(name)} there"
                            for name in sorted(set(ours) | set(others)) if ours.get(name) != others.get(name)]
        elif mine.get(key) != theirs.get(key):
            differences.append(f"{key.replace('_', ' ')} {mine.get(key)} here, {theirs.get(key)} there")
    return differences


def describe(context: Context) -> dict:
    """Everything needed to rerun ``context``'s run and get the same evidence."""
    return {
        "profile": context.profile,
        "seed": context.seed,
        "device": context.device.value,
        "search_budget": {"hypothesis_examples": HYPOTHESIS_EXAMPLES[context.profile],
                          "note": "examples per randomized check; each check's evidence records its sizes and trials"},
        "rerun": f"--profile {context.profile} --seed {context.seed} --device {context.device}",
        **machine(context.device),
        "command": " ".join(["theorems", *sys.argv[1:]]) if sys.argv else "",
    }
