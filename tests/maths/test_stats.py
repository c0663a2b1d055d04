import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from theorems.maths import stats


def test_clopper_pearson_zero_successes_matches_closed_form():
    interval = stats.clopper_pearson(0, 10, 0.95)
    assert interval.low == 0
    assert interval.high == pytest.approx(1 - 0.025 ** (1 / 10))


def test_clopper_pearson_rejects_impossible_counts():
    with pytest.raises(ValueError):
        stats.clopper_pearson(11, 10)


def test_batch_means_covers_the_mean_of_a_correlated_chain():
    rng = np.random.default_rng(1)
    noise = rng.standard_normal(20000)
    chain = np.empty_like(noise)
    chain[0] = 0
    for t in range(1, noise.size):  # AR(1) with mean 0: naive iid intervals are too narrow
        chain[t] = 0.9 * chain[t - 1] + noise[t]
    interval = stats.batch_means(chain, batches=20, confidence=0.999)
    assert interval.low < 0 < interval.high


def test_fit_power_law_recovers_exponent():
    x = np.array([8, 16, 32, 64, 128.0])
    fit = stats.fit_power_law(x, 3 * x**0.5)
    assert fit.exponent.estimate == pytest.approx(0.5)
    assert fit.prefactor == pytest.approx(3)


def test_binomial_pvalues():
    assert stats.binomial_upper_pvalue(0, 10, 0.5) == pytest.approx(1.0)
    assert stats.binomial_lower_pvalue(0, 10, 0.5) == pytest.approx(0.5**10)


def test_round_sig():
    assert stats.round_sig(0.123456789, 3) == 0.123
    assert stats.round_sig(0.0) == 0.0


def test_one_sided_clopper_pearson_bounds():
    assert stats.clopper_pearson_upper(0, 10, 0.975) == pytest.approx(1 - 0.025 ** (1 / 10))
    assert stats.clopper_pearson_lower(10, 10, 0.975) == pytest.approx(0.025 ** (1 / 10))


@pytest.mark.parametrize("looks", [1, 2, 3, 7])
def test_spending_schedule_sums_to_the_false_alarm_rate(looks):
    budgets = stats.spending_schedule(looks, 1e-9)
    assert len(budgets) == looks and sum(budgets) == pytest.approx(1e-9)
    assert budgets[0] == pytest.approx(1e-9 if looks == 1 else 5e-10)


def test_spending_schedule_rejects_bad_arguments():
    with pytest.raises(ValueError, match="looks"):
        stats.spending_schedule(0)
    with pytest.raises(ValueError, match="false_alarm"):
        stats.spending_schedule(2, 1.5)


def test_fit_power_law_of_estimates_recovers_exponent_and_widens_with_less_data():
    rng = np.random.default_rng(3)
    x = np.array([4, 8, 16, 32.0])

    def fit(trials):  # medians of exponential samples with median 3·x^0.5
        samples = [rng.exponential(3 * xi**0.5 / np.log(2), trials) for xi in x]
        return stats.fit_power_law_of_estimates(x, samples, [lambda rows: np.median(rows, axis=-1)] * x.size,
                                                np.random.default_rng(0), resamples=500).exponent

    small, large = fit(50), fit(5000)
    assert small.low < small.estimate < small.high and large.estimate == pytest.approx(0.5, abs=0.05)
    assert large.high - large.low < (small.high - small.low) / 5


def test_fit_power_law_of_estimates_refuses_non_positive_estimates():
    with pytest.raises(ValueError, match="positive estimates"):
        stats.fit_power_law_of_estimates(np.array([1, 2, 3.0]), [np.zeros(5)] * 3,
                                         [lambda rows: rows.min(axis=-1)] * 3,
                                         np.random.default_rng(0))


def test_symmetry_test_keeps_its_level_on_symmetric_samples_and_rejects_a_shift():
    rng = np.random.default_rng(0)
    # Under symmetry P(reject) ≤ level: at level 0.01, 2000 symmetric samples give ≲ 20 + 6√20 rejections.
    symmetric = sum(stats.symmetry_test(rng.standard_t(3, 50), 0.01).rejected for _ in range(2000))
    assert symmetric <= 20 + 6 * math.sqrt(20)
    shifted = stats.symmetry_test(rng.normal(0.5, 1.0, 1000), stats.FALSE_ALARM)
    assert shifted.rejected and shifted.detectable_mean < 0.5 < shifted.mean + 0.1


def test_symmetry_test_threshold_is_the_hoeffding_bound():
    test = stats.symmetry_test(np.array([1.0, -2.0, 2.0]), 0.5)
    assert test.total == 1.0 and test.threshold == pytest.approx(math.sqrt(2 * math.log(4) * 9))
    assert not test.rejected
    with pytest.raises(ValueError):
        stats.symmetry_test(np.array([]), 0.5)


def test_symmetry_test_rejects_exactly_where_the_t_statistic_passes_its_critical_value():
    rng = np.random.default_rng(2)
    for sample in rng.normal(0.3, 1.0, (300, 40)):
        test = stats.symmetry_test(sample, 1e-3)
        t = sample.mean() / (sample.std(ddof=1) / math.sqrt(sample.size))
        assert test.rejected == (abs(t) > test.t_critical)
    assert math.isinf(stats.symmetry_test(np.ones(5), 1e-3).detectable_mean)  # 5 ≤ 2 ln 2000: never rejects


def test_symmetry_test_detects_its_detectable_mean_with_the_stated_power():
    rng = np.random.default_rng(3)
    samples, level = 500, 1e-9
    shift = stats.symmetry_test(rng.standard_normal(samples), level).detectable_mean
    rejected = [stats.symmetry_test(values, level).rejected
                for values in rng.standard_normal((3000, samples)) + shift]
    assert np.mean(rejected) == pytest.approx(stats.DETECTION_POWER, abs=0.03)


def test_detection_factor_scales_a_t_interval_to_its_detectable_shift():
    interval = stats.batch_means(np.random.default_rng(4).standard_normal(4000), 40, 1 - 1e-9)
    half = (interval.high - interval.low) / 2
    sd = half * math.sqrt(40) / scipy_stats.t.isf(1e-9 / 2, 39)
    assert stats.detection_factor(1e-9, 40) * half == pytest.approx(stats.detectable_mean_shift(sd, 40))
    assert stats.detectable_shift(interval, 40) == pytest.approx(stats.detectable_mean_shift(sd, 40), rel=1e-6)
    assert 1.1 < stats.detection_factor(1e-9, 40) < 1.3


@pytest.mark.parametrize("trials, null_rate", [(600, 0.5), (100, 0.1), (4000, 0.02), (50, 0.0)])
def test_rejection_count_is_where_the_clopper_pearson_lower_bound_first_exceeds_the_null(trials, null_rate):
    count = stats.rejection_count(trials, null_rate)
    assert stats.clopper_pearson_lower(count, trials, 1 - stats.FALSE_ALARM) > null_rate
    assert count == 0 or stats.clopper_pearson_lower(count - 1, trials, 1 - stats.FALSE_ALARM) <= null_rate


def test_rejection_count_is_none_when_no_count_rejects():
    assert stats.rejection_count(10, 0.5) is None  # P(10 of 10) = 1/1024 > 1e-9
    assert np.isnan(stats.detectable_rate(10, 0.5))


def test_detectable_rate_with_a_zero_null_is_the_chance_of_one_event():
    assert stats.detectable_rate(100, 0.0, power=0.9) == pytest.approx(1 - 0.1 ** (1 / 100))


def test_a_search_reaches_the_event_rate_it_sees_with_the_stated_power():
    reach = stats.search_reach("a zero pivot", 100)
    assert reach["rate"] == pytest.approx(1 - 0.1 ** (1 / 100), rel=1e-2) and reach["power"] == 0.9


@pytest.mark.parametrize("below", [False, True])
def test_detectable_rate_is_rejected_with_the_stated_power(below):
    trials, null_rate = 600, 0.3
    rate = stats.detectable_rate(trials, null_rate, below=below)
    assert (rate > null_rate) != below
    rng = np.random.default_rng(0)
    counts, times = np.unique(rng.binomial(trials, rate, 20000), return_counts=True)
    if below:
        rejected = [stats.clopper_pearson_upper(k, trials, 1 - stats.FALSE_ALARM) < null_rate for k in counts]
    else:
        rejected = [stats.clopper_pearson_lower(k, trials, 1 - stats.FALSE_ALARM) > null_rate for k in counts]
    assert np.dot(rejected, times) / times.sum() == pytest.approx(stats.DETECTION_POWER, abs=0.02)


def test_detectable_paired_difference_at_the_observed_discordance_rate():
    share = stats.detectable_rate(1200, 0.5)
    assert stats.detectable_paired_difference(1200, 6000) == pytest.approx((2 * share - 1) * 1200 / 6000)


def test_detectable_paired_difference_without_discordant_pairs_needs_the_least_rejecting_discordance():
    # 2^−29 > 1e-9 > 2^−30: 30 discordant pairs, all against the claim, are the fewest that reject.
    expected = scipy_stats.beta.ppf(stats.DETECTION_POWER, 30, 6000 - 30 + 1)
    assert stats.detectable_paired_difference(0, 6000) == pytest.approx(expected)
    assert stats.detectable_paired_difference(3, 6000) == pytest.approx(expected)
    assert np.isnan(stats.detectable_paired_difference(0, 29))


def test_detectable_mean_shift_is_rejected_with_the_stated_power():
    samples = 400
    shift = stats.detectable_mean_shift(1.0, samples)
    critical = scipy_stats.t.isf(stats.FALSE_ALARM / 2, samples - 1)
    assert shift == pytest.approx((critical + scipy_stats.norm.isf(1 - stats.DETECTION_POWER)) / np.sqrt(samples),
                                  rel=0.03)
    rng = np.random.default_rng(1)
    values = rng.standard_normal((4000, samples)) + shift
    t = values.mean(axis=1) / (values.std(axis=1, ddof=1) / np.sqrt(samples))
    assert np.mean(np.abs(t) > critical) == pytest.approx(stats.DETECTION_POWER, abs=0.02)


def test_median_of_means_covers_a_skewed_mean_and_narrows_with_the_sample():
    rng = np.random.default_rng(0)
    misses = sum(not (iv.low <= 1 <= iv.high)
                 for iv in (stats.median_of_means(rng.exponential(size=400), 1.0, 0.2) for _ in range(300)))
    assert misses <= 60  # at most 20% by construction (Cantelli is loose: far fewer)
    assert stats.median_of_means_blocks(4000, 1.0, 1e-9)[1] < stats.median_of_means_blocks(1000, 1.0, 1e-9)[1]
    size = stats.median_of_means_size(2.0, 1e-9, 0.1)
    half_width = stats.median_of_means_blocks(size, 2.0, 1e-9)[1]
    assert half_width <= 0.1 < stats.median_of_means_blocks(size - 1, 2.0, 1e-9)[1]
