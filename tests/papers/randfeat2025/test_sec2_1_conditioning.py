"""Conditioning helpers: exact orthogonal layers, median intervals."""

from fractions import Fraction

import numpy as np

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
