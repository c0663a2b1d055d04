"""Constructions that tune only normalization layers of frozen random networks: the
mathematics shared by giannou2023 (App. B–D) and burkholz2024 (Sec. 2), in three parts.

- ``plans``: numpy and flint. A *plan* is a list of stages (or skip blocks), each a frozen
  linear map followed by an effective normalization ``gamma * (W h) + beta``, computed in
  float64 or exactly over Q from the same code; running the plans and verifying them exactly.
- ``methods``: the methods (wide, low-rank, deep, sparse, burkholz) behind one call,
  ``plan(layers, method, draws)``, every random number from one seeded ``Draws``.
- ``modules``: torch. A target ``nn.Sequential`` read as float64 layers, and a plan built as
  an eval-mode source of frozen layers and BatchNorm layers (by default ``FrozenBatchNorm1d``/``2d``,
  whose statistics stay frozen in training mode).

Papers import this package (``from ...maths import construction as cm``): every public name
of the three parts is here. The public entry point for users, which checks its arguments,
is ``theorems.constructions.build_source``.
"""

from .methods import METHODS, Draws, plan, sparse_mask, sparse_support_check
from .modules import (
    STATISTICS,
    TORCH_CLASSES,
    conv_layers,
    conv_source,
    module_of,
    normalizations,
    source_module,
    stages_module,
    target_layers,
    torch_class,
)
from .plans import (
    DEFAULT,
    Affine,
    ConstructionFailed,
    Draw,
    Recipe,
    SkipBlock,
    SolveLog,
    Stage,
    abs_row_sums,
    affine_forms,
    batchnorm_affine,
    block_lift,
    burkholz_width,
    compose_filters,
    composite_coefficients,
    diagonal_solve,
    diagonal_system,
    eliminated_row,
    embed_target,
    exact_mismatch,
    input_bound,
    is_exact,
    linearizing_shift,
    nullspace_vector,
    parameter_counts,
    pivot_system,
    plan_burkholz,
    plan_deep,
    plan_low_rank,
    plan_wide,
    rank,
    rank_factorization,
    run_blocks,
    run_stages,
    run_target,
    solve_system,
    solve_two_layer,
    switching_points,
    two_stage,
    vectorize,
    verify_exact,
    zeros_like_field,
)

__all__ = [
    "DEFAULT",
    "METHODS",
    "STATISTICS",
    "TORCH_CLASSES",
    "Affine",
    "ConstructionFailed",
    "Draw",
    "Draws",
    "FrozenBatchNorm1d",
    "FrozenBatchNorm2d",
    "Recipe",
    "SkipBlock",
    "SkipBlocks",
    "SolveLog",
    "Stage",
    "abs_row_sums",
    "affine_forms",
    "batchnorm_affine",
    "block_lift",
    "burkholz_width",
    "compose_filters",
    "composite_coefficients",
    "conv_layers",
    "conv_source",
    "diagonal_solve",
    "diagonal_system",
    "eliminated_row",
    "embed_target",
    "exact_mismatch",
    "input_bound",
    "is_exact",
    "linearizing_shift",
    "module_of",
    "normalizations",
    "nullspace_vector",
    "parameter_counts",
    "pivot_system",
    "plan",
    "plan_burkholz",
    "plan_deep",
    "plan_low_rank",
    "plan_wide",
    "rank",
    "rank_factorization",
    "run_blocks",
    "run_stages",
    "run_target",
    "solve_system",
    "solve_two_layer",
    "source_module",
    "sparse_mask",
    "sparse_support_check",
    "stages_module",
    "switching_points",
    "target_layers",
    "torch_class",
    "two_stage",
    "vectorize",
    "verify_exact",
    "zeros_like_field",
]


def __getattr__(name: str):
    # FrozenBatchNorm1d, FrozenBatchNorm2d, SkipBlocks: made when first asked for, with torch
    if name in TORCH_CLASSES:
        return torch_class(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
