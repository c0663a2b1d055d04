"""Benchmarks, each a ratio against a baseline measured in the same run; ``benchmark_all``
collects them for the report (``bench.json``, ``bench.md``).

Certificate: the exact modular certificate against float64 LU of the same matrix, at a given
number of BLAS threads. The matrix is a Khatri–Rao product A ⊙ B of integer points (drawn
once, not timed). The certificate is the modular LU engine's determinant modulo its prime
(``theorems.maths.modular_lu``), timed from the points to the residue: it builds the float64
residues of A ⊙ B column block by column block, then factors them in place, on the CPU or
CUDA. Its peak memory is the process's resident high-water mark above what it held before
(on CUDA, torch's peak allocation), against one float64 copy, 8n² bytes. The baseline is
float64 LU of the same n×n matrix, already in memory: torch.linalg.lu_factor (LAPACK getrf
from MKL on the CPU, the BLAS the engine's products run on; cuSOLVER on CUDA). Where two
copies of the matrix do not fit, the LU time is extrapolated by n³ from the largest size
measured in the same run, and the row says so. flint (nmod_mat, conversion plus determinant)
computes the same residue up to FLINT_UP_TO where its Python-int conversion fits in memory,
and must agree.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from pathlib import Path

import flint
import numpy as np

from .engine import resources, settings
from .engine.context import Context
from .engine.runner import torch_threads
from .engine.vocabulary import Device
from .errors import SettingError, UsageError
from .lazy import nn, torch
from .maths import exact, modular_lu
from .maths.khatri_rao import KhatriRaoColumns
from .report.benchmarks import render_benchmarks_markdown

FLOAT64 = 8
WARM_UP_ORDER = 2048  # the engine's warm-up before each measured certificate (all of it, up to this order)
# flint's determinant takes minutes past this order (2.5 at 9216² on the development machine) and
# hours at the paper's 36864²: beyond it, reports/README.md's recipe rechecks a residue by hand.
FLINT_UP_TO = 9216
# Bytes per entry while flint checks the residue: a Python int per entry (28 bytes and a
# list slot) and nmod_mat's own word.
FLINT_BYTES_PER_ENTRY = 44


def khatri_rao_source(rng: np.random.Generator, n: int, m: int) -> KhatriRaoColumns:
    """A ⊙ B for A ∈ Z^{n×nm}, B ∈ Z^{m×nm} drawn from the evaluation set."""
    a = exact.random_points(rng, (n, n * m))
    b = exact.random_points(rng, (m, n * m))
    return KhatriRaoColumns(a, b)


def _float_lu_seconds(source: KhatriRaoColumns, prime: int, device: Device, repeat: int) -> float:
    """float64 LU of the matrix (its residues, the same n×n floats the engine factors): the
    fastest of ``repeat`` runs."""
    matrix = torch.as_tensor(modular_lu.residue_matrix(source, prime, "cpu"), device=device)
    synchronize = torch.cuda.synchronize if device == Device.CUDA else (lambda: None)
    if device == Device.CUDA:
        torch.linalg.lu_factor(matrix)  # warm-up: cuSOLVER's workspace and kernels
        synchronize()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        torch.linalg.lu_factor(matrix)  # a new tensor: the matrix is factored afresh each time
        synchronize()
        times.append(time.perf_counter() - started)
    return min(times)


def _measured_certificate(source: KhatriRaoColumns, prime: int, device: Device,
                          repeat: int) -> tuple[int, float, int | None]:
    """(det mod prime, the fastest of ``repeat`` runs' seconds, the largest peak: bytes above what
    the process held before, resident memory on the CPU, torch's allocation on CUDA)."""
    modular_lu.warm_up(device, min(source.shape[0], WARM_UP_ORDER))
    runs = [_certificate_run(source, prime, device) for _ in range(repeat)]
    peaks = [peak for _, _, peak in runs if peak is not None]
    peak = max(peaks) if peaks else None
    if peak is not None and peak < FLOAT64 * source.shape[0] * source.shape[1]:
        # Below the one copy the certificate allocates: the allocator reused memory that an
        # earlier row freed, so the resident high-water mark did not move. Not measured.
        peak = None
    return runs[0][0], min(seconds for _, seconds, _ in runs), peak


def _certificate_run(source: KhatriRaoColumns, prime: int, device: Device) -> tuple[int, float, int | None]:
    if device == Device.CUDA:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
    with resources.peak_memory() as usage:
        started = time.perf_counter()
        residue = modular_lu.det_mod(source, prime, device)
        if device == Device.CUDA:
            torch.cuda.synchronize()
        seconds = time.perf_counter() - started
    peak = torch.cuda.max_memory_allocated() - before if device == Device.CUDA else usage["peak_bytes"]
    return residue, seconds, peak


def _flint_residue(source: KhatriRaoColumns, prime: int) -> tuple[int, float]:
    started = time.perf_counter()
    residues = np.mod(modular_lu.residue_matrix(source, prime, "cpu"), prime).astype(np.int64)
    rows, cols = residues.shape
    matrix = flint.nmod_mat(rows, cols, residues.ravel().tolist(), prime)
    del residues
    return int(matrix.det()), time.perf_counter() - started


def benchmark_certificate(size: int, seed: int, device: Device = Device.CPU, threads: int | None = None,
                          lu_reference: tuple[int, float] | None = None, repeat: int = 3) -> dict:
    """One row: the certificate and float64 LU of the size×size Khatri–Rao matrix at ``threads``
    BLAS threads (default: every core), each the fastest of ``repeat`` runs (the usual
    benchmark statistic: other work on the machine only ever adds time). ``lu_reference``
    (size, LU seconds) measured earlier in the same run extrapolates the LU time where two
    copies of the matrix do not fit."""
    side = math.isqrt(size) if isinstance(size, int) and size >= 4 else 0
    if side * side != size:
        raise UsageError(f"benchmark size must be a perfect square n·n ≥ 4 (n = m), got {size}")
    device = settings.validate_device(device)
    if device is Device.AUTO:
        raise SettingError("the benchmark runs on a resolved device (cpu or cuda), not auto")
    threads = (os.cpu_count() or 1) if threads is None else threads
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise UsageError(f"BLAS threads must be ≥ 1, got {threads}")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise UsageError(f"benchmark repeats must be ≥ 1, got {repeat}")
    one_copy = FLOAT64 * size**2
    available = resources.available_memory_bytes(device)  # where the matrix is factored: the GPU's on CUDA
    if 1.25 * one_copy > available:  # checked before allocating: numpy's MemoryError is a traceback
        raise UsageError(f"benchmark size {size} needs about {1.25 * one_copy / 2**30:.1f} GiB of {device} "
                         f"memory; {available / 2**30:.1f} GiB are available")
    source = khatri_rao_source(Context("ci", seed, Device.CPU, "bench", "certificate").rng(size), side, side)
    prime = modular_lu.primes_for(size, 1)[0]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None  # other work on the machine, before this row
    lu_fits = 2.25 * one_copy <= available
    if not lu_fits and lu_reference is None:  # said before minutes of certificate, not after
        raise UsageError(f"float64 LU of {size}² needs two copies of the matrix ({2 * one_copy / 2**30:.1f} GiB): "
                         "list a smaller size first, its LU time is extrapolated by n³")
    with torch_threads(threads):  # the engine's products and the baseline LU: both torch's BLAS
        residue, certificate_s, peak = _measured_certificate(source, prime, device, repeat)
        if lu_fits:
            lu_s, lu_from = _float_lu_seconds(source, prime, device, repeat), size
        else:
            lu_from, measured_s = lu_reference
            lu_s = measured_s * (size / lu_from) ** 3
    flint_fits = (size <= FLINT_UP_TO
                  and FLINT_BYTES_PER_ENTRY * size**2 <= resources.available_memory_bytes(Device.CPU))
    flint_residue, flint_s = _flint_residue(source, prime) if flint_fits else (None, None)
    return {
        "size": size,
        "device": device,
        "threads": threads,
        "repeat": repeat,
        "prime": prime,
        "det_mod_p": residue,
        "det_mod_p_nonzero": residue != 0,
        "flint_agrees": None if flint_residue is None else flint_residue == residue,
        "certificate_s": certificate_s,
        "flint_s": flint_s,
        "lu_s": lu_s,
        "lu_measured_at": lu_from,
        "ratio": certificate_s / lu_s,
        "flint_ratio": None if flint_s is None else flint_s / lu_s,
        "peak_bytes": peak,
        "peak_per_copy": None if peak is None else peak / one_copy,
        "load_average": load,
    }


def benchmark_certificates(sizes: list[int], seed: int, device: Device, threads: list[int] | None = None,
                           repeat: int = 3) -> list[dict]:
    """Every size at every thread count (default: one thread and every core), smallest size first,
    so that a size whose LU does not fit twice is extrapolated from the largest one measured."""
    rows = []
    for count in sorted(set(threads or [1, os.cpu_count() or 1])):
        reference = None
        for size in sorted(sizes):
            row = benchmark_certificate(size, seed, device, count, reference, repeat)
            if row["lu_measured_at"] == size:
                reference = (size, row["lu_s"])
            rows.append(row)
    return rows


def benchmark_construction(d: int, seed: int, method: str = "wide") -> dict:
    """Time ``build_source`` for a one-layer width-d target (source width d² for "wide") on
    the CPU, the share spent in the linear solves (Khatri–Rao systems, their condition
    estimates, the shift solves), and the equivalence error on 256 points of the unit ball."""
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


def benchmark_all(seed: int, device: str, sizes: list[int], dims: list[int], progress: bool = False,
                  threads: list[int] | None = None, repeat: int = 3) -> dict:
    """Every benchmark of the suite, each a ratio against a baseline measured in the same
    run: the certificate against float64 LU, the chains against batched matmul, and the
    constructions' share of time in linear solves, with the run's environment."""
    from tqdm import tqdm

    from .engine import environment
    from .maths.bn_chain import benchmark_chain

    steps = [("certificate", None), ("chain", None)] + [("construction", d) for d in dims]
    results: dict = {"certificate": [], "chain": None, "construction": []}
    for name, size in tqdm(steps, desc="benchmarks", disable=not progress):
        if name == "certificate":
            results["certificate"] = benchmark_certificates(sizes, seed, device, threads, repeat)
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
