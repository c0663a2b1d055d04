"""Engines of theorems/sparsification.py against brute-force oracles, and input validation."""

import itertools
import math
from dataclasses import replace
from fractions import Fraction

import flint
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from theorems.maths import exact, stats
from theorems.maths.khatri_rao import khatri_rao
from theorems.papers.giannou2023 import sec4_3_sparsity as sp

FAST = settings(max_examples=60, deadline=None, database=None, derandomize=True)


def all_matrices(rows, cols):
    for bits in itertools.product((0, 1), repeat=rows * cols):
        yield np.array(bits, dtype=np.int64).reshape(rows, cols)


def brute_probability(n, rho, event):
    """P(event) for iid Bern(rho) n×n, summing exact Fractions over every matrix."""
    total = Fraction(0)
    for m in all_matrices(n, n):
        if event(m):
            k = int(m.sum())
            total += rho**k * (1 - rho) ** (n * n - k)
    return total


def has_zero_row(m):
    return bool((m.sum(axis=1) == 0).any())


def has_zero_line(m):
    return has_zero_row(m) or bool((m.sum(axis=0) == 0).any())


# --- exact singularity decisions ---------------------------------------------------------


def test_singularity_certificate_matches_integer_determinant_on_all_3x3():
    for m in all_matrices(3, 3):
        singular, reason = sp.singularity_certificate(m)
        assert singular == (exact.fmpz_matrix(m).det() == 0), (m, reason)


@FAST
@given(st.integers(1, 9).flatmap(lambda n: hnp.arrays(np.int64, (n, n), elements=st.integers(0, 1))))
def test_singularity_certificate_matches_rank_over_q(m):
    singular, _ = sp.singularity_certificate(m)
    assert singular == (exact.rank_exact(m) < m.shape[0])


def test_singularity_certificate_reasons():
    assert sp.singularity_certificate(np.ones((4, 4), dtype=int)) == (True, "rank 1 over Q")
    assert sp.singularity_certificate(np.eye(4, dtype=bool))[0] is False
    assert "row 1 is zero" in sp.singularity_certificate(np.array([[1, 1], [0, 0]]))[1]
    # Two rows supported on one column: no zero line but no perfect matching.
    assert "perfect matching" in sp.singularity_certificate(np.array([[1, 0, 0], [1, 0, 0], [1, 1, 1]]))[1]


@pytest.mark.parametrize("n, total", [(1, 1), (2, 10), (3, 338), (4, 42976)])
def test_exhaustive_singular_counts_match_oeis_a046747(n, total):
    counts = sp.exhaustive_counts(n)
    assert sum(counts["singular"]) == total
    for event, per_weight in counts.items():
        assert all(c <= math.comb(n * n, k) for k, c in enumerate(per_weight)), event


# --- closed forms -----------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("rho", [Fraction(1, 3), Fraction(3, 4)])
def test_zero_line_closed_forms_against_brute_force(n, rho):
    assert sp.zero_row_probability(n, rho) == brute_probability(n, rho, has_zero_row)
    assert sp.zero_line_probability(n, rho) == brute_probability(n, rho, has_zero_line)


def test_zero_line_probability_in_ball_arithmetic_matches_fractions():
    rho = Fraction(1, 7)
    exact_value = sp.zero_line_probability(12, rho)
    with flint.ctx.workprec(sp.ARB_BITS):
        ball = sp.zero_line_probability(12, sp._ball(rho))
    assert abs(float(ball.mid()) - float(exact_value)) < 1e-15 and ball.rad() < 1e-40


def test_khatri_rao_zero_column_enumeration_against_scipy_and_formula():
    by_weight = [0] * 17
    for bits in itertools.product((0, 1), repeat=16):
        flat = np.array(bits, dtype=np.int64)
        product = khatri_rao(flat[:8].reshape(2, 4), flat[8:].reshape(2, 4))
        by_weight[int(flat.sum())] += int((product.sum(axis=0) == 0).any())
    assert tuple(by_weight) == sp.khatri_rao_zero_column_counts(2)
    p = Fraction(2, 5)
    assert sp._weight_polynomial(by_weight, 16, p) == sp.khatri_rao_zero_column_probability(2, p)


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("rho", [Fraction(1, 5), Fraction(2, 3), Fraction(1)])
def test_equal_rows_bound_is_below_the_exact_probability(n, rho):
    exact_value = sp._weight_polynomial(sp.exhaustive_counts(n)["singular, no zero row or column"], n * n, rho)
    assert sp.equal_rows_probability(n, rho) <= exact_value
    assert (sp.equal_rows_probability(n, rho) == 1) == (rho == 1)


def test_search_past_the_sweep_refutes_probability_one_and_only_then():
    from theorems.engine.context import Context
    from theorems.engine.verdicts import Verdict

    def outcome(statement):
        check = sp.beyond_sweep_singularity(statement)
        return check.run(Context("quick", 0, "cpu", "giannou2023.thm10", check.name))

    assert outcome(sp.THM10).verdict is Verdict.REFUTED  # the pinned n = 5 at ρ = 1
    assert outcome(sp.THM10_SPARSE).verdict is Verdict.SUPPORTED


def test_uniform_zero_row_bound_holds_below_exact_values():
    for a in (Fraction(1, 2), Fraction(1)):
        delta = sp.uniform_zero_row_bound(a)
        assert delta > 0.4
        for n in list(range(2, 300)) + [10**4, 10**6]:
            rho = float(a) * math.log(n) / n
            assert 1 - (1 - (1 - rho) ** n) ** n >= delta
    assert sp.uniform_zero_row_bound(2) == 0.0


def test_hypothesis_boundary_brackets_the_root():
    for n in (2, 3, 16, 1024):
        below, above = sp.hypothesis_boundary(n)
        assert below < above
        assert n * float(below) < math.log(1 / float(below)) + 1e-9
        assert n * float(above) >= math.log(1 / float(above)) - 1e-9


def test_density_condition_printed_fails_and_implication_holds():
    printed = sp.condition_statement(sp.PRINTED_CONDITION)
    implied = sp.condition_statement(sp.IMPLIED_CONDITION)
    assert printed((3, Fraction(3, 10))) is not None  # ρ ≥ log3/3 − loglog3 ≈ 0.272, but 3ρ < log(1/ρ)
    assert implied((3, Fraction(3, 10))) is None
    assert implied((16, Fraction(1, 5))) is None


# --- sparsified Khatri–Rao --------------------------------------------------------------


@pytest.mark.parametrize("d", [2, 3])
def test_critical_keep_probability_against_linear_scan(d):
    rng = np.random.default_rng(d)
    for _ in range(10):
        u_a, u_b = rng.random((d, d * d)), rng.random((d, d * d))
        critical, column_bound = sp.critical_keep_probability(u_a, u_b)
        values = np.unique(np.concatenate([u_a.ravel(), u_b.ravel()]))
        first_full = next(v for v in values if sp.khatri_rao_structurally_full(u_a <= v, u_b <= v))
        assert critical == first_full and column_bound <= critical


@pytest.mark.parametrize("d", [2, 3])
def test_mod_p_rank_agrees_with_perfect_matching(d):
    rng = np.random.default_rng(10 + d)
    for _ in range(30):
        p = rng.uniform(0.2, 0.9)
        mask_a, mask_b = rng.random((d, d * d)) < p, rng.random((d, d * d)) < p
        assert sp.sparsified_full_rank_mod_p(rng, mask_a, mask_b) == sp.khatri_rao_structurally_full(mask_a, mask_b)


def test_threshold_trials_are_reproducible_and_certified():
    first = sp.threshold_trials(7, 3, 12)
    sp.threshold_trial.cache_clear()
    second = sp.threshold_trials(7, 3, 12)
    assert np.array_equal(first.critical, second.critical)
    assert np.all(first.critical >= first.column_bound)


def test_necessary_keep_probability_brackets_target():
    for d in (2, 5, 32):
        below, above = sp.necessary_keep_probability(d)
        assert below < above
        zero_column = sp.khatri_rao_zero_column_probability  # exact in Fractions: the bracket is one ulp wide
        assert zero_column(d, Fraction(below)) > Fraction(1, d) > zero_column(d, Fraction(above))


def test_scaling_ball_matches_float():
    for d in (3, 10, 1000):
        for scaling in (sp.SQRT_SCALING, sp.LOG_SCALING):
            with flint.ctx.workprec(sp.ARB_BITS):
                assert abs(float(scaling.scale_ball(d).mid()) - scaling.scale(d)) < 1e-14


def test_singularity_sample_is_deterministic():
    a = sp.singularity_sample.__wrapped__(1, 12, 0.3, 20)
    b = sp.singularity_sample.__wrapped__(1, 12, 0.3, 20)
    assert a.counts == b.counts
    ones = sp.singularity_sample.__wrapped__(1, 5, 1.0, 20)
    assert ones.deterministic and ones.count("singular, no zero row or column") == 20


# --- validation -------------------------------------------------------------------------


@pytest.mark.parametrize("call, message", [
    (lambda: sp.bernoulli_matrix(np.random.default_rng(0), (3, 3), 1.5), "probability"),
    (lambda: sp.bernoulli_matrix(np.random.default_rng(0), (3, 3), float("nan")), "probability"),
    (lambda: sp.bernoulli_matrix(np.random.default_rng(0), (0, 3), 0.5), "positive integer"),
    (lambda: sp.singularity_certificate(np.ones((2, 3), dtype=int)), "square"),
    (lambda: sp.singularity_certificate(np.eye(2)), "dtype"),
    (lambda: sp.singularity_certificate(2 * np.eye(2, dtype=int)), "0/1"),
    (lambda: sp.zero_row_probability(0, 0.5), "positive integer"),
    (lambda: sp.zero_line_probability(3, -0.1), "probability"),
    (lambda: sp.khatri_rao_zero_column_probability(2, 2), "probability"),
    (lambda: sp.exhaustive_counts(5), "n ≤ 4"),
    (lambda: sp.khatri_rao_zero_column_counts(3), "d ≤ 2"),
    (lambda: sp.critical_keep_probability(np.zeros((2, 4)), np.zeros((2, 3))), "d×d²"),
    (lambda: sp.critical_keep_probability(np.full((2, 4), np.nan), np.zeros((2, 4))), "NaN"),
    (lambda: sp.necessary_keep_probability(1), "d ≥ 2"),
    (lambda: sp.uniform_zero_row_bound(0), "positive"),
    (lambda: sp.SingularityStatement("invertible", ()), "event"),
])
def test_bad_input_raises_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_density_pins_separate_the_printed_and_the_implied_conditions():
    printed, implied = sp.condition_statement(sp.PRINTED_CONDITION), sp.condition_statement(sp.IMPLIED_CONDITION)
    assert printed(sp.DENSITY_PINNED[0]) is not None  # ρ = 10⁻⁴: the printed equivalence fails
    assert all(implied(point) is None for point in sp.DENSITY_PINNED)


def test_large_threshold_study_reaches_d45_on_cpu_and_d64_on_cuda(monkeypatch):
    from theorems.engine import resources
    from theorems.engine.context import Context

    monkeypatch.setattr(resources, "available_memory_bytes", lambda device: 1 << 40)
    assert sp.threshold_sizes(Context("thorough", 0, "cpu"))[-1] == 32
    assert sp.threshold_sizes(Context("large", 0, "cpu"))[-1] == 45
    assert sp.threshold_sizes(Context("large", 0, "cuda"))[-1] == 64
    assert sp.threshold_trial_count(Context("large", 0, "cpu"), 64) == 67  # (1 − 1/64)-quantile below the maximum
    monkeypatch.setattr(resources, "available_memory_bytes", lambda device: 2 * sp.CERTIFICATE_BYTES_PER_ENTRY * 32**4)
    with resources.measured("cpu") as usage:
        assert sp.threshold_sizes(Context("large", 0, "cuda", "giannou2023.thm11", "threshold study"))[-1] == 32
    assert [(cap["wanted"], cap["used"]) for cap in usage["capped"]] == [(64, 32)]


def _zero_column_critical_values(rng: np.random.Generator, d: int, trials: int) -> np.ndarray:
    """Synthetic critical keep-probabilities with the exact zero-column law P(critical ≤ p) =
    (1 − (1−p)^d)^(2d²), the law the real ones follow from d ≈ 6 on (inverse-CDF sampling)."""
    return 1 - (1 - rng.random(trials) ** (1 / (2 * d * d))) ** (1 / d)


def _supported_rates(profile: str, replicates: int) -> tuple[float, float, float]:
    """The share of synthetic data sets of the ``profile``'s size (its d and trial counts) for
    which the threshold study says "supported": for log d/d (remark3) and √(log d/d) (thm11)
    under the bootstrap rule, and for log d/d under the rule it replaced (t interval reaching 1)."""
    from theorems.engine.context import Context

    ctx = Context(profile, 0, "cpu")
    ds = [d for d in sp.threshold_sizes(ctx) if d >= 3]
    rng = np.random.default_rng(27)
    log_supported = sqrt_supported = old_rule_supported = 0
    for replicate in range(replicates):
        studies = [sp.ThresholdTrials(d, critical := _zero_column_critical_values(
            rng, d, sp.threshold_trial_count(ctx, d)), critical, 0) for d in ds]
        exponent = sp.threshold_fit(replicate, studies, sp.LOG_SCALING).exponent
        log_supported += sp.scaling_verdict(exponent.low, exponent.high)[0] is sp.Verdict.SUPPORTED
        # log √f = ½ log f: the √(log d/d) exponent and its interval are twice log d/d's.
        sqrt_supported += sp.scaling_verdict(2 * exponent.low, 2 * exponent.high)[0] is sp.Verdict.SUPPORTED
        points = [float(sp.threshold_estimates(data.critical, data.d)) for data in studies]
        old_fit = stats.fit_power_law(np.array([sp.LOG_SCALING.scale(d) for d in ds]), np.array(points))
        old_rule_supported += bool(old_fit.exponent.high >= 1)
    return log_supported / replicates, sqrt_supported / replicates, old_rule_supported / replicates


def test_threshold_rule_does_not_support_more_on_less_data():
    """Issue 27/29: the rule said "supported" more often the less data it had. On data with the
    exact zero-column law (the needed constant for log d/d grows over these d, the one for
    √(log d/d) falls), the bootstrap rule supports log d/d at neither size and supports
    √(log d/d) at the quick size no more often than at the ci size; the old rule fails the
    same comparison (its support for log d/d falls as data grow)."""
    quick, ci = _supported_rates("quick", 60), _supported_rates("ci", 60)
    assert quick[0] <= 0.05 and ci[0] <= 0.05, (quick, ci)
    assert quick[1] <= ci[1], (quick, ci)
    assert quick[2] > ci[2] + 0.3, (quick, ci)


def test_density_threshold_margin_is_log_log_n_and_the_dropped_hypothesis_fails_at_two():
    assert sp.margin_at_threshold(sp.IMPLIED_CONDITION, 3) > 0
    assert sp.threshold_counterexample(sp.IMPLIED_CONDITION, 3) is None
    found = sp.threshold_counterexample(replace(sp.IMPLIED_CONDITION, n_min=2), 2)
    assert found is not None and found["n"] == 2
    n = sympy.Symbol("n", positive=True)
    assert sp.log_of(n) == sympy.log(n) and sp.log_of(3).contains(flint.arb(3).log())


@pytest.mark.parametrize("trials, bound", [(50, 0.2), (500, 0.232), (40, 0.999)])
def test_refutation_threshold_is_the_first_refuting_count(trials, bound):
    refutes = [stats.clopper_pearson_lower(k, trials, 1 - stats.FALSE_ALARM) > bound for k in range(trials + 1)]
    expected = refutes.index(True) if any(refutes) else None
    assert sp.refutation_threshold(trials, bound) == expected


def test_worst_density_scans_the_whole_range_and_refines_inside_it():
    plan = sp.DensityScan((6,), coarse=5, refine=3, scan_trials=20, confirm_trials=20)
    rho, scanned = sp.worst_density(0, 6, sp.THM10_SPARSE, plan)
    rhos = [r for r, _ in scanned]
    assert len(scanned) == 8 and min(rhos) == float(sp.hypothesis_boundary(6)[1]) and max(rhos) == 0.5
    assert rho in rhos and max(p for _, p in scanned) == dict(scanned)[rho]
    # with ρ = 1 allowed the grid's end is the all-ones matrix, always in the event
    assert sp.worst_density(0, 6, sp.THM10, plan)[0] == 1.0
