"""Exact linear algebra on python-flint: the conversions between flint's rationals and
Python's Fractions, ranks over Q, determinants modulo a prime, and Schwartz–Zippel
certificates.

A certificate that a determinant polynomial f is not identically zero is one evaluation
f(x) ≢ 0 (mod p) at an integer point x: a nonzero residue means a nonzero integer value,
so f ≠ 0, and by Lemma 5 of giannou2023 (Caron–Traynor) its zero set has measure zero, so
the matrix is full rank with probability 1 under any continuous distribution. A zero
residue proves nothing by itself; ``refute_identically_zero`` then looks for a nonzero
value over Z and, finding none at k independent points, bounds the chance that a nonzero
polynomial vanished at all of them by (deg/|S|)^k (Schwartz–Zippel).

Scale. flint is the reference and handles matrices up to ``ENGINE_ABOVE`` rows and
columns, modulo the word-sized prime 2^61 − 1. Above that, ranks over Q and determinant
certificates go through ``theorems.maths.modular_lu``, an LU modulo primes just below
2^20 on float64 BLAS, several times faster: a nonzero minor modulo any prime proves the
same thing over Z, and a zero residue is retried at further primes before any fallback
(see that module for the prime choice and its Schwartz–Zippel implications).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from . import modular_lu

# The Mersenne prime 2^61 - 1: word-sized for flint's nmod_mat.
CERTIFICATE_PRIME = (1 << 61) - 1
# Evaluation points are drawn from S = {0, ..., 2^31 - 1}, so that a product of two points
# (a Khatri–Rao entry) is exact in int64 before reduction modulo the prime; numpy has no
# 128-bit multiply. Schwartz–Zippel then bounds a false zero by deg / 2^31.
POINT_BITS = 31

# Matrices with more rows or columns than this go through the float64 modular LU engine.
ENGINE_ABOVE = 256
# A zero residue at one engine prime is retried at this many primes (of modular_lu.PRIMES)
# before the caller falls back to exact integer arithmetic.
ENGINE_PRIMES_TRIED = 3

# flint parallelises its matrix kernels; exact results do not depend on the thread count.
flint.ctx.threads = os.cpu_count() or 1


# ---------------------------------------------------------------- rationals: flint and Python
# Every conversion between flint's rationals (fmpq, fmpq_mat) and Python's Fraction is one of
# these. A float always enters as the binary fraction it is (Fraction(float)), never rounded
# to a nearby simple rational, so an exact computation sees exactly the float it was given.


def to_fmpq(x) -> flint.fmpq:
    """The exact rational value of an int, a float, a Fraction (any ``numbers.Rational``) or an
    fmpq (returned as is). ValueError for NaN and infinities, which have none."""
    if isinstance(x, flint.fmpq):
        return x
    if isinstance(x, float) and not math.isfinite(x):
        raise ValueError(f"cannot take the exact value of {x}")
    q = Fraction(x)
    return flint.fmpq(q.numerator, q.denominator)


def fmpq_to_fraction(q: flint.fmpq) -> Fraction:
    """The Fraction equal to an fmpq."""
    return Fraction(int(q.p), int(q.q))


def fraction_array(a) -> np.ndarray:
    """An array of numbers (any shape) as an object array of the equal Fractions."""
    a = np.asarray(a)
    return np.vectorize(Fraction, otypes=[object])(a) if a.size else a.astype(object)


def fmpq_matrix(a) -> flint.fmpq_mat:
    """A matrix over Q equal to the 2-D array ``a`` exactly (entries as ``to_fmpq`` takes
    them: ints, floats, Fractions or fmpq)."""
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"expected a 2-D matrix, got shape {a.shape}")
    if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
        raise ValueError("matrix has NaN or infinite entries")
    return flint.fmpq_mat(a.shape[0], a.shape[1], [to_fmpq(x) for x in a.ravel().tolist()])


def fmpq_matrix_to_fractions(m: flint.fmpq_mat) -> np.ndarray:
    """An fmpq_mat as a 2-D object array of the equal Fractions (the inverse of ``fmpq_matrix``)."""
    return np.array([fmpq_to_fraction(x) for x in m.entries()], dtype=object).reshape(m.nrows(), m.ncols())


# ---------------------------------------------------------------- integer matrices, ranks, determinants


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


def uses_engine(a: np.ndarray) -> bool:
    """Whether exact linear algebra on ``a`` goes through the modular LU engine (up to the
    size its float64 arithmetic allows, modular_lu.max_inner)."""
    return ENGINE_ABOVE < max(np.shape(a)) <= modular_lu.max_inner(modular_lu.PRIME)


def _is_integer_matrix(a: np.ndarray) -> bool:
    return a.dtype.kind in "iub" or (a.dtype == object and all(isinstance(x, int) for x in a.flat))


def rank_exact(a: np.ndarray) -> int:
    """Rank over Q (floats taken as the exact rationals they represent).

    Large integer matrices: a rank modulo a prime is a lower bound (a nonzero minor mod p is
    nonzero over Z), so full rank modulo an engine prime decides the rank exactly; a
    deficient rank at every prime tried is decided by flint over Z."""
    a = np.asarray(a)
    if a.size == 0:
        return 0
    if not _is_integer_matrix(a):
        return fmpq_matrix(a).rank()
    if uses_engine(a):
        full = min(a.shape)
        for p in modular_lu.PRIMES[:ENGINE_PRIMES_TRIED]:
            if modular_lu.rank_mod(a, p) == full:
                return full
    return fmpz_matrix(a).rank()


def engine_device(device: str | None) -> str:
    """The device the modular LU engine runs on: CUDA when asked, else the CPU."""
    return "cuda" if device == "cuda" else "cpu"


def det_mod_p(a: np.ndarray, p: int = CERTIFICATE_PRIME, device: str | None = None) -> int:
    """det(a) mod p: flint, or the modular LU engine for large matrices and a prime it takes
    (on the GPU when ``device`` is "cuda")."""
    a = _as_integer_matrix(a)
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"determinant of a non-square {a.shape[0]}×{a.shape[1]} matrix")
    if uses_engine(a) and modular_lu.supports(p, a.shape[0]):
        return modular_lu.det_mod(a, p, engine_device(device))
    return int(nmod_matrix(a, p).det())


@dataclass(frozen=True)
class DeterminantResidue:
    """det mod prime at one point: a nonzero residue certifies a nonzero determinant."""

    prime: int
    residue: int


def nonzero_det_residue(a: np.ndarray, device: str | None = None) -> DeterminantResidue | None:
    """A nonzero residue of det(a), or None if det(a) vanished modulo every prime tried.

    Up to ENGINE_ABOVE: flint modulo CERTIFICATE_PRIME. Above: the modular LU engine modulo
    ENGINE_PRIMES_TRIED primes below 2^20 in turn (a nonzero integer is divisible by a given
    one with probability about 1/p at a random point, see modular_lu), on the GPU when
    ``device`` is "cuda". None proves nothing."""
    a = _as_integer_matrix(a)
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"determinant of a non-square {a.shape[0]}×{a.shape[1]} matrix")
    primes = modular_lu.PRIMES[:ENGINE_PRIMES_TRIED] if uses_engine(a) else (CERTIFICATE_PRIME,)
    for p in primes:
        residue = det_mod_p(a, p, device)
        if residue:
            return DeterminantResidue(p, residue)
    return None


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
    matrix evaluated at an independent random point. Returns the first nonzero determinant
    residue (modulo primes, as in ``nonzero_det_residue``) or integer determinant found (a
    certificate that the polynomial is nonzero), or a Refutation whose bound is the
    probability that a nonzero polynomial vanished over Z at every point."""
    for _ in range(points):
        matrix = sample()
        found = nonzero_det_residue(matrix)
        if found is not None:
            return found.residue
        value = int(fmpz_matrix(matrix).det())
        if value != 0:
            return value
    return Refutation(points, schwartz_zippel_bound(degree) ** points)
