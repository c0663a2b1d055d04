"""randfeat2025, Sec. 2: Thm 2.1, the width requirement for lossless reconstruction.

Claim ``thm2_1`` as printed: full-rank W⁽¹⁾, W⁽²⁾ with c1 ≥ c0c2 make γ⁽²⁾ = 1, γ⁽¹⁾ = M⁺v a
solution of Problem (1); with γ⁽²⁾ trained, c1 ≥ c2(c0 − 1) + 1 features suffice. Full rank of
the factors does not give full rank of M = W⁽²⁾ ⊙ W⁽¹⁾ᵀ (features whose input and output links
miss each other), so both parts fail for some full-rank layers; the cited results (Giannou et
al. 2023, Burkholz 2024) hold for layers with iid entries from a continuous distribution,
almost surely, which ``thm2_1.corrected`` checks.

Deciding solvability exactly (rationals, python-flint):
- γ⁽²⁾ = 1: the loss at γ⁽¹⁾ = M⁺v is the least-squares residual, zero iff v ∈ range M;
- γ⁽²⁾ trained: w_ij = γ⁽²⁾_i (Mγ⁽¹⁾)_(ij) has a solution iff the homogeneous system
  Mγ⁽¹⁾ = Bμ (B places target row i in rows (i, ·); μ_i = 1/γ⁽²⁾_i) has a solution with μ_i ≠ 0
  for every nonzero target row i, iff no such coordinate vanishes on the whole null space of
  [M | −B] (a subspace is not a finite union of hyperplanes); zero target rows take γ⁽²⁾_i = 0.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import flint
import numpy as np
from hypothesis import strategies as st

from theorems.engine.checks import property_search
from theorems.engine.context import Context
from theorems.engine.registry import Broken, Check, Claim, Erratum, register
from theorems.engine.verdicts import Outcome, Verdict
from theorems.maths import exact, features
from theorems.maths.strategies import EXACT_KINDS, matrices
from theorems.papers.randfeat2025 import SOURCE


def target_block(target: np.ndarray) -> np.ndarray:
    """B (c0c2 × c2): column i holds target row i in rows i·c0 .. i·c0 + c0 − 1."""
    c2, c0 = target.shape
    block = np.zeros((c0 * c2, c2), dtype=object)
    for i in range(c2):
        block[i * c0:(i + 1) * c0, i] = [int(x) for x in target[i]]
    return block


def reachable_with_gamma2(m: np.ndarray, target: np.ndarray) -> tuple[bool, dict]:
    """Whether some γ⁽¹⁾, γ⁽²⁾ give diag(γ⁽²⁾)·vec⁻¹(Mγ⁽¹⁾) = W⁽ᵗ⁾ (exact, see the module docstring);
    with a witness (γ⁽¹⁾, γ⁽²⁾ as strings) when reachable. Zero target rows take γ⁽²⁾_i = 0, so
    their equations are dropped."""
    c2, c0 = target.shape
    c1 = m.shape[1]
    nonzero_rows = [i for i in range(c2) if (target[i] != 0).any()]
    if not nonzero_rows:
        return True, {"gamma1": ["0"] * c1, "gamma2": ["0"] * c2}
    kept = [i * c0 + j for i in nonzero_rows for j in range(c0)]
    block = target_block(target)[kept][:, nonzero_rows]
    system = exact.fmpq_matrix(np.hstack([m.astype(object)[kept], -block]))
    basis = features.nullspace_basis(system)
    nullity = len(basis)
    dead = [i for position, i in enumerate(nonzero_rows) if all(vector[c1 + position] == 0 for vector in basis)]
    if dead:
        return False, {"rows_forced_to_zero": dead, "nullity": nullity}
    # A combination with every μ_i ≠ 0: coefficients 1, t, t², … avoid the finitely many bad t.
    for t in range(1, 2 + len(nonzero_rows) * max(1, nullity)):
        vector = [sum((basis[col][r] * flint.fmpq(t) ** col for col in range(nullity)), flint.fmpq(0))
                  for r in range(c1 + len(nonzero_rows))]
        if all(vector[c1 + position] != 0 for position in range(len(nonzero_rows))):
            gamma1 = [exact.fmpq_to_fraction(x) for x in vector[:c1]]
            gamma2 = [Fraction(0)] * c2
            for position, i in enumerate(nonzero_rows):
                gamma2[i] = 1 / exact.fmpq_to_fraction(vector[c1 + position])
            return True, {"gamma1": [str(g) for g in gamma1], "gamma2": [str(g) for g in gamma2]}
    raise AssertionError("no combination avoided the zero coordinates")


# --- instances: layers of every kind -----------------------------------------------------


@st.composite
def layer_instances(draw, extra_features: int, minimal: bool):
    """(W1, W2, target) with c0, c2 ≤ 3 and c1 = c0c2 (or c2(c0 − 1) + 1) + 0..extra, layers of
    every exact kind plus repeated rows (features with identical links)."""
    c0, c2 = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    c1 = (c2 * (c0 - 1) + 1 if minimal else c0 * c2) + draw(st.integers(0, extra_features))
    kinds = EXACT_KINDS
    w1 = draw(matrices(c1, c0, kinds=kinds))
    w2 = draw(matrices(c2, c1, kinds=kinds))
    if draw(st.booleans()):
        # Repeated features: copy a few rows of W1 (and the matching columns of W2's pattern).
        source = draw(st.integers(0, c1 - 1))
        w1 = w1.copy()
        w1[draw(st.integers(0, c1 - 1))] = w1[source]
    target = draw(matrices(c2, c0, kinds=("integer",)))
    return w1.astype(np.int64), w2.astype(np.int64), target.astype(np.int64)


def _full_rank(w: np.ndarray) -> bool:
    return exact.rank_exact(w) == min(w.shape)


def _classify(instance) -> list[str]:
    w1, w2, _ = instance
    labels = ["factors full rank" if _full_rank(w1) and _full_rank(w2) else "hypothesis fails (vacuous)"]
    if _full_rank(w1) and _full_rank(w2):
        m = features.feature_matrix(w1, w2)
        rank = exact.rank_exact(m)
        labels.append("M full row rank" if rank == m.shape[0] else "M rank deficient")
        entries = set(np.unique(np.concatenate([w1.ravel(), w2.ravel()])))
        labels.append("0/1 layers" if entries <= {0, 1} else "integer layers")
    return labels


def _describe(instance) -> dict:
    w1, w2, target = instance
    return {"W1": w1.tolist(), "W2": w2.tolist(), "target": target.tolist(),
            "M": features.feature_matrix(w1, w2).tolist(), "rank_M": exact.rank_exact(features.feature_matrix(w1, w2))}


def full_rank_factors(w1: np.ndarray, w2: np.ndarray) -> bool:
    """The printed hypothesis."""
    return _full_rank(w1) and _full_rank(w2)


def full_rank_linked_factors(w1: np.ndarray, w2: np.ndarray) -> bool:
    """A tempting repair: full rank and every feature has an input and an output link."""
    return full_rank_factors(w1, w2) and bool(w1.any(axis=1).all() and w2.any(axis=0).all())


def pseudo_inverse_property(admissible):
    def prop(instance) -> str | None:
        w1, w2, target = instance
        if not admissible(w1, w2):
            return None
        m = features.feature_matrix(w1, w2)
        _, residual = features.least_squares_exact(m, target.ravel())
        if residual != 0:
            return (f"c0 = {w1.shape[1]}, c1 = {w1.shape[0]}, c2 = {w2.shape[0]}: W1, W2 full rank but rank M = "
                    f"{exact.rank_exact(m)} < {m.shape[0]}; γ1 = M⁺v leaves loss {residual}")
        return None

    return prop


def gamma2_property(admissible):
    def prop(instance) -> str | None:
        w1, w2, target = instance
        if not admissible(w1, w2):
            return None
        reachable, why = reachable_with_gamma2(features.feature_matrix(w1, w2), target)
        if not reachable:
            return (f"c0 = {w1.shape[1]}, c1 = {w1.shape[0]}, c2 = {w2.shape[0]}: full-rank layers, "
                    f"yet no γ1, γ2 reach the target (target rows {why['rows_forced_to_zero']} forced to zero)")
        return None

    return prop


# Features whose links miss each other: W1 = [[1], [0]], W2 = [[0, 1]] are full rank, M = [0, 0].
DISJOINT = (np.array([[1], [0]]), np.array([[0, 1]]), np.array([[1]]))
# Repeated features: links (0,0), (0,0), (1,1), (1,1) give full-rank W1, W2 and rank M = 2 < 4.
REPEATED = (np.array([[1, 0], [1, 0], [0, 1], [0, 1]]), np.array([[1, 1, 0, 0], [0, 0, 1, 1]]),
            np.array([[1, 1], [1, 1]]))


def _searches(admissible, pinned_plain, pinned_gamma2) -> tuple[Check, Check]:
    return (property_search("γ2 = 1, γ1 = M⁺v reconstructs (printed hypotheses)", layer_instances(2, False),
                            pseudo_inverse_property(admissible),
                            space="c0, c2 ≤ 3, c1 = c0c2 + 0..2, integer/0-1/sparse/structured/"
                            "repeated-row layers, full rank decided exactly", classify=_classify, describe=_describe,
                            pinned=pinned_plain, part="γ2 = 1, c1 ≥ c0c2"),
            property_search("with γ2, c1 ≥ c2(c0 − 1) + 1 suffices (printed hypotheses)", layer_instances(2, True),
                            gamma2_property(admissible),
                            space="c0, c2 ≤ 3, c1 = c2(c0 − 1) + 1 + 0..2, layers of every exact kind",
                            classify=_classify, describe=_describe, pinned=pinned_gamma2, part="γ2 trained"))


register(Claim(
    id="randfeat2025.thm2_1",
    source=f"{SOURCE}, Sec. 2, Thm 2.1",
    hypotheses=("W⁽¹⁾, W⁽²⁾ full rank", "c1 ≥ c2c0 (γ⁽²⁾ = 1) or c1 ≥ c2(c0 − 1) + 1 (γ⁽²⁾ trained)"),
    checks=_searches(full_rank_factors, [DISJOINT, REPEATED], [DISJOINT]),
    broken=(Broken("repaired by also asking every feature to have an input and an output link — still not enough",
                   _searches(full_rank_linked_factors, [REPEATED], [REPEATED]),
                   refuted_by="the pinned repeated features (links (0,0),(0,0),(1,1),(1,1)), c0 = c2 = 2, c1 = 4: "
                              "rank M = 2"),),
    erratum=Erratum("as-printed", "full rank of W⁽¹⁾ and W⁽²⁾ does not make M full rank: W1 = [[1],[0]], W2 = [[0,1]] "
                    "(c0 = c2 = 1, c1 = 2) give M = 0, and no γ reaches w = 1. The cited sources and the paper's use "
                    "(random features) need W with iid continuous entries, where it holds almost surely.",
                    corrected=("randfeat2025.thm2_1.corrected",)),
    notes="The γ⁽²⁾ part's printed system (m_(ij)k = w_i'k w_kj − (w_ij/w_i'j) w_kji) is garbled; it is checked by its "
          "conclusion: some γ⁽¹⁾, γ⁽²⁾ reconstruct the target, decided exactly.",
))


# --- corrected: generic layers --------------------------------------------------------


def generic_check(name: str, features_for: callable, use_gamma2: bool, part: str) -> Check:
    """At iid random integer points in [−2^30, 2^30) (a continuous distribution's stand-in: the
    conditions are polynomial, so one exact success at a point proves them nonzero polynomials,
    hence true almost surely; Schwartz–Zippel), every size (c0, c2) reconstructs a random
    integer target exactly. Refutes on the first size where the exact decision fails."""

    def run(ctx: Context) -> Outcome:
        largest = ctx.by_profile(2, 3, 4, 5)
        rows = []
        for c0 in range(1, largest + 1):
            for c2 in range(1, largest + 1):
                rng = ctx.rng("generic", c0, c2)
                c1 = features_for(c0, c2)
                w1 = rng.integers(-(1 << 30), 1 << 30, size=(c1, c0), dtype=np.int64)
                w2 = rng.integers(-(1 << 30), 1 << 30, size=(c2, c1), dtype=np.int64)
                target = rng.integers(-9, 10, size=(c2, c0), dtype=np.int64)
                m = features.feature_matrix(w1.astype(object), w2.astype(object))
                if use_gamma2:
                    reachable, why = reachable_with_gamma2(m, target)
                else:
                    residual = features.least_squares_exact(m, target.ravel())[1]
                    reachable, why = residual == 0, {"residual": str(residual)}
                rows.append({"c0": c0, "c2": c2, "c1": c1, "reachable": reachable})
                if not reachable:
                    return Outcome(Verdict.REFUTED, f"c0 = {c0}, c2 = {c2}, c1 = {c1}: the random instance's target is "
                                   "unreachable (exactly), so the width does not suffice on a set of positive measure",
                                   {"sizes": rows}, counterexample={**rows[-1], **why, "target": target.tolist()})
        return Outcome(Verdict.CERTIFIED, f"{len(rows)} sizes up to c0 = c2 = {largest}: exact reconstruction at a "
                       "random integer point, so the solvability polynomials are nonzero and it holds almost surely",
                       {"sizes": rows, "points": "iid integers in [−2^30, 2^30)"})

    return Check(name, "certificate", run, part=part)


def generic_checks(plain_width: Callable[[int, int], int],
                   gamma2_width: Callable[[int, int], int]) -> tuple[Check, Check]:
    """The corrected claim's two widths c1(c0, c2): with γ⁽²⁾ = 1, and with γ⁽²⁾ trained."""
    return (generic_check("c1 = c0c2, γ1 = M⁺v (generic)", plain_width, False, "γ2 = 1"),
            generic_check("c1 = c2(c0 − 1) + 1 with γ2 (generic)", gamma2_width, True, "γ2 trained"))


def _plain_width(c0, c2):
    return c0 * c2


def _gamma2_width(c0, c2):
    return c2 * (c0 - 1) + 1


register(Claim(
    id="randfeat2025.thm2_1.corrected",
    variant_of="randfeat2025.thm2_1",
    label="Thm 2.1, generic layers",
    statement="For W⁽¹⁾, W⁽²⁾ with iid entries from a continuous distribution, almost surely: c1 = c0c2 features and "
              "γ⁽¹⁾ = M⁺v (γ⁽²⁾ = 1) reconstruct every target; with γ⁽²⁾ trained, c1 = c2(c0 − 1) + 1 suffice.",
    source=f"{SOURCE}, Sec. 2, Thm 2.1 (as the cited Giannou et al. 2023 and Burkholz 2024 state it)",
    hypotheses=("W⁽¹⁾, W⁽²⁾ iid continuous entries", "target arbitrary"),
    checks=generic_checks(_plain_width, _gamma2_width),
    broken=(Broken("one feature fewer in both widths (c0c2 − 1; c2(c0 − 1))",
                   generic_checks(lambda c0, c2: max(1, c0 * c2 - 1), lambda c0, c2: max(1, c2 * (c0 - 1))),
                   refuted_by="the sizes every profile visits: (c0, c2) = (1, 2) without γ2 (c1 = 1 feature for 2 "
                              "target entries) and (2, 1) with γ2 (c1 + c2 = 2 unknowns of a homogeneous 2×2 system, "
                              "nonsingular at the random point)"),),
))
