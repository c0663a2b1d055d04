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

Startup: ``theorems list`` (and ``list --json``, ``--help``) as a fresh process against the
bare interpreter (``python -c pass``) in the same run, each the median of ``repeat`` runs
taken in turn, with each process's peak resident memory and the heavy libraries it imported
(read from one more run). The goal: ``list`` under STARTUP_GOAL_S
more than the bare interpreter on a quiet machine, which it meets by importing no claim
module (``engine.listing``) and no heavy library (``theorems.lazy``).
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
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


# What ``bench startup`` times, as the arguments of ``theorems``, and the goal of the first:
# at most this many seconds more than the bare interpreter, on a quiet machine.
STARTUP_COMMANDS = (("list",), ("list", "--json"), ("--help",))
STARTUP_GOAL_S = 0.5
STARTUP_REPEAT = 5  # runs of each, timed by their median
# The libraries whose import a startup row reports: the heavy ones (``theorems.lazy``) and the
# engine's, which only a command that runs claims needs.
STARTUP_LIBRARIES = ("torch", "matplotlib", "scipy.stats", "sympy", "flint", "hypothesis", "numpy")


# Starts each timed process, in a small interpreter of its own (``-S``: no site, no other
# imports): Linux carries the resident size of the process a child is forked from into the
# child's peak (``ru_maxrss``), and this process's, with numpy and the engine loaded, is above
# the commands' own. Prints [seconds, peak bytes, exit status] for each argv of its argument.
_SPAWNER = """
import json, os, sys, time

def run(argv):
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            quiet = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(quiet, fd)
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    peak = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)  # Linux counts KiB
    return time.perf_counter() - started, peak, os.waitstatus_to_exitcode(status)

print(json.dumps([run(argv) for argv in json.loads(sys.argv[1])]))
"""


def _fresh_processes(argvs: list[list[str]], env: dict[str, str]) -> list[tuple[float, int]]:
    """Seconds and peak resident bytes of each of ``argvs`` run as a new process, in turn."""
    spawned = subprocess.run([sys.executable, "-S", "-c", _SPAWNER, json.dumps(argvs)], stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, env=env, check=False)
    if spawned.returncode:
        raise UsageError(f"the startup benchmark could not start its commands: {spawned.stderr.strip()}")
    measured = json.loads(spawned.stdout)
    for argv, (_, _, status) in zip(argvs, measured, strict=True):
        if status:
            raise UsageError(f"`{' '.join(argv)}` exited with {status}")
    return [(seconds, peak) for seconds, peak, _ in measured]


# Runs `python -m theorems ARGS` and prints, at exit, which of the libraries named in its first
# argument it imported (sys.modules: -X importtime does not name every package it loads).
_IMPORTS_AT_EXIT = """
import atexit, json, runpy, sys

libraries = json.loads(sys.argv.pop(1))
imported = lambda: [name for name in libraries if name in sys.modules]
atexit.register(lambda: sys.stderr.write("\\nimported " + json.dumps(imported())))
runpy.run_module("theorems", run_name="__main__", alter_sys=True)
"""


def _imported_libraries(arguments: tuple[str, ...], env: dict[str, str]) -> list[str]:
    """The libraries of ``STARTUP_LIBRARIES`` that ``theorems <arguments>`` imports."""
    run = subprocess.run([sys.executable, "-c", _IMPORTS_AT_EXIT, json.dumps(STARTUP_LIBRARIES), *arguments],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                         text=True, check=False)
    return json.loads(run.stderr.rpartition("\nimported ")[2])


def benchmark_startup(repeat: int = STARTUP_REPEAT) -> list[dict]:
    """One row per command of ``STARTUP_COMMANDS``: the median seconds and the peak memory of
    ``theorems <command>`` run as a new process, against ``python -c pass`` timed in the same
    rounds (bare interpreter, then each command, ``repeat`` times), and the libraries of
    ``STARTUP_LIBRARIES`` it imports. The suite is found where this process found it."""
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise UsageError(f"benchmark repeats must be ≥ 1, got {repeat}")
    # This suite first on the module path, not a copy in the working directory (which `python -m` would put first)
    suite_path = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONSAFEPATH": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, (suite_path, os.environ.get("PYTHONPATH"))))}
    bare = [sys.executable, "-c", "pass"]
    commands = [[sys.executable, "-m", "theorems", *arguments] for arguments in STARTUP_COMMANDS]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None  # other work on the machine, before the runs
    measured = _fresh_processes([bare, *commands] * repeat, env)
    runs = [measured[index::len(commands) + 1] for index in range(len(commands) + 1)]  # the bare interpreter's first
    bare_s = statistics.median(seconds for seconds, _ in runs[0])
    bare_peak = max(peak for _, peak in runs[0])
    rows = []
    for index, arguments in enumerate(STARTUP_COMMANDS):
        seconds = statistics.median(seconds for seconds, _ in runs[index + 1])
        rows.append({"command": " ".join(["theorems", *arguments]), "repeat": repeat,
                     "seconds": seconds, "bare_s": bare_s, "difference_s": seconds - bare_s, "ratio": seconds / bare_s,
                     "goal_s": STARTUP_GOAL_S if index == 0 else None,
                     "peak_bytes": max(peak for _, peak in runs[index + 1]), "bare_peak_bytes": bare_peak,
                     "imports": _imported_libraries(arguments, env), "load_average": load})
    return rows


def benchmark_all(seed: int, device: str, sizes: list[int], dims: list[int], progress: bool = False,
                  threads: list[int] | None = None, repeat: int = 3) -> dict:
    """Every benchmark of the suite, each a ratio against a baseline measured in the same
    run: the certificate against float64 LU, the chains against batched matmul, the
    constructions' share of time in linear solves, and the command line's startup against
    the bare interpreter, with the run's environment."""
    from tqdm import tqdm

    from .engine import environment
    from .maths.bn_chain import benchmark_chain

    steps = [("certificate", None), ("chain", None)] + [("construction", d) for d in dims] + [("startup", None)]
    results: dict = {"certificate": [], "chain": None, "construction": [], "startup": []}
    for name, size in tqdm(steps, desc="benchmarks", disable=not progress):
        if name == "certificate":
            results["certificate"] = benchmark_certificates(sizes, seed, device, threads, repeat)
        elif name == "chain":
            results["chain"] = benchmark_chain(device=device)
        elif name == "startup":
            results["startup"] = benchmark_startup()
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
