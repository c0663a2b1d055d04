"""daneshmand2020: the exact and symbolic claims of the Markov-chain rank analysis.

Source: daneshmand2020 (Sec. 2, 4, 5.3 and App. 7.2, 7.5, 7.6).
Lemma 1, Lemma 2, Lemma 12, Prop. 13 and Example 16; Lemma 20, Lemma 21 and Prop. 8
are in ``chain_dynamics``.

The float definitions (M(H), r(H), rank_τ, FBN_γ, the law μ) are those of
``theorems.maths.bn_chain``. Where a verdict hinges on a tie (rank(H) = r(H), an eigenvalue equal
to τ, an entry of M equal to ±1) this module decides in exact rational arithmetic instead:
a float H is the binary fraction it stores, and the projection onto 𝓗 (rows of norm √N),
which is irrational, is handled through quantities that stay rational:

- M(P(H)) = D^{−1/2} G D^{−1/2} with G = HHᵀ and D = diag(G), so ‖M‖_F² = Σ G_ij²/(G_ii G_jj);
- M(P(H)) − τI is congruent to G − τD, so by Sylvester's law of inertia both have the same
  number of eigenvalues ≥ 0, counted exactly with Descartes' rule on the characteristic
  polynomial (exact for a real-rooted polynomial).
"""

from __future__ import annotations

import itertools
import math
import operator
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np
import scipy.linalg
import sympy
from hypothesis import strategies as st

from theorems.engine.checks import (
    Slack,
    exhaustive_sweep,
    property_search,
    search_beyond_sweep,
    symbolic_identity,
    symbolic_inequality,
    to_jsonable,
)
from theorems.engine.context import Context
from theorems.engine.registry import Broken, Check, Claim, Erratum, register, takes
from theorems.engine.verdicts import ALL_SIZES, Outcome, Verdict
from theorems.lazy import matplotlib, scipy_stats, torch
from theorems.maths import exact
from theorems.maths.bn_chain import fbn_step, gram, project_rows, sample_weights
from theorems.maths.index_sums import independent_index_sum
from theorems.maths.stats import DETECTION_POWER, FALSE_ALARM, detectable_mean_shift, fit_power_law, round_sig
from theorems.maths.strategies import classify_matrix, matrices

# Def. 1: W has iid entries uniform[−a, a] with a = √3, hence zero mean and unit variance.
WEIGHT_HALF_WIDTH = sympy.sqrt(3)
WEIGHT_VARIANCE = WEIGHT_HALF_WIDTH**2 / 3
# A short rational just below √3 = 1.73205…: a point of the support [−√3, √3] next to its corner.
NEAR_CORNER = Fraction(1732, 1000)

# Standard results the certificates of this paper cite rather than check.
SPECTRAL_THEOREM = ("spectral theorem: a real symmetric matrix is QΛQᵀ with Q orthogonal, so Tr(M^k) = Σ_i λ_i^k "
                    "(e.g. Horn & Johnson, Matrix Analysis, 2nd ed., Thm 2.5.6)")
# Where E_W enters Lemma 12's derivations: only second moments, as the γ² coefficient is quadratic in W.
SECOND_MOMENTS = ("linearity of expectation with E[w_ab w_ce] = δ_ac δ_be for iid zero-mean, unit-variance entries "
                  "(Def. 1), and the exchange of E_W with the Taylor expansion in γ, W being bounded (dominated "
                  "convergence, e.g. Durrett, Probability: Theory and Examples, 5th ed., Thm 1.6.7)")
NONNEGATIVE_MEAN_ZERO = ("a nonnegative random variable with mean ≤ 0 is 0 almost surely (e.g. Durrett, Probability: "
                         "Theory and Examples, 5th ed., Thm 1.6.6 applied to X ≥ 0)")


# --- exact linear algebra on rationals -------------------------------------------------


def trace(a: flint.fmpq_mat) -> flint.fmpq:
    return sum((a[i, i] for i in range(a.nrows())), flint.fmpq(0))


def frobenius_sq(a: flint.fmpq_mat) -> flint.fmpq:
    return sum((x * x for x in a.entries()), flint.fmpq(0))


def diagonal_matrix(values: Sequence[flint.fmpq]) -> flint.fmpq_mat:
    n = len(values)
    return flint.fmpq_mat([[values[i] if i == j else 0 for j in range(n)] for i in range(n)])


def _require_symmetric(a: flint.fmpq_mat) -> None:
    if a.nrows() != a.ncols():
        raise ValueError(f"expected a square matrix, got {a.nrows()}×{a.ncols()}")
    if a != a.transpose():
        raise ValueError("expected a symmetric matrix")


def nonnegative_eigenvalue_count(a: flint.fmpq_mat) -> int:
    """The number of eigenvalues ≥ 0 of a symmetric rational matrix, exactly.

    The roots of p(−x), p the characteristic polynomial, are the negated eigenvalues, all
    real, so Descartes' rule counts the negative eigenvalues exactly."""
    _require_symmetric(a)
    coefficients = a.charpoly().coeffs()
    reflected = [c if k % 2 == 0 else -c for k, c in enumerate(coefficients)]
    signs = [c > 0 for c in reflected if c != 0]
    negative = sum(left != right for left, right in itertools.pairwise(signs))
    return a.nrows() - negative


def power_sums(a: flint.fmpq_mat, count: int) -> list[flint.fmpq]:
    """Σ λ_i^k for k = 1..count over the eigenvalues of a square rational matrix, from its
    characteristic polynomial by Newton's identities: exact even when the λ_i are irrational."""
    coefficients = a.charpoly().coeffs()
    n = len(coefficients) - 1
    elementary = [(-1) ** k * coefficients[n - k] if k <= n else flint.fmpq(0) for k in range(count + 1)]
    sums: list[flint.fmpq] = []
    for k in range(1, count + 1):
        total = (-1) ** (k - 1) * k * elementary[k]
        for i in range(1, k):
            total += (-1) ** (i - 1) * elementary[i] * sums[k - i - 1]
        sums.append(total)
    return sums


def equal_nonzero_eigenvalues(m: flint.fmpq_mat) -> bool:
    """Whether all nonzero eigenvalues of a symmetric matrix are equal: exactly when
    Tr(M)·M² = ‖M‖_F²·M (eigenvalues in {0, c} with c = ‖M‖_F²/Tr M)."""
    _require_symmetric(m)
    return trace(m) * (m * m) == frobenius_sq(m) * m


def _nonzero_rows(h: flint.fmpq_mat) -> None:
    for i in range(h.nrows()):
        if all(h[i, j] == 0 for j in range(h.ncols())):
            raise ValueError(f"row {i} of H is zero: H cannot be projected onto 𝓗")


def projected_effective_rank(h: Any) -> flint.fmpq:
    """r(P(H)) exactly, P(H) = √N diag(‖H_i‖)^{−1} H the projection of H onto 𝓗."""
    h = exact.fmpq_matrix(h)
    _nonzero_rows(h)
    g = h * h.transpose()
    d = g.nrows()
    frob = sum((g[i, j] * g[i, j] / (g[i, i] * g[j, j]) for i in range(d) for j in range(d)), flint.fmpq(0))
    return flint.fmpq(d * d) / frob


def projected_rank_tau(h: Any, tau: Any) -> int:
    """rank_τ(P(H)) = #{i ≤ min(d, N): σ_i(P(H))²/N ≥ τ} exactly (bn_chain.rank_tau's
    convention: the min(d, N) singular values of H)."""
    h, tau = exact.fmpq_matrix(h), exact.to_fmpq(tau)
    _nonzero_rows(h)
    if tau < 0:
        raise ValueError(f"tau must be ≥ 0, got {tau}")
    g = h * h.transpose()
    d, n = h.nrows(), h.ncols()
    count = nonnegative_eigenvalue_count(g - tau * diagonal_matrix([g[i, i] for i in range(d)]))
    # M has d − min(d, N) structural zero eigenvalues that are not singular values of H.
    return count - (d - min(d, n)) if tau == 0 else count


# --- sums of squares at a symbolic size -----------------------------------------------


def symbolic_power_sums(size: sympy.Symbol, vector: str) -> Callable[[int], sympy.Expr]:
    """p ↦ Σ_{i ≤ size} x_i^p for a symbolic size: a sum over one free index, kept as a power sum."""
    x = sympy.Symbol("x")
    return lambda power: independent_index_sum(x**power, [x], size, vector)


def weighted_square_gap(weight: Callable[[sympy.Symbol, sympy.Symbol], sympy.Expr], size: sympy.Symbol,
                        vector: str) -> sympy.Expr:
    """½ Σ_{i,j ≤ size} w(x_i, x_j)(x_i − x_j)² for a symbolic size, in power sums (sums over
    independent indices factor): ≥ 0 where w ≥ 0, and 0 exactly when the x_i of positive weight are equal."""
    x, y = sympy.symbols("x y")
    return independent_index_sum(weight(x, y) * (x - y) ** 2, [x, y], size, vector) / 2


# --- inequalities at symbolic sizes ----------------------------------------------------


def unit_interval_form(expression: sympy.Expr, t: sympy.Symbol, s: sympy.Symbol) -> sympy.Expr:
    """A polynomial in t ∈ [0, 1] written homogeneous in (t, s) with s = 1 − t: each t^k becomes
    t^k (t + s)^(n − k), n its degree in t (the Bernstein form). It equals the expression at s = 1 − t,
    so nonnegative coefficients in t, s ≥ 0 prove the expression ≥ 0 on [0, 1]."""
    poly = sympy.Poly(sympy.expand(expression), t)
    degree = poly.degree()
    return sympy.expand(sum((c * t**k * (t + s) ** (degree - k) for (k,), c in poly.terms()), sympy.Integer(0)))


# --- inputs: every kind of H the hypotheses allow ---------------------------------------

H_KINDS = (
    "identity", "orthogonal_rows", "equal_singular_values", "rank_one",
    "rank_deficient", "integer", "sparse", "gaussian", "heavy_tailed", "extreme_scale",
)


def _with_nonzero_rows(a: np.ndarray) -> np.ndarray:
    """Zero rows replaced by a copy of the first nonzero row (so the rank does not grow),
    or by unit vectors when the whole matrix is zero."""
    a = a.copy()
    nonzero = np.flatnonzero(np.any(a != 0, axis=1))
    for i in np.flatnonzero(~np.any(a != 0, axis=1)):
        a[i] = a[nonzero[0]] if nonzero.size else np.eye(a.shape[1], dtype=a.dtype)[i % a.shape[1]]
    return a


@st.composite
def nonzero_row_matrices(draw, max_rows: int, max_cols: int) -> tuple[str, np.ndarray]:
    """(kind, H): a d×N matrix with nonzero rows, so that its projection onto 𝓗 exists."""
    kind = draw(st.sampled_from(H_KINDS))
    d = draw(st.integers(1, max_rows))
    if kind == "identity":
        n = draw(st.integers(1, max_cols))
        return kind, np.eye(n, dtype=np.int64)[np.arange(d) % n]
    if kind == "orthogonal_rows":
        n = draw(st.integers(d, max(d, max_cols)))
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        scales = rng.integers(1, 4, size=d) * rng.choice([-1, 1], size=d)
        return kind, (scales[:, None] * np.eye(n, dtype=np.int64)[rng.permutation(n)[:d]]).astype(np.int64)
    if kind == "equal_singular_values":
        # Rows or columns of a Hadamard matrix: HHᵀ = nI or HᵀH = nI, and rows of norm √N.
        orders = [2**k for k in range(4) if 2**k <= max(max_rows, max_cols)]
        order = draw(st.sampled_from(orders))
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        full = scipy.linalg.hadamard(order) * rng.choice([-1, 1], size=(order, 1))
        if order <= max_cols and (order > max_rows or draw(st.booleans())):
            return kind, full[: min(d, order)]
        return kind, full[:, : draw(st.integers(1, min(order, max_cols)))]
    if kind == "rank_one":
        n = draw(st.integers(1, max_cols))
        u = draw(st.lists(st.integers(1, 3), min_size=d, max_size=d))
        signs = draw(st.lists(st.sampled_from([-1, 1]), min_size=d, max_size=d))
        v = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n).filter(any))
        return kind, np.outer(np.array(u) * np.array(signs), v).astype(np.int64)
    a = draw(matrices(st.just(d), st.integers(1, max_cols), kinds=(kind,)))
    return kind, _with_nonzero_rows(a)


def scaled_exactly(a: np.ndarray) -> np.ndarray:
    """a as float64 divided by a power of two so that its largest entry is in [1/2, 1):
    exact, and safe from underflow in the row norms of ``project_rows``."""
    a = np.asarray(a, dtype=np.float64)
    _, exponent = np.frexp(np.max(np.abs(a)))
    return np.ldexp(a, -int(exponent))


def classify_kind(example) -> list[str]:
    kind, h = example[0], example[1]
    return [f"kind {kind}", classify_matrix(h)]


# --- Lemma 1: rank(H) > r(H) ------------------------------------------------------------


RELATIONS = {">": operator.gt, "≥": operator.ge}


def effective_rank(trace_m, frobenius_sq_m):
    """r(H) = Tr(M)²/‖M‖_F² (Eq. 2), from Tr M and ‖M‖_F² of M = M(H) = HHᵀ/N: the object Lemma 1
    is about. Written for any field (flint, sympy), so the same formula runs on exact matrices and
    on symbolic power sums."""
    return trace_m**2 / frobenius_sq_m


def trace_unsquared_rank(trace_m, frobenius_sq_m):
    """A broken r(H): the square on Tr M dropped, Tr(M)/‖M‖_F² (no longer scale invariant)."""
    return trace_m / frobenius_sq_m


def inverted_rank(trace_m, frobenius_sq_m):
    """A broken r(H): the ratio inverted, ‖M‖_F²/Tr(M)² (≤ 1, so below the rank, but equal to it only at rank one)."""
    return frobenius_sq_m / trace_m**2


@dataclass(frozen=True)
class RankRatioStatement:
    """rank(H) <relation> r(H) for every nonzero H, r computed by ``rank_formula`` from M = HHᵀ/N; with
    ``equality_case`` also "r(H) = rank(H) exactly when all nonzero singular values of H are equal"."""

    rank_formula: Callable
    relation: str = "≥"
    equality_case: bool = False

    def prop(self, example) -> str | None:
        _, h = example
        hq = exact.fmpq_matrix(h)
        m = hq * hq.transpose() / hq.ncols()
        rank = exact.rank_exact(h)
        ratio = self.rank_formula(trace(m), frobenius_sq(m))
        if not RELATIONS[self.relation](rank, ratio):
            return f"rank(H) = {rank}, r(H) = {exact.fmpq_to_fraction(ratio)}: rank(H) {self.relation} r(H) fails"
        if self.equality_case and (ratio == rank) != equal_nonzero_eigenvalues(m):
            negation = "not " if ratio == rank else ""
            return (f"r(H) = {exact.fmpq_to_fraction(ratio)}, rank(H) = {rank}, but the nonzero singular values are "
                    f"{negation}all equal")
        return None


any_nonzero_matrix = st.one_of(
    nonzero_row_matrices(5, 6),
    (matrices(st.integers(1, 5), st.integers(1, 6))
     .filter(lambda a: bool(np.any(a)))
     .map(lambda a: ("with zero rows allowed", a))),
)

# H = [[1]] (the minimal counterexample to the strict inequality), H = [[1, 0]] (M = 1/2: a formula
# that is not scale invariant leaves r = 1) and H = I₂ (M = I/2: rank 2 = r, equal singular values).
RANK_RATIO_PINNED = [("identity", np.eye(1, dtype=np.int64)), ("identity", np.eye(2, dtype=np.int64)[:1]),
                     ("identity", np.eye(2, dtype=np.int64))]


def rank_ratio_search(statement: RankRatioStatement) -> Check:
    return property_search(
        "exact rank(H) against r(H)",
        any_nonzero_matrix,
        statement.prop,
        space="nonzero H up to 5×6 of every kind (identity, orthogonal rows, equal singular values, rank one, "
        "rank deficient, integer, sparse, Gaussian, heavy-tailed, extreme scale); rank over Q, r(H) in Q",
        classify=classify_kind,
        pinned=RANK_RATIO_PINNED,
        names=("kind", "H"),
    )


def cauchy_schwarz_gap(rank_formula: Callable) -> Check:
    """(k − r)·Σλ² = ½ Σ_{i,j} (λ_i − λ_j)² over the k nonzero eigenvalues of M, k = rank(H), for a
    symbolic k, with r = ``rank_formula``(Σλ, Σλ²) — Tr M = Σλ and ‖M‖_F² = Σλ² by the spectral theorem.
    The right side is a sum of squares, zero exactly when the λ_i are all equal, so r(H) ≤ rank(H)
    with equality iff the nonzero singular values are equal, for every rank."""
    k = sympy.Symbol("k", positive=True, integer=True)
    sums = symbolic_power_sums(k, "λ")
    return symbolic_identity(
        "Cauchy–Schwarz gap identity (sympy)", lambda ctx: ["symbolic k"],
        lambda _case: ([[(k - rank_formula(sums(1), sums(2))) * sums(2)]],
                       [[weighted_square_gap(lambda x, y: 1, k, "λ")]]),
        scope=ALL_SIZES,
        describe_case=lambda _: "k symbolic: (k − r(Σλ, Σλ²))·Σλ² = ½ Σ_(i,j) (λ_i − λ_j)², sums over i, j ≤ k as "
                                "power sums",
        relies_on=(SPECTRAL_THEOREM,),
    )


def rational_orthogonal(n: int, seed: int) -> flint.fmpq_mat:
    """(I − A)(I + A)^{−1} for a random integer skew-symmetric A (Cayley): orthogonal over Q."""
    upper = np.triu(np.random.default_rng(seed).integers(-3, 4, size=(n, n)), 1)
    skew = exact.fmpq_matrix(upper - upper.T)
    identity = diagonal_matrix([flint.fmpq(1)] * n)
    return (identity - skew) * (identity + skew).inv()


def compositions(k: int) -> list[tuple[int, ...]]:
    """Every ordered tuple of positive integers summing to k (2^(k−1) of them)."""
    return [tuple(b - a for a, b in itertools.pairwise((0, *cuts, k)))
            for size in range(k) for cuts in itertools.combinations(range(1, k), size)]


@dataclass(frozen=True)
class SingularValuePattern:
    """A d×N matrix of rank k whose nonzero singular values are 1, 2, …, p with the given
    multiplicities, rotated by rational orthogonal matrices: U [diag(σ) 0; 0 0] V."""

    rows: int
    cols: int
    multiplicities: tuple[int, ...]

    def matrix(self) -> np.ndarray:
        sigma = [value for value, count in enumerate(self.multiplicities, start=1) for _ in range(count)]
        core = flint.fmpq_mat(self.rows, self.cols)
        for i, value in enumerate(sigma):
            core[i, i] = value
        seed = self.rows * 100 + self.cols
        h = rational_orthogonal(self.rows, seed) * core * rational_orthogonal(self.cols, seed + 1)
        return exact.fmpq_matrix_to_fractions(h)

    def describe(self) -> dict:
        return {"d": self.rows, "N": self.cols, "rank": sum(self.multiplicities),
                "singular values 1, 2, … with multiplicities": list(self.multiplicities),
                "H": [[str(x) for x in row] for row in self.matrix().tolist()]}


def singular_value_patterns(largest: int) -> list[SingularValuePattern]:
    """Every (d, N, multiplicity pattern of the nonzero singular values) with d, N ≤ largest,
    smallest d + N first."""
    shapes = sorted(itertools.product(range(1, largest + 1), repeat=2), key=lambda shape: (sum(shape), shape))
    return [SingularValuePattern(d, n, pattern) for d, n in shapes
            for k in range(1, min(d, n) + 1) for pattern in compositions(k)]


def rank_ratio_sweep_bound(ctx: Context) -> int:
    return ctx.by_profile(4, 5, 6)


def rank_ratio_sweep(statement: RankRatioStatement) -> Check:
    return exhaustive_sweep(
        "every singular-value multiplicity pattern",
        lambda ctx: singular_value_patterns(rank_ratio_sweep_bound(ctx)),
        lambda pattern: statement.prop(("pattern", pattern.matrix())),
        bound=lambda ctx: (f"d, N ≤ {rank_ratio_sweep_bound(ctx)}, every rank k ≤ min(d, N) and every ordered "
                           "multiplicity pattern of the distinct nonzero singular values 1, 2, …"),
        describe=SingularValuePattern.describe,
        classify=lambda pattern: ("one distinct singular value" if len(pattern.multiplicities) == 1
                                  else "several distinct singular values"),
    )


# Past the largest sweep (d, N ≤ 6 at the large profile): max(d, N) from 7 to twice that.
PATTERNS_BEYOND = (7, 12)


def draw_pattern_beyond(rng: np.random.Generator) -> SingularValuePattern:
    """A (d, N, multiplicity pattern) with d, N ≤ 12 and max(d, N) ≥ 7: the rank, then a random
    composition of it (each of its 2^(k−1) cut sets equally likely)."""
    low, high = PATTERNS_BEYOND
    while True:
        d, n = (int(x) for x in rng.integers(1, high + 1, size=2))
        if max(d, n) >= low:
            break
    k = int(rng.integers(1, min(d, n) + 1))
    cuts = [c for c in range(1, k) if rng.random() < 0.5]
    return SingularValuePattern(d, n, tuple(b - a for a, b in itertools.pairwise((0, *cuts, k))))


def rank_ratio_beyond(statement: RankRatioStatement) -> Check:
    low, high = PATTERNS_BEYOND
    return search_beyond_sweep(
        "random multiplicity patterns past the sweep",
        draw_pattern_beyond,
        lambda pattern: statement.prop(("pattern", pattern.matrix())),
        sweep_bound=lambda ctx: f"d, N ≤ {rank_ratio_sweep_bound(ctx)}",
        reach=lambda _ctx: f"d, N ≤ {high} with max(d, N) ≥ {low}, every rank and multiplicity pattern",
        budget=lambda ctx: ctx.by_profile(6, 40, 200, 500),
        # d = 7, N = 8, rank 7, one singular value: M = I₇/8 on its range, so Tr M ≠ ‖M‖_F²·rank.
        pinned=[SingularValuePattern(7, 8, (7,))],
        describe=SingularValuePattern.describe,
        classify=lambda pattern: f"rank {sum(pattern.multiplicities)}",
    )


def rank_ratio_checks(statement: RankRatioStatement) -> tuple:
    """The sweep, the search beyond it and the search over every kind of H, each built from the
    subject's r(H) formula."""
    return tuple(takes("effective_rank", build=lambda formula, check=check: check(
        RankRatioStatement(formula, statement.relation, statement.equality_case)))
        for check in (rank_ratio_sweep, rank_ratio_beyond, rank_ratio_search))


_LEMMA1_HYPOTHESES = ("H any real d×N matrix with H ≠ 0 (r(H) = 0/0 is undefined at H = 0)",)
_LEMMA1_BROKEN = (
    Broken("r(H) with the square on Tr M dropped: Tr(M)/‖M‖_F²", replaces={"effective_rank": trace_unsquared_rank},
           refuted_by="the pinned H = [[1, 0]] (M = 1/2, Tr(M)/‖M‖_F² = 2 > rank 1) and the sweep's second "
                      "configuration d = 1, N = 2; the pinned d = 7, N = 8 pattern past the sweep (r = 8 > 7)"),
    Broken("r(H) inverted: ‖M‖_F²/Tr(M)²", replaces={"effective_rank": inverted_rank},
           refuted_by="the pinned H = [[1]] for the strict inequality (1 > 1 fails); for the corrected statement the "
                      "pinned H = I₂ (rank 2, equal singular values, ‖M‖_F²/Tr(M)² = 1/2 ≠ 2), the sweep's "
                      "d = N = 2 pattern (2,) and the pinned d = 7, N = 8 pattern past the sweep (1/7 ≠ 7)"),
)

register(
    Claim(
        id="daneshmand2020.lemma1",
        source="Sec. 2.1, Lemma 1 (proof in App. 7.2)",
        hypotheses=_LEMMA1_HYPOTHESES,
        subject={"effective_rank": effective_rank},
        checks=rank_ratio_checks(RankRatioStatement(effective_rank, ">")),
        broken=_LEMMA1_BROKEN,
        erratum=Erratum(
            "as-printed",
            "The strict inequality fails whenever the nonzero singular values of H are equal (every rank-one H; "
            "minimal counterexample H = [[1]], rank 1 = r). The paper's own proof (App. 7.2, Eq. 16–18, "
            "Cauchy–Schwarz) establishes rank(H) ≥ r(H), and every later use needs only that: Lemma 2 and Theorem 3 "
            "use r as a lower bound, and the proof of Lemma 21 / Lemma 7 uses the equality case "
            "(rank one gives r = 1, ‖M‖_F² = d²), which the strict reading would even forbid. The corrected, "
            "non-strict statement with its equality case is certified (daneshmand2020.lemma1.corrected).",
            corrected=("daneshmand2020.lemma1.corrected",),
        ),
        notes="For every nonzero H (every matrix, no draw). As printed the inequality is strict, and it fails "
        "whenever the nonzero singular values of H "
        "are equal: every rank-one H, the identity, any H with orthogonal rows of equal norm. The minimal "
        "counterexample is H = [[1]] (rank 1, r = 1). The paper's own proof (Eq. 16–18, Cauchy–Schwarz) gives "
        "only rank(H) ≥ r(H), and its proof of Lemma 21 uses exactly that (Eq. 103: r ≤ rank = 1). "
        "See daneshmand2020.lemma1.corrected. Ranks are exact over Q; r(H) is an exact rational. The sweep "
        "decides every (d, N, multiplicity pattern of the nonzero singular values) up to d, N ≤ 5 (ci) in sweep "
        "order, smallest d + N first; its first configuration, d = N = 1, is already the minimal counterexample. "
        "A randomized search past the sweep draws patterns with d, N ≤ 12, max(d, N) ≥ 7, decided exactly. "
        "The non-strict reading ≥ holds on every configuration (daneshmand2020.lemma1.corrected).",
    )
)

register(
    Claim(
        id="daneshmand2020.lemma1.corrected",
        variant_of="daneshmand2020.lemma1",
        label="Lemma 1 (corrected: non-strict)",
        statement="For every nonzero matrix H, rank(H) ≥ r(H), with equality exactly when all nonzero "
        "singular values of H are equal.",
        source="Sec. 2.1, Lemma 1 and its proof in App. 7.2 (Eq. 15–18)",
        hypotheses=_LEMMA1_HYPOTHESES,
        subject={"effective_rank": effective_rank},
        checks=(*rank_ratio_checks(RankRatioStatement(effective_rank, equality_case=True)),
                takes("effective_rank", build=cauchy_schwarz_gap)),
        broken=_LEMMA1_BROKEN,
        notes="For every nonzero H (every matrix, no draw). Certified for every size: with λ_1, …, λ_k the nonzero "
        "eigenvalues of M(H) and k = rank(H), Tr M = Σλ and ‖M‖_F² = Σλ² (spectral theorem, cited), and sympy "
        "evaluates the subject's formula r(Σλ, Σλ²) for a symbolic k and checks (k − r)·Σλ² = "
        "½ Σ_{i,j}(λ_i − λ_j)² (sums over independent indices factor into power sums), so r(H) ≤ k with "
        "equality iff all λ_i are equal, for every rank. The sweep decides every (d, N, ordered multiplicity "
        "pattern of the nonzero singular values 1, 2, …) with d, N ≤ 5 at ci (141 configurations; 318 at d, N ≤ 6) "
        "exactly, on a dense rational representative U[diag(σ) 0; 0 0]V (U, V Cayley-rational orthogonal); a "
        "randomized search continues past it (d, N ≤ 12, max(d, N) ≥ 7); the search covers every kind of H. All "
        "decide rank over Q and the equality case by Tr(M)·M² = ‖M‖_F²·M.",
    )
)


# --- Lemma 2: rank_τ(H) ≥ (1 − τ)² r(H) on 𝓗 -------------------------------------------


def soft_rank_bound(tau, r):
    """(1 − τ)² r(H): Lemma 2's lower bound on rank_τ(H), the object the lemma is about."""
    return (1 - tau) ** 2 * r


def unweighted_soft_rank_bound(tau, r):
    """A broken bound: the factor (1 − τ)² dropped."""
    return r


def misplaced_square_soft_rank_bound(tau, r):
    """A broken bound: (1 − τ²) r, the square misplaced."""
    return (1 - tau * tau) * r


def square_dropped_soft_rank_bound(tau, r):
    """A broken bound, the near-miss: (1 − τ) r, the square on (1 − τ) dropped (between the true (1 − τ)² r
    and (1 − τ²) r)."""
    return (1 - tau) * r


def soft_rank_statement(bound: Callable):
    def prop(example) -> str | None:
        (_, h), tau = example
        tau = exact.to_fmpq(tau)
        soft = projected_rank_tau(h, tau)
        value = bound(tau, projected_effective_rank(h))
        if soft >= value:
            return None
        return (f"rank_τ(H) = {soft} < bound(τ, r(H)) = {float(exact.fmpq_to_fraction(value)):.6g} "
                f"at τ = {exact.fmpq_to_fraction(tau)}")

    return prop


def _classify_soft_rank(example) -> list[str]:
    (kind, h), tau = example
    g = exact.fmpq_matrix(h) * exact.fmpq_matrix(h).transpose()
    shifted = g - exact.to_fmpq(tau) * diagonal_matrix([g[i, i] for i in range(g.nrows())])
    position = "τ = 0" if tau == 0 else "τ = 1" if tau == 1 else "0 < τ < 1"
    labels = [f"kind {kind}", position]
    if shifted.det() == 0:
        labels.append("τ equal to an eigenvalue of M (tie)")
    return labels


taus = st.one_of(st.sampled_from([Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(1)]),
                 st.fractions(0, 1, max_denominator=64))


# H = [[1, 0], [3, 4]] projected onto 𝓗 has M = [[1, 3/5], [3/5, 1]], eigenvalues 8/5 and 2/5: at
# τ = 1/2 only one counts, rank_τ = 1, while r = 2/(1 + 9/25) = 25/17. Lemma 2's bound (1/4)·r holds;
# r itself (the factor dropped) and (1 − τ²)·r = (3/4)(25/17) ≈ 1.10 (the square misplaced) fail.
SPREAD_SPECTRUM_CASE = (("integer", np.array([[1, 0], [3, 4]], dtype=np.int64)), Fraction(1, 2))


def soft_rank_search(bound: Callable) -> Check:
    return property_search(
        "exact rank_τ against (1−τ)² r(H)",
        st.tuples(nonzero_row_matrices(8, 8), taus),
        soft_rank_statement(bound),
        space="H up to 8×8 of every kind, projected exactly onto 𝓗; τ ∈ {0, 1/4, 1/2, 1} or a fraction "
        "in [0, 1]; rank_τ by exact inertia of HHᵀ − τ diag(HHᵀ), r(H) exact",
        classify=_classify_soft_rank,
        pinned=[(("identity", np.eye(3, dtype=np.int64)), Fraction(1)),
                (("rank_one", np.ones((3, 2), dtype=np.int64)), Fraction(1, 2)),
                SPREAD_SPECTRUM_CASE],
        names=(("kind", "H"), "τ"),
    )


# rank_τ as printed in Eq. (4) counts σ_i²/N ≥ τ; the sentence after it says "greater than √(Nτ)".
SOFT_RANK_READINGS = {"σ²/N ≥ τ (Eq. 4)": operator.ge, "σ²/N > τ (the text after Eq. 4)": operator.gt}


def spectra_on_grid(d: int, denominator: int) -> list[tuple[Fraction, ...]]:
    """Every spectrum λ_1 ≥ … ≥ λ_d ≥ 0 of M(H), H ∈ 𝓗, on the grid (1/denominator)Z: Σλ = d."""
    def parts(total: int, count: int, largest: int):
        if count == 0:
            if total == 0:
                yield ()
            return
        for first in range(min(total, largest), -1, -1):
            for rest in parts(total - first, count - 1, first):
                yield (first, *rest)

    return [tuple(Fraction(x, denominator) for x in p) for p in parts(d * denominator, d, d * denominator)]


def spectral_configuration(spectrum: tuple[Fraction, ...], tau: Fraction) -> tuple:
    """(λ, r = d²/Σλ², τ): r is that of any H ∈ 𝓗 with spectrum λ."""
    return spectrum, Fraction(len(spectrum) ** 2) / sum(x * x for x in spectrum), tau


def soft_rank_spectral(bound: Callable):
    """Lemma 2 on a spectrum (the reduction of its proof, Eq. 19): rank_τ = #{λ_i ≥ τ} (or > τ)
    and r = (Σλ)²/Σλ² = d²/Σλ², under both readings of the indicator."""

    def decide(configuration) -> str | None:
        spectrum, ratio, tau = configuration
        for reading, relation in SOFT_RANK_READINGS.items():
            soft = sum(1 for x in spectrum if relation(x, tau))
            if soft < bound(tau, ratio):
                return (f"λ = ({', '.join(map(str, spectrum))}), τ = {tau}, rank_τ read as {reading}: "
                        f"rank_τ = {soft} < bound(τ, r) = {bound(tau, ratio)}")
        return None

    return decide


SPECTRUM_DENOMINATOR, TAU_DENOMINATOR = 4, 8


def describe_spectral(configuration) -> dict:
    return {"lambda": [str(x) for x in configuration[0]], "r": str(configuration[1]), "tau": str(configuration[2])}


def classify_spectral(configuration) -> str:
    return "τ equal to an eigenvalue (tie)" if configuration[2] in configuration[0] else "no tie"


def soft_rank_sweep_bound(ctx: Context) -> int:
    return ctx.by_profile(4, 6, 8)


def soft_rank_sweep(bound: Callable) -> Check:
    taus = [Fraction(k, TAU_DENOMINATOR) for k in range(TAU_DENOMINATOR + 1)]

    def configurations(ctx: Context):
        return [spectral_configuration(spectrum, tau) for d in range(1, soft_rank_sweep_bound(ctx) + 1)
                for spectrum in spectra_on_grid(d, SPECTRUM_DENOMINATOR) for tau in taus]

    return exhaustive_sweep(
        "every spectrum on a grid × every τ on a grid",
        configurations,
        soft_rank_spectral(bound),
        bound=lambda ctx: (f"d ≤ {soft_rank_sweep_bound(ctx)}, every spectrum λ ∈ (1/4)Z^d of M(H), H ∈ 𝓗 "
                           "(λ ≥ 0 sorted, Σλ = d), τ ∈ {0, 1/8, …, 1}; rank_τ under both readings (≥ τ, > τ)"),
        describe=describe_spectral,
        classify=classify_spectral,
    )


# Past the largest sweep (d ≤ 8 at the large profile): d from 9 to twice that.
SPECTRA_BEYOND = (9, 16)


def draw_spectrum_beyond(rng: np.random.Generator) -> tuple:
    """A spectrum λ ∈ (1/4)Z^d with Σλ = d, 9 ≤ d ≤ 16 (4d quarters split at d − 1 uniform cut
    points), and τ ∈ {0, 1/8, …, 1}."""
    d = int(rng.integers(SPECTRA_BEYOND[0], SPECTRA_BEYOND[1] + 1))
    total = SPECTRUM_DENOMINATOR * d
    cuts = sorted(int(c) for c in rng.integers(0, total + 1, size=d - 1))
    quarters = sorted((b - a for a, b in itertools.pairwise((0, *cuts, total))), reverse=True)
    tau = Fraction(int(rng.integers(0, TAU_DENOMINATOR + 1)), TAU_DENOMINATOR)
    return spectral_configuration(tuple(Fraction(q, SPECTRUM_DENOMINATOR) for q in quarters), tau)


def soft_rank_beyond(bound: Callable) -> Check:
    low, high = SPECTRA_BEYOND
    return search_beyond_sweep(
        "random spectra past the sweep",
        draw_spectrum_beyond,
        soft_rank_spectral(bound),
        sweep_bound=lambda ctx: f"d ≤ {soft_rank_sweep_bound(ctx)}",
        reach=lambda _ctx: f"{low} ≤ d ≤ {high}, λ ∈ (1/4)Z^d with Σλ = d, τ ∈ {{0, 1/8, …, 1}}, both readings",
        budget=lambda ctx: ctx.by_profile(30, 300, 2000, 5000),
        # d = 9, λ = (7, 1/4, …, 1/4), τ = 1/4 read as > τ: rank_τ = 1, r = 81/49.5 ≈ 1.64; (1 − τ)²r ≈ 0.92
        # holds, r and (1 − τ²)r ≈ 1.53 do not.
        pinned=[spectral_configuration((Fraction(7),) + (Fraction(1, 4),) * 8, Fraction(1, 4))],
        describe=describe_spectral,
        classify=classify_spectral,
    )


SINGULAR_VALUES = ("the singular values of H are the square roots of the eigenvalues of HHᵀ, so σ_i²/N = λ_i(M) "
                   "(singular value decomposition, e.g. Horn & Johnson, Matrix Analysis, 2nd ed., Thm 7.3.2)")


# Lemma 2's proof at symbolic sizes: of the d = h + m eigenvalues of M, rank_τ counts h (λ ≥ τ as printed in
# Eq. 4, or λ > τ) and leaves m. The symbols are shared by the slack and the hypotheses.
SOFT_RANK_COUNTS = sympy.symbols("h m", integer=True)
SOFT_RANK_TAU = sympy.Symbol("τ", real=True)
COUNTED, LEFT_OUT = sympy.IndexedBase("λ≥τ"), sympy.IndexedBase("λ<τ")
_EIGENVALUE_INDEX = sympy.Symbol("i", integer=True)


def eigenvalue_power_sum(eigenvalues: sympy.IndexedBase, count: sympy.Symbol, power: int) -> sympy.Sum:
    """Σ_(i ≤ count) λ_i^power over one group of the eigenvalues, for a symbolic count."""
    return sympy.Sum(eigenvalues[_EIGENVALUE_INDEX] ** power, (_EIGENVALUE_INDEX, 1, count))


def _soft_rank_hypotheses() -> tuple[sympy.core.relational.Relational, ...]:
    (h, m), tau, i = SOFT_RANK_COUNTS, SOFT_RANK_TAU, _EIGENVALUE_INDEX
    frobenius = eigenvalue_power_sum(COUNTED, h, 2) + eigenvalue_power_sum(LEFT_OUT, m, 2)
    return (
        sympy.Ge(tau, 0), sympy.Le(tau, 1),  # τ ∈ [0, 1]
        sympy.Ge(h, 0), sympy.Ge(m, 0),  # the two counts
        sympy.Le(LEFT_OUT[i], tau),  # the eigenvalues rank_τ leaves out are ≤ τ (either reading of Eq. 4)
        # H ∈ 𝓗: Tr M = Σλ = d, and ‖M‖_F² ≥ Σ M_ii² = d > 0.
        sympy.Eq(eigenvalue_power_sum(COUNTED, h, 1), h + m - eigenvalue_power_sum(LEFT_OUT, m, 1)),
        sympy.Gt(frobenius, 0),
    )


# Lemma 2's hypotheses as objects: τ ∈ [0, 1], the counts, rank_τ's definition and H ∈ 𝓗 (Tr M = d, ‖M‖_F² > 0).
SOFT_RANK_HYPOTHESES = _soft_rank_hypotheses()


def soft_rank_slack(bound: Callable) -> Slack:
    """Lemma 2's proof (Eq. 19–25) at symbolic sizes. A_k, B_k are the power sums Σλ^k of the counted and
    the left-out eigenvalues; the target is rank_τ − bound(τ, r) with r = d²/‖M‖_F², ‖M‖_F² = A_2 + B_2,
    the subject's bound evaluated at symbolic τ and r. Two atoms carry the proof: the eigenvalue count
    C = Σ_(left out)(τ − λ_i) = mτ − B_1 and the Cauchy–Schwarz gap G = ½Σ_(counted)(λ_i − λ_j)² =
    hA_2 − A_1². With Tr M = A_1 + B_1 = d (H ∈ 𝓗), (target)·‖M‖_F² + G − (hA_2 − A_1²) is rewritten in
    G, C, B_2, h, m, τ and σ = 1 − τ (Bernstein form on [0, 1]); the builder checks the rewriting and
    proves every atom ≥ 0."""
    (h, m), tau = SOFT_RANK_COUNTS, SOFT_RANK_TAU
    a1, a2, b1, b2 = (eigenvalue_power_sum(group, count, k)
                      for group, count in ((COUNTED, h), (LEFT_OUT, m)) for k in (1, 2))
    d, frobenius = h + m, a2 + b2
    target = h - bound(tau, d**2 / frobenius)
    # The rewriting, found with the power sums as plain symbols.
    sigma, gap, count = sympy.symbols("σ G C", real=True)
    plain = dict(zip((a1, a2, b1, b2), sympy.symbols("A1 A2 B1 B2", real=True), strict=True))
    plain_frobenius = plain[a2] + plain[b2]
    found = sympy.expand(target.xreplace(plain) * plain_frobenius + gap - (h * plain[a2] - plain[a1] ** 2))
    found = found.subs(plain[a1], d - plain[b1]).subs(plain[b1], m * tau - count)
    rewritten = unit_interval_form(found, tau, sigma).xreplace({plain[b2]: b2}) / frobenius
    i, j = _EIGENVALUE_INDEX, sympy.Symbol("j", integer=True)
    atoms = {gap: sympy.Sum((COUNTED[i] - COUNTED[j]) ** 2 / 2, (i, 1, h), (j, 1, h)),
             count: sympy.Sum(tau - LEFT_OUT[i], (i, 1, m)), sigma: 1 - tau}
    return Slack(target, rewritten, atoms, {
        "counted_eigenvalues": f"h = rank_τ(H), power sums {a1}, {a2} (λ_i ≥ τ as in Eq. 4, or λ_i > τ)",
        "unit_interval": "σ = 1 − τ; each τ^k times (τ + σ)^(n − k) (Bernstein form)",
    })


# Spectra where a stronger bound fails, decided exactly under both readings of rank_τ: d = 1 at τ = 1
# (rank_τ = 0 under > τ, r = 1) and the d = 9 spectrum pinned past the sweep.
EXTREMAL_SPECTRA = (spectral_configuration((Fraction(1),), Fraction(1)),
                    spectral_configuration((Fraction(7),) + (Fraction(1, 4),) * 8, Fraction(1, 4)))


def soft_rank_certificate(bound: Callable, hypotheses: Sequence) -> Check:
    return symbolic_inequality(
        "eigenvalue count and Cauchy–Schwarz gap (sympy)", lambda: soft_rank_slack(bound), hypotheses,
        EXTREMAL_SPECTRA, soft_rank_spectral(bound), describe_spectral, relies_on=(SPECTRAL_THEOREM, SINGULAR_VALUES))


register(
    Claim(
        id="daneshmand2020.lemma2",
        source="Sec. 2.3, Lemma 2 (proof in App. 7.2)",
        hypotheses=("H ∈ 𝓗: every row has norm √N", "τ ∈ [0, 1]"),
        subject={"bound": soft_rank_bound, "hypotheses": SOFT_RANK_HYPOTHESES},
        checks=(takes("bound", "hypotheses", build=soft_rank_certificate), takes("bound", build=soft_rank_sweep),
                takes("bound", build=soft_rank_beyond), takes("bound", build=soft_rank_search)),
        broken=(
            Broken("the factor (1−τ)² dropped: rank_τ(H) ≥ r(H)", replaces={"bound": unweighted_soft_rank_bound},
                   refuted_by="the pinned H = [[1, 0], [3, 4]] at τ = 1/2: rank_τ = 1 < r = 25/17; the sweep's first "
                              "failing configuration d = 1, λ = (1), τ = 1 under the reading > τ: rank_τ = 0 < r = 1; "
                              "the pinned d = 9, λ = (7, 1/4, …), τ = 1/4 past the sweep"),
            Broken("factor (1 − τ²) for (1 − τ)² (a square misplaced)",
                   replaces={"bound": misplaced_square_soft_rank_bound},
                   refuted_by="the pinned H = [[1, 0], [3, 4]] at τ = 1/2: rank_τ = 1 < (3/4)·(25/17) ≈ 1.10; "
                              "the sweep's first failing configuration d = 2, λ = (7/4, 1/4), τ = 1/4 under the "
                              "reading > τ: rank_τ = 1 < 6/5; the pinned d = 9 spectrum past the sweep (1 < 1.53)"),
            Broken("factor (1 − τ) for (1 − τ)² (the square dropped: a near-miss between the two above)",
                   replaces={"bound": square_dropped_soft_rank_bound},
                   refuted_by="the certificate's pinned d = 9 spectrum λ = (7, 1/4, …, 1/4) at τ = 1/4 under the "
                              "reading > τ: rank_τ = 1 < (3/4)·(81/49.5) ≈ 1.23 (its slack keeps −m²στ); the "
                              "same spectrum pinned past the sweep"),
        ),
        notes="For every H ∈ 𝓗 and every τ ∈ [0, 1] (no draw). Certified for every d: sympy follows the proof "
        "(Eq. 19–25) with the sizes as symbols. Of the d = h + m eigenvalues of M, rank_τ counts h; the eigenvalue "
        "count C = Σ(τ − λ_i) over the other m is ≥ 0 and gives Σ_counted λ = d − (mτ − C); the Cauchy–Schwarz gap "
        "G = ½Σ(λ_i − λ_j)² over the counted is hA_2 − A_1². The slack rank_τ − bound(τ, r) of the subject's bound "
        "equals (the engine checks it) a polynomial in G, C, Σ_others λ², h, m, τ and σ = 1 − τ (Bernstein form) "
        "with nonnegative coefficients, over ‖M‖_F²; the engine proves every piece ≥ 0 from its structure (G a sum of "
        "squares) or from a hypothesis the claim states as a sympy object (τ ∈ [0, 1], h, m ≥ 0, the left-out "
        "eigenvalues ≤ τ, and H ∈ 𝓗: Tr M = d, ‖M‖_F² > 0), listed as premises in the evidence (Tr M = Σλ, "
        "‖M‖_F² = Σλ², σ_i²/N = λ_i: spectral theorem and SVD, cited). It covers both "
        "readings of rank_τ (≥ τ as in Eq. 4, > τ as the next sentence says) and does not need λ ≥ 0; at τ = 0 "
        "rank_τ ≥ rank(H) under either convention for the min(d, N) or d singular values. A stronger bound is not "
        "proved, and the certificate's pinned extremal spectra refute it exactly. "
        "Every input is projected onto 𝓗 exactly (the projection is irrational, but rank_τ and r of "
        "the projection are decided in Q, see the module docstring), so ties τ = λ_i(M) are decided "
        "exactly; structured inputs (identity, Hadamard rows) hit them. rank_τ counts the min(d, N) "
        "singular values of H, as bn_chain.rank_tau does (the two readings differ only at τ = 0, where "
        "the bound r(H) ≤ rank(H) holds for both). The sweep decides the inequality on every spectrum of the grid "
        "(1/4)Z^d with Σλ = d (every such λ ≥ 0 is the spectrum of some M(H), H ∈ 𝓗, by Schur–Horn) at every "
        "τ ∈ {0, 1/8, …, 1}, d ≤ 6 at ci, with rank_τ read both as printed in Eq. (4) (σ²/N ≥ τ) and as the "
        "following sentence says (σ²/N > τ): both readings hold, as the proof (Σ_{λ_i > τ} λ_i ≥ d(1 − τ), "
        "then Cauchy–Schwarz) covers both. A randomized search continues past the sweep: random grid spectra "
        "with 9 ≤ d ≤ 16, decided exactly.",
    )
)


# --- Lemma 12: the γ² coefficient of E_W‖M₊‖_F² − ‖M‖_F² ---------------------------------

def delta_f(d, frobenius_sq, trace_cube, diag_square):
    """δ_F(M) = 2d² − 2‖M‖_F² − 8Tr(M³) + 8Tr(diag(M²)²) (Eq. 48) from d and the three invariants of M:
    the formula Lemma 12 is about. Written for any ring (flint, sympy, torch)."""
    return 2 * d * d - 2 * frobenius_sq - 8 * trace_cube + 8 * diag_square


def delta_f_flipped_diagonal(d, frobenius_sq, trace_cube, diag_square):
    """A broken δ_F: the sign of the Tr(diag(M²)²) term flipped."""
    return 2 * d * d - 2 * frobenius_sq - 8 * trace_cube - 8 * diag_square


def delta_f_halved_constant(d, frobenius_sq, trace_cube, diag_square):
    """A broken δ_F: the constant term d² instead of 2d²."""
    return d * d - 2 * frobenius_sq - 8 * trace_cube + 8 * diag_square


def delta_f_halved_frobenius(d, frobenius_sq, trace_cube, diag_square):
    """A broken δ_F, the near-miss of the Monte Carlo: −‖M‖_F² for −2‖M‖_F², a shift of ‖M‖_F² ≥ d (the
    diagonal of M is 1), about twice the shift the Monte Carlo detects at ci."""
    return 2 * d * d - frobenius_sq - 8 * trace_cube + 8 * diag_square


def _uniform_moment(k: int):
    """E w^k for w ~ uniform[−a, a]: a^k/(k+1) for even k, 0 for odd k (Def. 1, a = √3)."""
    return 0 if k % 2 else WEIGHT_HALF_WIDTH**k / (k + 1)


def symbolic_gamma_coefficients(d: int) -> tuple[sympy.Expr, sympy.Expr, sympy.Matrix]:
    """E_W of the γ¹ and γ² Taylor coefficients of ‖M₊‖_F² for a symbolic M with unit diagonal.

    M₊ = D^{−1/2} M_γ D^{−1/2}, M_γ = (I + γW) M (I + γW)ᵀ = M + γA + γ²B, D = diag(M_γ); so
    ‖M₊‖_F² = d + Σ_{i≠j} [M_γ]_ij² / ([M_γ]_ii [M_γ]_jj), a ratio of polynomials in γ whose
    denominator is 1 at γ = 0: its Taylor coefficients follow from long division. The
    expectation over W maps each monomial in the w_ab to the product of the moments of μ."""
    pairs = {}
    for i in range(d):
        for j in range(i + 1, d):
            pairs[i, j] = pairs[j, i] = sympy.Symbol(f"m{i + 1}{j + 1}")
    m = sympy.Matrix(d, d, lambda i, j: 1 if i == j else pairs[i, j])
    w = sympy.Matrix(d, d, lambda a, b: sympy.Symbol(f"w{a + 1}{b + 1}"))
    a, b = w * m + m * w.T, w * m * w.T
    first, second = sympy.Integer(0), sympy.Integer(0)
    for i, j in itertools.permutations(range(d), 2):
        numerator = (m[i, j] ** 2, 2 * m[i, j] * a[i, j], a[i, j] ** 2 + 2 * m[i, j] * b[i, j])
        denominator = (1, a[i, i] + a[j, j], b[i, i] + b[j, j] + a[i, i] * a[j, j])
        q0 = numerator[0]
        q1 = numerator[1] - q0 * denominator[1]
        q2 = numerator[2] - q1 * denominator[1] - q0 * denominator[2]
        first, second = first + q1, second + q2

    def expectation(expr):
        if d == 1:
            return sympy.expand(expr)
        poly = sympy.Poly(sympy.expand(expr), *list(w))
        return sympy.expand(sum(c * sympy.prod([_uniform_moment(k) for k in powers]) for powers, c in poly.terms()))

    return expectation(first), expectation(second), m


def symbolic_delta_f(m: sympy.Matrix, formula: Callable) -> sympy.Expr:
    d = m.rows
    m2 = m * m
    return formula(d, sum(x**2 for x in m), (m2 * m).trace(), sum(m2[i, i] ** 2 for i in range(d)))


def lemma12_symbolic(formula: Callable) -> Check:
    def build(d: int):
        first, second, m = symbolic_gamma_coefficients(d)
        return [[first, second]], [[0, symbolic_delta_f(m, formula)]]

    return symbolic_identity(
        "sympy derivation of the γ¹ and γ² coefficients",
        lambda ctx: range(1, ctx.by_profile(3, 3, 5) + 1),
        build,
        scope=lambda ctx: f"d ≤ {ctx.by_profile(3, 3, 5)}",
        describe_case=lambda d: f"d = {d}: (E_W[γ¹ coeff], E_W[γ² coeff]) = (0, δ_F(M)), M symbolic with unit diagonal",
        part="statement",
        relies_on=(SECOND_MOMENTS,),
    )


# Index calculus for a symbolic d. A term is Σ over its indices, each in {1, …, d}, of a
# product of entries m_ab of M (symmetric, unit diagonal) and w_ab of W; a sum is a list of terms.


@dataclass(frozen=True)
class IndexTerm:
    coefficient: int
    indices: frozenset[int]
    factors: tuple[tuple[str, int, int], ...]  # ("m" or "w", row index, column index)


class _FreshIndices:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> int:
        self.count += 1
        return self.count


def _times(*sums: list[IndexTerm]) -> list[IndexTerm]:
    product = [IndexTerm(1, frozenset(), ())]
    for factor in sums:
        product = [IndexTerm(a.coefficient * b.coefficient, a.indices | b.indices, a.factors + b.factors)
                   for a in product for b in factor]
    return product


def _plus(*sums: list[IndexTerm], scale: int = 1) -> list[IndexTerm]:
    return [IndexTerm(scale * t.coefficient, t.indices, t.factors) for terms in sums for t in terms]


def _m_entry(i: int, j: int) -> list[IndexTerm]:
    return [IndexTerm(1, frozenset({i, j}), (("m", i, j),))]


def _a_entry(i: int, j: int, fresh: _FreshIndices) -> list[IndexTerm]:
    """[WM + MWᵀ]_ij = Σ_k w_ik m_kj + m_ik w_jk."""
    k = fresh()
    return [IndexTerm(1, frozenset({i, j, k}), (("w", i, k), ("m", k, j))),
            IndexTerm(1, frozenset({i, j, k}), (("m", i, k), ("w", j, k)))]


def _b_entry(i: int, j: int, fresh: _FreshIndices) -> list[IndexTerm]:
    """[WMWᵀ]_ij = Σ_{k,l} w_ik m_kl w_jl."""
    k, l = fresh(), fresh()
    return [IndexTerm(1, frozenset({i, j, k, l}), (("w", i, k), ("m", k, l), ("w", j, l)))]


def _canonical_graph(edges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """The multigraph of the m-factors up to relabelling its vertices (the least sorted edge list)."""
    vertices = sorted({x for edge in edges for x in edge})
    best: tuple[tuple[int, int], ...] = ()
    for image in itertools.permutations(range(len(vertices))):
        relabel = dict(zip(vertices, image, strict=True))
        key = tuple(sorted(tuple(sorted((relabel[a], relabel[b]))) for a, b in edges))
        best = key if not best or key < best else best
    return best


def _root(merged: dict[int, int], x: int) -> int:
    """The representative of x's class of merged indices (union–find without ranks: tiny classes)."""
    while merged[x] != x:
        x = merged[x]
    return x


def expected_contraction(terms: list[IndexTerm], d: sympy.Symbol) -> dict[tuple, sympy.Expr]:
    """E_W of an index sum with at most two W factors per term, as {m-graph: polynomial in d}.

    E[w_ab w_ce] = δ_ac δ_be (iid, zero mean, unit variance) merges indices, and a term with
    one W factor has mean 0. A merged factor m_aa is 1 (unit diagonal); an index left in no
    factor sums to d. Two terms whose m-factors form isomorphic multigraphs are the same
    function of M, so the coefficients are collected per canonical graph."""
    collected: defaultdict[tuple, sympy.Expr] = defaultdict(lambda: sympy.Integer(0))
    for term in terms:
        weights = [f for f in term.factors if f[0] == "w"]
        if len(weights) > 2:
            raise ValueError("only second moments of W are implemented")
        if len(weights) == 1:
            continue
        merged = {x: x for x in term.indices}
        if weights:
            (_, a, b), (_, c, e) = weights
            for x, y in ((a, c), (b, e)):
                old, new = _root(merged, x), _root(merged, y)
                merged[old] = new
        edges = [(_root(merged, f[1]), _root(merged, f[2])) for f in term.factors
                 if f[0] == "m" and _root(merged, f[1]) != _root(merged, f[2])]
        free = {_root(merged, x) for x in term.indices} - {x for edge in edges for x in edge}
        collected[_canonical_graph(edges)] += term.coefficient * d ** len(free)
    return {graph: value for graph, value in collected.items() if sympy.expand(value) != 0}


def index_gamma_coefficients(d: sympy.Symbol) -> tuple[dict, dict]:
    """E_W of the γ¹ and γ² Taylor coefficients of ‖M₊‖_F² = Σ_{i,j} [M_γ]_ij²/([M_γ]_ii[M_γ]_jj)
    for a symbolic d, by the long division of ``symbolic_gamma_coefficients`` written in indices
    (the i = j terms are identically 1, so summing over all i, j adds nothing to them)."""
    fresh = _FreshIndices()
    i, j = fresh(), fresh()
    m, a, b = _m_entry(i, j), _a_entry(i, j, fresh), _b_entry(i, j, fresh)
    a_i, a_j, b_i, b_j = _a_entry(i, i, fresh), _a_entry(j, j, fresh), _b_entry(i, i, fresh), _b_entry(j, j, fresh)
    n0, n1, n2 = _times(m, m), _plus(_times(m, a), scale=2), _plus(_times(a, a), _plus(_times(m, b), scale=2))
    d1 = _plus(a_i, a_j)  # 1/([M_γ]_ii[M_γ]_jj) = 1 − γ d1 + γ² d2 + O(γ³)
    d2 = _plus(_times(a_i, a_i), _times(a_j, a_j), _times(a_i, a_j), _plus(b_i, b_j, scale=-1))
    first = _plus(n1, _plus(_times(n0, d1), scale=-1))
    second = _plus(n2, _plus(_times(n1, d1), scale=-1), _times(n0, d2))
    return expected_contraction(first, d), expected_contraction(second, d)


def index_delta_f(formula: Callable, d: sympy.Symbol) -> tuple[dict, sympy.Expr]:
    """A formula δ(d, ‖M‖_F², Tr(M³), Tr(diag(M²)²)) as index sums, for a symbolic d: evaluated at
    symbols for the invariants, each monomial of degree one is replaced by its index sum (‖M‖_F² =
    Σ m_pq², Tr(M³) = Σ m_pq m_qr m_rp, Tr(diag(M²)²) = Σ_p (Σ_q m_pq²)²) and collected per
    contraction graph, the part free of M under the empty graph. Returns the graphs and what is
    not of degree ≤ 1 in the invariants (0 for Eq. 48; the derived coefficient has no such part)."""
    invariants = sympy.symbols("F T G")
    p, q, r = 1, 2, 3
    index_sums = {
        (1, 0, 0): _times(_m_entry(p, q), _m_entry(p, q)),
        (0, 1, 0): _times(_m_entry(p, q), _m_entry(q, r), _m_entry(r, p)),
        (0, 0, 1): _times(_m_entry(p, q), _m_entry(p, q), _m_entry(p, r), _m_entry(p, r)),
    }
    collected: defaultdict[tuple, sympy.Expr] = defaultdict(lambda: sympy.Integer(0))
    nonlinear = sympy.Integer(0)
    for monomial, coefficient in sympy.Poly(sympy.expand(formula(d, *invariants)), *invariants).terms():
        if not any(monomial):
            collected[()] += coefficient
        elif monomial in index_sums:
            for graph, value in expected_contraction(index_sums[monomial], d).items():
                collected[graph] += coefficient * value
        else:
            nonlinear += coefficient * sympy.prod([x**k for x, k in zip(invariants, monomial, strict=True)])
    return {graph: value for graph, value in collected.items() if sympy.expand(value) != 0}, nonlinear


GRAPH_NAMES = {(): "d^k", ((0, 1), (0, 1)): "‖M‖_F²", ((0, 1), (0, 2), (1, 2)): "Tr(M³)",
               ((0, 1), (0, 1), (0, 2), (0, 2)): "Tr(diag(M²)²)"}


def lemma12_index(formula: Callable) -> Check:
    d = sympy.Symbol("d", positive=True, integer=True)

    def build(_case):
        first, second = index_gamma_coefficients(d)
        delta, nonlinear = index_delta_f(formula, d)
        graphs = sorted(set(first) | set(second) | set(delta))
        return ([[first.get(g, 0) for g in graphs] + [second.get(g, 0) for g in graphs] + [0]],
                [[0] * len(graphs) + [delta.get(g, 0) for g in graphs] + [nonlinear]])

    return symbolic_identity(
        "index-sum derivation for symbolic d",
        lambda ctx: ["symbolic d"],
        build,
        scope=ALL_SIZES,
        describe_case=lambda _: "d symbolic: E_W[γ¹ coeff] = 0 and E_W[γ² coeff] = δ_F(M), coefficients collected "
                                f"per contraction graph ({', '.join(GRAPH_NAMES.values())})",
        part="statement",
        relies_on=(SECOND_MOMENTS,),
    )


def torch_delta_f(m: torch.Tensor, formula: Callable) -> tuple[float, float]:
    """The formula at M and the sum of the absolute values of d² and the three invariants (the
    scale of the rounding of Eq. 48, whose coefficients are at most 8)."""
    m2 = m @ m
    d = m.shape[-1]
    invariants = [float((m**2).sum()), float(torch.trace(m2 @ m)), float((torch.diagonal(m2) ** 2).sum())]
    return float(formula(d, *invariants)), d * d + sum(abs(x) for x in invariants)


def hessian_gamma2_coefficient(h: torch.Tensor) -> float:
    """½ Σ Hess_W ‖M(FBN(H, W))‖_F² |_{W=0} contracted with Cov(vec W) = Var(μ)·I: the γ²
    coefficient of E_W ‖M(FBN_γ(H, W))‖_F² (F linear), since E_W[W] = 0."""
    if h.ndim != 2:
        raise ValueError(f"H must be a d×N matrix, got shape {tuple(h.shape)}")
    d = h.shape[0]

    def frobenius_after_step(w: torch.Tensor) -> torch.Tensor:
        return (gram(fbn_step(h, w, 1.0)) ** 2).sum()

    hessian = torch.func.hessian(frobenius_after_step)(torch.zeros(d, d, dtype=h.dtype, device=h.device))
    covariance = float(WEIGHT_VARIANCE) * torch.eye(d * d, dtype=h.dtype, device=h.device)
    return float((hessian.reshape(d * d, d * d) * covariance).sum() / 2)


HESSIAN_RELATIVE_TOLERANCE = 1e-9


def lemma12_hessian(formula: Callable) -> Check:
    def prop(example) -> str | None:
        _, h = example
        hcal = project_rows(torch.tensor(scaled_exactly(h), dtype=torch.float64))
        coefficient = hessian_gamma2_coefficient(hcal)
        predicted, scale = torch_delta_f(gram(hcal), formula)
        if abs(coefficient - predicted) <= HESSIAN_RELATIVE_TOLERANCE * scale:
            return None
        return (f"Hessian γ² coefficient {coefficient:.12g} ≠ δ_F(M) = {predicted:.12g} "
                f"(tolerance {HESSIAN_RELATIVE_TOLERANCE:g} × {scale:.3g})")

    return property_search(
        "autodiff Hessian against δ_F",
        nonzero_row_matrices(8, 8),
        prop,
        space="H up to 8×8 of every kind projected onto 𝓗 (float64); torch.func.hessian at W = 0, "
        f"agreement to {HESSIAN_RELATIVE_TOLERANCE:g} × Σ|terms of δ_F|",
        classify=classify_kind,
        pinned=[("rank_one", np.ones((3, 4), dtype=np.int64)),
                ("gaussian", np.random.default_rng(0).standard_normal((4, 5)))],
        examples=lambda ctx: ctx.by_profile(20, 60, 600, 1500),
        names=("kind", "H"),
    )


def _mc_inputs(generator: torch.Generator) -> dict[str, torch.Tensor]:
    near_rank_one = (torch.ones(3, 4, dtype=torch.float64)
                     + 0.1 * torch.randn(3, 4, generator=generator, dtype=torch.float64))
    return {
        "Gaussian d=4, N=6": project_rows(torch.randn(4, 6, generator=generator, dtype=torch.float64)),
        "identity d=N=3": torch.eye(3, dtype=torch.float64) * math.sqrt(3),
        "near rank one d=3, N=4": project_rows(near_rank_one),
    }


MC_GAMMAS = (0.2, 0.1, 0.05, 0.025)


def antithetic_quotients(h: torch.Tensor, w: torch.Tensor, gammas: Sequence[float]) -> dict[float, np.ndarray]:
    """Per sample W_k and γ: y_k(γ) = [(f(γW_k) + f(−γW_k))/2 − f(0)]/γ², f(W) = ‖M(FBN_1(H, W))‖_F²."""
    stacked = h.expand(w.shape[0], *h.shape)
    base = float((gram(h) ** 2).sum())

    def frobenius(weights: torch.Tensor) -> torch.Tensor:
        return (gram(fbn_step(stacked, weights, 1.0)) ** 2).sum((-2, -1))

    return {gamma: (((frobenius(gamma * w) + frobenius(-gamma * w)) / 2 - base) / gamma**2).cpu().numpy()
            for gamma in gammas}


def _mean_interval(values: np.ndarray, confidence: float = 0.95) -> list[float]:
    interval = scipy_stats.ttest_1samp(values, 0.0).confidence_interval(confidence)
    return [round_sig(interval.low), round_sig(interval.high)]


def monte_carlo_detectable_effect(rows: list[dict]) -> dict:
    """The Monte Carlo check's detectable effect: over the inputs run so far, the largest shift of δ_F that
    the two-sided t-test at FALSE_ALARM refutes with probability DETECTION_POWER (per input: detectable_shift)."""
    return {"delta_F_shift": max(row["detectable_shift"] for row in rows), "power": DETECTION_POWER,
            "false_alarm_per_input": FALSE_ALARM, "per_input": "detectable_shift",
            "meaning": "|E γ² coefficient − δ_F| above this is refuted with this power"}


def lemma12_monte_carlo(formula: Callable) -> Check:
    """Antithetic Monte Carlo of (E_W‖M₊‖² − ‖M‖²)/γ² at shrinking γ.

    μ is symmetric, so averaging W and −W cancels the odd powers of γ: per sample,
    y(γ) = c₂(W) + O(γ²), and the Richardson combination z = (4y(γ/2) − y(γ))/3 at the two
    smallest γ is c₂(W) + O(γ⁴), whose mean is δ_F exactly when Lemma 12 holds (t-test at
    level FALSE_ALARM). The same W at every γ (common random numbers) makes the remainder
    ȳ(γ) − z̄ free of the sampling noise of c₂, so its decay in γ is visible."""

    def run(ctx: Context) -> Outcome:
        samples = ctx.by_profile(2000, 4000, 20000, 100000)
        generator = ctx.torch_generator("monte carlo")
        rows, figure = [], matplotlib.figure.Figure(figsize=(5, 3.5))
        axes = figure.add_subplot()
        for name, h in _mc_inputs(ctx.torch_generator("inputs", device="cpu")).items():
            h = h.to(ctx.torch_device())
            w = sample_weights(h.shape[0], generator, device=ctx.torch_device(), batch=(samples,))
            predicted, _ = torch_delta_f(gram(h), formula)
            by_gamma = antithetic_quotients(h, w, MC_GAMMAS)
            extrapolated = (4 * by_gamma[MC_GAMMAS[-1]] - by_gamma[MC_GAMMAS[-2]]) / 3
            test = scipy_stats.ttest_1samp(extrapolated, predicted)
            remainders = [{"gamma": gamma, "remainder": round_sig((values - extrapolated).mean()),
                           "remainder_ci95": _mean_interval(values - extrapolated)}
                          for gamma, values in by_gamma.items()]
            sizes = [abs(r["remainder"]) for r in remainders]
            rows.append({
                "input": name,
                "delta_F": round_sig(predicted),
                "gamma2_coefficient_mean": round_sig(extrapolated.mean()),
                "gamma2_coefficient_ci95": _mean_interval(extrapolated),
                "p_value": round_sig(test.pvalue),
                "detectable_shift": round_sig(detectable_mean_shift(extrapolated.std(ddof=1), samples), 3),
                "remainder": remainders,
                "remainder_exponent": (fit_power_law(np.array(MC_GAMMAS), np.array(sizes)).exponent.as_dict()
                                       if all(sizes) else None),
            })
            axes.plot(MC_GAMMAS, sizes, "o-", label=name)
            if test.pvalue < FALSE_ALARM:
                return Outcome(
                    Verdict.REFUTED,
                    f"{name}: Monte Carlo γ² coefficient {extrapolated.mean():.6g} ≠ δ_F = {predicted:.6g} "
                    f"(p = {test.pvalue:.1e})",
                    {"samples": samples, "gammas": list(MC_GAMMAS), "inputs": rows,
                     "detectable_effect": monte_carlo_detectable_effect(rows)},
                    counterexample={"input": name, "H": to_jsonable(h.cpu().numpy()), **rows[-1]},
                )
        axes.set(xscale="log", yscale="log", xlabel="γ", ylabel="|ȳ(γ) − ȳ(0)|",
                 title="Lemma 12: remainder of (E‖M₊‖² − ‖M‖²)/γ²")
        axes.legend(fontsize=7)
        return Outcome(
            Verdict.SUPPORTED,
            f"Monte Carlo ({samples} antithetic pairs per input) agrees with δ_F at level {FALSE_ALARM:g}; "
            f"the remainder decays like γ^{rows[0]['remainder_exponent']['estimate']:.3g}",
            {"samples": samples, "gammas": list(MC_GAMMAS), "false_alarm": FALSE_ALARM, "inputs": rows,
             "detectable_effect": monte_carlo_detectable_effect(rows)},
            figures={"remainder": figure},
        )

    return Check("Monte Carlo at shrinking γ", "statistical", run, corroborating=True)



register(
    Claim(
        id="daneshmand2020.lemma12",
        source="App. 7.5, Lemma 12 (Eq. 48, proof Eq. 68–79)",
        hypotheses=("F linear: H₊ = diag(M(H_γ))^{−1/2} H_γ, H_γ = (I + γW)H", "H ∈ 𝓗", "W ~ μ (Def. 1)"),
        subject={"delta_f": delta_f},
        checks=tuple(takes("delta_f", build=check)
                     for check in (lemma12_index, lemma12_symbolic, lemma12_hessian, lemma12_monte_carlo)),
        broken=(
            Broken("sign of the Tr(diag(M²)²) term flipped", replaces={"delta_f": delta_f_flipped_diagonal},
                   refuted_by="the symbolic-d derivation (coefficient 8, not −8, of the Tr(diag(M²)²) graph), sympy "
                              "at d = 1 (δ_F = 0, variant −16), the pinned H = 1 (3×4) for the Hessian "
                              "(variant −432 against 0), the fixed input √3·I (d = N = 3) for Monte Carlo "
                              "(24 against −24)"),
            Broken("constant of the d² term halved: d² instead of 2d²", replaces={"delta_f": delta_f_halved_constant},
                   refuted_by="the symbolic-d derivation (2d², not d²), sympy at d = 1 (variant −1 against 0), the "
                              "pinned H = 1 (3×4) for the Hessian (−9 against 0), the fixed input √3·I for Monte "
                              "Carlo (3 against 12)"),
            Broken("coefficient of ‖M‖_F² halved: −‖M‖_F² instead of −2‖M‖_F² (the Monte Carlo's near-miss)",
                   replaces={"delta_f": delta_f_halved_frobenius},
                   refuted_by="the symbolic-d derivation (−2, not −1, on the ‖M‖_F² graph), sympy at d = 1 (variant 1 "
                              "against 0), the pinned H = 1 (3×4) for the Hessian (9 against 0), and the first fixed "
                              "Monte Carlo input (Gaussian d = 4, N = 6): a shift of ‖M‖_F² ≥ 4, against a detectable "
                              "shift of about 1.7 at ci and 2.4 at quick"),
        ),
        notes="Read as: for every H ∈ 𝓗 (every matrix), the γ¹ coefficient of E_W‖M₊‖_F² vanishes and the γ² "
        "coefficient is δ_F(M), the expectation over the draw W ~ μ. "
        "Certified for every d by a derivation in index notation with d symbolic: ‖M₊‖_F² = Σ_{i,j} "
        "[M_γ]_ij²/([M_γ]_ii[M_γ]_jj) is expanded by long division in γ with [M_γ]_ij = m_ij + γ[WM + MWᵀ]_ij "
        "+ γ²[WMWᵀ]_ij written as sums over fresh indices; the γ² coefficient is quadratic in W, so only "
        "E[w_ab w_ce] = δ_ac δ_be (zero mean, unit variance; the fourth moment of μ plays no role) enters, "
        "merging indices; merged diagonal entries m_aa are 1, and an index left in no factor sums to d. Terms "
        "are collected per isomorphism class of the multigraph of their M-factors, and the collected "
        "coefficients are compared in sympy with those of the subject's formula δ_F, evaluated at symbols for "
        "‖M‖_F², Tr(M³), Tr(diag(M²)²) and each invariant replaced by its own index sum. The "
        "derivation with explicit symbolic d × d matrices (d ≤ 3 at ci) checks the same coefficients "
        "independently. The Hessian check confirms the coefficient through bn_chain.fbn_step itself; the Monte "
        "Carlo check (corroborating) shows the remainder. Because μ is symmetric the remainder is in fact "
        "O(γ²), not just O(γ).",
    )
)


# --- Prop. 13 and Example 16: matrices M whose rows have equal norms --------------------


@dataclass(frozen=True)
class EqualRowNormGram:
    """M = M(H) (PSD) whose rows have equal norms, with its eigenvalues when known exactly."""

    kind: str
    matrix: flint.fmpq_mat
    eigenvalues: tuple[flint.fmpq, ...] | None
    eigenvectors: flint.fmpq_mat | None = None  # columns, for the known eigenvalues

    def describe(self) -> dict:
        record = {"kind": self.kind, "M": [[str(x) for x in row] for row in self.matrix.tolist()]}
        if self.eigenvalues is not None:
            record["eigenvalues"] = [str(x) for x in self.eigenvalues]
        return record


def flat_eigenbasis_gram(eigenvalues: Sequence[Fraction], seed: int) -> EqualRowNormGram:
    """M = Q diag(λ) Qᵀ / d with Q a signed, row-permuted Sylvester–Hadamard matrix: every
    entry of Q is ±1, so (M²)_ii = Σ_k λ_k²/d whatever λ is: equal row norms, known spectrum."""
    d = len(eigenvalues)
    rng = np.random.default_rng(seed)
    q = (rng.choice([-1, 1], size=(d, 1)) * scipy.linalg.hadamard(d))[rng.permutation(d)]
    basis = exact.fmpq_matrix(q)
    lam = [exact.to_fmpq(x) for x in eigenvalues]
    return EqualRowNormGram("flat eigenbasis", basis * diagonal_matrix(lam) * basis.transpose() / d, tuple(lam), basis)


def circulant_gram(vector: Sequence[int]) -> EqualRowNormGram:
    """M(H) for H whose rows are the cyclic shifts of v: a circulant, so equal row norms."""
    h = exact.fmpq_matrix(scipy.linalg.circulant(np.asarray(vector, dtype=np.int64)).T)
    return EqualRowNormGram("circulant", h * h.transpose() / len(vector), None)


def with_unit_diagonal(atom: EqualRowNormGram) -> EqualRowNormGram:
    """The same matrix scaled so that diag(M) = 1 (H ∈ 𝓗); the diagonal is constant already."""
    scale = atom.matrix[0, 0]
    eigenvalues = None if atom.eigenvalues is None else tuple(x / scale for x in atom.eigenvalues)
    return EqualRowNormGram(atom.kind, atom.matrix / scale, eigenvalues, atom.eigenvectors)


SPECTRUM_KINDS = ("equal nonzero", "near equal", "general", "rank one")


@st.composite
def spectra(draw, d: int) -> tuple[str, list[Fraction]]:
    kind = draw(st.sampled_from(SPECTRUM_KINDS))
    if kind == "equal nonzero":
        k = draw(st.integers(1, d))
        return kind, [Fraction(1)] * k + [Fraction(0)] * (d - k)
    if kind == "near equal":
        wiggle = draw(st.lists(st.integers(-2, 2), min_size=d, max_size=d))
        return kind, [Fraction(10 + x, 10) for x in wiggle]
    if kind == "rank one":
        return kind, [Fraction(1)] + [Fraction(0)] * (d - 1)
    values = draw(st.lists(st.fractions(0, 5, max_denominator=6), min_size=d, max_size=d).filter(any))
    return kind, values


@st.composite
def equal_row_norm_grams(draw, unit_diagonal: bool) -> EqualRowNormGram:
    if draw(st.booleans()):
        d = draw(st.sampled_from([1, 2, 4, 8]))
        kind, eigenvalues = draw(spectra(d))
        atom = flat_eigenbasis_gram(eigenvalues, draw(st.integers(0, 2**32 - 1)))
        atom = EqualRowNormGram(f"flat eigenbasis, {kind} spectrum", atom.matrix, atom.eigenvalues, atom.eigenvectors)
    else:
        atom = circulant_gram(draw(st.lists(st.integers(-3, 3), min_size=1, max_size=7).filter(any)))
    return with_unit_diagonal(atom) if unit_diagonal else atom


def _row_norms_sq(m: flint.fmpq_mat) -> list[flint.fmpq]:
    m2 = m * m
    return [m2[i, i] for i in range(m.nrows())]


def spectral_power_sums(atom: EqualRowNormGram) -> tuple[flint.fmpq, flint.fmpq]:
    """(‖λ‖₂², ‖λ‖₃³) of M ⪰ 0: from the known eigenpairs, verified exactly, or else from the
    characteristic polynomial (Newton's identities; λ ≥ 0 as M is a Gram matrix)."""
    if atom.eigenvalues is None:
        _, p2, p3 = power_sums(atom.matrix, 3)
        return p2, p3
    if atom.matrix * atom.eigenvectors != atom.eigenvectors * diagonal_matrix(list(atom.eigenvalues)):
        raise AssertionError("the constructed eigenpairs are not eigenpairs")
    return sum((x**2 for x in atom.eigenvalues), flint.fmpq(0)), sum((x**3 for x in atom.eigenvalues), flint.fmpq(0))


def diag_square_of_spectrum(l2, d):
    """Tr(diag(M²)²) = ‖λ‖₂⁴/d (the middle identity of Eq. 49) as a function of ‖λ‖₂² and d: the
    formula Prop. 13 is about (the outer identities are the spectral theorem)."""
    return l2**2 / d


def diag_square_parenthesised(l2, d):
    """A broken formula: Eq. (49) parenthesised literally, (Tr diag(M²))² = ‖λ‖₂⁴, the 1/d dropped."""
    return l2**2


def prop13_statement(formula: Callable):
    """Tr(M³) = ‖λ‖₃³, Tr(diag(M²)²) = formula(‖λ‖₂², d), ‖M‖_F² = ‖λ‖₂², and so δ_F(M) = δ_F(λ)."""

    def prop(atom: EqualRowNormGram) -> str | None:
        m, d = atom.matrix, atom.matrix.nrows()
        if len(set(_row_norms_sq(m))) != 1:
            raise AssertionError("generator produced unequal row norms")
        l2, l3 = spectral_power_sums(atom)
        diag_sq = sum((x**2 for x in _row_norms_sq(m)), flint.fmpq(0))
        sides = {
            "Tr(M³) = ‖λ‖₃³": (trace(m * m * m), l3),
            "Tr(diag(M²)²) = formula(‖λ‖₂², d)": (diag_sq, formula(l2, d)),
            "‖M‖_F² = ‖λ‖₂²": (frobenius_sq(m), l2),
        }
        sides["δ_F(M) = δ_F(λ)"] = (
            delta_f(d, sides["‖M‖_F² = ‖λ‖₂²"][0], sides["Tr(M³) = ‖λ‖₃³"][0], diag_sq),
            delta_f(d, l2, l3, formula(l2, d)),
        )
        for name, (lhs, rhs) in sides.items():
            if lhs != rhs:
                return f"{name} fails: {exact.fmpq_to_fraction(lhs)} ≠ {exact.fmpq_to_fraction(rhs)} (d = {d})"
        return None

    return prop


def prop13_search(formula: Callable) -> Check:
    return property_search(
        "exact identities on equal-row-norm M",
        equal_row_norm_grams(unit_diagonal=False),
        prop13_statement(formula),
        space="M = Q diag(λ) Qᵀ/d with Q a signed permuted Hadamard matrix (d ∈ {1, 2, 4, 8}, exact known "
        "spectrum: equal, near-equal, general, rank-one λ ≥ 0) and circulant Gram matrices of integer vectors "
        "(d ≤ 7, spectrum through the exact characteristic polynomial); all arithmetic in Q",
        classify=lambda atom: [atom.kind, f"d = {atom.matrix.nrows()}"],
        describe=EqualRowNormGram.describe,
        pinned=[flat_eigenbasis_gram([Fraction(1), Fraction(1)], 0)],
    )


def row_norm_identity(formula: Callable) -> Check:
    """d·(Σ r_i² − formula(Σ r_i, d)) = ½ Σ_{i,j} (r_i − r_j)² for a symbolic d, with r_i = (M²)_ii =
    ‖row i‖²: Σ r_i = Tr(M²) = ‖λ‖₂² (spectral theorem) and Σ r_i² = Tr(diag(M²)²). For the genuine
    formula it is Lagrange's identity; equal row norms make the right side 0, so Tr(diag(M²)²) =
    formula(‖λ‖₂², d), the middle identity of Eq. (49), for every d."""
    d = sympy.Symbol("d", positive=True, integer=True)
    sums = symbolic_power_sums(d, "r")
    return symbolic_identity(
        "row-norm identity (sympy)", lambda ctx: ["symbolic d"],
        lambda _case: ([[d * (sums(2) - formula(sums(1), d))]], [[weighted_square_gap(lambda x, y: 1, d, "r")]]),
        scope=ALL_SIZES,
        describe_case=lambda _: "d symbolic: d·(Σr² − formula(Σr, d)) = ½ Σ_(i,j) (r_i − r_j)², sums over i, j ≤ d as "
                                "power sums",
        relies_on=(SPECTRAL_THEOREM,),
    )


register(
    Claim(
        id="daneshmand2020.prop13",
        source="App. 7.5, Proposition 13 (Eq. 49–50, proof Eq. 80–82)",
        hypotheses=("M = M(H) = HHᵀ/N (so M ⪰ 0)", "all rows of M have the same norm"),
        subject={"diag_square": diag_square_of_spectrum},
        checks=(takes("diag_square", build=row_norm_identity), takes("diag_square", build=prop13_search)),
        broken=(Broken("Tr(diag(M²)²) = ‖λ‖₂⁴ (the 1/d dropped: Eq. (49) parenthesised literally)",
                       replaces={"diag_square": diag_square_parenthesised},
                       refuted_by="the symbolic-d identity (d·(Σr² − (Σr)²) is not ½Σ(r_i − r_j)² = dΣr² − (Σr)²), "
                                  "and the pinned M = I₂ (λ = (1, 1)): Tr(diag(M²)²) = 2 ≠ ‖λ‖₂⁴ = 4"),),
        notes="Typo: Eq. (49) prints the middle identity as 'Tr(diag(M^2))^2 = ‖λ‖^4/d'. Parenthesised "
        "literally, (Tr diag(M²))² = ‖M‖_F⁴ = ‖λ‖₂⁴, which is not ‖λ‖₂⁴/d for d ≥ 2 (the broken variant "
        "is that reading). The proof (Eq. 82), Lemma 12, Def. 7 and Eq. (50) all mean Tr(diag(M²)²), "
        "which is what is checked. ‖λ‖₃³ = Tr(M³) needs λ ≥ 0, true as M is a Gram matrix. Certified for "
        "every M = M(H) with equal row norms, every d (no draw): the outer identities of Eq. (49) are "
        "Tr(M^k) = Σλ_i^k (spectral theorem, cited), and for the middle one sympy evaluates the subject's formula "
        "at Σr_i for a symbolic d, r_i = (M²)_ii the squared row norms (Σr_i = ‖M‖_F² = ‖λ‖₂², Σr_i² = "
        "Tr(diag(M²)²)), and checks d·(Σr_i² − formula(Σr_i, d)) = ½Σ_{i,j}(r_i − r_j)² (Lagrange's identity for "
        "the genuine formula): equal row norms make the right side 0. The exact search checks all three "
        "identities, and δ_F(M) = δ_F(λ), on matrices up to d = 8.",
    )
)


def mixture_means(atoms: Sequence[EqualRowNormGram], weights: Sequence[int]) -> tuple[flint.fmpq, flint.fmpq]:
    """(E_ν Tr(diag(M²)²), E_ν Tr(M³)) for ν = Σ_k p_k δ_{H_k} (weights unnormalized: only their ratio matters)."""
    numerator = sum((exact.to_fmpq(p) * sum((x**2 for x in _row_norms_sq(a.matrix)), flint.fmpq(0))
                     for a, p in zip(atoms, weights, strict=True)), flint.fmpq(0))
    denominator = sum((exact.to_fmpq(p) * trace(a.matrix * a.matrix * a.matrix)
                       for a, p in zip(atoms, weights, strict=True)), flint.fmpq(0))
    return numerator, denominator


def regularity_constant(diag_square_mean, trace_cube_mean):
    """α(ν) = E_ν Tr(diag(M²)²) / E_ν Tr(M³) (Def. 7), from the two means: the object Example 16 is about."""
    return diag_square_mean / trace_cube_mean


def inverted_regularity_constant(diag_square_mean, trace_cube_mean):
    """A broken α: numerator and denominator of Def. 7 swapped (then α ≥ 1 for every ν of Example 16)."""
    return trace_cube_mean / diag_square_mean


EXAMPLE16_THRESHOLD = Fraction(1)


def example16_statement(alpha: Callable, threshold: Fraction):
    """α(ν) ≥ threshold ⇒ every atom of ν has equal nonzero eigenvalues (decided by Tr(M)·M² = ‖M‖_F²·M)."""

    def prop(mixture) -> str | None:
        value = alpha(*mixture_means(*mixture))
        if value < exact.to_fmpq(threshold):
            return None
        for index, atom in enumerate(mixture[0]):
            if not equal_nonzero_eigenvalues(atom.matrix):
                return (f"α = {exact.fmpq_to_fraction(value)} ≥ {threshold} but atom {index} ({atom.kind}) "
                        "does not have equal nonzero eigenvalues")
        return None

    return prop


def _classify_mixture(mixture) -> list[str]:
    premise = regularity_constant(*mixture_means(*mixture)) >= 1
    return [f"{len(mixture[0])} atom(s)", "premise α ≥ 1 holds" if premise else "α < 1"]


mixtures = st.integers(1, 3).flatmap(
    lambda k: st.tuples(
        st.lists(equal_row_norm_grams(unit_diagonal=True), min_size=k, max_size=k),
        st.lists(st.integers(1, 5), min_size=k, max_size=k),
    )
)


def example16_search(alpha: Callable, threshold: Fraction) -> Check:
    return property_search(
        "exact mixtures of equal-row-norm H ∈ 𝓗",
        mixtures,
        example16_statement(alpha, threshold),
        space="ν = finite mixture (1–3 atoms, integer weights) of H ∈ 𝓗 whose M(H) has equal row norms "
        "(flat-eigenbasis and circulant families scaled to unit diagonal); α and the conclusion in Q",
        classify=_classify_mixture,
        describe=lambda mixture: {"atoms": [a.describe() for a in mixture[0]], "weights": list(mixture[1])},
        pinned=[([flat_eigenbasis_gram([Fraction(2), Fraction(2), Fraction(0), Fraction(0)], 0)], [1]),
                # λ = (7/5, 3/5), unit diagonal: α = (1 + ε²)²/(1 + 3ε²) = 0.909… at ε = 2/5, unequal λ.
                ([flat_eigenbasis_gram([Fraction(7, 5), Fraction(3, 5)], 0)], [1])],
    )


def regularity_gap_identity(alpha: Callable, threshold: Fraction) -> Check:
    """Two identities, each for every size. One atom, d symbolic: d·Tr(M³) − d·Tr(diag(M²)²) =
    (Σλ)(Σλ³) − (Σλ²)² = ½ Σ_{i,j} λ_iλ_j(λ_i − λ_j)² ≥ 0, using Σλ = d and Tr(diag(M²)²) = ‖λ‖₂⁴/d
    (Prop. 13), zero exactly when the nonzero λ_i are equal. The mixture: with Ā = E_ν Tr(diag(M²)²)
    and B̄ = E_ν Tr(M³) as symbols, B̄·(threshold − α(Ā, B̄)) = B̄ − Ā for the subject's α and
    threshold, so the premise α(ν) ≥ threshold says E_ν[Tr(M³) − Tr(diag(M²)²)] ≤ 0: a mean of
    nonnegative per-atom gaps, so every atom's gap is 0 (Eq. 87–90)."""
    d = sympy.Symbol("d", positive=True, integer=True)
    sums = symbolic_power_sums(d, "λ")
    diag_square_mean, trace_cube_mean = sympy.symbols("Abar Bbar", positive=True)

    def build(case: str):
        if case == "one atom":
            return [[sums(1) * sums(3) - sums(2) ** 2]], [[weighted_square_gap(lambda x, y: x * y, d, "λ")]]
        return ([[trace_cube_mean * (threshold - alpha(diag_square_mean, trace_cube_mean))]],
                [[trace_cube_mean - diag_square_mean]])

    return symbolic_identity(
        "Cauchy–Schwarz gap of α (sympy)", lambda ctx: ["one atom", "mixture"], build, scope=ALL_SIZES,
        describe_case=lambda case: ("one atom, d symbolic: (Σλ)(Σλ³) − (Σλ²)² = ½ Σ_(i,j) λ_iλ_j(λ_i − λ_j)², "
                                    "sums over i, j ≤ d as power sums" if case == "one atom" else
                                    "mixture: B̄·(threshold − α(Ā, B̄)) = B̄ − Ā for symbolic means Ā, B̄"),
        relies_on=(NONNEGATIVE_MEAN_ZERO,),
    )


register(
    Claim(
        id="daneshmand2020.example16",
        source="App. 7.5, Example 16 (details Eq. 87–90)",
        hypotheses=("ν supported on H ∈ 𝓗 whose M(H) has rows of equal norm",),
        subject={"regularity_constant": regularity_constant, "threshold": EXAMPLE16_THRESHOLD},
        checks=(
            takes("regularity_constant", "threshold", build=regularity_gap_identity),
            takes("regularity_constant", "threshold", build=example16_search),
        ),
        broken=(
            Broken("threshold lowered: α ≥ 9/10 ⇒ equal nonzero eigenvalues", replaces={"threshold": Fraction(9, 10)},
                   refuted_by="the pinned one-atom ν with λ = (7/5, 3/5): α = 841/925 ≈ 0.909 ≥ 9/10, eigenvalues "
                              "unequal; the mixture identity (B̄·(9/10 − Ā/B̄) ≠ B̄ − Ā)"),
            Broken("α inverted: E Tr(M³) / E Tr(diag(M²)²)",
                   replaces={"regularity_constant": inverted_regularity_constant},
                   refuted_by="the pinned one-atom ν with λ = (7/5, 3/5): inverted α = 925/841 ≥ 1, eigenvalues "
                              "unequal; the mixture identity (B̄ − B̄²/Ā ≠ B̄ − Ā)"),
        ),
        depends_on=("daneshmand2020.prop13",),
        notes="For every ν supported on such H (every law, no draw), every d. For one H, Prop. 13 gives "
        "Tr(diag(M²)²) = ‖λ‖₂⁴/d and Σλ = d; the sympy identity, for a symbolic d "
        "(sums over independent indices factor into power sums), shows the gap d‖λ‖₃³ − ‖λ‖₂⁴ is "
        "½Σ_(i,j) λ_iλ_j(λ_i − λ_j)² ≥ 0, zero iff all nonzero eigenvalues are equal. For a mixture, sympy "
        "evaluates the subject's α and threshold at symbolic means and checks B̄·(threshold − α) = B̄ − Ā, so "
        "α ≥ 1 says the mean of the nonnegative per-atom gaps is ≤ 0, which forces equality for every atom (a.s., "
        "hence on the support, the equality set being closed; cited). The paper's Eq. (87) writes the expectations "
        "as if ν were a point mass; the conclusion survives. The search decides the conclusion exactly by "
        "Tr(M)·M² = ‖M‖_F²·M.",
    )
)
