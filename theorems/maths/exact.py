"""Exact linear algebra on python-flint: ranks over Q, determinants modulo a prime, and
Schwartz–Zippel certificates.

A certificate that a determinant polynomial f is not identically zero is one evaluation
f(x) ≢ 0 (mod p) at an integer point x: a nonzero residue means a nonzero integer value,
so f ≠ 0, and by Lemma 5 of giannou2023 (Caron–Traynor) its zero set has measure zero, so
the matrix is full rank with probability 1 under any continuous distribution. A zero
residue proves nothing by itself; ``refute_identically_zero`` then looks for a nonzero
value over Z and, finding none at k independent points, bounds the chance that a nonzero
polynomial vanished at all of them by (deg/|S|)^k (Schwartz–Zippel).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

# The Mersenne prime 2^61 - 1: word-sized for flint's nmod_mat.
CERTIFICATE_PRIME = (1 << 61) - 1
# Evaluation points are drawn from S = {0, ..., 2^31 - 1}, so that a product of two points
# (a Khatri–Rao entry) is exact in int64 before reduction modulo the prime; numpy has no
# 128-bit multiply. Schwartz–Zippel then bounds a false zero by deg / 2^31.
POINT_BITS = 31

# flint parallelises its matrix kernels; exact results do not depend on the thread count.
flint.ctx.threads = os.cpu_count() or 1


def random_points(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Integer evaluation points, uniform on S = {0, ..., 2^POINT_BITS - 1}."""
    return rng.integers(0, 1 << POINT_BITS, size=shape, dtype=np.int64)


def _as_integer_matrix(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"expected a 2-D matrix, got shape {a.shape}")
    if a.dtype != object and not np.issubdtype(a.dtype, np.integer) and a.dtype != bool:
        raise ValueError(f"expected an integer matrix, got dtype {a.dtype}")
    return a


def nmod_matrix(a: np.ndarray, p: int = CERTIFICATE_PRIME) -> flint.nmod_mat:
    """An integer matrix reduced modulo p, as a flint nmod_mat."""
    a = _as_integer_matrix(a)
    reduced = np.mod(a.astype(object) if a.dtype == object else a.astype(np.int64), p)
    return flint.nmod_mat(a.shape[0], a.shape[1], reduced.ravel().tolist(), p)


def fmpz_matrix(a: np.ndarray) -> flint.fmpz_mat:
    a = _as_integer_matrix(a)
    return flint.fmpz_mat(a.shape[0], a.shape[1], [int(x) for x in a.ravel().tolist()])


def fmpq_matrix(a: np.ndarray) -> flint.fmpq_mat:
    """A matrix over Q equal to ``a`` exactly: floats are binary fractions, converted exactly;
    object arrays may hold ints and Fractions."""
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"expected a 2-D matrix, got shape {a.shape}")
    if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
        raise ValueError("matrix has NaN or infinite entries")
    entries = []
    for x in a.ravel().tolist():
        q = Fraction(x)
        entries.append(flint.fmpq(q.numerator, q.denominator))
    return flint.fmpq_mat(a.shape[0], a.shape[1], entries)


def rank_exact(a: np.ndarray) -> int:
    """Rank over Q (floats taken as the exact rationals they represent)."""
    a = np.asarray(a)
    if a.size == 0:
        return 0
    if a.dtype.kind in "iub" or (a.dtype == object and all(isinstance(x, int) for x in a.flat)):
        return fmpz_matrix(a).rank()
    return fmpq_matrix(a).rank()


def det_mod_p(a: np.ndarray, p: int = CERTIFICATE_PRIME) -> int:
    a = _as_integer_matrix(a)
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"determinant of a non-square {a.shape[0]}×{a.shape[1]} matrix")
    return int(nmod_matrix(a, p).det())


def schwartz_zippel_bound(degree: int, point_bits: int = POINT_BITS) -> float:
    """P(nonzero polynomial of this total degree vanishes at a uniform point of S)."""
    return min(1.0, degree / float(1 << point_bits))


@dataclass(frozen=True)
class Refutation:
    """Evidence that a determinant polynomial is identically zero."""

    points: int
    false_refutation_bound: float

    def as_dict(self) -> dict:
        return {
            "method": "exact integer determinant zero at independent random points (Schwartz–Zippel)",
            "points": self.points,
            "false_refutation_bound": self.false_refutation_bound,
        }


def refute_identically_zero(sample, degree: int, points: int = 4) -> Refutation | int:
    """Decide between "identically zero" and "not": ``sample()`` returns a fresh integer
    matrix evaluated at an independent random point. Returns the first nonzero integer
    determinant found (a certificate that the polynomial is nonzero), or a Refutation whose
    bound is the probability that a nonzero polynomial vanished at every point."""
    for _ in range(points):
        value = int(fmpz_matrix(sample()).det())
        if value != 0:
            return value
    return Refutation(points, schwartz_zippel_bound(degree) ** points)
