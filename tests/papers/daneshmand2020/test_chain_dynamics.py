"""Unit tests for theorems/markov_dynamics.py: the exact engines against brute-force oracles,
the float engines against independent computations, input validation, and the paper's
counterexamples reproduced by hand."""

from fractions import Fraction

import flint
import numpy as np
import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from theorems.engine.context import Context
from theorems.engine.verdicts import Verdict
from theorems.maths import exact
from theorems.maths.bn_chain import gram
from theorems.papers.daneshmand2020 import chain_dynamics as md
from theorems.papers.daneshmand2020 import rank_algebra as ma

CTX = Context("ci", 7, "cpu", "daneshmand2020.test", "test")
DETERMINISTIC = settings(max_examples=40, deadline=None, database=None, derandomize=True)


def test_bound_comparison_is_exact_at_equality():
    bound = md.DeltaBound(linear_sq=4)  # 2·d·Bγ + 3d²B²γ² = 5 at d = B = γ = 1
    one = flint.fmpq(1)
    assert not md.bound_exceeded(bound, flint.fmpq(5), 1, one, one)
    assert not md.bound_exceeded(bound, flint.fmpq(-5), 1, one, one)
    assert md.bound_exceeded(bound, flint.fmpq(5) + flint.fmpq(1, 10**30), 1, one, one)
    irrational = md.DeltaBound()  # 2√3 + 3 = 6.4641016151377545870548926830117447…
    assert md.bound_exceeded(irrational, flint.fmpq(64641016151377545870548926830117448, 10**34), 1, one, one)
    assert not md.bound_exceeded(irrational, flint.fmpq(64641016151377545870548926830117447, 10**34), 1, one, one)


def test_lemma20_bound_is_attained():
    assert md.sharpness_witness(md.DeltaBound(), 2) == 1 and md.sharpness_witness(md.DeltaBound(), 3) == 1


def test_lemma20_as_printed_fails_at_a_negative_step_and_off_the_sphere():
    """The two hypotheses the paper does not print, each broken by an exact case: γ = −1/2 with H = [1] ∈ 𝓗
    (ΔM = −3/4, the bound 3/4 − √3 < 0) and H = [10] ∉ 𝓗 at γ = 1 (ΔM = 300)."""
    assert md.NEGATIVE_STEP_CASE.delta() == flint.fmpq(-3, 4) and md.OFF_SPHERE_CASE.delta() == 300
    printed = md.delta_bound_failure(md.DeltaBound(), md.LEMMA20_PRINTED_HYPOTHESES)
    corrected = md.delta_bound_failure(md.DeltaBound(), md.LEMMA20_HYPOTHESES)
    for case in (md.NEGATIVE_STEP_CASE, md.OFF_SPHERE_CASE):
        assert printed(case) is not None and corrected(case) is None  # outside the corrected hypotheses
    assert not any(printed(case) for case in md.WITNESS_CASES)


# --- Lemma 21 ---------------------------------------------------------------------------


def test_sphere_points_are_exact():
    for t in ([2, 1], [0, 0, 0], [1, -3, 2, 5]):
        assert sum(x * x for x in md.sphere_point(t)) == len(t)


def test_lemma21_linear_step_returns_the_same_matrix():
    start = _start("linear 1·x", [Fraction(7, 5), Fraction(1, 5)], [[Fraction(433, 250), -1], [1, Fraction(-433, 250)]])
    assert md.lemma21_printed(start, md.paper_step_size) is None
    assert md.lemma21_corrected(start, md.paper_step_size) is None
    assert md.lemma21_corrected(start, md.misread_step_size) is not None  # γ = 8/(Bd): a sign flips


# --- Prop. 8 -----------------------------------------------------------------------------


@DETERMINISTIC
@given(md.rank_one_heads())
def test_autograd_gradients_match_the_closed_form(example):
    features = md.ACTIVATIONS_PROP8[example.activation](torch.tensor(example.preactivation(), dtype=torch.float64))
    residual = (torch.tensor(example.head, dtype=torch.float64) @ features
                - torch.tensor(example.targets, dtype=torch.float64))
    expected = torch.einsum("ki,hi->ikh", residual, features)  # (∇ℓ_i)_k F(Ĥ_i)
    assert torch.equal(md.per_example_gradients(example), expected)


def test_relu_rank_bound_of_the_corrected_claim():
    mixed = md.RankOneHead("relu", (1, -1), (1, -1), ((1, 1),), ((0, 0),))
    assert md.corrected_alignment(md.SignClass.of(mixed)) == 2
    assert md.prop8_features_statement(md.printed_alignment)(mixed) is not None
    assert md.prop8_features_statement(md.corrected_alignment)(mixed) is None


@DETERMINISTIC
@given(st.integers(1, 4), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_exact_delta_m_matches_gram_difference(d, n, seed):
    rng = np.random.default_rng(seed)
    t, s = rng.standard_normal((d, n)), rng.uniform(-1, 1, (d, n))
    w, gamma, b = rng.uniform(-1.7, 1.7, (d, d)), 0.3, 1.5
    u = md.unit_rows_exact(t)
    assert all(ma.frobenius_sq(exact.fmpq_matrix([[u[i, j] for j in range(n)]])) == 1 for i in range(d))
    h = np.sqrt(n) * md.unit_rows_torch(torch.tensor(t)).numpy()
    expected = gram(torch.tensor(h + gamma * w @ (b * h * s))) - gram(torch.tensor(h))
    exact_delta = md.delta_m_exact(u, exact.fmpq_matrix(s), exact.fmpq_matrix(w), exact.to_fmpq(gamma),
                                   exact.to_fmpq(b))
    numeric = np.array([[float(exact.fmpq_to_fraction(x)) for x in row] for row in exact_delta.tolist()])
    assert np.allclose(numeric, expected.numpy(), atol=1e-10)


def _start(activation_name: str, v, weights) -> md.RankOneStart:
    activation = next(a for a in md.RATIONAL_ODD_ACTIVATIONS if a.name == activation_name)
    return md.RankOneStart(activation, (1, 1), tuple(exact.to_fmpq(x) for x in v), exact.fmpq_matrix(weights))


def test_lemma21_minimal_counterexample_by_hand():
    """H = [[7/5, 1/5], [7/5, 1/5]] ∈ 𝓗, F = hardtanh: F(v) = (1, 1/5) is not ∥ v, so one step
    with W = [[1, 0], [0, 0]] gives a rank-two H_γ (det = −2γ/25)."""
    start = _start("hardtanh", [Fraction(7, 5), Fraction(1, 5)], [[1, 0], [0, 0]])
    _, h_gamma = md.one_step_exact(start, md.paper_step_size)
    assert h_gamma.det() == -2 * exact.to_fmpq(md.paper_step_size(Fraction(1), 2)) / 25
    assert md.lemma21_printed(start, md.paper_step_size).startswith("rank(H_k+1) = 2")


def test_corner_witness_is_within_the_bound_and_beats_smaller_ones():
    for case in md.WITNESS_CASES:
        d = len(case.rows)
        x = md.NEAR_CORNER * case.gamma * case.slope * d  # ΔM = ssᵀ(2x + x²), s_0 s_(d−1) = (−1)^(d−1)
        assert case.delta() == exact.to_fmpq((-1) ** (d - 1) * (2 * x + x * x))
        for bound, exceeded in ((md.DeltaBound(), False), (md.DeltaBound(quadratic_power=1), True),
                                (md.DeltaBound(linear_sq=8), True)):
            decide = md.delta_bound_failure(bound, md.LEMMA20_HYPOTHESES)
            assert (decide(case) is not None) is exceeded


@pytest.mark.parametrize("rank_growing, row_flipping", [(md.RANK_GROWING_START, md.ROW_FLIPPING_START),
                                                        (md.RANK_GROWING_BEYOND, md.ROW_FLIPPING_BEYOND)])
def test_pinned_rank_one_starts_refute_what_they_are_pinned_for(rank_growing, row_flipping):
    paper, loose = md.paper_step_size, md.misread_step_size
    assert md.lemma21_printed(rank_growing, paper).startswith("rank(H_k+1) = 2")
    assert md.lemma21_corrected(row_flipping, paper) is None
    assert md.lemma21_corrected(row_flipping, loose) is not None
    assert md.parallel_under(row_flipping.activation, row_flipping.direction)
    assert not md.parallel_under(rank_growing.activation, rank_growing.direction)


def test_pinned_starts_past_the_sweep_are_past_it():
    for start in (md.RANK_GROWING_BEYOND, md.ROW_FLIPPING_BEYOND):
        assert max(len(start.signs), len(start.direction)) >= md.RANK_ONE_BEYOND[0]


def test_drawn_rank_one_starts_are_past_the_sweep_and_respect_the_premise():
    draw = md.draw_rank_one_start(premise_only=True)
    rng = np.random.default_rng(0)
    for start in (draw(rng) for _ in range(50)):
        d, n = len(start.signs), len(start.direction)
        assert max(d, n) >= md.RANK_ONE_BEYOND[0] and max(d, n) <= md.RANK_ONE_BEYOND[1]
        assert sum(x * x for x in start.direction) == n
        assert md.parallel_under(start.activation, start.direction)


# --- exhaustive sweeps -----------------------------------------------------------------


def test_sweep_starts_are_rank_one_points_of_the_space_and_respect_the_premise():
    starts = md.rank_one_sweep_starts(2, 2, premise_only=True)
    assert all(sum(x * x for x in s.direction) == len(s.direction) for s in starts)
    assert all(md.parallel_under(s.activation, s.direction) for s in starts)
    assert all(abs(x) == exact.to_fmpq(ma.NEAR_CORNER) for s in starts for x in s.weights.entries())
    everything = md.rank_one_sweep_starts(2, 2, premise_only=False)
    assert len(everything) > len(starts)
    assert (len(everything[0].signs), len(everything[0].direction)) == (1, 1)  # smallest first


def test_sign_flip_reduction_of_the_sweep():
    """The sweep fixes s = 1: a start (s, W) decides as (1, SWS) does, S = diag(s), for every
    predicate and F, including the counterexamples (rank growth, row flips)."""
    corner = exact.to_fmpq(ma.NEAR_CORNER)
    for activation in md.SWEEP_ACTIVATIONS:
        for signs in ([1, -1], [-1, 1, -1]):
            d = len(signs)
            s = ma.diagonal_matrix([flint.fmpq(x) for x in signs])
            for pattern in ([1, -1, 1, 1, -1, 1, 1, 1, -1][: d * d], [1] * (d * d)):
                w = corner * exact.fmpq_matrix(np.reshape(pattern, (d, d)))
                direction = tuple(md.sphere_point([1, 2]))
                for step_size in (md.paper_step_size, md.misread_step_size):
                    for predicate in (md.lemma21_printed, md.lemma21_corrected):
                        flipped = predicate(md.RankOneStart(activation, tuple(signs), direction, w), step_size)
                        reduced = predicate(md.RankOneStart(activation, (1,) * d, direction, s * w * s), step_size)
                        assert (flipped is None) == (reduced is None)


def test_sign_pattern_heads_cover_every_nonzero_pattern():
    heads = md.sign_pattern_heads(2, 2)
    assert len(heads) == 2 * sum((3**a - 1) * (3**b - 1) for a in (1, 2) for b in (1, 2))
    first_failure = next(h for h in heads if md.prop8_features_statement(md.printed_alignment)(h) is not None)
    assert first_failure.preactivation().tolist() == [[1, -1], [-1, 1]] and first_failure.activation == "relu"


def test_drawn_sign_patterns_are_past_the_sweep():
    (swept_rows, swept_cols), (rows, cols) = md.PROP8_BEYOND
    rng = np.random.default_rng(0)
    for head in (md.draw_sign_pattern_head(rng) for _ in range(100)):
        d_h, n = len(head.u), len(head.w)
        assert (d_h > swept_rows or n > swept_cols) and d_h <= rows and n <= cols and any(head.u) and any(head.w)


def test_numpy_and_torch_relu_agree():
    x = np.array([[-2, 0, 3]])
    assert md.ACTIVATIONS_PROP8["relu"](x).tolist() == [[0, 0, 3]]
    assert torch.equal(md.ACTIVATIONS_PROP8["relu"](torch.tensor(x, dtype=torch.float64)),
                       torch.relu(torch.tensor(x, dtype=torch.float64)))


@DETERMINISTIC
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=4).filter(any),
       st.lists(st.integers(-3, 3), min_size=1, max_size=5).filter(any), st.sampled_from(sorted(md.ACTIVATIONS_PROP8)))
def test_rank_of_features_depends_only_on_the_signs(u, w, activation):
    """Why the sign-pattern sweep of Prop. 8 covers every rank-one Ĥ up to its sizes."""
    f = md.ACTIVATIONS_PROP8[activation]
    assert exact.rank_exact(f(np.outer(u, w))) == exact.rank_exact(f(np.outer(np.sign(u), np.sign(w))))


# --- certificates -------------------------------------------------------------------------


@pytest.mark.parametrize("bound, proved", [
    (md.DeltaBound(), True), (md.DeltaBound(quadratic_power=3), True), (md.DeltaBound(linear_sq=11), False),
    (md.DeltaBound(quadratic=2), False), (md.DeltaBound(quadratic_power=1), False),
])
def test_delta_certificate_proves_exactly_the_bounds_that_hold(bound, proved):
    outcome = md.lemma20_certificate(bound, md.LEMMA20_HYPOTHESES).run(CTX)
    assert (outcome.verdict is Verdict.CERTIFIED) is proved
    assert outcome.evidence["rewriting_equals_target"] is True


@pytest.mark.parametrize("dropped", [md.GAMMA_NONNEGATIVE, md.ROWS_OF_NORM_SQRT_N, md.W_IN_SUPPORT, md.K_ENTRY_BOUND])
def test_delta_certificate_needs_each_hypothesis(dropped):
    kept = tuple(h for h in md.LEMMA20_HYPOTHESES if h != dropped)
    assert md.lemma20_certificate(md.DeltaBound(), kept).run(CTX).verdict is not Verdict.CERTIFIED


@pytest.mark.parametrize("step_size, margin", [
    (md.paper_step_size, 1 - sympy.sqrt(3) / 8), (md.dropped_eighth_step_size, 1 - sympy.sqrt(3)),
    (md.misread_step_size, 1 - 8 * sympy.sqrt(3)),
])
def test_row_factor_certificate_is_the_margin_of_the_step(step_size, margin):
    outcome = md.lemma21_certificate(step_size, md.LEMMA21_HYPOTHESES).run(CTX)
    assert sympy.sympify(outcome.evidence["margin_at_the_largest_step"]) == margin
    assert (outcome.verdict is Verdict.CERTIFIED) is bool(margin > 0)


def test_row_factor_certificate_needs_a_nonnegative_step():
    """γ ≤ 1/(8Bd) alone admits γ < 0, where the factor's bound is 1 − |γ|Σ|c||W|, not 1 − γΣ: unproved, and the
    pinned starts (γ = 1/(8Bd) ≥ 0) hold, so the check is inconclusive."""
    kept = tuple(h for h in md.LEMMA21_HYPOTHESES if h != md.GAMMA_NONNEGATIVE)
    assert md.lemma21_certificate(md.paper_step_size, kept).run(CTX).verdict is Verdict.INCONCLUSIVE


def test_relu_split_and_term_counts_match_exact_ranks():
    a, b = sympy.symbols("a b", positive=True)
    assert all(sympy.simplify(md.relu_splits(sa * a, sb * b)) == 0 for sa, sb in md.SIGN_CASES)
    for activation in sorted(md.ACTIVATIONS_PROP8):
        for u in md.SIGN_SETS:
            for w in md.SIGN_SETS:
                signs = md.SignClass(activation, u, w)
                head = signs.representative()
                assert md.SignClass.of(head) == signs
                features = md.ACTIVATIONS_PROP8[activation](head.preactivation())
                assert exact.rank_exact(features) == md.outer_product_terms(signs)
