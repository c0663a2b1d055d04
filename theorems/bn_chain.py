"""The Markov chain of batch-normalized pre-activations of daneshmand2020, in torch.

Definitions follow shared/seeds/004_2bd97c699bfe9ad2.txt (Sec. 2):

- M(H) = H Hᵀ / N (Eq. 2), r(H) = Tr(M)² / ‖M‖_F² (Eq. 3),
  rank_τ(H) = #{i : σ_i² / N ≥ τ} (Eq. 4);
- 𝓗 = the d × N matrices whose rows have norm √N (Sec. 2.3);
- μ: W with iid entries uniform[−√3, √3] (Def. 1);
- FBN_γ(H, W) = diag(M(H_γ))^{−1/2} H_γ with H_γ = H + γ W F(H) (Eq. 5), the batch
  normalization BN_{0,1} without mean subtraction; the chain H_{ℓ+1} = FBN_γ(H_ℓ, W_ℓ) (Def. 2);
- the vanilla residual chain Ĥ_{ℓ+1} = (I + γW_ℓ) Ĥ_ℓ (Sec. 1, Lemma 4).

Everything is float64 by default and runs on whatever device its tensors live on.
"""

from __future__ import annotations

import math
from typing import Callable

import torch

Activation = Callable[[torch.Tensor], torch.Tensor]

WEIGHT_LAWS = ("uniform", "asymmetric", "gaussian", "rademacher")


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
    return H * torch.rsqrt(norms_sq)


def sample_weights(
    d: int,
    generator: torch.Generator | None,
    law: str = "uniform",
    dtype: torch.dtype = torch.float64,
    device: str | torch.device = "cpu",
    batch: tuple[int, ...] = (),
) -> torch.Tensor:
    """A d × d weight matrix (or a batch of them) with iid entries:

    - "uniform": uniform[−√3, √3], zero mean and unit variance, the law μ of Def. 1;
    - "asymmetric": uniform[0, 2/√d], the non-centred law of Sec. 5.2 ("Breaking BN");
    - "gaussian": standard normal; "rademacher": ±1 with probability 1/2 each.
    """
    if not isinstance(d, int) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    shape = (*batch, d, d)
    uniform = torch.rand(shape, generator=generator, dtype=dtype, device=device)
    if law == "uniform":
        return (2 * uniform - 1) * math.sqrt(3)
    if law == "asymmetric":
        return uniform * (2 / math.sqrt(d))
    if law == "gaussian":
        return torch.randn(shape, generator=generator, dtype=dtype, device=device)
    if law == "rademacher":
        return torch.where(uniform < 0.5, -1.0, 1.0).to(dtype)
    raise ValueError(f"unknown weight law {law!r}; choose one of {', '.join(WEIGHT_LAWS)}")


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
    Batches (..., d, N) with weights (..., d, d) step independent chains at once.
    """
    _check_matrix(H)
    _check_matrix(W, "W")
    if W.shape[-1] != W.shape[-2] or W.shape[-1] != H.shape[-2]:
        raise ValueError(f"W must be d × d with d = {H.shape[-2]} rows of H, got W of shape {tuple(W.shape)}")
    features = H if activation is None else activation(H)
    H_gamma = H + gamma * (W @ features)
    if center:
        H_gamma = H_gamma - H_gamma.mean(-1, keepdim=True)
    return project_rows(H_gamma)


def vanilla_step(H: torch.Tensor, W: torch.Tensor, gamma: float) -> torch.Tensor:
    """Ĥ₊ = (I + γW) Ĥ: one layer of the linear residual network without normalization
    (Sec. 1 with F linear; Lemma 4 studies the products of the matrices I + γW)."""
    _check_matrix(H)
    _check_matrix(W, "W")
    if W.shape[-1] != W.shape[-2] or W.shape[-1] != H.shape[-2]:
        raise ValueError(f"W must be d × d with d = {H.shape[-2]} rows of H, got W of shape {tuple(W.shape)}")
    return H + gamma * (W @ H)
