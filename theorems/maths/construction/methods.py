"""The construction methods behind one call: ``plan(layers, method, draws)`` dispatches to the
plans of ``plans`` in float64, with every random number of a source drawn from one seeded
``Draws`` (frozen weights here, then the frozen biases and running statistics when
``modules`` builds the torch source), so that a seed fixes the whole source.

Methods: ``"wide"`` (giannou2023 Thm 8), ``"low_rank"`` (Cor 2), ``"deep"`` (Thm 9),
``"sparse"`` (Thm 11: the wide construction on masked weights, rejected before the solve when
the masks' support is singular) and ``"burkholz"`` (burkholz2024 Thm 2.2/2.3).
"""

from __future__ import annotations

import numpy as np

from ..boolean_determinant import detbool
from ..khatri_rao import khatri_rao
from .plans import (
    DEFAULT,
    Affine,
    ConstructionFailed,
    Recipe,
    SolveLog,
    plan_burkholz,
    plan_deep,
    plan_low_rank,
    plan_wide,
)

METHODS = ("wide", "low_rank", "deep", "sparse", "burkholz")


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


def plan(layers: list[Affine], method: str, draws: Draws, *, k=None, p=None, rank=None, width="min",
         radius: float = 1.0, log: SolveLog | None = None, recipe: Recipe = DEFAULT, reorder: bool = True):
    """The float64 plan of a method (stages or skip blocks), before any torch module.
    ``recipe`` and ``reorder`` exist for the claims' broken and as-printed variants."""
    if method == "wide":
        return plan_wide(layers, draws.weight, radius, recipe, log=log)
    if method == "sparse":
        return plan_wide(layers, draws.weight, radius, recipe, mask=sparse_mask(draws, p), log=log,
                         precheck=None if recipe.least_squares else sparse_support_check)
    if method == "low_rank":
        if rank is None:
            rank = max(1, max(int(np.linalg.matrix_rank(layer.weight)) for layer in layers))
        return plan_low_rank(layers, draws.weight, rank, radius, recipe, log=log)
    if method == "deep":
        return plan_deep(layers, draws.weight, k, radius, recipe, reorder=reorder, log=log)
    return plan_burkholz(layers, draws.weight, width, radius, recipe, log=log)
