"""randfeat2025, Sec. 4 and App. A.2.3–A.2.4: Thm 4.2 and 4.3, matching sparse targets.

Sparse ID cond features with density p are a c2×c0 mask of iid Bern(p) entries (feature
(i, j) kept or not). A target W⁽ᵗ⁾ is matched after permuting rows when its rows can be sent to
distinct mask rows containing their supports (``theorems.maths.matchings``).

- ``thm4_2``: P(match) ≤ Π_i (1 − (1 − p^{d_i})^{c2}) (d_i = in-degrees). Checked exactly: for
  every target pattern up to c2 ≤ 3 outputs, P(match) is a polynomial in p from all 2^{c2·c0}
  masks, and bound − P ≥ 0 on [0, 1] is decided by exact root counting (Sturm); Monte Carlo
  with Hopcroft–Karp for larger targets (corroborating).
- ``thm4_2.attained``: the proof says the bound is attained for mutually disjoint supports.
  It is not: Π is the probability that every target row fits *some* mask row; a matching needs
  *distinct* rows. For c0 = c2 = 2, W⁽ᵗ⁾ = I: P(match) = 2p² − p⁴ < (2p − p²)² by 2p²(1 − p)².
- ``thm4_3``: k ≥ log(1 − (1 − δ)^{1/c2t}) / log(1 − (1 − q(1 − p))^{c0}) output groups per
  target row give P(match) ≥ 1 − δ. The proof treats the k candidate rows as matching
  independently with probability a = (1 − q(1 − p))^{c0}; they share one random target row, so
  the per-row success is E[1 − (1 − p^d)^k] (d ~ Bin(c0, q)), smaller than 1 − (1 − a)^k by
  Jensen. At c0 = c2t = 1, p = q = 1/2, δ = 1/16 the printed k = 2 gives P(match) = 7/8 < 15/16.
  ``thm4_3.corrected`` uses the exact per-row success (the proof's partition argument then holds).

The special target of Fig. 1(e) (disjoint supports: ``thm4_2.disjoint_max``, ``fig1e_k``) is in
``sec4_special_target``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from functools import cache

import numpy as np
import sympy
from matplotlib.figure import Figure

from theorems.engine.checks import symbolic_identity
from theorems.engine.context import Context
from theorems.engine.registry import Broken, Check, Claim, Erratum, register
from theorems.engine.verdicts import ALL_SIZES, Outcome, Verdict
from theorems.maths import matchings, stats
from theorems.papers.randfeat2025 import SOURCE

P = sympy.Symbol("p")


# --- target patterns ---------------------------------------------------------------------


@cache
def target_patterns(c2: int, c0: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Every c2×c0 0/1 support pattern up to a permutation of its rows (rows sorted)."""
    rows = list(itertools.product((0, 1), repeat=c0))
    return tuple(sorted({tuple(sorted(choice)) for choice in itertools.product(rows, repeat=c2)}))


def _sizes(ctx: Context) -> list[tuple[int, int]]:
    return ctx.by_profile([(1, 1), (1, 2), (2, 1), (2, 2)],
                          [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3), (2, 4), (3, 1), (3, 2), (3, 3)],
                          [(c2, c0) for c2 in (1, 2, 3, 4) for c0 in (1, 2, 3, 4) if c2 * c0 <= 12])


def sizes_scope(ctx: Context) -> str:
    """The (c2, c0) range of ``_sizes`` (every c0 up to a bound per c2) in the claims' notation."""
    widest: dict[int, int] = {}
    for c2, c0 in _sizes(ctx):
        widest[c2] = max(widest.get(c2, 0), c0)
    return "; ".join(f"c2 = {c2}: c0 ≤ {c0}" for c2, c0 in sorted(widest.items()))


@cache
def matching_polynomial(pattern) -> sympy.Poly:
    target = np.array(pattern, dtype=np.int64)
    c2, c0 = target.shape
    return sympy.Poly(matchings.weight_polynomial(matchings.matching_weight_counts(target, c2), c2 * c0, P), P)


# --- bounds ---------------------------------------------------------------------------


def product_bound(degrees, c2: int, p):
    """Π_i (1 − (1 − p^{d_i})^{c2}) (Thm 4.2 as printed)."""
    return math.prod((1 - (1 - p**int(d)) ** c2 for d in degrees), start=1)


def greedy_bound(degrees, c2: int, p):
    """Π_m (1 − (1 − p^{d_m})^{c2 − m}): the proof's Greedy count (c2, c2 − 1, …, 1 candidates)."""
    return math.prod((1 - (1 - p**int(d)) ** (c2 - m) for m, d in enumerate(degrees)), start=1)


def nonnegative_on_unit_interval(poly: sympy.Poly) -> tuple[bool, sympy.Rational | None]:
    """Decide poly ≥ 0 on [0, 1] exactly; a rational witness p where poly(p) < 0 otherwise.

    The sign can change in (0, 1) only at roots of odd multiplicity (Sturm counts, exact);
    without such roots one nonzero value fixes the sign. With them, the isolating intervals of
    the real roots give rational points between consecutive roots to test.
    """
    if poly.is_zero:
        return True, None
    candidates = [sympy.Rational(1, 2), sympy.Rational(1, 3), sympy.Rational(2, 3), sympy.Rational(1, 7),
                  sympy.Rational(6, 7)]
    odd_interior = 0
    for factor, multiplicity in poly.sqf_list()[1]:
        if multiplicity % 2:
            odd_interior += factor.count_roots(0, 1) - int(factor.eval(0) == 0) - int(factor.eval(1) == 0)
    if odd_interior:
        roots = sorted({float(a + b) / 2 for (a, b), _ in poly.intervals(inf=0, sup=1, eps=sympy.Rational(1, 10**12))})
        edges = [0.0, *roots, 1.0]
        candidates = [sympy.Rational(sympy.nsimplify((lo + hi) / 2, rational=True))
                      for lo, hi in itertools.pairwise(edges)] + candidates
    for point in candidates:
        if 0 < point < 1 and poly.eval(point) < 0:
            return False, point
    if odd_interior:
        raise ArithmeticError(f"{poly} changes sign in (0, 1) but no negative point was found")
    return True, None


def exact_bound_check(bound: Callable) -> Check:
    def run(ctx: Context) -> Outcome:
        rows, checked = [], 0
        for c2, c0 in _sizes(ctx):
            for pattern in target_patterns(c2, c0):
                target = np.array(pattern, dtype=np.int64)
                degrees = target.sum(axis=1)
                difference = sympy.Poly(sympy.expand(bound(degrees, c2, P)), P) - matching_polynomial(pattern)
                ok, witness = nonnegative_on_unit_interval(difference)
                checked += 1
                if not ok:
                    value = matching_polynomial(pattern).eval(witness)
                    return Outcome(Verdict.REFUTED, f"c2 = {c2}, c0 = {c0}, target {target.tolist()}: "
                                   f"at p = {witness}, P(match) = {value} > bound {bound(degrees, c2, witness)}",
                                   {"targets_checked": checked},
                                   counterexample={"target": target.tolist(), "p": str(witness), "P_match": str(value),
                                                   "bound": str(bound(degrees, c2, witness)),
                                                   "P_match_polynomial": str(matching_polynomial(pattern).as_expr())})
            rows.append({"c2": c2, "c0": c0, "patterns": len(target_patterns(c2, c0))})
        return Outcome(Verdict.CERTIFIED, f"bound − P(match) ≥ 0 on all of [0, 1] for all {checked} target patterns "
                       f"({sizes_scope(ctx)})",
                       {"bound": sizes_scope(ctx), "configurations": checked, "sizes": rows,
                        "method": "P(match) as a polynomial from all 2^(c2·c0) masks (perfect matchings by permanent "
                                  "terms), every 0/1 target pattern up to row order; sign on [0, 1] by exact Sturm "
                                  "root counts"},
                       scope=f"{sizes_scope(ctx)} (every target pattern, every p)")

    return Check("P(match) ≤ Π_i(1 − (1 − p^{d_i})^{c2}) exactly (all patterns)", "symbolic", run)


# --- Monte Carlo ------------------------------------------------------------------------


def mc_targets(n: int) -> dict[str, np.ndarray]:
    """Structured n×n supports: disjoint singletons (I), disjoint pairs, identical rows, nested rows."""
    pairs = np.zeros((n, n), dtype=bool)
    for i in range(n // 2):
        pairs[i, 2 * i:2 * i + 2] = True
    identical = np.zeros((n, n), dtype=bool)
    identical[:, :2] = True
    nested = np.tril(np.ones((n, n), dtype=bool))[:, ::-1][:, :n] & (np.arange(n)[None, :] < 3)
    return {"disjoint singletons": np.eye(n, dtype=bool), "disjoint pairs": pairs, "identical rows (d = 2)": identical,
            "nested rows (d ≤ 3)": nested}


def match_frequency(rng: np.random.Generator, target: np.ndarray, feature_rows: int, p: float, trials: int) -> int:
    hits = 0
    for _ in range(trials):
        mask = rng.random((feature_rows, target.shape[1])) < p
        hits += matchings.row_matching(target, mask) is not None
    return hits


def monte_carlo_bound_check(bound: Callable, pinned: str = "disjoint singletons") -> Check:
    """Refute when the one-sided lower confidence bound (level 1 − FALSE_ALARM) on P(match)
    exceeds the bound at any (target, p); the pinned target runs first."""

    def run(ctx: Context) -> Outcome:
        n = ctx.by_profile(6, 8, 12, 16)
        trials = ctx.by_profile(300, 600, 3000)
        targets = mc_targets(n)
        order = [pinned] + [name for name in targets if name != pinned]
        rows = []
        for label in order:
            target = targets[label]
            for p in (0.5, 0.8):
                hits = match_frequency(ctx.rng("mc", label, p), target, n, p, trials)
                value = float(bound(target.sum(axis=1), n, p))
                lower = stats.clopper_pearson_lower(hits, trials, 1 - stats.FALSE_ALARM)
                interval = stats.clopper_pearson(hits, trials)
                rows.append({"target": label, "p": p, "trials": trials, "matched": hits,
                             "estimate_95": interval.as_dict(), "bound": stats.round_sig(value)})
                if lower > value:
                    return Outcome(Verdict.REFUTED, f"{label} (c0 = c2 = {n}), p = {p}: {hits}/{trials} matched, "
                                   f"lower confidence bound {lower:.4f} (level 1 − {stats.FALSE_ALARM:g}) "
                                   f"> bound {value:.4f}",
                                   {"points": rows}, counterexample=rows[-1])
        figure = _bound_figure(ctx, targets["disjoint singletons"], n, bound, trials)
        return Outcome(Verdict.SUPPORTED, f"{len(rows)} (target, p) points at c0 = c2 = {n}: no estimate above the "
                       f"bound (level 1 − {stats.FALSE_ALARM:g})", {"points": rows},
                       figures={"matching probability vs bound": figure})

    return Check("Monte Carlo, Hopcroft–Karp (c0 = c2 up to 12)", "randomized", run, corroborating=True)


def _bound_figure(ctx: Context, target: np.ndarray, n: int, bound: Callable, trials: int) -> Figure:
    grid = np.linspace(0.3, 1.0, 8)
    estimates = [stats.clopper_pearson(match_frequency(ctx.rng("figure", p), target, n, p, trials // 3), trials // 3)
                 for p in grid]
    figure = Figure(figsize=(5, 3.5))
    axes = figure.subplots()
    axes.errorbar(grid, [e.estimate for e in estimates], yerr=[[e.estimate - e.low for e in estimates],
                  [e.high - e.estimate for e in estimates]], fmt="o", label="P(match), Monte Carlo (95%)")
    fine = np.linspace(0.3, 1.0, 200)
    axes.plot(fine, [float(bound(target.sum(axis=1), n, p)) for p in fine], label="Thm 4.2 bound")
    axes.set_xlabel("feature density p")
    axes.set_ylabel("probability")
    axes.set_title(f"disjoint singleton target, c0 = c2 = {n}")
    axes.legend()
    return figure


register(Claim(
    id="randfeat2025.thm4_2",
    source=f"{SOURCE}, Sec. 4, Thm 4.2; proof in App. A.2.3",
    hypotheses=("feature mask iid Bern(p), c2 × c0", "target rows with in-degrees d_i", "rows matched injectively"),
    checks=(exact_bound_check(product_bound), monte_carlo_bound_check(product_bound)),
    broken=(Broken("the proof's Greedy count: Π_m (1 − (1 − p^{d_m})^{c2 − m}) (c2, c2 − 1, … candidates)",
                   (exact_bound_check(greedy_bound), monte_carlo_bound_check(greedy_bound)),
                   refuted_by="target I₂ (c0 = c2 = 2, visited by every profile): P = 2p² − p⁴ > 2p² − p³; the pinned "
                              "disjoint-singleton target I_6 at p = 0.5 in the Monte Carlo"),),
    notes="The statement holds (certified for every target pattern and every p with c2 ≤ 3, c2·c0 ≤ 9 at ci: c0 ≤ 3 "
          "for c2 = 1, 3 and c0 ≤ 4 for c2 = 2, 343 patterns); its proof does not "
          "(see thm4_2.attained). Targets are enumerated up to row permutations (the event is invariant).",
))


# --- attained for disjoint supports ------------------------------------------------------


def disjoint_cases(ctx: Context, disjoint_only: bool = True) -> list:
    cases = []
    for c2, c0 in _sizes(ctx):
        for pattern in target_patterns(c2, c0):
            target = np.array(pattern, dtype=np.int64)
            if not disjoint_only or (target.sum(axis=0) <= 1).all():
                cases.append(pattern)
    return sorted(cases, key=lambda pattern: (len(pattern) * len(pattern[0]), pattern))


@cache
def cover_polynomial(pattern) -> sympy.Expr:
    target = np.array(pattern, dtype=np.int64)
    c2, c0 = target.shape
    return matchings.weight_polynomial(matchings.cover_weight_counts(target, c2), c2 * c0, P)


def attained_check(name: str, probability: Callable, disjoint_only: bool = True) -> Check:
    return symbolic_identity(
        name,
        lambda ctx: disjoint_cases(ctx, disjoint_only),
        lambda pattern: ([[probability(pattern)]], [[product_bound(np.array(pattern).sum(axis=1), len(pattern), P)]]),
        scope=lambda ctx: f"{sizes_scope(ctx)} (every disjoint-support pattern)",
        describe_case=lambda pattern: f"target {[list(row) for row in pattern]}",
    )


def _matching_expr(pattern):
    return matching_polynomial(pattern).as_expr()


# The names of the attainment identities: a broken variant replaces the check of the same name.
MATCH_ATTAINED_CHECK = "P(match) ≡ Π_i(1 − (1 − p^{d_i})^{c2}) for disjoint supports"
COVER_ATTAINED_CHECK = "P(every row fits some feature row) ≡ Π_i(…) for disjoint supports"


register(Claim(
    id="randfeat2025.thm4_2.attained",
    source=f"{SOURCE}, App. A.2.3 (proof of Thm 4.2) and Sec. 4 'Proof Outline'",
    hypotheses=("target rows with mutually disjoint supports",),
    checks=(attained_check(MATCH_ATTAINED_CHECK, _matching_expr),),
    broken=(Broken("attained for every target (supports may overlap)",
                   (attained_check(MATCH_ATTAINED_CHECK, _matching_expr, False),),
                   refuted_by="the first overlapping pattern, c2 = 2, c0 = 1, both rows {1}: "
                              "P = p², bound (2p − p²)²"),),
    erratum=Erratum("substantive", "for disjoint supports Π_i(1 − (1 − p^{d_i})^{c2}) is the probability that every "
                    "target row fits some feature row; a matching needs distinct rows, so for c0 = c2 = 2, W⁽ᵗ⁾ = I, "
                    "P(match) = 2p² − p⁴ < (2p − p²)² (gap 2p²(1 − p)²). The proof of Thm 4.2 rests on this "
                    "case attaining and maximizing the bound; the bound itself survives (thm4_2, by exhaustive "
                    "enumeration).",
                    corrected=("randfeat2025.thm4_2.attained.corrected",)),
))

register(Claim(
    id="randfeat2025.thm4_2.attained.corrected",
    variant_of="randfeat2025.thm4_2.attained",
    label="proof of Thm 4.2, corrected",
    statement="For target rows with mutually disjoint supports, Π_i(1 − (1 − p^{d_i})^{c2}) is exactly the probability "
              "that every target row fits at least one feature row (an upper bound on P(match), equal to it only when "
              "at most one target row is nonempty).",
    source=f"{SOURCE}, App. A.2.3",
    hypotheses=("target rows with mutually disjoint supports",),
    checks=(attained_check(COVER_ATTAINED_CHECK, cover_polynomial),),
    broken=(Broken("also for overlapping supports (the events are then positively correlated)",
                   (attained_check(COVER_ATTAINED_CHECK, cover_polynomial, False),),
                   refuted_by="the first overlapping pattern, c2 = 2, c0 = 1, both rows {1}: "
                              "1 − (1 − p)² vs its square"),),
))


# --- Thm 4.3 -------------------------------------------------------------------------


def printed_success(c0: int, p: Fraction, q: Fraction, k: int) -> Fraction:
    """The proof's per-target success 1 − (1 − a)^k with a = (1 − q(1 − p))^{c0}."""
    a = (1 - q * (1 - p)) ** c0
    return 1 - (1 - a) ** k


def exact_success(c0: int, p: Fraction, q: Fraction, k: int) -> Fraction:
    """E[1 − (1 − p^d)^k], d ~ Bin(c0, q): one random target row against k candidate rows."""
    return sum((math.comb(c0, d) * q**d * (1 - q) ** (c0 - d) * (1 - (1 - p**d) ** k) for d in range(c0 + 1)),
               Fraction(0))


def printed_k(c0: int, c2t: int, p: Fraction, q: Fraction, delta: Fraction) -> int:
    """The least integer k ≥ 1 with k ≥ log(1 − (1 − δ)^{1/c2t}) / log(1 − (1 − q(1 − p))^{c0}); decided
    exactly through the equivalent (1 − (1 − a)^k)^{c2t} ≥ 1 − δ (both logs are negative)."""
    k = 1
    while printed_success(c0, p, q, k) ** c2t < 1 - delta:
        k += 1
    return k


def k_off_by_one_exponent(c0: int, c2t: int, p: Fraction, q: Fraction, delta: Fraction) -> int:
    """The printed rule with the exponent c0 − 1 in place of c0 (a smaller k)."""
    return printed_k(c0 - 1, c2t, p, q, delta) if c0 > 1 else 1


def exact_match_probability(c0: int, c2t: int, k: int, p: Fraction, q: Fraction) -> Fraction:
    """P(an iid Bern(q) c2t×c0 target matches into an iid Bern(p) (k·c2t)×c0 mask), exactly,
    over all targets and all masks (any injective assignment, not only the proof's partition)."""
    total = Fraction(0)
    for bits in itertools.product((0, 1), repeat=c2t * c0):
        target = np.array(bits, dtype=np.int64).reshape(c2t, c0)
        weight = int(target.sum())
        counts = matchings.matching_weight_counts(target, k * c2t)
        total += q**weight * (1 - q) ** (c2t * c0 - weight) * matchings.weight_polynomial(counts, k * c2t * c0, p)
    return total


HALF = Fraction(1, 2)
# (c0, c2t, p, q, δ); the first is the minimal counterexample: k = 2, P = 7/8 < 15/16.
EXACT_GRID = [(1, 1, HALF, HALF, Fraction(1, 16)), (2, 1, HALF, HALF, Fraction(1, 4)),
              (2, 2, HALF, HALF, Fraction(1, 4)), (3, 1, Fraction(3, 4), Fraction(1, 3), Fraction(1, 10)),
              (1, 2, Fraction(2, 3), Fraction(3, 4), Fraction(1, 5))]


def exact_k_check(name: str, lower_bound: Callable[[int, int, int, Fraction, Fraction, Fraction], Fraction],
                  k_rule: Callable = printed_k) -> Check:
    """At k from the printed formula, the exact P(match) against the stated lower bound."""

    def run(ctx: Context) -> Outcome:
        rows = []
        for c0, c2t, p, q, delta in EXACT_GRID:
            k = k_rule(c0, c2t, p, q, delta)
            if k * c2t * c0 > matchings.ENUMERATION_MAX_CELLS:
                continue
            probability = exact_match_probability(c0, c2t, k, p, q)
            bound = lower_bound(c0, c2t, k, p, q, delta)
            row = {"c0": c0, "c2t": c2t, "p": str(p), "q": str(q), "delta": str(delta), "k": k,
                   "P_match": str(probability), "bound": str(bound)}
            rows.append(row)
            if probability < bound:
                return Outcome(Verdict.REFUTED, f"c0 = {c0}, c2t = {c2t}, p = {p}, q = {q}, δ = {delta}: k = {k}, "
                               f"exact P(match) = {probability} < {bound}", {"cases": rows}, counterexample=row)
        return Outcome(Verdict.CERTIFIED, f"P(match) ≥ bound exactly in {len(rows)} cases", {"cases": rows},
                       scope=f"the {len(rows)} grid cases (c0 ≤ {max(r['c0'] for r in rows)}, "
                             f"c2t ≤ {max(r['c2t'] for r in rows)})")

    return Check(name, "symbolic", run)


def printed_lower(c0, c2t, k, p, q, delta) -> Fraction:
    """Thm 4.3 as printed: at its k, P(match) ≥ 1 − δ."""
    return 1 - delta


def corrected_lower(c0, c2t, k, p, q, delta) -> Fraction:
    """(E[1 − (1 − p^d)^k])^{c2t}: the partition argument with the exact per-row success."""
    return exact_success(c0, p, q, k) ** c2t


def proof_lower(c0, c2t, k, p, q, delta) -> Fraction:
    """The proof's (1 − (1 − a)^k)^{c2t}, a = (1 − q(1 − p))^{c0}."""
    return printed_success(c0, p, q, k) ** c2t


# Symbolic sizes of Thm 4.3: c0 inputs, c2t target rows, k feature rows per target row.
C0, C2T, K = sympy.symbols("c0 c2t k", integer=True, positive=True)
Q = sympy.Symbol("q")


def partition_event_probability() -> sympy.Expr:
    """P(target row i fits one of the k feature rows of group i, for every i), built from the iid
    entries in symbolic sizes: a mask row holds a given support of d columns with probability Π_{j≤d} p;
    the k rows of a group are independent; a target row has a given support of d columns with
    probability Π_{j≤d} q · Π_{d<j≤c0} (1 − q), and C(c0, d) such supports; the c2t groups use disjoint
    mask rows and independent target rows."""
    d, j, r, i = sympy.symbols("d j r i", integer=True, nonnegative=True)
    fits_one_row = sympy.Product(P, (j, 1, d)).doit()
    misses_group = sympy.Product(1 - fits_one_row, (r, 1, K)).doit()
    support_law = (sympy.binomial(C0, d) * sympy.Product(Q, (j, 1, d)).doit()
                   * sympy.Product(1 - Q, (j, d + 1, C0)).doit())
    row_success = sympy.Sum(support_law * (1 - misses_group), (d, 0, C0))
    return sympy.Product(row_success, (i, 1, C2T)).doit(deep=False)  # the row sum stays a Sum


def corrected_lower_symbolic() -> sympy.Expr:
    d = sympy.Symbol("d", integer=True, nonnegative=True)
    return sympy.Sum(sympy.binomial(C0, d) * Q**d * (1 - Q) ** (C0 - d) * (1 - (1 - P**d) ** K), (d, 0, C0)) ** C2T


def proof_lower_symbolic() -> sympy.Expr:
    return (1 - (1 - (1 - Q * (1 - P)) ** C0) ** K) ** C2T


def partition_argument_check(bound: Callable[[], sympy.Expr]) -> Check:
    """Every size at once: the bound must be the probability of the partition event (each target row
    matched inside its own group of k feature rows), derived symbolically in c0, c2t, k; the event
    implies a match, so P(match) ≥ it. A bound that differs is tested at c2t = 1, where the one group
    is every feature row and the event is the match itself (cross-checked by enumerating every mask
    and target): a bound above it there is refuted."""

    def run(ctx: Context) -> Outcome:
        partition, stated = partition_event_probability(), bound()
        evidence = {"partition_event_probability": str(partition), "bound": str(stated),
                    "argument": "P(match) ≥ P(partition event) = the bound, symbolically in c0, c2t, k"}
        if sympy.expand(stated - partition) == 0:
            return Outcome(Verdict.CERTIFIED, "the bound is the partition event's probability for symbolic c0, c2t, "
                           "k, and the event implies a match", evidence, scope=ALL_SIZES)
        rationals = [Fraction(1, 2), Fraction(1, 3), Fraction(2, 3)]
        for c0, k in sorted(itertools.product(range(1, 4), range(1, 4)), key=lambda s: (s[0] * s[1], s)):
            for p, q in itertools.product(rationals, repeat=2):
                point = {C0: c0, C2T: 1, K: k, P: sympy.Rational(p), Q: sympy.Rational(q)}
                exact_value, stated_value = partition.subs(point).doit(), stated.subs(point).doit()
                if stated_value > exact_value:
                    enumerated = exact_match_probability(c0, 1, k, p, q)
                    if sympy.Rational(enumerated) != exact_value:
                        raise AssertionError(f"P(match) by enumeration {enumerated} ≠ {exact_value}")
                    return Outcome(Verdict.REFUTED, f"c0 = {c0}, c2t = 1, k = {k}, p = {p}, q = {q}: P(match) = "
                                   f"{exact_value} < bound {stated_value}", evidence,
                                   counterexample={"c0": c0, "c2t": 1, "k": k, "p": str(p), "q": str(q),
                                                   "P_match": str(exact_value), "bound": str(stated_value)})
        return Outcome(Verdict.INCONCLUSIVE, "the bound is not the partition probability, yet not above P(match) at "
                       "c2t = 1 on the grid", evidence)

    return Check("bound = P(partition event) ≤ P(match) (symbolic in c0, c2t, k)", "symbolic", run)


MC_GRID = [(10, 1, 0.5, 0.3, 0.05), (10, 3, 0.5, 0.3, 0.05), (8, 2, 0.8, 0.2, 0.1)]


def monte_carlo_k_check(name: str, lower_bound, k_rule: Callable = printed_k) -> Check:
    """Larger sizes by Monte Carlo (Hopcroft–Karp over all k·c2t feature rows): refute when the
    upper confidence bound (level 1 − FALSE_ALARM) falls below the stated lower bound."""

    def run(ctx: Context) -> Outcome:
        trials = ctx.by_profile(200, 600, 3000)
        rows = []
        for c0, c2t, p, q, delta in MC_GRID:
            fp, fq, fd = Fraction(p), Fraction(q), Fraction(delta)
            k = k_rule(c0, c2t, fp, fq, fd)
            rng = ctx.rng("thm4_3", c0, c2t, p, q)
            hits = 0
            for _ in range(trials):
                target = rng.random((c2t, c0)) < q
                mask = rng.random((k * c2t, c0)) < p
                hits += matchings.row_matching(target, mask) is not None
            bound = float(lower_bound(c0, c2t, k, fp, fq, fd))
            upper = stats.clopper_pearson_upper(hits, trials, 1 - stats.FALSE_ALARM)
            row = {"c0": c0, "c2t": c2t, "p": p, "q": q, "delta": delta, "k": k, "trials": trials, "matched": hits,
                   "estimate_95": stats.clopper_pearson(hits, trials).as_dict(), "bound": stats.round_sig(bound)}
            rows.append(row)
            if upper < bound:
                return Outcome(Verdict.REFUTED, f"c0 = {c0}, c2t = {c2t}, p = {p}, q = {q}, δ = {delta}, k = {k}: "
                               f"{hits}/{trials} matched; upper confidence bound {upper:.4f} "
                               f"(level 1 − {stats.FALSE_ALARM:g}) < {bound:.4f}",
                               {"cases": rows}, counterexample=row)
        return Outcome(Verdict.SUPPORTED, f"{len(rows)} cases: no estimate significantly below the bound",
                       {"cases": rows})

    return Check(name, "randomized", run, corroborating=True)


# The lower bounds on P(match) of Thm 4.3 and of its correction: each is checked by
# k_checks under the names "<bound> (exact)" and "<bound> (Monte Carlo)".
PRINTED_K_BOUND = "P(match) ≥ 1 − δ at the printed k"
CORRECTED_K_BOUND = "P(match) ≥ (E[1 − (1 − p^d)^k])^{c2t}"


def k_checks(bound: str, lower_bound, k_rule: Callable = printed_k) -> tuple[Check, Check]:
    """``bound`` at the k of ``k_rule``: exactly on EXACT_GRID, by Monte Carlo on MC_GRID."""
    return (exact_k_check(f"{bound} (exact)", lower_bound, k_rule),
            monte_carlo_k_check(f"{bound} (Monte Carlo)", lower_bound, k_rule))


register(Claim(
    id="randfeat2025.thm4_3",
    source=f"{SOURCE}, Sec. 4, Thm 4.3; proof in App. A.2.4",
    hypotheses=("target iid Bern(q), c2t × c0", "features iid Bern(p), c2 = k·c2t rows", "k as printed"),
    checks=k_checks(PRINTED_K_BOUND, printed_lower),
    broken=(Broken("the exponent c0 − 1 for c0 in the formula (fewer groups k)",
                   k_checks(PRINTED_K_BOUND, printed_lower, k_off_by_one_exponent),
                   refuted_by="the first grid case c0 = c2t = 1, p = q = 1/2, δ = 1/16 (k = 1: P = 3/4 < 15/16), and "
                              "c0 = 10, c2t = 1 in the Monte Carlo"),),
    erratum=Erratum("substantive", "the k candidate rows share one random target row, so their matches are not "
                    "independent: the per-row success is E[1 − (1 − p^d)^k] ≤ 1 − (1 − E p^d)^k (Jensen). "
                    "At c0 = c2t = 1, p = q = 1/2, δ = 1/16 the printed k = 2 gives P(match) = 7/8 < 15/16 (exact); "
                    "at c0 = 10, q = 0.3, p = 0.5, δ = 0.05, k = 14 matches with probability ≈ 0.77. No rereading of "
                    "the closed form repairs it.",
                    corrected=("randfeat2025.thm4_3.corrected",)),
))

register(Claim(
    id="randfeat2025.thm4_3.corrected",
    variant_of="randfeat2025.thm4_3",
    label="Thm 4.3, corrected",
    statement="With c2 = k·c2t feature rows, P(match) ≥ (Σ_d C(c0, d) q^d (1 − q)^{c0−d} (1 − (1 − p^d)^k))^{c2t}; "
              "so k suffices when that is ≥ 1 − δ.",
    source=f"{SOURCE}, App. A.2.4 (the partition argument with the per-row success computed exactly)",
    hypotheses=("target iid Bern(q)", "features iid Bern(p)", "any k ≥ 1"),
    checks=(partition_argument_check(corrected_lower_symbolic), *k_checks(CORRECTED_K_BOUND, corrected_lower)),
    broken=(Broken("the proof's per-row success 1 − (1 − a)^k, a = (1 − q(1 − p))^{c0} (Jensen the wrong way)",
                   (partition_argument_check(proof_lower_symbolic), *k_checks(CORRECTED_K_BOUND, proof_lower)),
                   refuted_by="the first grid case c0 = c2t = 1, p = q = 1/2, k = 2: P = 7/8 < 1 − (1/4)² = 15/16; "
                              "c0 = 10, c2t = 1 in the Monte Carlo"),),
    notes="Certified for every c0, c2t, k (scope all): the bound is derived symbolically in the sizes as the "
          "probability of the partition event (target row i matched inside its own group of k feature rows), which "
          "implies a match. The exact P(match) on 5 grid cases (any injective assignment, every mask and target "
          "enumerated) and a Monte Carlo at c0 = 10 corroborate.",
))
