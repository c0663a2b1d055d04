import numpy as np
import pytest

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


def test_median_of_means_covers_a_skewed_mean_and_narrows_with_the_sample():
    rng = np.random.default_rng(0)
    misses = sum(not (iv.low <= 1 <= iv.high)
                 for iv in (stats.median_of_means(rng.exponential(size=400), 1.0, 0.2) for _ in range(300)))
    assert misses <= 60  # at most 20% by construction (Cantelli is loose: far fewer)
    assert stats.median_of_means_blocks(4000, 1.0, 1e-9)[1] < stats.median_of_means_blocks(1000, 1.0, 1e-9)[1]
    size = stats.median_of_means_size(2.0, 1e-9, 0.1)
    half_width = stats.median_of_means_blocks(size, 2.0, 1e-9)[1]
    assert half_width <= 0.1 < stats.median_of_means_blocks(size - 1, 2.0, 1e-9)[1]
