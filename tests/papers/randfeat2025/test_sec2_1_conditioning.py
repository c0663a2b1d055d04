"""Conditioning helpers: exact orthogonal layers, median intervals."""

from fractions import Fraction

import numpy as np
import pytest
import sympy

from theorems.papers.randfeat2025 import sec2_1_conditioning as cd


def test_rational_layers_are_orthogonal():
    w1, w2 = cd.rational_orthogonal_layers(2, 2, Fraction(1, 2))
    assert cd._multiple_of_identity(w1.T.dot(w1)) and cd._multiple_of_identity(w2.dot(w2.T))


def test_median_interval_covers_the_median_of_a_known_law():
    rng = np.random.default_rng(0)
    misses = sum(not (lo <= 0.0 <= hi) for lo, hi in (cd.median_interval(rng.standard_normal(25)) for _ in range(400)))
    assert misses < 40  # 95% coverage: about 20 misses expected


def test_gamma2_peak_is_below_the_interpolation_point():
    assert cd.gamma2_interpolation_point(6, 6) == 31 < cd.interpolation_point(6, 6)


def test_rational_semi_orthogonal_layers_are_orthonormal_along_the_shorter_side():
    for rows, cols in ((1, 3), (3, 1), (2, 4), (4, 2), (3, 3)):
        w = cd.semi_orthogonal_rational(rows, cols, Fraction(1, 2))
        short = w.dot(w.T) if rows <= cols else w.T.dot(w)
        assert (short == np.eye(min(rows, cols), dtype=object)).all()


def test_minimal_column_counterexample_and_the_threshold():
    truth, _, witness = cd.columns_orthogonal(1, 1, 2)
    assert truth is False and witness["MtM_entry"] == "-144/625"
    assert [list(row) for row in witness["W1"]] == [[Fraction(3, 5)], [Fraction(4, 5)]]
    assert cd.columns_orthogonal(2, 2, 4)[2]["MtM_entry"] == "43200/485809"
    assert cd.columns_orthogonal(2, 1, 2)[0] is True and cd.columns_orthogonal(1, 2, 2)[0] is True
    assert cd.columns_orthogonal(2, 2, 3)[0] is False


def test_column_gram_is_the_hadamard_product_not_the_matrix_product():
    assert cd.gram_identity_holds(2, 2, 4)
    lhs, rhs = cd.column_gram_sides(1, 1, 2, cd.matrix_product)
    assert any(entry.expand() != 0 for entry in lhs - rhs)


def test_block_witness_has_orthonormal_short_side_and_nonzero_long_side_entry():
    import sympy

    from theorems.papers.randfeat2025 import sec2_1_conditioning as sc
    size = sympy.Symbol("m", integer=True, positive=True)
    for identity, padding in ((0, 0), (size, 0), (size, size)):
        assert sc.general_witness(identity, padding, sc.PYTHAGOREAN_A) == (True, sympy.Rational(12, 25))
        assert sc.general_witness(identity, padding, sc.PYTHAGOREAN_B) == (True, sympy.Rational(-12, 25))


def test_block_witness_layers_are_orthogonal_with_a_nonzero_column_gram_entry():
    for c0, c2, c1 in ((1, 1, 2), (4, 4, 5), (2, 5, 6)):
        w1, w2 = cd.block_witness_layers(c0, c2, c1)
        assert (w1.T.dot(w1) == np.eye(c0, dtype=object)).all() and (w2.dot(w2.T) == np.eye(c2, dtype=object)).all()


def test_pinned_sizes_past_the_sweep_refute_each_wrong_threshold():
    from theorems.engine.context import Context
    from theorems.engine.vocabulary import Device

    ctx = Context("quick", 0, Device.CPU)
    assert cd.columns_beyond(cd.below(cd.max_width)).run(ctx).verdict.value == "supported"
    for wrong in (cd.everywhere, cd.below(cd.max_width_plus_one), cd.below(cd.min_width)):
        assert cd.columns_beyond(wrong).run(ctx).verdict.value == "refuted"


def test_batched_kappas_match_the_condition_number_and_the_paired_comparison_decides():
    from theorems.maths import features

    values = cd.kappas("er_sign", np.random.default_rng(4), 3, 9, 3, 5)
    again = np.random.default_rng(4)
    expected = [features.condition_number(features.feature_matrix(*features.random_layers("er_sign", again, 3, 9, 3)))
                for _ in range(5)]
    assert np.allclose(values, expected)
    rng = np.random.default_rng(5)
    big, small = rng.exponential(size=400) * 3, rng.exponential(size=400)
    assert cd.exceeds(big, small, 1e-9)["surely"] and cd.exceeds(small, big, 1e-9)["surely_not"]
    assert not cd.exceeds(small, rng.exponential(size=400), 1e-9)["surely"]


def test_scanned_comparisons_put_the_peak_above_every_width_and_the_grid_falling_away():
    kappa = {c1: np.empty(0) for c1 in (8, 12, 15, 16, 17, 20, 32)}
    pairs = cd._descent_comparisons(kappa, 16, [8, 12, 16, 20, 32])
    assert (16, 15) in pairs and (16, 17) in pairs and (12, 8) in pairs and (20, 32) in pairs
    assert cd.one_past_interpolation_point(4, 4) == 17


def test_the_excluded_case_c0_c2_1_has_no_peak_and_is_never_scanned():
    from theorems.engine.context import Context
    from theorems.engine.vocabulary import Device

    rng = np.random.default_rng(6)
    for family in cd.DENSE_FAMILIES:
        assert np.allclose([cd.kappas(family, rng, 1, c1, 1, 3) for c1 in (1, 2, 5)], 1.0)
    with pytest.raises(ValueError, match="one row"):
        cd.scan_family(Context("quick", 0, Device.CPU), "he_normal", 1, 1, 1, 10, 1)
    assert all(c0 * c2 >= 2 for c0, c2 in cd.descent_sizes(Context("large", 0, Device.CPU)))


def test_the_gram_certificate_evaluates_the_product_at_symbolic_sizes():
    from theorems.engine.context import Context
    from theorems.engine.vocabulary import Device

    ctx = Context("quick", 0, Device.CPU)
    assert cd.gram_identity_check(cd.hadamard).run(ctx).scope == "all"
    for wrong in (cd.matrix_product, cd.hadamard_square_of_first):
        assert cd.gram_identity_check(wrong).run(ctx).verdict.value == "refuted"
    x, y, n = sympy.symbols("x y n", integer=True)
    f = sympy.Function("f")
    assert cd.canonical_sums(sympy.Sum(f(x), (x, 0, n))) == cd.canonical_sums(sympy.Sum(f(y), (y, 0, n)))
    assert cd.canonical_sums(sympy.Sum(f(x), (x, 0, n))) != cd.canonical_sums(sympy.Sum(f(y), (y, 1, n)))
