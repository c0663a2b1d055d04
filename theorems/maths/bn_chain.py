"""The Markov chain of batch-normalized pre-activations of daneshmand2020, in torch.

Definitions follow daneshmand2020 (Sec. 2):

- M(H) = H Hᵀ / N (Eq. 2), r(H) = Tr(M)² / ‖M‖_F² (Eq. 3),
  rank_τ(H) = #{i : σ_i² / N ≥ τ} (Eq. 4);
- 𝓗 = the d × N matrices whose rows have norm √N (Sec. 2.3);
- μ: W with iid entries uniform[−√3, √3] (Def. 1);
- FBN_γ(H, W) = diag(M(H_γ))^{−1/2} H_γ with H_γ = H + γ W F(H) (Eq. 5), the batch
  normalization BN_{0,1} without mean subtraction; the chain H_{ℓ+1} = FBN_γ(H_ℓ, W_ℓ) (Def. 2);
- the vanilla residual chain Ĥ_{ℓ+1} = (I + γW_ℓ) Ĥ_ℓ (Sec. 1, Lemma 4).

Everything is float64 by default (``dtype=None``: torch is imported when first used, not with this
module) and runs on whatever device its tensors live on.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np

from ..lazy import torch
from . import stats

# Types name torch in quotes: reading torch.Tensor here would import torch with this module.
Activation = Callable[["torch.Tensor"], "torch.Tensor"]
# A recorded observable: torch on the chain's device, numpy once moved off it.
Series = TypeVar("Series", "torch.Tensor", np.ndarray)

WEIGHT_LAWS = ("uniform", "asymmetric", "gaussian", "rademacher", "tied_entry")
# The mean the "tied_entry" law adds to W_12: half the entries' standard deviation.
TIED_ENTRY_MEAN = 0.5


# Below this many multiply-adds per (batched) product, intra-op threads cost more than they
# save: a (8, 16, 16) @ (8, 16, 2) bmm takes 20 µs on one thread and up to 17 ms on two
# threads of a loaded two-core machine, where the thread pool waits for a busy core.
SMALL_PRODUCT = 1 << 16


@contextmanager
def threads_for(multiply_adds: int):
    """Run the enclosed chain on one intra-op thread when each step's batched product is
    small (``multiply_adds`` < SMALL_PRODUCT), restoring the thread count afterwards;
    unchanged otherwise. Chains of small matrices are latency-bound: they scale by batching,
    not threads."""
    previous = torch.get_num_threads()
    if multiply_adds >= SMALL_PRODUCT or previous == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def _check_matrix(H: torch.Tensor, name: str = "H") -> None:
    if not isinstance(H, torch.Tensor):
        raise ValueError(f"{name} must be a torch tensor, got {type(H).__name__}")
    if H.ndim < 2:
        raise ValueError(f"{name} must have shape (..., d, N), got {tuple(H.shape)}")
    if not H.is_floating_point():
        raise ValueError(f"{name} must be floating point, got dtype {H.dtype}")
    if H.shape[-1] == 0 or H.shape[-2] == 0:
        raise ValueError(f"{name} must have d ≥ 1 rows and N ≥ 1 columns, got {tuple(H.shape)}")


def gram(H: torch.Tensor) -> torch.Tensor:
    """M(H) = H Hᵀ / N (Eq. 2): the d × d matrix of second moments of H ∈ ℝ^{d×N}.
    Accepts a batch (..., d, N) and returns (..., d, d)."""
    _check_matrix(H)
    return H @ H.transpose(-1, -2) / H.shape[-1]


def effective_rank(H: torch.Tensor) -> torch.Tensor:
    """r(H) = Tr(M(H))² / ‖M(H)‖_F² (Eq. 3), the ratio that lower-bounds rank(H) (Lemma 1).
    Per matrix of a batch; NaN for H = 0, where the ratio is undefined."""
    M = gram(H)
    trace = torch.diagonal(M, dim1=-2, dim2=-1).sum(-1)
    return trace**2 / (M**2).sum((-2, -1))


def rank_tau(H: torch.Tensor, tau: float) -> torch.Tensor:
    """rank_τ(H) = Σ_i 1(σ_i² / N ≥ τ) (Eq. 4), σ_i the singular values of H.
    Per matrix of a batch, as an integer tensor. The comparison is a float one: callers
    that need a rigorous decision near the threshold must bound σ_i themselves."""
    _check_matrix(H)
    if not math.isfinite(tau) or tau < 0:
        raise ValueError(f"tau must be a finite number ≥ 0, got {tau}")
    singular = torch.linalg.svdvals(H)
    return (singular**2 / H.shape[-1] >= tau).sum(-1)


def project_rows(H: torch.Tensor) -> torch.Tensor:
    """H with every row rescaled to norm √N, i.e. diag(M(H))^{−1/2} H: the projection onto
    𝓗 (Sec. 2.3) that BN_{0,1} without mean subtraction performs. Rows must be nonzero."""
    _check_matrix(H)
    norms_sq = (H**2).mean(-1, keepdim=True)  # diag(M(H)) as a column
    if bool((norms_sq == 0).any()):
        raise ValueError("H has a zero row: it cannot be normalized onto 𝓗")
    return _normalize_rows(H)


def _normalize_rows(H: torch.Tensor) -> torch.Tensor:
    # Unchecked: inside chains a zero row has probability zero, and checking it would
    # synchronize a GPU at every layer.
    # One reduction pass (no H² temporary) and one scaling: the two passes over H a layer
    # needs besides its product. Not in place: torch.func differentiates through this.
    return H * (math.sqrt(H.shape[-1]) / torch.linalg.vector_norm(H, dim=-1, keepdim=True))


def sample_weights(
    d: int,
    generator: torch.Generator | None,
    law: str = "uniform",
    dtype: torch.dtype | None = None,
    device: str | torch.device = "cpu",
    batch: tuple[int, ...] = (),
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """A d × d weight matrix (or a batch of them) with iid entries:

    - "uniform": uniform[−√3, √3], zero mean and unit variance, the law μ of Def. 1;
    - "asymmetric": uniform[0, 2/√d], the non-centred law of Sec. 5.2 ("Breaking BN");
    - "gaussian": standard normal; "rademacher": ±1 with probability 1/2 each;
    - "tied_entry": "uniform" with TIED_ENTRY_MEAN added to W_12 (d ≥ 2), a fixed connection from
      unit 2 to unit 1: the entries are no longer identically distributed (a broken μ).

    ``out`` (shape (*batch, d, d), the given dtype, on the generator's device) receives the draw instead of a new
    tensor: the same values from the same generator state, without allocating a layer's weights.
    """
    if not isinstance(d, int) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    dtype = torch.float64 if dtype is None else dtype
    # In-place sampling: one pass over the d² entries, which is the cost that matters
    # next to the layer's single matmul (see benchmark_chain).
    if out is None:
        weights = torch.empty((*batch, d, d), dtype=dtype, device=device)
    elif out.shape != (*batch, d, d) or out.dtype != dtype:
        raise ValueError(f"out must be a {(*batch, d, d)} {dtype} tensor, got {tuple(out.shape)} {out.dtype}")
    else:
        weights = out
    if law == "uniform":
        return weights.uniform_(-math.sqrt(3), math.sqrt(3), generator=generator)
    if law == "asymmetric":
        return weights.uniform_(0, 2 / math.sqrt(d), generator=generator)
    if law == "gaussian":
        return weights.normal_(generator=generator)
    if law == "rademacher":
        return weights.bernoulli_(0.5, generator=generator).mul_(2).sub_(1)
    if law == "tied_entry":
        if d < 2:
            raise ValueError("the tied_entry law needs d ≥ 2 (it shifts W_12)")
        weights.uniform_(-math.sqrt(3), math.sqrt(3), generator=generator)
        weights[..., 0, 1] += TIED_ENTRY_MEAN
        return weights
    raise ValueError(f"unknown weight law {law!r}; choose one of {', '.join(WEIGHT_LAWS)}")


def _check_step_inputs(H: torch.Tensor, W: torch.Tensor, gamma: float) -> None:
    _check_matrix(H)
    _check_matrix(W, "W")
    if W.shape[-1] != W.shape[-2] or W.shape[-1] != H.shape[-2]:
        raise ValueError(f"W must be d × d with d = {H.shape[-2]} rows of H, got W of shape {tuple(W.shape)}")
    if not (gamma >= 0):  # also rejects NaN
        raise ValueError(f"gamma must be ≥ 0 (math.inf for no skip connection), got {gamma}")
    if not bool(torch.isfinite(H).all()) or not bool(torch.isfinite(W).all()):
        raise ValueError("H and W must have finite entries (found NaN or ±inf)")


def fbn_step(
    H: torch.Tensor,
    W: torch.Tensor,
    gamma: float,
    activation: Activation | None = None,
    center: bool = False,
) -> torch.Tensor:
    """FBN_γ(H, W) = diag(M(H_γ))^{−1/2} H_γ, H_γ = H + γ W F(H) (Eq. 5).

    ``activation`` is F, applied elementwise (None = linear, F(H) = H). ``center=True``
    subtracts each row's mean from H_γ before normalizing: BN_{0,1} with the mean deduction
    G(H) = H(I − 11ᵀ/N) of Eq. (1), which the paper omits (App. Fig. 11 compares both).
    ``gamma = math.inf`` drops the skip connection (H_γ ∝ W F(H): the γ = ∞ nets of Fig. 2).
    Batches (..., d, N) with weights (..., d, d) step independent chains at once.
    """
    _check_step_inputs(H, W, gamma)
    return _fbn_step(H, W, gamma, activation, center)


def _fbn_step(H, W, gamma, activation, center):
    features = H if activation is None else activation(H)
    # FBN is invariant to scaling H_γ, so γ = ∞ is the limit H_γ / γ = W F(H).
    # Fused products: one pass less than H + γ(WF).
    if math.isinf(gamma):
        H_gamma = W @ features
    elif H.ndim == W.ndim == 2:
        H_gamma = torch.addmm(H, W, features, alpha=gamma)
    elif H.ndim == W.ndim == 3:
        H_gamma = torch.baddbmm(H, W, features, alpha=gamma)
    else:
        H_gamma = H + gamma * (W @ features)
    if center:
        H_gamma = H_gamma - H_gamma.mean(-1, keepdim=True)
    return _normalize_rows(H_gamma)


def _fbn_step_into(H, W, gamma, activation, center, out):
    """``_fbn_step`` written into ``out`` (a tensor shaped like H, not H itself): the same
    operations in the same order, so the same values, without allocating the layer's H_γ and
    its normalized copy (on a CPU, fresh multi-megabyte results cost as much as the arithmetic
    around the product). No autograd: ``out`` is overwritten at every layer."""
    features = H if activation is None else activation(H)
    if math.isinf(gamma):
        torch.matmul(W, features, out=out)
    elif H.ndim == W.ndim == 2:
        torch.addmm(H, W, features, alpha=gamma, out=out)
    elif H.ndim == W.ndim == 3:
        torch.baddbmm(H, W, features, alpha=gamma, out=out)
    else:
        out.copy_(H + gamma * (W @ features))
    if center:
        out.sub_(out.mean(-1, keepdim=True))
    return out.mul_(math.sqrt(out.shape[-1]) / torch.linalg.vector_norm(out, dim=-1, keepdim=True))


def vanilla_step(H: torch.Tensor, W: torch.Tensor, gamma: float) -> torch.Tensor:
    """Ĥ₊ = (I + γW) Ĥ: one layer of the linear residual network without normalization
    (Sec. 1 with F linear; Lemma 4 studies the products B_ℓ = Π_k (I + γW_k))."""
    _check_step_inputs(H, W, gamma)
    if math.isinf(gamma):
        raise ValueError("the vanilla residual step needs a finite gamma")
    return H + gamma * (W @ H)


# --- chains --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)  # no ==: arrays compare elementwise
class SpectralObservables(Generic[Series]):
    """The functions of M = M(H) the paper averages along chains: one value per matrix of a
    batch (``spectral_observables``), or, recorded along a chain, series over the records
    (first axis), as torch tensors or, once moved off the device, numpy arrays.

    ``trace_cube`` = Tr(M³) and ``diag_square`` = Tr(diag(M²)²) are the two expectations whose
    ratio is the regularity constant α (Def. 7); ``rank_tau`` holds rank_τ(H) for each τ
    recorded (read it with ``soft_rank``)."""

    r: Series
    frobenius_sq: Series
    trace_cube: Series
    diag_square: Series
    rank_tau: dict[float, Series]

    def soft_rank(self, tau: float) -> Series:
        """rank_τ(H) (Eq. 4) at a recorded τ."""
        if tau not in self.rank_tau:
            raise ValueError(f"rank_τ was recorded for τ ∈ {sorted(self.rank_tau)}, not for τ = {tau:g}")
        return self.rank_tau[tau]

    def map(self, transform: Callable[[Series], Any]) -> SpectralObservables:
        """Every observable transformed alike (moved to numpy, sliced, reshaped)."""
        return SpectralObservables(transform(self.r), transform(self.frobenius_sq), transform(self.trace_cube),
                                   transform(self.diag_square), {tau: transform(v) for tau, v in self.rank_tau.items()})

    @staticmethod
    def join(parts: Sequence[SpectralObservables], combine: Callable[[list[Series]], Any]) -> SpectralObservables:
        """The parts combined observable by observable: ``torch.stack`` turns the values of
        successive records into series, ``np.concatenate(…, axis=1)`` puts chains side by side."""
        return SpectralObservables(
            combine([part.r for part in parts]), combine([part.frobenius_sq for part in parts]),
            combine([part.trace_cube for part in parts]), combine([part.diag_square for part in parts]),
            {tau: combine([part.rank_tau[tau] for part in parts]) for tau in parts[0].rank_tau},
        )


def spectral_observables(H: torch.Tensor, taus: tuple[float, ...] = (0.5,)) -> SpectralObservables[torch.Tensor]:
    """r(H), ‖M‖_F², Tr(M³), Tr(diag(M²)²) and rank_τ(H) for each τ in ``taus`` (from the
    eigenvalues of M: λ_i = σ_i² / N), per matrix of a batch."""
    M = gram(H)
    frobenius_sq = (M**2).sum((-2, -1))
    trace = torch.diagonal(M, dim1=-2, dim2=-1).sum(-1)
    row_norms_sq = (M**2).sum(-1)  # the diagonal of M² (M is symmetric)
    r = trace**2 / frobenius_sq
    trace_cube = ((M @ M) * M).sum((-2, -1))
    diag_square = (row_norms_sq**2).sum(-1)
    eigenvalues = torch.linalg.eigvalsh(M) if taus else None  # only when some rank_τ is asked for
    rank_tau = {tau: (eigenvalues >= tau).sum(-1).to(H.dtype) for tau in taus}
    return SpectralObservables(r, frobenius_sq, trace_cube, diag_square, rank_tau)


def gaussian_inputs(d: int, n: int, generator: torch.Generator, chains: int | None = None,
                    dtype: torch.dtype | None = None, device: str | torch.device = "cpu") -> torch.Tensor:
    """Standard Gaussian inputs X ∈ ℝ^{d×N} (rank min(d, N) almost surely), one per chain."""
    dtype = torch.float64 if dtype is None else dtype
    shape = (d, n) if chains is None else (chains, d, n)
    return torch.randn(shape, generator=generator, dtype=dtype, device=device)


# What a chain records at each recorded step: one tensor, or the spectral observables.
Observation = TypeVar("Observation", "torch.Tensor", SpectralObservables)


@dataclass
class ChainRun(Generic[Observation]):
    """A chain's last state and what ``observe`` recorded, stacked over the records: a tensor
    of shape (records, *batch) or SpectralObservables of such series (None: nothing observed)."""

    final: torch.Tensor
    series: Observation | None
    recorded_steps: list[int]


def _stack_records(records: list[Observation]) -> Observation | None:
    if not records:
        return None
    if isinstance(records[0], SpectralObservables):
        return SpectralObservables.join(records, torch.stack)
    return torch.stack(records)


def run_chain(
    X: torch.Tensor,
    steps: int,
    gamma: float,
    generator: torch.Generator,
    *,
    activation: Activation | None = None,
    law: str = "uniform",
    center: bool = False,
    observe: Callable[[torch.Tensor], Observation] | None = None,
    burn_in: int = 0,
    every: int = 1,
    progress: Callable[[range], Iterable[int]] | None = None,
) -> ChainRun[Observation]:
    """Run H_ℓ = FBN_γ(H_{ℓ−1}, W_ℓ), H_0 = X, for ``steps`` layers (Def. 2: H_1 = FBN_γ(X, W_1)).

    A batch X of shape (B, d, N) runs B independent chains at once (the batched matmul is
    where the time goes). ``observe(H)`` is recorded after every ``every``-th step past
    ``burn_in``; ``gamma = math.inf`` drops the skip connection (H_γ ∝ W F(H), the γ = ∞
    networks of Fig. 2). ``progress`` wraps the layers (e.g. ``Context.progress``, a bar).

    The layers reuse their buffers (the weights and two iterates, X left untouched): ``observe``
    must return new tensors, not H or a view of it, and no gradient flows through the chain.
    """
    _check_run(X, steps, burn_in, every, gamma)
    batch = tuple(X.shape[:-2])
    H = X
    weights = torch.empty((*batch, X.shape[-2], X.shape[-2]), dtype=X.dtype, device=X.device)
    iterates = [torch.empty_like(X, memory_format=torch.contiguous_format) for _ in range(2)]
    records: list[Observation] = []
    recorded = []
    layers = range(1, steps + 1)
    with threads_for(X.numel() * X.shape[-2]), torch.no_grad():
        for step in layers if progress is None else progress(layers):
            W = sample_weights(X.shape[-2], generator, law, X.dtype, X.device, batch, out=weights)
            H = _fbn_step_into(H, W, gamma, activation, center, iterates[step % 2])
            if observe is not None and step > burn_in and (step - burn_in) % every == 0:
                records.append(observe(H))
                recorded.append(step)
    return ChainRun(H, _stack_records(records), recorded)


def _check_run(X: torch.Tensor, steps: int, burn_in: int, every: int, gamma: float) -> None:
    _check_matrix(X, "X")
    if not bool(torch.isfinite(X).all()):
        raise ValueError("X must have finite entries (found NaN or ±inf)")
    if not (gamma >= 0):
        raise ValueError(f"gamma must be ≥ 0 (math.inf for no skip connection), got {gamma}")
    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive integer, got {steps!r}")
    if burn_in < 0 or burn_in >= steps or every < 1:
        raise ValueError(f"need 0 ≤ burn_in < steps and every ≥ 1, got burn_in={burn_in}, every={every}")


def run_vanilla_chain(
    X: torch.Tensor,
    steps: int,
    gamma: float,
    generator: torch.Generator,
    *,
    law: str = "uniform",
    observe: Callable[[torch.Tensor], Observation] | None = None,
    burn_in: int = 0,
    every: int = 1,
) -> ChainRun[Observation]:
    """The vanilla linear residual chain Ĥ_ℓ = (I + γW_ℓ) Ĥ_{ℓ−1} = B_ℓ X (Sec. 3.5), kept at
    the scale of a BN output: H̃_ℓ = Ĥ_ℓ · √(dN) / ‖Ĥ_ℓ‖_F, so Tr M(H̃_ℓ) = d as for H ∈ 𝓗.

    The paper normalizes by ‖B_ℓ‖ instead; both are positive multiples of B_ℓ X, so rank,
    the ratios σ_i/σ_1 and whether the limit is rank one do not depend on the choice, and
    ours makes rank_τ comparable with the BN chain's. Rescaling at every layer keeps floats
    away from overflow (‖B_ℓ‖ grows exponentially).
    """
    _check_run(X, steps, burn_in, every, gamma)
    if math.isinf(gamma):
        raise ValueError("the vanilla residual chain needs a finite gamma")
    batch = tuple(X.shape[:-2])
    d, n = X.shape[-2], X.shape[-1]
    H = _rescale_to_trace(X, d, n)
    weights = torch.empty((*batch, d, d), dtype=X.dtype, device=X.device)
    records: list[Observation] = []
    recorded = []
    with threads_for(X.numel() * d):
        for step in range(1, steps + 1):
            W = sample_weights(d, generator, law, X.dtype, X.device, batch, out=weights)
            H = _rescale_to_trace(H + gamma * (W @ H), d, n)
            if observe is not None and step > burn_in and (step - burn_in) % every == 0:
                records.append(observe(H))
                recorded.append(step)
    return ChainRun(H, _stack_records(records), recorded)


def _rescale_to_trace(H: torch.Tensor, d: int, n: int) -> torch.Tensor:
    return H * torch.rsqrt((H**2).sum((-2, -1), keepdim=True) / (d * n))


def lyapunov_log_growth(
    d: int,
    steps: int,
    gamma: float,
    generator: torch.Generator,
    *,
    chains: int = 1,
    top: int = 2,
    law: str = "uniform",
    dtype: torch.dtype | None = None,
    device: str | torch.device = "cpu",
    conformal: bool = False,
) -> torch.Tensor:
    """log |R_ii| of the QR steps Q_ℓ R_ℓ = (I + γW_ℓ) Q_{ℓ−1}, i ≤ ``top``: shape (steps, chains, top).

    Averaged over ℓ they converge to the top Lyapunov exponents λ_1 ≥ λ_2 ≥ … of the
    product B_ℓ = Π(I + γW_k) (Benettin's method), and σ_2(B_ℓ)/σ_1(B_ℓ) = e^{−ℓ(λ_1−λ_2)+o(ℓ)}:
    a gap λ_1 − λ_2 > 0 is exactly the collapse of B_ℓ/‖B_ℓ‖ onto rank one. Working with
    the orthonormal Q_ℓ avoids the underflow of σ_2/σ_1 below machine precision that
    forming B_ℓ itself would hit after a few hundred layers.

    ``conformal=True`` (d even) replaces W_ℓ by aI + bK, K = I_{d/2} ⊗ [[0, −1], [1, 0]]
    and a, b iid from ``law``: then (I + γW)ᵀ(I + γW) = ((1 + γa)² + γ²b²) I, every product
    is a multiple of an orthogonal matrix and all Lyapunov exponents are equal — a chain
    whose gap is exactly zero, the control that an estimator of the gap must not call positive.
    """
    if not isinstance(top, int) or not 1 <= top <= d:
        raise ValueError(f"top must be an integer in [1, d = {d}], got {top!r}")
    if not (0 < gamma < math.inf):
        raise ValueError(f"gamma must be positive and finite, got {gamma}")
    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive integer, got {steps!r}")
    if conformal and d % 2:
        raise ValueError(f"a conformal chain needs an even d, got d = {d}")
    dtype = torch.float64 if dtype is None else dtype
    eye = torch.eye(d, dtype=dtype, device=device)
    rotation = torch.kron(torch.eye(d // 2, dtype=dtype, device=device),
                          torch.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=dtype, device=device))
    Q = eye[:, :top].expand(chains, d, top)
    weights = torch.empty((chains, d, d), dtype=dtype, device=device)
    growth = []
    with threads_for(chains * d * d * top):
        for _ in range(steps):
            if conformal:
                a, b = (sample_weights(2, generator, law, dtype, device, (chains,))
                        .reshape(chains, 4)[:, :2, None, None].unbind(1))
                W = a * eye + b * rotation
            else:
                W = sample_weights(d, generator, law, dtype, device, (chains,), out=weights)
            Q, log_r = _orthonormalize(Q + gamma * (W @ Q))
            growth.append(log_r)
    return torch.stack(growth)


def _orthonormalize(V: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Q and log|R_ii| of the thin QR V = QR of a batch (chains, d, k), by Gram–Schmidt with
    reorthogonalization ("twice is enough", Giraud et al. 2005): for the few columns of a
    Benettin step these elementwise batched operations are much faster than LAPACK's QR
    called once per small matrix, and as accurate (orthogonality to a few ulps)."""
    columns, logs = [], []
    for i in range(V.shape[-1]):
        v = V[..., i]
        for _ in range(2):
            for q in columns:
                v = v - (q * v).sum(-1, keepdim=True) * q
        norm = torch.linalg.vector_norm(v, dim=-1)
        columns.append(v / norm[..., None])
        logs.append(torch.log(norm))
    return torch.stack(columns, -1), torch.stack(logs, -1)


# --- ergodic averages ----------------------------------------------------------------


def _time_series(values) -> np.ndarray:
    """A (records,) or (records, chains) series as one 1-D series: the across-chain mean at
    each record, itself a functional of the product chain, so batch means apply to it."""
    values = values.detach().cpu().numpy() if isinstance(values, torch.Tensor) else np.asarray(values, dtype=float)
    if values.ndim == 2:
        values = values.mean(axis=1)
    if values.ndim != 1 or not np.all(np.isfinite(values)):
        raise ValueError(f"expected a finite series of shape (records,) or (records, chains), got shape {values.shape}")
    return values


def ergodic_average(values, confidence: float = 0.95, batches: int = 40) -> stats.Interval:
    """The ergodic average of a recorded series (Eq. 54) with a batch-means interval."""
    return stats.batch_means(_time_series(values), batches, confidence)


def ratio_of_averages(numerator, denominator, confidence: float = 0.95, batches: int = 40) -> stats.Interval:
    """Ê[numerator] / Ê[denominator] with a batch-means interval by the delta method: the
    ratio R̂ is off by mean(z)/mean(denominator), z_ℓ = numerator_ℓ − R̂ denominator_ℓ.
    This is how the regularity constant α = E Tr(diag(M²)²) / E Tr(M³) is estimated."""
    num, den = _time_series(numerator), _time_series(denominator)
    if num.shape != den.shape:
        raise ValueError(f"numerator and denominator series differ in shape: {num.shape} vs {den.shape}")
    ratio = float(num.mean() / den.mean())
    spread = stats.batch_means(num - ratio * den, batches, confidence)
    half = (spread.high - spread.low) / 2 / abs(float(den.mean()))
    return stats.Interval(ratio, ratio - half, ratio + half, confidence)


def regularity_constant(run: ChainRun[SpectralObservables], confidence: float = 0.95,
                        batches: int = 40) -> stats.Interval:
    """α of Def. 7 estimated along a chain recorded with ``spectral_observables``."""
    return ratio_of_averages(run.series.diag_square, run.series.trace_cube, confidence, batches)


# --- benchmark -----------------------------------------------------------------------


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _best_rates(works: dict[str, Callable[[], None]], repetitions: int, rounds: int,
                device: torch.device) -> dict[str, float]:
    """Repetitions per second of each work, best of ``rounds`` rounds. The works alternate
    within every round so that a load change on a shared machine hits them alike."""
    best = {name: math.inf for name in works}
    for work in works.values():
        work()  # warm-up: allocations, kernel selection
    for _ in range(rounds):
        for name, work in works.items():
            _synchronize(device)
            started = time.perf_counter()
            for _ in range(repetitions):
                work()
            _synchronize(device)
            best[name] = min(best[name], time.perf_counter() - started)
    return {name: repetitions / seconds for name, seconds in best.items()}


def benchmark_chain(d: int = 256, n: int = 256, layers: int = 50, device: str = "cpu",
                    dtype: torch.dtype | None = None, rounds: int = 5, chains: int = 8) -> dict:
    """Layers per second of ``chains`` independent linear BN chains stepped as one batch
    (weights drawn, H_γ formed by one batched product, rows normalized), against the rate of
    the batched matmul (chains, d, d) @ (chains, d, N) each layer must do: same shapes, same
    run. The ratio is the fraction of the machine's batched-matmul speed the chains reach
    (target ≥ 0.3 on CPU, ≥ 0.5 on a GPU); rates count batched layers, i.e. ``chains`` chain layers each."""
    if d < 1 or n < 1 or layers < 1 or rounds < 1 or chains < 1:
        raise ValueError(f"d, n, layers, rounds and chains must be positive, got d={d}, n={n}, layers={layers}, "
                         f"rounds={rounds}, chains={chains}")
    dtype = torch.float64 if dtype is None else dtype
    torch_device = torch.device(device)
    generator = torch.Generator(device=torch_device).manual_seed(0)
    H = project_rows(gaussian_inputs(d, n, generator, chains, dtype=dtype, device=torch_device))
    W = sample_weights(d, generator, dtype=dtype, device=torch_device, batch=(chains,))
    state = {"H": H}

    def layer() -> None:
        weights = sample_weights(d, generator, "uniform", dtype, torch_device, (chains,))
        state["H"] = _fbn_step(state["H"], weights, 0.5, None, False)

    rates = _best_rates({"chain": layer, "matmul": lambda: torch.matmul(W, H)}, layers, rounds, torch_device)
    chain_rate, matmul_rate = rates["chain"], rates["matmul"]
    return {
        "d": d,
        "n": n,
        "chains": chains,
        "device": str(torch_device),
        "dtype": str(dtype).removeprefix("torch."),
        "threads": torch.get_num_threads(),
        "layers": layers,
        "layers_per_second": round(chain_rate, 1),
        "matmul_per_second": round(matmul_rate, 1),
        "matmul_gflops": round(matmul_rate * 2 * chains * d * d * n / 1e9, 2),
        "ratio": round(chain_rate / matmul_rate, 3),
    }
