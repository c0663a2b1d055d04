"""burkholz2024, Sec. 2.4, Thm 2.5 and App. A.5: L linear random source layers with tuned
normalization represent a target layer when Δk = dim(k1, …, kL) − kt ≥ 0,
Σ_l c_l ≥ c_L·c0·dim(k1, …, kL) + L and c_l ≥ c0.

The source's composite filter
F(γ⁽¹⁾, …, γ⁽ᴸ⁾) = γ⁽ᴸ⁾ ∘ W_L ∗ diag(γ⁽ᴸ⁻¹⁾) W_{L−1} ∗ ⋯ diag(γ⁽¹⁾) W_1
(∗ composes stride-1 filters, sizes adding to Σk_l − L + 1 per axis, Sec. 2.1; for fully
connected layers, dim = 1 and ∗ is the matrix product) must equal the target filter centred in
the composite, zero elsewhere: c_L·c0·dim equations. Fully connected, 1-D and 2-D sources are
run through the same code. Two checks: (i) the exact Jacobian rank of F at a random rational
point equals the number of equations (F is a submersion there, so its image has interior;
certificate over Q), and (ii) minimum-norm Levenberg–Marquardt from random starts reaches
random Gaussian targets to 256·eps·(1 + κ(J))·scale, and real torch sources (Linear or
Conv1d/Conv2d with full zero padding k_l − 1, BatchNorm with random running statistics,
identity activations) then match the target layer on random inputs within the same tolerance
(supported). The scale bounds the sums of |terms| in F and in the source's output.
A width below the count is refuted exactly: the L − 1 rescalings γ⁽ˡ⁾ → tγ⁽ˡ⁾,
γ⁽ˡ⁺¹⁾ → γ⁽ˡ⁺¹⁾/t span L − 1 kernel directions of the Jacobian at every point, so
rank ≤ Σc_l − (L − 1); below c_L·c0·dim the image has measure zero (Sard).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import torch

from ...engine.context import Context
from ...engine.registry import Broken, Check, Claim, register
from ...engine.verdicts import Outcome, Verdict
from ...maths import construction as cm
from ...maths.exact import fraction_array
from . import SOURCE
from .sec2_2_two_layers import torch_source, torch_target

# (c0, c_L, hidden widths c_1..c_{L−1}, kernels k_1..k_L, target kernel kt) at the printed bound
# Σ c_l = c_L c0 dim + L with c_l ≥ c0; Δk is even so that the target's zero padding is symmetric.
FC = ((),)
FC_CASES = [(2, 2, (4,), FC * 2, ()), (1, 1, (2,), FC * 2, ()), (2, 2, (3, 2), FC * 3, ()), (2, 3, (3, 3), FC * 3, ()),
            (3, 3, (5, 4), FC * 3, ())]
CONV_CASES = [(1, 1, (4,), ((1,), (3,)), (3,)), (1, 1, (5,), ((1, 1), (2, 2)), (2, 2)),
              (1, 1, (3, 3), ((2,), (2,), (2,)), (2,)), (1, 2, (6,), ((2,), (2,)), (3,)),
              (2, 2, (8, 5), ((1,), (2,), (2,)), (3,)), (1, 1, (6, 5), ((1, 1), (2, 2), (2, 2)), (3, 3))]
LARGE_CASES = [(4, 4, (8, 7), FC * 3, ()), (2, 2, (11, 10), ((1,), (3,), (3,)), (5,)),
               (2, 2, (36,), ((1, 1), (3, 3)), (3, 3))]


def profile_cases(ctx: Context) -> list:
    return (FC_CASES[: ctx.by_profile(3, len(FC_CASES))] + CONV_CASES[: ctx.by_profile(2, len(CONV_CASES))]
            + ctx.by_profile([], [], [], LARGE_CASES))


def composite_size(kernels) -> tuple[int, ...]:
    """dim(k1, …, kL) per axis: Σ_l k_l − L + 1 (Sec. 2.1 applied L − 1 times)."""
    return tuple(sum(axis) - len(kernels) + 1 for axis in zip(*kernels, strict=True))


def equations(case) -> int:
    c0, c_last, _, kernels, _ = case
    return c_last * c0 * int(np.prod(composite_size(kernels), dtype=int))


def widths_at(case, offset: int) -> tuple[int, ...]:
    """Hidden widths with the total shifted by ``offset`` (taken off the first hidden layer)."""
    hidden = case[2]
    return (hidden[0] + offset,) + hidden[1:]


def forward(weights, gammas):
    """The composite filter c_L × c0 × dim(k1, …, kL) (c_L × c0 for fully connected layers)."""
    def scaled(gamma, weight):
        return gamma.reshape((-1,) + (1,) * (weight.ndim - 1)) * weight

    product = scaled(gammas[0], weights[0])
    for weight, gamma in zip(weights[1:], gammas[1:], strict=True):
        product = scaled(gamma, cm.compose_filters(weight, product))
    return product


def jacobian(weights, gammas) -> np.ndarray:
    """∂ vec F / ∂(γ⁽¹⁾, …, γ⁽ᴸ⁾): F is linear in each γ⁽ˡ⁾, so block l holds the composite
    coefficients (cm.composite_coefficients) of the scaled layers after l against layers 1..l
    with γ⁽ˡ⁾ left out."""
    exact = cm.is_exact(weights[0])
    blocks = []
    for layer, (weight, gamma) in enumerate(zip(weights, gammas, strict=True)):
        unscaled = weight if layer == 0 else cm.compose_filters(weight, forward(weights[:layer], gammas[:layer]))
        if layer < len(weights) - 1:
            after = forward(weights[layer + 1:], gammas[layer + 1:])
        else:  # the identity filter: c_L × c_L, spatial size 1
            after = cm.zeros_like_field((len(gamma), len(gamma)) + (1,) * (weight.ndim - 2), exact)
            for i in range(len(gamma)):
                after[(i, i) + (0,) * (weight.ndim - 2)] = Fraction(1) if exact else 1.0
        coefficients = cm.composite_coefficients(after, unscaled)
        # a width-0 layer: no columns
        blocks.append(coefficients.reshape(int(np.prod(coefficients.shape[:-1])), len(gamma)))
    return np.hstack(blocks)


def draw_layers(rng, c0, c_last, hidden, exact, kernels=None):
    sizes = (c0,) + tuple(hidden) + (c_last,)
    kernels = kernels or FC * (len(sizes) - 1)
    if exact:
        weights = [fraction_array(rng.integers(-99, 100, (b, a) + k))
                   for (a, b), k in zip(itertools.pairwise(sizes), kernels, strict=True)]
        gammas = [fraction_array(rng.integers(1, 100, b)) for b in sizes[1:]]
    else:
        weights = [rng.standard_normal((b, a) + k) / np.sqrt(a * int(np.prod(k, dtype=int)))
                   for (a, b), k in zip(itertools.pairwise(sizes), kernels, strict=True)]
        gammas = [rng.standard_normal(b) for b in sizes[1:]]
    return weights, gammas


def describe(case, hidden) -> dict:
    c0, c_last, _, kernels, kt = case
    return {"c0": c0, "c_L": c_last, "widths": list(hidden) + [c_last], "kernels": [list(k) for k in kernels],
            "target_kernel": list(kt), "dim": int(np.prod(composite_size(kernels), dtype=int))}


def rank_check(offset: int, cases=profile_cases) -> Check:
    """Exact Jacobian rank at a random rational point vs the c_L·c0·dim equations."""

    def run(ctx: Context) -> Outcome:
        entries = []
        for case in cases(ctx):
            c0, c_last, _, kernels, _ = case
            hidden = widths_at(case, offset)
            weights, gammas = draw_layers(ctx.rng("rank", case), c0, c_last, hidden, exact=True, kernels=kernels)
            rank = cm.rank(jacobian(weights, gammas))
            total = sum(hidden) + c_last
            count = equations(case)
            entry = describe(case, hidden) | {"sum": total, "equations": count, "jacobian_rank": rank,
                                              "rank_bound": total - (len(kernels) - 1)}
            if rank < count:
                structural = entry["rank_bound"] < count
                return Outcome(Verdict.REFUTED if structural else Verdict.INCONCLUSIVE,
                               f"widths {entry['widths']}, kernels {entry['kernels']}: Jacobian rank {rank} < "
                               f"{count} equations"
                               + (" for every point (rank ≤ Σc_l − (L − 1)): generic targets are unreachable"
                                  if structural else " at this point only"),
                               {"entries": entries}, counterexample=entry if structural else None)
            entries.append(entry)
        return Outcome(Verdict.CERTIFIED,
                       f"Jacobian of full row rank c_L·c0·dim (exact) for {len(entries)} width profiles "
                       f"({sum(bool(e['kernels'][0]) for e in entries)} convolutional)",
                       {"entries": entries},
                       certificate={"method": "flint fmpq rank of the exact Jacobian at integer points",
                                    "points": "weights in [−99, 99], γ in [1, 99] from ctx.rng('rank', case)"})

    # its own part: a submersion at one point gives an open image, not every target
    return Check("exact Jacobian rank at the printed width", "certificate", run, part="local surjectivity")


def levenberg_marquardt(residual, jac, x, iterations: int = 200):
    """Minimum-norm Levenberg–Marquardt for an underdetermined system (more γ's than equations):
    step −Jᵀ(JJᵀ + λI)⁻¹r, λ divided by 10 after a step that lowers ‖r‖ and multiplied by 10
    otherwise; with λ → 0 it is Gauss–Newton, quadratic near a regular solution."""
    damping, r = 1e-3, residual(x)
    for _ in range(iterations):
        if np.abs(r).max() <= 1e-14:
            break
        j = jac(x)
        # lstsq, not solve: where J loses rank (a width below the bound) JJᵀ + λI can be numerically singular
        trial = x - j.T @ np.linalg.lstsq(j @ j.T + damping * np.eye(len(r)), r, rcond=None)[0]
        r_trial = residual(trial)
        if r_trial @ r_trial < r @ r:
            x, r, damping = trial, r_trial, max(damping / 10, 1e-15)
        else:
            damping *= 10
    return x


def solve_gammas(weights, wanted, sizes, rng, starts: int = 16):
    """Levenberg–Marquardt from up to ``starts`` random starts. Returns (γ list, max residual,
    κ(J) at the solution: σ_1 / σ_m over its m = c_L·c0·dim rows)."""
    splits = np.cumsum(sizes)[:-1]

    def residual(flat):
        return forward(weights, np.split(flat, splits)).ravel() - wanted

    def jac(flat):
        return jacobian(weights, np.split(flat, splits))

    best, best_error = None, np.inf
    for _ in range(starts):
        flat = levenberg_marquardt(residual, jac, rng.standard_normal(sum(sizes)))
        error = float(np.abs(residual(flat)).max())
        if error < best_error:
            best, best_error = flat, error
        if best_error < 1e-12:
            break
    singular = np.linalg.svd(jac(best), compute_uv=False)
    m = min(len(wanted), len(singular))
    condition = float(singular[0] / singular[m - 1]) if singular[m - 1] > 0 else float("inf")
    return np.split(best, splits), best_error, condition


def torch_equivalence(weights, gammas, target, kernels, rng) -> float:
    """max |S(x) − C(x)| over a batch in [−1, 1]: S the torch source (full zero padding k_l − 1
    per layer, shifts 0 but the last), C the target layer padded so that both are the full
    correlation with the centred composite filter (padding dim − 1 − Δk/2 per axis)."""
    dims = len(kernels[0])
    bias = rng.standard_normal(target.shape[0])
    betas = [np.zeros(len(g)) for g in gammas[:-1]] + [bias]
    paddings = [tuple(k - 1 for k in kernel) for kernel in kernels]
    size = composite_size(kernels)
    source = torch_source(weights, gammas, betas, dims, rng, paddings)
    reference = torch_target(target, bias, dims,
                             tuple(d - 1 - (d - k) // 2 for d, k in zip(size, target.shape[2:], strict=True)) or "same")
    x = torch.from_numpy(rng.uniform(-1, 1, (8, target.shape[1]) + (6,) * dims))
    with torch.no_grad():
        return float((source(x) - reference(x)).abs().max())


def solve_check(offset: int, cases=profile_cases) -> Check:
    """Random Gaussian targets: solve for the γ's, then compare torch sources with the target."""

    def run(ctx: Context) -> Outcome:
        solved = []
        for case in cases(ctx):
            c0, c_last, _, kernels, kt = case
            hidden = widths_at(case, offset)
            sizes = list(hidden) + [c_last]
            for trial in range(ctx.by_profile(1, 2, 8, 2)):
                rng = ctx.rng("solve", case, trial)
                weights, _ = draw_layers(rng, c0, c_last, hidden, exact=False, kernels=kernels)
                target = rng.standard_normal((c_last, c0) + kt)
                wanted = cm.embed_target(target, composite_size(kernels)).ravel()
                gammas, residual, condition = solve_gammas(weights, wanted, sizes, rng)
                magnitude = forward([np.abs(w) for w in weights], [np.abs(g) for g in gammas])
                scale = 1 + float(magnitude.reshape(c_last, -1).sum(axis=1).max())
                tolerance = 256 * np.finfo(float).eps * (1 + condition) * scale
                entry = describe(case, hidden) | {"residual": residual, "condition": condition, "tolerance": tolerance}
                if not condition < 1e12 or residual > tolerance:  # a singular Jacobian would excuse any residual
                    if sum(sizes) - len(hidden) < equations(case):  # the exact rank bound proves it
                        return Outcome(Verdict.REFUTED,
                                       f"widths {sizes}, kernels {entry['kernels']}: no solution (residual "
                                       f"{residual:.1e}); rank ≤ Σc_l − (L − 1) = {sum(sizes) - len(hidden)} < "
                                       f"{equations(case)} equations", {"solved": solved}, counterexample=entry)
                    return Outcome(Verdict.INCONCLUSIVE,
                                   f"widths {sizes}, kernels {entry['kernels']}: residual {residual:.1e} "
                                   f"> {tolerance:.1e} after 16 starts", {"solved": solved})
                entry["max_error"] = torch_equivalence(weights, gammas, target, kernels, rng)
                if entry["max_error"] > tolerance:
                    return Outcome(Verdict.REFUTED,
                                   f"widths {sizes}, kernels {entry['kernels']}: torch source differs from the "
                                   f"target by {entry['max_error']:.1e} > {tolerance:.1e}", {"solved": solved},
                                   counterexample=entry)
                solved.append(entry)
        worst = max(solved, key=lambda e: e["max_error"] / e["tolerance"])
        return Outcome(Verdict.SUPPORTED,
                       f"{len(solved)} random targets reached ({sum(bool(e['kernels'][0]) for e in solved)} "
                       f"convolutional); worst torch error {worst['max_error']:.1e} "
                       f"(tolerance {worst['tolerance']:.1e})",
                       {"solved": solved})

    return Check("numerical representation of random targets by torch sources", "randomized", run)


def thm25_checks(offset: int = 0, cases=profile_cases):
    return (rank_check(offset, cases), solve_check(offset, cases))


register(Claim(
    id="burkholz2024.thm2_5",
    source=f"{SOURCE}, Sec. 2.4, Thm 2.5 and App. A.5",
    hypotheses=("L random linear source layers: fully connected (dim = 1) or convolutional (1-D, 2-D, stride 1, "
                "zero padding)", "Δk = dim(k1, …, kL) − kt ≥ 0", "Σ_l c_l ≥ c_L·c0·dim(k1, …, kL) + L", "c_l ≥ c0"),
    checks=thm25_checks(),
    broken=(Broken("two channels short of the bound (Σ c_l = c_L c0 + L − 2)", thm25_checks(-2),
                   refuted_by="the first profile c0 = c_L = 2, widths (2, 2) (c_l ≥ c0 still holds): "
                              "rank ≤ 4 − 1 = 3 < 4 equations, exactly, and the solve cannot reach the target"),
            Broken("convolutional source two channels short (Σ c_l = c_L c0 dim + L − 2)",
                   thm25_checks(-2, lambda ctx: CONV_CASES[:2]),
                   refuted_by="the pinned 1-D profile c0 = c_L = 1, kernels (1, 3), target kernel 3, widths (2, 1): "
                              "rank ≤ 3 − 1 = 2 < 3 = c_L c0 dim equations, exactly"),),
    notes="The bound has slack 1: L − 1 (not L) rescalings are lost, so Σ c_l = c_L c0 dim + L − 1 still gives a "
          "square Jacobian (exact ranks one short are full for these fully connected and convolutional profiles); two "
          "short is the first width the count excludes. Convolutional sources use full zero padding (k_l − 1 per "
          "side), under which stride-1 convolutions compose exactly (burkholz2024.composition); 'same' padding "
          "composes exactly only with 1×1 filters. Targets with Δk > 0 sit in the centre of the composite filter, the "
          "other composite entries solved to zero. Existence for every target (not only an open set) is supported by "
          "the numerical solves, not certified. Measured at ci (seed 2023): residuals ≤ 1e-14 at κ(J) ≤ 7e2, torch "
          "sources within 5e-14 of the target (conv) against tolerances ≥ 1.3e-12; at large (c1 = 36 for a 2 × 2 × 3×3 "
          "target) within 2e-13 at κ ≈ 1e3.",
    depends_on=("burkholz2024.thm2_2", "burkholz2024.composition"),
))
