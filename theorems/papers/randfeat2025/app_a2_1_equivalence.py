"""randfeat2025, Sec. 3 and App. A.2.1: Thm 3.1, ID cond features are the original parameterization.

Claim ``thm3_1`` [core]: training γ⁽¹⁾ of a layer with ID cond features is training the
original weights w_ij = γ⁽¹⁾_{k_ij}: inside any network (nonlinear layers before and after,
a per-output scale γ⁽²⁾ in the role of a normalization layer), loss and gradients agree at
every point, ∂L/∂γ⁽¹⁾_{k_ij} = ∂L/∂w_ij, so SGD and Adam produce the same trajectory. And
M = I is maximally sparse: removing any link of W⁽¹⁾ or W⁽²⁾ loses a target entry.

A parameterization under test is a feature family with a claimed correspondence between
γ⁽¹⁾ and W: ``to_weight`` (γ⁽¹⁾ ↦ W) and ``pair`` (feature k ↦ the flat index of the weight
whose gradient ∂L/∂γ⁽¹⁾_k should equal). The near-misses are column-major flattening, Ortho cond
features (well conditioned too, but ∇γ = Mᵀ∇W is not ∇W coordinatewise: SGD trajectories still
coincide since MMᵀ = I, Adam's do not), and the minimal ID cond variant with γ⁽²⁾ trained.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy

from theorems.engine.context import Context
from theorems.engine.registry import Broken, Check, Claim, register
from theorems.engine.verdicts import Outcome, Verdict
from theorems.maths import exact, features
from theorems.papers.randfeat2025 import SOURCE


@dataclass(frozen=True)
class Parameterization:
    """Student layers and the claimed correspondence with the original weights."""

    label: str
    layers: Callable[[int, int], tuple[np.ndarray, np.ndarray]]
    to_weight: Callable[[np.ndarray, int, int], np.ndarray]  # γ⁽¹⁾ (object or float) ↦ W (c2×c0)
    pair: Callable[[int, int], np.ndarray]  # pair[k] = flat index i·c0 + j of the weight matched with γ⁽¹⁾_k


def _row_major_weight(gamma1, c0, c2):
    return np.asarray(gamma1).reshape(c2, c0)


def _row_major_pair(c0, c2):
    return np.arange(c0 * c2)


ID_COND = Parameterization("ID cond, k_ij = i·c0 + j", features.id_cond, _row_major_weight, _row_major_pair)


def _column_major_weight(gamma1, c0, c2):
    return np.asarray(gamma1).reshape(c0, c2).T


def _column_major_pair(c0, c2):
    j, i = np.divmod(np.arange(c0 * c2), c2)
    return i * c0 + j


COLUMN_MAJOR = Parameterization("ID cond read with k_ij = j·c2 + i (column-major)", features.id_cond,
                                _column_major_weight, _column_major_pair)


def _rational_rotation(n: int) -> np.ndarray:
    """A fixed rational orthogonal matrix that is no signed permutation (Adam commutes with those):
    the Cayley transform of the skew matrix with 1/2 above the diagonal ([[3/5, −4/5], [4/5, 3/5]] for n = 2)."""
    upper = np.triu(np.full((n, n), Fraction(1, 2), dtype=object), 1)
    return features.cayley_orthogonal(upper - upper.T)


def _ortho_layers(c0, c2):
    return features.ortho_cond_layers(_rational_rotation(c0), _rational_rotation(c2))


def _ortho_weight(gamma1, c0, c2):
    m = features.feature_matrix(*_ortho_layers(c0, c2))
    gamma1 = np.asarray(gamma1)
    if gamma1.dtype != object:
        m = m.astype(float)
    return m.dot(gamma1).reshape(c2, c0)


ORTHO_COND = Parameterization("Ortho cond (rational orthogonal U⁽¹⁾, U⁽²⁾), W = vec⁻¹(Mγ⁽¹⁾)", _ortho_layers,
                              _ortho_weight, _row_major_pair)


def _minimal_weight(gamma1, c0, c2):
    gamma1 = np.asarray(gamma1)
    w = np.empty((c2, c0), dtype=gamma1.dtype)
    w[:, 0] = gamma1[0]
    w[:, 1:] = gamma1[1:].reshape(c2, c0 - 1)
    return w


def _minimal_pair(c0, c2):
    rest = np.array([i * c0 + j for i in range(c2) for j in range(1, c0)], dtype=np.int64)
    return np.concatenate([[0], rest])


MINIMAL = Parameterization("minimal ID cond (γ⁽¹⁾_{k₁} shared by input 1)", features.id_cond_minimal,
                           _minimal_weight, _minimal_pair)


# --- symbolic: loss and gradients as expressions ----------------------------------------


def _symbolic_sides(parameterization: Parameterization, c0: int, c2: int, activation: str):
    """Loss and gradients of the student and of the original network as sympy expressions."""
    w1, w2 = parameterization.layers(c0, c2)
    c1 = w1.shape[0]
    x = np.array(sympy.symbols(f"x_0:{c0}"), dtype=object)
    a = np.array(sympy.symbols(f"a_0:{c0 * c0}"), dtype=object).reshape(c0, c0)
    b = np.array(sympy.symbols(f"b_0:{c2}"), dtype=object)
    y = sympy.Symbol("y")
    g1 = np.array(sympy.symbols(f"g1_0:{c1}"), dtype=object)
    g2 = np.array(sympy.symbols(f"g2_0:{c2}"), dtype=object)
    w = np.array(sympy.symbols(f"w_0:{c0 * c2}"), dtype=object).reshape(c2, c0)
    before = {"tanh": sympy.tanh, "polynomial": lambda z: z + z**2 / 2}[activation]
    after = {"tanh": lambda z: z * sympy.tanh(z), "polynomial": lambda z: z**3 / 3 - z}[activation]
    hidden = np.array([before(e) for e in a.dot(x)], dtype=object)

    def loss(layer_output):
        out = sum(b[i] * after(layer_output[i]) for i in range(c2))
        return (out - y) ** 2

    student = loss(g2 * (w2.astype(object) * g1[None, :]).dot(w1.astype(object)).dot(hidden))
    original = loss(g2 * w.dot(hidden))
    substitution = dict(zip(w.ravel(), parameterization.to_weight(g1, c0, c2).ravel(), strict=True))
    original_at = original.subs(substitution)
    pair = parameterization.pair(c0, c2)
    grad_w = [sympy.diff(original, w.ravel()[pair[k]]).subs(substitution) for k in range(c1)]
    lhs = [student] + [sympy.diff(student, g) for g in g1] + [sympy.diff(student, g) for g in g2]
    rhs = [original_at] + grad_w + [sympy.diff(original, g).subs(substitution) for g in g2]
    return [lhs], [rhs]


# A rational point for the quick disproof of a non-identity (expanding a wrong difference of
# nested tanh/polynomial expressions takes minutes; one exact evaluation takes milliseconds).
WITNESS_DIGITS = 50


def _first_nonzero_at_point(lhs, rhs) -> tuple[int, sympy.Expr] | None:
    """(entry, value) where lhs − rhs is nonzero at a fixed rational point, evaluated to 50
    digits (a value above 10⁻³⁰ is nonzero beyond doubt); None when every entry vanishes there."""
    expressions = [l - r for l, r in zip(lhs[0], rhs[0], strict=True)]
    symbols = sorted(set().union(*(e.free_symbols for e in expressions)), key=str)
    point = {symbol: sympy.Rational(index % 7 + 2, index % 5 + 3) for index, symbol in enumerate(symbols)}
    for index, expression in enumerate(expressions):
        value = expression.subs(point).evalf(WITNESS_DIGITS)
        if abs(value) > sympy.Float("1e-30"):
            return index, value
    return None


def symbolic_check(name: str, parameterization: Parameterization) -> Check:
    """Loss and gradients as sympy expressions: a nonzero difference at a rational point refutes
    (with the point's value); otherwise lhs − rhs must expand to zero (certified)."""

    def run(ctx: Context) -> Outcome:
        sizes = ctx.by_profile([(2, 2)], [(2, 2), (3, 2)])
        checked = []
        for c0, c2 in sizes:
            for activation in ("polynomial", "tanh"):
                case = f"c0 = {c0}, c2 = {c2}, {activation} layers before/after, {parameterization.label}"
                lhs, rhs = _symbolic_sides(parameterization, c0, c2, activation)
                found = _first_nonzero_at_point(lhs, rhs)
                if found is None and any(sympy.expand(l - r) != 0 for l, r in zip(lhs[0], rhs[0], strict=True)):
                    found = (-1, "nonzero polynomial vanishing at the test point")
                if found is not None:
                    entry, value = found
                    what = "loss" if entry == 0 else f"gradient entry {entry - 1}"
                    return Outcome(Verdict.REFUTED, f"{case}: student and original differ in the {what} "
                                   f"(difference {sympy.N(value, 8) if entry >= 0 else value} "
                                   f"at the rational test point)",
                                   {"cases_checked": checked},
                                   counterexample={"case": case, "entry": what, "difference": str(value)})
                checked.append(case)
        return Outcome(Verdict.CERTIFIED, f"loss and all gradients identical as expressions in {len(checked)} cases",
                       {"method": "sympy.expand(student − original) == 0 with symbolic inputs, weights, γ and target",
                        "cases": checked})

    return Check(name, "symbolic", run)


# --- float64: random points and training runs -------------------------------------------


def _networks(parameterization: Parameterization, c0: int, c2: int, generator):
    """The same random network twice: the layer as the student (frozen features, γ⁽¹⁾, γ⁽²⁾) and
    in its original parameterization (W = to_weight(γ⁽¹⁾), γ⁽²⁾), between a tanh layer and a
    ReLU layer, with identical parameters elsewhere."""
    import torch
    from torch import nn

    w1, w2 = parameterization.layers(c0, c2)
    w1, w2 = np.asarray(w1, dtype=float), np.asarray(w2, dtype=float)
    gamma1 = torch.randn(w1.shape[0], generator=generator, dtype=torch.float64)
    gamma2 = 1 + 0.1 * torch.randn(c2, generator=generator, dtype=torch.float64)
    before = nn.Linear(5, c0, dtype=torch.float64)
    after = nn.Linear(c2, 3, dtype=torch.float64)
    with torch.no_grad():
        for parameter in (*before.parameters(), *after.parameters()):
            parameter.copy_(torch.randn(parameter.shape, generator=generator, dtype=torch.float64) / 2)
    student_layer = features.FeatureLayer(w1, w2, gamma1, gamma2)

    class Original(nn.Module):
        def __init__(self):
            super().__init__()
            weight = parameterization.to_weight(gamma1.numpy(), c0, c2)
            self.weight = nn.Parameter(torch.as_tensor(np.array(weight, dtype=float)))
            self.gamma2 = nn.Parameter(gamma2.clone())

        def forward(self, h):
            return (h @ self.weight.T) * self.gamma2

    def wrap(layer):
        import copy

        return nn.Sequential(copy.deepcopy(before), nn.Tanh(), layer, nn.ReLU(), copy.deepcopy(after))

    return wrap(student_layer), wrap(Original())


def _compare_gradients(parameterization, student, original, c0, c2) -> tuple[float, float]:
    """The largest gradient gap between the networks, relative to the largest gradient, after backward passes."""
    import torch

    s_layer, o_layer = student[2], original[2]
    pair = torch.as_tensor(parameterization.pair(c0, c2))
    gaps = [(s_layer.scale1.gamma.grad - o_layer.weight.grad.reshape(-1)[pair]).abs().max(),
            (s_layer.scale2.gamma.grad - o_layer.gamma2.grad).abs().max()]
    scale = max(float(o_layer.weight.grad.abs().max()), float(o_layer.gamma2.grad.abs().max()), 1e-300)
    for s_param, o_param in zip((*student[0].parameters(), *student[4].parameters()),
                                (*original[0].parameters(), *original[4].parameters()), strict=True):
        gaps.append((s_param.grad - o_param.grad).abs().max())
        scale = max(scale, float(o_param.grad.abs().max()))
    return float(max(gaps)) / scale


# Float64 agreement: products reassociate (W2·diag(γ1)·W1 vs W), so gaps are a few ulps of the
# largest term; 1e-9 relative leaves six orders of magnitude of room and is far below the O(1)
# gaps of a wrong correspondence.
FLOAT_TOLERANCE = 1e-9


def random_point_check(name: str, parameterization: Parameterization) -> Check:
    def run(ctx: Context) -> Outcome:
        import torch

        generator = ctx.torch_generator("points", device="cpu")
        sizes = ctx.by_profile([(2, 2), (3, 4)], [(2, 2), (3, 4), (8, 5), (16, 16)], None,
                               [(2, 2), (3, 4), (8, 5), (16, 16), (64, 32)])
        rows = []
        for c0, c2 in sizes:
            for trial in range(ctx.by_profile(2, 5)):
                student, original = _networks(parameterization, c0, c2, generator)
                x = torch.randn(16, 5, generator=generator, dtype=torch.float64)
                target = torch.randn(16, 3, generator=generator, dtype=torch.float64)
                losses = []
                for network in (student, original):
                    loss = ((network(x) - target) ** 2).mean()
                    loss.backward()
                    losses.append(float(loss.detach()))
                loss_gap = abs(losses[0] - losses[1]) / max(abs(losses[1]), 1e-300)
                grad_gap = _compare_gradients(parameterization, student, original, c0, c2)
                rows.append({"c0": c0, "c2": c2, "trial": trial, "loss_gap": float(f"{loss_gap:.3g}"),
                             "grad_gap": float(f"{grad_gap:.3g}")})
                if max(loss_gap, grad_gap) > FLOAT_TOLERANCE:
                    return Outcome(Verdict.REFUTED, f"c0 = {c0}, c2 = {c2}: relative loss gap {loss_gap:.3g}, "
                                   f"gradient gap {grad_gap:.3g} > {FLOAT_TOLERANCE:g} ({parameterization.label})",
                                   {"points": rows}, counterexample=rows[-1])
        worst = max(max(r["loss_gap"], r["grad_gap"]) for r in rows)
        return Outcome(Verdict.SUPPORTED, f"{len(rows)} random networks (tanh before, ReLU after, c0c2 up to "
                       f"{max(a * b for a, b in sizes)}): loss and every gradient agree to {worst:.2g} relative",
                       {"points": rows, "tolerance": FLOAT_TOLERANCE})

    return Check(name, "randomized", run)


def trajectory_check(name: str, parameterization: Parameterization) -> Check:
    """Full-batch SGD and Adam from the same initialization, every parameter trained: the
    student's effective weight diag(γ⁽²⁾)W⁽²⁾diag(γ⁽¹⁾)W⁽¹⁾ tracks diag(γ⁽²⁾)W of the original."""

    def run(ctx: Context) -> Outcome:
        import torch

        generator = ctx.torch_generator("trajectory", device="cpu")
        c0, c2 = ctx.by_profile((3, 2), (6, 4), None, (16, 8))
        steps = ctx.by_profile(15, 40, None, 100)
        rows = []
        for optimizer_name, make in (("SGD", lambda p: torch.optim.SGD(p, lr=0.05)),
                                     ("Adam", lambda p: torch.optim.Adam(p, lr=0.01))):
            student, original = _networks(parameterization, c0, c2, generator)
            x = torch.randn(32, 5, generator=generator, dtype=torch.float64)
            target = torch.randn(32, 3, generator=generator, dtype=torch.float64)
            optimizers = [make(network.parameters()) for network in (student, original)]
            worst = 0.0
            for step in range(steps + 1):
                with torch.no_grad():
                    s_weight = student[2].effective_weight()
                    o_weight = original[2].gamma2[:, None] * original[2].weight
                    gap = float((s_weight - o_weight).abs().max() / o_weight.abs().max())
                worst = max(worst, gap)
                if gap > FLOAT_TOLERANCE:
                    rows.append({"optimizer": optimizer_name, "step": step, "relative_weight_gap": float(f"{gap:.3g}")})
                    return Outcome(Verdict.REFUTED, f"{optimizer_name}, step {step}: the effective weights differ by "
                                   f"{gap:.3g} (relative) ({parameterization.label})", {"runs": rows},
                                   counterexample=rows[-1])
                if step == steps:
                    break
                for network, optimizer in zip((student, original), optimizers, strict=True):
                    optimizer.zero_grad()
                    ((network(x) - target) ** 2).mean().backward()
                    optimizer.step()
            rows.append({"optimizer": optimizer_name, "steps": steps, "max_relative_weight_gap": float(f"{worst:.3g}")})
        return Outcome(Verdict.SUPPORTED, f"SGD and Adam, {steps} steps each (c0 = {c0}, c2 = {c2}): "
                       f"the effective weights agree to {max(r['max_relative_weight_gap'] for r in rows):.2g} "
                       f"relative at every step",
                       {"runs": rows, "tolerance": FLOAT_TOLERANCE})

    return Check(name, "randomized", run, part="training trajectory")


# --- maximal sparsity: removing any link loses a target ---------------------------------


def link_removal_check(layers: Callable[[int, int], tuple[np.ndarray, np.ndarray]]) -> Check:
    """For every link (nonzero of W⁽¹⁾ or W⁽²⁾): with it removed, some target is unreachable.
    Decided exactly: a zero row (i, j) of the new M makes every target with w_ij ≠ 0
    unreachable whatever γ⁽¹⁾ and γ⁽²⁾; rank M = c0c2 makes every target reachable (γ⁽²⁾ = 1)."""

    def run(ctx: Context) -> Outcome:
        largest = ctx.by_profile(2, 3, 4, 5)
        removals = 0
        for c0 in range(1, largest + 1):
            for c2 in range(1, largest + 1):
                w1, w2 = layers(c0, c2)
                for layer_name, layer in (("W1", w1), ("W2", w2)):
                    for position in zip(*np.nonzero(layer), strict=True):
                        cut = layer.copy()
                        cut[position] = 0
                        m = features.feature_matrix(cut, w2) if layer_name == "W1" else features.feature_matrix(w1, cut)
                        zero_rows = np.flatnonzero(~m.any(axis=1))
                        removals += 1
                        if zero_rows.size:
                            continue
                        rank = exact.rank_exact(m)
                        link = {"c0": c0, "c2": c2, "layer": layer_name, "link": [int(p) for p in position],
                                "rank_after": rank}
                        if rank == c0 * c2:
                            return Outcome(Verdict.REFUTED, f"c0 = {c0}, c2 = {c2}: removing "
                                           f"{layer_name}{list(map(int, position))} "
                                           f"leaves rank M = c0c2 = {rank}: every target is still reachable",
                                           {"removals_checked": removals}, counterexample=link)
                        raise AssertionError(f"undecided removal {link}: rank deficient without a zero row")
        return Outcome(Verdict.CERTIFIED, f"all {removals} single-link removals (c0, c2 ≤ {largest}) "
                       "zero a row (i, j) of M: the target e_ij is unreachable for every γ⁽¹⁾, γ⁽²⁾",
                       {"removals": removals, "sizes": f"1 ≤ c0, c2 ≤ {largest}"})

    return Check("removing any link loses a target", "symbolic", run, part="maximally sparse")


def _with_duplicate(c0, c2):
    w1, w2 = features.id_cond(c0, c2)
    return np.vstack([w1, w1[:1]]), np.hstack([w2, w2[:, :1]])


def _checks(parameterization: Parameterization) -> tuple[Check, ...]:
    return (symbolic_check("loss and gradients equal (sympy)", parameterization),
            random_point_check("loss and gradients equal (float64, random networks)", parameterization),
            trajectory_check("SGD and Adam trajectories equal", parameterization))


register(Claim(
    id="randfeat2025.thm3_1",
    source=f"{SOURCE}, Sec. 3, Thm 3.1; proof in App. A.2.1",
    hypotheses=("ID cond features (Eq. 6), c1 = c0c2", "any layers before and after (nonlinear)",
                "γ⁽²⁾ trained in both parameterizations (the normalization layer's scale)"),
    checks=(*_checks(ID_COND), link_removal_check(features.id_cond)),
    depends_on=("randfeat2025.idcond",),
    broken=(
        Broken("column-major correspondence k_ij = j·c2 + i", _checks(COLUMN_MAJOR),
               refuted_by="every case from c0 = c2 = 2 on: w_01 is paired with γ⁽¹⁾_2, which drives w_10"),
        Broken("Ortho cond features are equivalent too (same gradients, same Adam run)", _checks(ORTHO_COND),
               refuted_by="the fixed rational rotations (Cayley transforms of the skew matrix with 1/2 above the "
                          "diagonal) at c0 = c2 = 2: ∇γ = Mᵀ∇W ≠ ∇W; SGD agrees (MMᵀ = I), Adam does not"),
        Broken("minimal ID cond with γ⁽²⁾ trained is equivalent too", _checks(MINIMAL),
               refuted_by="c0 = c2 = 2: ∂L/∂γ⁽¹⁾_{k₁} = Σ_i ∂L/∂w_i1 ≠ ∂L/∂w_11"),
        Broken("ID cond with one duplicated feature (c1 = c0c2 + 1) is maximally sparse",
               (link_removal_check(_with_duplicate),),
               refuted_by="c0 = c2 = 1: removing a link of the duplicate leaves M = [1, 0] of full rank"),
    ),
    notes="Nonlinear layers: sympy with tanh and polynomial activations before and after (c0 = c2 = 2, and 3×2 at ci); "
          "torch float64 with a tanh layer before and a ReLU layer after. The proof's 'γ⁽²⁾ encodes the linear target "
          "layer' is read as γ⁽¹⁾ (typo). γ⁽²⁾ is trained in both networks with the same role.",
))
