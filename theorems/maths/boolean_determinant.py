"""The Boolean determinant of giannou2023 (App. D, Definition 8) and the exhaustive tables.

DetBool is defined by a first-column expansion with ``max`` in place of the signed sum:
DetBool(B) = max_i B[i, 0] · DetBool(B without row i and column 0). It is 1 exactly when the
bipartite graph of B (rows on one side, columns on the other) has a perfect matching, that is
when the permanent of B has a nonzero term. Three views of that one fact live here:

- ``detbool_recursive``: the definition as printed (memoized), the oracle for small sizes;
- ``detbool``: maximum bipartite matching (``scipy.sparse.csgraph``), for any size;
- ``detbool_stack``: the same for a whole stack of masks in one matching (small masks in bulk);
- ``perfect_matchings``: the nonzero terms of the permanent, enumerated (small sizes).

Certificates that make either value checkable without trusting the code: a perfect matching
(``perfect_matching``) proves DetBool = 1; a Frobenius–König zero block, r rows and c columns
of zeros with r + c > n (``frobenius_konig_block``), proves DetBool = 0, and also that every
matrix with that zero pattern is singular (its r rows live in n − c < r columns).
"""

from __future__ import annotations

import itertools
import math
from functools import cache

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components, maximum_bipartite_matching

# The literal recursion visits every subset of rows: 2^n states of n steps each.
RECURSIVE_MAX_SIZE = 20
# Enumerating permutations: n! terms.
PERMUTATION_MAX_SIZE = 9
# 2^(n²) matrices: n = 5 is 3.4e7, n = 6 would be 6.9e10.
ENUMERATION_MAX_SIZE = 5
# detbool_stack matches at most this many cells at once (its index arrays: ~24 bytes a one).
STACK_CHUNK_CELLS = 1 << 22


def boolean_matrix(mask, *, square: bool = True, name: str = "mask") -> np.ndarray:
    """``mask`` as a boolean array, or a ValueError naming what is wrong with it.

    Accepted: bool arrays and numeric arrays whose entries are all 0 or 1 (ints or floats).
    """
    if sparse.issparse(mask):
        mask = mask.toarray()
    array = np.asarray(mask)
    if array.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix, got shape {array.shape}")
    if square and array.shape[0] != array.shape[1]:
        raise ValueError(f"{name} must be square, got shape {array.shape[0]}×{array.shape[1]}")
    if array.size == 0:
        raise ValueError(f"{name} is empty (shape {array.shape}); Definition 8 starts at d = 1")
    if array.dtype == bool:
        return array
    if array.dtype.kind not in "iuf":
        raise ValueError(f"{name} must hold 0/1 or booleans, got dtype {array.dtype}")
    if array.dtype.kind == "f" and np.isnan(array).any():
        raise ValueError(f"{name} has NaN entries")
    if not np.isin(array, (0, 1)).all():
        bad = array[~np.isin(array, (0, 1))].ravel()[0]
        raise ValueError(f"{name} must be Boolean (entries 0 or 1), found {bad!r}")
    return array.astype(bool)


def detbool_recursive(mask: np.ndarray) -> int:
    """DetBool by Definition 8 as printed: expansion along the first column with max.

    The printed range i ∈ {0, …, d} is read as {0, …, d − 1} (0-based rows; row d does not
    exist). After removing the first k columns the submatrix is fixed by which rows remain,
    so memoizing on that row set turns d! paths into 2^d states without changing the rule.
    """
    b = boolean_matrix(mask)
    n = b.shape[0]
    if n > RECURSIVE_MAX_SIZE:
        raise ValueError(f"detbool_recursive visits 2^n row sets; n = {n} > {RECURSIVE_MAX_SIZE}, use detbool")
    column_rows = [tuple(int(i) for i in np.flatnonzero(b[:, j])) for j in range(n)]

    @cache
    def expand(remaining_rows: frozenset) -> int:
        column = n - len(remaining_rows)
        if len(remaining_rows) == 1:
            (row,) = remaining_rows
            return int(b[row, column])
        return max(
            (expand(remaining_rows - {row}) for row in column_rows[column] if row in remaining_rows),
            default=0,
        )

    return expand(frozenset(range(n)))


def _csr(mask) -> sparse.csr_array:
    if sparse.issparse(mask):
        # A copy: stored zeros are dropped below and would otherwise count as edges.
        csr = sparse.csr_array(mask, copy=True)
        if csr.shape[0] != csr.shape[1] or 0 in csr.shape:
            raise ValueError(f"mask must be square and nonempty, got shape {csr.shape[0]}×{csr.shape[1]}")
        csr.eliminate_zeros()
        if csr.dtype.kind == "f" and np.isnan(csr.data).any():
            raise ValueError("mask has NaN entries")
        if csr.dtype != bool and not np.isin(csr.data, (0, 1)).all():
            stray = csr.data[~np.isin(csr.data, (0, 1))][0]
            raise ValueError(f"mask must be Boolean (entries 0 or 1), found {stray!r}")
        return csr
    return _csr_of_ones(*np.nonzero(boolean_matrix(mask)), np.shape(mask))


def _csr_of_ones(rows: np.ndarray, columns: np.ndarray, shape: tuple[int, int]) -> sparse.csr_array:
    """The 0/1 matrix with ones at (rows, columns), listed row by row as ``np.nonzero`` lists
    them: the CSR arrays directly, without scipy's dense conversion through COO."""
    row_starts = np.zeros(shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=shape[0]), out=row_starts[1:])
    return sparse.csr_array((np.ones(len(columns), dtype=bool), columns, row_starts), shape=shape)


def _row_of_column(csr: sparse.csr_array) -> np.ndarray:
    """For each column, the row matched to it in a maximum matching (−1: unmatched)."""
    return maximum_bipartite_matching(csr, perm_type="row")


def perfect_matching(mask) -> np.ndarray | None:
    """Rows r with mask[r[j], j] = 1 for every column j, all distinct; None when none exists."""
    row_of_column = _row_of_column(_csr(mask))
    return None if (row_of_column < 0).any() else row_of_column


def detbool(mask) -> int:
    """DetBool(mask) ∈ {0, 1} via maximum bipartite matching (Hopcroft–Karp in scipy).

    Accepts dense arrays and scipy sparse matrices; near-linear in the number of ones.
    """
    return int(perfect_matching(mask) is not None)


def detbool_stack(masks) -> np.ndarray:
    """DetBool of each n×n mask of a (k, n, n) stack, as an int64 array of 0s and 1s.

    Equal to ``detbool`` on each mask, without its per-call overhead (which dominates for small
    n). A mask with a zero row or column is 0 at once (a Frobenius–König block of one line);
    the others are decided, a chunk at a time, by one maximum matching of their disjoint union
    (a block-diagonal graph): a maximum matching of a disjoint union restricts to a maximum
    matching of each part (otherwise that part's augmenting path would augment the whole), so
    a mask has a perfect matching iff all its columns are matched.
    """
    stack = np.asarray(masks)
    if stack.ndim != 3 or stack.shape[1] != stack.shape[2] or stack.shape[1] == 0:
        raise ValueError(f"expected a stack of nonempty square masks, got shape {stack.shape}")
    values = np.zeros(len(stack), dtype=np.int64)
    if not len(stack):
        return values
    n = stack.shape[1]
    stack = boolean_matrix(stack.reshape(-1, n), square=False, name="masks").reshape(stack.shape)
    no_zero_line = np.flatnonzero(stack.any(axis=1).all(axis=1) & stack.any(axis=2).all(axis=1))
    per_chunk = max(1, STACK_CHUNK_CELLS // (n * n))
    for start in range(0, len(no_zero_line), per_chunk):
        chosen = no_zero_line[start : start + per_chunk]
        # Row r of the stacked rows belongs to mask r // n, whose columns start at (r // n)·n.
        rows, columns = np.nonzero(stack[chosen].reshape(-1, n))
        union = _csr_of_ones(rows, rows // n * n + columns, (len(chosen) * n,) * 2)
        values[chosen] = (_row_of_column(union).reshape(-1, n) >= 0).all(axis=1)
    return values


def frobenius_konig_block(mask) -> tuple[np.ndarray, np.ndarray] | None:
    """Rows R and columns C with mask[R, C] = 0 and |R| + |C| > n, or None when the mask
    has a perfect matching (Frobenius–König: exactly one of the two exists).

    Take a maximum matching and the columns C reachable from an unmatched column along
    alternating paths (column → a row with a one in it → the column matched to that row).
    Every row with a one in C is matched (else the path would augment) to a column of C, so
    fewer than |C| rows touch C; the other rows form R.
    """
    csr = _csr(mask)
    n = csr.shape[0]
    row_of_column = _row_of_column(csr)
    unmatched = np.flatnonzero(row_of_column < 0)
    if unmatched.size == 0:
        return None
    column_of_row = np.full(n, -1, dtype=np.int64)
    matched = row_of_column >= 0
    column_of_row[row_of_column[matched]] = np.flatnonzero(matched)
    csc = csr.tocsc()
    reached = np.zeros(n, dtype=bool)
    touched = np.zeros(n, dtype=bool)
    reached[unmatched] = True
    frontier = unmatched
    while frontier.size:
        rows = np.concatenate([csc.indices[csc.indptr[j] : csc.indptr[j + 1]] for j in frontier])
        touched[rows] = True
        columns = column_of_row[rows]
        frontier = np.unique(columns[(columns >= 0) & ~reached[np.maximum(columns, 0)]])
        reached[frontier] = True
    return np.flatnonzero(~touched), np.flatnonzero(reached)


def has_unique_perfect_matching(mask) -> bool:
    """True when the mask has exactly one perfect matching.

    A perfect matching is unique iff it admits no alternating cycle, i.e. the directed graph
    on columns with j → k when column j has a one in the row matched to k ≠ j is acyclic:
    all its strongly connected components are single columns.
    """
    csr = _csr(mask)
    row_of_column = _row_of_column(csr)
    if (row_of_column < 0).any():
        return False
    n = csr.shape[0]
    column_of_row = np.empty(n, dtype=np.int64)
    column_of_row[row_of_column] = np.arange(n)
    coo = csr.tocoo()
    sources, targets = coo.col, column_of_row[coo.row]
    keep = sources != targets
    graph = sparse.csr_array((np.ones(keep.sum(), dtype=np.int8), (sources[keep], targets[keep])), shape=(n, n))
    components, _ = connected_components(graph, directed=True, connection="strong")
    return components == n


@cache
def _permutations(n: int) -> np.ndarray:
    """All n! permutations of range(n) as rows, lexicographic (one empty row for n = 0);
    cached, so read-only."""
    permutations = np.array(list(itertools.permutations(range(n))), dtype=np.intp).reshape(math.factorial(n), n)
    permutations.flags.writeable = False
    return permutations


def perfect_matchings(mask) -> np.ndarray:
    """Every nonzero term of the permanent: permutations s (one row per column) with
    mask[s[j], j] = 1 for all j, as a k×n array in lexicographic order."""
    b = boolean_matrix(mask)
    return _permutations(_enumerable_size(b.shape[0]))[_term_is_nonzero(b)]


def permanent_term_counts(masks: np.ndarray) -> np.ndarray:
    """The number of nonzero permanent terms of each n×n 0/1 matrix in a (k, n, n) stack."""
    masks = np.asarray(masks, dtype=bool)
    if masks.ndim != 3 or masks.shape[1] != masks.shape[2]:
        raise ValueError(f"expected a stack of square matrices, got shape {masks.shape}")
    _enumerable_size(masks.shape[1])
    return _term_is_nonzero(masks).sum(axis=-1)


def _enumerable_size(n: int) -> int:
    if n > PERMUTATION_MAX_SIZE:
        raise ValueError(f"enumerating n! permutations; n = {n} > {PERMUTATION_MAX_SIZE}")
    return n


def _term_is_nonzero(masks: np.ndarray) -> np.ndarray:
    """[..., t]: whether the t-th permutation's term mask[s[0], 0]·…·mask[s[n−1], n−1] is 1."""
    n = masks.shape[-1]
    permutations = _permutations(n)
    return masks[..., permutations, np.arange(n)].all(axis=-1)


def permutation_signs(permutations: np.ndarray) -> np.ndarray:
    """±1 for each row of a k×n array of permutations (parity of the inversion count)."""
    permutations = np.asarray(permutations)
    n = permutations.shape[1]
    inversions = np.zeros(permutations.shape[0], dtype=np.int64)
    for i, j in itertools.combinations(range(n), 2):
        inversions += permutations[:, i] > permutations[:, j]
    return 1 - 2 * (inversions % 2)


# --- exhaustive tables -------------------------------------------------------------------


def _all_binary_matrices(rows: int, cols: int) -> np.ndarray:
    """Every rows×cols 0/1 matrix, as a (2^(rows·cols), rows, cols) int64 array."""
    bits = rows * cols
    codes = np.arange(1 << bits, dtype=np.int64)
    return ((codes[:, None] >> np.arange(bits)) & 1).reshape(codes.size, rows, cols)


def _leibniz(matrices: np.ndarray, signed: bool) -> np.ndarray:
    """Determinants (signed) or permanents of a stack of k×k integer matrices, k ≤ 3 here:
    the Leibniz sum over k! permutations, vectorized over the stack (k = 0 gives 1)."""
    k = matrices.shape[-1]
    permutations = _permutations(k)
    signs = permutation_signs(permutations) if signed else np.ones(len(permutations), dtype=np.int64)
    total = np.zeros(matrices.shape[0], dtype=np.int64)
    for sign, permutation in zip(signs, permutations, strict=True):
        total += sign * matrices[:, np.arange(k), permutation].prod(axis=1)
    return total


def _minor_tables(n: int, top_rows: int) -> tuple[np.ndarray, ...]:
    """Minors for the generalized Laplace expansion along the first ``top_rows`` rows.

    For each column set S of size top_rows: every possible top block's minor on S (with the
    expansion sign folded in) and every possible bottom block's minor on the complement of S,
    both for the determinant and for the permanent (same expansion, no signs).
    """
    subsets = list(itertools.combinations(range(n), top_rows))
    complements = [tuple(sorted(set(range(n)) - set(s))) for s in subsets]
    # Laplace sign (−1)^(Σ rows + Σ columns); rows are 0..top_rows−1 (1-based shifts cancel).
    signs = np.array([(-1) ** (sum(range(top_rows)) + sum(s)) for s in subsets], dtype=np.int64)
    tops = _all_binary_matrices(top_rows, n)
    bottoms = _all_binary_matrices(n - top_rows, n)
    top_det = np.stack([_leibniz(tops[:, :, list(s)], True) for s in subsets], axis=1) * signs
    top_perm = np.stack([_leibniz(tops[:, :, list(s)], False) for s in subsets], axis=1)
    bottom_det = np.stack([_leibniz(bottoms[:, :, list(c)], True) for c in complements], axis=1)
    bottom_perm = np.stack([_leibniz(bottoms[:, :, list(c)], False) for c in complements], axis=1)
    return top_det, top_perm, bottom_det, bottom_perm


def enumerate_boolean(n: int, progress: bool = False) -> dict:
    """Over all 2^(n²) n×n 0/1 matrices: how many have DetBool = 0 and how many are singular
    over Q. Returns {"n", "total", "detbool_zero", "singular"}.

    Every matrix is split into its top ⌊n/2⌋ rows and the rest; the generalized Laplace
    expansion det M = Σ_S ± det(top on S)·det(bottom off S) turns the determinants of all
    top × bottom combinations into one integer matrix product of two minor tables, and the
    same expansion without signs gives the permanents (DetBool = 0 ⇔ permanent = 0, since
    every term of a 0/1 permanent is 0 or 1). int64 is exact here: a 0/1 minor of size k is
    at most k! in absolute value and the products sum to at most n! = 120 for n = 5.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"n must be an integer, got {n!r}")
    if n < 1:
        raise ValueError(f"n must be at least 1 (matrices are n×n), got {n}")
    if n > ENUMERATION_MAX_SIZE:
        # (exactly: 2^(n²) as a float overflows from n = 32 on)
        raise ValueError(f"n = {n} means 2^{n * n} matrices; at most n = {ENUMERATION_MAX_SIZE} is enumerable")
    n = int(n)
    top_det, top_perm, bottom_det, bottom_perm = _minor_tables(n, n // 2)
    chunk = max(1, (1 << 22) // bottom_det.shape[0])  # about 4M matrices per step
    starts = range(0, top_det.shape[0], chunk)
    if progress:
        from tqdm import tqdm

        starts = tqdm(starts, desc=f"enumerate n={n}", unit="block", total=math.ceil(top_det.shape[0] / chunk))
    singular = detbool_zero = 0
    for start in starts:
        stop = start + chunk
        singular += int(np.count_nonzero(top_det[start:stop] @ bottom_det.T == 0))
        detbool_zero += int(np.count_nonzero(top_perm[start:stop] @ bottom_perm.T == 0))
    return {"n": n, "total": 1 << (n * n), "detbool_zero": detbool_zero, "singular": singular}
