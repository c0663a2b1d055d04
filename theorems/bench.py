"""Benchmarks, each a ratio against a baseline measured in the same run; ``benchmark_all``
collects them for the report (``bench.json``, ``bench.md``).

Certificate: the exact modular certificate against flint and float64 LU on the same matrix.
All three start from the same Khatri–Rao product A ⊙ B of integer points (built once, not
timed). The certificate is the modular LU engine's determinant modulo its prime
(``theorems.maths.modular_lu``: the numpy PLUQ on CPU, the torch Schur recursion on CUDA),
from the int64 matrix to the residue. flint computes the same residue on CPU (conversion to
nmod_mat plus its determinant) and must agree. The baseline is float64 LU of the same
matrix: LAPACK (scipy.linalg.lu_factor) on CPU, cuSOLVER (torch.linalg.lu_factor) on CUDA,
the matrix already in place. The ratio is certificate time / LU time, measured in one run.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.linalg

from .engine import resources, settings
from .engine.context import Context
from .engine.vocabulary import Device
from .errors import SettingError, UsageError
from .maths import exact, modular_lu
from .maths.khatri_rao import CERTIFICATE_BYTES_PER_ENTRY, khatri_rao
from .report.benchmarks import render_benchmarks_markdown


def khatri_rao_point(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    """A ⊙ B for A ∈ Z^{n×nm}, B ∈ Z^{m×nm} drawn from the evaluation set (exact in int64)."""
    a = exact.random_points(rng, (n, n * m))
    b = exact.random_points(rng, (m, n * m))
    return khatri_rao(a, b)


def _float_lu_seconds(matrix: np.ndarray, device: Device) -> float:
    if device == Device.CPU:
        floating = matrix.astype(np.float64)
        started = time.perf_counter()
        scipy.linalg.lu_factor(floating, overwrite_a=True, check_finite=False)
        return time.perf_counter() - started
    import torch

    floating = torch.as_tensor(matrix.astype(np.float64), device=device)
    torch.linalg.lu_factor(floating)  # warm-up: cuSOLVER's workspace and kernels
    torch.cuda.synchronize()
    started = time.perf_counter()
    torch.linalg.lu_factor(floating)
    torch.cuda.synchronize()
    return time.perf_counter() - started


def benchmark_certificate(size: int, seed: int, device: Device = Device.CPU) -> dict:
    side = math.isqrt(size) if isinstance(size, int) and size >= 4 else 0
    if side * side != size:
        raise UsageError(f"benchmark size must be a perfect square n·n ≥ 4 (n = m), got {size}")
    needed, available = CERTIFICATE_BYTES_PER_ENTRY * size**2, resources.available_memory_bytes(Device.CPU)
    if needed > available:  # checked before allocating: numpy's MemoryError is a traceback
        raise UsageError(f"benchmark size {size} needs about {needed / 2**30:.1f} GiB of memory; "
                         f"{available / 2**30:.1f} GiB are available")
    device = settings.validate_device(device)
    if device is Device.AUTO:
        raise SettingError("the benchmark runs on a resolved device (cpu or cuda), not auto")
    rng = Context("ci", seed, Device.CPU, "bench", "certificate").rng(size)
    matrix = khatri_rao_point(rng, side, side)
    prime = modular_lu.PRIME

    if device is Device.CUDA:
        modular_lu.det_mod(matrix[:64, :64], prime, device=device)  # warm-up: kernels, inverse table
    started = time.perf_counter()
    residue = modular_lu.det_mod(matrix, prime, device=None if device is Device.CPU else device)
    if device is Device.CUDA:
        import torch

        torch.cuda.synchronize()
    certificate_s = time.perf_counter() - started

    started = time.perf_counter()
    flint_residue = int(exact.nmod_matrix(matrix, prime).det())
    flint_s = time.perf_counter() - started

    lu_s = _float_lu_seconds(matrix, device)
    return {
        "size": size,
        "device": device,
        "prime": prime,
        "det_mod_p": residue,
        "det_mod_p_nonzero": residue != 0,
        "flint_agrees": flint_residue == residue,
        "certificate_s": certificate_s,
        "flint_s": flint_s,
        "lu_s": lu_s,
        "ratio": certificate_s / lu_s,
        "flint_ratio": flint_s / lu_s,
    }


def benchmark_construction(d: int, seed: int, method: str = "wide") -> dict:
    """Time ``build_source`` for a one-layer width-d target (source width d² for "wide") on
    the CPU, the share spent in the linear solves (Khatri–Rao systems, their condition
    estimates, the shift solves), and the equivalence error on 256 points of the unit ball."""
    import torch
    from torch import nn

    from .constructions import build_source
    from .maths.construction import SolveLog

    if d < 1:
        raise UsageError(f"construction benchmark width must be ≥ 1, got {d}")
    generator = torch.Generator().manual_seed(seed)
    target = nn.Sequential(nn.Linear(d, d, dtype=torch.float64), nn.ReLU(), nn.Linear(d, d, dtype=torch.float64)).eval()
    with torch.no_grad():
        for parameter in target.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator, dtype=torch.float64) / d ** 0.5)
    log = SolveLog()
    started = time.perf_counter()
    source = build_source(target, method, seed=seed, log=log)
    total_s = time.perf_counter() - started
    x = torch.randn(256, d, generator=generator, dtype=torch.float64)
    x = x / x.norm(dim=1, keepdim=True) * torch.rand(256, 1, generator=generator, dtype=torch.float64)
    with torch.no_grad():
        error = float((source(x) - target(x)).abs().max())
    return {"d": d, "method": method, "source_width": d * d, "solves": log.solves, "largest_system": log.largest,
            "worst_condition": log.worst_condition, "total_s": total_s, "solve_s": log.seconds,
            "solve_share": log.seconds / total_s, "max_abs_error": error}


def benchmark_all(seed: int, device: str, sizes: list[int], dims: list[int], progress: bool = False) -> dict:
    """Every benchmark of the suite, each a ratio against a baseline measured in the same
    run: the certificate against float64 LU, the chains against batched matmul, and the
    constructions' share of time in linear solves, with the run's environment."""
    from tqdm import tqdm

    from .engine import environment
    from .maths.bn_chain import benchmark_chain

    steps = [("certificate", size) for size in sizes] + [("chain", None)] + [("construction", d) for d in dims]
    results: dict = {"certificate": [], "chain": None, "construction": []}
    for name, size in tqdm(steps, desc="benchmarks", disable=not progress):
        if name == "certificate":
            results["certificate"].append(benchmark_certificate(size, seed=seed, device=device))
        elif name == "chain":
            results["chain"] = benchmark_chain(device=device)
        else:
            results["construction"].append(benchmark_construction(size, seed=seed))
    return {"seed": seed, "device": device, **results,
            "environment": environment.describe(Context("ci", seed, device))}


def write_benchmarks(bench: dict, out: Path) -> Path:
    """Write bench.json and bench.md into ``out`` atomically (a later ``theorems report``
    into the same folder includes them)."""
    out.mkdir(parents=True, exist_ok=True)
    files = (("bench.json", json.dumps(bench, indent=1) + "\n"), ("bench.md", render_benchmarks_markdown(bench)))
    for name, text in files:
        with tempfile.NamedTemporaryFile("w", dir=out, prefix=f".{name}-", delete=False, encoding="utf-8") as staged:
            staged.write(text)
        os.replace(staged.name, out / name)
    return out / "bench.json"
