"""giannou2023, Appendix A.1–A.3: the linear algebra the constructions rest on —
Kronecker and Khatri–Rao identities, Rouché–Kronecker–Capelli, full rank of a product.

Source: shared/seeds/000_ee8c9d7a0007ea49.txt (App. A "Linear Algebra").
Conventions (CLAIMS.md): ``vec`` is row-major; A ⊙ B is ``scipy.linalg.khatri_rao``
(column-wise Kronecker product), which also works on sympy and Python-int object arrays.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import flint
import numpy as np
import sympy
from hypothesis import assume
from hypothesis import strategies as st

from theorems.engine.checks import property_search, symbolic_identity, symbolic_sizes_identity, to_jsonable
from theorems.engine.context import Context
from theorems.engine.registry import Broken, Check, Claim, Erratum, register
from theorems.engine.verdicts import Outcome, Verdict
from theorems.maths import exact
from theorems.maths.index_sums import quotient, with_remainder_below
from theorems.maths.khatri_rao import exact_matmul, khatri_rao, symbols_matrix
from theorems.maths.strategies import EXACT_KINDS, classify_matrix, matrices
from theorems.papers.giannou2023 import SOURCE

# --- Theorem 5: Kronecker rank and mixed products -------------------------------------

_small = st.integers(1, 4)
_exact_matrix = matrices(_small, _small, kinds=EXACT_KINDS)


def kron_rank_statement(combine_ranks: Callable[[int, int], int]):
    """rank(A ⊗ B) == combine_ranks(rank A, rank B), decided exactly over Q."""

    def prop(pair):
        a, b = pair
        lhs = exact.rank_exact(np.kron(a, b))
        rhs = combine_ranks(exact.rank_exact(a), exact.rank_exact(b))
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


def kron_chain_sides(kron_factor: Callable[[np.ndarray, np.ndarray], np.ndarray]):
    """(A1…Ak) ⊗ (B1…Bk) and the product of kron_factor(Ai, Bi), for generic Ai, Bi."""

    def build(case):
        k, a_dims, b_dims = case
        a = [symbols_matrix(f"a{i}", a_dims[i], a_dims[i + 1]) for i in range(k)]
        b = [symbols_matrix(f"b{i}", b_dims[i], b_dims[i + 1]) for i in range(k)]
        lhs = np.kron(exact_matmul(*a), exact_matmul(*b))
        rhs = exact_matmul(*(kron_factor(ai, bi) for ai, bi in zip(a, b, strict=True)))
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


def thm5_checks(combine_ranks, kron_factor) -> tuple[Check, ...]:
    return (
        property_search(
            "kron rank (exact search)",
            kron_pairs,
            kron_rank_statement(combine_ranks),
            space="integer, sparse, rank-deficient and structured A, B up to 4×4, ranks over Q",
            classify=lambda pair: [f"A {classify_matrix(pair[0])}", f"B {classify_matrix(pair[1])}"],
            pinned=KRON_RANK_PINNED,
            part="rank",
        ),
        symbolic_identity(
            "mixed product of chains (symbolic)",
            kron_chain_cases,
            kron_chain_sides(kron_factor),
            scope=lambda ctx: f"k ≤ 2, dimensions ≤ {ctx.by_profile(2, 2, 3, 3)}; k = 3, 2×2",
            describe_case=describe_chain,
            part="mixed product",
        ),
    )


register(
    Claim(
        id="giannou2023.thm5",
        source=f"{SOURCE}, App. A.2, Theorem 5",
        hypotheses=("A, B any real matrices (part 1)", "A_k, B_k conformable for the products (part 2)"),
        checks=thm5_checks(lambda ra, rb: ra * rb, np.kron),
        broken=(
            Broken("rank(A⊗B) = rank A + rank B (the direct-sum rule); chain with B_i ⊗ A_i (factors swapped)",
                   thm5_checks(lambda ra, rb: ra + rb, lambda a, b: np.kron(b, a)),
                   refuted_by="the pinned pair A = B = [[1]] (rank 1, not 2); the chain case k = 1 with 1×2 A and B, "
                   "always visited, where A⊗B ≠ B⊗A"),
        ),
        notes="Part 1 is searched exactly (ranks over Q) over integer, sparse, rank-deficient and structured "
        "factors, so it is supported, not certified. Part 2 is a polynomial identity, certified by sympy for "
        "chains of k = 1, 2 factors with all inner dimensions ≤ 2 (≤ 3 in the thorough and large profiles) "
        "and k = 3 with 2×2 factors.",
    )
)


# --- Theorem 6: mixed products of Khatri–Rao, Kronecker and Hadamard products ---------


def thm6_cases(ctx: Context):
    # large stays at 3: top^5 shape tuples of growing symbolic matrices (1024 at top = 4, a minute).
    top = ctx.by_profile(2, 2, 3, 3)
    return list(itertools.product(range(1, top + 1), repeat=5))


def kr_kron_sides(kron_factor):
    """(AC) ⊙ (BD) and kron_factor(A, B)·(C ⊙ D) for generic A p×q, C q×N, B r×s, D s×N."""

    def build(case):
        p, q, r, s, n = case
        a, c = symbols_matrix("a", p, q), symbols_matrix("c", q, n)
        b, d = symbols_matrix("b", r, s), symbols_matrix("d", s, n)
        left = sympy.Matrix(khatri_rao(exact_matmul(a, c), exact_matmul(b, d)))
        right = sympy.Matrix(exact_matmul(kron_factor(a, b), khatri_rao(c, d)))
        return left, right

    return build


def kr_hadamard_sides(second_factor, crossed: bool = False):
    """(A ⊙ B) ∘ (C ⊙ D) and (A ∘ C) ⊙ second_factor(B, D) for generic A, C p×N, B, D r×N;
    ``crossed``: the near-miss (A ∘ D) ⊙ (B ∘ C) (same shapes, taken with p = r)."""

    def build(case):
        p, r, n = case[0], case[1], case[4]
        r = p if crossed else r
        a, c = symbols_matrix("a", p, n), symbols_matrix("c", p, n)
        b, d = symbols_matrix("b", r, n), symbols_matrix("d", r, n)
        rhs = khatri_rao(a * d, b * c) if crossed else khatri_rao(a * c, second_factor(b, d))
        return sympy.Matrix(khatri_rao(a, b) * khatri_rao(c, d)), sympy.Matrix(rhs)

    return build


def describe_dims(case) -> str:
    return "p,q,r,s,N = " + ",".join(map(str, case))


def thm6_scope(ctx: Context) -> str:
    return f"p, q, r, s, N ≤ {ctx.by_profile(2, 2, 3, 3)}"


# Sizes and indices of Thm 6 in symbolic form: row ρ = i·r + k of a Khatri–Rao or Kronecker
# product (i < p, k < r; scipy's order), inner index w = u·s + v (u < q, v < s), column j < N.
_P, _Q, _R, _S = sympy.symbols("p q r s", integer=True, positive=True)
_I, _KR, _U, _V, _J = sympy.symbols("i k u v j", integer=True, nonnegative=True)


def kron_entry(first, second, rows_second, cols_second, row, col):
    """(first ⊗ second)[row, col] for flat indices, first and second sympy IndexedBases."""
    return (first[quotient(row, rows_second), quotient(col, cols_second)]
            * second[sympy.Mod(row, rows_second), sympy.Mod(col, cols_second)])


def as_product_of_sums(total: sympy.Sum):
    """Σ_u Σ_v f(u) g(v) as (Σ_u f)(Σ_v g); unchanged when the summand does not separate."""
    (inner, *inner_range), (outer, *outer_range) = total.limits
    free_of_inner, with_inner = total.function.as_independent(inner, as_Add=False)
    if outer in with_inner.free_symbols:
        return total
    return sympy.Sum(free_of_inner, (outer, *outer_range)) * sympy.Sum(with_inner, (inner, *inner_range))


def kr_kron_difference(swap_kron: bool):
    """(AC)⊙(BD) − (A⊗B)(C⊙D) at row ρ = i·r + k, column j, for symbolic p, q, r, s, N. The sum over
    the flat inner index w < qs is taken as the double sum over w = u·s + v (Euclidean division is a
    bijection [0, q) × [0, s) → [0, qs)). ``swap_kron``: B ⊗ A instead of A ⊗ B."""

    def difference():
        a, b, c, d = (sympy.IndexedBase(x) for x in "abcd")
        row, inner = _I * _R + _KR, _U * _S + _V
        lhs = (sympy.Sum(a[quotient(row, _R), _U] * c[_U, _J], (_U, 0, _Q - 1))
               * sympy.Sum(b[sympy.Mod(row, _R), _V] * d[_V, _J], (_V, 0, _S - 1)))
        kron = kron_entry(b, a, _P, _Q, row, inner) if swap_kron else kron_entry(a, b, _R, _S, row, inner)
        summand = kron * c[quotient(inner, _S), _J] * d[sympy.Mod(inner, _S), _J]
        summand = with_remainder_below(with_remainder_below(summand, _R, _KR), _S, _V)
        rhs = as_product_of_sums(sympy.Sum(summand, (_V, 0, _S - 1), (_U, 0, _Q - 1)))
        lhs = with_remainder_below(lhs, _R, _KR)
        return sympy.expand(lhs - rhs), {"lhs": str(lhs), "rhs": str(rhs), "row": "ρ = i·r + k, k < r"}

    return difference


def kr_hadamard_difference(second_factor, crossed: bool = False):
    """(A⊙B)∘(C⊙D) − (A∘C)⊙second_factor(B, D) at row ρ = i·r + k, column j, for symbolic sizes;
    ``crossed``: (A∘D)⊙(B∘C)."""

    def difference():
        a, b, c, d = (sympy.IndexedBase(x) for x in "abcd")
        row = _I * _R + _KR
        top, bottom = quotient(row, _R), sympy.Mod(row, _R)
        lhs = a[top, _J] * b[bottom, _J] * c[top, _J] * d[bottom, _J]
        rhs = (a[top, _J] * d[top, _J] * b[bottom, _J] * c[bottom, _J] if crossed
               else a[top, _J] * c[top, _J] * second_factor(b[bottom, _J], d[bottom, _J]))
        lhs, rhs = (with_remainder_below(side, _R, _KR) for side in (lhs, rhs))
        return sympy.expand(lhs - rhs), {"lhs": str(lhs), "rhs": str(rhs), "row": "ρ = i·r + k, k < r"}

    return difference


# The concrete shapes a failed symbolic-size identity falls back to, smallest first.
THM6_FALLBACK = list(itertools.product(range(1, 3), repeat=5))


def thm6_checks(swap_kron: bool, second_factor, crossed: bool = False) -> tuple[Check, ...]:
    kron_factor = (lambda a, b: np.kron(b, a)) if swap_kron else np.kron
    return (
        symbolic_identity("(AC)⊙(BD) = (A⊗B)(C⊙D) (symbolic)", thm6_cases, kr_kron_sides(kron_factor),
                          scope=thm6_scope, describe_case=describe_dims, part="Khatri–Rao/Kronecker"),
        symbolic_sizes_identity("(AC)⊙(BD) = (A⊗B)(C⊙D) for symbolic sizes (index identity)",
                                kr_kron_difference(swap_kron), THM6_FALLBACK, kr_kron_sides(kron_factor),
                                describe_dims, part="Khatri–Rao/Kronecker"),
        symbolic_identity("(A⊙B)∘(C⊙D) = (A∘C)⊙(B∘D) (symbolic)", thm6_cases, kr_hadamard_sides(second_factor, crossed),
                          scope=thm6_scope, describe_case=describe_dims, part="Khatri–Rao/Hadamard"),
        symbolic_sizes_identity("(A⊙B)∘(C⊙D) = (A∘C)⊙(B∘D) for symbolic sizes (index identity)",
                                kr_hadamard_difference(second_factor, crossed), THM6_FALLBACK,
                                kr_hadamard_sides(second_factor, crossed), describe_dims, part="Khatri–Rao/Hadamard"),
    )


register(
    Claim(
        id="giannou2023.thm6",
        source=f"{SOURCE}, App. A.2, Theorem 6, Eq. (13)–(14)",
        hypotheses=("A p×q, C q×N, B r×s, D s×N (Eq. 13)", "A, C p×N and B, D r×N (Eq. 14)"),
        checks=thm6_checks(False, lambda b, d: b * d),
        broken=(
            Broken("(AC)⊙(BD) = (B⊗A)(C⊙D) (Kronecker factors in the wrong order); (A⊙B)∘(C⊙D) = (A∘C)⊙(B∘B)",
                   thm6_checks(True, lambda b, d: b * b),
                   refuted_by="the fixed shape cases p,q,r,s,N = 1,2,1,2,1 (first case) and 1,1,1,1,1 (first case); "
                   "the symbolic-size checks do not vanish and fall to the same cases"),
            Broken("(A⊙B)∘(C⊙D) = (A∘D)⊙(B∘C) (Hadamard partners crossed)",
                   thm6_checks(False, lambda b, d: b * d, crossed=True)[2:],
                   refuted_by="the fixed shape case p = 2, N = 1 (r taken equal to p; always visited): entry (1, 0) is "
                   "a_0 c_0 b_1 d_1 on the left and a_0 d_0 b_1 c_1 on the right; the symbolic-size check falls to it"),
        ),
        notes="Both identities are certified for symbolic sizes p, q, r, s, N as index identities: entry "
        "(ρ = i·r + k, j) of each side, with ⌊ρ/r⌋ and ρ mod r reduced by sympy given k < r and the inner flat index "
        "w < qs summed as w = u·s + v (scope all). They are also checked as polynomial identities in the entries for "
        "every shape with all dimensions ≤ 2 (≤ 3 in the thorough and large profiles), which pins scipy's row order.",
    )
)


# --- Lemma 4 (main text Lemma 1): CXB = W* as a Khatri–Rao linear system ---------------


def lemma4_cases(ctx: Context):
    top = ctx.by_profile(2, 3, 3, 4)
    return list(itertools.product(range(1, top + 1), repeat=2))


def lemma4_sides(vec: Callable[[np.ndarray], np.ndarray]):
    """vec(C X B) and (C ⊙ Bᵀ) vecd(X) for generic C n×nm, diagonal X, B nm×m."""

    def build(case):
        n, m = case
        c, b = symbols_matrix("c", n, n * m), symbols_matrix("b", n * m, m)
        x = np.array(sympy.symbols(f"x_0:{n * m}"), dtype=object)
        cxb = exact_matmul(c, np.diag(x), b)
        return sympy.Matrix(vec(cxb)), sympy.Matrix(exact_matmul(khatri_rao(c, b.T), x.reshape(-1, 1)))

    return build


def row_major_vec(w: np.ndarray) -> np.ndarray:
    return w.reshape(-1, 1)


def column_major_vec(w: np.ndarray) -> np.ndarray:
    return w.T.reshape(-1, 1)


# Entry (a, b) of W ∈ R^{n×m} that each vec places at position a·m + b — the row index of
# C ⊙ Bᵀ (scipy.linalg.khatri_rao) for the pair (row a of C, row b of Bᵀ) — in symbolic sizes.
_N, _M = sympy.symbols("n m", integer=True, positive=True)
_A, _B, _K, _L = sympy.symbols("a b k l", integer=True, nonnegative=True)
VEC_POSITION = {
    row_major_vec: (_A, _B),
    column_major_vec: (sympy.Mod(_A * _M + _B, _N), sympy.floor((_A * _M + _B) / _N)),
}


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


def lemma4_general_difference(vec):
    """The identity for symbolic n, m as an index identity: at position a·m + b, vec(CXB) holds
    (CXB)_{ij} = Σ_k Σ_l c_{ik} δ_{kl} x_k b_{lj} at (i, j) = VEC_POSITION[vec], and (C ⊙ Bᵀ)vecd(X)
    holds Σ_k c_{ak} b_{kb} x_k (k < nm)."""

    def difference():
        c, b, x = sympy.IndexedBase("c"), sympy.IndexedBase("b"), sympy.IndexedBase("x")
        size = _N * _M
        i, j = VEC_POSITION[vec]
        cxb = sympy.Sum(sympy.Sum(c[i, _K] * sympy.KroneckerDelta(_K, _L) * x[_K] * b[_L, j], (_L, 0, size - 1)),
                        (_K, 0, size - 1))
        khatri_rao_side = sympy.Sum(c[_A, _K] * b[_K, _B] * x[_K], (_K, 0, size - 1))
        evidence = {"lhs": "vec(CXB) at position a·m + b", "rhs": str(khatri_rao_side)}
        return sympy.expand(summation_ranges_applied(cxb.doit()) - khatri_rao_side), evidence

    return difference


def lemma4_checks(vec) -> tuple[Check, ...]:
    return (
        symbolic_identity("vec(CXB) = (C⊙Bᵀ)vecd(X) (symbolic)", lemma4_cases, lemma4_sides(vec),
                          scope=lambda ctx: f"n, m ≤ {ctx.by_profile(2, 3, 3, 4)}",
                          describe_case=lambda case: f"n={case[0]}, m={case[1]}"),
        symbolic_sizes_identity("vec(CXB) = (C⊙Bᵀ)vecd(X) for symbolic n, m (index identity)",
                                lemma4_general_difference(vec), list(itertools.product(range(1, 4), repeat=2)),
                                lemma4_sides(vec), lambda case: f"n={case[0]}, m={case[1]}"),
    )


register(
    Claim(
        id="giannou2023.lemma4",
        source=f"{SOURCE}, App. A.3, Lemma 4 (main text Lemma 1)",
        hypotheses=("C ∈ R^{n×nm}, X ∈ R^{nm×nm} diagonal, B ∈ R^{nm×m}, W* ∈ R^{n×m}; vec row-major",),
        checks=lemma4_checks(row_major_vec),
        broken=(Broken("column-major vec instead of row-major (the other common convention)",
                       lemma4_checks(column_major_vec),
                       refuted_by="the fixed case n = m = 2, always visited (for n or m = 1 both conventions agree); "
                                  "the symbolic-size check does not vanish and falls to the same concrete case"),),
        notes="The equivalence CXB = W* ⇔ (C⊙Bᵀ)vecd(X) = vec(W*) follows from the identity "
        "vec(CXB) = (C⊙Bᵀ)vecd(X), certified for symbolic n, m as an index identity (sympy Sum and KroneckerDelta: "
        "scope all), and as a polynomial identity on concrete matrices for n, m ≤ 2 "
        "(≤ 3 from the ci profile, ≤ 4 large), which pins the Khatri–Rao row order the index identity assumes. "
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


def thm7_checks(predict) -> tuple[Check, ...]:
    return (
        property_search(
            "trichotomy against exact witnesses",
            linear_systems(),
            rkc_statement(predict),
            space="A up to 4×4 (integer, sparse, rank-deficient, structured), b in col(A) or arbitrary",
            classify=lambda system: solution_count_by_witness(*system),
            describe=lambda system: {"A": to_jsonable(system[0]), "b": to_jsonable(system[1].ravel())},
            # A unique solution (rank A = n = 1) and an underdetermined consistent system (rank 1 < n = 2).
            pinned=[(np.array([[1]]), np.array([[1]])), (np.array([[1, 1]]), np.array([[2]]))],
        ),
    )


def _off_by_one_rkc(rank_a: int, rank_ab: int, n: int) -> str:
    if rank_a != rank_ab:
        return "none"
    return "unique" if rank_a == n - 1 else "infinite"


register(
    Claim(
        id="giannou2023.thm7",
        source=f"{SOURCE}, App. A.3, Theorem 7",
        hypotheses=("A ∈ R^{m×n}, x ∈ R^n, b ∈ R^m (printed: b ∈ R^n)",),
        checks=thm7_checks(rkc_prediction),
        broken=(Broken("unique solution iff rank = n − 1 (off by one)", thm7_checks(_off_by_one_rkc),
                       refuted_by="the pinned system A = [[1]], b = [1]: rank 1 = n, one solution, "
                                  "predicted infinitely many"),),
        notes="Each predicted case is compared with a solution count proven by witnesses checked by exact "
        "multiplication (a solution, a Fredholm vector y with yᵀA = 0 and yᵀb ≠ 0, a kernel vector, or a left "
        "inverse). Rational data are covered by integer data up to scaling. Typo noted: the theorem prints "
        "b ∈ R^n; for A ∈ R^{m×n} it must be b ∈ R^m (the two agree for square A, included in the search).",
    )
)


# --- Fact 1 and Remark 4: full rank of a product ----------------------------------------


@st.composite
def full_rank_pairs(draw):
    """Full-rank A ∈ Z^{n×m}, B ∈ Z^{m×l} with n < m, l < m; some columns of B are taken
    from null(A) so that every intersection dimension occurs."""
    m = draw(st.integers(2, 5))
    n, l = draw(st.integers(1, m - 1)), draw(st.integers(1, m - 1))
    a = draw(matrices(n, m, kinds=("integer", "sparse", "structured"))
             .filter(lambda x: exact.rank_exact(x) == x.shape[0]))
    kernel, nullity = exact.fmpz_matrix(a).nullspace()
    kernel = np.array([[int(kernel[i, j]) for j in range(nullity)] for i in range(m)],
                      dtype=np.int64).reshape(m, nullity)
    shared = draw(st.integers(0, min(l, nullity)))
    rest = draw(matrices(m, l - shared, kinds=("integer", "sparse")))
    b = np.hstack([kernel[:, :shared], rest])
    assume(exact.rank_exact(b) == l)
    return a, b


def null_col_intersection(a: np.ndarray, b: np.ndarray) -> int:
    """dim(null(A) ∩ col(B)) = dim null A + rank B − rank [N | B], with N a basis of null A."""
    kernel, nullity = exact.fmpz_matrix(a).nullspace()
    basis = np.array([[int(kernel[i, j]) for j in range(nullity)] for i in range(a.shape[1])], dtype=object)
    basis = basis.reshape(a.shape[1], nullity)
    return nullity + exact.rank_exact(b) - exact.rank_exact(np.hstack([basis, b.astype(object)]))


def product_is_full_rank(a: np.ndarray, b: np.ndarray) -> bool:
    return exact.rank_exact(exact_matmul(a, b)) == min(a.shape[0], b.shape[1])


def fact1_sufficiency(target_rank: Callable[[int, int], int]):
    def prop(pair):
        a, b = pair
        if null_col_intersection(a, b) != 0:
            return None
        rank = exact.rank_exact(exact_matmul(a, b))
        expected = target_rank(a.shape[0], b.shape[1])
        return None if rank == expected else f"null(A) ∩ col(B) = {{0}} but rank(AB) = {rank} ≠ {expected}"

    return prop


def remark4_necessity(condition: Callable[[np.ndarray, np.ndarray], bool]):
    def prop(pair):
        a, b = pair
        if not product_is_full_rank(a, b) or condition(a, b):
            return None
        n, m, l = a.shape[0], a.shape[1], b.shape[1]
        return f"n={n}, m={m}, l={l}: AB has full rank {min(n, l)} but the stated condition fails"

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


def fact1_sweep(statement, top: Callable[[Context], int]):
    """Every (n, m, l) with n, l < m ≤ top, smallest m first (then n, l), and each of its canonical
    pairs, decided exactly (ranks over Q); the first failure is the minimal counterexample."""

    def run(ctx: Context) -> Outcome:
        bound = top(ctx)
        configurations = sorted(((n, m, l) for m in range(2, bound + 1) for n in range(1, m) for l in range(1, m)),
                                key=lambda nml: (nml[1], nml[0], nml[2]))
        pairs = 0
        for n, m, l in configurations:
            for k, a, b in canonical_pairs(n, m, l):
                if exact.rank_exact(b) != l or null_col_intersection(a, b) != k:
                    raise AssertionError(f"canonical pair n={n}, m={m}, l={l}, k={k} is not what it should be")
                pairs += 1
                failure = statement((a, b))
                if failure:
                    return Outcome(Verdict.REFUTED, f"{failure} (canonical pair, k = {k})",
                                   {"bound": f"n, l < m ≤ {bound}", "configurations_before": pairs - 1},
                                   counterexample={"n": n, "m": m, "l": l, "intersection_dimension": k,
                                                   **describe_pair((a, b))})
        evidence = {"bound": f"n, l < m ≤ {bound}", "configurations": len(configurations), "canonical_pairs": pairs,
                    "reduction": "one pair per orbit of (A, B) ↦ (G A P⁻¹, P B H), indexed by dim(null A ∩ col B)"}
        return Outcome(Verdict.CERTIFIED, f"all {len(configurations)} size triples ({pairs} orbits of full-rank pairs) "
                       "decided exactly", evidence, scope=f"n, l < m ≤ {bound}")

    return run


def fact1_sweep_top(ctx: Context) -> int:
    return ctx.by_profile(6, 6, 8, 8)


def fact1_checks(target_rank, condition) -> tuple[Check, ...]:
    space = "full-rank integer A (n×m), B (m×l), n, l < m ≤ 5, B sharing 0…min(l, m−n) directions with null(A)"
    return (
        Check("Fact 1: exhaustive sweep over (n, m, l) on canonical pairs", "certificate",
              fact1_sweep(fact1_sufficiency(target_rank), fact1_sweep_top), "Fact 1 (sufficiency)"),
        property_search("Fact 1: trivial intersection ⇒ rank(AB) = min{n,l}", full_rank_pairs(),
                        fact1_sufficiency(target_rank), space=space, classify=fact1_regime,
                        describe=describe_pair, pinned=[TRIVIAL_PAIR], part="Fact 1 (sufficiency)"),
        Check("Remark 4: exhaustive sweep over (n, m, l) on canonical pairs", "certificate",
              fact1_sweep(remark4_necessity(condition), fact1_sweep_top), "Remark 4 (necessity)"),
        property_search("Remark 4: full rank ⇒ trivial intersection", full_rank_pairs(),
                        remark4_necessity(condition), space=space, classify=fact1_regime,
                        describe=describe_pair, pinned=[TRIVIAL_PAIR, WIDE_PAIR], part="Remark 4 (necessity)"),
    )


def trivial_intersection(a, b) -> bool:
    return null_col_intersection(a, b) == 0


def corrected_condition(a, b) -> bool:
    """The reading Remark 4 hints at: null(A) ∩ col(B) = {0} when l ≤ n, and the
    transposed condition null(Bᵀ) ∩ col(Aᵀ) = {0} when n ≤ l."""
    if b.shape[1] <= a.shape[0]:
        return null_col_intersection(a, b) == 0
    return null_col_intersection(b.T, a.T) == 0


register(
    Claim(
        id="giannou2023.fact1",
        source=f"{SOURCE}, App. A.1, Fact 1 and Remark 4",
        hypotheses=("A ∈ R^{n×m}, B ∈ R^{m×l} of full rank, n < m, l < m",),
        checks=fact1_checks(min, trivial_intersection),
        broken=(Broken("rank(AB) = min{n,l} − 1 (off by one); necessity with the condition negated",
                       fact1_checks(lambda n, l: min(n, l) - 1, lambda a, b: not trivial_intersection(a, b)),
                       refuted_by="the pinned TRIVIAL_PAIR A = [1 0], B = [1 0]ᵀ: rank(AB) = 1, not 0, and AB has full "
                       "rank with a trivial intersection; the sweeps' first pair (n, m, l) = (1, 2, 1) is the same"),),
        erratum=Erratum(
            "as-printed",
            "Fact 1 holds; Remark 4's claim that its condition is also necessary is false whenever l > n: A = [1 0 0], "
            "B = [e_1 e_2] give AB = [1 0] of full rank 1 although e_2 ∈ null(A) ∩ col(B). Remark 4's own last "
            "sentence ('the same argument through the left nullspace and the row space') supplies the repair — use "
            "null(A) ∩ col(B) when l ≤ n and null(Bᵀ) ∩ col(Aᵀ) when n ≤ l — "
            "and that two-sided reading is supported. "
            "The only later use (proof of Thm 9, Eq. (55)–(56)) needs the sufficient direction for a square "
            "product and concludes full rank from Remark 5, so nothing rests on the false necessity for l > n.",
            corrected=("giannou2023.fact1.corrected",),
        ),
        notes="Exhaustive sweep first: every (n, m, l) with n, l < m ≤ 6 (≤ 8 thorough, large), one canonical pair per "
        "orbit of (A, B) ↦ (GAP⁻¹, PBH), decided by exact ranks (55 triples, 125 pairs in ci); its first "
        "counterexample to Remark 4 is n = 1, m = 3, l = 2 (smallest m, then n, l). "
        "Intersection dimensions are computed independently of rank(AB), from a kernel basis of A. "
        "Fact 1 holds (when l > n its hypothesis can never hold, since dim null A + l > m). Remark 4's claim that "
        "the condition is also necessary is false whenever l > n: AB can have full rank n while null(A) ∩ col(B) "
        "is nontrivial. See giannou2023.fact1.corrected for the two-sided reading.",
    )
)

register(
    Claim(
        id="giannou2023.fact1.corrected",
        variant_of="giannou2023.fact1",
        label="Fact 1 + Remark 4, corrected",
        statement="For full-rank A ∈ R^{n×m}, B ∈ R^{m×l}, n < m, l < m: rank(AB) = min{n,l} ⇔ null(A) ∩ col(B) = {0} "
        "when l ≤ n, and ⇔ null(Bᵀ) ∩ col(Aᵀ) = {0} when n ≤ l (Remark 4's 'left nullspace and row space').",
        source=f"{SOURCE}, App. A.1, Remark 4 (last sentence)",
        hypotheses=("A ∈ R^{n×m}, B ∈ R^{m×l} of full rank, n < m, l < m",),
        checks=fact1_checks(min, corrected_condition),
        broken=(
            Broken("rank(AB) = min{n,l} − 1; the two-sided condition negated",
                   fact1_checks(lambda n, l: min(n, l) - 1, lambda a, b: not corrected_condition(a, b)),
                   refuted_by="the pinned TRIVIAL_PAIR A = [1 0], B = [1 0]ᵀ in both searches"),
            # The realistic near-miss: Remark 4 as printed, one condition for both regimes.
            Broken("Remark 4 as printed: null(A) ∩ col(B) = {0} necessary also when l > n",
                   fact1_checks(min, trivial_intersection)[2:],
                   refuted_by="the pinned WIDE_PAIR A = [1 0 0], B = [e_1 e_2]: AB = [1 0] has full rank, "
                              "e_2 ∈ null(A) ∩ col(B); the sweep's first failure is this pair (n, m, l) = (1, 3, 2)"),
        ),
        notes="The same sweeps and searches as giannou2023.fact1, with the necessity condition chosen by regime: the "
        "sweep certifies both directions for n, l < m ≤ 6 (canonical pairs represent every real pair of those sizes).",
    )
)
