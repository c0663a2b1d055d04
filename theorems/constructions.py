"""Build a frozen random network whose normalization layers alone reproduce a target.

``build_source(target, method=..., seed=...)`` takes a ``torch.nn.Sequential`` of
``nn.Linear``, ``nn.ReLU`` and eval-mode ``nn.BatchNorm1d`` layers and returns an eval-mode
module, in the target's dtype, made of frozen random ``nn.Linear`` layers and BatchNorm layers
with running statistics set, whose only trainable parameters are the BatchNorm ``weight`` and
``bias``, and which computes the same function on ‖x‖₂ ≤ ``radius`` (default 1). The BatchNorm
layers are ``FrozenBatchNorm1d``/``2d`` (``statistics="frozen"``, the default): subclasses of
``nn.BatchNorm1d``/``2d`` with the same state dict that normalize with their running statistics
in training mode too, so the source stays the promised function under ``.train()`` and
fine-tuning ``weight`` and ``bias`` moves it from there. ``statistics="batch"`` gives plain
BatchNorm, which switches to batch statistics under ``.train()`` (as a BatchNorm network
trained from scratch does) and then no longer equals the target. Methods:

- ``"wide"``: giannou2023 Thm 8 / Lemma 7, two layers of widths d_out·d_in and d_out per
  target layer;
- ``"low_rank"``: Cor 2, four layers of widths r·d_in, r, d_out·r, d_out (``rank=``, default the
  largest rank of a target weight, read at the precision of the target's dtype; each layer uses
  min(rank, its width));
- ``"deep"``: Thm 9, skip-connected blocks of width d_out·k, ⌈d_in/k⌉ per target layer (``k=`` in
  [1, d], capped at each layer's input width);
- ``"sparse"``: Thm 11, the wide construction with weights kept with probability ``p=``;
- ``"burkholz"``: burkholz2024 Thm 2.2 at the minimum width c2·c0 − c2 + 1, or Thm 2.3
  (``width="max"``, c2·c0); also for targets of stride-1 'same'-padded ``Conv1d``/``Conv2d``
  layers and ReLUs (widths c2·c0·k − c2 + 1 or c2·c0·k, k the number of filter taps).

This module checks the arguments; the construction itself (the mathematics over float64 or
exactly over Q, and the torch modules) is in ``theorems.maths.construction``.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from .errors import ConstructionFailed, ConstructionInputError
from .lazy import nn, torch
from .maths import construction as cm

# (FrozenBatchNorm1d and FrozenBatchNorm2d: torch classes, made when first asked for by __getattr__)
__all__ = ["ConstructionFailed", "ConstructionInputError", "FrozenBatchNorm1d", "FrozenBatchNorm2d",  # noqa: F822
           "build_source"]


def __getattr__(name: str):
    if name in ("FrozenBatchNorm1d", "FrozenBatchNorm2d"):
        return cm.torch_class(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _is_integer(value) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _dtype_of(target: nn.Module) -> torch.dtype:
    dtypes = {p.dtype for p in target.parameters()}
    if len(dtypes) != 1 or next(iter(dtypes)) not in (torch.float32, torch.float64):
        raise ConstructionInputError(f"target parameters must all be float32 or all float64, "
                                     f"got {sorted(map(str, dtypes))}")
    return next(iter(dtypes))


def _rank(weight: np.ndarray, dtype: torch.dtype) -> int:
    """The rank of a target weight at the precision of the target's dtype: singular values
    below max(shape) · eps(dtype) · σ_max are rounding (a float32 product of rank 2 has
    float64 rank min(shape))."""
    singular = np.linalg.svd(weight, compute_uv=False)
    return int(np.sum(singular > max(weight.shape) * torch.finfo(dtype).eps * singular.max(initial=0)))


def _check_options(method: str, seed, width: str, statistics: str) -> None:
    if method not in cm.METHODS:
        raise ConstructionInputError(f"unknown method {method!r}; choose one of {', '.join(cm.METHODS)}")
    if not (_is_integer(seed) and seed >= 0):
        raise ConstructionInputError(f"seed must be an integer ≥ 0, got {seed!r}")
    if width not in ("min", "max"):
        raise ConstructionInputError(f"width = {width!r}: choose 'min' (Thm 2.2) or 'max' (Thm 2.3)")
    if statistics not in cm.STATISTICS:
        raise ConstructionInputError(f"statistics = {statistics!r}: choose 'frozen' (running statistics in "
                                     f"training mode too) or 'batch' (plain BatchNorm)")


def _check_parameters(layers: list[cm.Affine], method: str, dtype: torch.dtype, k, p, rank, radius) -> None:
    d_in = layers[0].weight.shape[1]
    if method == "deep" and not (_is_integer(k) and 1 <= k <= d_in):
        raise ConstructionInputError(f"k must be an integer in [1, {d_in}] (the target's input width, for "
                                     f"method 'deep'), got {k!r}")
    if method == "low_rank" and rank is not None:
        if not (_is_integer(rank) and rank >= 1):
            raise ConstructionInputError(f"rank = {rank!r} must be an integer ≥ 1 "
                                         f"(each layer uses min(rank, its width))")
        for index, layer in enumerate(layers):
            if (actual := _rank(layer.weight, dtype)) > rank:
                raise ConstructionInputError(f"target layer {index}: weight has rank {actual} > rank = {rank}")
    if method == "sparse" and not (isinstance(p, (int, float)) and 0 < p <= 1):
        raise ConstructionInputError(f"keep-probability p = {p!r} outside (0, 1]")
    if not (isinstance(radius, (int, float)) and 0 < radius < float("inf")):
        raise ConstructionInputError(f"radius = {radius!r} must be positive and finite")


def build_source(target: nn.Sequential, method: str = "wide", seed: int = 0, *, k: int | None = None,
                 p: float | None = None, rank: int | None = None, width: str = "min", radius: float = 1.0,
                 statistics: str = "frozen", log: cm.SolveLog | None = None) -> nn.Module:
    ("""A frozen random source whose BatchNorm parameters make it equal ``target`` on
    ‖x‖₂ ≤ ``radius`` (everywhere for convolutional targets, which take ``method="burkholz"``), """
     """in eval and, with ``statistics="frozen"`` (FrozenBatchNorm1d/2d), in training mode; with
    ``statistics="batch"`` (plain nn.BatchNorm1d/2d) only in eval mode. ConstructionInputError (a
    ValueError) for bad input (naming the layer); ConstructionFailed when the random draw is
    degenerate for this target (probability 0, except for ``"sparse"``).""")
    _check_options(method, seed, width, statistics)
    if isinstance(target, nn.Sequential) and any(isinstance(m, (nn.Conv1d, nn.Conv2d)) for m in target):
        if method != "burkholz":
            raise ConstructionInputError(f"convolutional targets need method='burkholz', not {method!r}")
        layers = cm.conv_layers(target)
        return cm.conv_source(layers, cm.Draws(seed), width, _dtype_of(target), log, statistics)
    layers = cm.target_layers(target)
    dtype = _dtype_of(target)
    _check_parameters(layers, method, dtype, k, p, rank, radius)
    if method == "low_rank" and rank is None:
        rank = max(1, max(_rank(layer.weight, dtype) for layer in layers))
    return cm.source_module(layers, method, seed, dtype, statistics, k=k, p=p, rank=rank, width=width,
                            radius=radius, log=log)
