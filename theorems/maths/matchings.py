"""Matching sparse target rows into random sparse feature rows (bipartite matchings).

A target row i (its support S_i ⊆ inputs) *fits* a feature row r of a 0/1 mask when
S_i ⊆ supp(mask_r): every target edge exists among the features. The target can be
matched after permuting rows when the fit graph (target rows × feature rows) has a
matching that saturates every target row. Square fit graphs are the Boolean determinant
of ``boolean_determinant`` (its permanent-term enumeration is reused for exact tables);
rectangular ones (more feature rows than target rows) use scipy's Hopcroft–Karp
(``maximum_bipartite_matching``) and, for exhaustive tables, an enumeration of injections.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import maximum_bipartite_matching

from .boolean_determinant import permanent_term_counts

# Exhaustive tables visit 2^(cells) masks: 2^16 = 65,536 at most.
ENUMERATION_MAX_CELLS = 16
# Injections of t target rows into f feature rows: f!/(f − t)! terms.
INJECTION_MAX_ROWS = 7


def _zero_one(a, name: str) -> np.ndarray:
    array = np.asarray(a)
    if array.ndim < 2:
        raise ValueError(f"{name} must be a (stack of) 2-D 0/1 matrices, got shape {array.shape}")
    if array.dtype != bool:
        if array.dtype.kind not in "iuf" or not np.isin(array, (0, 1)).all():
            raise ValueError(f"{name} must hold only 0 and 1")
        array = array.astype(bool)
    return array


def fit_matrix(target_support, mask) -> np.ndarray:
    """fit[..., i, r] = supp(target row i) ⊆ supp(mask row r); stacks broadcast."""
    target = _zero_one(target_support, "target support")
    features = _zero_one(mask, "mask")
    if target.shape[-1] != features.shape[-1]:
        raise ValueError(f"target has {target.shape[-1]} inputs, mask has {features.shape[-1]}")
    missing = np.einsum("...ij,...rj->...ir", target.astype(np.int64), (~features).astype(np.int64))
    return missing == 0


def row_matching(target_support, mask) -> np.ndarray | None:
    """For each target row its feature row in a matching saturating the target rows, or None."""
    fits = fit_matrix(target_support, mask)
    if fits.ndim != 2:
        raise ValueError("row_matching takes one target and one mask")
    if fits.shape[0] > fits.shape[1]:
        return None
    matched = maximum_bipartite_matching(sparse.csr_array(fits.astype(np.int8)), perm_type="column")
    return None if (matched < 0).any() else matched


@cache
def _injections(targets: int, features: int) -> np.ndarray:
    if features > INJECTION_MAX_ROWS:
        raise ValueError(f"enumerating injections into {features} > {INJECTION_MAX_ROWS} rows")
    table = np.array(list(itertools.permutations(range(features), targets)), dtype=np.intp)
    table.flags.writeable = False
    return table.reshape(-1, targets)


def matching_exists(fits) -> np.ndarray:
    """For a stack (..., t, f) of fit graphs: whether each saturates its t target rows,
    by enumeration (square graphs through the permanent terms of boolean_determinant)."""
    fits = _zero_one(fits, "fit graphs")
    t, f = fits.shape[-2:]
    if t > f:
        return np.zeros(fits.shape[:-2], dtype=bool)
    if t == 0:
        return np.ones(fits.shape[:-2], dtype=bool)
    if t == f:
        flat = fits.reshape(-1, t, t)
        return (permanent_term_counts(flat) > 0).reshape(fits.shape[:-2])
    injections = _injections(t, f)
    return fits[..., np.arange(t), injections].all(axis=-1).any(axis=-1)


def all_masks(rows: int, cols: int) -> np.ndarray:
    """Every rows×cols 0/1 mask, as a (2^(rows·cols), rows, cols) bool array."""
    cells = rows * cols
    if cells > ENUMERATION_MAX_CELLS:
        raise ValueError(f"2^{cells} masks: at most {ENUMERATION_MAX_CELLS} cells are enumerated")
    codes = np.arange(1 << cells, dtype=np.int64)
    return ((codes[:, None] >> np.arange(cells)) & 1).astype(bool).reshape(-1, rows, cols)


def matching_weight_counts(target_support, feature_rows: int) -> tuple[int, ...]:
    """counts[w]: how many feature masks (feature_rows × c0) with w ones admit a matching of
    the target. P(match) under iid Bern(p) masks is Σ_w counts[w] p^w (1 − p)^(cells − w)."""
    target = _zero_one(target_support, "target support")
    if target.ndim != 2:
        raise ValueError("one target at a time")
    masks = all_masks(feature_rows, target.shape[1])
    matched = matching_exists(fit_matrix(target[None], masks))
    weights = masks.reshape(masks.shape[0], -1).sum(axis=1)
    return tuple(np.bincount(weights[matched], minlength=feature_rows * target.shape[1] + 1).tolist())


def cover_weight_counts(target_support, feature_rows: int) -> tuple[int, ...]:
    """Like ``matching_weight_counts`` for the weaker event that every target row fits at least
    one feature row (rows may be shared: no matching needed)."""
    target = _zero_one(target_support, "target support")
    if target.ndim != 2:
        raise ValueError("one target at a time")
    masks = all_masks(feature_rows, target.shape[1])
    covered = fit_matrix(target[None], masks).any(axis=-1).all(axis=-1)
    weights = masks.reshape(masks.shape[0], -1).sum(axis=1)
    return tuple(np.bincount(weights[covered], minlength=feature_rows * target.shape[1] + 1).tolist())


def weight_polynomial(counts, cells: int, p):
    """Σ_w counts[w] p^w (1 − p)^(cells − w), generic in the number type of p."""
    return sum(int(c) * p**w * (1 - p) ** (cells - w) for w, c in enumerate(counts) if c)


# --- exact matching probabilities for any number of feature rows ----------------------------
#
# Under an iid Bern(p) mask the feature rows are independent, and what one row offers the
# target is its fit set N = {i : S_i ⊆ supp(row)}, with P(N ⊇ A) = p^{|∪_{i∈A} S_i|}. Adding
# rows one at a time, the state is the family of target-row sets that can already be matched
# (a transversal matroid; a matched state is absorbing). Exact for any number of feature rows
# and any number of inputs, exponential only in the number of target rows.

# Reachable families: 68 for 4 target rows, 406 for 5, 3,762 for 6 (under a second for six feature
# rows as polynomials in p); 7 target rows take tens of seconds a row, so 6 is the limit.
DP_MAX_TARGET_ROWS = 6


def _supports(target_support) -> list[frozenset[int]]:
    target = _zero_one(target_support, "target support")
    if target.ndim != 2:
        raise ValueError("one target at a time")
    if target.shape[0] > DP_MAX_TARGET_ROWS:
        raise ValueError(f"{target.shape[0]} target rows: at most {DP_MAX_TARGET_ROWS} are handled exactly")
    return [frozenset(np.flatnonzero(row).tolist()) for row in target]


def union_sizes(target_support) -> list[int]:
    """|∪_{i∈A} S_i| for every set A of target rows (bit i of A is row i)."""
    supports = _supports(target_support)
    return [len(frozenset().union(*(s for i, s in enumerate(supports) if a >> i & 1)))
            for a in range(1 << len(supports))]


def fit_set_law(target_support, p) -> list:
    """P(N = A) for one Bern(p) feature row, N its fit set, by Möbius inversion of
    P(N ⊇ A) = p^{u(A)}; generic in the number type of p (Fraction, fmpq, fmpz_poly)."""
    sizes = union_sizes(target_support)
    full = len(sizes) - 1
    law = []
    for a in range(len(sizes)):
        rest, b, total = full & ~a, full & ~a, p * 0
        while True:
            term = p ** sizes[a | b]
            total = total - term if bin(b).count("1") % 2 else total + term
            if b == 0:
                break
            b = (b - 1) & rest
        law.append(total)
    return law


def matching_probabilities(target_support, p, max_rows: int) -> list:
    """[P(the target matches into r iid Bern(p) feature rows) for r = 0, …, max_rows], exactly."""
    return list(itertools.islice(iter_matching_probabilities(target_support, p), max_rows + 1))


def iter_matching_probabilities(target_support, p):
    """P(the target matches into r iid Bern(p) feature rows) for r = 0, 1, 2, … (without end).

    A family of sets of target rows is an integer with bit A set when the set A can be matched;
    a feature row that fits the rows ``offered`` adds, for each offered row i, every matchable
    set without i together with i: a shift of the family's sets that lack i by 2^i."""
    law = fit_set_law(target_support, p)
    rows = len(law).bit_length() - 1
    everything = 1 << ((1 << rows) - 1)  # the bit of the set of all target rows
    zero, one = p * 0, p ** 0
    if rows == 0:
        yield from itertools.repeat(one)
    lacking = [sum(1 << a for a in range(1 << rows) if not a >> i & 1) for i in range(rows)]
    offers = [(chance, [i for i in range(rows) if offered >> i & 1])
              for offered, chance in enumerate(law) if chance != 0]
    # For each family met so far: the chance that one more row matches every target row, and
    # the chance of each family it grows into otherwise (offers that give the same family
    # summed first, so that a row costs one product per family reached, not one per offer).
    steps: dict[int, tuple[object, list[tuple[int, object]]]] = {}
    unmatched, matched_mass = {1: one}, zero  # at first only the empty set is matchable
    yield zero
    while True:
        grown_states: dict[int, object] = {}
        for state, weight in unmatched.items():
            step = steps.get(state)
            if step is None:
                to_match, to_family = None, {}
                for chance, members in offers:
                    after = state
                    for i in members:
                        after |= (state & lacking[i]) << (1 << i)
                    if after & everything:
                        to_match = chance if to_match is None else to_match + chance
                    else:
                        to_family[after] = chance if after not in to_family else to_family[after] + chance
                step = steps[state] = (to_match, list(to_family.items()))
            to_match, to_families = step
            if to_match is not None:
                matched_mass = matched_mass + weight * to_match
            for after, chance in to_families:
                grown_states[after] = grown_states.get(after, zero) + weight * chance
        unmatched = grown_states
        yield matched_mass
