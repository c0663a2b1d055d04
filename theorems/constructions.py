"""Build a frozen random network whose normalization layers alone reproduce a target.

``build_source(target, method=..., seed=...)`` takes a ``torch.nn.Sequential`` of
``nn.Linear``, ``nn.ReLU`` and eval-mode ``nn.BatchNorm1d`` layers and returns an eval-mode
module, in the target's dtype, made of frozen random ``nn.Linear`` layers and real
``nn.BatchNorm1d`` layers with running statistics set, whose only trainable parameters are
the BatchNorm ``weight`` and ``bias``, and which computes the same function on
‖x‖₂ ≤ ``radius`` (default 1). Methods:

- ``"wide"``: giannou2023 Thm 8 / Lemma 7, two layers of widths d_out·d_in and d_out per
  target layer;
- ``"low_rank"``: Cor 2, four layers of widths r·d_in, r, d_out·r, d_out (``rank=``, default the
  largest rank of a target weight; each layer uses min(rank, its width));
- ``"deep"``: Thm 9, skip-connected blocks of width d_out·k, ⌈d_in/k⌉ per target layer (``k=`` in
  [1, d], capped at each layer's input width);
- ``"sparse"``: Thm 11, the wide construction with weights kept with probability ``p=``;
- ``"burkholz"``: burkholz2024 Thm 2.2 at the minimum width c2·c0 − c2 + 1, or Thm 2.3
  (``width="max"``, c2·c0); also for targets of stride-1 'same'-padded ``Conv1d``/``Conv2d``
  layers and ReLUs (widths c2·c0·k − c2 + 1 or c2·c0·k, k the number of filter taps).

The mathematics (over float64 or exactly over Q) is in ``theorems.maths.construction``.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from .maths import construction as cm
from .maths.boolean_determinant import detbool
from .maths.khatri_rao import khatri_rao

METHODS = ("wide", "low_rank", "deep", "sparse", "burkholz")
ConstructionFailed = cm.ConstructionFailed


def target_layers(target: nn.Module) -> list[cm.Affine]:
    """The target as affine layers in float64, eval-mode BatchNorm folded into the Linear
    before it (giannou2023 Prop. 1). ValueError names the offending layer."""
    if not isinstance(target, nn.Sequential) or len(target) == 0:
        raise ValueError(f"target must be a non-empty torch.nn.Sequential, got {type(target).__name__}")
    layers: list[cm.Affine] = []
    previous = None  # the kind of the previous layer
    for index, module in enumerate(target):
        where = f"layer {index} ({type(module).__name__})"
        if isinstance(module, nn.Linear):
            if previous == "linear" or previous == "batchnorm":
                raise ValueError(f"{where}: two affine layers in a row; put a ReLU between them")
            weight = module.weight.detach().to(torch.float64).cpu().numpy()
            bias = (module.bias.detach().to(torch.float64).cpu().numpy() if module.bias is not None
                    else np.zeros(module.out_features))
            if layers and layers[-1].weight.shape[0] != module.in_features:
                raise ValueError(f"{where}: in_features {module.in_features} does not match the previous "
                                 f"layer's {layers[-1].weight.shape[0]} outputs")
            if not (np.all(np.isfinite(weight)) and np.all(np.isfinite(bias))):
                raise ValueError(f"{where}: weight or bias has NaN or infinite entries")
            layers.append(cm.Affine(weight, bias, False))
            previous = "linear"
        elif isinstance(module, nn.BatchNorm1d):
            if previous != "linear":
                raise ValueError(f"{where}: BatchNorm1d must directly follow an nn.Linear")
            if module.training or module.running_mean is None:
                raise ValueError(f"{where}: BatchNorm1d must be in eval mode with running statistics")
            if module.num_features != layers[-1].weight.shape[0]:
                raise ValueError(f"{where}: num_features {module.num_features} does not match the Linear's "
                                 f"{layers[-1].weight.shape[0]} outputs")
            mean = module.running_mean.detach().to(torch.float64).cpu().numpy()
            scale = 1 / np.sqrt(module.running_var.detach().to(torch.float64).cpu().numpy() + module.eps)
            if module.affine:
                scale = scale * module.weight.detach().to(torch.float64).cpu().numpy()
                shift = module.bias.detach().to(torch.float64).cpu().numpy()
            else:
                shift = np.zeros(module.num_features)
            last = layers[-1]
            layers[-1] = cm.Affine(scale[:, None] * last.weight, scale * (last.bias - mean) + shift, False)
            previous = "batchnorm"
        elif isinstance(module, nn.ReLU):
            if previous not in ("linear", "batchnorm"):
                raise ValueError(f"{where}: ReLU must follow an nn.Linear (or its BatchNorm1d)")
            layers[-1] = cm.Affine(layers[-1].weight, layers[-1].bias, True)
            previous = "relu"
        else:  # ValueError, not TypeError: the API promises one error type for every bad target
            raise ValueError(f"{where}: unsupported layer type; the target may hold nn.Linear, nn.ReLU "  # noqa: TRY004
                             f"and eval-mode nn.BatchNorm1d")
    return layers


def _dtype_of(target: nn.Module) -> torch.dtype:
    dtypes = {p.dtype for p in target.parameters()}
    if len(dtypes) != 1 or next(iter(dtypes)) not in (torch.float32, torch.float64):
        raise ValueError(f"target parameters must all be float32 or all float64, got {sorted(map(str, dtypes))}")
    return next(iter(dtypes))


class Draws:
    """Frozen random weights (Gaussian, variance 1/fan-in), biases and running statistics,
    from one numpy Generator so that a seed fixes the whole source."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def weight(self, shape: tuple[int, ...]) -> np.ndarray:
        return self.rng.standard_normal(shape) / np.sqrt(shape[-1])

    def statistics(self, features: int, fan_in: int) -> dict[str, np.ndarray]:
        bound = 1 / np.sqrt(fan_in)
        return {"linear_bias": self.rng.uniform(-bound, bound, features),
                "running_mean": self.rng.normal(0, 0.1, features),
                "running_var": self.rng.uniform(0.5, 2.0, features)}


def _frozen_linear(weight: np.ndarray, bias: np.ndarray | None, dtype) -> nn.Linear:
    layer = nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None, dtype=dtype)
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(weight))
        if bias is not None:
            layer.bias.copy_(torch.from_numpy(bias))
    layer.requires_grad_(False)
    return layer


def _batchnorm(gamma, beta, stats: dict[str, np.ndarray], dtype, eps: float = 1e-5) -> nn.BatchNorm1d:
    norm = nn.BatchNorm1d(len(gamma), eps=eps, dtype=dtype)
    weight, bias = cm.batchnorm_affine(np.asarray(gamma, float), np.asarray(beta, float), stats["linear_bias"],
                                       stats["running_mean"], stats["running_var"], eps)
    with torch.no_grad():
        norm.weight.copy_(torch.from_numpy(weight))
        norm.bias.copy_(torch.from_numpy(bias))
        norm.running_mean.copy_(torch.from_numpy(stats["running_mean"]))
        norm.running_var.copy_(torch.from_numpy(stats["running_var"]))
    return norm


def stages_module(stages: list[cm.Stage], draws: Draws, dtype) -> nn.Sequential:
    modules: list[nn.Module] = []
    for stage in stages:
        stats = draws.statistics(*stage.weight.shape)
        modules += [_frozen_linear(stage.weight, stats["linear_bias"], dtype), _batchnorm(stage.gamma, stage.beta, stats, dtype)]
        if stage.relu:
            modules.append(nn.ReLU())
    return nn.Sequential(*modules)


class SkipBlocks(nn.Module):
    """giannou2023 Thm 9 for one target layer: L_1 = BN_1(W_1 A_1 z_1), L_i = BN_i(W_i(σ(L_{i−1}) + A_i z_i)),
    output act(W_out L_K); chunk ``order[i]`` of the zero-padded input feeds block i."""

    def __init__(self, block: cm.SkipBlock, draws: Draws, dtype):
        super().__init__()
        self.k, self.relu = block.k, block.relu
        self.register_buffer("order", torch.tensor(block.order))
        self.lifts = nn.ModuleList(_frozen_linear(a, None, dtype) for a in block.lifts)
        self.weights, self.norms = nn.ModuleList(), nn.ModuleList()
        for weight, gamma, beta in zip(block.weights, block.gammas, block.betas):
            stats = draws.statistics(*weight.shape)
            self.weights.append(_frozen_linear(weight, stats["linear_bias"], dtype))
            self.norms.append(_batchnorm(gamma, beta, stats, dtype))
        self.out = _frozen_linear(block.out, None, dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        count = len(self.weights)
        padded = nn.functional.pad(x, (0, count * self.k - x.shape[-1]))
        carried = None
        for i in range(count):
            start = int(self.order[i]) * self.k
            lifted = self.lifts[i](padded[..., start:start + self.k])
            carried = self.norms[i](self.weights[i](lifted if carried is None else torch.relu(carried) + lifted))
        h = self.out(carried)
        return torch.relu(h) if self.relu else h


def _check_parameters(layers: list[cm.Affine], method: str, k, p, rank, width) -> None:
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    for index, layer in enumerate(layers):
        d_in = layer.weight.shape[1]
        if method == "deep" and index == 0 and not (isinstance(k, int) and 1 <= k <= d_in):
            raise ValueError(f"target layer 0: k = {k!r} outside [1, {d_in}] (k ∈ [d], d the input width, for method 'deep')")
        if method == "low_rank" and rank is not None:
            actual = int(np.linalg.matrix_rank(layer.weight))
            if not (isinstance(rank, int) and rank >= 1):
                raise ValueError(f"rank = {rank!r} must be an integer ≥ 1 (each layer uses min(rank, its width))")
            if actual > rank:
                raise ValueError(f"target layer {index}: weight has rank {actual} > rank = {rank}")
    if method == "sparse" and not (isinstance(p, (int, float)) and 0 < p <= 1):
        raise ValueError(f"keep-probability p = {p!r} outside (0, 1]")
    if method == "burkholz" and width not in ("min", "max"):
        raise ValueError(f"width = {width!r}: choose 'min' (Thm 2.2) or 'max' (Thm 2.3)")


def sparse_mask(draws: Draws, p: float):
    def apply(weight: np.ndarray) -> np.ndarray:
        return weight * (draws.rng.random(weight.shape) < p)
    return apply


def sparse_support_check(index: int, first: np.ndarray, second: np.ndarray) -> None:
    """Thm 11 via Lemma 9: the system of a sparsified pair is invertible (almost surely) iff
    the Khatri–Rao product of the masks has a perfect matching; name the layer otherwise."""
    if not detbool(khatri_rao(second != 0, (first != 0).T)):
        raise ConstructionFailed(f"target layer {index}: the sparsity masks leave the Khatri–Rao system "
                                 f"without a perfect matching (DetBool = 0), so it is singular")


def plan(layers: list[cm.Affine], method: str, draws: Draws, *, k=None, p=None, rank=None, width="min",
         radius: float = 1.0, log: cm.SolveLog | None = None, recipe: cm.Recipe = cm.DEFAULT, reorder: bool = True):
    """The float64 plan of a method (stages or skip blocks), before any torch module.
    ``recipe`` and ``reorder`` exist for the claims' broken and as-printed variants."""
    if method == "wide":
        return cm.plan_wide(layers, draws.weight, radius, recipe, log=log)
    if method == "sparse":
        return cm.plan_wide(layers, draws.weight, radius, recipe, mask=sparse_mask(draws, p), log=log,
                            precheck=None if recipe.least_squares else sparse_support_check)
    if method == "low_rank":
        if rank is None:
            rank = max(1, max(int(np.linalg.matrix_rank(layer.weight)) for layer in layers))
        return cm.plan_low_rank(layers, draws.weight, rank, radius, recipe, log=log)
    if method == "deep":
        return cm.plan_deep(layers, draws.weight, k, radius, recipe, reorder=reorder, log=log)
    return cm.plan_burkholz(layers, draws.weight, width, radius, recipe, log=log)


def module_of(built, draws: Draws, dtype) -> nn.Module:
    """The eval-mode torch module of a float64 plan."""
    if built and isinstance(built[0], cm.SkipBlock):
        return nn.Sequential(*(SkipBlocks(block, draws, dtype) for block in built)).eval()
    return stages_module(built, draws, dtype).eval()


def conv_layers(target: nn.Sequential) -> list[tuple[np.ndarray, np.ndarray, bool]]:
    """(filter c_out × c_in × kernel, bias, ReLU after?) per convolution of a target made of
    stride-1, 'same'-padded (odd kernel, zero padding) Conv1d or Conv2d layers and ReLUs."""
    layers: list[tuple[np.ndarray, np.ndarray, bool]] = []
    kind = None
    for index, module in enumerate(target):
        where = f"layer {index} ({type(module).__name__})"
        if isinstance(module, (nn.Conv1d, nn.Conv2d)):
            if kind is not None and type(module) is not kind:
                raise ValueError(f"{where}: mixes 1-D and 2-D convolutions")
            kind = type(module)
            kernel = module.kernel_size
            same = module.padding == "same" or tuple(module.padding) == tuple((k - 1) // 2 for k in kernel)
            if (any(s != 1 for s in module.stride) or any(d != 1 for d in module.dilation) or module.groups != 1
                    or any(k % 2 == 0 for k in kernel) or not same or module.padding_mode != "zeros"):
                raise ValueError(f"{where}: only stride 1, dilation 1, groups 1, odd kernels and 'same' zero padding are supported")
            if layers and layers[-1][0].shape[0] != module.in_channels:
                raise ValueError(f"{where}: in_channels {module.in_channels} does not match the previous "
                                 f"layer's {layers[-1][0].shape[0]} outputs")
            weight = module.weight.detach().to(torch.float64).cpu().numpy()
            bias = (module.bias.detach().to(torch.float64).cpu().numpy() if module.bias is not None
                    else np.zeros(module.out_channels))
            layers.append((weight, bias, False))
        elif isinstance(module, nn.ReLU):
            if not layers or layers[-1][2]:
                raise ValueError(f"{where}: ReLU must follow a convolution")
            layers[-1] = (layers[-1][0], layers[-1][1], True)
        else:
            raise ValueError(f"{where}: unsupported layer type in a convolutional target (Conv1d/Conv2d and ReLU)")  # noqa: TRY004
    return layers


def conv_source(layers, draws: Draws, width: str, dtype, log: cm.SolveLog | None) -> nn.Sequential:
    """burkholz2024 Thm 2.2/2.3 per target convolution: a frozen 1×1 convolution to c1 channels,
    BatchNorm, a frozen convolution with the target's kernel ('same' zero padding), BatchNorm.
    No activation between the two (Sec. 2.2's linear first layer): a ReLU kept on by a shift
    would meet the zero padding of the second convolution at the border."""
    modules: list[nn.Module] = []
    for weight, bias, relu in layers:
        c2, c0, kernel = weight.shape[0], weight.shape[1], weight.shape[2:]
        c1 = cm.burkholz_width(c2, c0, int(np.prod(kernel)), width)
        first = draws.weight((c1, c0) + (1,) * len(kernel))
        second = draws.weight((c2, c1) + tuple(kernel))
        gamma1, gamma2 = cm.solve_two_layer(weight.reshape(c2, c0, -1), cm.composite_coefficients(second, first), width, log)
        conv, norm = (nn.Conv1d, nn.BatchNorm1d) if len(kernel) == 1 else (nn.Conv2d, nn.BatchNorm2d)
        for frozen, gamma, beta in ((first, gamma1, np.zeros(c1)), (second, gamma2, bias)):
            stats = draws.statistics(frozen.shape[0], int(np.prod(frozen.shape[1:])))
            layer = conv(frozen.shape[1], frozen.shape[0], frozen.shape[2:], padding="same", dtype=dtype)
            with torch.no_grad():
                layer.weight.copy_(torch.from_numpy(frozen))
                layer.bias.copy_(torch.from_numpy(stats["linear_bias"]))
            layer.requires_grad_(False)
            flat = _batchnorm(gamma, beta, stats, dtype)
            normalization = norm(frozen.shape[0], eps=flat.eps, dtype=dtype)
            normalization.load_state_dict(flat.state_dict())
            modules += [layer, normalization]
        if relu:
            modules.append(nn.ReLU())
    return nn.Sequential(*modules).eval()


def build_source(target: nn.Sequential, method: str = "wide", seed: int = 0, *, k: int | None = None,
                 p: float | None = None, rank: int | None = None, width: str = "min", radius: float = 1.0,
                 log: cm.SolveLog | None = None) -> nn.Module:
    """A frozen random source whose BatchNorm parameters make it equal ``target`` on
    ‖x‖₂ ≤ ``radius`` (everywhere for convolutional targets, which take ``method="burkholz"``). ValueError for bad input (naming the layer); ConstructionFailed when
    the random draw is degenerate for this target (probability 0, except for ``"sparse"``)."""
    dtype = _dtype_of(target)
    if isinstance(target, nn.Sequential) and any(isinstance(m, (nn.Conv1d, nn.Conv2d)) for m in target):
        if method != "burkholz":
            raise ValueError(f"convolutional targets need method='burkholz', not {method!r}")
        if width not in ("min", "max"):
            raise ValueError(f"width = {width!r}: choose 'min' (Thm 2.2) or 'max' (Thm 2.3)")
        return conv_source(conv_layers(target), Draws(seed), width, dtype, log)
    layers = target_layers(target)
    _check_parameters(layers, method, k, p, rank, width)
    if not (isinstance(radius, (int, float)) and 0 < radius < float("inf")):
        raise ValueError(f"radius = {radius!r} must be positive and finite")
    draws = Draws(seed)
    built = plan(layers, method, draws, k=k, p=p, rank=rank, width=width, radius=radius, log=log)
    return module_of(built, draws, dtype)
