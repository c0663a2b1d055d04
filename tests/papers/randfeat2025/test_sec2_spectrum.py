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


def test_factor_laws_are_centred_with_unit_variance_and_their_stated_fourth_moment():
    rng = np.random.default_rng(1)
    for name, law in sp.FACTORS.items():
        w = law.draw(rng, (400_000,))
        assert abs(w.mean()) < 0.01 and abs(w.var() - 1) < 0.02, name
        if name != "heavy-tailed (Pareto, α = 4.5)":  # its fourth moment converges too slowly to test this way
            assert abs((w**4).mean() / law.fourth_moment - 1) < 0.05, name


def test_zero_singular_values_are_dropped():
    rng = np.random.default_rng(2)
    w1, w2 = rng.standard_normal((6, 3)), rng.standard_normal((3, 6))
    w1[0] = 0  # feature 0 has no input: a zero column of M
    spectrum = np.linalg.svd(sp.features.feature_matrix(w1, w2), compute_uv=False)
    assert sp.nonzero(sp.features.feature_singular_values(w1, w2), 9).size == 5 == sp.nonzero(spectrum, 9).size
    values = sp.sample_singular_values(rng, "sparse sign (¼ kept, rescaled)", 4, 4, 16, 20)
    assert values.size < 20 * 16 and values.min() > 1e-6


def test_second_moment_is_lambda_for_the_corrected_density_and_mean_squares_estimate_it():
    for lam in (1.0, 1.5, 2.0):
        assert abs(sp.second_moment(sp.CORRECTED, lam) - lam) < 1e-6
    assert abs(sp.second_moment(sp.CORRECTED, 1.1 * 1.5) - 1.65) < 1e-6
    rng = np.random.default_rng(3)
    for c1 in (96, 32):  # both sides of c0c2 = 64
        scale = sp.RESCALED.factor(64, c1)
        values = sp.mean_squares(rng, "gaussian", 8, 8, c1, 4000, scale)
        lam = sp.ASPECT.ratio(64, c1)
        assert abs(values.mean() / lam - 1) < 0.01
        assert abs(values.var() / lam**2 / sp.relative_variance("gaussian", 8, 8, c1) - 1) < 0.1


def test_the_mean_square_check_refutes_lambda_off_by_ten_percent():
    ctx = Context("quick", 5, "cpu")
    pinned = (sp.WIDE_PINNED,)
    assert sp.moment_check(sp.CORRECTED, sp.RESCALED, sp.ASPECT, pinned).run(ctx).verdict.value == "supported"
    near_miss = sp.moment_check(sp.CORRECTED, sp.RESCALED, sp.ASPECT_10_PERCENT_HIGH, pinned)
    assert near_miss.run(ctx).verdict.value == "refuted"
