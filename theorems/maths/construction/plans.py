"""The plans of the constructions (giannou2023 App. B–D, burkholz2024 Sec. 2), in numpy and
flint only. A *plan* is a list of stages, each a frozen linear map followed by an eval-mode
normalization whose effective action is ``gamma * (W h) + beta`` (Prop. 1 of giannou2023 folds
running statistics, the frozen bias and the BatchNorm affine parameters into that form;
``batchnorm_affine`` undoes the fold). Plans are computed either in float64 (numpy, LAPACK
solves) or exactly over Q (object arrays of ``Fraction``, flint ``fmpq_mat`` solves), from
the same code, so small instances are verified in rational arithmetic and the public API
runs in floating point. Running a plan and verifying it exactly are here too.

Norm bounds use ℓ1 row norms against ℓ∞ input bounds (|⟨w, x⟩| ≤ ‖w‖₁‖x‖∞ and
‖x‖∞ ≤ ‖x‖₂): valid over Q and over the floats alike, never a square root.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.linalg

from ...errors import ConstructionFailed
from ..exact import fmpq_matrix, fmpq_matrix_to_fractions
from ..khatri_rao import khatri_rao


@dataclass
class SolveLog:
    """Where a construction spent its linear-algebra time and how well conditioned it was."""

    seconds: float = 0.0
    solves: int = 0
    largest: int = 0
    worst_condition: float = 1.0

    def record(self, started: float, size: int, condition: float) -> None:
        self.seconds += time.perf_counter() - started
        self.solves += 1
        self.largest = max(self.largest, size)
        self.worst_condition = max(self.worst_condition, condition)


@dataclass(frozen=True)
class Affine:
    """One target layer: h ↦ act(W h + b) with act ReLU when ``relu``."""

    weight: np.ndarray
    bias: np.ndarray
    relu: bool


@dataclass
class Stage:
    """Frozen ``weight`` (out × in) then effective normalization ``gamma * (W h) + beta``."""

    weight: np.ndarray
    gamma: np.ndarray
    beta: np.ndarray
    relu: bool


@dataclass
class SkipBlock:
    """Thm 9 of giannou2023 for one target layer: chunks of size k, L_1 = Γ_1 W_1 A_1 z_1 + β_1,
    L_i = Γ_i W_i (σ(L_{i−1}) + A_i z_i) + β_i, output act(W_out L_K). ``order[i]`` is the
    input chunk fed to block i (the identity as printed)."""

    k: int
    order: tuple[int, ...]
    lifts: list[np.ndarray]  # A_i: (d_out·k) × k
    weights: list[np.ndarray]  # W_i: (d_out·k) × (d_out·k)
    out: np.ndarray  # d_out × (d_out·k)
    gammas: list[np.ndarray] = field(default_factory=list)
    betas: list[np.ndarray] = field(default_factory=list)
    relu: bool = False


@dataclass(frozen=True)
class Recipe:
    """Knobs of a construction. The defaults are the papers' constructions; the others exist
    so that broken variants (one neuron short, a dropped shift, a column-major vec) run
    through the same code."""

    width_offset: int = 0
    linearize: bool = True
    vec: str = "row"
    margin: float = 1.0
    least_squares: bool = False  # giannou2023 App. E: a pseudo-inverse where a sparse draw is singular


DEFAULT = Recipe()


# ---------------------------------------------------------------- fields: float64 or Q

def is_exact(a: np.ndarray) -> bool:
    return np.asarray(a).dtype == object


def zeros_like_field(shape, exact: bool) -> np.ndarray:
    return np.full(shape, Fraction(0), dtype=object) if exact else np.zeros(shape)


def abs_row_sums(a: np.ndarray) -> np.ndarray:
    return np.abs(a).sum(axis=1) if a.shape[1] else zeros_like_field(a.shape[0], is_exact(a))


def rank(a: np.ndarray) -> int:
    if is_exact(a):
        return fmpq_matrix(a).rank() if a.size else 0
    return int(np.linalg.matrix_rank(a)) if a.size else 0


def solve_system(system: np.ndarray, rhs: np.ndarray, log: SolveLog | None = None) -> np.ndarray:
    """The solution of ``system · x = rhs`` when it exists (any, for a wide system), else
    ConstructionFailed. Exact over Q for object arrays; float64 otherwise."""
    started = time.perf_counter()
    rows, cols = system.shape
    if is_exact(system):
        augmented = fmpq_matrix(np.hstack([system, rhs.reshape(-1, 1)]))
        reduced, rank_aug = augmented.rref()
        reduced = fmpq_matrix_to_fractions(reduced)
        pivots = []
        for r in range(rank_aug):
            nonzero = [c for c in range(cols + 1) if reduced[r, c] != 0]
            pivots.append(nonzero[0])
        if cols in pivots:
            raise ConstructionFailed(f"inconsistent {rows}×{cols} system: rank[A|b] > rank A (exact)")
        x = zeros_like_field(cols, True)
        for r, c in enumerate(pivots):
            x[c] = reduced[r, cols]
        if log is not None:
            log.record(started, max(rows, cols), float("nan"))
        return x
    if rows == cols and rows:
        # LU once: the solve and LAPACK's 1-norm condition estimate (gecon) from the same factors
        with warnings.catch_warnings():  # an exactly singular system is reported below, not warned about
            warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
            lu, pivots = scipy.linalg.lu_factor(system, check_finite=False)
        with np.errstate(divide="ignore"):
            rcond = scipy.linalg.lapack.dgecon(lu, np.abs(system).sum(axis=0).max(), norm="1")[0]
        condition = float(1 / rcond) if rcond > 0 else float("inf")
        if not np.isfinite(condition) or condition > 1e13:
            raise ConstructionFailed(f"singular {rows}×{cols} system (condition ≈ {condition:.1e})")
        x = scipy.linalg.lu_solve((lu, pivots), rhs, check_finite=False)
    else:
        x, _, _, singular = np.linalg.lstsq(system, rhs, rcond=None)
        smallest = singular[min(rows, cols) - 1] if min(rows, cols) else 0.0
        condition = float(singular[0] / smallest) if smallest > 0 else float("inf")
    residual = np.abs(system @ x - rhs).max() if rows else 0.0
    scale = (np.abs(system).max() * np.abs(x).max() + np.abs(rhs).max()) if rows else 0.0
    if not np.isfinite(condition) or condition > 1e13 or residual > 1e-8 * max(1.0, scale) * min(condition, 1e8):
        raise ConstructionFailed(f"{rows}×{cols} system has no accurate solution "
                                 f"(condition {condition:.1e}, residual {residual:.1e})")
    if log is not None:
        log.record(started, max(rows, cols), condition)
    return x


def nullspace_vector(system: np.ndarray, log: SolveLog | None = None) -> np.ndarray:
    """A nonzero vector of ker(system): exact (rref) over Q, the last right singular vector
    in float64. ConstructionFailed when the kernel is trivial."""
    started = time.perf_counter()
    rows, cols = system.shape
    if is_exact(system):
        reduced, r = fmpq_matrix(system).rref()
        if r == cols:
            raise ConstructionFailed(f"{rows}×{cols} system has trivial kernel (exact rank {r})")
        reduced = fmpq_matrix_to_fractions(reduced)
        pivots = [next(c for c in range(cols) if reduced[i, c] != 0) for i in range(r)]
        free = next(c for c in range(cols) if c not in pivots)
        x = zeros_like_field(cols, True)
        x[free] = Fraction(1)
        for i, c in enumerate(pivots):
            x[c] = -reduced[i, free]
        if log is not None:
            log.record(started, max(rows, cols), float("nan"))
        return x
    if rows >= cols:
        _, singular, vt = np.linalg.svd(system)
        if singular[-1] > 1e-10 * singular[0]:
            raise ConstructionFailed(f"{rows}×{cols} system has trivial kernel "
                                     f"(σ_min/σ_max = {singular[-1] / singular[0]:.1e})")
        x, condition = vt[-1], float(singular[0] / singular[-2]) if cols > 1 and singular[-2] > 0 else float("inf")
    else:
        # a wide system: the last column of the complete QR of its transpose spans ker when the rows are independent
        q, r = scipy.linalg.qr(system.T)
        diagonal = np.abs(np.diag(r))
        x = q[:, -1]
        condition = float(diagonal.max() / diagonal.min()) if rows and diagonal.min() > 0 else float("inf")
    if log is not None:
        log.record(started, max(rows, cols), condition)
    return x


def diagonal_system(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """The matrix of x ↦ vec(left · diag(x) · right) for the row-major vec: left ⊙ rightᵀ
    (Lemma 4 of giannou2023)."""
    return khatri_rao(left, right.T)


def vectorize(target: np.ndarray, vec: str = "row") -> np.ndarray:
    """Row-major vec (Lemma 4); ``vec="column"`` exists for a broken variant pairing the
    row-major system with a column-major right-hand side."""
    return target.ravel(order="C" if vec == "row" else "F")


def diagonal_solve(left, right, target, recipe: Recipe = DEFAULT, log: SolveLog | None = None) -> np.ndarray:
    """diag x with left · diag(x) · right = target (giannou2023 Lemma 4 + Lemma 6); with
    ``recipe.least_squares`` the minimum-norm least-squares x (float64 only), never failing."""
    if recipe.least_squares:
        return np.linalg.lstsq(diagonal_system(left, right), vectorize(target, recipe.vec), rcond=None)[0]
    return solve_system(diagonal_system(left, right), vectorize(target, recipe.vec), log)


# ---------------------------------------------------------------- plans

Draw = Callable[[tuple[int, ...]], np.ndarray]


def input_bound(layers: list[Affine], radius) -> list:
    """ℓ∞ bounds on the input of every target layer for ‖x‖₂ ≤ radius (ReLU is 1-Lipschitz
    and fixes 0, so act(Wh + b) is bounded by ‖W‖₁-rows·‖h‖∞ + |b|)."""
    bounds = [radius]
    for layer in layers[:-1]:
        bounds.append(max(abs_row_sums(layer.weight) * bounds[-1] + np.abs(layer.bias)))
    return bounds


def linearizing_shift(gamma: np.ndarray, weight: np.ndarray, bound, recipe: Recipe) -> np.ndarray:
    """β_i ≥ |γ_i|·‖W_i‖₁·bound keeps γ_i⟨W_i, h⟩ + β_i ≥ 0 for ‖h‖∞ ≤ bound (Lemma 7)."""
    if not recipe.linearize:
        return zeros_like_field(len(gamma), is_exact(gamma))
    margin = Fraction(recipe.margin) if is_exact(gamma) else recipe.margin
    return np.abs(gamma) * abs_row_sums(weight) * bound + margin * (np.abs(gamma) > 0)


def two_stage(target: Affine, first: np.ndarray, second: np.ndarray, bound, recipe: Recipe,
              log: SolveLog | None) -> list[Stage]:
    """Lemma 7: hidden h = Γ W x + β (all ReLUs on), output Γ'(V h) + β' = W* x + b*, Γ' = 1."""
    exact = is_exact(first)
    out_gamma = np.full(target.weight.shape[0], Fraction(1) if exact else 1.0, dtype=object if exact else float)
    gamma = diagonal_solve(second, first, target.weight, recipe, log)
    beta = linearizing_shift(gamma, first, bound, recipe)
    beta_out = target.bias - out_gamma * (second @ beta)
    return [Stage(first, gamma, beta, True), Stage(second, out_gamma, beta_out, target.relu)]


def plan_wide(layers: list[Affine], draw: Draw, radius=1, recipe: Recipe = DEFAULT,
              mask: Callable[[np.ndarray], np.ndarray] | None = None, log: SolveLog | None = None,
              precheck: Callable[[int, np.ndarray, np.ndarray], None] | None = None) -> list[Stage]:
    """giannou2023 Thm 8 (Lemma 7 layer by layer); with ``mask``, Thm 11's sparsified weights
    (``precheck(layer index, first, second)`` may reject a draw before the solve)."""
    stages: list[Stage] = []
    for index, (layer, bound) in enumerate(zip(layers, input_bound(layers, radius), strict=True)):
        d_out, d_in = layer.weight.shape
        width = d_out * d_in + recipe.width_offset
        first, second = draw((width, d_in)), draw((d_out, width))
        if mask is not None:
            first, second = mask(first), mask(second)
        if precheck is not None:
            precheck(index, first, second)
        stages += two_stage(layer, first, second, bound, recipe, log)
    return stages


def rank_factorization(weight: np.ndarray, rank_r: int) -> tuple[np.ndarray, np.ndarray]:
    """W = A B with A ∈ R^{d_out×r}, B ∈ R^{r×d_in}: exact (pivot columns + rref) over Q,
    truncated SVD in float64."""
    d_out, d_in = weight.shape
    if is_exact(weight):
        reduced, r = fmpq_matrix(weight).rref()
        if r > rank_r:
            raise ValueError(f"rank {r} exceeds the requested rank {rank_r}")
        reduced = fmpq_matrix_to_fractions(reduced)
        pivots = [next(c for c in range(d_in) if reduced[i, c] != 0) for i in range(r)]
        a = zeros_like_field((d_out, rank_r), True)
        b = zeros_like_field((rank_r, d_in), True)
        a[:, :r] = weight[:, pivots]
        b[:r] = reduced[:r]
        return a, b
    u, s, vt = np.linalg.svd(weight)
    root = np.sqrt(s[:rank_r])
    return u[:, :rank_r] * root, root[:, None] * vt[:rank_r]


def plan_low_rank(layers: list[Affine], draw: Draw, rank_r: int, radius=1, recipe: Recipe = DEFAULT,
                  log: SolveLog | None = None) -> list[Stage]:
    """giannou2023 Cor 2: W* = A* B*; two stages realize B* x + c (c ≥ 0 keeps the ReLU after
    them on), two more realize A*(B* x + c) − A* c + b*. Widths r·d_in, r, d_out·r, d_out."""
    stages: list[Stage] = []
    for layer, bound in zip(layers, input_bound(layers, radius), strict=True):
        d_out, d_in = layer.weight.shape
        r = min(rank_r, d_out, d_in)
        a, b = rank_factorization(layer.weight, r)
        exact = is_exact(layer.weight)
        shift = abs_row_sums(b) * bound + (Fraction(1) if exact else 1.0)
        inner = Affine(b, shift, True)
        outer = Affine(a, layer.bias - a @ shift, layer.relu)
        width_b = r * d_in + recipe.width_offset
        stages += two_stage(inner, draw((width_b, d_in)), draw((r, width_b)), bound, recipe, log)
        inner_bound = max(abs_row_sums(b) * bound + shift)
        width_a = d_out * r + recipe.width_offset
        stages += two_stage(outer, draw((width_a, r)), draw((d_out, width_a)), inner_bound, recipe, log)
    return stages


def block_lift(block: SkipBlock, i: int, d_in: int) -> np.ndarray:
    """A_i S_i: block i's skip input as a matrix on the (unpadded) layer input."""
    exact = is_exact(block.lifts[i])
    select = zeros_like_field((block.k, d_in), exact)
    for row in range(block.k):
        column = block.order[i] * block.k + row
        if column < d_in:
            select[row, column] = Fraction(1) if exact else 1.0
    return block.lifts[i] @ select


def plan_deep(layers: list[Affine], draw: Draw, k_requested: int, radius=1, recipe: Recipe = DEFAULT,
              reorder: bool = True, log: SolveLog | None = None) -> list[SkipBlock]:
    """giannou2023 Thm 9, solved from the last block to the first (the proof's induction).

    Consistent reading of the printed architecture: L_1 = Γ_1 W_1 A_1 z_1 + β_1 (printed
    W_1 z_1 multiplies a dk×dk matrix by z_1 ∈ R^k); the input is zero-padded to ⌈d/k⌉·k.
    ``reorder`` feeds the chunks on which the target's column block vanishes to the first
    blocks: such a block forces Γ_i = 0, which as printed (fixed order) would cut off every
    earlier block."""
    blocks = []
    for layer, bound in zip(layers, input_bound(layers, radius), strict=True):
        d_out, d_in = layer.weight.shape
        exact = is_exact(layer.weight)
        k = min(k_requested, d_in)  # a narrower later layer gets one block
        count = -(-d_in // k)
        padded = zeros_like_field((d_out, count * k), exact)
        padded[:, :d_in] = layer.weight
        chunks = [padded[:, i * k:(i + 1) * k] for i in range(count)]
        order = tuple(range(count))
        if reorder:
            order = tuple(sorted(order, key=lambda i: bool(np.any(chunks[i] != 0))))
        width = d_out * k + recipe.width_offset
        block = SkipBlock(k, order, [draw((width, k)) for _ in range(count)],
                          [draw((width, width)) for _ in range(count)], draw((d_out, width)), relu=layer.relu)
        block.gammas = [None] * count
        product = block.out  # W_out Γ_K W_K … Γ_{i+1} W_{i+1}
        for i in reversed(range(count)):
            if np.any(chunks[order[i]] != 0):
                block.gammas[i] = diagonal_solve(product, block.weights[i] @ block.lifts[i], chunks[order[i]],
                                                 recipe, log)
            else:  # the unique solution whenever the system is nonsingular, and a solution always
                block.gammas[i] = zeros_like_field(width, exact)
            product = product @ (block.gammas[i][:, None] * block.weights[i])
        # Shifts from the affine forms L_i = G_i h + t_i (earlier ReLUs on): t_i = ‖G_i‖₁-rows·bound + margin
        # keeps block i on with the smallest constant (bounding through earlier shifts compounds them).
        betas, g, t = [], None, None
        for i in range(count):
            lifted = block_lift(block, i, d_in)
            u_g, u_t = (lifted, zeros_like_field(width, exact)) if g is None else (g + lifted, t)
            g = block.gammas[i][:, None] * (block.weights[i] @ u_g)
            t = block.gammas[i] * (block.weights[i] @ u_t)
            if i < count - 1:
                margin = (Fraction(recipe.margin) if exact else recipe.margin) * (np.abs(block.gammas[i]) > 0)
                beta = abs_row_sums(g) * bound + margin - t if recipe.linearize else zeros_like_field(width, exact)
                t = t + beta
                betas.append(beta)
        betas.append(solve_system(block.out, layer.bias - block.out @ t, log))
        block.betas = betas
        blocks.append(block)
    return blocks


# ---------------------------------------------------------------- burkholz2024 Sec. 2.2

def composite_coefficients(second: np.ndarray, first: np.ndarray) -> np.ndarray:
    """T[i, j, t, J] = Σ_{p+q=t} W2[i, J, p] W1[J, j, q]: the composite filter of two
    convolutions (stride 1) as a linear function of γ⁽¹⁾. Kernels carry trailing spatial axes
    (none for fully connected layers, one for 1-D, two for 2-D); the composite spatial size
    is k1 + k2 − 1 per axis (burkholz2024 Sec. 2.1), flattened to one axis t."""
    c2, c1 = second.shape[:2]
    c0 = first.shape[1]
    k2, k1 = second.shape[2:], first.shape[2:]
    if len(k1) != len(k2):
        raise ValueError(f"kernels of different ranks: {k1} and {k2}")
    size = tuple(a + b - 1 for a, b in zip(k1, k2, strict=True))
    out = zeros_like_field((c2, c0) + size + (c1,), is_exact(second))
    for p in np.ndindex(*k2):
        for q in np.ndindex(*k1):
            t = tuple(a + b for a, b in zip(p, q, strict=True))
            # second[:, :, p] is c2 × c1, first[:, :, q] is c1 × c0
            out[(slice(None), slice(None)) + t] += np.einsum("iJ,Jj->ijJ", second[(slice(None), slice(None)) + p],
                                                             first[(slice(None), slice(None)) + q])
    return out.reshape(c2, c0, int(np.prod(size, dtype=int)), c1)


def compose_filters(second: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The filter of first-then-second (stride 1; exact for valid or full zero padding,
    burkholz2024 Sec. 2.1): c2 × c0 × (k1 + k2 − 1 per axis). Fully connected layers (no
    spatial axes) compose to the matrix product."""
    k2, k1 = second.shape[2:], first.shape[2:]
    if len(k1) != len(k2):
        raise ValueError(f"kernels of different ranks: {k1} and {k2}")
    out = zeros_like_field(second.shape[:1] + first.shape[1:2] + tuple(a + b - 1 for a, b in zip(k1, k2, strict=True)),
                           is_exact(second) or is_exact(first))
    for p in np.ndindex(*k2):
        for q in np.ndindex(*k1):
            t = tuple(a + b for a, b in zip(p, q, strict=True))
            out[(slice(None), slice(None)) + t] += (second[(slice(None), slice(None)) + p]
                                                    @ first[(slice(None), slice(None)) + q])
    return out


def embed_target(target: np.ndarray, size: tuple[int, ...]) -> np.ndarray:
    """The target filter placed in the centre of a composite of spatial ``size``, flattened
    (Δk > 0 adds composite positions that must come out zero)."""
    c2, c0 = target.shape[:2]
    kt = target.shape[2:]
    if any(s < k for s, k in zip(size, kt, strict=True)):
        raise ValueError(f"composite kernel {size} smaller than the target kernel {kt} (Δk < 0)")
    out = zeros_like_field((c2, c0) + tuple(size), is_exact(target))
    offset = tuple((s - k) // 2 for s, k in zip(size, kt, strict=True))
    out[(slice(None), slice(None)) + tuple(slice(o, o + k) for o, k in zip(offset, kt, strict=True))] = target
    return out.reshape(c2, c0, int(np.prod(size, dtype=int)))


def eliminated_row(t_row, t_pivot, w_row, w_pivot):
    """A row of M (Eq. 2 of burkholz2024): m_I = T_I − (w_I / w_p)·T_p, for entry I of a channel
    with pivot p."""
    return t_row - w_row / w_pivot * t_pivot


def pivot_system(target: np.ndarray, coefficients: np.ndarray, pivot: str = "argmax", row=eliminated_row):
    """Eq. (2) of burkholz2024: per output channel i a pivot (j_i, k_i) (the largest |w|, or
    the first nonzero entry), and rows m_{(ijk), J} = T_{ijkJ} − w_{ijk}/w_{i j_i k_i}·T_{i j_i k_i J}
    for every non-pivot entry of a nonzero channel (``row(T_I, T_p, w_I, w_p)``: the claims'
    broken variants derive the rows otherwise). Returns (M, pivots) with pivots[i] = None
    for a zero channel (γ⁽²⁾_i = 0 represents it)."""
    c2, c0, size, c1 = coefficients.shape
    rows, pivots = [], []
    for i in range(c2):
        flat = target[i].reshape(-1)
        if not np.any(flat != 0):
            pivots.append(None)
            continue
        if pivot == "argmax":
            position = int(np.argmax(np.abs(flat)))
        else:
            position = int(np.flatnonzero(flat != 0)[0])
        pivots.append(position)
        t = coefficients[i].reshape(c0 * size, c1)
        rows += [row(t[other], t[position], flat[other], flat[position]) for other in range(c0 * size)
                 if other != position]
    if rows:
        system = np.array(rows, dtype=coefficients.dtype).reshape(len(rows), c1)
    else:
        system = zeros_like_field((0, c1), is_exact(coefficients))
    return system, pivots


def solve_two_layer(target: np.ndarray, coefficients: np.ndarray, width: str = "min",
                    log: SolveLog | None = None, pivot: str = "argmax") -> tuple[np.ndarray, np.ndarray]:
    """(γ⁽¹⁾, γ⁽²⁾) with γ⁽²⁾_i Σ_J T_{ijkJ} γ⁽¹⁾_J = w_{ijk}: at the minimum width (Thm 2.2)
    γ⁽¹⁾ ∈ ker M and γ⁽²⁾ from the pivots; at the maximum width (Thm 2.3) γ⁽²⁾ = 1 and
    γ⁽¹⁾ solves the full linear system."""
    c2, c0, size, c1 = coefficients.shape
    exact = is_exact(coefficients)
    one = Fraction(1) if exact else 1.0
    if width == "max":
        gamma1 = solve_system(coefficients.reshape(c2 * c0 * size, c1), target.reshape(-1), log)
        return gamma1, np.array([one] * c2, dtype=object if exact else float)
    system, pivots = pivot_system(target, coefficients, pivot)
    if system.shape[0]:
        gamma1 = nullspace_vector(system, log)
    else:
        gamma1 = np.array([one] * c1, dtype=object if exact else float)
    gamma2 = []
    for i, position in enumerate(pivots):
        if position is None:
            gamma2.append(0 * one)
            continue
        denominator = coefficients[i].reshape(c0 * size, c1)[position] @ gamma1
        if denominator == 0 or (not exact and abs(denominator)
                                < 1e-12 * np.abs(coefficients[i]).max() * np.abs(gamma1).max()):
            raise ConstructionFailed(f"output channel {i}: the kernel vector γ⁽¹⁾ gives pivot denominator 0")
        gamma2.append(target[i].reshape(-1)[position] / denominator)
    return gamma1, np.array(gamma2, dtype=object if exact else float)


def burkholz_width(c2: int, c0: int, composite: int = 1, width: str = "min") -> int:
    """c1 of Thm 2.2 (c2·c0·dim(k2, k1) − c2 + 1) or Thm 2.3 (c2·c0·dim(k2, k1))."""
    return c2 * c0 * composite - (c2 - 1 if width == "min" else 0)


def plan_burkholz(layers: list[Affine], draw: Draw, width: str = "min", radius=1, recipe: Recipe = DEFAULT,
                  log: SolveLog | None = None) -> list[Stage]:
    """Two source layers per fully connected target layer; the first has a ReLU kept linear
    by the shift of Thm 2.4 (γ = 1, b = Q1, m = 1, c = 0: zero error)."""
    stages: list[Stage] = []
    for layer, bound in zip(layers, input_bound(layers, radius), strict=True):
        d_out, d_in = layer.weight.shape
        c1 = burkholz_width(d_out, d_in, 1, width) + recipe.width_offset
        first, second = draw((c1, d_in)), draw((d_out, c1))
        coefficients = composite_coefficients(second[:, :, None], first[:, :, None])
        gamma1, gamma2 = solve_two_layer(layer.weight[:, :, None], coefficients, width, log)
        beta1 = linearizing_shift(gamma1, first, bound, recipe)
        stages += [Stage(first, gamma1, beta1, True),
                   Stage(second, gamma2, layer.bias - gamma2 * (second @ beta1), layer.relu)]
    return stages


# ---------------------------------------------------------------- evaluation

def _relu(a: np.ndarray) -> np.ndarray:
    return np.where(a > 0, a, 0 * a)


def run_stages(stages: list[Stage], x: np.ndarray) -> np.ndarray:
    """The source on a batch x (rows), in the field of the arrays."""
    h = x
    for stage in stages:
        h = (h @ stage.weight.T) * stage.gamma + stage.beta
        if stage.relu:
            h = _relu(h)
    return h


def run_blocks(blocks: list[SkipBlock], x: np.ndarray) -> np.ndarray:
    h = x
    for block in blocks:
        count = len(block.weights)
        padded = zeros_like_field((h.shape[0], count * block.k), is_exact(h))
        padded[:, :h.shape[1]] = h
        carried = None
        for i in range(count):
            z = padded[:, block.order[i] * block.k:(block.order[i] + 1) * block.k] @ block.lifts[i].T
            u = z if carried is None else _relu(carried) + z
            carried = (u @ block.weights[i].T) * block.gammas[i] + block.betas[i]
        h = carried @ block.out.T
        if block.relu:
            h = _relu(h)
    return h


def run_target(layers: list[Affine], x: np.ndarray) -> np.ndarray:
    h = x
    for layer in layers:
        h = h @ layer.weight.T + layer.bias
        if layer.relu:
            h = _relu(h)
    return h


def switching_points(layers: list[Affine], radius, count_limit: int = 64) -> np.ndarray:
    """Inputs on the sphere ‖x‖ = radius where first-layer pre-activations are most negative
    or vanish: ∓radius·w/‖w‖₁ (inside the ball, rational) for each target neuron and for the
    points where a target ReLU switches (−b w/‖w‖², when inside the ball)."""
    weight, bias = layers[0].weight, layers[0].bias
    points = []
    for w, b in zip(weight[:count_limit], bias[:count_limit], strict=True):
        norm1 = np.abs(w).sum()
        if norm1 == 0:
            continue
        points += [-radius * w / norm1, radius * w / norm1]
        squared = (w * w).sum()
        crossing = -b * w / squared
        if (crossing * crossing).sum() <= radius * radius:
            points.append(crossing)
    return np.array(points) if points else zeros_like_field((0, weight.shape[1]), is_exact(weight))


def batchnorm_affine(gamma, beta, linear_bias, running_mean, running_var, eps):
    """BatchNorm weight and bias realizing the effective ``gamma·(W h) + beta`` after a linear
    layer with ``linear_bias`` (inverse of giannou2023 Prop. 1): BN(y) = w(y − μ)/s + b with
    y = W h + c equals (w/s) W h + (w/s)(c − μ) + b."""
    scale = np.sqrt(running_var + eps)
    weight = gamma * scale
    return weight, beta - gamma * (linear_bias - running_mean)


def parameter_counts(stages: list[Stage] | list[SkipBlock]) -> tuple[int, int]:
    """(normalization parameters, frozen weights) of a plan: 2 per normalized feature."""
    trainable = frozen = 0
    for stage in stages:
        if isinstance(stage, Stage):
            trainable += 2 * stage.weight.shape[0]
            frozen += stage.weight.size
        else:
            trainable += 2 * sum(w.shape[0] for w in stage.weights)
            frozen += sum(w.size for w in stage.weights) + sum(a.size for a in stage.lifts) + stage.out.size
    return trainable, frozen


# ---------------------------------------------------------------- exact verification

def _identity(n: int, exact: bool) -> np.ndarray:
    eye = zeros_like_field((n, n), exact)
    for i in range(n):
        eye[i, i] = Fraction(1) if exact else 1.0
    return eye


def affine_forms(group: list, d_in: int) -> tuple[list[tuple[np.ndarray, np.ndarray]],
                                                  tuple[np.ndarray, np.ndarray], bool]:
    """For the source stages (or skip block) standing for one target layer: the affine forms
    (G, t) of every hidden ReLU pre-activation as a function of the layer input h, assuming
    the earlier hidden ReLUs are on, the final form and whether a ReLU follows it."""
    first = group[0]
    exact = is_exact(first.weight if isinstance(first, Stage) else first.out)
    hidden = []
    if isinstance(first, Stage):
        g, t = _identity(d_in, exact), zeros_like_field(d_in, exact)
        for position, stage in enumerate(group):
            g, t = stage.gamma[:, None] * (stage.weight @ g), stage.gamma * (stage.weight @ t) + stage.beta
            if position < len(group) - 1:
                if not stage.relu:
                    raise ValueError("a hidden stage without a ReLU")
                hidden.append((g, t))
        return hidden, (g, t), group[-1].relu
    block = first
    count = len(block.weights)
    g = t = None
    for i in range(count):
        lifted = block_lift(block, i, d_in)
        u_g, u_t = (lifted, zeros_like_field(lifted.shape[0], exact)) if g is None else (g + lifted, t)
        g, t = (block.gammas[i][:, None] * (block.weights[i] @ u_g),
                block.gammas[i] * (block.weights[i] @ u_t) + block.betas[i])
        if i < count - 1:
            hidden.append((g, t))
    return hidden, (block.out @ g, block.out @ t), block.relu


def verify_exact(layers: list[Affine], groups: list[list], radius=1) -> str | None:
    """Decide f ≡ g on ‖x‖₂ ≤ radius exactly (object arrays of Fractions), target layer by
    target layer: the final affine form equals (W*, b*) and every hidden ReLU provably stays
    on (t_j ≥ ‖G_j‖₁·bound over the ℓ∞ bound of the layer input). Returns None when proved,
    else the first reason."""
    bounds = input_bound(layers, radius)
    for index, (layer, group, bound) in enumerate(zip(layers, groups, bounds, strict=True)):
        hidden, (g, t), relu = affine_forms(group, layer.weight.shape[1])
        if relu != layer.relu:
            return f"target layer {index}: the source's last activation differs from the target's"
        if g.shape != layer.weight.shape or np.any(g != layer.weight):
            return f"target layer {index}: the realized weight differs from W* (exact)"
        if np.any(t != layer.bias):
            return f"target layer {index}: the realized bias differs from b* (exact)"
        for position, (hg, ht) in enumerate(hidden):
            slack = ht - abs_row_sums(hg) * bound
            if np.any(slack < 0):
                neuron = int(np.flatnonzero(slack < 0)[0])
                return (f"target layer {index}, hidden stage {position}, neuron {neuron}: "
                        f"not provably on (slack {float(slack[neuron]):.3g})")
    return None


def exact_mismatch(layers: list[Affine], run: Callable[[np.ndarray], np.ndarray], points: np.ndarray):
    """The first rational point where the source (``run``) and the target differ exactly."""
    if len(points) == 0:
        return None
    difference = run(points) - run_target(layers, points)
    for point, row in zip(points, difference, strict=True):
        if np.any(row != 0):
            return point, row
    return None
