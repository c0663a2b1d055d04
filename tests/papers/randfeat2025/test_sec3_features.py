"""ID cond / minimal ID cond / Ortho cond engines against oracles."""

import itertools

import numpy as np

from theorems.maths import features
from theorems.papers.randfeat2025 import sec3_features as sf


def test_row_major_index_builds_id_cond_and_stride_c2_does_not():
    for c0, c2 in [(1, 1), (2, 3), (3, 2)]:
        w1, w2 = sf.id_cond_from_index(c0, c2, sf.row_major)
        assert (w1 == features.id_cond(c0, c2)[0]).all() and (w2 == features.id_cond(c0, c2)[1]).all()
        assert sf.one_link_per_feature(w1, w2) is None
    w1, w2 = sf.id_cond_from_index(1, 2, sf.stride_c2)
    assert features.feature_matrix(w1, w2).shape == (2, 3)


def test_minimal_reconstruction_matches_groebner_on_all_small_targets():
    for entries in itertools.product((0, 1, 2), repeat=4):
        target = np.array(entries).reshape(2, 2)
        found = sf.minimal_reconstruction(target)
        assert isinstance(found, str) == sf.groebner_unreachable(target), target
        assert isinstance(found, str) != sf.zero_free_first_column(target)


def test_antidiagonal_is_the_printed_counterexample():
    assert "forces γ2_0 = 0" in sf.minimal_reconstruction(sf.ANTIDIAGONAL)
    assert sf.reconstruction_property(lambda t: True)(sf.ANTIDIAGONAL) is not None
    assert sf.reconstruction_property(sf.zero_free_first_column)(sf.ANTIDIAGONAL) is None


def test_unit_rows_factor_is_not_orthogonal():
    rng = np.random.default_rng(0)
    u = sf._unit_rows_factor(rng, 3)
    assert all(sum(x * x for x in row) == 1 for row in u)
    assert u[0].dot(u[1]) != 0


def test_flattening_residual_is_zero_only_for_row_major():
    assert sf.flattening_residual(sf.row_major) == 0
    assert sf.flattening_residual(sf.stride_c2) != 0
