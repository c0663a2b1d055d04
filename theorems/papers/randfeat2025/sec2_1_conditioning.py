"""randfeat2025, Sec. 2.1: conditioning of standard random features (Fig. 2).

Claims:
- ``ortho``: independent orthogonal W⁽¹⁾ (orthonormal columns), W⁽²⁾ (orthonormal rows) do
  not make M well conditioned — its rows are not orthogonal. Exact: rational orthogonal layers
  (columns/rows of Cayley transforms) give MMᵀ ≠ cI over Q; statistical: at the interpolation
  point c1 = c0c2 every Haar draw has κ(M) ≥ 10 (a draw below refutes: for an ill-conditioned
  family such draws are vanishingly rare).
- ``ortho_columns``: "While the columns of M are orthogonal": MᵀM = (W⁽²⁾ᵀW⁽²⁾) ∘ (W⁽¹⁾W⁽¹⁾ᵀ) is
  diagonal for every orthogonal pair exactly when c1 ≤ max(c0, c2) (one factor is I); beyond, e.g.
  at c1 = c0c2, exact rational orthogonal layers (and Haar draws) give non-orthogonal columns.
  Every size with c0, c2 ≤ 3, c1 ≤ c0c2 + 1 at ci; ``ortho_columns.corrected`` states the threshold.
- ``double_descent``: for He normal/uniform, orthogonal, ER norm and ER sign features, κ(M)
  peaks at c1 = c0c2 and falls on both sides. Per family and (c0, c2), a scan: a coarse grid,
  fine offsets around c0c2, then the neighbours of the worst rival; "κ at a exceeds κ at b" is a
  paired sign test (P(κ_a > κ_b) > 1/2, Clopper–Pearson). Refuted for the masked families, whose
  peak lies past c0c2 at finite sizes; ``double_descent.corrected`` states it for dense features.

κ is the largest over the smallest nonzero singular value (numpy's rank tolerance).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction
from functools import partial
from itertools import pairwise

import numpy as np
import sympy
from sympy.simplify.simplify import factor_sum

from theorems.engine.checks import search_beyond_sweep, to_jsonable
from theorems.engine.context import Context
from theorems.engine.coverage import cached
from theorems.engine.registry import Broken, Check, Claim, Erratum, register, takes
from theorems.engine.verdicts import ALL_SIZES, Outcome, Verdict
from theorems.lazy import matplotlib, scipy_stats
from theorems.maths import exact, features, stats
from theorems.maths.khatri_rao import symbols_matrix

# "Not well conditioned": κ(M) ≥ 10 at the interpolation point (Fig. 2 (b) shows 10² to 10⁸).
ILL_CONDITIONED = 10.0


def rational_orthogonal_layers(c0: int, c2: int, skew_entry: Fraction) -> tuple[np.ndarray, np.ndarray]:
    """Exact orthogonal layers with c1 = c0c2: W⁽¹⁾ the first c0 columns, W⁽²⁾ the first c2 rows
    of Cayley transforms of the skew matrix with ``skew_entry`` above the diagonal."""
    c1 = c0 * c2
    upper = np.triu(np.full((c1, c1), skew_entry, dtype=object), 1)
    q = features.cayley_orthogonal(upper - upper.T)
    upper2 = np.triu(np.full((c1, c1), skew_entry * 2, dtype=object), 1)
    q2 = features.cayley_orthogonal(upper2 - upper2.T)
    return q[:, :c0], q2[:c2, :]


def kronecker_orthogonal_layers(c0: int, c2: int, skew_entry: Fraction) -> tuple[np.ndarray, np.ndarray]:
    """Ortho cond layers (the near-miss: also orthogonal weights, arranged as a Kronecker product)."""
    def cayley(n):
        upper = np.triu(np.full((n, n), skew_entry, dtype=object), 1)
        return features.cayley_orthogonal(upper - upper.T)

    return features.ortho_cond_layers(cayley(c0), cayley(c2))


def exact_rows_check(layers: Callable) -> Check:
    """Over Q: W⁽¹⁾ᵀW⁽¹⁾ and W⁽²⁾W⁽²⁾ᵀ are multiples of I (orthogonal layers up to scale), yet MMᵀ is not."""

    def run(ctx: Context) -> Outcome:
        sizes = ctx.by_profile([(2, 2)], [(2, 2), (2, 3), (3, 3)])
        rows = []
        for c0, c2 in sizes:
            w1, w2 = layers(c0, c2, Fraction(1, 2))
            if not (_multiple_of_identity(w1.T.dot(w1)) and _multiple_of_identity(w2.dot(w2.T))):
                raise AssertionError("the rational layers are not orthogonal (up to scale)")
            m = exact.fmpq_matrix(features.feature_matrix(w1, w2))
            gram = m * m.transpose()
            off_diagonal = [(i, j) for i in range(gram.nrows()) for j in range(gram.ncols())
                            if i != j and gram[i, j] != 0]
            diagonal = {str(gram[i, i]) for i in range(gram.nrows())}
            rows.append({"c0": c0, "c2": c2, "nonzero_off_diagonal": len(off_diagonal),
                         "diagonal_values": sorted(diagonal)})
            if not off_diagonal and len(diagonal) == 1:
                return Outcome(Verdict.REFUTED, f"c0 = {c0}, c2 = {c2}: MMᵀ = {diagonal.pop()}·I exactly, "
                               "rows orthogonal", {"sizes": rows}, counterexample=rows[-1])
        return Outcome(Verdict.CERTIFIED, f"{len(rows)} sizes: orthogonal W⁽¹⁾, W⁽²⁾ (exact), "
                       "yet MMᵀ is not a multiple of I", {"sizes": rows},
                       scope="(c0, c2) ∈ {" + ", ".join(f"({c0}, {c2})" for c0, c2 in sizes) + "}, c1 = c0c2")

    return Check("rows of M not orthogonal (exact, rational orthogonal layers)", "symbolic", run,
                 part="rows not orthogonal")


def _multiple_of_identity(gram: np.ndarray) -> bool:
    off_diagonal = gram[~np.eye(gram.shape[0], dtype=bool)]
    return bool((off_diagonal == 0).all() and len(set(np.diag(gram).tolist())) == 1)


def haar_orthogonal_layers(rng, c0, c2):
    c1 = c0 * c2
    return features.semi_orthogonal(rng, c1, c0), features.semi_orthogonal(rng, c2, c1)


def haar_kronecker_layers(rng, c0, c2):
    return features.ortho_cond_layers(features.haar_orthogonal(rng, c0), features.haar_orthogonal(rng, c2))


def conditioning_check(layers: Callable) -> Check:
    def run(ctx: Context) -> Outcome:
        # No larger size for `large`: each draw factors two Haar matrices of order c1 = c0c2 (numpy
        # QR), and at c0 = c2 = 32 the check took 26 minutes on the shared two-core machine.
        sizes = ctx.by_profile([(4, 4), (6, 6)], [(4, 4), (6, 6), (8, 8)], [(4, 4), (8, 8), (16, 16)])
        draws = ctx.by_profile(10, 20, 50)
        rows = []
        for c0, c2 in ctx.progress(sizes, "sizes"):
            rng = ctx.rng("haar", c0, c2)
            kappas = np.array([features.condition_number(features.feature_matrix(*layers(rng, c0, c2)))
                               for _ in range(draws)])
            low, high = median_interval(kappas)
            rows.append({"c0": c0, "c2": c2, "c1": c0 * c2, "draws": draws, "min_kappa": stats.round_sig(kappas.min()),
                         "median_kappa": stats.round_sig(np.median(kappas)),
                         "median_95": [stats.round_sig(low), stats.round_sig(high)]})
            if kappas.min() < ILL_CONDITIONED:
                return Outcome(Verdict.REFUTED, f"c0 = {c0}, c2 = {c2}, c1 = {c0 * c2}: a draw has "
                               f"κ(M) = {kappas.min():.4g} < {ILL_CONDITIONED:g}", conditioning_evidence(rows, draws),
                               counterexample=rows[-1])
        return Outcome(Verdict.SUPPORTED, f"every Haar draw at c1 = c0c2 has κ(M) ≥ {ILL_CONDITIONED:g}; medians "
                       + ", ".join(f"{r['median_kappa']:.3g} (c0c2 = {r['c1']})" for r in rows),
                       conditioning_evidence(rows, draws))

    # A search, not a test: one draw below the threshold refutes, and a true claim never does.
    return Check("κ(M) ≥ 10 at c1 = c0c2 (Haar)", "randomized", run, part="ill conditioned")


def conditioning_evidence(rows: list[dict], draws: int) -> dict:
    """One draw below the threshold refutes ('every draw' read literally: a search, so a true claim is never
    refuted)."""
    return {"sizes": rows, "detectable_rate": stats.search_reach(f"κ(M) < {ILL_CONDITIONED:g}, per draw at a size",
                                                                 draws)}


def median_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """Distribution-free interval for the median: the order statistics x_(k), x_(n−k+1) with
    binomial coverage 1 − 2·P(Bin(n, ½) ≤ k − 1) ≥ confidence. Unbounded (±inf) when n is too
    small for that confidence: then no pair of order statistics covers it."""
    ordered = np.sort(values)
    n = ordered.size
    k = int(scipy_stats.binom.ppf((1 - confidence) / 2, n, 0.5))
    if k < 1:
        return -np.inf, np.inf
    return float(ordered[k - 1]), float(ordered[n - k])


def exact_rows_beyond(layers: Callable) -> Check:
    def decide(size) -> str | None:
        c0, c2 = size
        w1, w2 = layers(c0, c2, Fraction(1, 2))
        m = exact.fmpq_matrix(features.feature_matrix(w1, w2))
        gram = m * m.transpose()
        orthogonal = all(gram[i, j] == (gram[0, 0] if i == j else 0) for i in range(gram.nrows())
                         for j in range(gram.ncols()))
        return f"c0 = {c0}, c2 = {c2}: MMᵀ = {gram[0, 0]}·I exactly, rows orthogonal" if orthogonal else None

    return search_beyond_sweep("rows of M not orthogonal (exact, sizes past the sweep)",
                               lambda rng: (int(rng.integers(2, 7)), int(rng.integers(4, 7))), decide,
                               sweep_bound=lambda ctx: "(c0, c2) ∈ {(2, 2), (2, 3), (3, 3)}",
                               reach=lambda ctx: "c0 in 2..6, c2 in 4..6",
                               budget=lambda ctx: ctx.by_profile(1, 2, 6), pinned=[(4, 4)],
                               names=("c0", "c2"), part="rows not orthogonal")


register(Claim(
    id="randfeat2025.ortho",
    source="Sec. 2.1, 'Orthogonal weights are not well conditioned'",
    hypotheses=("W⁽¹⁾, W⁽²⁾ independent orthogonal (orthonormal columns / rows)", "c1 = c0c2 (interpolation point)",
                "rows: explicit rational orthogonal pairs (some pair, exact); conditioning: almost every Haar draw "
                "(every draw seen)"),
    subject={"exact_layers": rational_orthogonal_layers, "haar_layers": haar_orthogonal_layers},
    checks=(takes("exact_layers", build=exact_rows_check), takes("exact_layers", build=exact_rows_beyond),
            takes("haar_layers", build=conditioning_check)),
    broken=(Broken("orthogonal weights arranged as a Kronecker product (Ortho cond) are ill conditioned too",
                   replaces={"exact_layers": kronecker_orthogonal_layers, "haar_layers": haar_kronecker_layers},
                   refuted_by="c0 = c2 = 2 (exact: MMᵀ = I), the pinned c0 = c2 = 4 past the sweep, and the first "
                              "draw at c0 = c2 = 4 (κ = 1)"),),
    notes="The paper also says 'the columns of M are orthogonal'; at c1 = c0c2 (c0, c2 ≥ 2) they are not either: "
          "randfeat2025.ortho_columns.",
))


# --- double descent ----------------------------------------------------------------------

# The widths scanned: a coarse grid (fractions of c0c2) for the fall on both sides, and every offset
# from c0c2 in FINE_OFFSETS, where a rival to the peak is likeliest; after the first look the neighbours
# of the worst rival (the width with the largest median κ other than the claimed peak) are added.
GRID = (0.5, 0.75, 1.0, 1.25, 2.0)
FINE_OFFSETS = (-4, -2, -1, 1, 2, 4)


def interpolation_point(c0: int, c2: int) -> int:
    return c0 * c2


def gamma2_interpolation_point(c0: int, c2: int) -> int:
    """The near-miss: the γ⁽²⁾-eliminated width requirement c2(c0 − 1) + 1 as the peak."""
    return c2 * (c0 - 1) + 1


def one_past_interpolation_point(c0: int, c2: int) -> int:
    """The near-miss: an off-by-one peak at c1 = c0c2 + 1."""
    return c0 * c2 + 1


def descent_sizes(ctx: Context) -> list[tuple[int, int]]:
    """(c0, c2): several side lengths and one unequal pair (c2 > c0: M is tall in the outputs)."""
    return ctx.by_profile([(4, 4), (6, 6)], [(4, 4), (6, 6), (3, 8)], [(4, 4), (6, 6), (3, 8), (10, 10)])


# Sequential design. "κ at c1 = a exceeds κ at c1 = b" is decided by pairing the i-th draws at both
# widths: the number of pairs where a's κ is the larger is Binomial(m, P(κ_a > κ_b)), and a Clopper–
# Pearson bound on that probability beyond 1/2 decides (far more power than comparing two median
# intervals: κ near the peak is heavy-tailed). The draws at a width grow 4× per look while a comparison
# it takes part in is unresolved. Every comparison of every look is taken at level (look's budget)/
# (comparisons per look), the budgets summing to stats.FALSE_ALARM (stats.spending_schedule): by the
# union bound a true curve is called refuted, or a wrong one supported, with probability at most that.
DESCENT_LOOKS = 3


def kappas(family: str, rng: np.random.Generator, c0: int, c1: int, c2: int, draws: int) -> np.ndarray:
    """κ(M) of ``draws`` independent draws, the singular values of the stack in one batched SVD."""
    if draws <= 0:
        return np.empty(0)
    stack = np.stack([features.feature_matrix(*features.random_layers(family, rng, c0, c1, c2)) for _ in range(draws)])
    values = np.linalg.svd(stack, compute_uv=False)
    # numpy's rank tolerance, as features.condition_number: the smallest singular value above it
    nonzero = values > values[:, :1] * max(stack.shape[1:]) * np.finfo(float).eps
    return values[:, 0] / np.where(nonzero, values, np.inf).min(axis=1)


def exceeds(larger: np.ndarray, smaller: np.ndarray, level: float) -> dict:
    """Whether κ at one width surely exceeds κ at another: the paired draws' share where it does, and
    one-sided Clopper–Pearson bounds on P(larger > smaller) and P(smaller > larger) at ``level``."""
    pairs = min(larger.size, smaller.size)
    wins = int(np.sum(larger[:pairs] > smaller[:pairs]))
    losses = int(np.sum(larger[:pairs] < smaller[:pairs]))
    return {"pairs": pairs, "share": stats.round_sig(wins / pairs),
            "surely": stats.clopper_pearson_lower(wins, pairs, 1 - level) > 0.5,
            "surely_not": stats.clopper_pearson_lower(losses, pairs, 1 - level) > 0.5}


def _descent_comparisons(kappa: dict[int, np.ndarray], peak: int, coarse: list[int]) -> list[tuple[int, int]]:
    """(larger, smaller) pairs the claim asserts: the peak above every other width, and along the coarse
    grid each width above its neighbour farther from the peak."""
    toward_peak = [(b, a) if b <= peak else (a, b) for a, b in pairwise(coarse)]
    return [(peak, c1) for c1 in sorted(kappa) if c1 != peak] + [pair for pair in toward_peak if peak not in pair]


def _descent_decision(kappa: dict[int, np.ndarray], peak: int, coarse: list[int], level: float) -> tuple[str, list]:
    """'refuted' when an asserted comparison surely fails (the other width's κ is the larger with
    probability > 1/2), 'supported' when every one surely holds, else 'unresolved'; and the rows."""
    rows = [{"larger": a, "smaller": b, **exceeds(kappa[a], kappa[b], level)}
            for a, b in _descent_comparisons(kappa, peak, coarse)]
    if any(row["surely_not"] for row in rows):
        return "refuted", rows
    return ("supported" if all(row["surely"] for row in rows) else "unresolved"), rows


def scan_family(ctx: Context, family: str, c0: int, c2: int, peak: int, first_draws: int, scans: int) -> dict:
    """One family at one size, one of ``scans`` sharing the error budget: the scan, the refinement
    around the worst rival, the looks. Never at c0 = c2 = 1, which the statements exclude: M is then one
    row, κ(M) = 1 at every width, and 'peaks at c1 = c0c2' is vacuous."""
    n = c0 * c2
    if n < 2:
        raise ValueError(f"c0 = {c0}, c2 = {c2}: M has one row and κ(M) = 1 at every width; no peak to test")
    coarse = sorted({round(g * n) for g in GRID} | {peak})
    widths = set(coarse) | {n + d for d in FINE_OFFSETS if n + d >= 1}
    rng = ctx.rng("descent", family, c0, c2)
    kappa = {c1: np.empty(0) for c1 in widths}
    drawing = set(widths)
    for look, budget in enumerate(stats.spending_schedule(DESCENT_LOOKS, stats.FALSE_ALARM), start=1):
        target = first_draws * 4 ** (look - 1)
        for c1 in sorted(drawing):
            kappa[c1] = np.concatenate([kappa[c1], kappas(family, rng, c0, c1, c2, target - kappa[c1].size)])
        if look == 1:  # refine: both neighbours of the worst rival
            worst = max((c1 for c1 in kappa if c1 != peak), key=lambda c1: np.median(kappa[c1]))
            for c1 in sorted({worst - 1, worst + 1} - set(kappa) - {0}):
                kappa[c1] = kappas(family, rng, c0, c1, c2, target)
        level = budget / (scans * len(_descent_comparisons(kappa, peak, coarse)))
        decision, rows = _descent_decision(kappa, peak, coarse, level)
        if decision != "unresolved":
            break
        drawing = {peak} | {c1 for row in rows if not row["surely"] for c1 in (row["larger"], row["smaller"])}
    medians = {c1: float(np.median(values)) for c1, values in kappa.items()}
    worst = max((c1 for c1 in medians if c1 != peak), key=medians.get)
    return {"decision": decision, "looks": look, "level": level, "comparisons": rows, "worst": worst,
            "curve": [{"c1": c1, "draws": int(kappa[c1].size), "median": stats.round_sig(medians[c1])}
                      for c1 in sorted(kappa)]}


def descent_check(peak_at: Callable[[int, int], int], families=features.FAMILIES) -> Check:
    """κ(M) against the claimed peak at every size of ``descent_sizes`` and every family: the coarse
    grid, the fine offsets around c0c2 and the neighbours of the worst rival (``scan_family``)."""

    def run(ctx: Context) -> Outcome:
        first_draws = ctx.by_profile(50, 100, 200)
        sizes = descent_sizes(ctx)
        scans, refuting, unresolved = [], None, []
        for (c0, c2), family in ctx.progress(list(itertools.product(sizes, families)), "scans"):
            peak = peak_at(c0, c2)
            scan = scan_family(ctx, family, c0, c2, peak, first_draws, len(families) * len(sizes))
            medians = {p["c1"]: p["median"] for p in scan["curve"]}
            scans.append({"family": family, "c0": c0, "c2": c2, "claimed_peak": peak, **scan,
                          "worst_rival": {"c1": scan["worst"], "median": medians[scan["worst"]],
                                          "median_at_peak": medians[peak],
                                          "ratio_to_peak": stats.round_sig(medians[scan["worst"]] / medians[peak])}})
            if scan["decision"] == "refuted":
                refuting = scans[-1]
                break
            if scan["decision"] == "unresolved":
                unresolved.append(f"{family} at c0 = {c0}, c2 = {c2}")
        # The smallest edge over 1/2 a comparison resolves (with probability ≥ 1/2) at the first and the last
        # look's number of pairs, at the smallest level any comparison was taken at.
        level = min(scan["level"] for scan in scans)

        def edge(pairs: int) -> float:
            """P(κ_a > κ_b) − 1/2 that the sign test at ``level`` detects with probability ≥ DETECTION_POWER."""
            return stats.round_sig(stats.detectable_rate(pairs, 0.5, false_alarm=level) - 0.5, 3)

        first, last = first_draws, first_draws * 4 ** (DESCENT_LOOKS - 1)
        worst = max(scans, key=lambda scan: scan["worst_rival"]["ratio_to_peak"])
        evidence = {"sizes": [list(size) for size in sizes], "grid": list(GRID), "fine_offsets": list(FINE_OFFSETS),
                    "design": f"per family and (c0, c2): the coarse grid, c0c2 + each fine offset, then both "
                              f"neighbours of the worst rival; up to {DESCENT_LOOKS} looks of {first_draws}·4^(look−1) "
                              f"draws at the widths still unresolved; each comparison a paired sign test (Clopper–"
                              f"Pearson), all looks and comparisons together at error ≤ {stats.FALSE_ALARM:g}",
                    "detectable_effect": {"effect": "P(κ at one width > κ at the other) − 1/2, a comparison the "
                                                    "claim asserts or its reverse",
                                          "first_look": edge(first), "first_look_pairs": first,
                                          "last_look": edge(last), "last_look_pairs": last,
                                          "power": stats.DETECTION_POWER, "false_alarm": stats.round_sig(level, 3)},
                    "worst_point": {"family": worst["family"], "c0": worst["c0"], "c2": worst["c2"],
                                    **worst["worst_rival"]},
                    "scans": [{key: scan[key] for key in ("family", "c0", "c2", "claimed_peak", "decision", "looks",
                                                          "worst_rival", "curve", "comparisons")} for scan in scans]}
        if refuting:
            row = next(row for row in refuting["comparisons"] if row["surely_not"])
            return Outcome(Verdict.REFUTED, f"{refuting['family']}, c0 = {refuting['c0']}, c2 = {refuting['c2']}: κ at "
                           f"c1 = {row['smaller']} is surely larger than at c1 = {row['larger']} (in "
                           f"{1 - row['share']:.2f} of {row['pairs']} paired draws; the claim puts it below); worst "
                           f"width c1 = {refuting['worst']} against the claimed peak {refuting['claimed_peak']}",
                           evidence, counterexample={"family": refuting["family"], "c0": refuting["c0"],
                                                     "c2": refuting["c2"], "claimed_peak": refuting["claimed_peak"],
                                                     "comparison": row, "worst_rival": refuting["worst_rival"]})
        if unresolved:
            return Outcome(Verdict.INCONCLUSIVE, f"peak or fall not resolved for {unresolved} after {DESCENT_LOOKS} "
                           "looks", evidence)
        return Outcome(Verdict.SUPPORTED, f"{len(families)} families at (c0, c2) ∈ {sizes}: κ(M) at the claimed peak "
                       f"surely exceeds κ at every scanned width (fine offsets {list(FINE_OFFSETS)} and the worst "
                       f"rival's neighbours), and falls along the coarse grid on both sides; worst rival "
                       f"c1 = {worst['worst']} ({worst['family']}, c0 = {worst['c0']}, c2 = {worst['c2']}, median "
                       f"{worst['worst_rival']['ratio_to_peak']:.2f}× the peak's)", evidence,
                       figures={"condition number vs c1": _descent_figure(scans[-len(families):])})

    return Check("κ(M) peaks at c1 = c0c2 and falls on both sides (scan around it)", "statistical", run)


def _descent_figure(scans: list[dict]) -> matplotlib.figure.Figure:
    figure = matplotlib.figure.Figure(figsize=(5.5, 3.8))
    axes = figure.subplots()
    for scan in scans:
        n = scan["c0"] * scan["c2"]
        axes.plot([p["c1"] / n for p in scan["curve"]], [p["median"] for p in scan["curve"]], marker="o",
                  label=scan["family"])
    axes.set_yscale("log")
    axes.axvline(1.0, color="grey", linestyle=":")
    axes.set_xlabel(f"c1 / (c0·c2), c0 = {scans[0]['c0']}, c2 = {scans[0]['c2']}")
    axes.set_ylabel("median κ(M)")
    axes.legend(fontsize=7)
    return figure


DENSE_FAMILIES = ("he_normal", "he_uniform", "orthogonal")

register(Claim(
    id="randfeat2025.double_descent",
    source="Sec. 2.1 'Double Descent' and Fig. 2 (b)",
    hypotheses=("He normal/uniform, orthogonal, ER norm, ER sign features", "c1 around c0c2, several (c0, c2)",
                "'κ at a exceeds κ at b': P(κ_a > κ_b) > 1/2 for independent draws (a statement about the "
                "distribution, not each draw)"),
    subject={"peak": interpolation_point},
    checks=(takes("peak", build=descent_check),),
    broken=(Broken("peak at the γ⁽²⁾ width c1 = c2(c0 − 1) + 1", replaces={"peak": gamma2_interpolation_point},
                   refuted_by="the He normal family, c0 = c2 = 4: κ at c1 = 16 lies far above κ at c1 = 13"),),
    erratum=Erratum("as-printed", "for the masked families (ER norm, ER sign: each weight kept with probability 1/2) "
                    "κ(M) does not peak at c1 = c0c2 at small c0, c2: a feature whose row of W⁽¹⁾ or column of W⁽²⁾ "
                    "is all zero adds a zero column to M (probability 2^(−c0) + 2^(−c2) − 2^(−c0−c2)), so M reaches "
                    "rank c0c2 only past c1 = c0c2 and the peak moves right. ER sign at c0 = c2 = 4: κ at c1 = 17 "
                    "exceeds κ at c1 = 16 in 60% of 1600 paired draws (surely more than half); ER norm there: median "
                    "κ ≈ 560 at c1 = 18 against ≈ 360 at c1 = 16. The paper's own reason (Sec. 2.1, 'Double "
                    "Descent': the peak is where the linear system becomes solvable) holds for them: that point is "
                    "past c0c2 by the dead features, a share that vanishes as c0, c2 grow; nothing later relies on "
                    "c1 = c0c2 for the masked families. The dense families (He normal/uniform, orthogonal) do peak "
                    "at c1 = c0c2 (randfeat2025.double_descent.corrected).",
                    corrected=("randfeat2025.double_descent.corrected",)),
    notes="Scanned, not read from a grid: per family and (c0, c2) the coarse grid c1/c0c2 ∈ {0.5, 0.75, 1, 1.25, 2}, "
          "every c0c2 + d for d ∈ {±1, ±2, ±4}, then both neighbours of the worst rival; the evidence records the "
          "worst point (the width with the largest median κ other than the claimed peak). The former grid (one side "
          "length, c0 = c2 = 6, no width between 31 and 45) skipped exactly the widths where the masked families "
          "peak.",
))

register(Claim(
    id="randfeat2025.double_descent.corrected",
    variant_of="randfeat2025.double_descent",
    label="Sec. 2.1, double descent for dense features",
    statement="For He normal, He uniform and orthogonal features and every (c0, c2) but c0 = c2 = 1, the "
              "condition number κ(M) peaks at the interpolation point c1 = c0c2 (a draw there exceeds a draw at any "
              "other width with probability > 1/2) and falls on both sides of it.",
    source="Sec. 2.1 'Double Descent' and Fig. 2 (b)",
    hypotheses=("He normal/uniform, orthogonal features (dense: M has rank min(c1, c0c2) almost surely)",
                "c1 around c0c2, several (c0, c2)",
                "c0c2 ≥ 2: at c0 = c2 = 1, M is a single row, κ(M) = 1 at every width c1, and the statement is "
                "vacuous there; it is excluded from the statement and the checks",
                "'κ at a exceeds κ at b': P(κ_a > κ_b) > 1/2 for independent draws (a statement about the "
                "distribution, not each draw)"),
    subject={"peak": interpolation_point},
    checks=(takes("peak", build=partial(descent_check, families=DENSE_FAMILIES)),),
    broken=(Broken("peak at the γ⁽²⁾ width c1 = c2(c0 − 1) + 1", replaces={"peak": gamma2_interpolation_point},
                   refuted_by="the He normal family, c0 = c2 = 4: κ at c1 = 16 lies far above κ at c1 = 13"),
            Broken("peak one width late, c1 = c0c2 + 1 (the near-miss)",
                   replaces={"peak": one_past_interpolation_point},
                   refuted_by="the He normal family, c0 = c2 = 4: median κ ≈ 115 at c1 = 16 against ≈ 55 at c1 = 17")),
    notes="The scan of randfeat2025.double_descent on the dense families: κ at the peak is compared with κ at "
          "every scanned width (the fine offsets ±1, ±2, ±4 around c0c2 and the worst rival's neighbours), the fall "
          "along the coarse grid; each comparison a paired sign test ('κ at a exceeds κ at b with probability > 1/2'), "
          "error ≤ 10⁻⁹ over all looks and comparisons (union bound).",
))


# --- columns of M ------------------------------------------------------------------------
#
# The same sentence: "While the columns of M are orthogonal, the rows are not." Column k of M
# is W⁽²⁾[:, k] ⊗ W⁽¹⁾[k, :], so MᵀM = (W⁽²⁾ᵀW⁽²⁾) ∘ (W⁽¹⁾W⁽¹⁾ᵀ) (Hadamard product). An orthogonal
# W⁽¹⁾ ∈ R^{c1×c0} has orthonormal columns when c1 ≥ c0 and rows when c1 ≤ c0 (torch's orthogonal
# init); W⁽¹⁾W⁽¹⁾ᵀ = I_{c1} only in the second case, W⁽²⁾ᵀW⁽²⁾ = I_{c1} only when c1 ≤ c2. Otherwise
# both factors are proper projections and their Hadamard product is not diagonal in general.

# The orthogonal layers of the exact check: Cayley transforms of the skew matrices with these
# entries above the diagonal (any generic choice works; these give a nonzero off-diagonal of
# MᵀM at every size with c1 > max(c0, c2) up to c0, c2 ≤ 4).
W1_SKEW, W2_SKEW = Fraction(1, 2), Fraction(1, 3)


def column_sizes(ctx: Context) -> list[tuple[int, int, int]]:
    """Every (c0, c2, c1) with c0, c2 ≤ the profile's bound and 1 ≤ c1 ≤ c0c2 + 1, smallest M first."""
    largest = ctx.by_profile(2, 3, 4)
    sizes = [(c0, c2, c1) for c0 in range(1, largest + 1) for c2 in range(1, largest + 1)
             for c1 in range(1, c0 * c2 + 2)]
    return sorted(sizes, key=lambda size: (size[0] * size[1] * size[2], size[2], size[0]))


def semi_orthogonal_rational(rows: int, cols: int, skew_entry: Fraction) -> np.ndarray:
    """Exact rows×cols layer with orthonormal rows (rows ≤ cols) or columns (rows ≥ cols): the
    leading block of the Cayley transform of order max(rows, cols)."""
    n = max(rows, cols)
    upper = np.triu(np.full((n, n), skew_entry, dtype=object), 1)
    return features.cayley_orthogonal(upper - upper.T)[:rows, :cols]


def exact_orthogonal_layers(c0: int, c2: int, c1: int) -> tuple[np.ndarray, np.ndarray]:
    w1, w2 = semi_orthogonal_rational(c1, c0, W1_SKEW), semi_orthogonal_rational(c2, c1, W2_SKEW)
    for w in (w1, w2):
        short = w.dot(w.T) if w.shape[0] <= w.shape[1] else w.T.dot(w)
        if not (short == np.eye(short.shape[0], dtype=object)).all():
            raise AssertionError("the rational layer is not orthogonal")
    return w1, w2


def column_gram_sides(c0: int, c2: int, c1: int, product: Callable) -> tuple[sympy.Matrix, sympy.Matrix]:
    """MᵀM and product(W⁽²⁾ᵀW⁽²⁾, W⁽¹⁾W⁽¹⁾ᵀ) for generic symbolic W⁽¹⁾ (c1×c0), W⁽²⁾ (c2×c1)."""
    w1, w2 = symbols_matrix("a", c1, c0), symbols_matrix("b", c2, c1)
    m = sympy.Matrix(features.feature_matrix(w1, w2))
    return m.T * m, product(sympy.Matrix(w2.T.dot(w2)), sympy.Matrix(w1.dot(w1.T)))


def hadamard(a, b):
    """a ∘ b, entrywise: of explicit matrices (a matrix) or of matrix expressions of symbolic sizes."""
    return sympy.hadamard_product(a, b)


def matrix_product(a, b):
    return a * b


def hadamard_square_of_first(a, b):
    """The near-miss: a ∘ a, the second Gram factor dropped."""
    return hadamard(a, a)


@cached
def gram_identity_holds(c0: int, c2: int, c1: int) -> bool:
    lhs, rhs = column_gram_sides(c0, c2, c1, hadamard)
    return all(sympy.expand(entry) == 0 for entry in lhs - rhs)


@cached
def columns_orthogonal(c0: int, c2: int, c1: int) -> tuple[bool | None, str, dict | None]:
    """Whether the columns of M are orthogonal for every pair of orthogonal layers of this size,
    how that is known, and (when not) the exact witness.

    For c1 ≤ max(c0, c2) a proof: the Hadamard identity (checked symbolically at this size)
    with one factor I_{c1}. Otherwise a witness: exact rational orthogonal layers whose MᵀM has
    a nonzero off-diagonal entry (None if the fixed layers happen to give none)."""
    w1, w2 = exact_orthogonal_layers(c0, c2, c1)
    m = exact.fmpq_matrix(features.feature_matrix(w1, w2))
    gram = m.transpose() * m
    off = [(k, l) for k in range(c1) for l in range(c1) if k != l and gram[k, l] != 0]
    if c1 <= max(c0, c2):
        if not gram_identity_holds(c0, c2, c1) or off:
            raise AssertionError(f"c0 = {c0}, c2 = {c2}, c1 = {c1}: the column Gram is not diagonal")
        factor = "W⁽¹⁾W⁽¹⁾ᵀ" if c1 <= c0 else "W⁽²⁾ᵀW⁽²⁾"
        return True, f"MᵀM = (W⁽²⁾ᵀW⁽²⁾) ∘ (W⁽¹⁾W⁽¹⁾ᵀ) (symbolic) with {factor} = I_{c1}: diagonal", None
    if not off:
        return None, "the fixed rational layers give a diagonal MᵀM; no witness", None
    k, l = off[0]
    witness = {"W1": w1, "W2": w2, "entry": [k, l], "MtM_entry": str(gram[k, l]),
               "MtM_diagonal": [str(gram[i, i]) for i in range(c1)]}
    return False, f"(MᵀM)[{k}, {l}] = {gram[k, l]} ≠ 0 for exact orthogonal layers (Cayley transforms)", witness


def everywhere(c0: int, c2: int, c1: int) -> bool:
    """As printed: the columns of M are orthogonal (for every orthogonal W⁽¹⁾, W⁽²⁾, any c1)."""
    return True


def at_interpolation_point(c0: int, c2: int, c1: int) -> bool | None:
    """Only claimed at c1 = c0c2 (the setting of the paragraph and of Fig. 2)."""
    return True if c1 == c0 * c2 else None


def max_width(c0, c2):
    """Corrected: the columns are orthogonal for every orthogonal pair exactly when c1 ≤ max(c0, c2)
    (integer or symbolic sizes)."""
    return sympy.Max(c0, c2)


def max_width_plus_one(c0, c2):
    return sympy.Max(c0, c2) + 1


def min_width(c0, c2):
    return sympy.Min(c0, c2)


def below(threshold: Callable) -> Callable[[int, int, int], bool]:
    """The claim 'orthogonal for every pair iff c1 ≤ threshold(c0, c2)' at one size."""
    def claimed(c0: int, c2: int, c1: int) -> bool:
        return bool(c1 <= threshold(c0, c2))

    return claimed


def block_witness_layers(c0: int, c2: int, c1: int) -> tuple[np.ndarray, np.ndarray]:
    """The block witness of ``general_threshold_check`` at one size with c1 > max(c0, c2), exact:
    W⁽¹⁾ = [[a, 0], [0, I], [0, 0]], W⁽²⁾ = [[bᵀ, 0, 0], [0, I, 0]], a = (3/5, 4/5)ᵀ, b = (4/5, −3/5)ᵀ."""
    w1 = np.zeros((c1, c0), dtype=object) + Fraction(0)
    w1[0, 0], w1[1, 0] = Fraction(3, 5), Fraction(4, 5)
    w1[2:c0 + 1, 1:c0] = np.eye(c0 - 1, dtype=np.int64)
    w2 = np.zeros((c2, c1), dtype=object) + Fraction(0)
    w2[0, 0], w2[0, 1] = Fraction(4, 5), Fraction(-3, 5)
    w2[1:c2, 2:c2 + 1] = np.eye(c2 - 1, dtype=np.int64)
    return w1, w2


def columns_beyond(claimed: Callable[[int, int, int], bool | None]) -> Check:
    """Sizes past the exact sweep, decided exactly: for c1 ≤ max(c0, c2) the Gram identity with a factor
    I_{c1} proves orthogonality; for c1 > max(c0, c2) the block witness gives (MᵀM)₀₁ ≠ 0 exactly."""
    def decide(size) -> str | None:
        c0, c2, c1 = size
        said = claimed(c0, c2, c1)
        if said is None:
            return None
        if c1 <= max(c0, c2):
            truth, why = True, "one Gram factor is I_{c1}: MᵀM diagonal for every orthogonal pair"
        else:
            m = exact.fmpq_matrix(features.feature_matrix(*block_witness_layers(c0, c2, c1)))
            entry = (m.transpose() * m)[0, 1]
            if entry == 0:
                raise AssertionError(f"the block witness gives (MᵀM)₀₁ = 0 at {size}")
            truth, why = False, f"the block witness gives (MᵀM)₀₁ = {entry}"
        if said != truth:
            return f"c0 = {c0}, c2 = {c2}, c1 = {c1}: claimed {'orthogonal' if said else 'not'}; {why}"
        return None

    def draw(rng: np.random.Generator) -> tuple[int, int, int]:
        c0, c2 = int(rng.integers(4, 7)), int(rng.integers(1, 7))
        c0, c2 = (c0, c2) if rng.integers(2) else (c2, c0)
        return c0, c2, int(rng.integers(1, c0 * c2 + 2))

    return search_beyond_sweep("columns of M orthogonal for every orthogonal pair (sizes past the sweep)", draw,
                               decide, sweep_bound=lambda ctx: f"c0, c2 ≤ {ctx.by_profile(2, 3, 4)}",
                               reach=lambda ctx: "max(c0, c2) in 4..6, 1 ≤ c1 ≤ c0c2 + 1",
                               budget=lambda ctx: ctx.by_profile(5, 20, 60),
                               pinned=[(4, 4, 16), (4, 4, 5), (4, 5, 5)], names=("c0", "c2", "c1"),
                               part="threshold")


def column_orthogonality_check(claimed: Callable[[int, int, int], bool | None]) -> Check:
    """At every size, whether the columns of M are orthogonal for every pair of orthogonal layers
    (decided exactly by ``columns_orthogonal``) against ``claimed`` (None: no claim at that size)."""

    def run(ctx: Context) -> Outcome:
        sizes = column_sizes(ctx)
        rows, mismatches, unknown = [], [], []
        for c0, c2, c1 in sizes:
            truth, reason, witness = columns_orthogonal(c0, c2, c1)
            said = claimed(c0, c2, c1)
            row = {"c0": c0, "c2": c2, "c1": c1, "orthogonal_for_every_pair": truth, "why": reason}
            rows.append(row)
            if said is None:
                continue
            if truth is None:
                unknown.append(row)
            elif said != truth:
                mismatches.append({**row, "claimed": said, **({"witness": to_jsonable(witness)} if witness else {})})
        largest = max(max(c0, c2) for c0, c2, _ in sizes)
        evidence = {"sizes": rows, "scope": f"every (c0, c2, c1) with c0, c2 ≤ {largest}, 1 ≤ c1 ≤ c0c2 + 1 "
                    f"({len(sizes)} sizes)", "orthogonal": "orthonormal along the shorter side (torch's orthogonal "
                    "init): W⁽¹⁾ ∈ R^(c1×c0) columns if c1 ≥ c0, rows if c1 ≤ c0; W⁽²⁾ ∈ R^(c2×c1) rows if c2 ≤ c1, "
                    "columns if c2 ≥ c1"}
        if mismatches:
            first = mismatches[0]
            interpolation = next((m for m in mismatches if m["c1"] == m["c0"] * m["c2"]), None)
            at_c0c2 = (f"; at the interpolation point first c0 = {interpolation['c0']}, c2 = {interpolation['c2']}: "
                       f"{interpolation['why']}" if interpolation else "")
            verb = "not orthogonal" if first["claimed"] else "orthogonal for every pair"
            return Outcome(Verdict.REFUTED, f"{len(mismatches)} of {len(sizes)} sizes contradict the statement; "
                           f"smallest c0 = {first['c0']}, c2 = {first['c2']}, c1 = {first['c1']}: columns {verb} "
                           f"({first['why']}){at_c0c2}", {**evidence, "contradicting_sizes": len(mismatches)},
                           counterexample=first)
        if unknown:
            return Outcome(Verdict.INCONCLUSIVE, f"no witness at {len(unknown)} sizes", evidence)
        return Outcome(Verdict.CERTIFIED, f"all {len(sizes)} sizes (c0, c2 ≤ {largest}, c1 ≤ c0c2 + 1): the columns of "
                       "M are orthogonal for every orthogonal W⁽¹⁾, W⁽²⁾ exactly where stated (proofs and exact "
                       "witnesses)", {**evidence, "bound": f"c0, c2 ≤ {largest}, c1 ≤ c0c2 + 1",
                                      "configurations": len(sizes)},
                       scope=f"c0, c2 ≤ {largest}, 1 ≤ c1 ≤ c0c2 + 1")

    return Check("columns of M orthogonal for every orthogonal pair (exact, every size)", "symbolic", run,
                 part="threshold")


def haar_column_check(claimed: Callable[[int, int, int], bool | None]) -> Check:
    """Haar-random orthogonal layers (float): a Gram off-diagonal above the round-off bound shows
    non-orthogonal columns; refutes where ``claimed`` says orthogonal for every pair."""

    def run(ctx: Context) -> Outcome:
        draws = ctx.by_profile(5, 10, 20)
        rows, refuting, unseen = [], [], []
        for c0, c2, c1 in column_sizes(ctx):
            said = claimed(c0, c2, c1)
            if said is None:
                continue
            rng = ctx.rng("haar columns", c0, c2, c1)
            # Householder QR leaves ‖WᵀW − I‖ within a small multiple of c1·ε; each Gram entry adds
            # c0c2 products of entries ≤ 1: 32 (c1 + c0c2) ε bounds the off-diagonal of an exact zero.
            tolerance = 32 * (c1 + c0 * c2) * np.finfo(float).eps
            largest = 0.0
            for _ in range(draws):
                w1, w2 = features.semi_orthogonal(rng, c1, c0), features.semi_orthogonal(rng, c2, c1)
                m = features.feature_matrix(w1, w2)
                gram = m.T @ m
                largest = max(largest, float(np.abs(gram - np.diag(np.diag(gram))).max(initial=0.0)))
            row = {"c0": c0, "c2": c2, "c1": c1, "draws": draws, "claimed_orthogonal": said,
                   "largest_off_diagonal": stats.round_sig(largest), "tolerance": stats.round_sig(tolerance)}
            rows.append(row)
            if said and largest > tolerance:
                refuting.append(row)
            elif not said and largest <= tolerance:
                unseen.append(row)
        evidence = {"sizes": rows}
        if refuting:
            first = refuting[0]
            return Outcome(Verdict.REFUTED, f"c0 = {first['c0']}, c2 = {first['c2']}, c1 = {first['c1']}: Haar layers "
                           f"give |(MᵀM)_kl| = {first['largest_off_diagonal']:.3g} > round-off bound "
                           f"{first['tolerance']:.2g} ({len(refuting)} sizes)", evidence, counterexample=first)
        if unseen:
            return Outcome(Verdict.INCONCLUSIVE, f"{len(unseen)} sizes: no non-orthogonal draw where one is claimed",
                           evidence)
        return Outcome(Verdict.SUPPORTED, f"{len(rows)} sizes × {draws} Haar draws agree with the statement", evidence)

    return Check("Haar orthogonal layers: column Gram off-diagonal (float)", "randomized", run, part="threshold",
                 corroborating=True)


# Symbolic sizes and indices: (MᵀM)_{kl} = Σ_{i<c2, j<c0} m_{(ij)k} m_{(ij)l}, m_{(ij)k} = w⁽²⁾_{ik} w⁽¹⁾_{kj}.
_I, _J, _K, _L, _C0, _C1, _C2 = sympy.symbols("i j k l c0 c1 c2", integer=True, nonnegative=True)
_W1, _W2 = sympy.MatrixSymbol("a", _C1, _C0), sympy.MatrixSymbol("b", _C2, _C1)  # W⁽¹⁾ = (a_kj), W⁽²⁾ = (b_ik)


def canonical_sums(expression, depth: int = 0):
    """``expression`` with the bound variable of every sum renamed after its nesting depth and place
    among the sum's limits: sums equal up to the names of their dummies (sympy's matrix entries bring
    their own) become equal expressions."""
    if isinstance(expression, sympy.Sum):
        renamed, limits = {}, []
        for place, (variable, low, high) in enumerate(expression.limits):
            renamed[variable] = sympy.Symbol(f"ι{depth}_{place}", integer=True)
            limits.append((renamed[variable], low.xreplace(renamed), high.xreplace(renamed)))
        return sympy.Sum(canonical_sums(expression.function.xreplace(renamed), depth + 1), *limits)
    if not expression.args:
        return expression
    return expression.func(*(canonical_sums(argument, depth) for argument in expression.args))


def gram_identity_check(product: Callable) -> Check:
    """Every size at once: (MᵀM)_{kl} as a double sum over (i, j) with symbolic bounds c2, c0, summands
    factored out of the sums (sympy factor_sum: the summand is a function of i times one of j), against
    entry (k, l) of product(W⁽²⁾ᵀW⁽²⁾, W⁽¹⁾W⁽¹⁾ᵀ) — the object evaluated on matrix symbols of symbolic
    sizes. When they differ, the smallest concrete size where the generic matrices differ refutes."""

    def run(ctx: Context) -> Outcome:
        summand = _W2[_I, _K] * _W1[_K, _J] * _W2[_I, _L] * _W1[_L, _J]
        lhs = factor_sum(sympy.Sum(factor_sum(sympy.Sum(summand, (_I, 0, _C2 - 1))), (_J, 0, _C0 - 1)))
        rhs = product(_W2.T * _W2, _W1 * _W1.T)[_K, _L]
        evidence = {"MtM_kl": str(lhs), "claimed_kl": str(rhs),
                    "method": "the product evaluated on MatrixSymbols of symbolic sizes c0, c1, c2; sympy factor_sum"}
        if sympy.expand(canonical_sums(lhs) - canonical_sums(rhs)) == 0:
            return Outcome(Verdict.CERTIFIED, f"(MᵀM)_kl = {lhs} for symbolic c0, c1, c2", evidence, scope=ALL_SIZES)
        small = itertools.product(range(1, 3), range(1, 3), range(1, 4))  # (c0, c2, c1)
        for size in sorted(small, key=lambda s: (s[0] * s[1] * s[2], s)):
            sides = column_gram_sides(*size, product)
            difference = [sympy.expand(x) for x in sides[0] - sides[1]]
            if any(difference):
                return Outcome(Verdict.REFUTED, "c0 = {}, c2 = {}, c1 = {}: MᵀM differs from the claimed "
                               "product".format(*size), evidence,
                               counterexample={"c0": size[0], "c2": size[1], "c1": size[2],
                                               "first_difference": str(next(d for d in difference if d))})
        return Outcome(Verdict.INCONCLUSIVE, "the symbolic sides differ, yet agree on every size with c0, c2 ≤ 2, "
                       "c1 ≤ 3", evidence)

    return Check("MᵀM = (W⁽²⁾ᵀW⁽²⁾) ∘ (W⁽¹⁾W⁽¹⁾ᵀ) for generic W⁽¹⁾, W⁽²⁾ (symbolic sizes)", "symbolic", run,
                 part="Gram identity")


# Every size at once. For c1 > max(c0, c2) write c0 = 1 + m, c1 = c0 + 1 + e, c2 = 1 + n, c1 = c2 + 1 + f
# (m, e, n, f ≥ 0): W⁽¹⁾ = [[a, 0], [0, I_m], [0, 0]] with a = (3/5, 4/5)ᵀ has orthonormal columns and
# (W⁽¹⁾W⁽¹⁾ᵀ)₀₁ = 12/25; W⁽²⁾ = [[bᵀ, 0, 0], [0, I_n, 0]] with b = (4/5, −3/5)ᵀ has orthonormal rows and
# (W⁽²⁾ᵀW⁽²⁾)₀₁ = −12/25; by the Gram identity (MᵀM)₀₁ = −144/625. For c1 ≤ c0 (c2), W⁽¹⁾W⁽¹⁾ᵀ
# (W⁽²⁾ᵀW⁽²⁾) is I_{c1} by hypothesis and the Hadamard product is diagonal.
PYTHAGOREAN_A = sympy.Matrix([[sympy.Rational(3, 5)], [sympy.Rational(4, 5)]])
PYTHAGOREAN_B = sympy.Matrix([[sympy.Rational(4, 5)], [sympy.Rational(-3, 5)]])


def _padded_columns(head: sympy.Matrix, identity: int | sympy.Symbol, padding: int | sympy.Symbol):
    """[[head, 0], [0, I_identity], [0, 0]] (padding zero rows), zero-size blocks left out."""
    rows = [[head] + ([sympy.ZeroMatrix(2, identity)] if identity else [])]
    if identity:
        rows.append([sympy.ZeroMatrix(identity, 1), sympy.Identity(identity)])
    if padding:
        rows.append([sympy.ZeroMatrix(padding, 1)] + ([sympy.ZeroMatrix(padding, identity)] if identity else []))
    return sympy.BlockMatrix(rows)


def is_identity(collapsed, identity) -> bool:
    """Whether a collapsed Gram [[1, 0], [0, I_identity]] (or [[1]] without the identity block) is I."""
    if not identity:
        return sympy.Matrix(collapsed) == sympy.eye(1)
    blocks = collapsed.blocks
    return bool(sympy.Matrix(blocks[0, 0]) == sympy.eye(1) and blocks[0, 1].is_ZeroMatrix
                and blocks[1, 0].is_ZeroMatrix and blocks[1, 1] == sympy.Identity(identity))


def general_witness(identity, padding, head: sympy.Matrix) -> tuple[bool, sympy.Expr]:
    """For the padded layer with these (symbolic or zero) block sizes: whether its short-side Gram is I,
    and the (0, 1) entry of its long-side Gram (the top-left block is head·headᵀ)."""
    layer = _padded_columns(head, identity, padding)
    long_side = sympy.block_collapse(layer * layer.T)
    top = long_side.blocks[0, 0] if isinstance(long_side, sympy.BlockMatrix) else long_side
    return is_identity(sympy.block_collapse(layer.T * layer), identity), sympy.Matrix(top)[0, 1]


def general_threshold_check(threshold: Callable[[sympy.Expr, sympy.Expr], sympy.Expr]) -> Check:
    """Every size at once: the columns of M are orthogonal for every orthogonal pair iff c1 ≤ max(c0, c2)
    (the block witness above, with the identity and padding sizes symbolic or zero, and the Gram
    identity), against the claimed ``threshold`` (c1 ≤ threshold(c0, c2)), compared symbolically; a
    different threshold is refuted at the smallest size where it differs, by the exact witness of
    ``columns_orthogonal``."""

    def run(ctx: Context) -> Outcome:
        blocks = sympy.symbols("m e", integer=True, positive=True)
        cases = []
        for identity in (0, blocks[0]):
            for padding in (0, blocks[1]):
                ortho_1, entry_1 = general_witness(identity, padding, PYTHAGOREAN_A)
                ortho_2, entry_2 = general_witness(identity, padding, PYTHAGOREAN_B)
                if not (ortho_1 and ortho_2) or entry_1 * entry_2 == 0:
                    raise AssertionError(f"the block witness fails at identity {identity}, padding {padding}")
                cases.append({"identity_block": str(identity), "padding": str(padding),
                              "MtM_01": str(entry_1 * entry_2)})
        c0, c2 = sympy.symbols("c0 c2", integer=True, positive=True)
        difference = sympy.simplify(threshold(c0, c2) - sympy.Max(c0, c2))
        evidence = {"witness_cases": cases, "threshold_minus_max": str(difference),
                    "argument": "c1 > max(c0, c2): W⁽¹⁾ = [[a, 0], [0, I], [0, 0]], W⁽²⁾ = [[bᵀ, 0, 0], [0, I, 0]] "
                                "give (MᵀM)₀₁ = −144/625; c1 ≤ max(c0, c2): one Gram factor is I_{c1}"}
        if difference == 0:
            return Outcome(Verdict.CERTIFIED, "orthogonal columns for every orthogonal pair iff c1 ≤ max(c0, c2), for "
                           "every size (block witness with symbolic sizes)", evidence, scope=ALL_SIZES)
        for size in column_sizes(ctx):
            a, b, c1 = size
            claimed = c1 <= threshold(a, b)
            truth, reason, _ = columns_orthogonal(a, b, c1)
            if truth is not None and claimed != truth:
                return Outcome(Verdict.REFUTED, f"c0 = {a}, c2 = {b}, c1 = {c1}: the threshold says "
                               f"{'orthogonal' if claimed else 'not'}; {reason}", evidence,
                               counterexample={"c0": a, "c2": b, "c1": c1, "why": reason})
        return Outcome(Verdict.INCONCLUSIVE, f"threshold − max(c0, c2) = {difference}, no differing size found",
                       evidence)

    return Check("columns orthogonal for every orthogonal pair iff c1 ≤ max(c0, c2) (symbolic sizes)", "symbolic",
                 run, part="threshold")


register(Claim(
    id="randfeat2025.ortho_columns",
    source="Sec. 2.1, 'Orthogonal weights are not well conditioned': "
           "'While the columns of M are orthogonal, the rows are not'",
    hypotheses=("every orthogonal W⁽¹⁾ ∈ R^{c1×c0}, W⁽²⁾ ∈ R^{c2×c1} (orthonormal along their shorter side; no draw)",
                "any width c1"),
    subject={"claimed_orthogonal": everywhere},
    checks=(takes("claimed_orthogonal", build=column_orthogonality_check),
            takes("claimed_orthogonal", build=haar_column_check),
            takes("claimed_orthogonal", build=columns_beyond)),
    broken=(Broken("claimed only at the interpolation point c1 = c0c2 (the paragraph's setting)",
                   replaces={"claimed_orthogonal": at_interpolation_point},
                   refuted_by="c0 = c2 = 2, c1 = 4, visited by every profile: (MᵀM)[0, 1] = 43200/485809 for the "
                              "Cayley layers, and every Haar draw; the pinned c0 = c2 = 4, c1 = 16 past the sweep"),),
    erratum=Erratum("as-printed", "MᵀM = (W⁽²⁾ᵀW⁽²⁾) ∘ (W⁽¹⁾W⁽¹⁾ᵀ). It is diagonal for every orthogonal pair exactly "
                    "when one factor is I_{c1}, i.e. c1 ≤ max(c0, c2) — the reading the paper's index computation "
                    "takes, treating the layers as orthogonal along the feature index. For c1 > max(c0, c2), in "
                    "particular at the interpolation point c1 = c0c2 of Fig. 2 (c0, c2 ≥ 2), both factors are proper "
                    "projections and the columns are not orthogonal: minimal counterexample c0 = c2 = 1, c1 = 2, "
                    "W⁽¹⁾ = (3/5, 4/5)ᵀ, W⁽²⁾ = (4/5, −3/5), M = (12/25, −12/25), (MᵀM)[0, 1] = −144/625; at "
                    "c0 = c2 = 2, c1 = 4 exact Cayley layers give (MᵀM)[0, 1] = 43200/485809, and every Haar draw "
                    "has a nonzero off-diagonal. Nothing later uses the columns; the paragraph's point (the rows are "
                    "not orthogonal, κ(M) is large: randfeat2025.ortho) stands.",
                    corrected=("randfeat2025.ortho_columns.corrected",)),
    notes="The rows half of the sentence is randfeat2025.ortho. 'Orthogonal' for a rectangular layer is read as "
          "torch's orthogonal init (orthonormal along the shorter side); at c1 = c0c2 that is the hypothesis of "
          "randfeat2025.ortho. Scope: every size with c0, c2 ≤ 3 and c1 ≤ c0c2 + 1 at ci (45 sizes).",
))

register(Claim(
    id="randfeat2025.ortho_columns.corrected",
    variant_of="randfeat2025.ortho_columns",
    label="Sec. 2.1, columns of M, corrected",
    statement="MᵀM = (W⁽²⁾ᵀW⁽²⁾) ∘ (W⁽¹⁾W⁽¹⁾ᵀ); so the columns of M are orthogonal for every orthogonal W⁽¹⁾, W⁽²⁾ "
              "exactly when c1 ≤ max(c0, c2) (one factor is then I_{c1}), and not in general for c1 > max(c0, c2), "
              "e.g. at the interpolation point c1 = c0c2 with c0, c2 ≥ 2.",
    source="Sec. 2.1 (column k of M is W⁽²⁾[:, k] ⊗ W⁽¹⁾[k, :])",
    hypotheses=("W⁽¹⁾ ∈ R^{c1×c0}, W⁽²⁾ ∈ R^{c2×c1} orthogonal (orthonormal along their shorter side)",
                "'orthogonal columns' for every orthogonal pair (c1 ≤ max(c0, c2)); 'not in general': some exact "
                "orthogonal pair has non-orthogonal columns (c1 > max(c0, c2))"),
    subject={"column_gram": hadamard, "threshold": max_width},
    checks=(takes("column_gram", build=gram_identity_check),
            takes("threshold", build=general_threshold_check),
            takes("threshold", build=lambda threshold: column_orthogonality_check(below(threshold))),
            takes("threshold", build=lambda threshold: haar_column_check(below(threshold))),
            takes("threshold", build=lambda threshold: columns_beyond(below(threshold)))),
    broken=(Broken("the ordinary matrix product for the Hadamard product", replaces={"column_gram": matrix_product},
                   refuted_by="c0 = c2 = 1, c1 = 2 (the first size with c1 > 1): (vvᵀ)(uuᵀ) ≠ (v∘u)(v∘u)ᵀ"),
            Broken("the W⁽¹⁾W⁽¹⁾ᵀ factor dropped: (W⁽²⁾ᵀW⁽²⁾) ∘ (W⁽²⁾ᵀW⁽²⁾)",
                   replaces={"column_gram": hadamard_square_of_first},
                   refuted_by="c0 = c2 = c1 = 1, the first size of the all-sizes check's fallback: (MᵀM)₀₀ = a²b², "
                              "the claimed product b⁴"),
            Broken("threshold off by one: c1 ≤ max(c0, c2) + 1", replaces={"threshold": max_width_plus_one},
                   refuted_by="c0 = c2 = 1, c1 = 2: (MᵀM)[0, 1] = −144/625 for W⁽¹⁾ = (3/5, 4/5)ᵀ, "
                              "W⁽²⁾ = (4/5, −3/5); every Haar draw; the pinned c0 = c2 = 4, c1 = 5"),
            Broken("threshold c1 ≤ min(c0, c2)", replaces={"threshold": min_width},
                   refuted_by="c0 = 1, c2 = 2, c1 = 2: W⁽²⁾ is square, W⁽²⁾ᵀW⁽²⁾ = I, MᵀM diagonal for every pair; "
                              "the pinned c0 = 4, c2 = 5, c1 = 5")),
    notes="Certified for every size (scope all). The Gram identity: sums with symbolic bounds c0, c2, c1, against the "
          "product under test evaluated on matrix symbols of symbolic sizes (its entry (k, l), bound variables "
          "renamed canonically). The "
          "threshold: '⇐' because one Gram factor is I_{c1}; '⇒' by the block witness W⁽¹⁾ = [[a, 0], [0, I], [0, 0]], "
          "W⁽²⁾ = [[bᵀ, 0, 0], [0, I, 0]] (a = (3/5, 4/5)ᵀ, b = (4/5, −3/5)ᵀ), orthogonal with (MᵀM)₀₁ = −144/625 "
          "whenever c1 > max(c0, c2), checked with sympy block matrices of symbolic sizes. The exact per-size check "
          "(every size with c0, c2 ≤ 3, c1 ≤ c0c2 + 1 at ci, 45 sizes), sizes past it up to max(c0, c2) = 6 and Haar "
          "draws corroborate.",
))
