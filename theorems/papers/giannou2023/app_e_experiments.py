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
on the hidden layers, the scalar output row dense (``hidden_layers_mask``; the paper's pseudo-inverse
where the draw is singular). Checked: at p = 0.05 SGD on the BatchNorm parameters beats both
constructions, as the paper reports; at p = 0.2 whether f2 reaches almost 0 error (see the claim's notes).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable

from theorems.lazy import nn, torch

from ...engine.context import Context
from ...engine.coverage import cached
from ...engine.registry import Broken, Check, Claim, register, takes
from ...engine.verdicts import Outcome, Verdict
from ...maths import construction as cm
from ...maths import stats


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


# The stated convergence criterion: full-batch L-BFGS on the training MSE, in rounds of ROUND_ITERATIONS
# iterations, until one round lowers the loss by less than CONVERGED_GAIN of itself, or the loss is below
# INTERPOLATED of the labels' mean square (a fit that reaches the teacher keeps gaining a fixed fraction per round).
ROUND_ITERATIONS = 50
CONVERGED_GAIN = 1e-3
INTERPOLATED = 1e-12


def fit_to_convergence(model: nn.Module, parameters, x, y, max_rounds: int) -> dict:
    """Train ``parameters`` of ``model`` to the stated criterion (the minimum SGD approaches, reached
    faster): returns whether it converged within ``max_rounds``, the rounds used and the train MSE."""
    parameters = list(parameters)
    optimizer = torch.optim.LBFGS(parameters, lr=1.0, max_iter=ROUND_ITERATIONS, tolerance_grad=0.0,
                                  tolerance_change=0.0, history_size=50, line_search_fn="strong_wolfe")

    def loss() -> torch.Tensor:
        return ((model(x) - y) ** 2).mean()

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        value = loss()
        value.backward()
        return value

    with torch.no_grad():
        previous = float(loss())
        floor = INTERPOLATED * float((y**2).mean())
    for rounds in range(1, max_rounds + 1):
        optimizer.step(closure)
        with torch.no_grad():
            current = float(loss())
        if previous - current <= CONVERGED_GAIN * previous or current <= floor:
            return {"converged": True, "rounds": rounds, "train_mse": current}
        previous = current
    return {"converged": False, "rounds": max_rounds, "train_mse": current}


def hidden_layers_mask(draws: cm.Draws, p: float) -> Callable:
    """Thm 11's mask, each entry kept with probability p, on every frozen weight of f but its scalar output row,
    kept dense: Fig. 5 read as sparsifying the hidden layers (the paper does not say how it sparsified the 1 × d
    output layer, whose Khatri–Rao system a sparse row leaves of rank ≤ pd < d whatever d). The output row is the
    only frozen weight with one row, since the teacher's widths are at least 2."""
    sparsify = cm.sparse_mask(draws, p)
    return lambda weight: weight if weight.shape[0] == 1 else sparsify(weight)


def source_of(target: nn.Sequential, seed: int, radius: float, p: float | None) -> tuple[nn.Module, bool]:
    """The wide construction (p None), or the sparse one with keep-probability p on the hidden layers
    (``hidden_layers_mask``); a sparse draw whose system is singular gets the paper's pseudo-inverse instead (App.
    E: 'we used pseudo-inverse ... since the matrices ... become rank-deficient'). Returns (module, exact)."""
    layers = cm.target_layers(target)
    if p is None:
        return cm.source_module(layers, "wide", seed, torch.float64, radius=radius), True

    def planned(recipe: cm.Recipe, precheck) -> tuple[list, cm.Draws]:
        draws = cm.Draws(seed)  # the same masks on a second try: the support check draws nothing
        return cm.plan_wide(layers, draws.weight, radius, recipe, mask=hidden_layers_mask(draws, p),
                            precheck=precheck), draws

    try:
        (built, draws), exact = planned(cm.DEFAULT, cm.sparse_support_check), True
    except cm.ConstructionFailed:
        (built, draws), exact = planned(cm.Recipe(least_squares=True), None), False
    return cm.module_of(built, draws, torch.float64), exact


def data(d: int, seed: int, samples: int, radius_rule: str, generator: torch.Generator) -> tuple:
    """The teacher g, the train and test inputs and labels, and the construction radius, drawn from
    ``generator`` (seeded with ``seed``): (g, x, y, x_test, y_test, radius)."""
    g = teacher(d, generator)
    x = torch.randn(samples, d, generator=generator, dtype=torch.float64)
    x_test = torch.randn(samples, d, generator=generator, dtype=torch.float64)
    with torch.no_grad():
        y, y_test = g(x), g(x_test)
    radius = 1.01 * float(torch.cat([x, x_test]).norm(dim=1).max()) if radius_rule == "data" else 1.0
    return g, x, y, x_test, y_test, radius


def baseline(g: nn.Sequential, x, y, x_test, y_test, seed: int, radius: float, p: float | None, steps: int | None,
             generator: torch.Generator | None) -> tuple[float, dict | None]:
    """f1: the source of g with frozen weights (drawn from seed + 1), its BatchNorm parameters from their default
    initialization given ``steps`` of SGD, or (None) trained to the stated convergence criterion. Returns its
    test MSE and (trained to convergence) its training record."""
    f1 = source_of(g, seed + 1, radius, p)[0]
    with torch.no_grad():  # the baseline starts from BatchNorm's default affine initialization
        for module in f1.modules():
            if isinstance(module, nn.BatchNorm1d):
                module.weight.fill_(1.0)
                module.bias.zero_()
    batchnorm_parameters = [p for p in f1.parameters() if p.requires_grad]
    training = None
    if steps is None:
        training = fit_to_convergence(f1, batchnorm_parameters, x, y, MAX_ROUNDS)
    else:
        sgd(f1, batchnorm_parameters, x, y, steps, generator)
    with torch.no_grad():
        return float(((f1(x_test) - y_test) ** 2).mean()), training


@cached
def converged_baseline(d: int, seed: int, samples: int, radius_rule: str, p: float | None) -> tuple[float, dict]:
    """``baseline`` trained to convergence, computed once per process: it draws nothing from the experiment's
    generator after the data, so it is the same whatever the dense copy's training (the under-trained copy of
    Fig. 4's broken variant shares it with the claim)."""
    g, x, y, x_test, y_test, radius = data(d, seed, samples, radius_rule, torch.Generator().manual_seed(seed))
    return baseline(g, x, y, x_test, y_test, seed, radius, p, None, None)


def experiment(d: int, seed: int, samples: int, steps: int | None, radius_rule: str = "data",
               p: float | None = None, copy_steps: int | None = None) -> dict:
    """Test mean squared errors of f1, f2, f3 (and the dense copy) for teacher width d; with
    ``p`` the frozen weights of f1, f2 and f3 are kept with probability p (Fig. 5). The dense copy
    and f1's BatchNorm parameters get ``steps`` of SGD each, or (None) are both trained to the
    stated convergence criterion (``fit_to_convergence``); ``copy_steps`` gives the dense copy alone
    that SGD budget instead (an under-trained copy)."""
    generator = torch.Generator().manual_seed(seed)
    g, x, y, x_test, y_test, radius = data(d, seed, samples, radius_rule, generator)

    f2, f2_exact = source_of(g, seed, radius, p)
    dense = nn.Sequential(nn.Linear(d, d, dtype=torch.float64), nn.ReLU(), nn.Linear(d, 1, dtype=torch.float64))
    with torch.no_grad():  # PyTorch's default uniform(±1/√fan_in), but from the seeded generator, not the global one
        for layer in (dense[0], dense[2]):
            for parameter in (layer.weight, layer.bias):
                uniform = torch.rand(parameter.shape, generator=generator, dtype=torch.float64)
                parameter.copy_((2 * uniform - 1) / layer.in_features ** 0.5)
    training = {}
    if steps is None and copy_steps is None:
        training["dense_copy_training"] = fit_to_convergence(dense, dense.parameters(), x, y, MAX_ROUNDS)
    else:
        sgd(dense, dense.parameters(), x, y, steps if copy_steps is None else copy_steps, generator)
    f3, f3_exact = source_of(dense.eval(), seed, radius, p)
    if steps is None:
        f1_error, f1_training = converged_baseline(d, seed, samples, radius_rule, p)
        training["f1_training"] = dict(f1_training)
    else:  # after the dense copy's SGD, from the same generator
        f1_error, _ = baseline(g, x, y, x_test, y_test, seed, radius, p, steps, generator)
    with torch.no_grad():
        errors = {"f1_sgd_bn": f1_error, **{name: float(((model(x_test) - y_test) ** 2).mean()) for name, model in
                                            (("f2_construction_teacher", f2), ("f3_construction_dense", f3),
                                             ("dense_copy", dense))}}
    sparsity = {} if p is None else {"p": p, "f2_exact": f2_exact, "f3_exact": f3_exact}
    return {"d": d, "seed": seed, "label_variance": float(y_test.var()), "radius": radius, **sparsity, **errors,
            **training}


@cached
def _experiment_once(compute: Callable[..., dict], *args, **kwargs) -> dict:
    return compute(*args, **kwargs)


def experiment_row(*args, **kwargs) -> dict:
    """``experiment``, computed once per process for the same arguments (a copy each time): a row is a
    function of its arguments alone (every draw comes from its seed), and quick runs as ci (the claim's test
    runs both), so a second run of the same rows would only repeat the same float computations. Keyed by
    the function too, so that one put in its place (a test's) is called."""
    return copy.deepcopy(_experiment_once(experiment, *args, **kwargs))


# Fig. 4's comparison, decided over seeds: f3 "wins" a seed when its test MSE is at most 1/MARGIN of f1's. A sign
# test (distribution-free, so an f3 that is exact at one seed, a ratio of 10^25, counts once), sequential over
# looks: supported at the first look where the one-sided 95% lower bound on the winning probability exceeds 1/2,
# refuted at a look where P(Bin(n, 1/2) ≤ wins) is below that look's share of FALSE_ALARM (spending_schedule);
# otherwise more seeds, up to the last look. No count of fewer than 30 seeds refutes at 1e-9, so the last look has 72.
MARGIN = 2.0
MAX_ROUNDS = 100  # 5000 L-BFGS iterations: measured at thorough (d ≤ 8), f1 needs up to ≈ 40 rounds at d = 8


def fig4_seeds(ctx: Context, d: int, index: int, repetitions: int) -> list[int]:
    """The seeds of width d: the first width's first seed is fixed (the pinned instance), the rest
    come from the run's seed (a longer list extends a shorter one)."""
    drawn = [ctx.int_seed("fig4", d, r) % 2**31 for r in range(repetitions)]
    return [4, *drawn[1:]] if index == 0 else drawn


def sign_test(wins: int, pairs: int, false_alarm: float = stats.FALSE_ALARM) -> dict:
    """Winning fraction with its decision bounds, the counts that would decide it, and the smallest
    winning probability refuted with probability DETECTION_POWER (nan where no count refutes)."""
    support_from = next((k for k in range(pairs + 1) if stats.clopper_pearson_lower(k, pairs, 0.95) > 0.5), None)
    losses_needed = stats.rejection_count(pairs, 0.5, false_alarm)
    return {"wins": wins, "pairs": pairs, "lower_95": stats.round_sig(stats.clopper_pearson_lower(wins, pairs, 0.95)),
            "p_value_refuting": stats.round_sig(stats.binomial_lower_pvalue(wins, pairs, 0.5)),
            "false_alarm": false_alarm, "supports_from_wins": support_from,
            "refutes_at_most_wins": None if losses_needed is None else pairs - losses_needed,
            "detectable_win_rate": stats.round_sig(stats.detectable_rate(pairs, 0.5, below=True,
                                                                         false_alarm=false_alarm), 3)}


def sequential_sign_test(rows_for: Callable[[int, int], list[dict]], wins: Callable[[dict], bool],
                         looks: tuple[int, ...], stop: Callable[[list[dict]], bool] = lambda rows: False
                         ) -> tuple[list[dict], dict, dict]:
    """The sign test of 'a seed wins with probability > 1/2' over looks of ``looks`` seeds (``rows_for(done,
    upto)`` the rows of seeds done…upto): stops at the first look that supports (one-sided 95%), refutes (below that
    look's share of FALSE_ALARM) or where ``stop`` says. Returns the rows, the test at the look reached, and the test
    the last look would run at that count (whose detectable_win_rate is the power)."""
    budgets = stats.spending_schedule(len(looks))
    rows: list[dict] = []
    for done, upto, budget in zip((0, *looks[:-1]), looks, budgets, strict=True):
        rows += rows_for(done, upto)
        test = sign_test(sum(map(wins, rows)), len(rows), budget)
        if stop(rows) or test["lower_95"] > 0.5 or test["p_value_refuting"] < budget:
            break
    return rows, test, sign_test(test["wins"], len(rows) * looks[-1] // upto, budgets[-1])


def comparison_power(rows: list[dict], test: dict) -> dict:
    """The sign test's power in error units: it refutes with probability DETECTION_POWER once f3 wins at most a
    share ``detectable_win_rate`` of seeds, which an f3 whose test MSE rises by ε times the label variance does on
    these seeds once ε exceeds that quantile of the slacks (f1/MARGIN − f3)/variance."""
    slack = sorted((r["f1_sgd_bn"] / MARGIN - r["f3_construction_dense"]) / r["label_variance"] for r in rows)
    rate = test["detectable_win_rate"]
    added = slack[min(len(slack) - 1, math.ceil((1 - rate) * len(slack)) - 1)] if rate == rate else math.nan
    return {"win_rate": rate, "relative_test_mse_added": stats.round_sig(added, 3), "seeds": test["pairs"],
            "power": stats.DETECTION_POWER, "false_alarm": stats.FALSE_ALARM,
            "unit": "test MSE over the label variance, added to f3 at every seed"}


def fig4_check(radius_rule: str = "data", copy_steps: int | None = None) -> Check:
    def run(ctx: Context) -> Outcome:
        widths = ctx.by_profile([4], [4], [4, 6, 8], [4, 8, 12, 16])
        # looks in seeds per width: at d = 4 f3 wins ≈ 85–90% of seeds, and 24 seeds support from 17 wins (≈ 98% of
        # run seeds); the last look is where a losing construction is refuted. quick runs as ci, since fewer seeds
        # could support where ci does not
        looks = ctx.by_profile((24, 72), (24, 72), (12, 24), (12, 24))
        samples = ctx.by_profile(1000, 1000, 2000, 5000)
        seeds = {d: fig4_seeds(ctx, d, index, looks[-1]) for index, d in enumerate(widths)}

        def inexact(row: dict) -> bool:
            return row["f2_construction_teacher"] > 1e-10 * row["label_variance"]

        def converged(row: dict) -> bool:
            return row["f1_training"]["converged"] and row.get("dense_copy_training", {"converged": True})["converged"]

        def wins(row: dict) -> bool:
            # A seed whose training stopped short is never a win: an under-trained f1 would flatter f3.
            return converged(row) and row["f3_construction_dense"] * MARGIN <= row["f1_sgd_bn"]

        rows, test, final = sequential_sign_test(
            lambda done, upto: [experiment_row(d, seed, samples, None, radius_rule, copy_steps=copy_steps)
                                for d in widths for seed in seeds[d][done:upto]],
            wins, looks, lambda rows: any(map(inexact, rows)))
        evidence = {"rows": rows, "samples": samples, "widths": widths, "looks_seeds_per_width": list(looks),
                    "training": f"f1's BatchNorm parameters and the dense copy g′ both trained to convergence: "
                                f"full-batch L-BFGS in rounds of {ROUND_ITERATIONS} iterations until a round lowers "
                                f"the train MSE by < {CONVERGED_GAIN:g} of itself (≤ {MAX_ROUNDS} rounds)"
                                + ("" if copy_steps is None else f"; here g′ gets {copy_steps} SGD steps only"),
                    "comparison": f"sequential sign test over (d, seed): f3 wins when its test MSE ≤ f1's / {MARGIN:g}",
                    "sign_test": test, "detectable_effect": comparison_power(rows, final)}
        failing = next(filter(inexact, rows), None)
        if failing:
            return Outcome(Verdict.REFUTED, f"d = {failing['d']}, seed {failing['seed']}: construction from the "
                           f"teacher has test MSE {failing['f2_construction_teacher']:.3g} "
                           f"(radius {failing['radius']:.3g})",
                           evidence, counterexample=failing)
        unconverged = [r for r in rows if not converged(r)]
        evidence["unconverged_seeds"] = [{"d": r["d"], "seed": r["seed"]} for r in unconverged]
        ratios = sorted(r["f1_sgd_bn"] / max(r["f3_construction_dense"], 1e-300) for r in rows)
        # Nor is it a loss: a refutation must stand with every unconverged seed counted as a win.
        generous_wins = test["wins"] + len(unconverged)
        if stats.binomial_lower_pvalue(generous_wins, len(rows), 0.5) < test["false_alarm"]:
            return Outcome(Verdict.REFUTED, f"the construction from the dense copy beats converged SGD-on-BN by "
                           f"{MARGIN:g}× at only {test['wins']} of {len(rows)} seeds (sign test, p = "
                           f"{test['p_value_refuting']:.2g})", evidence,
                           counterexample=next(r for r in rows if r["f3_construction_dense"] * MARGIN > r["f1_sgd_bn"]))
        if test["lower_95"] <= 0.5:
            return Outcome(Verdict.INCONCLUSIVE, f"f3 beats converged f1 by {MARGIN:g}× at only {test['wins']} of "
                           f"{len(rows)} seeds ({len(unconverged)} of them with a training short of the convergence "
                           "criterion, never counted as wins)", evidence, figures={"fig4": figure(rows)})
        return Outcome(Verdict.SUPPORTED,
                       f"construction from the teacher exact to float precision; from the dense copy ≤ 1/{MARGIN:g} "
                       f"of converged SGD-on-BN at {test['wins']} of {len(rows)} seeds (d ∈ {widths}; winning "
                       f"probability > 1/2 at 95%); f1/f3 from {ratios[0]:.2g}, median {ratios[len(ratios) // 2]:.2g}",
                       evidence, figures={"fig4": figure(rows)})

    return Check("test error of the three algorithms, over seeds (Fig. 4 left)", "statistical", run)


def teacher_construction_near_zero(row: dict) -> bool:
    return row["f2_construction_teacher"] <= NEAR_ZERO * row["label_variance"]


SPARSE_ORDERINGS = {
    "sgd first": lambda row: row["f1_sgd_bn"] < min(row["f2_construction_teacher"], row["f3_construction_dense"]),
    "constructions first": lambda row: row["f3_construction_dense"] < row["f1_sgd_bn"]}


def fig5_check(claimed_order: str = "sgd first") -> Check:
    """Fig. 5: the frozen weights of f1, f2, f3 kept with probability p ∈ {0.2, 0.05}, at the profile's width, each
    statement a sequential sign test over seeds (``sequential_sign_test``). At 5% (the paper: 'SGD still achieves much
    better loss than the constructive algorithms') a seed wins when f1 < f2 and f1 < f3; at 20% ('almost 0 error at
    larger width') when f2 ≤ NEAR_ZERO of the label variance. ``claimed_order="constructions first"`` carries Fig. 4's
    ordering (f3 < f1) over to 5% instead."""

    def run(ctx: Context) -> Outcome:
        d = ctx.by_profile(8, 8, 16, 32)
        samples = ctx.by_profile(1000, 1000, 20000, 20000)
        steps = ctx.by_profile(200, 200, 1500, 1500)
        looks = ctx.by_profile((24, 36), (24, 36), (24, 72), (24, 72))
        seeds = [4, *(ctx.int_seed("fig5", d, r) % 2**31 for r in range(1, looks[-1]))]
        wins = {SPARSITIES[0]: teacher_construction_near_zero, SPARSITIES[-1]: SPARSE_ORDERINGS[claimed_order]}
        tests, rows, power = {}, [], {}
        for p, win in wins.items():
            part_rows, tests[p], final = sequential_sign_test(
                lambda done, upto, p=p: [experiment_row(d, seed, samples, steps, p=p) for seed in seeds[done:upto]],
                win, looks)
            rows += part_rows
            power[f"p = {p}"] = final["detectable_win_rate"]
        evidence = {"rows": rows, "d": d, "samples": samples, "sgd_steps": steps, "looks_seeds": list(looks),
                    "near_zero": f"test MSE ≤ {NEAR_ZERO:g} of the label variance",
                    "wins": {f"p = {p}": "f2 near zero" if p == SPARSITIES[0] else claimed_order for p in wins},
                    "sign_tests": {f"p = {p}": test for p, test in tests.items()},
                    "detectable_effect": {"win_rate": power, "power": stats.DETECTION_POWER,
                                          "false_alarm": stats.FALSE_ALARM,
                                          "unit": "share of seeds where the statement holds (refuted at or below)"},
                    "exact_sparse_constructions": f"{sum(r['f2_exact'] + r['f3_exact'] for r in rows)} of "
                                                  f"{2 * len(rows)}"}
        sparse, dense = tests[SPARSITIES[-1]], tests[SPARSITIES[0]]
        if sparse["p_value_refuting"] < sparse["false_alarm"]:
            row = next(r for r in rows if r["p"] == SPARSITIES[-1] and not wins[SPARSITIES[-1]](r))
            return Outcome(Verdict.REFUTED, f"p = {SPARSITIES[-1]}, d = {d}: the stated ordering ({claimed_order}) "
                           f"holds at only {sparse['wins']} of {sparse['pairs']} seeds (sign test, p = "
                           f"{sparse['p_value_refuting']:.2g})", evidence, counterexample=row)
        ordering = f"p = {SPARSITIES[-1]}: {claimed_order} at {sparse['wins']} of {sparse['pairs']} seeds"
        if dense["lower_95"] > 0.5 and sparse["lower_95"] > 0.5:
            return Outcome(Verdict.SUPPORTED, f"{ordering}; p = {SPARSITIES[0]}: f2 near 0 at {dense['wins']} of "
                           f"{dense['pairs']} seeds (d = {d})", evidence, figures={"fig5": figure(rows)})
        # The 20% statement rejected over seeds is rejected at this width in this reading (the paper says 'at larger
        # width'): a failure to reproduce, not a refutation of the paper.
        dense_reading = ("rejected in this reading" if dense["p_value_refuting"] < dense["false_alarm"]
                         else "not resolved")
        return Outcome(Verdict.INCONCLUSIVE, f"{ordering}; but the {SPARSITIES[0]:.0%} statement is {dense_reading}: "
                       f"f2 near 0 at {dense['wins']} of {dense['pairs']} seeds (d = {d}, sign test p = "
                       f"{dense['p_value_refuting']:.2g})", evidence, figures={"fig5": figure(rows)})

    return Check("test error with sparse frozen weights (Fig. 5), over seeds", "statistical", run)


UNDERTRAINED_COPY_STEPS = 50
SPARSITIES = (0.2, 0.05)  # Fig. 5 (a) and (b): 20% and 5% of the frozen weights kept
# "Almost 0 error" (Fig. 5a's green curve at larger d), read as 1% of the label variance.
NEAR_ZERO = 1e-2


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
        repeated = len(set(ds)) < len(ds)  # several seeds per width: points, not a curve through them
        for key, label, line in (("f1_sgd_bn", "SGD on BN parameters (f1)", "-"),
                                 ("f2_construction_teacher", "construction from g (f2)", "-"),
                                 ("f3_construction_dense", "construction from SGD-trained g′ (f3)", "-"),
                                 ("dense_copy", "SGD-trained dense g′", "--")):
            if key != "dense_copy" or p is not None:
                axis.semilogy(ds, [max(r[key], floor) for r in panel], "" if repeated else line, marker="o",
                              label=label, **({"color": "black"} if key == "dense_copy" else {}))
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
    source="App. E, Fig. 4 (left)",
    # The catalog row also says Fig. 5's "sparse weights (20%) still work": that part has its own evidence,
    # and its own id (giannou2023.fig4.sparse); this claim states what its checks cover.
    statement="Experiment: BN parameters set by the construction (from the teacher, or from an SGD-trained dense "
              "copy) reach far lower test error than SGD on BN parameters alone.",
    hypotheses=("teacher: one hidden ReLU layer of width d, output the sum of hidden units", "Gaussian inputs",
                "source of Thm 1 (widths d², d, d, 1)",
                "the dense copy and the BN-only baseline both trained to the same stated convergence criterion",
                "quantifier: random teacher, data and initializations; a sign test over seeds with margin 2"),
    # The dense copy's training budget belongs to f3 (construction from an SGD-trained copy): None, to convergence.
    subject={"construction radius": "data", "dense copy training": None},
    checks=(takes("construction radius", "dense copy training", build=fig4_check),),
    broken=(Broken("construction on the unit ball only (radius 1) applied to Gaussian data",
                   {"construction radius": "unit ball"},
                   refuted_by="the pinned instance d = 4, seed 4: inputs of norm > 1 switch hidden ReLUs off, "
                              "test MSE ≫ 1e-10"),
            # The near-miss: an under-trained copy (the paper trained g′ by SGD), f3 at ≈ 0.08–0.7 of the label
            # variance, 2–4× the ≈ 0.05 the sign test detects (relative_test_mse_added), losing at ≈ 9 seeds in 10.
            Broken(f"f3 from a dense copy g′ trained by {UNDERTRAINED_COPY_STEPS} SGD steps, not to convergence",
                   {"dense copy training": UNDERTRAINED_COPY_STEPS},
                   refuted_by="the sign test at its last look (72 seeds at d = 4): f3 misses the 2× margin at all "
                              "but the few seeds where f1 itself fails (learns the mean), ≤ 10 wins, p < 5e-10")),
    notes="Small scale (d = 4 with looks of 24 and 72 seeds at quick and ci; d = 4, 6, 8 with looks of 12 and 24 seeds "
          "each at thorough; 1000–5000 samples instead of 10⁶). The construction is exact on the ball of the data's "
          "largest norm (Gaussian inputs are unbounded, so the paper's ‖x‖ ≤ 1 domain does not cover them). The "
          "baseline is trained to convergence, not for a fixed budget: the BatchNorm parameters of f1 and all "
          "parameters of the dense copy g′ go to the same criterion (full-batch L-BFGS until a 50-iteration round "
          "gains < 0.1%, or the train MSE is below 1e-12 of the labels' mean square; SGD with the paper's constant "
          "step approaches the same minimum more slowly), so the comparison is between the two minima. At 200 SGD "
          "steps each (the former ci) the outcome depended on which of the two was trained longer. Measured at seeds "
          "1–6, d = 4, 1000 samples: f1 0.03–0.10, f3 10⁻²⁷–0.011, f1/f3 between 8.5 and 68 (and 10²⁵ where g′ found "
          "the teacher). With 1000 samples at d = 4, f3 misses the 2× margin at ≈ 1 seed in 8 (g′ in a poor local "
          "minimum), so the first look (24 seeds, supported from 17 wins) decides at ≈ 98% of run seeds. The sign "
          "test is distribution-free, so an exact g′ counts as one win; it cannot refute below 30 seeds at 1e-9, so "
          "an undecided first look samples on to 72 seeds, where ≤ 10 wins refute (false alarm split over the looks). "
          "Its power (detectable_effect): a winning rate ≤ 0.1, which on the observed seeds an f3 reaches once its "
          "test MSE rises by ≈ 0.05 of the label variance; the near-miss (g′ trained by 50 SGD steps, f3 at ≈ 0.08–0.7 "
          "of the label variance) is refuted there. Measured at thorough (seed 2023, d = 4, 6, 8, 8 seeds each, 2000 "
          "samples): 23 of 24 seeds win, ratios 1.55 to 10²³. Fig. 5 (sparse frozen weights, the catalog row's second "
          "sentence) is giannou2023.fig4.sparse: this claim's statement is the first.",
    depends_on=("giannou2023.thm8",),
))

register(Claim(
    id="giannou2023.fig4.sparse",
    source="App. E, Fig. 5",
    variant_of="giannou2023.fig4",
    label="App. E, Fig. 5 (sparse frozen weights)",
    statement="Experiment, sparse frozen weights: with 20% of the weights kept the constructions still reach almost "
              "0 error at larger width; with 5% kept SGD on BN parameters beats both constructions.",
    hypotheses=("the setting of giannou2023.fig4, with the frozen weights of f1, f2, f3 kept with probability p",
                "p ∈ {0.2, 0.05} on the hidden layers, the scalar output row kept dense (the paper does not say how "
                "it sparsified that 1 × d layer); the paper's pseudo-inverse where the sparse system is singular",
                "SGD (momentum 0.9, constant step) for f1 and the dense copy, equal budgets",
                "quantifier: random teacher, data, masks and initializations at one width; a sign test over seeds "
                "per statement"),
    subject={"sparse ordering": "sgd first"},
    checks=(takes("sparse ordering", build=fig5_check),),
    broken=(Broken("Fig. 4's ordering carried over to 5% sparse frozen weights (f3 below f1)",
                   {"sparse ordering": "constructions first"},
                   refuted_by="the sign test at p = 0.05, d = 8, from the pinned seed 4 on: SGD on BN wins at every "
                              "seed, so f3 < f1 holds at none of 36 (p ≈ 1.5e-11 < 5e-10, the last look's share)"),),
    notes="Two statements: at 20% kept the constructions reach almost 0 error at larger d (f2's test MSE ≤ 1% of the "
          "label variance, our reading of 'almost 0'), and at 5% SGD on the BatchNorm parameters beats both "
          "constructions. The reading: the hidden layers' frozen weights sparsified, the scalar output row kept dense. "
          "The paper does not say how it sparsified its 1 × d output layer; sparsified too, its row keeps ≈ pd entries,"
          " so the Khatri–Rao system of that layer has rank ≤ pd < d whatever d (singular unless every entry is kept) "
          "and the 20% statement cannot hold at any width: the reading with a dense output row is the one the paper "
          "supports. (That other reading, run before: f2 near 0 at 0 of 36 seeds at ci seed 2023, p = 1.5e-11.) Each "
          "statement is a sequential sign test over seeds at one width (d = 8 at quick and ci, looks of 24 and 36 "
          "seeds; d = 16 at thorough, 24 and 72). Measured at ci seed 2023 (d = 8): the 5% ordering holds at every seed"
          " of the first look (supported), and f2 is near 0 at none of 36 seeds: the 20% statement is rejected in this "
          "reading at d = 8 (p below the last look's share of the false alarm), so the claim is inconclusive rather "
          "than supported; it is not refuted, since the paper says 'at larger width' and at d = 8 the hidden layer's "
          "Khatri–Rao system at p = 0.2 has a perfect matching only by luck (Thm 11 needs p of order √(log d / d) ≈ 0.5"
          " here): no sparse construction was exact (f2 at 0.45–2.8 times the label variance over the 36 seeds, f1 "
          "at the label variance: it learns the mean). Within ci's budget no width where p = 0.2 is above that "
          "threshold is reachable. SGD budgets of 200–1500 steps: an undertrained f1 only makes the 5% ordering "
          "harder to meet.",
    depends_on=("giannou2023.thm11",),
))
