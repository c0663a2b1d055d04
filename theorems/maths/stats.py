"""Statistics for probabilistic claims: exact binomial bounds, batch means, scaling fits.

Thresholds are chosen so that a true claim is declared false with negligible probability
(``FALSE_ALARM`` per decision); every function returns the numbers it decided on, so
evidence records can show them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import cache
from typing import Any

import numpy as np
from scipy import optimize

from ..lazy import scipy_stats

# Per-decision false-alarm rate for statistical refutations: at 1e-9 a suite of a hundred
# such decisions run daily would raise a false alarm about once in 30,000 years.
FALSE_ALARM = 1e-9
# The power at which a check states its detectable effect: the smallest effect that its decision,
# at its false-alarm rate, refutes with probability at least 0.9.
DETECTION_POWER = 0.9


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float
    confidence: float

    def as_dict(self) -> dict:
        return {k: round_sig(v) for k, v in asdict(self).items()}


def round_sig(x: float, digits: int = 6) -> float:
    """Round for evidence records: stable across BLAS builds, still informative."""
    x = float(x)
    if x == 0 or not np.isfinite(x):
        return x
    return float(f"{x:.{digits}g}")


def clopper_pearson(successes: int, trials: int, confidence: float = 0.95) -> Interval:
    """Exact two-sided binomial confidence interval for a success probability."""
    if trials <= 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 ≤ successes ≤ trials and trials > 0, got {successes}/{trials}")
    result = scipy_stats.binomtest(successes, trials).proportion_ci(confidence_level=confidence, method="exact")
    return Interval(successes / trials, float(result.low), float(result.high), confidence)


def clopper_pearson_upper(successes: int, trials: int, level: float) -> float:
    """One-sided exact upper confidence bound at ``level`` for a success probability."""
    return clopper_pearson(successes, trials, 1 - 2 * (1 - level)).high


def clopper_pearson_lower(successes: int, trials: int, level: float) -> float:
    """One-sided exact lower confidence bound at ``level`` for a success probability."""
    return clopper_pearson(successes, trials, 1 - 2 * (1 - level)).low


def binomial_upper_pvalue(successes: int, trials: int, p0: float) -> float:
    """P(X ≥ successes) for X ~ Bin(trials, p0): small when the rate exceeds p0."""
    return float(scipy_stats.binom.sf(successes - 1, trials, p0))


def binomial_lower_pvalue(successes: int, trials: int, p0: float) -> float:
    """P(X ≤ successes) for X ~ Bin(trials, p0): small when the rate is below p0."""
    return float(scipy_stats.binom.cdf(successes, trials, p0))


@dataclass(frozen=True)
class SymmetryTest:
    """The sign-symmetry test of a sample: ``total`` = Σx_i against ``threshold``, ``rejected`` when
    |total| exceeds it. The self-normalised sum Σx_i/√(Σx_i²) = √n·t/√(n − 1 + t²) is increasing in the
    t statistic t = √n·x̄/s, so the test rejects exactly when |t| exceeds ``t_critical``: against a mean
    shift it has the power of a t-test with that critical value (inf when n is too small to reject)."""

    n: int
    total: float
    threshold: float
    rejected: bool
    sd: float
    t_critical: float

    @property
    def mean(self) -> float:
        return self.total / self.n

    @property
    def detectable_mean(self) -> float:
        """The smallest |mean| the test rejects with probability DETECTION_POWER, for normal values of
        this sample's standard deviation (``detectable_mean_shift`` at the test's critical value)."""
        if math.isinf(self.t_critical):
            return math.inf
        return detectable_mean_shift(self.sd, self.n, critical=self.t_critical)


def symmetry_test(sample: np.ndarray, level: float) -> SymmetryTest:
    """Test that iid ``sample`` values come from a law symmetric about 0, exact for every n and law.

    Under symmetry, given |x_1|, …, |x_n| the signs are iid ±1, so Hoeffding's inequality for the
    Rademacher sum Σ ε_i|x_i| gives P(|Σx_i| ≥ t) ≤ 2·exp(−t²/(2Σx_i²)): rejecting above
    t = c·√(Σx_i²), c = √(2 ln(2/level)), is wrong with probability ≤ ``level``, with no normal
    approximation. |Σx_i| > c·√(Σx_i²) is |t| > c·√((n − 1)/(n − c²)) for the t statistic (none when
    n ≤ c²): a mean μ is detected with power 0.9 once √n·μ/sd exceeds about c + 1.28 (≈ 8.2 at 1e-10)."""
    sample = np.asarray(sample, dtype=float)
    if sample.ndim != 1 or sample.size == 0 or not np.all(np.isfinite(sample)):
        raise ValueError(f"need a nonempty finite 1-D sample, got shape {sample.shape}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    n = sample.size
    total = float(sample.sum())
    critical_sq = 2 * np.log(2 / level)
    threshold = float(np.sqrt(critical_sq * np.sum(sample**2)))
    t_critical = float(np.sqrt(critical_sq * (n - 1) / (n - critical_sq))) if n > critical_sq else math.inf
    sd = float(sample.std(ddof=1)) if n > 1 else 0.0
    return SymmetryTest(n, total, threshold, abs(total) > threshold, sd, t_critical)


def rejection_count(trials: int, null_rate: float, false_alarm: float = FALSE_ALARM) -> int | None:
    """The least count k with P(Bin(trials, null_rate) ≥ k) < false_alarm: where the one-sided exact
    binomial test rejects 'rate ≤ null_rate', which is where the Clopper–Pearson lower bound at level
    1 − false_alarm (``clopper_pearson_lower``) first exceeds null_rate. None when no count does."""
    if trials < 1 or not 0 <= null_rate <= 1 or not 0 < false_alarm < 1:
        raise ValueError(f"need trials ≥ 1, a null rate in [0, 1], a level in (0, 1); got {trials}, {null_rate}, "
                         f"{false_alarm}")
    count = int(scipy_stats.binom.isf(false_alarm, trials, null_rate)) + 1  # P(X > count − 1) ≤ false_alarm, about
    while count > 0 and binomial_upper_pvalue(count - 1, trials, null_rate) < false_alarm:
        count -= 1
    while count <= trials and binomial_upper_pvalue(count, trials, null_rate) >= false_alarm:
        count += 1
    return count if count <= trials else None


def detectable_rate(trials: int, null_rate: float, *, below: bool = False, false_alarm: float = FALSE_ALARM,
                    power: float = DETECTION_POWER) -> float:
    """The smallest true rate (the largest with ``below``) that the one-sided exact binomial test of
    'rate ≤ null_rate' ('rate ≥ null_rate') at level false_alarm with ``trials`` trials rejects with
    probability ≥ power; nan when no count rejects. With null_rate 0 the test rejects at the first
    event, so the rate is 1 − (1 − power)^(1/trials)."""
    if below:
        return 1 - detectable_rate(trials, 1 - null_rate, false_alarm=false_alarm, power=power)
    count = rejection_count(trials, null_rate, false_alarm)
    if count is None:
        return math.nan
    # P(Bin(trials, p) ≥ count) is the Beta(count, trials − count + 1) distribution function at p.
    return float(scipy_stats.beta.ppf(power, count, trials - count + 1))


def search_reach(event: str, draws: int) -> dict[str, Any]:
    """How hard a search looked that refutes at the first of ``draws`` independent draws showing ``event``,
    an event of probability 0 under the claim: the event's probability per draw it finds with probability
    ≥ DETECTION_POWER. It has no false-alarm rate (a true claim is never refuted), so it is a search, not a
    statistical test, and its evidence states this as ``detectable_rate``."""
    return {"event": event, "rate": round_sig(detectable_rate(draws, 0.0), 3), "power": DETECTION_POWER,
            "draws": draws}


def detectable_paired_difference(discordant: int, trials: int, false_alarm: float = FALSE_ALARM,
                                 power: float = DETECTION_POWER) -> float:
    """The smallest difference P(A) − P(B) of paired indicators that the one-sided sign test at level
    false_alarm (on the pairs where A and B differ) detects with probability ≥ power. Its power falls as
    the discordance rate r grows (a share θ of the discordant pairs against the claim gives
    P(A) − P(B) = (2θ − 1)·r), so this is the larger of the difference detected at the observed rate
    discordant/trials and the one detected at r equal to the difference itself (every discordant pair
    against the claim, the least discordance a difference needs): the second stays finite when too few
    pairs are discordant for the test to reject. nan when no number of trials' pairs can reject."""
    # The sign test needs `needed` discordant pairs all against the claim: P(Bin(D, ½) ≥ D) = 2^−D < false_alarm.
    needed = math.floor(math.log2(1 / false_alarm)) + 1
    if needed > trials:
        return math.nan
    at_least_discordance = float(scipy_stats.beta.ppf(power, needed, trials - needed + 1))
    share = detectable_rate(discordant, 0.5, false_alarm=false_alarm, power=power) if discordant else math.nan
    at_observed_rate = (2 * share - 1) * discordant / trials
    return at_least_discordance if math.isnan(at_observed_rate) else max(at_least_discordance, at_observed_rate)


def detectable_mean_shift(sd: float, samples: int, false_alarm: float = FALSE_ALARM,
                          power: float = DETECTION_POWER, critical: float | None = None) -> float:
    """The smallest |μ − μ₀| that the two-sided one-sample t-test at level false_alarm rejects with
    probability ≥ power, for ``samples`` values of standard deviation ``sd`` (noncentral t; rejections on
    the far side, of probability below false_alarm/2, are left out). ``critical``: the test's own critical
    value of |t| where it is not the t-test's at false_alarm (a test that rejects when |t| exceeds it)."""
    if samples < 2 or not sd >= 0:
        raise ValueError(f"need at least 2 samples and sd ≥ 0, got {samples}, {sd}")
    df = samples - 1
    if critical is None:
        critical = scipy_stats.t.isf(false_alarm / 2, df)

    def rejection(noncentrality: float) -> float:
        return scipy_stats.nct.sf(critical, df, noncentrality) - power

    noncentrality = optimize.brentq(rejection, 0.0, 10 * critical + 10)
    return float(noncentrality * sd / math.sqrt(samples))


@cache
def detection_factor(level: float, samples: int, power: float = DETECTION_POWER) -> float:
    """How far past the half-width of a two-sided t interval at confidence 1 − level, from ``samples``
    values (batch means, say), a shift must lie to be detected with probability ≥ power: the shift that
    ``detectable_mean_shift`` gives, in units of that half-width (about 1 + z_power/t_level: 1.2 with 40
    batch means at 1e-9). A threshold outside the interval by more than factor × half-width is separated
    from the estimate with that power."""
    critical = scipy_stats.t.isf(level / 2, samples - 1)
    return detectable_mean_shift(math.sqrt(samples) / critical, samples, level, power)


def detectable_shift(interval: Interval, samples: int, power: float = DETECTION_POWER) -> float:
    """The smallest shift that a two-sided t interval like ``interval`` (at its confidence, from ``samples``
    values) separates from its estimate with probability ≥ power: its half-width × ``detection_factor``."""
    return detection_factor(1 - interval.confidence, samples, power) * (interval.high - interval.low) / 2


def spending_schedule(looks: int, false_alarm: float = FALSE_ALARM) -> tuple[float, ...]:
    """Error budgets for the looks of a sequential test: half of ``false_alarm`` at the first
    look, the other half split evenly over the later ones (alpha spending).

    A sequential test samples more only while its interval straddles the threshold and
    decides at the first look whose interval (at confidence 1 − budget of that look) clears
    it. The budgets sum to ``false_alarm``, so by the union bound the chance that any look's
    interval misses the true value — hence that a wrong decision is ever taken, however many
    looks the data ask for — is at most ``false_alarm``. The first look keeps most of the
    budget, so a clear case costs nothing extra."""
    if not isinstance(looks, int) or looks < 1:
        raise ValueError(f"looks must be a positive integer, got {looks!r}")
    if not 0 < false_alarm < 1:
        raise ValueError(f"false_alarm must be in (0, 1), got {false_alarm}")
    if looks == 1:
        return (false_alarm,)
    return (false_alarm / 2, *[false_alarm / (2 * (looks - 1))] * (looks - 1))


def batch_means(series: np.ndarray, batches: int = 20, confidence: float = 0.95) -> Interval:
    """Confidence interval for the mean of a stationary, correlated series (a Markov chain
    average): split into contiguous batches and use a t interval over the batch means."""
    series = np.asarray(series, dtype=float)
    if series.ndim != 1 or series.size < 2 * batches:
        raise ValueError(f"need a 1-D series of at least {2 * batches} values, got shape {series.shape}")
    usable = series.size - series.size % batches
    means = series[:usable].reshape(batches, -1).mean(axis=1)
    centre = float(means.mean())
    half = float(scipy_stats.t.ppf(0.5 + confidence / 2, batches - 1) * means.std(ddof=1) / np.sqrt(batches))
    return Interval(centre, centre - half, centre + half, confidence)


@dataclass(frozen=True)
class PowerLawFit:
    exponent: Interval
    prefactor: float

    def as_dict(self) -> dict:
        return {"exponent": self.exponent.as_dict(), "prefactor": round_sig(self.prefactor)}


def fit_power_law(x: np.ndarray, y: np.ndarray, confidence: float = 0.95) -> PowerLawFit:
    """Least-squares fit of log y = a + b log x with a t interval for the exponent b."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.size < 3 or np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("power-law fit needs at least 3 positive (x, y) pairs")
    result = scipy_stats.linregress(np.log(x), np.log(y))
    half = float(scipy_stats.t.ppf(0.5 + confidence / 2, x.size - 2) * result.stderr)
    slope = Interval(result.slope, result.slope - half, result.slope + half, confidence)
    return PowerLawFit(slope, float(np.exp(result.intercept)))


# Resamples of a bootstrap interval: the Monte Carlo error of its 2.5% and 97.5% points is then
# about 0.06 of the estimate's standard error (√(0.025·0.975/2000)/φ(1.96)).
BOOTSTRAP_RESAMPLES = 2000


def fit_power_law_of_estimates(x: np.ndarray, samples: Sequence[np.ndarray],
                               estimators: Sequence[Callable[[np.ndarray], np.ndarray]], rng: np.random.Generator,
                               confidence: float = 0.95, resamples: int = BOOTSTRAP_RESAMPLES) -> PowerLawFit:
    """Least-squares fit of log y = a + b log x where each y_i = estimators[i](samples[i]) is an
    estimate from its own sample (a quantile of trials, say), not an exact value. The interval
    for b is the percentile bootstrap: every sample is resampled with replacement, the estimates
    and the fit recomputed, so the estimates' own uncertainty reaches the exponent (a t interval
    on the fitted points treats them as exact). Each estimator maps an array of shape (k, n_i),
    k samples of size n_i, to the k estimates."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or not x.size == len(samples) == len(estimators) or x.size < 3 or np.any(x <= 0):
        raise ValueError("power-law fit needs at least 3 positive x, one sample and estimator each")
    log_x = np.log(x)
    # The least-squares slope of log y on log x is linear in log y: log_y @ slope_weights.
    slope_weights = (log_x - log_x.mean()) / np.sum((log_x - log_x.mean()) ** 2)
    samples = [np.asarray(sample, dtype=float) for sample in samples]
    with np.errstate(divide="ignore", invalid="ignore"):  # a non-positive estimate is refused below
        point = np.log([estimate(sample[None, :])[0] for sample, estimate in zip(samples, estimators, strict=True)])
        resampled = np.column_stack([np.log(estimate(rng.choice(sample, (resamples, sample.size))))
                                     for sample, estimate in zip(samples, estimators, strict=True)])
    if not (np.all(np.isfinite(point)) and np.all(np.isfinite(resampled))):
        raise ValueError("power-law fit needs positive estimates")
    low, high = np.quantile(resampled @ slope_weights, [0.5 - confidence / 2, 0.5 + confidence / 2])
    slope = float(point @ slope_weights)
    return PowerLawFit(Interval(slope, float(low), float(high), confidence),
                       float(np.exp(point.mean() - slope * log_x.mean())))


@cache
def _block_failure_bound(blocks: int, level: float) -> float:
    """The largest p with P(Bin(blocks, p) ≥ ⌈blocks/2⌉) ≤ level: a Clopper–Pearson bound (a beta quantile)."""
    majority = (blocks + 1) // 2
    return float(scipy_stats.beta.ppf(level, majority, blocks - majority + 1))


def median_of_means_blocks(size: int, variance: float, level: float) -> tuple[int, float]:
    """The block count B of ``median_of_means`` and its half-width t. A block mean lies ≥ t above
    (below) the mean with probability p ≤ v/(v + t²) (Cantelli, v = variance / block size); the
    median does only when ⌈B/2⌉ blocks do, P(Bin(B, p) ≥ ⌈B/2⌉) ≤ level/2 per side. B is the odd
    count giving the narrowest t (it depends on the level, hardly on the size: 57 blocks at 10⁻⁹/30)."""
    if size < 1 or not variance >= 0 or not 0 < level < 1:
        raise ValueError("median of means needs a sample, a variance ≥ 0 and a level in (0, 1)")

    def half_width(blocks: int) -> float:
        p = _block_failure_bound(blocks, level / 2)
        return float(np.sqrt(variance / (size // blocks) * (1 - p) / p)) if p > 0 else np.inf

    blocks = min(range(1, min(size, 401) + 1, 2), key=half_width)
    return blocks, half_width(blocks)


def median_of_means_size(variance: float, level: float, half_width: float) -> int:
    """The fewest values whose ``median_of_means`` half-width at ``level`` is at most ``half_width``."""
    high = 1
    while median_of_means_blocks(high, variance, level)[1] > half_width:
        high *= 2
    low = high // 2
    while high - low > 1:
        middle = (low + high) // 2
        narrow_enough = median_of_means_blocks(middle, variance, level)[1] <= half_width
        low, high = (low, middle) if narrow_enough else (middle, high)
    return high


def median_of_means(values: np.ndarray, variance: float, level: float) -> Interval:
    """Interval for the mean μ of iid ``values`` of known ``variance``, missing μ with probability
    ≤ ``level`` whatever their law (heavy tails included, where a normal interval's tail is far
    off): the median of B block means ± t (``median_of_means_blocks``, fixed before the values
    are looked at)."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 1:
        raise ValueError("median of means needs a 1-D sample")
    blocks, half = median_of_means_blocks(values.size, variance, level)
    means = values[: values.size - values.size % blocks].reshape(blocks, -1).mean(axis=1)
    centre = float(np.median(means))
    return Interval(centre, centre - half, centre + half, 1 - level)
