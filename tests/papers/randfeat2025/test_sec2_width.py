"""Thm 2.1 engines: exact reachability with γ⁽²⁾ against explicit solutions."""

import numpy as np

from theorems.maths import features
from theorems.papers.randfeat2025 import sec2_width as sw


def test_disjoint_and_repeated_features_are_unreachable_with_full_rank_layers():
    for w1, w2, target in (sw.DISJOINT, sw.REPEATED):
        assert sw.full_rank_factors(w1, w2)
        assert sw.pseudo_inverse_property(sw.full_rank_factors)((w1, w2, target)) is not None
        assert sw.gamma2_property(sw.full_rank_factors)((w1, w2, target)) is not None


def test_gamma2_witness_rebuilds_the_target():
    rng = np.random.default_rng(3)
    c0, c2 = 3, 2
    c1 = c2 * (c0 - 1) + 1
    w1 = rng.integers(-5, 6, size=(c1, c0))
    w2 = rng.integers(-5, 6, size=(c2, c1))
    target = rng.integers(1, 5, size=(c2, c0))
    reachable, witness = sw.reachable_with_gamma2(features.feature_matrix(w1, w2), target)
    assert reachable
    from fractions import Fraction
    gamma1 = np.array([Fraction(g) for g in witness["gamma1"]], dtype=object)
    gamma2 = np.array([Fraction(g) for g in witness["gamma2"]], dtype=object)
    assert (features.effective_weight(w1.astype(object), w2.astype(object), gamma1, gamma2) == target).all()


def test_zero_target_rows_need_no_scale():
    m = features.feature_matrix(*features.id_cond(2, 2))
    assert sw.reachable_with_gamma2(m, np.array([[0, 0], [1, 2]]))[0]


def test_zero_target_row_is_served_by_a_zero_scale():
    # c0 = 1, one feature, three outputs: any column is reachable with γ2, zeros included.
    m = np.array([[3], [5], [7]])
    reachable, witness = sw.reachable_with_gamma2(m, np.array([[2], [2], [0]]))
    assert reachable and witness["gamma2"][2] == "0"
