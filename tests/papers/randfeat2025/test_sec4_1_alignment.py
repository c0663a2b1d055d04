"""Thm 4.1 engines: projections against the least-squares residual."""

import numpy as np

from theorems.maths import features
from theorems.papers.randfeat2025 import sec4_1_alignment as al


def test_complement_projection_equals_least_squares_and_last_r_does_not():
    rng = np.random.default_rng(0)
    for _ in range(20):
        w1 = rng.integers(-2, 3, size=(3, 2))
        w2 = rng.integers(-2, 3, size=(2, 3))
        v = rng.integers(-3, 4, size=4)
        m = features.feature_matrix(w1, w2)
        residual = float(features.least_squares_exact(m, v)[1])
        assert abs(al.projected_norm(m, v, al.last_n_minus_r) - residual) < 1e-8
    w1, w2, target = al.ONE
    assert al.alignment_property(al.last_r)((w1, w2, target)) is not None


def test_minimum_over_permutations_is_taken():
    m = features.feature_matrix(*features.id_cond(1, 2))[:, :1]  # only output 0 has a feature
    residual, perm = al.least_squares_over_permutations(m, np.array([[0], [5]]))
    assert residual == 0 and perm == (1, 0)


def test_exhaustive_instances_cover_every_rank():
    from theorems.engine.context import Context
    from theorems.maths import exact
    instances = al.exhaustive_instances(Context("ci", 1, "cpu"))
    assert {exact.rank_exact(features.feature_matrix(w1, w2)) for w1, w2, _ in instances} == {0, 1, 2}


def test_pinned_instances_past_the_sweep_separate_the_projections():
    identity, rank_one = al.PINNED_BEYOND
    assert al.alignment_property(al.last_n_minus_r)(identity) is None
    assert al.alignment_property(al.last_n_minus_r)(rank_one) is None
    assert al.alignment_property(al.first_r)(identity) is not None
    assert al.alignment_property(al.after_singular_values)(rank_one) is not None
    w1, w2, target = al.draw_beyond(np.random.default_rng(0))
    assert w1.shape[1] == target.shape[1] and w2.shape[0] == target.shape[0] and target.size > 2


def test_range_facts_residual_matches_least_squares_exact_and_is_shared_per_matrix():
    rng = np.random.default_rng(1)
    for _ in range(20):
        m = features.feature_matrix(rng.integers(-2, 3, size=(3, 2)), rng.integers(-2, 3, size=(2, 3)))
        v = rng.integers(-3, 4, size=4)
        assert al.least_squares_residual(m, v) == features.least_squares_exact(m, v)[1]
        assert al.least_squares_residual(m, v / 4) == features.least_squares_exact(m, v / 4)[1]
        facts = al.range_facts(m)
        assert facts.rank == np.linalg.matrix_rank(m)
        assert al.range_facts(m.copy()) is facts  # one computation per distinct M
    assert al.range_facts(np.zeros((2, 1), dtype=np.int64)).kappa == 1.0


def test_the_certificate_reduces_to_prefix_sums_and_only_the_complement_cancels():
    assert al.residual_difference(al.last_n_minus_r)()[0] == 0
    for wrong in (al.last_r, al.first_r, al.after_singular_values, al.from_r_minus_one):
        assert al.residual_difference(wrong)()[0] != 0
    lhs, rhs = al.diagonal_sides(al.last_n_minus_r)((3, 1, 2))  # M = diag(1, 0) in 3 × 2, v = (1, 2, 3)
    assert lhs == rhs == al.sympy.Matrix([[13]])
    assert al.diagonal_sides(al.from_r_minus_one)((1, 1, 1)) == (al.sympy.Matrix([[0]]), al.sympy.Matrix([[1]]))
