"""Thm 2.1 engines: exact reachability with γ⁽²⁾ against explicit solutions."""

import numpy as np

from theorems.maths import features
from theorems.papers.randfeat2025 import sec2_width as sw


def test_disjoint_and_repeated_features_are_unreachable_with_full_rank_layers():
    for w1, w2, target in (sw.DISJOINT, sw.REPEATED):
        assert sw.full_rank_factors(w1, w2)
        assert sw.reconstruction_failure(sw.full_rank_factors, sw._plain_width, False)((w1, w2, target)) is not None
        assert sw.reconstruction_failure(sw.full_rank_factors, sw._gamma2_width, True)((w1, w2, target)) is not None


def test_single_input_link_pairs_are_full_rank_and_lose_a_target_at_any_width():
    for use_gamma2, c0, c2 in ((False, 1, 3), (True, 2, 2)):
        for c1 in (c0 * c2, c0 * c2 + 1):
            w1, w2 = sw.single_input_link(c0, c2, c1)
            assert sw.full_rank_factors(w1, w2)
            assert sw.all_ones_failure(sw.full_rank_factors, use_gamma2)(w1, w2) is not None


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


def test_each_fixed_target_is_generic_at_the_minimal_width_and_one_feature_fewer_is_not():
    rng = np.random.default_rng(5)
    status, why = sw.every_target_generically(2, 2, 3, rng)
    assert status == "every target" and why["evaluation_ranks"] == [2, 2]
    assert sw.every_target_generically(2, 1, 1, rng)[0] == "unreachable"


def test_a_fixed_draw_misses_some_target_exactly_when_c0_and_c2_exceed_one_at_the_minimal_width():
    rng = np.random.default_rng(7)
    found, why = sw.some_target_unreachable(2, 2, 3, rng)
    assert found is True and why["exact_decision"]["rows_forced_to_zero"] == [0]
    assert sw.some_target_unreachable(1, 2, 1, rng)[0] is False
    assert sw.some_target_unreachable(3, 1, 3, rng)[0] is False


def test_at_the_interpolation_width_a_fixed_draw_reaches_every_target():
    rng = np.random.default_rng(8)
    assert sw.fixed_draw_decision(2, 2, 4, rng)[0] is False
    assert sw.loses_some_target_at_any_width(2, 2, 4) and not sw.loses_some_target(2, 2, 4)
    assert sw.fixed_draw_widths(2, 2) == [3, 4] and sw.fixed_draw_widths(1, 3) == [1, 3]


def test_zero_one_layer_pairs_are_the_feature_multisets():
    from math import comb
    pairs = list(sw.zero_one_layer_pairs(1, 2, 1))
    assert len(pairs) == comb(4 + 2 - 1, 2)
    assert any((w1 == [[0], [1]]).all() and (w2 == [[1, 0]]).all() for w1, w2 in pairs)


def test_deleted_row_minors_expand_the_target_determinant():
    w1, w2 = features.id_cond_minimal(2, 2)
    minors = sw.deleted_row_minors(features.feature_matrix(w1, w2), 2, 2, kept_block=0)
    assert len(minors) == 2
