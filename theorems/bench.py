"""Benchmark: the exact modular certificate against float64 LU on the same matrix.

Both start from the same Khatri–Rao product A ⊙ B of integer points (built once, not
timed against either side). The certificate is the conversion to flint's nmod_mat plus
its determinant modulo the prime; the baseline is LAPACK's LU (scipy.linalg.lu_factor) of
the same matrix in float64. The ratio is certificate time / LU time, measured in one run.
"""

from __future__ import annotations

import math
import time

import flint
import numpy as np
import scipy.linalg

from .engine.context import Context
from .maths import exact
from .maths.khatri_rao import khatri_rao


def khatri_rao_point(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    """A ⊙ B for A ∈ Z^{n×nm}, B ∈ Z^{m×nm} drawn from the evaluation set (exact in int64)."""
    a = exact.random_points(rng, (n, n * m))
    b = exact.random_points(rng, (m, n * m))
    return khatri_rao(a, b)


def benchmark_certificate(size: int, seed: int) -> dict:
    side = math.isqrt(size)
    if size < 4 or side * side != size:
        raise ValueError(f"benchmark size must be a perfect square n·n ≥ 4 (n = m), got {size}")
    rng = Context("ci", seed, "cpu", "bench", "certificate").rng(size)
    matrix = khatri_rao_point(rng, side, side)

    started = time.perf_counter()
    modular = exact.nmod_matrix(matrix)
    built = time.perf_counter()
    residue = int(modular.det())
    certified = time.perf_counter()

    floating = matrix.astype(np.float64)
    started_lu = time.perf_counter()
    scipy.linalg.lu_factor(floating, overwrite_a=True, check_finite=False)
    lu_s = time.perf_counter() - started_lu

    certificate_s = certified - started
    return {
        "size": size,
        "threads": flint.ctx.threads,
        "det_mod_p_nonzero": residue != 0,
        "build_s": built - started,
        "det_s": certified - built,
        "certificate_s": certificate_s,
        "lu_s": lu_s,
        "ratio": certificate_s / lu_s,
    }
