"""What a run needs to record to be reproducible: seed, profile (the sizes and search
budgets), device, versions, BLAS, machine, commit and command.

The same seed, profile, device, commit and releases give identical evidence; the verdicts
are meant to be the same for any seed, device and release inside the tested range (README,
"Reproducibility").
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

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
    import torch

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


def describe(context: Context) -> dict:
    """Everything needed to rerun ``context``'s run and get the same evidence."""
    return {
        "profile": context.profile,
        "seed": context.seed,
        "device": context.device.value,
        "search_budget": {"hypothesis_examples": HYPOTHESIS_EXAMPLES[context.profile],
                          "note": "examples per randomized check; each check's evidence records its sizes and trials"},
        "rerun": f"--profile {context.profile} --seed {context.seed} --device {context.device}",
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "gpu": _gpu(context.device),
        "blas": _blas(),
        "packages": {name: _version(name) for name in PACKAGES},
        "git_commit": _git_commit(),
        "command": " ".join(["theorems", *sys.argv[1:]]) if sys.argv else "",
    }
