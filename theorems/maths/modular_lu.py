"""Exact LU modulo a prime at floating-point BLAS speed: determinant, rank and a nonzero
minor of a dense integer matrix modulo p.

Arithmetic (FFLAS-FFPACK style). Residues are stored as float64, centred in
[−(p−1)/2, (p−1)/2]. For a prime p < 2^20 a product of two residues is below 2^38, so a
matrix product with inner size k < 2^15 sums integers below 2^53: every partial sum is
an integer that float64 represents exactly, in any summation order, so BLAS (or cuBLAS)
computes the product *exactly*. It is then reduced by ``x − p·rint(x·(1/p))``. For
|x| < 2^53 the computed quotient is within 2^53/p · 2^−52 = 2/p of x/p, so the result is
congruent to x and at most (p+3)/2 in absolute value; ``max_inner`` sizes the products
for that bound (32767 for the default prime), and longer inner products are split.

Two algorithms:

- ``factor`` (numpy, CPU): a recursive, LAPACK ``getrf2``-style PLUQ. Columns are split
  in halves; the left half is factored with row pivoting (any nonzero pivot is exact), a
  column with no nonzero pivot left is a non-pivot column (rank-revealing), the right half
  gets a recursive triangular solve and one Schur-complement matrix product, then is
  factored in turn. It returns the rank, det mod p and the rows and columns of an r×r
  minor that is nonzero mod p: the certificate that the rank over Q is at least r.
- ``torch_det`` (torch, CPU or CUDA): det by recursive Schur complements without pivoting,
  det A = det A₁₁ · det(A₂₂ − A₂₁A₁₁⁻¹A₁₂), with inverses assembled block-recursively, so
  that almost all work is large matrix products (≈ 1.2× the flops of an LU). Leaves are
  Gauss–Jordan eliminations whose pivot inverses come from a table of inverses mod p held
  on the device, so no step waits for the host: one synchronisation per determinant. A
  zero leading minor makes the run *fail*, never "singular": it is retried on
  U·A·L with random unit upper/lower triangular Toeplitz U, L (Kaltofen–Saunders: det is
  unchanged and every leading minor of a nonsingular matrix is nonzero with high
  probability), and the caller falls back to ``factor`` if that fails too.

Primes and Schwartz–Zippel. ``PRIMES`` are the primes just below 2^20. A certificate is an
evaluation f(x) of a determinant polynomial at an integer point: a nonzero residue mod any
prime proves f(x) ≠ 0, hence f ≢ 0, whatever the prime. A small prime only raises the
chance of a *false zero*: for f of degree d not identically zero mod p, a point drawn
uniformly from [0, 2^31)^N vanishes mod p with probability at most about d/p (2·4096/2^20
≈ 0.8% for the 4096×4096 Khatri–Rao determinant). So a zero residue concludes nothing:
callers retry at further primes and fresh points (``theorems.maths.exact``), and only the
exact integer determinant at independent points supports "identically zero", with the
bound (d/2^31)^k that does not depend on p.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import flint
import numpy as np

from ..errors import LeadingMinorVanished

if TYPE_CHECKING:
    import torch

FLOAT_EXACT = 1 << 53  # integers below this are exact in float64


def _primes_below(limit: int, count: int) -> tuple[int, ...]:
    found, candidate = [], limit - 1
    while len(found) < count:
        if flint.fmpz(candidate).is_prime():
            found.append(candidate)
        candidate -= 2 if candidate % 2 else 1
    return tuple(found)


# The largest primes below 2^20: p − 1 < 2^20 keeps products of 2^15 residues exact.
PRIMES = _primes_below(1 << 20, 8)
PRIME = PRIMES[0]
# Primes below this keep at least one product of reduced residues exact in float64.
LARGEST_PRIME = 1 << 26


def residue_bound(p: int) -> int:
    """Largest |x| of a reduced residue (see the module docstring)."""
    return (p + 3) // 2


def max_inner(p: int) -> int:
    """Largest inner size k of a product C − A·B of reduced residues that stays below 2^53."""
    bound = residue_bound(p)
    k = (FLOAT_EXACT - 1 - bound) // (bound * bound)
    if k < 1:
        raise ValueError(f"prime {p} is too large for exact float64 products (needs p < 2^26)")
    return k


def primes_for(size: int, count: int) -> tuple[int, ...]:
    """The ``count`` largest primes below 2^20 with ``max_inner(p) ≥ size``: ``PRIMES`` up to
    ``max_inner(PRIME)`` rows, smaller primes for larger matrices (36864 rows: below 2^19.9)."""
    limit = min(1 << 20, 2 * math.isqrt(FLOAT_EXACT // max(size, 1)))
    while limit > 3 and max_inner(limit) < size:
        limit -= 1
    return _primes_below(limit + 1, count)


def supports(p: int, size: int) -> bool:
    """Whether ``factor`` works modulo p on matrices with at most ``size`` rows and columns."""
    p = int(p)
    return 3 <= p < LARGEST_PRIME and p % 2 == 1 and flint.fmpz(p).is_prime() and max_inner(p) >= size


def check_prime(p: int) -> int:
    p = int(p)
    if p < 3 or not flint.fmpz(p).is_prime():
        raise ValueError(f"modulus {p} is not an odd prime")
    max_inner(p)
    return p


@dataclass(frozen=True)
class Factorization:
    """PLUQ of an integer matrix modulo ``prime``: its rank, and the rows and columns (of the
    original matrix) of a rank×rank minor that is nonzero modulo the prime."""

    prime: int
    shape: tuple[int, int]
    rank: int
    pivot_rows: np.ndarray
    pivot_columns: np.ndarray
    det: int | None  # det mod prime in [0, prime) for a square matrix, else None


# --- residues -------------------------------------------------------------------------


def centred_residues(a: np.ndarray, p: int) -> np.ndarray:
    """An integer matrix (any int dtype, bool or Python ints) as centred float64 residues.
    For p < 2^21, int64 entries are split as hi·2^31 + lo (|hi| ≤ 2^32, so hi·(2^31 mod p)
    + lo < 2^53 is exact in float64) and reduced in floating point: integer division is
    several times slower."""
    a = np.asarray(a)
    if a.dtype == object:
        a = np.array([int(x) % p for x in a.ravel().tolist()], dtype=np.int64).reshape(a.shape)
    elif a.dtype == np.uint64:
        a = (a % np.uint64(p)).astype(np.int64)
    a = a.astype(np.int64, copy=False)
    if p >= 1 << 21:
        return reduce(np.remainder(a, p).astype(np.float64), p)
    result = np.right_shift(a, 31).astype(np.float64)
    result *= float((1 << 31) % p)
    result += np.bitwise_and(a, (1 << 31) - 1)
    return reduce(result, p)


def reduce(x: np.ndarray, p: int) -> np.ndarray:
    """Reduce exact integers |x| < 2^53 held in float64 modulo p, in place: x − p·rint(x/p)."""
    quotient = np.multiply(x, 1.0 / p)
    np.rint(quotient, out=quotient)
    quotient *= p
    np.subtract(x, quotient, out=x)
    return x


def _inverse(value: float, p: int) -> float:
    inverse = pow(int(value) % p, p - 2, p)
    return float(inverse - p if inverse > p // 2 else inverse)


def _lazy_limit(p: int, size: int) -> None:
    """The numpy PLUQ reduces an entry only when it is about to be multiplied: until then
    it accumulates at most ``size`` products of reduced residues, which must stay exact."""
    if size > max_inner(p):
        raise ValueError(f"matrices larger than {max_inner(p)} in either dimension need a smaller prime than {p}")


# --- PLUQ on numpy ----------------------------------------------------------------------
#
# Lazy reduction: an entry of the working matrix is reduced only right before it is used
# as a factor of a product (a pivot column, a pivot row, a row of U12). Until then it only
# accumulates Schur updates, at most one product of reduced residues per pivot eliminated
# before it, so for a matrix with at most max_inner(p) rows and columns it stays an exact
# integer below 2^53. Each entry is reduced O(1) times instead of once per recursion level.

LEAF_COLUMNS = 8  # panels this narrow are eliminated column by column
LEAF_SOLVE = 64  # triangular systems this small are solved by their inverse


def _unit_lower_inverse(lower: np.ndarray, p: int) -> np.ndarray:
    """L⁻¹ mod p for a small unit lower triangular L = I + N (the diagonal of ``lower`` is
    ignored): N is nilpotent, so L⁻¹ = Σ_j (−N)^j = (I − N)(I + N²)(I + N⁴)···, a few small
    matrix products instead of one step per row."""
    size = lower.shape[0]
    power = -np.tril(lower, -1)  # (−N)^span
    inverse = np.eye(size) + power  # Σ_{j < span} (−N)^j
    span = 2
    while span < size:
        power = reduce(power @ power, p)
        inverse += inverse @ power
        reduce(inverse, p)
        span *= 2
    return inverse


def _solve_unit_lower(lower: np.ndarray, b: np.ndarray, p: int) -> None:
    """b ← L⁻¹ b for unit lower triangular L (reduced residues; the diagonal is ignored), in
    place and recursively; b may be unreduced, the result is reduced."""
    size = lower.shape[0]
    if size <= LEAF_SOLVE:
        reduce(b, p)
        b[:] = _unit_lower_inverse(lower, p) @ b
        reduce(b, p)
        return
    half = size // 2
    _solve_unit_lower(lower[:half, :half], b[:half], p)
    b[half:] -= lower[half:, :half] @ b[:half]
    _solve_unit_lower(lower[half:, half:], b[half:], p)


def _factor_leaf(panel: np.ndarray, p: int) -> tuple[np.ndarray, list[int], list[float]]:
    """Column-by-column elimination of a narrow panel in place. Returns the row order, the
    pivot columns and the pivots. Works on a transposed copy, so that a column of the panel
    is contiguous in memory."""
    columns = np.ascontiguousarray(panel.T)
    cols, rows = columns.shape
    order = np.arange(rows)
    pivot_columns, pivots = [], []
    r = 0
    for j in range(cols):
        if r == rows:
            break
        column = reduce(columns[j, r:], p)  # a zero test is exact only on reduced residues
        nonzero = np.flatnonzero(column)
        if nonzero.size == 0:
            continue  # no pivot in this column: it depends on the pivot columns before it
        i = r + int(nonzero[0])
        if i != r:
            columns[:, [r, i]] = columns[:, [i, r]]
            order[[r, i]] = order[[i, r]]
        pivot = columns[j, r]
        below = columns[j, r + 1:]
        below *= _inverse(pivot, p)
        reduce(below, p)
        if j + 1 < cols:
            pivot_row = reduce(columns[j + 1:, r], p)
            columns[j + 1:, r + 1:] -= pivot_row[:, None] * below[None, :]
        pivot_columns.append(j)
        pivots.append(pivot)
        r += 1
    panel[:] = columns.T
    return order, pivot_columns, pivots


def _columns(block: np.ndarray, columns: list[int]) -> np.ndarray:
    """block[:, columns], as a view when the columns are a leading range (full column rank)."""
    if columns and columns[-1] == len(columns) - 1:
        return block[:, :len(columns)]
    return block[:, columns]


def _is_identity(order: np.ndarray) -> bool:
    return bool(np.all(order == np.arange(order.size)))


def _factor(block: np.ndarray, p: int) -> tuple[np.ndarray, list[int], list[float]]:
    """PLUQ of ``block`` (a view, overwritten with L and U): the row order (a permutation of
    its rows), the pivot columns in increasing order, and the pivots (U's diagonal)."""
    rows, cols = block.shape
    if cols <= LEAF_COLUMNS:
        return _factor_leaf(block, p)
    half = cols // 2
    left, right = block[:, :half], block[:, half:]
    order, left_columns, pivots = _factor(left, p)
    if not _is_identity(order):
        right[:] = right[order]
    r1 = len(left_columns)
    if r1:
        pivot_part = _columns(left, left_columns)
        _solve_unit_lower(pivot_part[:r1], right[:r1], p)
        if r1 < rows:
            right[r1:] -= pivot_part[r1:] @ right[:r1]
    right_order, right_columns, right_pivots = _factor(right[r1:], p)
    if not _is_identity(right_order):
        left[r1:] = left[r1:][right_order]
        order[r1:] = order[r1:][right_order]
    return order, left_columns + [half + j for j in right_columns], pivots + right_pivots


def _permutation_sign(order: np.ndarray) -> int:
    seen = np.zeros(order.size, dtype=bool)
    sign = 1
    for start in range(order.size):
        if seen[start]:
            continue
        length, i = 0, start
        while not seen[i]:
            seen[i] = True
            i = order[i]
            length += 1
        if length % 2 == 0:
            sign = -sign
    return sign


def _as_matrix(a) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"expected a 2-D matrix, got shape {a.shape}")
    if a.dtype != object and a.dtype != bool and not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"expected an integer matrix, got dtype {a.dtype}")
    return a


def factor(a, p: int = PRIME) -> Factorization:
    """PLUQ of the integer matrix ``a`` modulo the prime p (CPU, numpy and BLAS)."""
    a = _as_matrix(a)
    p = check_prime(p)
    rows, cols = a.shape
    _lazy_limit(p, max(rows, cols))
    work = np.ascontiguousarray(centred_residues(a, p))
    if rows == 0 or cols == 0:
        order, pivot_columns, pivots = np.arange(rows), [], []
    else:
        order, pivot_columns, pivots = _factor(work, p)
    rank = len(pivot_columns)
    det = None
    if rows == cols:
        det = 0
        if rank == rows:
            det = _permutation_sign(order) % p
            for pivot in pivots:
                det = det * int(pivot) % p
    return Factorization(p, (rows, cols), rank, np.sort(order[:rank]), np.asarray(pivot_columns, dtype=np.int64), det)


def det_mod(a, p: int = PRIME, device: str | None = None) -> int:
    """det(a) mod p: the numpy PLUQ, or with ``device`` ("cpu" or "cuda") the torch Schur
    recursion, falling back to the PLUQ where a leading minor vanishes twice."""
    a = _as_matrix(a)
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"determinant of a non-square {a.shape[0]}×{a.shape[1]} matrix")
    if device is not None:
        try:
            return torch_det(a, p, device)
        except LeadingMinorVanished:
            pass
    return factor(a, p).det


def rank_mod(a, p: int = PRIME) -> int:
    return factor(a, p).rank


# --- recursive Schur complements on torch -----------------------------------------------

TORCH_LEAF = 64  # Gauss–Jordan leaves of the Schur recursion


def _torch_reduce(x, p: int):
    quotient = x * (1.0 / p)
    quotient.round_()
    return x.sub_(quotient, alpha=p)


def _torch_product(a, b, p: int, add_to=None, sign: int = 1):
    """(add_to + sign·a·b) mod p (add_to = 0 when None), exactly."""
    import torch

    step = max_inner(p)
    result = torch.zeros(a.shape[0], b.shape[1], dtype=a.dtype, device=a.device) if add_to is None else add_to.clone()
    for start in range(0, a.shape[1], step):
        result.add_(a[:, start:start + step] @ b[start:start + step], alpha=sign)
        _torch_reduce(result, p)
    return result


_INVERSE_TABLES: dict = {}


def inverse_table(p: int, device) -> torch.Tensor:
    """inverse_table[x mod p] = x⁻¹ mod p, centred (0 ↦ 0), as float64 on the device."""
    import torch

    key = (p, str(device))
    if key not in _INVERSE_TABLES:
        base = np.arange(p, dtype=np.int64)
        result, exponent = np.ones(p, dtype=np.int64), p - 2
        while exponent:  # vectorised square-and-multiply: products < 2^40 in int64
            if exponent & 1:
                result = result * base % p
            base = base * base % p
            exponent >>= 1
        result[result > p // 2] -= p
        _INVERSE_TABLES[key] = torch.as_tensor(result.astype(np.float64), device=device)
    return _INVERSE_TABLES[key]


def _leaf_det_inverse(a, p: int, table, want_inverse: bool):
    """Gauss–Jordan without pivoting on the device: (det, inverse, ok) with ok a 0-d bool
    tensor, false when a leading minor vanished (the other values are then meaningless)."""
    import torch

    size = a.shape[0]
    work = torch.cat([a, torch.eye(size, dtype=a.dtype, device=a.device)], dim=1) if want_inverse else a.clone()
    det = torch.ones((), dtype=a.dtype, device=a.device)
    ok = torch.ones((), dtype=torch.bool, device=a.device)
    for j in range(size):
        pivot = work[j, j].clone()
        ok &= pivot != 0
        det = _torch_reduce(det * pivot, p)
        inverse = table[torch.remainder(pivot, p).long()]
        row = _torch_reduce(work[j] * inverse, p)
        work.sub_(torch.outer(work[:, j], row))
        work[j] = row
        _torch_reduce(work, p)
    return det, (work[:, size:] if want_inverse else None), ok


def _schur_det_inverse(a, p: int, table, want_inverse: bool):
    import torch

    size = a.shape[0]
    if size <= TORCH_LEAF:
        return _leaf_det_inverse(a, p, table, want_inverse)
    k = size // 2
    a11, a12, a21, a22 = a[:k, :k], a[:k, k:], a[k:, :k], a[k:, k:]
    det11, x, ok11 = _schur_det_inverse(a11, p, table, True)
    x_a12 = _torch_product(x, a12, p)
    schur = _torch_product(a21, x_a12, p, add_to=a22, sign=-1)
    det22, y, ok22 = _schur_det_inverse(schur, p, table, want_inverse)
    det = _torch_reduce(det11 * det22, p)
    if not want_inverse:
        return det, None, ok11 & ok22
    a21_x = _torch_product(a21, x, p)
    top_right = _torch_product(x_a12, y, p, sign=-1)  # −X A12 Y
    top_left = _torch_product(top_right, a21_x, p, add_to=x, sign=-1)  # X + X A12 Y A21 X
    bottom_left = _torch_product(y, a21_x, p, sign=-1)  # −Y A21 X
    inverse = torch.cat([torch.cat([top_left, top_right], dim=1), torch.cat([bottom_left, y], dim=1)], dim=0)
    return det, inverse, ok11 & ok22


def random_toeplitz_entries(rng: np.random.Generator, size: int, p: int) -> np.ndarray:
    """1 followed by size − 1 uniform residues mod p, centred, as float64."""
    entries = np.concatenate([[1], rng.integers(0, p, size - 1)])
    return centred_residues(entries[None, :], p)[0]


def _toeplitz(first: np.ndarray, upper: bool) -> np.ndarray:
    """Unit triangular Toeplitz matrix with the given off-diagonal entries (first[0] = 1)."""
    size = first.size
    index = np.arange(size)
    offsets = (index[None, :] - index[:, None]) if upper else (index[:, None] - index[None, :])
    return np.where(offsets >= 0, first[np.clip(offsets, 0, size - 1)], 0.0)


def torch_det(a, p: int = PRIME, device: str = "cpu", rng: np.random.Generator | None = None) -> int:
    """det(a) mod p by recursive Schur complements on torch (``device`` "cpu" or "cuda").

    One host synchronisation per attempt. If a leading minor vanishes, the attempt is
    repeated once on U·a·L with random unit triangular Toeplitz U (upper) and L (lower),
    whose determinant is det(a); raises ``LeadingMinorVanished`` if that fails too (the
    caller then uses ``factor``, which pivots)."""
    import torch

    a = _as_matrix(a)
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"determinant of a non-square {a.shape[0]}×{a.shape[1]} matrix")
    p = check_prime(p)
    if a.shape[0] == 0:
        return 1
    table = inverse_table(p, device)
    matrix = torch.as_tensor(centred_residues(a, p), device=device)
    det, _, ok = _schur_det_inverse(matrix, p, table, want_inverse=False)
    if bool(ok):
        return int(det.item()) % p
    rng = rng if rng is not None else np.random.default_rng(a.shape[0])
    size = a.shape[0]
    upper, lower = (torch.as_tensor(_toeplitz(random_toeplitz_entries(rng, size, p), up), device=device)
                    for up in (True, False))
    preconditioned = _torch_product(_torch_product(upper, matrix, p), lower, p)
    det, _, ok = _schur_det_inverse(preconditioned, p, table, want_inverse=False)
    if bool(ok):
        return int(det.item()) % p
    raise LeadingMinorVanished(f"a leading minor of the {size}×{size} matrix vanished modulo {p} twice")
