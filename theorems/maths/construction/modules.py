"""The torch side of the constructions: a target ``nn.Sequential`` read as float64 layers
(``target_layers``, ``conv_layers``) and a float64 plan built as an eval-mode torch source
(``module_of``, ``conv_source``): frozen ``nn.Linear`` (or convolution) layers and BatchNorm
layers whose running statistics and frozen biases come from the same ``Draws`` as the frozen
weights, with ``batchnorm_affine`` undoing giannou2023's Prop. 1 fold so that each BatchNorm
acts as the plan's ``gamma * (W h) + beta``.

``statistics`` picks the BatchNorm modules: ``"frozen"`` (``FrozenBatchNorm1d``/``2d``, which
normalize with their running statistics in training mode too, so the source stays the same
affine map under ``.train()``) or ``"batch"`` (plain ``nn.BatchNorm1d``/``2d``, which switch to
batch statistics in training mode). Both compute the same in eval mode.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ...errors import ConstructionInputError
from ...lazy import nn, torch
from .methods import Draws, plan
from .plans import (
    Affine,
    SkipBlock,
    SolveLog,
    Stage,
    batchnorm_affine,
    burkholz_width,
    composite_coefficients,
    solve_two_layer,
)

# ---------------------------------------------------------------- reading targets

def _weight_and_bias(module: nn.Module, where: str) -> tuple[np.ndarray, np.ndarray]:
    """A Linear's or convolution's weight and bias (zeros if none) in float64, checked finite."""
    weight = module.weight.detach().to(torch.float64).cpu().numpy()
    bias = (module.bias.detach().to(torch.float64).cpu().numpy() if module.bias is not None
            else np.zeros(weight.shape[0]))
    if not (np.all(np.isfinite(weight)) and np.all(np.isfinite(bias))):
        raise ConstructionInputError(f"{where}: weight or bias has NaN or infinite entries")
    return weight, bias


def target_layers(target: nn.Module) -> list[Affine]:
    """The target as affine layers in float64, eval-mode BatchNorm folded into the Linear
    before it (giannou2023 Prop. 1). ValueError names the offending layer."""
    if not isinstance(target, nn.Sequential):
        raise ConstructionInputError(f"target must be a torch.nn.Sequential, got {type(target).__name__}")
    if len(target) == 0:
        raise ConstructionInputError("target has no layers")
    layers: list[Affine] = []
    previous = None  # the kind of the previous layer
    for index, module in enumerate(target):
        where = f"layer {index} ({type(module).__name__})"
        if isinstance(module, nn.Linear):
            if previous == "linear" or previous == "batchnorm":
                raise ConstructionInputError(f"{where}: two affine layers in a row; put a ReLU between them")
            if layers and layers[-1].weight.shape[0] != module.in_features:
                raise ConstructionInputError(f"{where}: in_features {module.in_features} does not match the previous "
                                 f"layer's {layers[-1].weight.shape[0]} outputs")
            weight, bias = _weight_and_bias(module, where)
            layers.append(Affine(weight, bias, False))
            previous = "linear"
        elif isinstance(module, nn.BatchNorm1d):
            if previous != "linear":
                raise ConstructionInputError(f"{where}: BatchNorm1d must directly follow an nn.Linear")
            if module.training or module.running_mean is None:
                raise ConstructionInputError(f"{where}: BatchNorm1d must be in eval mode with running statistics")
            if module.num_features != layers[-1].weight.shape[0]:
                raise ConstructionInputError(f"{where}: num_features {module.num_features} does not match the Linear's "
                                 f"{layers[-1].weight.shape[0]} outputs")
            mean = module.running_mean.detach().to(torch.float64).cpu().numpy()
            variance = module.running_var.detach().to(torch.float64).cpu().numpy() + module.eps
            if not np.all(variance > 0):
                raise ConstructionInputError(f"{where}: running_var + eps must be positive")
            scale = 1 / np.sqrt(variance)
            if module.affine:
                scale = scale * module.weight.detach().to(torch.float64).cpu().numpy()
                shift = module.bias.detach().to(torch.float64).cpu().numpy()
            else:
                shift = np.zeros(module.num_features)
            last = layers[-1]
            layers[-1] = Affine(scale[:, None] * last.weight, scale * (last.bias - mean) + shift, False)
            if not (np.all(np.isfinite(layers[-1].weight)) and np.all(np.isfinite(layers[-1].bias))):
                raise ConstructionInputError(f"{where}: running statistics, weight or bias has NaN or infinite "
                                             f"entries")
            previous = "batchnorm"
        elif isinstance(module, nn.ReLU):
            if previous not in ("linear", "batchnorm"):
                raise ConstructionInputError(f"{where}: ReLU must follow an nn.Linear (or its BatchNorm1d)")
            layers[-1] = Affine(layers[-1].weight, layers[-1].bias, True)
            previous = "relu"
        else:  # ValueError, not TypeError: the API promises one error type for every bad target
            raise ConstructionInputError(f"{where}: unsupported layer type; the target may hold nn.Linear, nn.ReLU "
                             f"and eval-mode nn.BatchNorm1d")
    return layers


def conv_layers(target: nn.Sequential) -> list[tuple[np.ndarray, np.ndarray, bool]]:
    """(filter c_out × c_in × kernel, bias, ReLU after?) per convolution of a target made of
    stride-1, 'same'-padded (odd kernel, zero padding) Conv1d or Conv2d layers and ReLUs."""
    layers: list[tuple[np.ndarray, np.ndarray, bool]] = []
    kind = None
    for index, module in enumerate(target):
        where = f"layer {index} ({type(module).__name__})"
        if isinstance(module, (nn.Conv1d, nn.Conv2d)):
            if kind is not None and type(module) is not kind:
                raise ConstructionInputError(f"{where}: mixes 1-D and 2-D convolutions")
            kind = type(module)
            kernel = module.kernel_size
            same = module.padding == "same" or tuple(module.padding) == tuple((k - 1) // 2 for k in kernel)
            if (any(s != 1 for s in module.stride) or any(d != 1 for d in module.dilation) or module.groups != 1
                    or any(k % 2 == 0 for k in kernel) or not same or module.padding_mode != "zeros"):
                raise ConstructionInputError(f"{where}: only stride 1, dilation 1, groups 1, odd kernels and "
                                             f"'same' zero padding are supported")
            if layers and layers[-1][0].shape[0] != module.in_channels:
                raise ConstructionInputError(f"{where}: in_channels {module.in_channels} does not match the previous "
                                 f"layer's {layers[-1][0].shape[0]} outputs")
            layers.append((*_weight_and_bias(module, where), False))
        elif isinstance(module, nn.ReLU):
            if not layers or layers[-1][2]:
                raise ConstructionInputError(f"{where}: ReLU must follow a convolution")
            layers[-1] = (layers[-1][0], layers[-1][1], True)
        else:
            raise ConstructionInputError(f"{where}: unsupported layer type in a convolutional target "
                                         f"(Conv1d/Conv2d and ReLU)")
    return layers


# ---------------------------------------------------------------- building sources

def _frozen_linear(weight: np.ndarray, bias: np.ndarray | None, dtype) -> nn.Linear:
    layer = nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None, dtype=dtype)
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(weight))
        if bias is not None:
            layer.bias.copy_(torch.from_numpy(bias))
    layer.requires_grad_(False)
    return layer


class _FrozenStatistics:
    """Normalize with the running statistics in training mode as in eval mode, and never update
    them: the module stays the affine map ``weight * (x − mean) / √(var + eps) + bias`` under
    ``.train()``, with ``weight`` and ``bias`` still trainable (``momentum`` is unused)."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        self._check_input_dim(input)
        return nn.functional.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                                        training=False, eps=self.eps)


# What ``statistics`` may be: the BatchNorm modules a source is built with (``normalizations``).
STATISTICS = ("frozen", "batch")


def normalizations(statistics: str) -> tuple[type, type]:
    """The BatchNorm modules of 1-D and 2-D feature maps for ``statistics``."""
    if statistics == "frozen":
        return torch_class("FrozenBatchNorm1d"), torch_class("FrozenBatchNorm2d")
    return nn.BatchNorm1d, nn.BatchNorm2d


def _batchnorm(norm: type[nn.Module], gamma, beta, stats: dict[str, np.ndarray], dtype, eps: float = 1e-5) -> nn.Module:
    module = norm(len(gamma), eps=eps, dtype=dtype)
    weight, bias = batchnorm_affine(np.asarray(gamma, float), np.asarray(beta, float), stats["linear_bias"],
                                    stats["running_mean"], stats["running_var"], eps)
    with torch.no_grad():
        module.weight.copy_(torch.from_numpy(weight))
        module.bias.copy_(torch.from_numpy(bias))
        module.running_mean.copy_(torch.from_numpy(stats["running_mean"]))
        module.running_var.copy_(torch.from_numpy(stats["running_var"]))
    return module


def stages_module(stages: list[Stage], draws: Draws, dtype, statistics: str = "frozen") -> nn.Sequential:
    norm = normalizations(statistics)[0]
    modules: list[nn.Module] = []
    for stage in stages:
        stats = draws.statistics(*stage.weight.shape)
        modules += [_frozen_linear(stage.weight, stats["linear_bias"], dtype),
                    _batchnorm(norm, stage.gamma, stage.beta, stats, dtype)]
        if stage.relu:
            modules.append(nn.ReLU())
    return nn.Sequential(*modules)


class _SkipBlocks:
    """giannou2023 Thm 9 for one target layer: L_1 = BN_1(W_1 A_1 z_1), L_i = BN_i(W_i(σ(L_{i−1}) + A_i z_i)),
    output act(W_out L_K); chunk ``order[i]`` of the zero-padded input feeds block i."""

    def __init__(self, block: SkipBlock, draws: Draws, dtype, statistics: str = "frozen"):
        super().__init__()
        self.k, self.relu = block.k, block.relu
        self.register_buffer("order", torch.tensor(block.order))
        self.lifts = nn.ModuleList(_frozen_linear(a, None, dtype) for a in block.lifts)
        self.weights, self.norms = nn.ModuleList(), nn.ModuleList()
        for weight, gamma, beta in zip(block.weights, block.gammas, block.betas, strict=True):
            stats = draws.statistics(*weight.shape)
            self.weights.append(_frozen_linear(weight, stats["linear_bias"], dtype))
            self.norms.append(_batchnorm(normalizations(statistics)[0], gamma, beta, stats, dtype))
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



# The torch classes: (code, torch.nn base, what it is). Made on first use (``torch_class``,
# the module's ``__getattr__``): a class statement with an nn base would import torch with
# this module, and every command imports every module of the suite (``theorems.lazy``).
_TORCH_CLASSES = {
    "FrozenBatchNorm1d": (_FrozenStatistics, "BatchNorm1d",
                          "An ``nn.BatchNorm1d`` (same state dict) whose statistics stay frozen in training mode."),
    "FrozenBatchNorm2d": (_FrozenStatistics, "BatchNorm2d",
                          "An ``nn.BatchNorm2d`` (same state dict) whose statistics stay frozen in training mode."),
    "SkipBlocks": (_SkipBlocks, "Module", _SkipBlocks.__doc__),
}
TORCH_CLASSES = tuple(_TORCH_CLASSES)


@cache
def torch_class(name: str) -> type:
    """The torch class ``name`` of ``TORCH_CLASSES``, the same class at every call (it pickles by
    its name, as a class statement's would)."""
    code, base, doc = _TORCH_CLASSES[name]
    return type(name, (code, getattr(nn, base)), {"__module__": __name__, "__qualname__": name, "__doc__": doc})


def __getattr__(name: str):
    if name in _TORCH_CLASSES:
        return torch_class(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def module_of(built, draws: Draws, dtype, statistics: str = "frozen") -> nn.Module:
    """The eval-mode torch module of a float64 plan."""
    if built and isinstance(built[0], SkipBlock):
        return nn.Sequential(*(torch_class("SkipBlocks")(block, draws, dtype, statistics) for block in built)).eval()
    return stages_module(built, draws, dtype, statistics).eval()


def source_module(layers: list[Affine], method: str, seed: int, dtype, statistics: str = "frozen",
                  **options) -> nn.Module:
    """The eval-mode torch source of ``method`` for the float64 target ``layers``, every random
    number drawn from ``seed`` (``options`` as for ``plan``). Nothing is checked here: the
    public ``theorems.constructions.build_source`` checks its arguments, then calls this."""
    draws = Draws(seed)
    return module_of(plan(layers, method, draws, **options), draws, dtype, statistics)


def conv_source(layers, draws: Draws, width: str, dtype, log: SolveLog | None,
                statistics: str = "frozen") -> nn.Sequential:
    """burkholz2024 Thm 2.2/2.3 per target convolution: a frozen 1×1 convolution to c1 channels,
    BatchNorm, a frozen convolution with the target's kernel ('same' zero padding), BatchNorm.
    No activation between the two (Sec. 2.2's linear first layer): a ReLU kept on by a shift
    would meet the zero padding of the second convolution at the border."""
    modules: list[nn.Module] = []
    for weight, bias, relu in layers:
        c2, c0, kernel = weight.shape[0], weight.shape[1], weight.shape[2:]
        c1 = burkholz_width(c2, c0, int(np.prod(kernel)), width)
        first = draws.weight((c1, c0) + (1,) * len(kernel))
        second = draws.weight((c2, c1) + tuple(kernel))
        gamma1, gamma2 = solve_two_layer(weight.reshape(c2, c0, -1), composite_coefficients(second, first), width, log)
        conv = nn.Conv1d if len(kernel) == 1 else nn.Conv2d
        norm = normalizations(statistics)[len(kernel) - 1]
        for frozen, gamma, beta in ((first, gamma1, np.zeros(c1)), (second, gamma2, bias)):
            stats = draws.statistics(frozen.shape[0], int(np.prod(frozen.shape[1:])))
            layer = conv(frozen.shape[1], frozen.shape[0], frozen.shape[2:], padding="same", dtype=dtype)
            with torch.no_grad():
                layer.weight.copy_(torch.from_numpy(frozen))
                layer.bias.copy_(torch.from_numpy(stats["linear_bias"]))
            layer.requires_grad_(False)
            modules += [layer, _batchnorm(norm, gamma, beta, stats, dtype)]
        if relu:
            modules.append(nn.ReLU())
    return nn.Sequential(*modules).eval()
