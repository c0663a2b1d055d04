"""giannou2023, App. D, Lemma 10: both sides of the Bernoulli dominance as exact polynomials in p.

Read an index i of S ⊆ {0, …, d²−1} as the edge (⌊i/d⌋, i mod d) of a bipartite graph G_S
between rows (u_0 … u_{d−1}) and columns (v_0 … v_{d−1}). Σ_{i∈S} u_{⌊i/d⌋} v_{i mod d} = 0
exactly when no edge has both ends switched on, so with U the set of rows switched on

    left(p) = Σ_{U ⊆ rows} p^|U| (1 − p)^(#rows − |U|) (1 − p)^|N(U)|,

a polynomial with integer coefficients that depends on G_S only through the histogram
h[a, b] = #{U : |U| = a, |N(U)| = b}, so isomorphic graphs share it. The right side is
(1 − q)^|S|, and at q = p²/(c·d) the scaled gap (c·d)^|S| · (right − left) is again an
integer polynomial (for rational c), whose sign on (0, 1] is decided exactly here.

Every S up to row and column permutations is covered by enumerating the doubly lexical
0/1 matrices (rows and columns both in non-increasing lexicographic order): every matrix
has such an ordering (Lubiw, SIAM J. Comput. 16, 1987), and the tests check the coverage
against all 2^(d²) matrices for d ≤ 4.
"""

from __future__ import annotations

import copyreg
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from itertools import pairwise
from math import comb

import flint
import numpy as np
import sympy
from scipy.sparse.csgraph import connected_components

from theorems.engine.coverage import cached
from theorems.engine.fanout import chunks_of, map_chunks
from theorems.maths import exact

P = flint.fmpz_poly([0, 1])
# Left-side classes cross to cluster workers pickled (engine.fanout); python-flint's polynomials
# do not pickle by themselves, so they travel as their integer coefficients.
copyreg.pickle(flint.fmpz_poly, lambda poly: (flint.fmpz_poly, ([int(c) for c in poly.coeffs()],)))
# Enumerating subsets of one side of a component: 2^16 neighbourhoods at most.
MAX_ENUMERATED_SIDE = 16
# Neighbourhoods are bit masks in int64.
MAX_MASK_BITS = 62
# Doubly lexical enumeration: 2.6 million matrices at d = 6, ~10^9 at d = 7.
MAX_EXHAUSTIVE_D = 6


def _check_d(d) -> int:
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    return int(d)


def support_graph(subset, d: int) -> np.ndarray:
    """The d×d biadjacency matrix of G_S: entry (⌊i/d⌋, i mod d) is set for i ∈ S."""
    d = _check_d(d)
    indices = np.asarray(list(subset), dtype=np.int64)
    if indices.size and (indices.min() < 0 or indices.max() >= d * d):
        raise ValueError(f"S must lie in {{0, …, d²−1}} = {{0, …, {d * d - 1}}}, got {sorted(set(indices.tolist()))}")
    if np.unique(indices).size != indices.size:
        raise ValueError(f"S must be a set, got repeated indices in {indices.tolist()}")
    graph = np.zeros(d * d, dtype=bool)
    graph[indices] = True
    return graph.reshape(d, d)


def subset_of(graph: np.ndarray) -> list[int]:
    """S for a square biadjacency matrix (the inverse of ``support_graph``)."""
    graph = biadjacency(graph)
    if graph.shape[0] != graph.shape[1]:
        raise ValueError(f"S lives on a square d×d grid, got shape {graph.shape}")
    return np.flatnonzero(graph.ravel()).tolist()


def biadjacency(graph) -> np.ndarray:
    array = np.asarray(graph)
    if array.ndim != 2:
        raise ValueError(f"a bipartite graph is a 2-D 0/1 matrix, got shape {array.shape}")
    if array.dtype != bool:
        if array.dtype.kind not in "iuf" or not np.isin(array, (0, 1)).all():
            raise ValueError(f"a biadjacency matrix must hold 0/1 entries, got dtype {array.dtype}")
        array = array.astype(bool)
    return array


# --- neighbourhood histograms --------------------------------------------------------


def _subset_neighbourhoods(row_masks: np.ndarray) -> np.ndarray:
    """N(U) as a column mask for every subset U of the rows, U encoded by bits (row k = bit k);
    row_masks has shape (M, r) for M graphs at once, the result (M, 2^r)."""
    neighbourhoods = np.zeros((row_masks.shape[0], 1), dtype=np.int64)
    for k in range(row_masks.shape[1]):
        neighbourhoods = np.concatenate([neighbourhoods, neighbourhoods | row_masks[:, k : k + 1]], axis=1)
    return neighbourhoods


def _popcount(masks: np.ndarray) -> np.ndarray:
    return np.bitwise_count(masks.astype(np.uint64)).astype(np.int64)


def histograms(row_masks: np.ndarray, columns: int) -> np.ndarray:
    """h[a, b] = #{U : |U| = a, |N(U)| = b} for M graphs given by their row masks (M, r),
    flattened to shape (M, (r + 1)(columns + 1))."""
    row_masks = np.asarray(row_masks, dtype=np.int64)
    graphs, rows = row_masks.shape
    if rows > MAX_ENUMERATED_SIDE or columns > MAX_MASK_BITS:
        raise ValueError(f"histograms enumerate 2^rows subsets: rows ≤ {MAX_ENUMERATED_SIDE}, "
                         f"columns ≤ {MAX_MASK_BITS}; got {rows}, {columns}")
    sizes = _popcount(_subset_neighbourhoods(row_masks))
    on_rows = _popcount(np.arange(1 << rows))
    width = (rows + 1) * (columns + 1)
    cells = (np.arange(graphs)[:, None] * width + on_rows[None, :] * (columns + 1) + sizes).ravel()
    return np.bincount(cells, minlength=graphs * width).reshape(graphs, width)


@cached
def _basis(rows: int, columns: int) -> np.ndarray:
    """Row a·(columns+1)+b: the coefficients of p^a (1 − p)^(rows − a + b), ascending."""
    degree = rows + columns
    basis = np.zeros(((rows + 1) * (columns + 1), degree + 1), dtype=object)
    for a in range(rows + 1):
        for b in range(columns + 1):
            power = rows - a + b
            for k in range(power + 1):
                basis[a * (columns + 1) + b, a + k] = comb(power, k) * (-1) ** k
    return basis


def left_side_coefficients(hist: np.ndarray, rows: int, columns: int) -> np.ndarray:
    """Coefficients (ascending in p) of left(p) from histograms of shape (M, (rows+1)(columns+1));
    int64 when every coefficient provably fits, exact Python integers otherwise."""
    basis = _basis(rows, columns)
    bound = int(np.abs(basis).max()) * (1 << rows)  # Σ_{a,b} h[a, b] = 2^rows
    if bound < 1 << 62:
        return np.asarray(hist, dtype=np.int64) @ basis.astype(np.int64)
    return np.asarray(hist, dtype=object) @ basis


def _component_polynomial(block: np.ndarray) -> flint.fmpz_poly:
    """left(p) of one connected bipartite graph. Rows with equal neighbourhoods (twins) are
    merged into classes, so K_{30,30} is one class on each side; the side with fewer classes
    is enumerated. A class of m twins touched by U contributes (1 + x)^m − 1 ways to pick
    its switched-on rows, x counting them."""
    classes = [np.unique(side, axis=0, return_counts=True) for side in (block, block.T)]
    (class_rows, multiplicity) = min(classes, key=lambda c: len(c[1]))
    rows, columns = int(multiplicity.sum()), class_rows.shape[1]
    if len(multiplicity) > MAX_ENUMERATED_SIDE or columns > MAX_MASK_BITS:
        raise ValueError(
            f"component with {len(multiplicity)} twin classes on its smaller side and {columns} vertices on the "
            f"other is too large to enumerate (limits {MAX_ENUMERATED_SIDE}, {MAX_MASK_BITS})"
        )
    masks = (class_rows.astype(np.int64) << np.arange(columns)).sum(axis=1)
    sizes = _popcount(_subset_neighbourhoods(masks[None, :]))[0]
    on_counts = np.zeros((1, rows + 1), dtype=np.int64)
    on_counts[0, 0] = 1
    for m in multiplicity:
        touched = np.zeros_like(on_counts)
        for k in range(1, m + 1):
            touched[:, k:] += comb(int(m), k) * on_counts[:, : rows + 1 - k]
        on_counts = np.concatenate([on_counts, touched])
    hist = np.zeros((rows + 1, columns + 1), dtype=np.int64)
    np.add.at(hist.T, sizes, on_counts)
    coefficients = left_side_coefficients(hist.reshape(1, -1), rows, columns)[0]
    return flint.fmpz_poly([int(c) for c in coefficients])


def left_side_polynomial(graph) -> flint.fmpz_poly:
    """P(Σ over the edges of u_row·v_col = 0) for u, v iid Bern(p), as a polynomial in p.
    Connected components are independent, so their polynomials multiply."""
    graph = biadjacency(graph)
    rows = graph.shape[0]
    adjacency = np.block([[np.zeros((rows, rows), bool), graph], [graph.T, np.zeros((graph.shape[1],) * 2, bool)]])
    _, labels = connected_components(adjacency, directed=False)
    result = flint.fmpz_poly(1)
    for label in np.unique(labels):
        component_rows = np.flatnonzero(labels[:rows] == label)
        component_columns = np.flatnonzero(labels[rows:] == label)
        if component_rows.size and component_columns.size:
            result *= _component_polynomial(graph[np.ix_(component_rows, component_columns)])
    return result


def left_side_brute_force(subset, d: int, p: Fraction) -> Fraction:
    """The left side by summing over all 4^d outcomes of (u, v): the test oracle."""
    graph = support_graph(subset, d).astype(np.int64)
    total = Fraction(0)
    for u in range(1 << d):
        u_bits = np.array([(u >> k) & 1 for k in range(d)])
        for v in range(1 << d):
            v_bits = np.array([(v >> k) & 1 for k in range(d)])
            if u_bits @ graph @ v_bits == 0:
                on = int(u_bits.sum() + v_bits.sum())
                total += p**on * (1 - p) ** (2 * d - on)
    return total


def fmpq_value(poly: flint.fmpz_poly, p: Fraction) -> Fraction:
    return exact.fmpq_to_fraction(poly(exact.to_fmpq(p)))


# --- the sign of a polynomial on (0, 1] ------------------------------------------------


def dominance_gap(left: flint.fmpz_poly, edges: int, constant: Fraction, d: int) -> flint.fmpz_poly:
    """(A·d)^n · [(1 − q)^n − left(p)] at q = p²/(c·d), c = A/B, n = |S|: an integer polynomial
    with the sign of right − left."""
    scale = constant.numerator * d
    return (scale - constant.denominator * P**2) ** edges - scale**edges * left


def _descartes_sign_changes(g: flint.fmpz_poly) -> int:
    """Sign changes of (1 + t)^m g(1/(1 + t)): by Descartes' rule a bound on the number of
    roots of g in (0, 1). Hand-written because python-flint 0.9 has no real-root isolation
    for fmpz_poly and sympy's Sturm sequences are ~100× slower on these degree-70
    polynomials; a nonzero count falls back to sympy's exact isolation."""
    coefficients = g.coeffs()
    shifted = flint.fmpz_poly(coefficients[::-1])(flint.fmpz_poly([1, 1])).coeffs()
    signs = [c > 0 for c in shifted if c != 0]
    return sum(a != b for a, b in pairwise(signs))


def _strip_zero_at_origin(poly: flint.fmpz_poly) -> flint.fmpz_poly:
    coefficients = poly.coeffs()
    zeros = next(k for k, c in enumerate(coefficients) if c != 0)
    return flint.fmpz_poly(coefficients[zeros:])


def _gap_points(g: flint.fmpz_poly) -> list[Fraction]:
    """A rational point strictly between each pair of consecutive real roots of g in [0, 1]
    (sympy's exact isolation, refined until the isolating intervals separate)."""
    x = sympy.Symbol("x")
    poly = sympy.Poly([int(c) for c in reversed(g.coeffs())], x).sqf_part()
    isolating = sorted([list(interval) for interval, _ in poly.intervals(inf=0, sup=1)])
    points = []
    for left, right in pairwise(isolating):
        while left[1] >= right[0]:
            for interval in (left, right):
                if interval[0] != interval[1]:
                    interval[:] = poly.refine_root(*interval, eps=(interval[1] - interval[0]) / 4)
        points.append(Fraction((left[1] + right[0]) / 2))
    return points


@dataclass(frozen=True)
class SignDecision:
    """Whether a polynomial is ≥ 0 on (0, 1]; ``witness`` is an exact point where it is < 0."""

    witness: Fraction | None
    method: str  # "descartes" (no root in (0, 1)) or "isolation" (exact real-root isolation)


def decide_nonnegative(poly: flint.fmpz_poly) -> SignDecision:
    """Decide poly ≥ 0 on (0, 1] exactly. On (0, 1] poly has the sign of g = poly / p^k (k the
    order of its zero at 0); g has constant sign between consecutive roots, so checking 0⁺, 1
    and one point in each gap between roots decides it."""
    if poly.is_zero():
        return SignDecision(None, "descartes")
    g = _strip_zero_at_origin(poly)
    at_zero, at_one = int(g.coeffs()[0]), int(g(1))
    if at_zero > 0 and at_one > 0 and _descartes_sign_changes(g) == 0:
        return SignDecision(None, "descartes")
    if at_zero < 0:  # negative on (0, ε): halve until inside
        point = Fraction(1)
        while fmpq_value(g, point) >= 0:
            point /= 2
        return SignDecision(point, "isolation")
    if at_one < 0:
        return SignDecision(Fraction(1), "isolation")
    for point in _gap_points(g):
        if fmpq_value(g, point) < 0:
            return SignDecision(point, "isolation")
    return SignDecision(None, "isolation")


# --- every S up to isomorphism ---------------------------------------------------------


def doubly_lexical_masks(d: int) -> np.ndarray:
    """Row masks (bit d−1−j for column j) of every d×d 0/1 matrix whose rows and columns are
    both in non-increasing lexicographic order, shape (M, d). Rows are added one at a time;
    a prefix of rows must already have its column prefixes non-increasing."""
    d = _check_d(d)
    if d > MAX_EXHAUSTIVE_D:
        raise ValueError(f"exhaustive enumeration is limited to d ≤ {MAX_EXHAUSTIVE_D}, got {d}")
    candidates = np.arange((1 << d) - 1, -1, -1, dtype=np.int64)
    candidate_bits = (candidates[:, None] >> (d - 1 - np.arange(d))) & 1
    rows = np.zeros((1, 0), dtype=np.int64)
    column_prefixes = np.zeros((1, d), dtype=np.int64)
    for k in range(d):
        last = rows[:, -1] if k else np.full(1, (1 << d) - 1)
        grown_rows, grown_prefixes = [], []
        for candidate, bits in zip(candidates, candidate_bits, strict=True):
            prefixes = 2 * column_prefixes + bits
            keep = (candidate <= last) & np.all(prefixes[:, :-1] >= prefixes[:, 1:], axis=1)
            grown_rows.append(np.column_stack([rows[keep], np.full(int(keep.sum()), candidate)]))
            grown_prefixes.append(prefixes[keep])
        rows, column_prefixes = np.concatenate(grown_rows), np.concatenate(grown_prefixes)
    return rows


def masks_to_graph(masks: np.ndarray, d: int) -> np.ndarray:
    return ((np.asarray(masks)[:, None] >> (d - 1 - np.arange(d))) & 1).astype(bool)


@dataclass(frozen=True)
class LeftSideClass:
    """All S on the d×d grid with one left-side polynomial and one |S|."""

    edges: int
    left: flint.fmpz_poly
    representative: np.ndarray  # a d×d biadjacency matrix of the class


@dataclass(frozen=True)
class Enumeration:
    d: int
    matrices: int  # doubly lexical representatives enumerated
    classes: tuple[LeftSideClass, ...]  # sorted by |S|, then coefficients


_CHUNK = 200_000


def _distinct_in(d: int, chunk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (|S|, left-side coefficients) rows of a chunk of masks and the first matrix
    of the chunk with each, in the order of those first matrices (two arrays: a list of small
    ones would cross a cluster one by one)."""
    edges = _popcount(chunk).sum(axis=1)
    table = np.ascontiguousarray(np.column_stack([edges, left_side_coefficients(histograms(chunk, d), d, d)]))
    _, index = np.unique(table.view(f"V{table.shape[1] * 8}").ravel(), return_index=True)
    first = np.sort(index)
    return table[first], chunk[first]


@cached
def enumerate_left_sides(d: int) -> Enumeration:
    """Every distinct (|S|, left side) over all S ⊆ {0, …, d²−1}, smallest |S| first. The masks
    are reduced in chunks (cluster tasks where the claim runs on one: ``engine.fanout``), merged
    in order, so each class keeps the first matrix of the enumeration that has it."""
    masks = doubly_lexical_masks(d)
    found: dict[bytes, LeftSideClass] = {}
    for table, rows in map_chunks(partial(_distinct_in, d), chunks_of(masks, _CHUNK)):
        for entry, row in zip(table, rows, strict=True):
            key = entry.tobytes()
            if key not in found:
                found[key] = LeftSideClass(int(entry[0]), flint.fmpz_poly([int(c) for c in entry[1:]]),
                                           masks_to_graph(row, d))
    classes = sorted(found.values(), key=lambda c: (c.edges, [int(v) for v in c.left.coeffs()]))
    return Enumeration(d, len(masks), tuple(classes))
