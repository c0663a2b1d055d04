"""Thm 2.2 engines: exact masses, CDFs and sampled spectra."""

import numpy as np
import sympy

from theorems.papers.randfeat2025 import sec2_spectrum as sp


def test_exact_masses():
    assert sp.exact_mass(sp.PRINTED, sympy.Integer(1)) == sympy.Rational(1, 2)
    assert sp.exact_mass(sp.CORRECTED, sympy.Integer(4)) == 1
    assert sp.exact_mass(sp.PRINTED_NORMALIZER, sympy.Integer(4)) == sympy.Rational(1, 4)


def test_cdf_reaches_the_mass():
    assert abs(sp.cdf(sp.CORRECTED, 1.5)(10.0) - 1) < 1e-6 and abs(sp.cdf(sp.CORRECTED, 1.0)(10.0) - 1) < 1e-6
    assert abs(sp.cdf(sp.PRINTED, 1.0)(10.0) - 0.5) < 1e-6


def test_scaled_singular_values_fill_the_corrected_support():
    rng = np.random.default_rng(0)
    values = sp.sample_singular_values(rng, "gaussian", 16, 16, 384, 1)
    a, b = sp.CORRECTED.edges(1.5)
    assert values.size == 256 and a - 0.3 < values.min() and values.max() < b + 0.3
