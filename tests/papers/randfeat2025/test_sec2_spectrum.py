"""Thm 2.2 engines: exact masses, CDFs and sampled spectra."""

import numpy as np
import sympy

from theorems.engine import resources
from theorems.engine.context import Context
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
    assert sp.RESCALED.factor(256, 128) == np.sqrt(2) and sp.UNSCALED.factor(256, 128) == 1.0
    assert values.size == 256 and a - 0.3 < values.min() and values.max() < b + 0.3



def test_large_profile_reaches_c0c2_of_ten_thousand_and_shrinks_to_fit_memory(monkeypatch):
    def widest(profile: str) -> int:
        return max(c0 * c2 for _, c0, c2, _ in sp._configurations(Context(profile, 1, "cpu")))

    monkeypatch.setattr(resources, "available_memory_bytes", lambda device: 64 << 30)
    assert widest("large") >= 10_000 > widest("thorough")
    monkeypatch.setattr(resources, "available_memory_bytes", lambda device: 3 << 29)  # 1.5 GiB
    with resources.measured("cpu") as usage:
        assert widest("large") < 10_000
    assert [(cap["wanted"], cap["used"]) for cap in usage["capped"]] == [(100, 75)]


def test_distance_verdict_separates_by_the_dkw_margin():
    assert sp.distance_verdict(0.02, 4000, 12)[0] == "supported"
    assert sp.distance_verdict(0.33, 4000, 12)[0] == "refuted"
    assert sp.distance_verdict(0.15, 4000, 12)[0] == "unresolved"
    assert sp.dkw_margin(4000, 1e-9) < sp.dkw_margin(1000, 1e-9)
