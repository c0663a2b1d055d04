"""giannou2023, App. E, Fig. 4: a reproducible small-scale version of the experiment.

A random teacher g (one hidden ReLU layer of width d, output the sum of the hidden units) on
Gaussian inputs; the source f of Thm 1 (widths d², d, then d, 1), compared three ways:

- f1, baseline: SGD (momentum 0.9, constant step, as the paper found best) on the BatchNorm
  weights and biases only, weights frozen;
- f2, construction from the teacher (``build_source(g, "wide", radius=R)``, R the largest
  input norm of the data, since the construction is exact on ‖x‖ ≤ R);
- f3, construction from a dense copy g′ trained by SGD on the same data.

The statement checked at each width: f2's test error is at floating-point level (≤ 1e-10 of the
label variance) and f3's test error is below f1's. Test-error table and figure in the evidence.

Fig. 5 (sparse variant): the frozen weights of f1, f2 and f3 kept with probability p ∈ {0.2, 0.05}
(``build_source(..., method="sparse", p=p)``, the paper's pseudo-inverse where the draw is
singular). Checked: at p = 0.05 SGD on the BatchNorm parameters beats both constructions at every
d, as the paper reports; the p = 0.2 rows are tabulated (see the claim's notes).
"""

from __future__ import annotations

import torch
from torch import nn

from ...engine.context import Context
from ...engine.registry import Broken, Check, Claim, register, takes
from ...engine.verdicts import Outcome, Verdict
from ...maths import construction as cm


def teacher(d: int, generator: torch.Generator) -> nn.Sequential:
    g = nn.Sequential(nn.Linear(d, d, dtype=torch.float64), nn.ReLU(), nn.Linear(d, 1, dtype=torch.float64))
    with torch.no_grad():
        g[0].weight.copy_(torch.randn(d, d, generator=generator, dtype=torch.float64) / d ** 0.5)
        g[0].bias.copy_(0.1 * torch.randn(d, generator=generator, dtype=torch.float64))
        g[2].weight.fill_(1.0)
        g[2].bias.zero_()
    return g.eval()


def sgd(model: nn.Module, parameters, x, y, steps: int, generator: torch.Generator, lr: float = 0.01) -> None:
    optimizer = torch.optim.SGD(parameters, lr=lr, momentum=0.9)
    for _ in range(steps):
        batch = torch.randint(0, len(x), (128,), generator=generator)
        loss = ((model(x[batch]) - y[batch]) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def source_of(target: nn.Sequential, seed: int, radius: float, p: float | None) -> tuple[nn.Module, bool]:
    """The wide construction (p None), or the sparse one with keep-probability p; a sparse draw
    whose system is singular gets the paper's pseudo-inverse instead (App. E: 'we used
    pseudo-inverse ... since the matrices ... become rank-deficient'). Returns (module, exact)."""
    layers = cm.target_layers(target)
    if p is None:
        return cm.source_module(layers, "wide", seed, torch.float64, radius=radius), True
    try:
        return cm.source_module(layers, "sparse", seed, torch.float64, p=p, radius=radius), True
    except cm.ConstructionFailed:
        draws = cm.Draws(seed)  # the same masks: the support check draws nothing
        built = cm.plan(layers, "sparse", draws, p=p, radius=radius, recipe=cm.Recipe(least_squares=True))
        return cm.module_of(built, draws, torch.float64), False


def experiment(d: int, seed: int, samples: int, steps: int, radius_rule: str = "data", p: float | None = None) -> dict:
    """Test mean squared errors of f1, f2, f3 (and the dense copy) for teacher width d; with
    ``p`` the frozen weights of f1, f2 and f3 are kept with probability p (Fig. 5)."""
    generator = torch.Generator().manual_seed(seed)
    g = teacher(d, generator)
    x = torch.randn(samples, d, generator=generator, dtype=torch.float64)
    x_test = torch.randn(samples, d, generator=generator, dtype=torch.float64)
    with torch.no_grad():
        y, y_test = g(x), g(x_test)
    radius = 1.01 * float(torch.cat([x, x_test]).norm(dim=1).max()) if radius_rule == "data" else 1.0

    f2, f2_exact = source_of(g, seed, radius, p)
    dense = nn.Sequential(nn.Linear(d, d, dtype=torch.float64), nn.ReLU(), nn.Linear(d, 1, dtype=torch.float64))
    with torch.no_grad():  # PyTorch's default uniform(±1/√fan_in), but from the seeded generator, not the global one
        for layer in (dense[0], dense[2]):
            for parameter in (layer.weight, layer.bias):
                uniform = torch.rand(parameter.shape, generator=generator, dtype=torch.float64)
                parameter.copy_((2 * uniform - 1) / layer.in_features ** 0.5)
    sgd(dense, dense.parameters(), x, y, steps, generator)
    f3, f3_exact = source_of(dense.eval(), seed, radius, p)
    f1 = source_of(g, seed + 1, radius, p)[0]
    with torch.no_grad():  # the baseline starts from BatchNorm's default affine initialization
        for module in f1.modules():
            if isinstance(module, nn.BatchNorm1d):
                module.weight.fill_(1.0)
                module.bias.zero_()
    sgd(f1, [p for p in f1.parameters() if p.requires_grad], x, y, steps, generator)
    with torch.no_grad():
        errors = {name: float(((model(x_test) - y_test) ** 2).mean()) for name, model in
                  (("f1_sgd_bn", f1), ("f2_construction_teacher", f2), ("f3_construction_dense", f3),
                   ("dense_copy", dense))}
    sparsity = {} if p is None else {"p": p, "f2_exact": f2_exact, "f3_exact": f3_exact}
    return {"d": d, "seed": seed, "label_variance": float(y_test.var()), "radius": radius, **sparsity, **errors}


def fig4_check(radius_rule: str = "data") -> Check:
    def run(ctx: Context) -> Outcome:
        widths = ctx.by_profile([4], [4, 6], [4, 8, 12, 16], [4, 8, 16, 32])
        samples = ctx.by_profile(1000, 1000, 20000, 20000)
        steps = ctx.by_profile(200, 200, 1500, 1500)
        # the first width runs at a fixed seed (the pinned instance), the rest at the run's seed
        rows = [experiment(d, 4 if index == 0 else ctx.int_seed("fig4", d) % 2**31, samples, steps, radius_rule)
                for index, d in enumerate(widths)]
        for row in rows:
            if row["f2_construction_teacher"] > 1e-10 * row["label_variance"]:
                return Outcome(Verdict.REFUTED, f"d = {row['d']}: construction from the teacher has test MSE "
                               f"{row['f2_construction_teacher']:.3g} (radius {row['radius']:.3g})", {"rows": rows},
                               counterexample=row)
            if not row["f3_construction_dense"] < row["f1_sgd_bn"]:
                return Outcome(Verdict.REFUTED, f"d = {row['d']}: construction from the dense copy "
                               f"({row['f3_construction_dense']:.3g}) does not beat SGD on BatchNorm parameters "
                               f"({row['f1_sgd_bn']:.3g})", {"rows": rows}, counterexample=row)
        return Outcome(Verdict.SUPPORTED,
                       "construction from the teacher exact to float precision; "
                       "from the dense copy below SGD-on-BN at every d "
                       + ", ".join(f"d={r['d']}: {r['f3_construction_dense']:.2g} < {r['f1_sgd_bn']:.2g}"
                                   for r in rows),
                       {"rows": rows, "samples": samples, "sgd_steps": steps}, figures={"fig4": figure(rows)})

    return Check("test error of the three algorithms (Fig. 4 left)", "randomized", run)


def fig5_check(claimed_order: str = "sgd first") -> Check:
    """Fig. 5: the frozen weights of f1, f2, f3 kept with probability p ∈ {0.2, 0.05}. Checked
    (the paper: 'when the network is extremely sparse (sparsity = 0.05) ... SGD still achieves
    much better loss than the constructive algorithms'): at p = 0.05, f1 < f2 and f1 < f3 at every
    d. ``claimed_order="constructions first"`` carries Fig. 4's ordering (f3 < f1) over instead."""

    def run(ctx: Context) -> Outcome:
        widths = ctx.by_profile([4], [4, 8], [4, 8, 12, 16], [4, 8, 16, 32])
        samples = ctx.by_profile(1000, 1000, 20000, 20000)
        steps = ctx.by_profile(200, 200, 1500, 1500)
        rows = [experiment(d, 4 if index == 0 else ctx.int_seed("fig5", d, p) % 2**31, samples, steps, p=p)
                for p in SPARSITIES for index, d in enumerate(widths)]
        for row in (r for r in rows if r["p"] == SPARSITIES[-1]):
            best_construction = min(row["f2_construction_teacher"], row["f3_construction_dense"])
            if claimed_order == "sgd first" and not row["f1_sgd_bn"] < best_construction:
                return Outcome(Verdict.REFUTED, f"p = {row['p']}, d = {row['d']}: a construction "
                               f"({best_construction:.3g}) beats SGD on BatchNorm parameters ({row['f1_sgd_bn']:.3g})",
                               {"rows": rows}, counterexample=row)
            if claimed_order == "constructions first" and not row["f3_construction_dense"] < row["f1_sgd_bn"]:
                return Outcome(Verdict.REFUTED, f"p = {row['p']}, d = {row['d']}: construction from the dense copy "
                               f"({row['f3_construction_dense']:.3g}) does not beat SGD on BatchNorm parameters "
                               f"({row['f1_sgd_bn']:.3g})", {"rows": rows}, counterexample=row)
        sparsest = [r for r in rows if r["p"] == SPARSITIES[-1]]
        return Outcome(Verdict.SUPPORTED, f"p = {SPARSITIES[-1]}: SGD on BN below both constructions at every d "
                       + ", ".join(f"d={r['d']}: {r['f1_sgd_bn']:.2g} < "
                                   f"{min(r['f2_construction_teacher'], r['f3_construction_dense']):.2g}"
                                   for r in sparsest)
                       + f"; exact sparse constructions {sum(r['f2_exact'] + r['f3_exact'] for r in rows)} "
                         f"of {2 * len(rows)}",
                       {"rows": rows, "samples": samples, "sgd_steps": steps}, figures={"fig5": figure(rows)})

    return Check("test error with sparse frozen weights (Fig. 5)", "randomized", run)


SPARSITIES = (0.2, 0.05)  # Fig. 5 (a) and (b): 20% and 5% of the frozen weights kept


def figure(rows):
    """Test MSE against d, one panel per keep-probability (one panel for the dense Fig. 4)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = sorted({r.get("p") for r in rows}, key=lambda p: -(p or 1))
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.2), squeeze=False)
    floor = 1e-32
    for axis, p in zip(axes[0], panels, strict=True):
        panel = [r for r in rows if r.get("p") == p]
        ds = [r["d"] for r in panel]
        for key, label, style in (("f1_sgd_bn", "SGD on BN parameters (f1)", "-"),
                                  ("f2_construction_teacher", "construction from g (f2)", "-"),
                                  ("f3_construction_dense", "construction from SGD-trained g′ (f3)", "-"),
                                  ("dense_copy", "SGD-trained dense g′", "--")):
            if key != "dense_copy" or p is not None:
                axis.semilogy(ds, [max(r[key], floor) for r in panel], style, marker="o", label=label,
                              **({"color": "black"} if key == "dense_copy" else {}))
        axis.set_xlabel("teacher width d")
        axis.set_ylabel("test MSE")
        if p is not None:
            axis.set_title(f"{p:.0%} of the frozen weights kept")
        axis.legend(fontsize=7)
    fig.tight_layout()
    plt.close(fig)
    return fig


register(Claim(
    id="giannou2023.fig4",
    source="App. E, Fig. 4 (left) and Fig. 5",
    hypotheses=("teacher: one hidden ReLU layer of width d, output the sum of hidden units", "Gaussian inputs",
                "source of Thm 1 (widths d², d, d, 1)",
                "equal SGD budgets for the dense copy and the BN-only baseline",
                "quantifier: the drawn teacher and data at each width (one draw each; an experiment, not a theorem)"),
    subject={"construction radius": "data", "sparse ordering": "sgd first"},
    checks=(takes("construction radius", build=fig4_check), takes("sparse ordering", build=fig5_check)),
    broken=(Broken("construction on the unit ball only (radius 1) applied to Gaussian data",
                   {"construction radius": "unit ball"},
                   refuted_by="the pinned instance d = 4, seed 4: inputs of norm > 1 switch hidden ReLUs off, "
                              "test MSE ≫ 1e-10"),
            Broken("Fig. 4's ordering carried over to 5% sparse frozen weights (f3 below f1)",
                   {"sparse ordering": "constructions first"},
                   refuted_by="the pinned instance p = 0.05, d = 4, seed 4: f3 ≈ 3.2 against f1 ≈ 1.2 "
                              "(SGD on BN wins)"),),
    notes="Small scale (d ≤ 6 at ci, ≤ 16 at thorough; 2·10³–2·10⁴ samples instead of 10⁶; one repetition). The "
          "construction is exact on the ball of the data's largest norm (Gaussian inputs are unbounded, so the paper's "
          "‖x‖ ≤ 1 domain does not cover them). Measured at thorough (d = 4, 8, 12, 16, seed 2023): f1 0.11–0.59, "
          "f3 0.02–0.04, f2 at float64 rounding. Fig. 5 (sparse frozen weights, build_source(method='sparse', p), the "
          "paper's pseudo-inverse where a draw is singular): the 5% statement (SGD on BN beats both constructions) is "
          "reproduced. The 20% statement (constructions reach almost 0 error at larger d) is not, and is not judged: "
          "the teacher's scalar output layer is outside Thm 3's square setting, and its 1 × d frozen row keeps ≈ pd "
          "entries, so the Khatri–Rao system of that layer has rank ≤ pd < d (singular unless every entry is kept, "
          "probability p^d) and the pseudo-inverse leaves the output weight's component outside a ≈ pd-dimensional "
          "span, whatever d. Measured at large (d = 4, 8, 16, 32, seed 2023): no sparse construction exact; f2, f3 "
          "at 1.2–12× the label variance, f1 at the label variance (it learns the mean) for both p.",
    depends_on=("giannou2023.thm8",),
))
