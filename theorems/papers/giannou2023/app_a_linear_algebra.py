"""giannou2023, Appendix A.1–A.3: the linear algebra the constructions rest on —
Kronecker and Khatri–Rao identities, Rouché–Kronecker–Capelli, full rank of a product.

Source: giannou2023 (App. A "Linear Algebra").
Conventions (CLAIMS.md): ``vec`` is row-major; A ⊙ B is the column-wise Kronecker product in
``scipy.linalg.khatri_rao``'s row order.

The products under test are *entry rules*: ``khatri_rao_entries(a, b, rows_a, rows_b, row, col)``
gives entry (row, col) of A ⊙ B from indexable factors. The same rule evaluated on numpy index
arrays is the concrete matrix (``khatri_rao_matrix``), and evaluated on sympy IndexedBase factors
at symbolic indices it is the entry of the product for symbolic sizes; so a symbolic-size
certificate and a concrete check both evaluate the object a broken variant replaces.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import flint
import numpy as np
import sympy
from hypothesis import assume
from hypothesis import strategies as st

from theorems.engine.checks import (
    property_search,
    search_beyond_sweep,
    symbolic_identity,
    symbolic_sizes_identity,
    to_jsonable,
)
from theorems.engine.context import Context
from theorems.engine.registry import Broken, Check, Claim, Erratum, register, takes
from theorems.engine.verdicts import ALL_SIZES, Outcome, Verdict
from theorems.maths import exact
from theorems.maths.index_sums import quotient, with_remainder_below
from theorems.maths.khatri_rao import exact_matmul, symbols_matrix
from theorems.maths.strategies import EXACT_KINDS, classify_matrix, matrices

# --- Entry rules: one definition for concrete matrices and symbolic sizes -----------------


def split_index(index, size):
    """(⌊index/size⌋, index mod size): elementwise on numpy index arrays; on symbolic indices through
    ``quotient`` and sympy.Mod, which ``with_remainder_below`` reduces."""
    if isinstance(index, sympy.Basic) or isinstance(size, sympy.Basic):
        return quotient(index, size), sympy.Mod(index, size)
    return np.divmod(index, size)


def delta(x, y):
    """The Kronecker delta: elementwise 0/1 on numpy index arrays, sympy.KroneckerDelta on symbols."""
    if isinstance(x, sympy.Basic) or isinstance(y, sympy.Basic):
        return sympy.KroneckerDelta(x, y)
    return (np.asarray(x) == np.asarray(y)).astype(np.int64)


class Entries:
    """A matrix given by its entry function, indexed like an array or a sympy IndexedBase: m[i, j]."""

    def __init__(self, entry: Callable):
        self.entry = entry

    def __getitem__(self, key):
        return self.entry(*key)


def product_entries(left, right, inner: sympy.Symbol, size) -> Entries:
    """(left · right)[x, y] = Σ_inner left[x, inner]·right[inner, y], inner < size (symbolic)."""
    return Entries(lambda x, y: sympy.Sum(left[x, inner] * right[inner, y], (inner, 0, size - 1)))


def khatri_rao_entries(a, b, rows_a, rows_b, row, col):
    """(A ⊙ B)[row, col] = A[⌊row/r⌋, col]·B[row mod r, col], r = rows of B: column j is A[:, j] ⊗ B[:, j]
    in scipy.linalg.khatri_rao's row order."""
    high, low = split_index(row, rows_b)
    return a[high, col] * b[low, col]


def kronecker_sum_entries(a, b, rows_a, rows_b, row, col):
    """Broken: the column-wise Kronecker *sum*, A[⌊row/r⌋, col] + B[row mod r, col]."""
    high, low = split_index(row, rows_b)
    return a[high, col] + b[low, col]


def kron_entries(a, b, shape_a, shape_b, row, col):
    """(A ⊗ B)[row, col] = A[⌊row/r⌋, ⌊col/s⌋]·B[row mod r, col mod s], (r, s) the shape of B."""
    (high_row, low_row), (high_col, low_col) = split_index(row, shape_b[0]), split_index(col, shape_b[1])
    return a[high_row, high_col] * b[low_row, low_col]


def swapped_kron_entries(a, b, shape_a, shape_b, row, col):
    """Broken: B ⊗ A where A ⊗ B is meant (the factors in the wrong order)."""
    return kron_entries(b, a, shape_b, shape_a, row, col)


def kronecker_sum_entries_full(a, b, shape_a, shape_b, row, col):
    """Broken: the entrywise Kronecker *sum* A[⌊row/r⌋, ⌊col/s⌋] + B[row mod r, col mod s] for A ⊗ B."""
    (high_row, low_row), (high_col, low_col) = split_index(row, shape_b[0]), split_index(col, shape_b[1])
    return a[high_row, high_col] + b[low_row, low_col]


def khatri_rao_matrix(rule, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A ⊙ B by the entry rule ``rule`` (numpy fancy indexing: integer, object and sympy arrays)."""
    row, col = np.indices((a.shape[0] * b.shape[0], a.shape[1]))
    return rule(a, b, a.shape[0], b.shape[0], row, col)


def kron_matrix(rule, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A ⊗ B by the entry rule ``rule``."""
    row, col = np.indices((a.shape[0] * b.shape[0], a.shape[1] * b.shape[1]))
    return rule(a, b, a.shape, b.shape, row, col)


# --- Theorem 5: Kronecker rank and mixed products -------------------------------------

_small = st.integers(1, 4)
_exact_matrix = matrices(_small, _small, kinds=EXACT_KINDS)


def kron_rank_statement(kron_rule, kron_rank: Callable[[int, int], int]):
    """rank(A ⊗ B) == kron_rank(rank A, rank B), decided exactly over Q."""

    def prop(pair):
        a, b = pair
        lhs = exact.rank_exact(kron_matrix(kron_rule, a, b).astype(object))
        rhs = kron_rank(exact.rank_exact(a), exact.rank_exact(b))
        return None if lhs == rhs else f"rank(A⊗B) = {lhs}, predicted {rhs}"

    return prop


def kron_chain_cases(ctx: Context):
    """(k, inner dims of the A chain, inner dims of the B chain): k factors each side."""
    # large stays at 3: the k = 2 chains alone are top^6 symbolic cases (4096 at top = 4).
    top = ctx.by_profile(2, 2, 3, 3)
    for k in (1, 2, 3):
        dims = itertools.product(range(1, top + 1), repeat=k + 1)
        for a_dims, b_dims in itertools.product(list(dims), repeat=2) if k < 3 else [((2,) * 4, (2,) * 4)]:
            yield k, a_dims, b_dims


def kron_chain_sides(kron_rule):
    """(A1…Ak) ⊗ (B1…Bk) and the product of Ai ⊗ Bi, for generic Ai, Bi."""

    def build(case):
        k, a_dims, b_dims = case
        a = [symbols_matrix(f"a{i}", a_dims[i], a_dims[i + 1]) for i in range(k)]
        b = [symbols_matrix(f"b{i}", b_dims[i], b_dims[i + 1]) for i in range(k)]
        lhs = kron_matrix(kron_rule, exact_matmul(*a), exact_matmul(*b))
        rhs = exact_matmul(*(kron_matrix(kron_rule, ai, bi) for ai, bi in zip(a, b, strict=True)))
        return sympy.Matrix(lhs), sympy.Matrix(rhs)

    return build


def describe_chain(case) -> str:
    k, a_dims, b_dims = case
    return f"k={k}, A dims {'×'.join(map(str, a_dims))}, B dims {'×'.join(map(str, b_dims))}"


kron_pairs = st.tuples(_exact_matrix, _exact_matrix)
# Always checked first: 1×1 ones (rank 1·1 = 1, where a sum gives 2), and a rank-1 2×2 beside a
# rank-2 2×2 (rank 2, where "min" or a sum go wrong).
KRON_RANK_PINNED = [(np.ones((1, 1), dtype=np.int64), np.ones((1, 1), dtype=np.int64)),
                    (np.ones((2, 2), dtype=np.int64), np.eye(2, dtype=np.int64))]


def kron_rank_search(kron_rule, kron_rank) -> Check:
    return property_search(
        "kron rank (exact search)",
        kron_pairs,
        kron_rank_statement(kron_rule, kron_rank),
        space="integer, sparse, rank-deficient and structured A, B up to 4×4, ranks over Q",
        classify=lambda pair: [f"A {classify_matrix(pair[0])}", f"B {classify_matrix(pair[1])}"],
        pinned=KRON_RANK_PINNED,
        names=("A", "B"),
        part="rank",
        corroborating=True,
    )


def kron_chain_identity(kron_rule) -> Check:
    return symbolic_identity(
        "mixed product of chains (symbolic)",
        kron_chain_cases,
        kron_chain_sides(kron_rule),
        scope=lambda ctx: f"k ≤ 2, dimensions ≤ {ctx.by_profile(2, 2, 3, 3)}; k = 3, 2×2",
        describe_case=describe_chain,
        part="mixed product",
    )


# Sizes and indices of Thm 5 in symbolic form: A p×q, C q×t, B r×s, D s×u; a row of a Kronecker
# product ρ = i·r + k (k < r), a column σ = j·u + l (l < u) or j·s + l (l < s), the inner index of
# (A⊗B)(C⊗D) w = a·s + b (a < q, b < s); ranks r_A, r_B of the factors.
_T5_P, _T5_Q, _T5_R, _T5_S, _T5_T, _T5_U = sympy.symbols("p q r s t u", integer=True, positive=True)
_T5_I, _T5_K, _T5_J, _T5_L, _T5_A, _T5_B = sympy.symbols("i k j l a b", integer=True, nonnegative=True)
_RANK_A, _RANK_B = sympy.symbols("r_A r_B", integer=True, nonnegative=True)


def remainders_below(expr, *bounds):
    """``expr`` under 0 ≤ remainder < size for each (size, remainder) in ``bounds``."""
    for size, remainder in bounds:
        expr = with_remainder_below(expr, size, remainder)
    return expr


def kron_block_difference(kron_rule):
    """(F ⊗ G)[i·r + k, j·s + l] − F[i, j]·G[k, l] for F p×q, G r×s, symbolic sizes, k < r, l < s: the
    block form of Def. 5 (block (i, j) is F[i, j]·G), evaluated by the entry rule under test."""
    f, g = sympy.IndexedBase("F"), sympy.IndexedBase("G")
    entry = kron_rule(f, g, (_T5_P, _T5_Q), (_T5_R, _T5_S), _T5_I * _T5_R + _T5_K, _T5_J * _T5_S + _T5_L)
    entry = remainders_below(entry, (_T5_R, _T5_K), (_T5_S, _T5_L))
    return sympy.expand(entry - f[_T5_I, _T5_J] * g[_T5_K, _T5_L])


def kron_mixed_difference(kron_rule):
    """(AC)⊗(BD) − (A⊗B)(C⊗D) at row ρ = i·r + k, column σ = j·u + l, for symbolic p, q, r, s, t, u,
    every product evaluated by the entry rule under test. The sum over the flat inner index w < qs is
    the double sum over w = a·s + b (Euclidean division is a bijection [0, q) × [0, s) → [0, qs))."""

    def difference():
        a, b, c, d = (sympy.IndexedBase(x) for x in "ABCD")
        row, column, inner = _T5_I * _T5_R + _T5_K, _T5_J * _T5_U + _T5_L, _T5_A * _T5_S + _T5_B
        lhs = kron_rule(product_entries(a, c, _T5_A, _T5_Q), product_entries(b, d, _T5_B, _T5_S),
                        (_T5_P, _T5_T), (_T5_R, _T5_U), row, column)
        lhs = remainders_below(lhs, (_T5_R, _T5_K), (_T5_U, _T5_L))
        summand = (kron_rule(a, b, (_T5_P, _T5_Q), (_T5_R, _T5_S), row, inner)
                   * kron_rule(c, d, (_T5_Q, _T5_T), (_T5_S, _T5_U), inner, column))
        summand = remainders_below(summand, (_T5_R, _T5_K), (_T5_S, _T5_B), (_T5_U, _T5_L))
        rhs = as_product_of_sums(sympy.Sum(summand, (_T5_B, 0, _T5_S - 1), (_T5_A, 0, _T5_Q - 1)))
        return sympy.expand(lhs - rhs), {"lhs": str(lhs), "rhs": str(rhs),
                                         "entry": "ρ = i·r + k (k < r), σ = j·u + l (l < u), w = a·s + b (b < s)"}

    return difference


# Chains of two factors with every inner dimension ≤ 2: where a failed symbolic-size identity looks.
THM5_FALLBACK = [(2, a_dims, b_dims) for a_dims, b_dims in
                 itertools.product(itertools.product(range(1, 3), repeat=3), repeat=2)]
MIXED_PRODUCT_INDUCTION = ("induction on the number n of factors, with associativity of the matrix product: "
                           "(A_1⋯A_n) ⊗ (B_1⋯B_n) = ((A_1⋯A_{n−1}) A_n) ⊗ ((B_1⋯B_{n−1}) B_n) = "
                           "((A_1⋯A_{n−1}) ⊗ (B_1⋯B_{n−1}))(A_n ⊗ B_n) by the two-factor identity")


def kron_mixed_sizes(kron_rule) -> Check:
    return symbolic_sizes_identity("mixed product for symbolic sizes (index identity)",
                                   kron_mixed_difference(kron_rule), THM5_FALLBACK, kron_chain_sides(kron_rule),
                                   describe_chain, part="mixed product", relies_on=(MIXED_PRODUCT_INDUCTION,))


RANK_NORMAL_FORM = ("rank normal form: a p×q matrix of rank r is P N_r Q with P, Q invertible and N_r = [I_r 0; 0 0] "
                    "(R. Horn, C. Johnson, Matrix Analysis, 2nd ed., Thm 0.4.6)")
RANK_INVARIANCE = "rank(X M Y) = rank(M) for invertible X, Y (Horn–Johnson, 0.4.6(b))"
PARTIAL_PERMUTATION = ("a 0/1 matrix whose ones lie in distinct rows and distinct columns has rank equal to its number "
                       "of ones (its nonzero columns are distinct unit vectors)")
EUCLIDEAN_DIVISION = "Euclidean division: (i, k) ↦ i·r + k is a bijection [0, p) × [0, r) → [0, pr)"


def rank_normal_form(rows: int, cols: int, rank: int) -> np.ndarray:
    """N_rank = [I_rank 0; 0 0], rows×cols."""
    return np.eye(rows, cols, dtype=np.int64) * (np.arange(cols) < rank)


def normal_form_pairs():
    """(N_{r_A}, N_{r_B}) for every shape with all dimensions ≤ 2 and every pair of ranks, smallest first:
    by the reduction, the pairs that decide the rank formula where a symbolic step fails."""
    for p, q, r, s in itertools.product(range(1, 3), repeat=4):
        for rank_a, rank_b in itertools.product(range(min(p, q) + 1), range(min(r, s) + 1)):
            yield rank_normal_form(p, q, rank_a), rank_normal_form(r, s, rank_b)


def kron_rank_by_normal_forms(kron_rule, kron_rank) -> Check:
    """Part 1 for all sizes, through rank normal forms. With A = P_A N_{r_A} Q_A and B = P_B N_{r_B} Q_B
    (cited), the mixed product gives A ⊗ B = (P_A ⊗ P_B)(N_{r_A} ⊗ N_{r_B})(Q_A ⊗ Q_B), and
    (P_A ⊗ P_B)(P_A⁻¹ ⊗ P_B⁻¹) = I ⊗ I = I by the block form (entry δ_ij δ_kl at (i·r + k, j·s + l), a
    bijection of indices), so the outer factors are invertible; by the block form N_{r_A} ⊗ N_{r_B} has its
    ones exactly at (i·r + k, i·s + k), i < r_A, k < r_B, in distinct rows and columns: rank r_A·r_B. On the
    machine, for symbolic sizes, each by the objects under test: the block form of the entry rule, the
    mixed product, and kron_rank(r_A, r_B) = r_A·r_B. Where a step fails, the normal-form pairs with all
    dimensions ≤ 2 are decided exactly (ranks over Q) for a counterexample."""

    def run(ctx: Context) -> Outcome:
        steps = {"block form (F⊗G)[i·r + k, j·s + l] − F[i, j]·G[k, l]": kron_block_difference(kron_rule),
                 "mixed product (AC)⊗(BD) − (A⊗B)(C⊗D)": kron_mixed_difference(kron_rule)()[0],
                 "kron_rank(r_A, r_B) − r_A·r_B": sympy.expand(kron_rank(_RANK_A, _RANK_B) - _RANK_A * _RANK_B)}
        evidence = {"steps": {step: str(value) for step, value in steps.items()}}
        if all(value == 0 for value in steps.values()):
            return Outcome(Verdict.CERTIFIED, "block form, mixed product and rank formula hold for symbolic sizes "
                           "and ranks", evidence, scope=ALL_SIZES,
                           relies_on=(RANK_NORMAL_FORM, RANK_INVARIANCE, PARTIAL_PERMUTATION, EUCLIDEAN_DIVISION))
        open_steps = [step for step, value in steps.items() if value != 0]
        statement = kron_rank_statement(kron_rule, kron_rank)
        for pair in normal_form_pairs():
            failure = statement(pair)
            if failure:
                return Outcome(Verdict.REFUTED, f"rank normal forms: {failure}; symbolically open: "
                               f"{', '.join(open_steps)}", evidence,
                               counterexample={"A": to_jsonable(pair[0]), "B": to_jsonable(pair[1]), "reason": failure})
        return Outcome(Verdict.INCONCLUSIVE, f"{', '.join(open_steps)} do not vanish, yet every normal-form pair with "
                       "dimensions ≤ 2 agrees", evidence)

    return Check("rank by rank normal forms (symbolic sizes)", "symbolic", run, part="rank")


def product_of_ranks(rank_a: int, rank_b: int) -> int:
    return rank_a * rank_b


register(
    Claim(
        id="giannou2023.thm5",
        source="App. A.2, Theorem 5",
        hypotheses=("A, B any real matrices (part 1)", "A_k, B_k conformable for the products (part 2)"),
        subject={"kron": kron_entries, "kron_rank": product_of_ranks},
        checks=(takes("kron", "kron_rank", build=kron_rank_by_normal_forms), takes("kron", build=kron_mixed_sizes),
                takes("kron", "kron_rank", build=kron_rank_search), takes("kron", build=kron_chain_identity)),
        broken=(
            Broken("rank(A⊗B) = rank A + rank B (the direct-sum rule)",
                   replaces={"kron_rank": lambda rank_a, rank_b: rank_a + rank_b},
                   refuted_by="the pinned pair A = B = [[1]] (rank 1, not 2); the normal-form pair N_0 = [[0]], "
                   "N_1 = [[1]] (rank 0, not 1)"),
            # The near-miss: right whenever a factor has rank 1, as in every pinned pair of the search.
            Broken("rank(A⊗B) = rank A + rank B − 1 (agrees with the product when a factor has rank 1)",
                   replaces={"kron_rank": lambda rank_a, rank_b: rank_a + rank_b - 1},
                   refuted_by="the symbolic difference −(r_A − 1)(r_B − 1) does not vanish; the first normal-form "
                   "pair A = B = [[0]] (rank 0, formula −1), and A = B = I_2 (rank 4, formula 3)"),
            # A swapped product B ⊗ A satisfies the mixed-product rule too (it is A ⊗ B up to permutations).
            Broken("the entrywise Kronecker sum a_ij + b_kl for the Kronecker product",
                   replaces={"kron": kronecker_sum_entries_full},
                   refuted_by="the first chain case k = 1 with 1×1 factors, always visited: a + b ≠ ab; the mixed "
                   "product's fallback k = 2 with 1×1 factors; the normal-form pair [[0]], [[1]] (rank 1, not 0)"),
        ),
        notes="Both parts are certified for all sizes, each evaluating the Kronecker product as an entry rule (the "
        "object a broken variant replaces). Part 2: the two-factor identity (AC)⊗(BD) = (A⊗B)(C⊗D) is an index "
        "identity for symbolic sizes p, q, r, s, t, u (entry (i·r + k, j·u + l), the inner flat index w < qs "
        "summed as w = a·s + b), and chains of n factors follow by induction on n (cited). Part 1: by the rank "
        "normal form A = P N_{r_A} Q (cited) and the mixed product, A⊗B = (P_A⊗P_B)(N_{r_A}⊗N_{r_B})(Q_A⊗Q_B) with "
        "invertible outer factors ((P⊗P')(P⁻¹⊗P'⁻¹) = I⊗I = I); the block form of the rule, (F⊗G)[i·r + k, "
        "j·s + l] = F_ij G_kl, checked for symbolic sizes, puts the ones of N_{r_A}⊗N_{r_B} in distinct rows and "
        "columns, r_A·r_B of them; the rank formula under test is compared with r_A·r_B for symbolic ranks. The "
        "exact rank search (integer, sparse, rank-deficient and structured factors up to 4×4) and the polynomial "
        "identity for concrete chains (k ≤ 2, dimensions ≤ 2; ≤ 3 thorough, large; k = 3, 2×2) corroborate.",
    )
)


# --- Theorem 6: mixed products of Khatri–Rao, Kronecker and Hadamard products ---------


def thm6_cases(ctx: Context):
    # large stays at 3: top^5 shape tuples of growing symbolic matrices (1024 at top = 4, a minute).
    top = ctx.by_profile(2, 2, 3, 3)
    return list(itertools.product(range(1, top + 1), repeat=5))


def kr_kron_sides(khatri_rao_rule, kron_rule):
    """(AC) ⊙ (BD) and (A ⊗ B)(C ⊙ D) for generic A p×q, C q×N, B r×s, D s×N."""

    def build(case):
        p, q, r, s, n = case
        a, c = symbols_matrix("a", p, q), symbols_matrix("c", q, n)
        b, d = symbols_matrix("b", r, s), symbols_matrix("d", s, n)
        left = khatri_rao_matrix(khatri_rao_rule, exact_matmul(a, c), exact_matmul(b, d))
        right = exact_matmul(kron_matrix(kron_rule, a, b), khatri_rao_matrix(khatri_rao_rule, c, d))
        return sympy.Matrix(left), sympy.Matrix(right)

    return build


def kr_hadamard_sides(khatri_rao_rule):
    """(A ⊙ B) ∘ (C ⊙ D) and (A ∘ C) ⊙ (B ∘ D) for generic A, C p×N, B, D r×N."""

    def build(case):
        p, r, n = case[0], case[1], case[4]
        a, c = symbols_matrix("a", p, n), symbols_matrix("c", p, n)
        b, d = symbols_matrix("b", r, n), symbols_matrix("d", r, n)
        left = khatri_rao_matrix(khatri_rao_rule, a, b) * khatri_rao_matrix(khatri_rao_rule, c, d)
        return sympy.Matrix(left), sympy.Matrix(khatri_rao_matrix(khatri_rao_rule, a * c, b * d))

    return build


def describe_dims(case) -> str:
    return "p,q,r,s,N = " + ",".join(map(str, case))


def thm6_scope(ctx: Context) -> str:
    return f"p, q, r, s, N ≤ {ctx.by_profile(2, 2, 3, 3)}"


# Sizes and indices of Thm 6 in symbolic form: row ρ = i·r + k of a Khatri–Rao or Kronecker
# product (i < p, k < r; scipy's order), inner index w = u·s + v (u < q, v < s), column j < N.
_P, _Q, _R, _S = sympy.symbols("p q r s", integer=True, positive=True)
_I, _KR, _U, _V, _J = sympy.symbols("i k u v j", integer=True, nonnegative=True)


def as_product_of_sums(total: sympy.Sum):
    """Σ_u Σ_v f(u) g(v) as (Σ_u f)(Σ_v g); unchanged when the summand does not separate."""
    (inner, *inner_range), (outer, *outer_range) = total.limits
    free_of_inner, with_inner = total.function.as_independent(inner, as_Add=False)
    if outer in with_inner.free_symbols:
        return total
    return sympy.Sum(free_of_inner, (outer, *outer_range)) * sympy.Sum(with_inner, (inner, *inner_range))


def khatri_rao_entries_of(khatri_rao_rule, a, b, row):
    """Entry (row, j) of A ⊙ B with A p×·, B r×· (the symbolic sizes of Thm 6)."""
    return khatri_rao_rule(a, b, _P, _R, row, _J)


def kr_kron_difference(khatri_rao_rule, kron_rule):
    """(AC)⊙(BD) − (A⊗B)(C⊙D) at row ρ = i·r + k, column j, for symbolic p, q, r, s, N, both sides
    evaluated by the entry rules. The sum over the flat inner index w < qs is taken as the double sum
    over w = u·s + v (Euclidean division is a bijection [0, q) × [0, s) → [0, qs))."""

    def difference():
        a, b, c, d = (sympy.IndexedBase(x) for x in "abcd")
        row, inner = _I * _R + _KR, _U * _S + _V
        lhs = khatri_rao_entries_of(khatri_rao_rule, product_entries(a, c, _U, _Q), product_entries(b, d, _V, _S),
                                    row)
        summand = (kron_rule(a, b, (_P, _Q), (_R, _S), row, inner)
                   * khatri_rao_rule(c, d, _Q, _S, inner, _J))
        summand = with_remainder_below(with_remainder_below(summand, _R, _KR), _S, _V)
        rhs = as_product_of_sums(sympy.Sum(summand, (_V, 0, _S - 1), (_U, 0, _Q - 1)))
        lhs = with_remainder_below(lhs, _R, _KR)
        return sympy.expand(lhs - rhs), {"lhs": str(lhs), "rhs": str(rhs), "row": "ρ = i·r + k, k < r"}

    return difference


def kr_hadamard_difference(khatri_rao_rule):
    """(A⊙B)∘(C⊙D) − (A∘C)⊙(B∘D) at row ρ = i·r + k, column j, for symbolic sizes."""

    def difference():
        a, b, c, d = (sympy.IndexedBase(x) for x in "abcd")
        row = _I * _R + _KR
        lhs = khatri_rao_entries_of(khatri_rao_rule, a, b, row) * khatri_rao_entries_of(khatri_rao_rule, c, d, row)
        rhs = khatri_rao_entries_of(khatri_rao_rule, Entries(lambda x, y: a[x, y] * c[x, y]),
                                    Entries(lambda x, y: b[x, y] * d[x, y]), row)
        lhs, rhs = (with_remainder_below(side, _R, _KR) for side in (lhs, rhs))
        return sympy.expand(lhs - rhs), {"lhs": str(lhs), "rhs": str(rhs), "row": "ρ = i·r + k, k < r"}

    return difference


# The concrete shapes a failed symbolic-size identity falls back to, smallest first.
THM6_FALLBACK = list(itertools.product(range(1, 3), repeat=5))
KRONECKER_PART, HADAMARD_PART = "Khatri–Rao/Kronecker", "Khatri–Rao/Hadamard"


def thm6_kron_concrete(khatri_rao_rule, kron_rule) -> Check:
    return symbolic_identity("(AC)⊙(BD) = (A⊗B)(C⊙D) (symbolic)", thm6_cases, kr_kron_sides(khatri_rao_rule, kron_rule),
                             scope=thm6_scope, describe_case=describe_dims, part=KRONECKER_PART)


def thm6_kron_sizes(khatri_rao_rule, kron_rule) -> Check:
    return symbolic_sizes_identity("(AC)⊙(BD) = (A⊗B)(C⊙D) for symbolic sizes (index identity)",
                                   kr_kron_difference(khatri_rao_rule, kron_rule), THM6_FALLBACK,
                                   kr_kron_sides(khatri_rao_rule, kron_rule), describe_dims, part=KRONECKER_PART)


def thm6_hadamard_concrete(khatri_rao_rule) -> Check:
    return symbolic_identity("(A⊙B)∘(C⊙D) = (A∘C)⊙(B∘D) (symbolic)", thm6_cases, kr_hadamard_sides(khatri_rao_rule),
                             scope=thm6_scope, describe_case=describe_dims, part=HADAMARD_PART)


def thm6_hadamard_sizes(khatri_rao_rule) -> Check:
    return symbolic_sizes_identity("(A⊙B)∘(C⊙D) = (A∘C)⊙(B∘D) for symbolic sizes (index identity)",
                                   kr_hadamard_difference(khatri_rao_rule), THM6_FALLBACK,
                                   kr_hadamard_sides(khatri_rao_rule), describe_dims, part=HADAMARD_PART)


register(
    Claim(
        id="giannou2023.thm6",
        source="App. A.2, Theorem 6, Eq. (13)–(14)",
        hypotheses=("A p×q, C q×N, B r×s, D s×N (Eq. 13)", "A, C p×N and B, D r×N (Eq. 14)"),
        subject={"khatri_rao": khatri_rao_entries, "kron": kron_entries},
        checks=(takes("khatri_rao", "kron", build=thm6_kron_concrete),
                takes("khatri_rao", "kron", build=thm6_kron_sizes),
                takes("khatri_rao", build=thm6_hadamard_concrete),
                takes("khatri_rao", build=thm6_hadamard_sizes)),
        broken=(
            Broken("the Kronecker product with its factors swapped (B ⊗ A)", replaces={"kron": swapped_kron_entries},
                   refuted_by="the shape case p,q,r,s,N = 1,2,1,2,1 (always visited; the symbolic-size check does not "
                   "vanish and falls to it): A⊗B ≠ B⊗A for 1×2 factors"),
            # Every product of one entry of each factor, whatever its index map, satisfies the Hadamard
            # identity (entrywise products commute with any such map): only a rule that is not a product
            # of single entries can fail it, as the Kronecker-sum confusion does.
            Broken("the column-wise Kronecker sum A[⌊ρ/r⌋, j] + B[ρ mod r, j] for the Khatri–Rao product",
                   replaces={"khatri_rao": kronecker_sum_entries},
                   refuted_by="the first shape case p,q,r,s,N = 1,1,1,1,1, always visited by all four checks (the "
                   "symbolic-size differences do not vanish and fall to it): ac + bd ≠ ab(c + d) and "
                   "(a + b)(c + d) ≠ ac + bd"),
        ),
        notes="Both identities are certified for symbolic sizes p, q, r, s, N as index identities: entry "
        "(ρ = i·r + k, j) of each side evaluated by the Khatri–Rao and Kronecker entry rules under test, with "
        "⌊ρ/r⌋ and ρ mod r reduced given k < r and the inner flat index w < qs summed as w = u·s + v (scope all). "
        "The same rules are checked as polynomial identities in the entries for every shape with all dimensions "
        "≤ 2 (≤ 3 in the thorough and large profiles), and the rule is scipy.linalg.khatri_rao's order (unit test).",
    )
)


# --- Lemma 4 (main text Lemma 1): CXB = W* as a Khatri–Rao linear system ---------------


def lemma4_cases(ctx: Context):
    top = ctx.by_profile(2, 3, 3, 4)
    return list(itertools.product(range(1, top + 1), repeat=2))


def row_major_position(position, shape):
    """The entry (i, j) of an r×c matrix that vec places at ``position``: row-major, (⌊position/c⌋, position mod c)."""
    return split_index(position, shape[1])


def column_major_position(position, shape):
    """Broken: the column-major vec, (position mod r, ⌊position/r⌋)."""
    column, row = split_index(position, shape[0])
    return row, column


def vec_of(vec_rule, w: np.ndarray) -> np.ndarray:
    """vec(W) as a column, by the position rule ``vec_rule``."""
    return w[vec_rule(np.arange(w.size), w.shape)].reshape(-1, 1)


def lemma4_sides(vec_rule, khatri_rao_rule):
    """vec(C X B) and (C ⊙ Bᵀ) vecd(X) for generic C n×nm, diagonal X, B nm×m."""

    def build(case):
        n, m = case
        c, b = symbols_matrix("c", n, n * m), symbols_matrix("b", n * m, m)
        x = np.array(sympy.symbols(f"x_0:{n * m}"), dtype=object)
        cxb = exact_matmul(c, np.diag(x), b)
        rhs = exact_matmul(khatri_rao_matrix(khatri_rao_rule, c, b.T), x.reshape(-1, 1))
        return sympy.Matrix(vec_of(vec_rule, cxb)), sympy.Matrix(rhs)

    return build


_N, _M = sympy.symbols("n m", integer=True, positive=True)
_A, _B, _K, _L = sympy.symbols("a b k l", integer=True, nonnegative=True)


def summation_ranges_applied(expr):
    """Inside Sum(f, (v, lo, hi)) the conditions lo ≤ v and v ≤ hi hold: replace them by True
    (sympy leaves the Piecewise that a KroneckerDelta sum produces unresolved)."""
    def resolve(total):
        summand = total.function
        for v, lo, hi in total.limits:
            summand = summand.subs({sympy.Le(v, hi): True, sympy.Ge(v, lo): True,
                                    sympy.Le(lo, v): True, sympy.Ge(hi, v): True})
        return sympy.Sum(sympy.piecewise_fold(summand), *total.limits)

    return expr.replace(lambda e: isinstance(e, sympy.Sum), resolve)


def lemma4_general_difference(vec_rule, khatri_rao_rule):
    """The identity for symbolic n, m as an index identity at position a·m + b (b < m): vec(CXB) holds
    (CXB)_{ij} = Σ_k Σ_l c_{ik} δ_{kl} x_k b_{lj} at (i, j) = vec_rule(a·m + b), and (C ⊙ Bᵀ)vecd(X)
    holds Σ_k (C ⊙ Bᵀ)[a·m + b, k] x_k, both by the rules under test, k < nm."""

    def difference():
        c, b, x = sympy.IndexedBase("c"), sympy.IndexedBase("b"), sympy.IndexedBase("x")
        size, position = _N * _M, _A * _M + _B
        i, j = (with_remainder_below(index, _M, _B) for index in vec_rule(position, (_N, _M)))
        cxb = sympy.Sum(sympy.Sum(c[i, _K] * sympy.KroneckerDelta(_K, _L) * x[_K] * b[_L, j], (_L, 0, size - 1)),
                        (_K, 0, size - 1))
        transposed = Entries(lambda row, col: b[col, row])
        entry = with_remainder_below(khatri_rao_rule(c, transposed, _N, _M, position, _K), _M, _B)
        khatri_rao_side = sympy.Sum(entry * x[_K], (_K, 0, size - 1))
        evidence = {"lhs": f"vec(CXB) at position a·m + b: (CXB)[{i}, {j}]", "rhs": str(khatri_rao_side)}
        return sympy.expand(summation_ranges_applied(cxb.doit()) - khatri_rao_side), evidence

    return difference


def lemma4_concrete(vec_rule, khatri_rao_rule) -> Check:
    return symbolic_identity("vec(CXB) = (C⊙Bᵀ)vecd(X) (symbolic)", lemma4_cases,
                             lemma4_sides(vec_rule, khatri_rao_rule),
                             scope=lambda ctx: f"n, m ≤ {ctx.by_profile(2, 3, 3, 4)}",
                             describe_case=lambda case: f"n={case[0]}, m={case[1]}", part="statement")


def lemma4_sizes(vec_rule, khatri_rao_rule) -> Check:
    return symbolic_sizes_identity("vec(CXB) = (C⊙Bᵀ)vecd(X) for symbolic n, m (index identity)",
                                   lemma4_general_difference(vec_rule, khatri_rao_rule),
                                   list(itertools.product(range(1, 4), repeat=2)),
                                   lemma4_sides(vec_rule, khatri_rao_rule),
                                   lambda case: f"n={case[0]}, m={case[1]}", part="statement")


register(
    Claim(
        id="giannou2023.lemma4",
        source="App. A.3, Lemma 4 (main text Lemma 1)",
        hypotheses=("C ∈ R^{n×nm}, X ∈ R^{nm×nm} diagonal, B ∈ R^{nm×m}, W* ∈ R^{n×m}; vec row-major",),
        subject={"vec": row_major_position, "khatri_rao": khatri_rao_entries},
        checks=(takes("vec", "khatri_rao", build=lemma4_concrete), takes("vec", "khatri_rao", build=lemma4_sizes)),
        broken=(
            Broken("column-major vec instead of row-major (the other common convention)",
                   replaces={"vec": column_major_position},
                   refuted_by="the fixed case n = m = 2, always visited (for n or m = 1 both conventions agree); "
                   "the symbolic-size check does not vanish and falls to the same concrete case"),
            Broken("the column-wise Kronecker sum for the Khatri–Rao product",
                   replaces={"khatri_rao": kronecker_sum_entries},
                   refuted_by="the first case n = m = 1, always visited by both checks: c x b ≠ (c + b) x"),
        ),
        notes="The equivalence CXB = W* ⇔ (C⊙Bᵀ)vecd(X) = vec(W*) follows from the identity "
        "vec(CXB) = (C⊙Bᵀ)vecd(X), certified for symbolic n, m as an index identity (sympy Sum and KroneckerDelta, "
        "the vec and Khatri–Rao entry rules evaluated at position a·m + b: scope all), and as a polynomial identity "
        "on concrete matrices for n, m ≤ 2 (≤ 3 from the ci profile, ≤ 4 large). "
        "Typo noted: main-text Lemma 1 prints C ∈ R^{n×m}, which cannot multiply X ∈ R^{nm×nm}; "
        "the appendix's C ∈ R^{n×nm} is checked.",
    )
)


# --- Theorem 7: Rouché–Kronecker–Capelli ----------------------------------------------


@st.composite
def linear_systems(draw):
    """A ∈ Z^{m×n} of any exact kind and b either in col(A) (A·x0) or arbitrary."""
    a = draw(matrices(st.integers(1, 4), st.integers(1, 4), kinds=EXACT_KINDS))
    if draw(st.booleans()):
        x0 = draw(matrices(a.shape[1], 1, kinds=("integer",)))
        b = a @ x0
    else:
        b = draw(matrices(a.shape[0], 1, kinds=("integer", "sparse")))
    return a, b


def rkc_prediction(rank_a: int, rank_ab: int, n: int) -> str:
    """The theorem as printed: none / unique / infinite from the two ranks and n."""
    if rank_a != rank_ab:
        return "none"
    return "unique" if rank_a == n else "infinite"


def solution_count_by_witness(a: np.ndarray, b: np.ndarray) -> str:
    """How many solutions Ax = b has, each answer backed by a witness verified by exact
    multiplication: a solution x (A x = b) or a y with yᵀA = 0, yᵀb ≠ 0; then a nonzero
    v with A v = 0, or a left inverse L with L A = I."""
    m, n = a.shape
    az, bz = exact.fmpz_matrix(a), exact.fmpz_matrix(b)
    # A solution exists iff some (x, t) with A x = t b has t ≠ 0.
    kernel, nullity = exact.fmpz_matrix(np.hstack([a, -b])).nullspace()
    column = next((j for j in range(nullity) if kernel[n, j] != 0), None)
    if column is None:
        left, left_nullity = az.transpose().nullspace()
        for j in range(left_nullity):
            y = flint.fmpz_mat([[left[i, j]] for i in range(m)])
            if (y.transpose() * az).is_zero() and (y.transpose() * bz)[0, 0] != 0:
                return "none"
        raise AssertionError("no solution, yet no Fredholm witness: exact arithmetic failed")
    x = flint.fmpq_mat([[flint.fmpq(kernel[i, column], kernel[n, column])] for i in range(n)])
    assert flint.fmpq_mat(az) * x == flint.fmpq_mat(bz), "solution witness failed"
    right, right_nullity = az.nullspace()
    if right_nullity:
        v = flint.fmpz_mat([[right[i, 0]] for i in range(n)])
        assert (az * v).is_zero() and not v.is_zero(), "kernel witness failed"
        return "infinite"
    aq = flint.fmpq_mat(az)
    left_inverse = (aq.transpose() * aq).inv() * aq.transpose()
    assert left_inverse * aq == flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])
    return "unique"


def rkc_statement(predict: Callable[[int, int, int], str]):
    def prop(system):
        a, b = system
        rank_a, rank_ab = exact.rank_exact(a), exact.rank_exact(np.hstack([a, b]))
        predicted, actual = predict(rank_a, rank_ab, a.shape[1]), solution_count_by_witness(a, b)
        if predicted == actual:
            return None
        return (f"rank A = {rank_a}, rank [A|b] = {rank_ab}, n = {a.shape[1]}: "
                f"predicted {predicted}, witnesses show {actual}")

    return prop


def rkc_search(predict) -> Check:
    return property_search(
        "trichotomy against exact witnesses",
        linear_systems(),
        rkc_statement(predict),
        space="A up to 4×4 (integer, sparse, rank-deficient, structured), b in col(A) or arbitrary",
        classify=lambda system: solution_count_by_witness(*system),
        describe=lambda system: {"A": to_jsonable(system[0]), "b": to_jsonable(system[1].ravel())},
        # A unique solution (rank A = n = 1) and an underdetermined consistent system (rank 1 < n = 2).
        pinned=[(np.array([[1]]), np.array([[1]])), (np.array([[1, 1]]), np.array([[2]]))],
    )


def _off_by_one_rkc(rank_a: int, rank_ab: int, n: int) -> str:
    if rank_a != rank_ab:
        return "none"
    return "unique" if rank_a == n - 1 else "infinite"


register(
    Claim(
        id="giannou2023.thm7",
        source="App. A.3, Theorem 7",
        hypotheses=("A ∈ R^{m×n}, x ∈ R^n, b ∈ R^m (printed: b ∈ R^n)",),
        subject={"prediction": rkc_prediction},
        checks=(takes("prediction", build=rkc_search),),
        broken=(Broken("unique solution iff rank = n − 1 (off by one)", replaces={"prediction": _off_by_one_rkc},
                       refuted_by="the pinned system A = [[1]], b = [1]: rank 1 = n, one solution, "
                                  "predicted infinitely many"),),
        notes="Each predicted case is compared with a solution count proven by witnesses checked by exact "
        "multiplication (a solution, a Fredholm vector y with yᵀA = 0 and yᵀb ≠ 0, a kernel vector, or a left "
        "inverse). Rational data are covered by integer data up to scaling. Typo noted: the theorem prints "
        "b ∈ R^n; for A ∈ R^{m×n} it must be b ∈ R^m (the two agree for square A, included in the search).",
    )
)


# --- Fact 1 and Remark 4: full rank of a product ----------------------------------------
#
# The objects under test are the predicted rank of AB (a function of n, l) and the condition
# (a function of n, l and the two intersection dimensions k = dim(null A ∩ col B) and
# k_left = dim(null Bᵀ ∩ col Aᵀ)), both written so that they also take sympy symbols.


@st.composite
def full_rank_pairs(draw):
    """Full-rank A ∈ Z^{n×m}, B ∈ Z^{m×l} with n < m, l < m; some columns of B are taken
    from null(A) so that every intersection dimension occurs."""
    m = draw(st.integers(2, 5))
    n, l = draw(st.integers(1, m - 1)), draw(st.integers(1, m - 1))
    a = draw(matrices(n, m, kinds=("integer", "sparse", "structured"))
             .filter(lambda x: exact.rank_exact(x) == x.shape[0]))
    kernel = kernel_basis(a)
    shared = draw(st.integers(0, min(l, kernel.shape[1])))
    rest = draw(matrices(m, l - shared, kinds=("integer", "sparse")))
    b = np.hstack([kernel[:, :shared], rest])
    assume(exact.rank_exact(b) == l)
    return a, b


def kernel_basis(a: np.ndarray) -> np.ndarray:
    """An integer basis of null(A), as the columns of an object array."""
    kernel, nullity = exact.fmpz_matrix(a).nullspace()
    return np.array([[int(kernel[i, j]) for j in range(nullity)] for i in range(a.shape[1])],
                    dtype=object).reshape(a.shape[1], nullity)


def null_col_intersection(a: np.ndarray, b: np.ndarray) -> int:
    """dim(null(A) ∩ col(B)) = dim null A + rank B − rank [N | B], with N a basis of null A."""
    basis = kernel_basis(a)
    return basis.shape[1] + exact.rank_exact(b) - exact.rank_exact(np.hstack([basis, b.astype(object)]))


def pair_dimensions(a: np.ndarray, b: np.ndarray) -> tuple[int, int, int, int]:
    """(n, l, k, k_left): the sizes and both intersection dimensions, computed from kernel bases,
    independently of rank(AB)."""
    return a.shape[0], b.shape[1], null_col_intersection(a, b), null_col_intersection(b.T, a.T)


def product_is_full_rank(a: np.ndarray, b: np.ndarray) -> bool:
    return exact.rank_exact(exact_matmul(a, b)) == min(a.shape[0], b.shape[1])


def holds(condition, a: np.ndarray, b: np.ndarray) -> bool:
    return bool(condition(*pair_dimensions(a, b)))


def fact1_statement(rank_formula, condition):
    """rank(AB) = rank_formula(n, l) ⇔ condition, on one pair, decided exactly: Fact 1 is the direction
    ⇐ (sufficiency), Remark 4 adds ⇒ (necessity)."""

    def prop(pair):
        a, b = pair
        n, m, l = a.shape[0], a.shape[1], b.shape[1]
        rank, predicted = exact.rank_exact(exact_matmul(a, b)), int(rank_formula(n, l))
        condition_holds = holds(condition, a, b)
        if condition_holds and rank != predicted:
            return f"n={n}, m={m}, l={l}: the condition holds but rank(AB) = {rank} ≠ {predicted} (sufficiency fails)"
        if rank == predicted and not condition_holds:
            return f"n={n}, m={m}, l={l}: rank(AB) is the predicted {rank} but the condition fails (necessity fails)"
        return None

    return prop


def fact1_regime(pair) -> list[str]:
    a, b = pair
    regime = "l ≤ n" if b.shape[1] <= a.shape[0] else "l > n"
    trivial = null_col_intersection(a, b) == 0
    return [f"{regime}, null(A)∩col(B) {'= 0' if trivial else '≠ 0'}"]


def describe_pair(pair):
    return {"A": to_jsonable(pair[0]), "B": to_jsonable(pair[1])}


# Always checked first. TRIVIAL: n = l = 1, m = 2, null(A) = span(e_2), col(B) = span(e_1), AB = [1].
# WIDE: n = 1 < l = 2, m = 3: AB = [1 0] has full rank 1, yet e_2 ∈ null(A) ∩ col(B) (Remark 4's
# necessity fails), while null(Bᵀ) = span(e_3) misses col(Aᵀ) = span(e_1).
TRIVIAL_PAIR = (np.array([[1, 0]]), np.array([[1], [0]]))
WIDE_PAIR = (np.array([[1, 0, 0]]), np.array([[1, 0], [0, 1], [0, 0]]))


def canonical_pairs(n: int, m: int, l: int):
    """One full-rank pair (A, B) per orbit of (A, B) ↦ (G A P⁻¹, P B H) (G, P, H invertible), which
    preserves rank(AB) and both intersection dimensions: A = [I_n 0], and B's columns e_1 … e_{l−k}
    and e_{n+1} … e_{n+k} for k = dim(null A ∩ col B) from max(0, l − n) to min(l, m − n). The orbit
    of l-dimensional col(B) under the stabiliser of null(A) is fixed by k, so these pairs decide
    the statement for every real pair of sizes (n, m, l)."""
    a = np.eye(n, m, dtype=np.int64)
    for k in range(max(0, l - n), min(l, m - n) + 1):
        b = np.zeros((m, l), dtype=np.int64)
        for column, row in enumerate([*range(l - k), *range(n, n + k)]):
            b[row, column] = 1
        yield k, a, b


def sweep_configurations(bound: int) -> list[tuple[int, int, int]]:
    """Every (n, m, l) with n, l < m ≤ bound, smallest m first (then n, l)."""
    return sorted(((n, m, l) for m in range(2, bound + 1) for n in range(1, m) for l in range(1, m)),
                  key=lambda nml: (nml[1], nml[0], nml[2]))


def rank_nullity_failure(a: np.ndarray, b: np.ndarray) -> str | None:
    """The reduction the symbolic check rests on, checked on the pair: rank(AB) = l − k = n − k_left."""
    n, l, k, k_left = pair_dimensions(a, b)
    rank = exact.rank_exact(exact_matmul(a, b))
    return None if rank == l - k == n - k_left else f"rank(AB) = {rank}, l − k = {l - k}, n − k_left = {n - k_left}"


def fact1_sweep(statement, top: Callable[[Context], int]):
    """Every (n, m, l) with n, l < m ≤ top and each of its canonical pairs, decided exactly (ranks
    over Q); the first failure is the minimal counterexample."""

    def run(ctx: Context) -> Outcome:
        bound = top(ctx)
        configurations = sweep_configurations(bound)
        pairs = 0
        for n, m, l in configurations:
            for k, a, b in canonical_pairs(n, m, l):
                if exact.rank_exact(b) != l or null_col_intersection(a, b) != k or rank_nullity_failure(a, b):
                    raise AssertionError(f"canonical pair n={n}, m={m}, l={l}, k={k} is not what it should be")
                pairs += 1
                failure = statement((a, b))
                if failure:
                    return Outcome(Verdict.REFUTED, f"{failure} (canonical pair, k = {k})",
                                   {"bound": f"n, l < m ≤ {bound}", "configurations_before": pairs - 1},
                                   counterexample={"n": n, "m": m, "l": l, "intersection_dimension": k,
                                                   **describe_pair((a, b))})
        evidence = {"bound": f"n, l < m ≤ {bound}", "configurations": len(configurations), "canonical_pairs": pairs,
                    "reduction": "one pair per orbit of (A, B) ↦ (G A P⁻¹, P B H), indexed by dim(null A ∩ col B); "
                    "rank(AB) = l − k = n − k_left checked on every pair"}
        return Outcome(Verdict.CERTIFIED, f"all {len(configurations)} size triples ({pairs} orbits of full-rank pairs) "
                       "decided exactly", evidence, scope=f"n, l < m ≤ {bound}")

    return run


def fact1_sweep_top(ctx: Context) -> int:
    return ctx.by_profile(6, 6, 8, 8)


RANK_NULLITY = ("rank–nullity theorem, applied to A on col(B) and to Bᵀ on col(Aᵀ): for full-column-rank B, "
                "rank(AB) = l − dim(null A ∩ col B), and rank(AB) = rank(BᵀAᵀ) = n − dim(null Bᵀ ∩ col Aᵀ) "
                "(e.g. S. Axler, Linear Algebra Done Right, 3rd ed., Thm 3.22)")
# Symbols of the reduction: the sizes, the regime's slack t, and the intersection dimensions.
_n, _l = sympy.symbols("n l", integer=True, positive=True)
_t, _k, _k_left = sympy.symbols("t k k_left", integer=True, nonnegative=True)
# Each regime writes every admissible (n, l, k, k_left) through free nonnegative symbols, with
# rank(AB) = l − k = n − k_left: l ≤ n: n = l + t, k ≥ 0 free, k_left = t + k; l > n: l = n + 1 + t,
# k = t + 1 + k_left (k ≥ l − n, since dim null A + l ≤ m + k), k_left ≥ 0 free.
FACT1_REGIMES = {
    "l ≤ n": {"n": _l + _t, "l": _l, "k": _k, "k_left": _t + _k},
    "l > n": {"n": _n, "l": _n + 1 + _t, "k": _t + 1 + _k_left, "k_left": _k_left},
}


def fact1_reduced(rank_formula, condition, top: Callable[[Context], int]):
    """The statement for all sizes: by rank–nullity (cited) it depends on (A, B) only through
    (n, l, k, k_left), with rank(AB) = l − k = n − k_left. For each regime sympy decides both
    implications (condition ⇒ rank(AB) = rank_formula(n, l), Fact 1; the converse, Remark 4) with
    symbolic n, l, k, k_left, evaluating both objects under test. Where one is not identically true,
    the canonical pairs are searched in sweep order up to ``top`` for the counterexample."""

    def run(ctx: Context) -> Outcome:
        decided = {}
        for regime, values in FACT1_REGIMES.items():
            n, l, k, k_left = values["n"], values["l"], values["k"], values["k_left"]
            rank_claim, given = sympy.Eq(l - k, rank_formula(n, l)), condition(n, l, k, k_left)
            decided[f"{regime}, sufficiency"] = sympy.simplify(sympy.Implies(given, rank_claim))
            decided[f"{regime}, necessity"] = sympy.simplify(sympy.Implies(rank_claim, given))
        evidence = {"parametrization": {regime: {key: str(value) for key, value in values.items()}
                                        for regime, values in FACT1_REGIMES.items()},
                    "decided": {case: str(value) for case, value in decided.items()}}
        if all(value is sympy.true for value in decided.values()):
            return Outcome(Verdict.CERTIFIED, "both directions hold for symbolic n, l, k, k_left in both regimes",
                           evidence, scope=ALL_SIZES, relies_on=(RANK_NULLITY,))
        statement, bound = fact1_statement(rank_formula, condition), top(ctx)
        open_cases = [case for case, value in decided.items() if value is not sympy.true]
        for n, m, l in sweep_configurations(bound):
            for k, a, b in canonical_pairs(n, m, l):
                failure = statement((a, b))
                if failure:
                    return Outcome(Verdict.REFUTED, f"{failure} (canonical pair, k = {k}); symbolically open: "
                                   f"{', '.join(open_cases)}", evidence,
                                   counterexample={"n": n, "m": m, "l": l, "intersection_dimension": k,
                                                   **describe_pair((a, b))})
        return Outcome(Verdict.INCONCLUSIVE, f"{', '.join(open_cases)} do not simplify to True and no canonical pair "
                       f"with n, l < m ≤ {bound} fails", evidence)

    return run


def random_full_rank_pair(rng: np.random.Generator, bound: int):
    """A full-rank integer pair past the sweep: n, l < m with bound < m ≤ 2·bound, B sharing a random
    number of directions with null(A) (mixed with random columns, so not a canonical pair)."""
    m = int(rng.integers(bound + 1, 2 * bound + 1))
    n, l = (int(x) for x in rng.integers(1, m, size=2))
    while True:
        a = rng.integers(-3, 4, size=(n, m)).astype(object)
        if exact.rank_exact(a) == n:
            break
    kernel = kernel_basis(a)
    shared = int(rng.integers(max(0, l - n), min(l, m - n) + 1))
    while True:
        b = np.hstack([exact_matmul(kernel, rng.integers(-2, 3, size=(m - n, shared)).astype(object)),
                       rng.integers(-3, 4, size=(m, l - shared)).astype(object)])
        if exact.rank_exact(b) == l:
            return a, b


def fact1_beyond(statement, top: Callable[[Context], int]) -> Check:
    def decide(pair):
        return rank_nullity_failure(*pair) or statement(pair)

    return search_beyond_sweep(
        "full-rank pairs past the sweep", lambda rng: random_full_rank_pair(rng, 6), decide,
        sweep_bound=lambda ctx: f"n, l < m ≤ {top(ctx)}", reach=lambda ctx: "n, l < m, 6 < m ≤ 12",
        budget=lambda ctx: ctx.by_profile(8, 40, 200, 400), pinned=BEYOND_PINNED, describe=describe_pair,
        classify=lambda pair: fact1_regime(pair)[0])


def canonical_pair(n: int, m: int, l: int, k: int):
    return next((a, b) for kk, a, b in canonical_pairs(n, m, l) if kk == k)


# Past the sweep, pinned so that a wrong rank formula or condition fails at every seed: a trivial and
# a nontrivial intersection with l ≤ n, and a nontrivial one with l > n (where the printed Remark 4 fails).
BEYOND_PINNED = [canonical_pair(7, 12, 6, 0), canonical_pair(7, 12, 6, 1), canonical_pair(6, 12, 7, 1)]


def fact1_reduction_check(rank_formula, condition) -> Check:
    return Check("reduction to (n, l, k, k_left) for symbolic sizes", "symbolic",
                 fact1_reduced(rank_formula, condition, fact1_sweep_top), "statement")


def fact1_sweep_check(rank_formula, condition) -> Check:
    return Check("exhaustive sweep over (n, m, l) on canonical pairs", "certificate",
                 fact1_sweep(fact1_statement(rank_formula, condition), fact1_sweep_top), "statement")


def fact1_beyond_check(rank_formula, condition) -> Check:
    return fact1_beyond(fact1_statement(rank_formula, condition), fact1_sweep_top)


def fact1_search_check(rank_formula, condition) -> Check:
    return property_search("rank(AB) = min{n,l} ⇔ condition (exact search)", full_rank_pairs(),
                           fact1_statement(rank_formula, condition),
                           space="full-rank integer A (n×m), B (m×l), n, l < m ≤ 5, B sharing 0…min(l, m−n) "
                           "directions with null(A)", classify=fact1_regime, describe=describe_pair,
                           pinned=[TRIVIAL_PAIR, WIDE_PAIR])


FACT1_CHECKS = tuple(takes("rank_formula", "condition", build=build)
                     for build in (fact1_reduction_check, fact1_sweep_check, fact1_beyond_check, fact1_search_check))


def min_rank(n, l):
    """The predicted rank of AB, min{n, l} (sympy.Min: also on symbols)."""
    return sympy.Min(n, l)


def one_short_of_min(n, l):
    return sympy.Min(n, l) - 1


def trivial_intersection(n, l, k, k_left):
    """The printed condition of Fact 1 and Remark 4: null(A) ∩ col(B) = {0}."""
    return sympy.Eq(k, 0)


def nontrivial_intersection(n, l, k, k_left):
    return sympy.Ne(k, 0)


def corrected_condition(n, l, k, k_left):
    """The reading Remark 4 hints at: null(A) ∩ col(B) = {0} when l ≤ n, and the
    transposed condition null(Bᵀ) ∩ col(Aᵀ) = {0} when n < l."""
    return sympy.Piecewise((sympy.Eq(k, 0), sympy.Le(l, n)), (sympy.Eq(k_left, 0), True))


def corrected_condition_negated(n, l, k, k_left):
    return sympy.Not(corrected_condition(n, l, k, k_left))



register(
    Claim(
        id="giannou2023.fact1",
        source="App. A.1, Fact 1 and Remark 4",
        hypotheses=("A ∈ R^{n×m}, B ∈ R^{m×l} of full rank, n < m, l < m (every such pair)",),
        subject={"rank_formula": min_rank, "condition": trivial_intersection},
        checks=FACT1_CHECKS,
        broken=(
            Broken("rank(AB) = min{n,l} − 1 (off by one)", replaces={"rank_formula": one_short_of_min},
                   refuted_by="the first canonical pair (n, m, l) = (1, 2, 1), k = 0 (= the pinned TRIVIAL_PAIR): "
                   "rank(AB) = 1, not 0; the pinned pairs past the sweep likewise"),
            Broken("the condition negated (null(A) ∩ col(B) ≠ {0})", replaces={"condition": nontrivial_intersection},
                   refuted_by="the canonical pair (n, m, l) = (1, 2, 1), k = 1: the negated condition holds, "
                   "rank(AB) = 0; TRIVIAL_PAIR for necessity; past the sweep the pinned (7, 12, 6) pairs with "
                   "k = 1 and k = 0"),
        ),
        erratum=Erratum(
            "as-printed",
            "Fact 1 holds; Remark 4's claim that its condition is also necessary is false whenever l > n: A = [1 0 0], "
            "B = [e_1 e_2] give AB = [1 0] of full rank 1 although e_2 ∈ null(A) ∩ col(B). Remark 4's own last "
            "sentence ('the same argument through the left nullspace and the row space') supplies the repair — use "
            "null(A) ∩ col(B) when l ≤ n and null(Bᵀ) ∩ col(Aᵀ) when n ≤ l — "
            "and that two-sided reading is certified for all sizes. "
            "The only later use (proof of Thm 9, Eq. (55)–(56)) needs the sufficient direction for a square "
            "product and concludes full rank from Remark 5, so nothing rests on the false necessity for l > n.",
            corrected=("giannou2023.fact1.corrected",),
        ),
        notes="By rank–nullity (cited) rank(AB) = l − k = n − k_left with k = dim(null A ∩ col B) and k_left = "
        "dim(null Bᵀ ∩ col Aᵀ), so the statement depends on (A, B) only through (n, l, k, k_left); sympy decides it "
        "for symbolic n, l, k, k_left in the regimes l ≤ n and l > n, evaluating the rank formula and the condition "
        "under test. Fact 1 (sufficiency) holds for all sizes (when l > n its hypothesis can never hold, since "
        "dim null A + l > m). Remark 4's necessity fails for l > n; the exhaustive sweep over every (n, m, l) with "
        "n, l < m ≤ 6 (≤ 8 thorough, large), one canonical pair per orbit of (A, B) ↦ (GAP⁻¹, PBH), gives the "
        "minimal counterexample n = 1, m = 3, l = 2, and the search past the sweep (6 < m ≤ 12) draws non-canonical "
        "pairs. Intersection dimensions are computed from kernel bases, independently of rank(AB), and the "
        "reduction rank(AB) = l − k = n − k_left is checked exactly on every pair decided. See "
        "giannou2023.fact1.corrected for the two-sided reading.",
    )
)

register(
    Claim(
        id="giannou2023.fact1.corrected",
        variant_of="giannou2023.fact1",
        label="Fact 1 + Remark 4, corrected",
        statement="For full-rank A ∈ R^{n×m}, B ∈ R^{m×l}, n < m, l < m: rank(AB) = min{n,l} ⇔ null(A) ∩ col(B) = {0} "
        "when l ≤ n, and ⇔ null(Bᵀ) ∩ col(Aᵀ) = {0} when n ≤ l (Remark 4's 'left nullspace and row space').",
        source="App. A.1, Remark 4 (last sentence)",
        hypotheses=("A ∈ R^{n×m}, B ∈ R^{m×l} of full rank, n < m, l < m (every such pair)",),
        subject={"rank_formula": min_rank, "condition": corrected_condition},
        checks=FACT1_CHECKS,
        broken=(
            Broken("rank(AB) = min{n,l} − 1", replaces={"rank_formula": one_short_of_min},
                   refuted_by="the first canonical pair (n, m, l) = (1, 2, 1), k = 0 (= TRIVIAL_PAIR) and the pinned "
                   "(7, 12, 6), k = 0 pair past the sweep"),
            Broken("the two-sided condition negated", replaces={"condition": corrected_condition_negated},
                   refuted_by="the canonical pair (n, m, l) = (1, 2, 1), k = 1 for sufficiency, TRIVIAL_PAIR for "
                   "necessity; past the sweep the pinned (7, 12, 6) pairs with k = 1 and k = 0"),
            # The realistic near-miss: Remark 4 as printed, one condition for both regimes.
            Broken("Remark 4 as printed: null(A) ∩ col(B) = {0} necessary also when l > n",
                   replaces={"condition": trivial_intersection},
                   refuted_by="WIDE_PAIR A = [1 0 0], B = [e_1 e_2] (pinned, and the sweep's first failure "
                   "(n, m, l) = (1, 3, 2)): AB = [1 0] has full rank, e_2 ∈ null(A) ∩ col(B); past the sweep the "
                   "pinned (6, 12, 7), k = 1 pair"),
        ),
        notes="Certified for all sizes: by rank–nullity (cited) rank(AB) = l − k = n − k_left, so the statement "
        "depends on (A, B) only through (n, l, k, k_left), every admissible value of which the regimes l ≤ n "
        "(n = l + t, k_left = t + k) and l > n (l = n + 1 + t, k = t + 1 + k_left) parametrize by free nonnegative "
        "symbols; sympy decides both implications in each regime, evaluating the rank formula and the condition "
        "under test. The exhaustive sweep (n, l < m ≤ 6: canonical pairs, one per orbit, with the reduction "
        "checked exactly on each) and the search past it (6 < m ≤ 12, non-canonical pairs) corroborate it.",
    )
)
