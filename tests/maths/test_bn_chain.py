"""Unit tests for theorems/bn_chain.py: the chain engine against explicit formulas and
brute-force oracles, its statistics on series with known answers, and input validation."""

import functools
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from theorems.maths import bn_chain as bc

DETERMINISTIC = settings(max_examples=40, deadline=None, database=None, derandomize=True)

shapes = st.tuples(st.integers(1, 6), st.integers(1, 7))


def dense(shape):
    """Float matrices with entries bounded away from 0 in row norm (no zero rows)."""
    return hnp.arrays(np.float64, shape, elements=st.floats(-4, 4, allow_nan=False)).filter(
        lambda a: np.all(np.abs(a).sum(axis=1) > 1e-3)
    )


def generator(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# --- M(H), r(H), rank_τ, 𝓗 ----------------------------------------------------------------


@DETERMINISTIC
@given(shapes.flatmap(dense))
def test_gram_effective_rank_and_rank_tau_match_numpy(h):
    d, n = h.shape
    H = torch.tensor(h)
    m = np.array([[sum(h[i, k] * h[j, k] for k in range(n)) / n for j in range(d)] for i in range(d)])
    assert np.allclose(bc.gram(H).numpy(), m, atol=1e-12)
    eigenvalues = np.linalg.eigvalsh(m)
    assert float(bc.effective_rank(H)) == pytest.approx(eigenvalues.sum() ** 2 / (eigenvalues**2).sum(), rel=1e-9)
    singular_sq = np.linalg.svd(h, compute_uv=False) ** 2 / n
    for tau in (0.1, 0.5, 1.0):
        if np.min(np.abs(singular_sq - tau)) > 1e-9:  # away from float ties
            assert int(bc.rank_tau(H, tau)) == int(np.sum(singular_sq >= tau))


def test_gram_and_rank_tau_accept_batches():
    H = torch.randn(3, 4, 5, generator=generator(), dtype=torch.float64)
    assert bc.gram(H).shape == (3, 4, 4)
    assert torch.allclose(bc.gram(H)[1], bc.gram(H[1]))
    assert bc.rank_tau(H, 0.5).shape == (3,)
    assert bc.effective_rank(H).shape == (3,)


@DETERMINISTIC
@given(shapes.flatmap(dense))
def test_project_rows_lands_in_the_set_H(h):
    P = bc.project_rows(torch.tensor(h))
    assert torch.allclose(torch.diagonal(bc.gram(P)), torch.ones(h.shape[0], dtype=torch.float64))
    # Rows keep their direction: H = diag(c) P with c > 0.
    assert torch.allclose(P * torch.tensor(h).norm(dim=1, keepdim=True) / math.sqrt(h.shape[1]), torch.tensor(h))


def test_rank_one_and_identity_extremes():
    ones = torch.ones(4, 6, dtype=torch.float64)
    assert float(bc.effective_rank(ones)) == pytest.approx(1.0)
    assert int(bc.rank_tau(ones, 0.5)) == 1
    eye = torch.eye(5, dtype=torch.float64) * math.sqrt(5)
    assert float(bc.effective_rank(eye)) == pytest.approx(5.0)
    assert int(bc.rank_tau(eye, 1.0)) == 5


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: bc.gram(torch.ones(3)), "shape"),
        (lambda: bc.gram(torch.ones(3, 0)), "N ≥ 1"),
        (lambda: bc.gram(np.ones((2, 2))), "torch tensor"),
        (lambda: bc.gram(torch.ones(2, 2, dtype=torch.int64)), "floating point"),
        (lambda: bc.rank_tau(torch.ones(2, 2), -0.1), "tau"),
        (lambda: bc.rank_tau(torch.ones(2, 2), float("nan")), "tau"),
        (lambda: bc.project_rows(torch.tensor([[1.0, 2.0], [0.0, 0.0]])), "zero row"),
    ],
)
def test_bad_matrix_inputs_raise_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- weights ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "law, low, high, mean, variance",
    [
        ("uniform", -math.sqrt(3), math.sqrt(3), 0.0, 1.0),
        ("asymmetric", 0.0, 2 / math.sqrt(50), 1 / math.sqrt(50), (2 / math.sqrt(50)) ** 2 / 12),
        ("rademacher", -1.0, 1.0, 0.0, 1.0),
        ("gaussian", -math.inf, math.inf, 0.0, 1.0),
    ],
)
def test_weight_laws_have_their_support_and_moments(law, low, high, mean, variance):
    W = bc.sample_weights(50, generator(1), law, batch=(40,))
    assert W.shape == (40, 50, 50) and W.dtype == torch.float64
    assert low <= float(W.min()) and float(W.max()) <= high
    # 10⁵ entries: the sample moments are within 6 standard errors.
    assert float(W.mean()) == pytest.approx(mean, abs=6 * math.sqrt(variance / W.numel()))
    assert float(W.var()) == pytest.approx(variance, rel=0.03)
    if law == "rademacher":
        assert set(W.unique().tolist()) == {-1.0, 1.0}


def test_tied_entry_law_shifts_one_entry_of_the_uniform_law():
    W = bc.sample_weights(3, generator(2), "tied_entry", batch=(4000,))
    shift = torch.zeros(3, 3, dtype=torch.float64)
    shift[0, 1] = bc.TIED_ENTRY_MEAN
    torch.testing.assert_close(W - shift, bc.sample_weights(3, generator(2), "uniform", batch=(4000,)))
    assert float(W[:, 0, 1].mean()) == pytest.approx(bc.TIED_ENTRY_MEAN, abs=6 / math.sqrt(4000))
    with pytest.raises(ValueError, match="d ≥ 2"):
        bc.sample_weights(1, generator(), "tied_entry")


def test_weights_are_reproducible_from_the_generator():
    assert torch.equal(bc.sample_weights(7, generator(3)), bc.sample_weights(7, generator(3)))


@pytest.mark.parametrize("d, law", [(0, "uniform"), (2.5, "uniform"), (3, "cauchy")])
def test_bad_weight_requests_raise_value_errors(d, law):
    with pytest.raises(ValueError):
        bc.sample_weights(d, generator(), law)


@pytest.mark.parametrize("law", bc.WEIGHT_LAWS)
def test_weights_drawn_into_a_buffer_are_the_fresh_draw(law):
    buffer = torch.empty(3, 5, 5, dtype=torch.float64)
    drawn = bc.sample_weights(5, generator(4), law, batch=(3,), out=buffer)
    assert drawn is buffer and torch.equal(buffer, bc.sample_weights(5, generator(4), law, batch=(3,)))
    with pytest.raises(ValueError, match="out must be"):
        bc.sample_weights(5, generator(), law, batch=(2,), out=buffer)


# --- one layer -------------------------------------------------------------------------------


@DETERMINISTIC
@given(shapes.flatmap(dense), st.integers(0, 2**31), st.sampled_from([0.0, 0.1, 1.0, math.inf]),
       st.sampled_from(["linear", "tanh", "sin"]))
def test_fbn_step_is_the_printed_formula(h, seed, gamma, activation):
    d, n = h.shape
    F = {"linear": lambda x: x, "tanh": np.tanh, "sin": np.sin}[activation]
    W = bc.sample_weights(d, generator(seed))
    w = W.numpy()
    h_gamma = w @ F(h) if math.isinf(gamma) else h + gamma * w @ F(h)
    norms = np.sqrt((h_gamma**2).sum(axis=1, keepdims=True) / n)
    if np.min(norms) < 1e-6:
        return  # a (near) zero row: FBN is undefined there
    torch_f = {"linear": None, "tanh": torch.tanh, "sin": torch.sin}[activation]
    out = bc.fbn_step(torch.tensor(h), W, gamma, torch_f)
    assert np.allclose(out.numpy(), h_gamma / norms, atol=1e-9)


def test_fbn_step_with_mean_subtraction_centres_and_normalizes_rows():
    H = torch.randn(5, 9, generator=generator(), dtype=torch.float64) + 3.0
    W = bc.sample_weights(5, generator(1))
    out = bc.fbn_step(H, W, 0.5, center=True)
    assert torch.allclose(out.mean(-1), torch.zeros(5, dtype=torch.float64), atol=1e-12)
    assert torch.allclose(torch.diagonal(bc.gram(out)), torch.ones(5, dtype=torch.float64))
    assert not torch.allclose(out, bc.fbn_step(H, W, 0.5))


@DETERMINISTIC
@given(shapes.flatmap(dense), st.floats(0.01, 100.0))
def test_linear_fbn_is_invariant_to_rescaling_its_input(h, scale):
    W = bc.sample_weights(h.shape[0], generator(5))
    H = torch.tensor(h)
    first = bc.fbn_step(H, W, 0.3)
    if torch.isfinite(first).all():
        assert torch.allclose(bc.fbn_step(scale * H, W, 0.3), first, atol=1e-8)


def test_batched_step_equals_per_matrix_steps():
    H = torch.randn(3, 4, 6, generator=generator(), dtype=torch.float64)
    W = bc.sample_weights(4, generator(1), batch=(3,))
    batched = bc.fbn_step(H, W, 0.2, torch.tanh)
    for i in range(3):
        assert torch.allclose(batched[i], bc.fbn_step(H[i], W[i], 0.2, torch.tanh))


def test_vanilla_step_is_the_residual_product():
    H = torch.randn(4, 6, generator=generator(), dtype=torch.float64)
    W = bc.sample_weights(4, generator(1))
    assert torch.allclose(bc.vanilla_step(H, W, 0.3), (torch.eye(4, dtype=torch.float64) + 0.3 * W) @ H)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda H, W: bc.fbn_step(H, W[:2, :2], 0.1), "W must be d × d"),
        (lambda H, W: bc.fbn_step(H, W, -0.1), "gamma"),
        (lambda H, W: bc.fbn_step(H, W, float("nan")), "gamma"),
        (lambda H, W: bc.fbn_step(H * float("nan"), W, 0.1), "finite"),
        (lambda H, W: bc.vanilla_step(H, W, math.inf), "finite gamma"),
        (lambda H, W: bc.run_chain(H, 0, 0.1, generator()), "steps"),
        (lambda H, W: bc.run_chain(H, 5, 0.1, generator(), burn_in=5), "burn_in"),
        (lambda H, W: bc.run_chain(H * float("inf"), 5, 0.1, generator()), "finite"),
        (lambda H, W: bc.lyapunov_log_growth(3, 5, 0.1, generator(), top=4), "top"),
        (lambda H, W: bc.lyapunov_log_growth(3, 5, 0.0, generator()), "gamma"),
    ],
)
def test_bad_chain_inputs_raise_value_errors(call, message):
    H = torch.randn(3, 5, generator=generator(), dtype=torch.float64)
    W = bc.sample_weights(3, generator(1))
    with pytest.raises(ValueError, match=message):
        call(H, W)


# --- chains ----------------------------------------------------------------------------------


def test_run_chain_replays_the_layer_by_layer_recursion():
    X = torch.randn(2, 4, 6, generator=generator(), dtype=torch.float64)
    run = bc.run_chain(X, 7, 0.4, generator(9), activation=torch.tanh, burn_in=2, every=2,
                       observe=bc.effective_rank)
    replay, weights = X, generator(9)
    expected = []
    for step in range(1, 8):
        replay = bc.fbn_step(replay, bc.sample_weights(4, weights, batch=(2,)), 0.4, torch.tanh)
        if step > 2 and (step - 2) % 2 == 0:
            expected.append(bc.effective_rank(replay))
    assert run.recorded_steps == [4, 6]
    assert torch.allclose(run.final, replay)
    assert torch.allclose(run.series, torch.stack(expected))


@pytest.mark.parametrize("shape", [(4, 6), (2, 4, 6), (2, 3, 4, 6)])
@pytest.mark.parametrize("gamma, center", [(0.4, False), (0.4, True), (math.inf, False)])
def test_run_chain_in_its_buffers_equals_fresh_steps_bit_for_bit(shape, gamma, center):
    X = torch.randn(shape, generator=generator(), dtype=torch.float64)
    original = X.clone()
    run = bc.run_chain(X, 5, gamma, generator(9), activation=torch.sin, center=center, observe=bc.effective_rank)
    replay, weights, expected = X, generator(9), []
    for _ in range(5):
        replay = bc.fbn_step(replay, bc.sample_weights(4, weights, batch=shape[:-2]), gamma, torch.sin, center)
        expected.append(bc.effective_rank(replay))
    assert torch.equal(run.final, replay) and torch.equal(run.series, torch.stack(expected))
    assert torch.equal(X, original)


def test_spectral_observables_match_their_definitions():
    H = bc.project_rows(torch.randn(2, 5, 8, generator=generator(), dtype=torch.float64))
    observed = bc.spectral_observables(H, taus=(0.5, 1.0))
    for i in range(2):
        m = bc.gram(H[i]).numpy()
        eigenvalues = np.linalg.eigvalsh(m)
        assert float(observed.r[i]) == pytest.approx(25 / (m**2).sum())
        assert float(observed.frobenius_sq[i]) == pytest.approx((eigenvalues**2).sum())
        assert float(observed.trace_cube[i]) == pytest.approx((eigenvalues**3).sum())
        assert float(observed.diag_square[i]) == pytest.approx((np.diag(m @ m) ** 2).sum())
        for tau in (0.5, 1.0):
            assert int(observed.soft_rank(tau)[i]) == int((eigenvalues >= tau).sum())
    with pytest.raises(ValueError, match=r"not for τ = 0\.25"):
        observed.soft_rank(0.25)


def test_chain_records_spectral_observables_as_series_per_step():
    X = torch.randn(3, 4, 6, generator=generator(), dtype=torch.float64)
    observe = functools.partial(bc.spectral_observables, taus=(0.5,))
    run = bc.run_chain(X, 5, 0.3, generator(1), observe=observe, burn_in=1)
    last = observe(run.final)
    assert run.series.r.shape == run.series.soft_rank(0.5).shape == (4, 3)
    assert torch.equal(run.series.diag_square[-1], last.diag_square)
    assert torch.equal(run.series.soft_rank(0.5)[-1], last.soft_rank(0.5))


def test_linear_chain_keeps_the_rank_of_its_input():
    # (I + γW) is invertible when γ√3·d < 1, so a rank-2 input stays rank 2 (up to rounding).
    a = torch.randn(6, 1, generator=generator(), dtype=torch.float64)
    b = torch.randn(1, 9, generator=generator(1), dtype=torch.float64)
    X = a @ b + (torch.randn(6, 1, generator=generator(2), dtype=torch.float64)
                 @ torch.randn(1, 9, generator=generator(3), dtype=torch.float64))
    run = bc.run_chain(X, 50, 0.05, generator(4))
    singular = torch.linalg.svdvals(run.final)
    assert singular[1] / singular[0] > 1e-3 and singular[2] / singular[0] < 1e-12


def test_vanilla_chain_is_the_normalized_product():
    X = torch.randn(4, 5, generator=generator(), dtype=torch.float64)
    run = bc.run_vanilla_chain(X, 6, 0.3, generator(2))
    product, weights = torch.eye(4, dtype=torch.float64), generator(2)
    for _ in range(6):
        product = (torch.eye(4, dtype=torch.float64) + 0.3 * bc.sample_weights(4, weights)) @ product
    expected = product @ X
    expected = expected * math.sqrt(4 * 5) / expected.norm()
    assert torch.allclose(run.final, expected)
    assert float(torch.trace(bc.gram(run.final))) == pytest.approx(4.0)


def test_lyapunov_growth_sums_to_the_log_determinant():
    # With top = d, Σ_i log|R_ii| over a layer is log|det(I + γW)|: an exact oracle for the QR recursion.
    growth = bc.lyapunov_log_growth(4, 5, 0.7, generator(3), chains=2, top=4)
    weights = generator(3)
    for layer in range(5):
        W = bc.sample_weights(4, weights, batch=(2,))
        log_det = torch.linalg.slogdet(torch.eye(4, dtype=torch.float64) + 0.7 * W).logabsdet
        assert torch.allclose(growth[layer].sum(-1), log_det)


# --- ergodic averages ------------------------------------------------------------------------


def test_ergodic_average_covers_the_mean_of_an_iid_series():
    series = np.random.default_rng(0).normal(3.0, 1.0, size=(4000, 2))
    interval = bc.ergodic_average(series, confidence=0.999)
    assert interval.low < 3.0 < interval.high
    assert interval.estimate == pytest.approx(series.mean())


def test_ratio_of_averages_is_exact_for_proportional_series():
    den = np.random.default_rng(1).uniform(1, 2, size=800)
    ratio = bc.ratio_of_averages(0.25 * den, den)
    assert ratio.estimate == pytest.approx(0.25) and ratio.high - ratio.low == pytest.approx(0.0, abs=1e-12)


def test_regularity_constant_is_one_at_orthogonal_rows():
    # M = I: Tr(diag(M²)²) = Tr(M³) = d, so α = 1 (Example 16's equal-eigenvalue case).
    H = (torch.eye(3, dtype=torch.float64) * math.sqrt(3)).expand(100, 1, 3, 3)
    observed = bc.spectral_observables(H.reshape(100, 3, 3), taus=())
    run = bc.ChainRun(H, observed.map(lambda values: values[:, None]), list(range(100)))
    assert bc.regularity_constant(run).estimate == pytest.approx(1.0)


def test_ergodic_helpers_reject_bad_series():
    with pytest.raises(ValueError, match="finite series"):
        bc.ergodic_average(np.array([1.0, float("nan")] * 50))
    with pytest.raises(ValueError, match="shape"):
        bc.ratio_of_averages(np.ones(100), np.ones(120))


# --- benchmark and threads ---------------------------------------------------------------------


def test_benchmark_reports_rates_and_their_ratio():
    row = bc.benchmark_chain(d=16, n=16, layers=5, rounds=1, chains=3)
    assert {"d", "n", "chains", "device", "layers_per_second", "matmul_per_second", "ratio"} <= row.keys()
    assert row["chains"] == 3
    assert row["layers_per_second"] > 0 and row["matmul_per_second"] > 0 and row["ratio"] > 0
    with pytest.raises(ValueError, match="positive"):
        bc.benchmark_chain(d=0)
    with pytest.raises(ValueError, match="positive"):
        bc.benchmark_chain(chains=0)


def test_small_chains_run_on_one_thread_and_restore_the_count():
    before = torch.get_num_threads()
    with bc.threads_for(8 * 16 * 16 * 2):
        inside = torch.get_num_threads()
    assert inside == 1 and torch.get_num_threads() == before
    with bc.threads_for(bc.SMALL_PRODUCT):
        assert torch.get_num_threads() == before


def test_orthonormalize_matches_lapack_qr():
    V = torch.randn(4, 6, 3, generator=generator(5), dtype=torch.float64)
    Q, log_r = bc._orthonormalize(V)
    Q_ref, R_ref = torch.linalg.qr(V)
    torch.testing.assert_close(Q.abs(), Q_ref.abs())
    torch.testing.assert_close(log_r, torch.log(torch.diagonal(R_ref, dim1=-2, dim2=-1).abs()))


def test_conformal_chain_needs_an_even_width():
    with pytest.raises(ValueError, match="even"):
        bc.lyapunov_log_growth(3, 5, 0.1, generator(), conformal=True)
