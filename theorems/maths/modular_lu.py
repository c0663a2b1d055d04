"""Exact LU modulo a prime at floating-point BLAS speed, in place: determinant, rank and a
nonzero minor of an integer matrix modulo p, on the CPU or a GPU, in one copy of the matrix.

Arithmetic (FFLAS-FFPACK style). Residues are stored as float64, centred in
[−(p−1)/2, (p−1)/2]. For a prime p < 2^20 a product of two residues is below 2^38, so a
matrix product with inner size k < 2^15 sums integers below 2^53: every partial sum is
an integer that float64 represents exactly, in any summation order, so BLAS (or cuBLAS)
computes the product *exactly*. It is then reduced by ``x − p·rint(x·(1/p))``. For
|x| < 2^53 the computed quotient is within 2^53/p · 2^−52 = 2/p of x/p, so the result is
congruent to x and at most (p+3)/2 in absolute value; ``max_inner`` sizes the products
for that bound (32767 for the default prime; ``primes_for`` picks smaller primes for
larger matrices).

Memory: one copy. ``factor`` builds the float64 residues of the matrix in a torch tensor,
column block by column block from its integer source (``IntegerColumns``: a dense integer
array, or a structured matrix such as a Khatri–Rao product that makes its residues from the
points it is built from, so no integer copy of the whole matrix exists), then factors it in
place: Schur updates are BLAS products accumulated into the matrix (``addmm_`` on views),
row exchanges are applied in column chunks, and every working block is bounded
independently of n (``BLOCK_ENTRIES``, the leaves' few columns and the solves' few rows).

Algorithm: a recursive, LAPACK ``getrf2``-style PLUQ, the same on every device. Columns are
split in halves; the left half is factored with row pivoting (any nonzero pivot is exact), a
column with no nonzero pivot left is a non-pivot column (rank-revealing), the right half
gets a recursive triangular solve and one Schur-complement product, then is factored in
turn. Narrow panels (leaves) are eliminated on the device that holds them: their top block
column by column, the rows below by one product; only a leaf that needs a row exchange (rare
for a random point) goes to the host and back. It returns the rank, det mod p and the rows
and columns of an r×r minor that is nonzero mod p:
the certificate that the rank over Q is at least r.

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
from typing import Protocol

import flint
import numpy as np

from ..lazy import torch

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


# numpy arrays with at least this many entries are reduced by torch, on its threads, in chunks
# of about this many entries: a chunk's temporaries (512 KiB) stay in cache, so a large array
# is read and written once instead of seven times (4096²: 22 ms instead of 70 on two cores).
THREADED_REDUCTION = 1 << 16


def reduce(x, p: int):
    """Reduce exact integers |x| < 2^53 held in float64 modulo p, in place: x − p·rint(x/p).
    ``x`` is a numpy array or a torch tensor (both round halves to even); a large numpy array
    goes through a torch view of its memory, whose elementwise kernels use torch's threads."""
    if isinstance(x, np.ndarray) and x.size < THREADED_REDUCTION:
        quotient = x * (1.0 / p)
        np.rint(quotient, out=quotient)
        quotient *= p
        x -= quotient
        return x
    values = torch.from_numpy(x) if isinstance(x, np.ndarray) else x
    if values.is_cuda or values.dim() != 2 or values.numel() <= THREADED_REDUCTION:
        _reduce_tensor(values, p)
        return x
    outer = 0 if values.stride(0) >= values.stride(1) else 1  # chunks of whole inner lines
    step = max(1, THREADED_REDUCTION * values.shape[outer] // values.numel())
    for start in range(0, values.shape[outer], step):
        _reduce_tensor(values.narrow(outer, start, min(step, values.shape[outer] - start)), p)
    return x


def _reduce_tensor(values: torch.Tensor, p: int) -> None:
    quotient = values * (1.0 / p)
    quotient.round_()
    values.sub_(quotient, alpha=p)


def _inverse(value: float, p: int) -> float:
    inverse = pow(int(value) % p, p - 2, p)
    return float(inverse - p if inverse > p // 2 else inverse)


def _lazy_limit(p: int, size: int) -> None:
    """The PLUQ reduces an entry only when it is about to be multiplied: until then
    it accumulates at most ``size`` products of reduced residues, which must stay exact."""
    if size > max_inner(p):
        raise ValueError(f"matrices larger than {max_inner(p)} in either dimension need a smaller prime than {p}")


# --- the matrix, built column block by column block -----------------------------------

# Entries of a working block outside the matrix (32 MiB of float64): building the residues,
# exchanging rows. Leaves and triangular solves hold a few columns or rows besides.
BLOCK_ENTRIES = 1 << 22


def _chunk_width(rows: int, matrix_entries: int) -> int:
    """Columns of a working block of ``rows`` rows: at most BLOCK_ENTRIES entries, and at
    most 1/64 of the matrix, so that a few working blocks stay within a quarter of it."""
    return max(1, min(BLOCK_ENTRIES, matrix_entries // 64) // max(rows, 1))


class IntegerColumns(Protocol):
    """An integer matrix that makes the centred residues of any of its column blocks."""

    @property
    def shape(self) -> tuple[int, int]: ...

    def residue_columns(self, p: int, start: int, stop: int) -> np.ndarray:
        """Columns start:stop as centred float64 residues modulo p."""
        ...


@dataclass(frozen=True)
class DenseColumns:
    """An integer array (any integer dtype, bool or Python ints) as ``IntegerColumns``."""

    matrix: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return self.matrix.shape

    def residue_columns(self, p: int, start: int, stop: int) -> np.ndarray:
        return centred_residues(self.matrix[:, start:stop], p)


def residue_matrix(source: IntegerColumns, p: int, device: str = "cpu"):
    """The float64 residues of ``source`` modulo p, written column block by column block into
    the one array that the factorization then overwrites: a numpy array on the CPU, a torch
    tensor on CUDA."""
    rows, cols = source.shape
    on_host = device == "cpu"
    # Column-major: a panel's columns, a column block of the build, are contiguous.
    work = np.empty((rows, cols), order="F") if on_host else torch.empty((cols, rows), dtype=torch.float64,
                                                                           device=device).T
    width = _chunk_width(rows, rows * cols)
    for start in range(0, cols, width):
        stop = min(cols, start + width)
        block = np.asarray(source.residue_columns(p, start, stop), dtype=np.float64)
        work[:, start:stop] = block if on_host else torch.from_numpy(block)
    return work


def columns_of(a) -> IntegerColumns:
    """``a`` as ``IntegerColumns``: an integer array is checked and wrapped, a source kept."""
    if hasattr(a, "residue_columns"):
        return a
    return DenseColumns(_as_matrix(a))


# --- PLUQ, in place ------------------------------------------------------------------
#
# One algorithm for numpy arrays (the CPU) and torch tensors (CUDA): the code below uses the
# syntax both share, and the few operations that differ go through the helpers here. On the
# CPU, small operations cost numpy's microsecond, and large products go to BLAS through torch
# views of the same memory (numpy's ``c -= a @ b`` would hold a temporary as large as c).
#
# Lazy reduction: an entry of the working matrix is reduced only right before it is used
# as a factor of a product (a pivot column, a pivot row, a row of U12). Until then it only
# accumulates Schur updates, at most one product of reduced residues per pivot eliminated
# before it, so for a matrix with at most max_inner(p) rows and columns it stays an exact
# integer below 2^53. Each entry is reduced O(1) times instead of once per recursion level.
#
# Packing: after ``_factor`` a block's pivot columns are its first r columns (non-pivot
# columns are overwritten; only the L part of the pivot columns is read again), so that a
# parent takes its left half's L as the view block[:, :r].

# Panels this narrow are leaves. Wider leaves mean fewer recursion steps (each a few numpy or
# kernel calls) and the same per-column cost: 32 was the fastest of 8, 16, 32 and 64 at 1024²
# and 4096² on the CPU.
LEAF_COLUMNS = 32
LEAF_SOLVE = 64  # triangular systems this small are solved by their inverse


def _subtract_product(c, a, b) -> None:
    """c ← c − a·b in place, by BLAS (or cuBLAS) on views of c's memory."""
    if isinstance(c, np.ndarray):
        c, a, b = torch.from_numpy(c), torch.from_numpy(a), torch.from_numpy(b)
    c.addmm_(a, b, alpha=-1)


# numpy's BLAS (OpenBLAS) runs products of at most this many multiply-adds on one thread.
SMALL_PRODUCT = 1 << 18


def _product(a, b):
    """a·b. Large products of numpy arrays go through torch, so that every product that may
    use threads runs on one BLAS whose threads ``torch.set_num_threads`` sets; small ones stay
    in numpy, whose call costs a microsecond."""
    if isinstance(a, np.ndarray) and a.shape[0] * a.shape[1] * b.shape[1] > SMALL_PRODUCT:
        return (torch.from_numpy(a) @ torch.from_numpy(b)).numpy()
    return a @ b


def _strict_lower_and_identity(lower):
    """(the strictly lower triangle of ``lower``, the identity of its size), as its type."""
    size = lower.shape[0]
    if isinstance(lower, np.ndarray):
        return np.tril(lower, -1), np.eye(size)
    return torch.tril(lower, -1), torch.eye(size, dtype=lower.dtype, device=lower.device)


def _unit_lower_inverse(lower, p: int):
    """L⁻¹ mod p for a small unit lower triangular L = I + N (the diagonal of ``lower`` is
    ignored): N is nilpotent, so L⁻¹ = Σ_j (−N)^j = (I − N)(I + N²)(I + N⁴)···, a few small
    matrix products instead of one step per row."""
    strict, identity = _strict_lower_and_identity(lower)
    power = -strict  # (−N)^span
    inverse = identity + power  # Σ_{j < span} (−N)^j
    span = 2
    while span < lower.shape[0]:
        power = reduce(_product(power, power), p)
        inverse += _product(inverse, power)
        reduce(inverse, p)
        span *= 2
    return inverse


def _solve_unit_lower(lower, b, p: int, inverses: dict) -> None:
    """b ← L⁻¹ b for unit lower triangular L (reduced residues; the diagonal is ignored), in
    place and recursively; b may be unreduced, the result is reduced. ``inverses`` holds the
    inverses of L's diagonal blocks by their place in memory: the recursion levels above
    solve with the same blocks, which do not change once factored (see ``_factor``)."""
    size = lower.shape[0]
    if size <= LEAF_SOLVE:
        key = (_address(lower), size)
        if key not in inverses:
            inverses[key] = _unit_lower_inverse(lower, p)
        reduce(b, p)
        b[:] = _product(inverses[key], b)
        reduce(b, p)
        return
    half = size // 2
    _solve_unit_lower(lower[:half, :half], b[:half], p, inverses)
    _subtract_product(b[half:], lower[half:, :half], b[:half])
    _solve_unit_lower(lower[half:, half:], b[half:], p, inverses)


def _address(view) -> int:
    return view.__array_interface__["data"][0] if isinstance(view, np.ndarray) else view.data_ptr()


def _permute_rows(block, order: np.ndarray) -> None:
    """block[i] ← block[order[i]] in place, for the rows that move, in column chunks."""
    moved = np.flatnonzero(order != np.arange(order.size))
    if moved.size == 0:
        return
    target, source = moved, order[moved]
    if not isinstance(block, np.ndarray):
        target, source = (torch.as_tensor(x, device=block.device) for x in (target, source))
    width = _chunk_width(moved.size, block.shape[0] * block.shape[1])
    for start in range(0, block.shape[1], width):
        chunk = block[:, start:start + width]
        chunk[target] = chunk[source]


def _move_columns(block, sources: list[int], first_row: int = 0) -> None:
    """Column i ← column sources[i] (rows first_row:), for increasing sources[i] ≥ i: in
    increasing i, no source is overwritten before it is read."""
    for i, source in enumerate(sources):
        if source != i:
            block[first_row:, i] = block[first_row:, source]


def _as_array_like(values: list[float], like):
    """``values`` as a float64 vector of ``like``'s kind: a numpy array, or a tensor on its device."""
    if isinstance(like, np.ndarray):
        return np.array(values, dtype=np.float64)
    return torch.tensor(values, dtype=torch.float64, device=like.device)


def _copy(block):
    return block.copy() if isinstance(block, np.ndarray) else block.clone()


def _factor_leaf_without_exchanges(columns, p: int) -> list[float] | None:
    """The usual leaf, on the device that holds it: when every leading minor of the panel's
    top w×w block A11 is nonzero mod p, elimination takes no row exchange, so A11 = L11·U11
    column by column on the w×w block alone, and L21 = A21·U11⁻¹ by one product. ``columns``
    is the panel's transpose (reduced; ``columns[j, i]`` is entry (i, j)), overwritten with
    L and U; returns the pivots, or None, with ``columns`` untouched, when a leading minor
    vanishes. U11⁻¹ = V⁻¹D⁻¹ for U11 = D·V with V unit upper, and V⁻¹ is a unit triangular
    inverse (``_unit_lower_inverse``, on Vᵀ)."""
    width, rows = columns.shape
    if rows < width:
        return None
    top = _copy(columns[:, :width])  # top[j, i] = A11[i, j]: U in its lower triangle, L above
    pivots = []
    for k in range(width):
        pivot = float(top[k, k])  # on a GPU, the one synchronisation of a column
        if pivot == 0:
            return None
        pivots.append(pivot)
        if k + 1 < width:
            multipliers = top[k, k + 1:]  # A11[k+1:, k] / pivot
            multipliers *= _inverse(pivot, p)
            reduce(multipliers, p)
            trailing = top[k + 1:, k + 1:]
            trailing -= top[k + 1:, k, None] * multipliers[None, :]
            reduce(trailing, p)
    inverse_pivots = _as_array_like([_inverse(pivot, p) for pivot in pivots], top)
    unit_lower = reduce(top * inverse_pivots[None, :], p)  # Vᵀ = U11ᵀ D⁻¹ (its strict lower part)
    inverse = reduce(inverse_pivots[:, None] * _unit_lower_inverse(unit_lower, p), p)  # U11⁻ᵀ = D⁻¹ V⁻ᵀ
    columns[:, width:] = reduce(_product(inverse, columns[:, width:]), p)  # L21ᵀ = U11⁻ᵀ A21ᵀ
    columns[:, :width] = top
    return pivots


def _factor_leaf(panel, p: int) -> tuple[np.ndarray, list[int], list[float]]:
    """Elimination of a narrow panel, packed: on the device that holds it when no row exchange
    is needed (``_factor_leaf_without_exchanges``), else column by column with pivoting, on
    the host. Returns the row order, the pivot columns and the pivots. Works on the panel's
    transpose, whose rows (the panel's columns) are contiguous in the column-major matrix.
    The columns not yet eliminated are kept reduced (a zero test is exact only on reduced
    residues), one reduction per step."""
    on_host = isinstance(panel, np.ndarray)
    columns = reduce(panel.T, p)
    cols, rows = columns.shape
    order = np.arange(rows)
    pivots = _factor_leaf_without_exchanges(columns, p)
    if pivots is not None:
        return order, list(range(cols)), pivots
    if not on_host:  # a few MB there and back: exchanges are the rare leaf
        device_columns, columns = columns, columns.cpu().numpy()
    pivot_columns, pivots = [], []
    r = 0
    for j in range(cols):
        if r == rows:
            break
        if columns[j, r] != 0:  # the usual case: no search, no exchange
            i = r
        else:
            nonzero = np.flatnonzero(columns[j, r:])
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
            rest = columns[j + 1:, r + 1:]
            rest -= columns[j + 1:, r, None] * below[None, :]
            reduce(rest, p)
        pivot_columns.append(j)
        pivots.append(pivot)
        r += 1
    columns[:r] = columns[pivot_columns]
    if not on_host:
        device_columns.copy_(torch.from_numpy(columns))
    return order, pivot_columns, pivots


def _factor(block, p: int, inverses: dict) -> tuple[np.ndarray, list[int], list[float]]:
    """PLUQ of ``block`` (a view, overwritten with L and U, packed): the row order (a
    permutation of its rows), the pivot columns in increasing order, and the pivots.
    The diagonal blocks of L keep their place once factored (row exchanges only reach rows
    below them), unless packing moves columns: then ``inverses`` is emptied."""
    rows, cols = block.shape
    if cols <= LEAF_COLUMNS:
        return _factor_leaf(block, p)
    half = cols // 2
    left, right = block[:, :half], block[:, half:]
    order, left_columns, pivots = _factor(left, p, inverses)
    _permute_rows(right, order)
    r1 = len(left_columns)
    if r1:
        _solve_unit_lower(left[:r1, :r1], right[:r1], p, inverses)
        if r1 < rows:
            _subtract_product(right[r1:], left[r1:, :r1], right[:r1])
    right_order, right_columns, right_pivots = _factor(right[r1:], p, inverses)
    _permute_rows(left[r1:], right_order)
    order[r1:] = order[r1:][right_order]
    if r1 < half:  # pack: the right half's pivot columns (L below row r1) follow the left's
        _move_columns(block, list(range(r1)) + [half + j for j in range(len(right_columns))], first_row=r1)
        inverses.clear()
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


def factor(a, p: int = PRIME, device: str = "cpu") -> Factorization:
    """PLUQ of the integer matrix ``a`` (an array or ``IntegerColumns``) modulo the prime p,
    on ``device`` ("cpu" or "cuda"), in one float64 copy of the matrix."""
    source = columns_of(a)
    p = check_prime(p)
    _lazy_limit(p, max(source.shape))
    return factor_residues(residue_matrix(source, p, device), p)


def factor_residues(work, p: int) -> Factorization:
    """PLUQ of a matrix of float64 residues modulo p (``residue_matrix``: a numpy array, or a
    torch tensor on any device, best column-major), overwritten with its L and U factors."""
    rows, cols = work.shape
    _lazy_limit(p, max(rows, cols))
    if rows == 0 or cols == 0:
        order, pivot_columns, pivots = np.arange(rows), [], []
    else:
        order, pivot_columns, pivots = _factor(work, p, {})
    rank = len(pivot_columns)
    det = None
    if rows == cols:
        det = 0
        if rank == rows:
            det = _permutation_sign(order) % p
            for pivot in pivots:
                det = det * int(pivot) % p
    return Factorization(p, (rows, cols), rank, np.sort(order[:rank]), np.asarray(pivot_columns, dtype=np.int64), det)


def warm_up(device: str = "cpu", size: int = 512) -> None:
    """Factor a random size×size matrix: BLAS loads its kernels and sizes its buffers (tens of
    MB with MKL) and the allocator grows its arenas, so that a time or a peak memory measured
    next, at a size up to this one, counts none of them."""
    factor(np.random.default_rng(0).integers(0, PRIME, (size, size)), PRIME, device)


def det_mod(a, p: int = PRIME, device: str = "cpu") -> int:
    """det(a) mod p for a square integer matrix (an array or ``IntegerColumns``)."""
    source = columns_of(a)
    if source.shape[0] != source.shape[1]:
        raise ValueError(f"determinant of a non-square {source.shape[0]}×{source.shape[1]} matrix")
    return factor(source, p, device).det


def rank_mod(a, p: int = PRIME, device: str = "cpu") -> int:
    return factor(a, p, device).rank
