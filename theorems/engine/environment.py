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


def _git_commit() -> str:
    source = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=source, capture_output=True, text=True, timeout=10,
                                check=False)
        if commit.returncode != 0:
            return "unknown (not a git checkout)"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=source,
                               capture_output=True, text=True, timeout=10, check=False)
        return commit.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")
    except (OSError, subprocess.TimeoutExpired):
        return "unknown (git unavailable)"


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
