"""randfeat2025, Sec. 3 and App. A.2.1: ID cond, minimal ID cond and Ortho cond features (Eq. 2, 3, 6).

Claims: ``idcond`` (M = I with c1 = c0c2, every feature one link per layer), ``idcond_min``
(the minimal variant with c2(c0 − 1) + 1 features reconstructs targets) and ``orthocond``
(M = U⁽²⁾ ⊗ U⁽¹⁾ᵀ is orthogonal). Everything here is decided in exact arithmetic: integer
layers, rational orthogonal matrices (Cayley transforms) and sympy identities; only the
large Ortho cond instances are checked to float round-off.

Eq. (3) is read as printed in the main text (j > 1 gets its own feature, the first input is
served by one shared feature k₁); App. A.2.1 writes "for i > 1" and "skip k_i1 for i > 1",
which contradicts its own feature count c2(c0 − 1) + 1 and is taken as a typo.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import sympy
from hypothesis import strategies as st
from sympy.matrices.expressions.kronecker import combine_kronecker

from theorems.engine.checks import property_search, symbolic_identity
from theorems.engine.context import Context
from theorems.engine.registry import Broken, Check, Claim, Erratum, register
from theorems.engine.verdicts import ALL_SIZES, Outcome, Verdict
from theorems.maths import exact, features
from theorems.maths.strategies import EXACT_KINDS, matrices
from theorems.papers.randfeat2025 import SOURCE

# --- ID cond: M = I and one link per feature --------------------------------------------


def id_cond_from_index(c0: int, c2: int, index: Callable[[int, int, int, int], int]) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (6) with a given flattening k = index(i, j, c0, c2): w⁽¹⁾_{kj} = w⁽²⁾_{ik} = 1.
    c1 is c0c2, or more when the index leaves gaps (a wrong stride)."""
    pairs = [(i, j, index(i, j, c0, c2)) for i in range(c2) for j in range(c0)]
    c1 = max(c0 * c2, 1 + max(k for _, _, k in pairs))
    w1 = np.zeros((c1, c0), dtype=np.int64)
    w2 = np.zeros((c2, c1), dtype=np.int64)
    for i, j, k in pairs:
        w1[k, j] = 1
        w2[i, k] = 1
    return w1, w2


def row_major(i: int, j: int, c0: int, c2: int) -> int:
    return features.id_cond_index(i, j, c0)


def stride_c2(i: int, j: int, c0: int, c2: int) -> int:
    """A wrong flattening: stride c2 (the number of outputs) instead of c0."""
    return i * c2 + j


def _sizes(ctx: Context) -> list[tuple[int, int]]:
    largest = ctx.by_profile(3, 5, 8, 10)
    sizes = ((c0, c2) for c0 in range(1, largest + 1) for c2 in range(1, largest + 1))
    return sorted(sizes, key=lambda s: (s[0] * s[1], s))


def _bounded_sizes(ctx: Context) -> str:
    largest = max(max(size) for size in _sizes(ctx))
    return f"c0, c2 ≤ {largest}"


def identity_check(index) -> Check:
    return symbolic_identity(
        "M = I exactly",
        _sizes,
        lambda size: (features.feature_matrix(*id_cond_from_index(*size, index)),
                      np.eye(size[0] * size[1], dtype=np.int64)),
        scope=_bounded_sizes,
        describe_case=lambda size: f"c0 = {size[0]}, c2 = {size[1]}",
    )


# Symbolic sizes and indices for the arguments that cover every c0, c2 at once.
OUTPUT, INPUT, C0, C2 = sympy.symbols("i j c0 c2", integer=True, nonnegative=True)


def flattening_residual(index) -> sympy.Expr:
    """index(i, j) − (i·c0 + j) in symbolic i, j, c0, c2: zero iff the features follow vec's
    row-major order of the target entries."""
    return sympy.expand(index(OUTPUT, INPUT, C0, C2) - (OUTPUT * C0 + INPUT))


def general_identity_check(index) -> Check:
    """Every c0, c2 at once. Feature k = index(i', j') links input j' to output i' only:
    w⁽¹⁾_{kj} = δ(j, j'), w⁽²⁾_{ik} = δ(i, i'), so m_{(ij)k} = δ(i, i')δ(j, j'). Row (i, j) of M sits at
    i·c0 + j, and (i, j) ↦ i·c0 + j is a bijection of [c2]×[c0] onto [c0c2] (division with remainder by
    c0). So M = I_{c0c2} (c1 = c0c2, no feature left empty) iff index(i, j) = i·c0 + j, an identity
    in symbolic i, j, c0, c2. A flattening that differs is refuted at the smallest size where it
    does, by building its layers."""

    def run(ctx: Context) -> Outcome:
        residual = flattening_residual(index)
        i2, j2 = sympy.symbols("i' j'", integer=True, nonnegative=True)
        entry = sympy.KroneckerDelta(OUTPUT, i2) * sympy.KroneckerDelta(j2, INPUT)  # w⁽²⁾_{ik} · w⁽¹⁾_{kj}
        evidence = {"flattening": str(index(OUTPUT, INPUT, C0, C2)), "index_minus_row_position": str(residual),
                    "entry": f"m_(ij)k = {entry} for k = index(i', j')",
                    "argument": "m_(ij)k = δ(i, i')δ(j, j'); row (i, j) at i·c0 + j; index(i, j) ≡ i·c0 + j as "
                                "polynomials, and i·c0 + j is a bijection [c2]×[c0] → [c0c2], so M = I_{c0c2}"}
        if residual == 0:
            return Outcome(Verdict.CERTIFIED, "index(i, j) ≡ i·c0 + j symbolically: M = I_{c0c2} for every c0, c2",
                           evidence, scope=ALL_SIZES)
        for c0, c2 in sorted(itertools.product(range(1, 5), repeat=2), key=lambda s: (s[0] * s[1], s)):
            m = features.feature_matrix(*id_cond_from_index(c0, c2, index))
            if m.shape != (c0 * c2, c0 * c2) or (m != np.eye(c0 * c2, dtype=np.int64)).any():
                return Outcome(Verdict.REFUTED, f"index(i, j) − (i·c0 + j) = {residual}: at c0 = {c0}, c2 = {c2} "
                               f"M is {m.shape[0]}×{m.shape[1]}, not I", evidence,
                               counterexample={"c0": c0, "c2": c2, "M": m.tolist()})
        return Outcome(Verdict.INCONCLUSIVE, f"index(i, j) − (i·c0 + j) = {residual}, yet M = I up to c0, c2 ≤ 4",
                       evidence)

    return Check("M = I for every c0, c2 (symbolic flattening)", "symbolic", run)


def general_sparsity_check(feature_count: Callable[[sympy.Expr, sympy.Expr], sympy.Expr]) -> Check:
    """Every c0, c2 at once: a feature of the construction has Σ_j δ(j, j') = 1 input and Σ_i δ(i, i') = 1
    output link for 0 ≤ j' < c0, 0 ≤ i' < c2 (sympy sums with symbolic bounds), and there are
    feature_count(c0, c2) features, which must be c0c2 = rank M (M = I): no fewer express every target."""

    def run(ctx: Context) -> Outcome:
        position, slack, j = sympy.symbols("t u j", integer=True, nonnegative=True)
        # a link index t with 0 ≤ t ≤ t + u = (layer width) − 1
        links = sympy.Sum(sympy.KroneckerDelta(j, position), (j, 0, position + slack)).doit()
        extra = sympy.expand(feature_count(C0, C2) - C0 * C2)
        evidence = {"links_per_feature_per_layer": str(links), "features_minus_c0c2": str(extra)}
        if links != 1:
            raise AssertionError(f"a feature's links sum to {links}")
        if extra == 0:
            return Outcome(Verdict.CERTIFIED, "one input and one output link per feature and c1 = c0c2 = rank M, "
                           "symbolically in c0, c2", evidence, scope=ALL_SIZES)
        c0, c2 = min(((a, b) for a in range(1, 5) for b in range(1, 5) if extra.subs({C0: a, C2: b}) != 0),
                     key=lambda s: (s[0] * s[1], s))
        count = feature_count(c0, c2)
        return Outcome(Verdict.REFUTED, f"c0 = {c0}, c2 = {c2}: {count} features for rank M = {c0 * c2}", evidence,
                       counterexample={"c0": c0, "c2": c2, "features": int(count), "rank_M": c0 * c2})

    return Check("one link per feature, c1 = c0c2 (every c0, c2)", "symbolic", run, part="maximally sparse")


def one_link_per_feature(w1: np.ndarray, w2: np.ndarray) -> str | None:
    """None when every feature has exactly one input link and one output link, c1 = c0c2 and
    M has rank c0c2 (so no layer pair with fewer links expresses every target); else why not."""
    c0, c2, c1 = w1.shape[1], w2.shape[0], w1.shape[0]
    inputs, outputs = np.count_nonzero(w1, axis=1), np.count_nonzero(w2, axis=0)
    if c1 != c0 * c2:
        return f"c1 = {c1} features, not c0c2 = {c0 * c2}"
    if (inputs != 1).any() or (outputs != 1).any():
        k = int(np.flatnonzero((inputs != 1) | (outputs != 1))[0])
        return f"feature {k} has {inputs[k]} input and {outputs[k]} output links"
    rank = exact.rank_exact(features.feature_matrix(w1, w2))
    if rank != c0 * c2:
        return f"rank M = {rank} < c0c2 = {c0 * c2}: some target is not expressible"
    return None


def sparsity_check(layers: Callable[[int, int], tuple[np.ndarray, np.ndarray]]) -> Check:
    def run(ctx: Context) -> Outcome:
        checked = []
        for c0, c2 in _sizes(ctx):
            w1, w2 = layers(c0, c2)
            reason = one_link_per_feature(w1, w2)
            if reason is not None:
                return Outcome(Verdict.REFUTED, f"c0 = {c0}, c2 = {c2}: {reason}", {"sizes_checked": checked},
                               counterexample={"c0": c0, "c2": c2, "W1": w1.tolist(), "W2": w2.tolist(),
                                               "reason": reason})
            checked.append([c0, c2])
        return Outcome(Verdict.CERTIFIED,
                       f"{len(checked)} sizes: one input and one output link per feature, c1 = c0c2 = rank M, "
                       "so 2c0c2 links, the least any layer pair expressing every target can have",
                       {"sizes": checked, "lower_bound": "rank M = c0c2 needs c1 ≥ c0c2 features; a feature without an "
                        "input or an output link is a zero column of M"}, scope=_bounded_sizes(ctx))

    return Check("one link per feature, c1 = c0c2", "symbolic", run, part="maximally sparse")


def _c0c2_features(c0, c2):
    return c0 * c2


def _c0c2_plus_one_features(c0, c2):
    return c0 * c2 + 1


def _duplicated_first_feature(c0: int, c2: int) -> tuple[np.ndarray, np.ndarray]:
    w1, w2 = features.id_cond(c0, c2)
    return np.vstack([w1, w1[:1]]), np.hstack([w2, w2[:, :1]])


register(Claim(
    id="randfeat2025.idcond",
    source=f"{SOURCE}, Sec. 3, Eq. (2) and App. A.2.1, Eq. (5)–(6)",
    hypotheses=("c1 = c0c2", "k_ij = (i − 1)c0 + j (row-major flattening of the target)"),
    checks=(general_identity_check(row_major), identity_check(row_major), general_sparsity_check(_c0c2_features),
            sparsity_check(features.id_cond)),
    broken=(
        Broken("flattening with stride c2 instead of c0 (k_ij = i·c2 + j)",
               (general_identity_check(stride_c2), identity_check(stride_c2)),
               refuted_by="index − (i·c0 + j) = i(c2 − c0) symbolically; the first non-square case c0 = 1, c2 = 2: "
                          "k = 0, 2 leaves feature 1 empty, M is 2×3"),
        Broken("ID cond with the first feature duplicated (c1 = c0c2 + 1) is still maximally sparse",
               (general_sparsity_check(_c0c2_plus_one_features), sparsity_check(_duplicated_first_feature)),
               refuted_by="the smallest size c0 = c2 = 1: two features for one target entry"),
    ),
    notes="Certified for every c0, c2 (scope all): M = I and one link per feature reduce to the identity "
          "index(i, j) = i·c0 + j (symbolic in i, j, c0, c2) and sympy sums with symbolic bounds; the exact integer "
          "check of Eq. (6) for every c0, c2 ≤ 5 (8 at thorough) corroborates the construction itself. 'Maximally "
          "sparse' is checked as: every feature has exactly one link in each layer and c1 = rank M = c0c2, the fewest "
          "features that express every target; the link-removal form is thm3_1's.",
))


# --- minimal ID cond ---------------------------------------------------------------------


def minimal_reconstruction(target: np.ndarray) -> tuple[np.ndarray, np.ndarray] | str:
    """γ⁽¹⁾, γ⁽²⁾ (Fractions) with diag(γ⁽²⁾) W⁽²⁾ diag(γ⁽¹⁾) W⁽¹⁾ = W⁽ᵗ⁾ for the minimal ID cond
    layers, or a proof that none exist.

    Printed recipe: γ⁽¹⁾_{k₁} = 1, γ⁽²⁾_i = w_i0, γ⁽¹⁾_{k_ij} = w_ij / w_i0. When column 0 is zero,
    γ⁽¹⁾_{k₁} = 0 and γ⁽²⁾ = 1 work instead. Otherwise some w_i'0 ≠ 0 forces γ⁽¹⁾_{k₁} ≠ 0, so a
    row i with w_i0 = 0 has γ⁽²⁾_i = 0 and must be zero.
    """
    c2, c0 = target.shape
    gamma1 = np.array([Fraction(0)] * (c2 * (c0 - 1) + 1), dtype=object)
    gamma2 = np.array([Fraction(1)] * c2, dtype=object)
    first = target[:, 0]
    if (first == 0).all():
        gamma1[0] = Fraction(0)
        scale = np.ones(c2, dtype=object)
    else:
        for i in range(c2):
            if first[i] == 0 and (target[i] != 0).any():
                pivot = int(np.flatnonzero(first)[0])
                j = int(np.flatnonzero(target[i])[0])
                return (f"w_{pivot}0 = {first[pivot]} ≠ 0 forces γ1_k1 ≠ 0, so w_{i}0 = 0 forces γ2_{i} = 0, "
                        f"yet w_{i}{j} = {target[i, j]} ≠ 0")
        gamma1[0] = Fraction(1)
        scale = np.array([Fraction(int(x)) for x in first], dtype=object)
        gamma2 = scale.copy()
    for i in range(c2):
        for j in range(1, c0):
            k = 1 + i * (c0 - 1) + (j - 1)
            gamma1[k] = Fraction(int(target[i, j])) / scale[i] if scale[i] != 0 else Fraction(0)
    return gamma1, gamma2


def groebner_unreachable(target: np.ndarray) -> bool:
    """True when the polynomial system diag(γ2) W2 diag(γ1) W1 = W⁽ᵗ⁾ of the minimal ID cond
    layers has no complex solution (its reduced Gröbner basis is {1})."""
    c2, c0 = target.shape
    w1, w2 = features.id_cond_minimal(c0, c2)
    g1 = np.array(sympy.symbols(f"g1_0:{w1.shape[0]}"), dtype=object)
    g2 = np.array(sympy.symbols(f"g2_0:{c2}"), dtype=object)
    effective = features.effective_weight(w1.astype(object), w2.astype(object), g1, g2)
    equations = (effective - target.astype(object)).ravel()
    basis = sympy.groebner([sympy.expand(e) for e in equations if e != 0], *g1, *g2, order="grevlex")
    return list(basis.exprs) == [1]


def reconstruction_property(admissible: Callable[[np.ndarray], bool]):
    def prop(target: np.ndarray) -> str | None:
        if not admissible(target):
            return None
        found = minimal_reconstruction(target)
        if isinstance(found, str):
            return f"target {target.tolist()} is not expressible: {found}"
        gamma1, gamma2 = found
        w1, w2 = features.id_cond_minimal(target.shape[1], target.shape[0])
        built = features.effective_weight(w1.astype(object), w2.astype(object), gamma1, gamma2)
        if not (built == target.astype(object)).all():
            raise AssertionError(f"the recipe built {built.tolist()} for {target.tolist()}")
        return None

    return prop


def _describe_target(target: np.ndarray) -> dict:
    return {"target": target.tolist(),
            "groebner_basis_is_1": groebner_unreachable(target) if target.size <= 9 else None}


def _targets(ctx: Context):
    largest = ctx.by_profile(3, 3, 4)
    return matrices(st.integers(1, largest), st.integers(1, largest), kinds=EXACT_KINDS)


def _classify_target(target: np.ndarray) -> list[str]:
    first = target[:, 0]
    gap = ((first == 0) & (target != 0).any(axis=1)).any()
    kinds = ["zero in column 0 of a nonzero row" if gap else "column 0 zero-free"]
    kinds.append("sparse" if np.count_nonzero(target) <= target.size // 2 else "dense")
    return kinds


ANTIDIAGONAL = np.array([[0, 1], [1, 0]])
IDENTITY_2 = np.eye(2, dtype=np.int64)


def reconstruction_search(name: str, admissible, pinned) -> Check:
    return property_search(name, _targets, reconstruction_property(admissible), space="integer targets c0, c2 ≤ 3 "
                           "(4 at thorough) of every exact kind, zeros anywhere", classify=_classify_target,
                           describe=_describe_target, pinned=pinned)


def zero_free_first_column(target: np.ndarray) -> bool:
    """The corrected hypothesis: column 0 is zero, or nonzero in every nonzero row."""
    first = target[:, 0]
    return bool((first == 0).all() or not ((first == 0) & (target != 0).any(axis=1)).any())


def nonzero_first_column(target: np.ndarray) -> bool:
    return bool((target[:, 0] != 0).any())


def every_nonzero_row_has_first_entry(target: np.ndarray) -> bool:
    """The near-miss characterization: w_i1 ≠ 0 in every nonzero row (forgets γ1_k1 = 0)."""
    return not ((target[:, 0] == 0) & (target != 0).any(axis=1)).any()


COLUMN_ZERO = np.array([[0, 1], [0, 2]])


def characterization_shapes(ctx: Context) -> list[tuple[int, int]]:
    """Every target shape (c2, c0) with c0, c2 ≤ 3 and c0·c2 ≤ 6 (c0, c2 ≤ 3 at thorough), smallest first."""
    most = ctx.by_profile(4, 6, 9)
    return sorted(((c2, c0) for c2 in range(1, 4) for c0 in range(1, 4) if c2 * c0 <= most),
                  key=lambda shape: (shape[0] * shape[1], shape))


def characterization_check(reachable_iff: Callable[[np.ndarray], bool]) -> Check:
    """Exhaustive: every target support pattern of every shape of ``characterization_shapes``, decided
    by a Gröbner basis (no complex solution ⇔ basis {1}), against the stated characterization.
    Support patterns cover every target of these shapes: each entry w_ij (j ≥ 1) has its own γ⁽¹⁾_{k_ij}
    and column 0 is γ⁽²⁾_i times the one shared γ⁽¹⁾_{k₁}, so nonzero values rescale freely and
    reachability depends on the support alone."""

    def run(ctx: Context) -> Outcome:
        shapes = characterization_shapes(ctx)
        checked = 0
        bound = f"c0, c2 ≤ 3, c0·c2 ≤ {max(a * b for a, b in shapes)}"
        for shape in shapes:
            for entries in itertools.product((0, 1), repeat=shape[0] * shape[1]):
                target = np.array(entries, dtype=np.int64).reshape(shape)
                reachable = not groebner_unreachable(target)
                if reachable != reachable_iff(target):
                    return Outcome(Verdict.REFUTED, f"target {target.tolist()}: Gröbner basis says "
                                   f"{'reachable' if reachable else 'unreachable'}, "
                                   f"the characterization says otherwise",
                                   {"targets_checked": checked},
                                   counterexample={"target": target.tolist(), "reachable": reachable})
                checked += 1
        return Outcome(Verdict.CERTIFIED, f"characterization exact on all {checked} support patterns ({bound})",
                       {"bound": bound, "configurations": checked, "shapes_c2_c0": shapes,
                        "method": "sympy Gröbner basis of diag(γ2) W2 diag(γ1) W1 = W(t) per 0/1 support pattern; "
                                  "reachability depends on the support alone"},
                       scope=f"{bound} (every target)")

    return Check("exact characterization (Gröbner, every support pattern)", "symbolic", run)


# The names of the reconstruction searches: a broken variant replaces the check of the same name.
EVERY_TARGET_CHECK = "every target is reconstructed"
ADMISSIBLE_TARGETS_CHECK = "admissible targets are reconstructed"


register(Claim(
    id="randfeat2025.idcond_min",
    source=f"{SOURCE}, Sec. 3, Eq. (3) and App. A.2.1",
    hypotheses=("c1 = c2(c0 − 1) + 1", "one shared feature k₁ for input 1", "γ⁽²⁾ trained"),
    checks=(reconstruction_search(EVERY_TARGET_CHECK, lambda t: True, [ANTIDIAGONAL]),),
    broken=(Broken("hypothesis added: the first column is not entirely zero",
                   (reconstruction_search(EVERY_TARGET_CHECK, nonzero_first_column, [IDENTITY_2]),),
                   refuted_by="the pinned identity target I₂ (w_10 = 0 in a nonzero row while w_00 ≠ 0)"),),
    erratum=Erratum("as-printed", "a target with w_i1 = 0 in a nonzero row while another w_i'1 ≠ 0 is not "
                    "expressible (w_i'1 ≠ 0 forces γ1_k1 ≠ 0, then γ2_i = 0 zeroes row i); minimal case "
                    "c0 = c2 = 2, W = [[0, 1], [1, 0]] (Gröbner basis {1}). The recipe divides by w_i1; almost "
                    "every target is fine.",
                    corrected=("randfeat2025.idcond_min.corrected",)),
    notes="Reachability is decided exactly: the printed recipe (verified by rebuilding the effective weight in "
          "rationals) or the two-line proof of impossibility, and a Gröbner basis for the reported counterexample.",
))

register(Claim(
    id="randfeat2025.idcond_min.corrected",
    variant_of="randfeat2025.idcond_min",
    label="Eq. (3), corrected",
    statement="The minimal ID cond features reconstruct exactly the targets whose first column is zero or nonzero in "
              "every nonzero row (in particular almost every target).",
    source=f"{SOURCE}, Sec. 3, Eq. (3)",
    hypotheses=("column 0 of W⁽ᵗ⁾ zero, or w_i1 ≠ 0 in every nonzero row i",),
    checks=(reconstruction_search(ADMISSIBLE_TARGETS_CHECK, zero_free_first_column, [COLUMN_ZERO]),
            characterization_check(zero_free_first_column)),
    broken=(
        Broken("hypothesis weakened to 'column 0 not entirely zero'",
               (reconstruction_search(ADMISSIBLE_TARGETS_CHECK, nonzero_first_column, [ANTIDIAGONAL]),),
               refuted_by="the pinned W = [[0, 1], [1, 0]]"),
        Broken("characterization without the zero-first-column case",
               (characterization_check(every_nonzero_row_has_first_entry),),
               refuted_by="the exhaustive table visits W = [[0, 1], [0, 0]] (2×2, reachable with γ1_k1 = 0)"),
    ),
))


# --- Ortho cond ------------------------------------------------------------------------


def rotation_numerators(t) -> np.ndarray:
    """(1 + t²)·R(t) for the rational rotation R(t) = [[1−t², −2t], [2t, 1−t²]]/(1 + t²)."""
    return np.array([[1 - t**2, -2 * t], [2 * t, 1 - t**2]], dtype=object)


def reflection_numerators(t) -> np.ndarray:
    return np.array([[1 - t**2, 2 * t], [2 * t, t**2 - 1]], dtype=object)


def unit_rows_numerators(t) -> np.ndarray:
    """Unit-norm rows that are not orthogonal: [[1, 0], R(t) row 0], times 1 + t²."""
    return np.array([[1 + t**2, 0], [1 - t**2, 2 * t]], dtype=object)


ORTHOGONAL_FAMILIES = {"rotation": rotation_numerators, "reflection": reflection_numerators}


def symbolic_orthocond_check(second_families: dict) -> Check:
    """MᵀM = I for c0 = c2 = 2 with symbolic rational rotations/reflections U⁽¹⁾(s), U⁽²⁾(t):
    with numerators Ũ = (1 + t²)U the identity reads M̃ᵀM̃ = (1 + s²)²(1 + t²)² I, a polynomial one."""
    s, t = sympy.symbols("s t")

    def build(case):
        first, second = case
        u1, u2 = ORTHOGONAL_FAMILIES[first](s), second_families[second](t)
        w1, w2 = features.ortho_cond_layers(u1, u2)
        m = features.feature_matrix(w1, w2)
        return m.T.dot(m), np.eye(4, dtype=object) * ((1 + s**2) ** 2 * (1 + t**2) ** 2)

    def cases(ctx):
        return [(a, b) for a in ORTHOGONAL_FAMILIES for b in second_families]

    return symbolic_identity("MᵀM = I symbolically (c0 = c2 = 2)", cases, build, scope="c0 = c2 = 2",
                             describe_case=lambda case: f"U1 {case[0]}(s), U2 {case[1]}(t), c0 = c2 = 2")


# The orthogonality hypotheses as rewrite rules of the Gram factors (U⁽²⁾ᵀU⁽²⁾ = I, U⁽¹⁾U⁽¹⁾ᵀ = I:
# square matrices, so rows and columns orthonormal alike).
U1_SYMBOL, U2_SYMBOL = sympy.MatrixSymbol("U1", C0, C0), sympy.MatrixSymbol("U2", C2, C2)
BOTH_ORTHOGONAL = {U2_SYMBOL.T * U2_SYMBOL: sympy.Identity(C2), U1_SYMBOL * U1_SYMBOL.T: sympy.Identity(C0)}
ONLY_U1_ORTHOGONAL = {U1_SYMBOL * U1_SYMBOL.T: sympy.Identity(C0)}


def kronecker_orthocond_check(hypotheses: dict, witness_u2=None) -> Check:
    """Every c0, c2 at once. Feature (q, d) at q·c0 + d has w⁽¹⁾ row d of U⁽¹⁾ and w⁽²⁾ column q of U⁽²⁾,
    so column (q, d) of M = W⁽²⁾ ⊙ W⁽¹⁾ᵀ is U⁽²⁾[:, q] ⊗ U⁽¹⁾ᵀ[:, d]: M = U⁽²⁾ ⊗ U⁽¹⁾ᵀ
    (features.ortho_cond_layers). With MatrixSymbols of symbolic orders c0, c2, the mixed-product
    rule gives MᵀM = (U⁽²⁾ᵀU⁽²⁾) ⊗ (U⁽¹⁾U⁽¹⁾ᵀ) (sympy combine_kronecker), and the ``hypotheses``
    (rewrite rules) must turn it into I_{c0c2}. When they do not, ``witness_u2`` (with U⁽¹⁾ = I)
    is tried for an exact refutation."""

    def run(ctx: Context) -> Outcome:
        m = sympy.KroneckerProduct(U2_SYMBOL, U1_SYMBOL.T)
        gram = combine_kronecker(m.T * m)
        reduced = gram.subs(hypotheses).doit()
        evidence = {"M": str(m), "MtM": str(gram), "hypotheses": {str(k): str(v) for k, v in hypotheses.items()},
                    "MtM_under_hypotheses": str(reduced)}
        if reduced == sympy.Identity(C0 * C2):
            return Outcome(Verdict.CERTIFIED, "MᵀM = (U⁽²⁾ᵀU⁽²⁾) ⊗ (U⁽¹⁾U⁽¹⁾ᵀ) = I_{c0c2} for symbolic c0, c2",
                           evidence, scope=ALL_SIZES)
        if witness_u2 is not None:
            u2 = np.array(witness_u2, dtype=object)
            u1 = np.eye(len(u2), dtype=np.int64).astype(object)
            m_exact = exact.fmpq_matrix(features.feature_matrix(*features.ortho_cond_layers(u1, u2)))
            gram_exact = m_exact.transpose() * m_exact
            if gram_exact != exact.fmpq_matrix(np.eye(len(u2) ** 2, dtype=np.int64)):
                return Outcome(Verdict.REFUTED, f"the hypotheses leave MᵀM = {reduced}; U⁽¹⁾ = I, U⁽²⁾ = "
                               f"{[[str(x) for x in r] for r in u2]} gives MᵀM ≠ I exactly", evidence,
                               counterexample={"U1": "I", "U2": [[str(x) for x in r] for r in u2],
                                               "MtM_01": str(gram_exact[0, 1])})
        return Outcome(Verdict.INCONCLUSIVE, f"the hypotheses leave MᵀM = {reduced}", evidence)

    return Check("MᵀM = (U⁽²⁾ᵀU⁽²⁾) ⊗ (U⁽¹⁾U⁽¹⁾ᵀ) = I (symbolic orders)", "symbolic", run)


def exact_orthocond_check(second_factor: Callable[[np.random.Generator, int], np.ndarray], pinned_u2=None) -> Check:
    """MᵀM = I over Q for Cayley-transform orthogonal U⁽¹⁾ (c0×c0) and a second factor (c2×c2)."""

    def run(ctx: Context) -> Outcome:
        rng = ctx.rng("cayley")
        largest = ctx.by_profile(3, 4, 5, 6)
        cases = [(c0, c2) for c0 in range(1, largest + 1) for c2 in range(1, largest + 1)]
        checked = []
        for c0, c2 in cases:
            u1 = features.cayley_orthogonal(_random_skew(rng, c0))
            if pinned_u2 is not None and c2 == len(pinned_u2):
                u2 = np.array(pinned_u2, dtype=object)
            else:
                u2 = second_factor(rng, c2)
            m = exact.fmpq_matrix(features.feature_matrix(*features.ortho_cond_layers(u1, u2)))
            gram = m.transpose() * m
            n = c0 * c2
            if gram != exact.fmpq_matrix(np.eye(n, dtype=np.int64)):
                return Outcome(Verdict.REFUTED, f"c0 = {c0}, c2 = {c2}: MᵀM ≠ I over Q", {"sizes_checked": checked},
                               counterexample={"c0": c0, "c2": c2, "U1": [[str(x) for x in r] for r in u1],
                                               "U2": [[str(x) for x in r] for r in u2],
                                               "gram_entry_00": str(gram[0, 0]),
                                               "gram_entry_01": str(gram[0, 1]) if n > 1 else None})
            checked.append([c0, c2])
        return Outcome(Verdict.CERTIFIED, f"MᵀM = I exactly for {len(checked)} sizes (c0, c2 ≤ {largest}) with "
                       "rational orthogonal factors",
                       {"sizes": checked,
                        "factors": "Cayley transforms (I − S)(I + S)⁻¹ of random integer skew-symmetric S"},
                       scope=f"c0, c2 ≤ {largest}")

    return Check("MᵀM = I over Q (Cayley factors)", "symbolic", run)


def _random_skew(rng: np.random.Generator, n: int) -> np.ndarray:
    upper = np.triu(rng.integers(-3, 4, size=(n, n)), 1)
    return (upper - upper.T).astype(object)


def _cayley_factor(rng: np.random.Generator, n: int) -> np.ndarray:
    return features.cayley_orthogonal(_random_skew(rng, n))


def _unit_rows_factor(rng: np.random.Generator, n: int) -> np.ndarray:
    """Rows of a Cayley orthogonal matrix with row 1 replaced by row 0 rotated by a Pythagorean
    angle: unit norm, not orthogonal to row 0 (for n ≥ 2)."""
    u = features.cayley_orthogonal(_random_skew(rng, n))
    if n >= 2:
        u[1] = u[0] * Fraction(3, 5) + u[1] * Fraction(4, 5)
    return u


UNIT_ROWS_PINNED = [[Fraction(1), Fraction(0)], [Fraction(3, 5), Fraction(4, 5)]]


def float_orthocond_check(second_factor: Callable[[np.random.Generator, int], np.ndarray]) -> Check:
    """κ(M) = 1 to round-off for Haar U⁽¹⁾, U⁽²⁾ at c0c2 up to 256 (1024 thorough)."""

    def run(ctx: Context) -> Outcome:
        rng = ctx.rng("haar")
        sizes = ctx.by_profile([(2, 2), (4, 4)], [(2, 2), (4, 4), (8, 8), (16, 16)],
                               [(2, 2), (8, 8), (16, 16), (32, 32)], [(2, 2), (8, 8), (16, 16), (32, 32), (48, 48)])
        # M has (c0c2)² entries: the widest (square) size is capped by memory (M, MᵀM, the SVD's copy).
        widest = ctx.capped_size("c0 = c2", sizes[-1][0], lambda side: 3 * 8 * float(side) ** 4, smallest=16)
        sizes = sizes[:-1] + [(widest, widest)]
        rows = []
        for c0, c2 in ctx.progress(sizes, "sizes"):
            m = features.feature_matrix(*features.ortho_cond_layers(features.haar_orthogonal(rng, c0),
                                                                    second_factor(rng, c2)))
            deviation = float(np.abs(m.T @ m - np.eye(c0 * c2)).max())
            kappa = features.condition_number(m)
            tolerance = 64 * c0 * c2 * np.finfo(float).eps
            rows.append({"c0": c0, "c2": c2, "max_abs_MtM_minus_I": float(f"{deviation:.3g}"),
                         "kappa_minus_1": float(f"{kappa - 1:.3g}"), "tolerance": float(f"{tolerance:.3g}")})
            if deviation > tolerance:
                return Outcome(Verdict.REFUTED, f"c0 = {c0}, c2 = {c2}: max |MᵀM − I| = {deviation:.3g} > "
                               f"{tolerance:.3g}, κ(M) = {kappa:.4g}", {"sizes": rows}, counterexample=rows[-1])
        return Outcome(Verdict.SUPPORTED, f"|MᵀM − I| ≤ 64·c0c2·eps at {len(rows)} Haar draws up to c0c2 = "
                       f"{sizes[-1][0] * sizes[-1][1]}", {"sizes": rows})

    return Check("κ(M) = 1 to round-off (Haar factors)", "randomized", run, corroborating=True)


def _haar_factor(rng, n):
    return features.haar_orthogonal(rng, n)


def _haar_unit_rows(rng, n):
    u = features.haar_orthogonal(rng, n)
    if n >= 2:
        u[1] = 0.6 * u[0] + 0.8 * u[1]
    return u


register(Claim(
    id="randfeat2025.orthocond",
    source=f"{SOURCE}, Sec. 3, 'Ortho cond features'",
    hypotheses=("U⁽¹⁾ ∈ O(c0), U⁽²⁾ ∈ O(c2)", "c1 = c0c2, feature k = (q, d)"),
    checks=(kronecker_orthocond_check(BOTH_ORTHOGONAL), symbolic_orthocond_check(ORTHOGONAL_FAMILIES),
            exact_orthocond_check(_cayley_factor), float_orthocond_check(_haar_factor)),
    broken=(Broken("U⁽²⁾ only with unit-norm rows (normalized, not orthogonalized)",
                   (kronecker_orthocond_check(ONLY_U1_ORTHOGONAL, UNIT_ROWS_PINNED),
                    symbolic_orthocond_check({"unit rows": unit_rows_numerators}),
                    exact_orthocond_check(_unit_rows_factor, UNIT_ROWS_PINNED),
                    float_orthocond_check(_haar_unit_rows)),
                   refuted_by="the pinned U⁽²⁾ = [[1, 0], [3/5, 4/5]] (c2 = 2) and its symbolic form "
                              "[[1, 0], R(t) row 0]; symbolically MᵀM = (U⁽²⁾ᵀU⁽²⁾) ⊗ I is left"),),
    notes="The printed row-orthogonality sum has its indices garbled (u⁽²⁾ and u⁽¹⁾ swapped); M = U⁽²⁾ ⊗ U⁽¹⁾ᵀ is "
          "orthogonal as a Kronecker product of orthogonal matrices, which is what is checked: for every c0, c2 "
          "(scope all) by the mixed-product rule with symbolic orders, and exactly on rational orthogonal factors "
          "for c0, c2 ≤ 4 (the construction itself).",
))
