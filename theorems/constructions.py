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

This module checks the arguments; the construction itself (the mathematics over float64 or
exactly over Q, and the torch modules) is in ``theorems.maths.construction``.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from .errors import ConstructionFailed, ConstructionInputError
from .maths import construction as cm

__all__ = ["ConstructionFailed", "ConstructionInputError", "build_source"]


def _dtype_of(target: nn.Module) -> torch.dtype:
    dtypes = {p.dtype for p in target.parameters()}
    if len(dtypes) != 1 or next(iter(dtypes)) not in (torch.float32, torch.float64):
        raise ConstructionInputError(f"target parameters must all be float32 or all float64, "
                                     f"got {sorted(map(str, dtypes))}")
    return next(iter(dtypes))


def _check_parameters(layers: list[cm.Affine], method: str, k, p, rank, width) -> None:
    if method not in cm.METHODS:
        raise ConstructionInputError(f"unknown method {method!r}; choose one of {', '.join(cm.METHODS)}")
    for index, layer in enumerate(layers):
        d_in = layer.weight.shape[1]
        if method == "deep" and index == 0 and not (isinstance(k, int) and 1 <= k <= d_in):
            raise ConstructionInputError(f"target layer 0: k = {k!r} outside [1, {d_in}] "
                                         f"(k ∈ [d], d the input width, for method 'deep')")
        if method == "low_rank" and rank is not None:
            actual = int(np.linalg.matrix_rank(layer.weight))
            if not (isinstance(rank, int) and rank >= 1):
                raise ConstructionInputError(f"rank = {rank!r} must be an integer ≥ 1 "
                                             f"(each layer uses min(rank, its width))")
            if actual > rank:
                raise ConstructionInputError(f"target layer {index}: weight has rank {actual} > rank = {rank}")
    if method == "sparse" and not (isinstance(p, (int, float)) and 0 < p <= 1):
        raise ConstructionInputError(f"keep-probability p = {p!r} outside (0, 1]")
    if method == "burkholz" and width not in ("min", "max"):
        raise ConstructionInputError(f"width = {width!r}: choose 'min' (Thm 2.2) or 'max' (Thm 2.3)")


def build_source(target: nn.Sequential, method: str = "wide", seed: int = 0, *, k: int | None = None,
                 p: float | None = None, rank: int | None = None, width: str = "min", radius: float = 1.0,
                 log: cm.SolveLog | None = None) -> nn.Module:
    ("""A frozen random source whose BatchNorm parameters make it equal ``target`` on
    ‖x‖₂ ≤ ``radius`` (everywhere for convolutional targets, which take ``method="burkholz"``). """
     """ConstructionInputError (a ValueError) for bad input (naming the layer); ConstructionFailed when
    the random draw is degenerate for this target (probability 0, except for ``"sparse"``).""")
    dtype = _dtype_of(target)
    if isinstance(target, nn.Sequential) and any(isinstance(m, (nn.Conv1d, nn.Conv2d)) for m in target):
        if method != "burkholz":
            raise ConstructionInputError(f"convolutional targets need method='burkholz', not {method!r}")
        if width not in ("min", "max"):
            raise ConstructionInputError(f"width = {width!r}: choose 'min' (Thm 2.2) or 'max' (Thm 2.3)")
        return cm.conv_source(cm.conv_layers(target), cm.Draws(seed), width, dtype, log)
    layers = cm.target_layers(target)
    _check_parameters(layers, method, k, p, rank, width)
    if not (isinstance(radius, (int, float)) and 0 < radius < float("inf")):
        raise ConstructionInputError(f"radius = {radius!r} must be positive and finite")
    return cm.source_module(layers, method, seed, dtype, k=k, p=p, rank=rank, width=width, radius=radius,
                            log=log)
