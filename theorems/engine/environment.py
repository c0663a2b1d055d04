"""What a run needs to record to be reproducible: versions, machine, commit, command."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

PACKAGES = ("theorems", "numpy", "scipy", "sympy", "hypothesis", "python-flint", "torch", "matplotlib", "tqdm")


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
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=source, capture_output=True, text=True, timeout=10)
        if commit.returncode != 0:
            return "unknown (not a git checkout)"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=source,
                               capture_output=True, text=True, timeout=10)
        return commit.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")
    except (OSError, subprocess.TimeoutExpired):
        return "unknown (git unavailable)"


def _gpu(device: str) -> str:
    if device != "cuda":
        return "none used"
    import torch

    return torch.cuda.get_device_name(0)


def describe(device: str) -> dict:
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "gpu": _gpu(device),
        "packages": {name: _version(name) for name in PACKAGES},
        "git_commit": _git_commit(),
        "command": " ".join(["theorems", *sys.argv[1:]]) if sys.argv else "",
    }
