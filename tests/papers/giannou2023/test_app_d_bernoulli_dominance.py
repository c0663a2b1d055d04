"""The Lemma 10 engine against brute-force oracles, and the column Monte Carlo's pieces."""

import operator
import pickle
from fractions import Fraction

import flint
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from theorems.engine.context import Context
from theorems.errors import ClaimDefinitionError
from theorems.maths.boolean_determinant import detbool
from theorems.maths.khatri_rao import khatri_rao
from theorems.papers.giannou2023 import app_d_bernoulli_dominance as bd
from theorems.papers.giannou2023 import bernoulli_polynomials as bp

P = bp.P
QUICK = settings(max_examples=40, deadline=None, database=None, derandomize=True)


def _subsets(max_d: int):
    return st.integers(1, max_d).flatmap(lambda d: st.tuples(st.just(d), st.sets(st.integers(0, d * d - 1))))


rationals = st.fractions(0, 1, max_denominator=50)


# --- input validation ------------------------------------------------------------------


@pytest.mark.parametrize("d", [0, -1, 2.0, True, "3"])
def test_support_graph_rejects_bad_d(d):
    with pytest.raises(ValueError, match="positive integer"):
        bp.support_graph([0], d)


@pytest.mark.parametrize("subset, message", [([4], "lie in"), ([-1], "lie in"), ([1, 1], "repeated")])
def test_support_graph_rejects_bad_subsets(subset, message):
    with pytest.raises(ValueError, match=message):
        bp.support_graph(subset, 2)


@pytest.mark.parametrize("graph, message", [(np.ones(3), "2-D"), (np.full((2, 2), 2), "0/1"),
                                            (np.full((2, 2), np.nan), "0/1")])
def test_biadjacency_rejects_bad_graphs(graph, message):
    with pytest.raises(ValueError, match=message):
        bp.left_side_polynomial(graph)


def test_subset_of_needs_a_square_grid():
    with pytest.raises(ValueError, match="square"):
        bp.subset_of(np.ones((2, 3), bool))


def test_enumeration_and_histograms_refuse_impossible_sizes():
    with pytest.raises(ValueError, match="d ≤ 6"):
        bp.doubly_lexical_masks(7)
    with pytest.raises(ValueError, match="rows ≤ 16"):
        bp.histograms(np.zeros((1, 17), np.int64), 3)


def test_components_too_large_to_enumerate_are_refused():
    rng = np.random.default_rng(0)
    graph = rng.random((30, 30)) < 0.5  # 30 distinct neighbourhoods on both sides
    with pytest.raises(ValueError, match="too large"):
        bp.left_side_polynomial(graph)


# --- the left side ---------------------------------------------------------------------


@QUICK
@given(_subsets(3), rationals)
def test_left_side_polynomial_matches_brute_force(instance, p):
    d, subset = instance
    polynomial = bp.left_side_polynomial(bp.support_graph(subset, d))
    assert bp.fmpq_value(polynomial, p) == bp.left_side_brute_force(subset, d, p)


@QUICK
@given(_subsets(4))
def test_histogram_path_matches_component_path(instance):
    d, subset = instance
    graph = bp.support_graph(subset, d)
    masks = (graph.astype(np.int64) << np.arange(d)).sum(axis=1)
    coefficients = bp.left_side_coefficients(bp.histograms(masks[None, :], d), d, d)[0]
    assert flint.fmpz_poly([int(c) for c in coefficients]) == bp.left_side_polynomial(graph)


@pytest.mark.parametrize("h, w", [(1, 1), (3, 5), (30, 30), (7, 30)])
def test_complete_bipartite_closed_form(h, w):
    graph = np.zeros((30, 30), bool)
    graph[:h, :w] = True
    off = (1 - P) ** h
    assert bp.left_side_polynomial(graph) == off + (1 - off) * (1 - P) ** w


def test_disjoint_components_multiply():
    graph = np.zeros((30, 30), bool)
    graph[:2, :3] = True
    graph[5, 7] = True
    path = bp.left_side_polynomial(bp.support_graph([0, 1], 2))  # one row, two columns
    expected = ((1 - P) ** 2 + (1 - (1 - P) ** 2) * (1 - P) ** 3) * (1 - P**2)
    assert bp.left_side_polynomial(graph) == expected
    assert path == 1 - P * (1 - (1 - P) ** 2)


def test_proof_step_counterexample_is_exact():
    """The proof bounds the left side by an h×h block; S = {(0,0), (1,0)} has h = 2 and beats it."""
    p = Fraction(1, 2)
    assert bp.left_side_brute_force([0, 2], 2, p) == Fraction(5, 8)
    assert bp.left_side_brute_force([0, 1, 2, 3], 2, p) == Fraction(7, 16)


# --- enumeration -----------------------------------------------------------------------


def _all_signatures(d: int) -> set:
    codes = np.arange(1 << (d * d), dtype=np.int64)
    graphs = ((codes[:, None] >> np.arange(d * d)) & 1).reshape(-1, d, d)
    masks = (graphs << np.arange(d)).sum(axis=2)
    coefficients = bp.left_side_coefficients(bp.histograms(masks, d), d, d)
    return {(int(e), tuple(int(c) for c in row)) for e, row in zip(graphs.sum(axis=(1, 2)), coefficients, strict=True)}


def _padded(left: flint.fmpz_poly, d: int) -> tuple:
    coefficients = [int(c) for c in left.coeffs()]
    return tuple(coefficients + [0] * (2 * d + 1 - len(coefficients)))


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_doubly_lexical_enumeration_covers_every_subset(d):
    enumeration = bp.enumerate_left_sides(d)
    assert {(c.edges, _padded(c.left, d)) for c in enumeration.classes} == _all_signatures(d)


@pytest.mark.parametrize("d", [3, 4])
def test_doubly_lexical_matrices_are_sorted_both_ways(d):
    graphs = bp.masks_to_graph(bp.doubly_lexical_masks(d).ravel(), d).reshape(-1, d, d).astype(np.int64)
    weights = 1 << np.arange(d - 1, -1, -1)
    rows, columns = graphs @ weights, np.einsum("mij,i->mj", graphs, weights)
    assert np.all(rows[:, :-1] >= rows[:, 1:]) and np.all(columns[:, :-1] >= columns[:, 1:])


def test_class_representatives_reproduce_their_polynomials():
    for left in bp.enumerate_left_sides(3).classes:
        assert left.edges == left.representative.sum()
        assert bp.left_side_polynomial(left.representative) == left.left


# --- sign decisions --------------------------------------------------------------------


@pytest.mark.parametrize(
    "poly, negative_somewhere",
    [
        (flint.fmpz_poly(0), False),
        ((2 * P - 1) ** 2, False),  # touches zero at 1/2
        (P**3 * (2 * P - 1) ** 2, False),
        ((2 * P - 1) ** 2 + 1, False),
        (1000000 * (2 * P - 1) ** 2 + 1, False),  # complex roots close to (0, 1)
        (2 * P - 1, True),
        (-(P**2), True),
        ((3 * P - 1) * (3 * P - 2), True),  # negative only on (1/3, 2/3)
        ((1000 * P - 499) * (1000 * P - 501), True),  # a narrow dip
        (1 - P, False),  # zero at p = 1 only
        (P - 1, True),
    ],
)
def test_decide_nonnegative_on_known_polynomials(poly, negative_somewhere):
    decision = bp.decide_nonnegative(poly)
    assert (decision.witness is not None) == negative_somewhere
    if decision.witness is not None:
        assert 0 < decision.witness <= 1 and bp.fmpq_value(poly, decision.witness) < 0


@QUICK
@given(st.lists(st.integers(-20, 20), min_size=1, max_size=7).filter(any))
def test_descartes_bound_is_at_least_the_root_count(coefficients):
    """Descartes: sign changes ≥ roots in (0, 1) counted with multiplicity, of equal parity."""
    g = bp._strip_zero_at_origin(flint.fmpz_poly(coefficients))
    poly = sympy.Poly([int(c) for c in reversed(g.coeffs())], sympy.Symbol("x"))
    roots = sum(1 for r in sympy.real_roots(poly) if 0 < r < 1)
    changes = bp._descartes_sign_changes(g)
    assert changes >= roots and (changes - roots) % 2 == 0


@QUICK
@given(_subsets(3), st.fractions(Fraction(1, 50), 1, max_denominator=50),
       st.sampled_from([Fraction(2), Fraction(1, 3)]))
def test_dominance_gap_has_the_sign_of_right_minus_left(instance, p, constant):
    d, subset = instance
    left = bp.left_side_polynomial(bp.support_graph(subset, d))
    gap = bp.fmpq_value(bp.dominance_gap(left, len(subset), constant, d), p)
    right = (1 - p * p / (constant * d)) ** len(subset)
    difference = right - bp.left_side_brute_force(subset, d, p)
    assert (gap > 0) == (difference > 0) and (gap == 0) == (difference == 0)


@QUICK
@given(_subsets(3), st.fractions(Fraction(1, 50), 1, max_denominator=50),
       st.sampled_from([bd.PRINTED, bd.REVERSED, bd.Q_IS_P_SQUARED]))
def test_statement_gap_has_the_sign_of_holds(instance, p, statement):
    """The gap of the statement's own q and holds, a polynomial in p, against both at a rational p."""
    d, subset = instance
    left = bd.left_side_class(bp.support_graph(subset, d))
    gap = bp.fmpq_value(statement.gap(left, d, bd.P_VARIABLE), p)
    right = (1 - statement.q(p, d)) ** len(subset)
    assert (gap >= 0) == statement.holds(bp.left_side_brute_force(subset, d, p), right)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_statement_q_at_the_variable_is_q_at_every_p(d):
    for statement in (bd.PRINTED, bd.Q_IS_P_SQUARED):
        polynomial = statement.q(bd.P_VARIABLE, d, Fraction(3, 4))
        for p in (Fraction(1, 3), Fraction(7, 10), Fraction(1)):
            assert bd.fmpq_of(polynomial, p) == statement.q(p, d, Fraction(3, 4))
    assert bd.PRINTED.q(Fraction(1, 2), 2) == Fraction(1, 16)
    assert bd.Q_IS_P_SQUARED.q(Fraction(1, 2), 5) == Fraction(1, 4)


@pytest.mark.parametrize("compare", [operator.lt, operator.gt, operator.eq, lambda left, right: True,
                                     lambda left, right: 2 * left <= right])
def test_holds_other_than_a_non_strict_inequality_of_the_sides_is_refused(compare):
    left = bp.enumerate_left_sides(2).classes[-1]
    with pytest.raises(ClaimDefinitionError, match="non-strict inequality"):
        bd.Dominance(bd.PRINTED.constant, compare).gap(left, 2, bd.P_VARIABLE)


@pytest.mark.parametrize("constant", [sympy.sqrt(2), sympy.Integer(0), -1 / bd.D_SYMBOL])
def test_constant_must_be_positive_rational(constant):
    with pytest.raises(ClaimDefinitionError, match="positive rational"):
        bd.Dominance(constant).q(Fraction(1, 2), 3)


# c = 1 holds up to d = 3, c = 0.53 fails at d = 4 (c*(4) ≈ 0.539): a violation past many chunks.
FAILS_AT_D_4 = bd.Dominance(sympy.Piecewise((1, bd.D_SYMBOL < 4), (sympy.Rational(53, 100), True)))


@pytest.mark.parametrize("statement", [bd.PRINTED, bd.REVERSED, bd.Q_IS_P_SQUARED, FAILS_AT_D_4])
def test_exhaustive_evidence_does_not_depend_on_the_chunk_size(monkeypatch, statement):
    ctx = Context("ci", 2023, "cpu", "giannou2023.lemma10", bd.EXHAUSTIVE)  # d ≤ 5: 1057 classes
    recorded = []
    for chunk in (10**9, 1, 3):  # everything in one chunk first
        monkeypatch.setattr(bd, "CLASSES_PER_TASK", chunk)
        outcome = bd.exhaustive_check(statement).run(ctx)
        recorded.append((outcome.verdict, outcome.summary, outcome.evidence, outcome.counterexample))
    assert recorded[1] == recorded[0] and recorded[2] == recorded[0]
    if statement is FAILS_AT_D_4:
        assert recorded[0][3]["d"] == 4 and [row["d"] for row in recorded[0][2]["certified_d"]] == [1, 2, 3]


def test_left_side_classes_pickle_for_cluster_workers():
    left = bp.enumerate_left_sides(3).classes[-1]
    copy = pickle.loads(pickle.dumps(left))
    assert copy.edges == left.edges and copy.left == left.left
    assert np.array_equal(copy.representative, left.representative)


# --- tightness -------------------------------------------------------------------------


def test_single_edge_needs_constant_one_over_d():
    for d in (1, 3, 7):
        for p in (0.1, 0.5, 0.9):
            assert bd.implied_constant(np.log1p(-p * p), 1, p, d) == pytest.approx(1 / d)


def test_tightness_bracket_for_d_2_is_exact_and_tight():
    row = bd.tightness_bracket(2)
    assert row["lower"] < row["upper"] <= row["lower"] * Fraction(1001, 1000)
    assert row["worst_S"] == [0, 1, 2, 3]
    witness, lower = row["witness_p_at_lower"], row["lower"]
    left = bp.left_side_brute_force(row["worst_S"], 2, witness)
    assert (1 - witness**2 / (lower * 2)) ** 4 < left


# --- the column Monte Carlo ------------------------------------------------------------


def test_paired_sign_test_counts_and_direction():
    before = np.array([1, 1, 0, 0, 1, 0], bool)
    after = np.array([1, 0, 1, 1, 0, 0], bool)
    up = bd.paired_sign_test(before, after, 1)
    down = bd.paired_sign_test(before, after, -1)
    assert (up["discordant"], up["against_claim"], down["against_claim"]) == (4, 2, 2)
    strong = bd.paired_sign_test(np.ones(60, bool), np.zeros(60, bool), 1)
    assert strong["p_value"] < 1e-17


def test_zero_after_replacing_matches_a_direct_computation():
    rng, replay = np.random.default_rng(5), np.random.default_rng(5)
    zero = bd.zero_after_replacing(rng, 2, 0.7, 0.2, trials=20, columns=4)
    for trial in range(20):
        product = khatri_rao(replay.random((2, 4)) < 0.7, replay.random((2, 4)) < 0.7)
        replacements = replay.random((4, 4)) < 0.2
        for k in range(5):  # the trials a loop drawing one at a time sees, every k decided
            product[:, :k] = replacements[:, :k]
            assert zero[trial, k] == (detbool(product) == 0)


def test_dense_replacements_end_in_a_full_matrix():
    zero = bd.zero_after_replacing(np.random.default_rng(1), 3, 0.5, 1.0, trials=5, columns=9)
    assert not zero[:, -1].any()


def test_large_profile_adds_d5_replacements():
    from theorems.engine.context import Context

    for plan in (bd.ONE_COLUMN, bd.CHAIN):
        thorough, large = (plan.configs(Context(profile, 0, "cpu")) for profile in ("thorough", "large"))
        assert set(thorough) < set(large) and max(d for d, _ in large) == 5


def test_exact_replacement_polynomials_at_d_1():
    p = bd.P_VARIABLE
    q = bd.PRINTED_REPLACEMENT.density(p, 1)
    assert bd.zero_probability_after_replacing(1, q, 0) == 1 - p * p
    assert bd.zero_probability_after_replacing(1, q, 1) == 1 - q


def test_exact_replacement_polynomial_against_every_mask_pair_at_d_2():
    # Independent of the column-pattern contraction: every A, B ∈ {0,1}^{2×4}, A ⊙ B by khatri_rao,
    # DetBool = 0 by the permanent's terms; at p = 1/2 every pair has probability 2^(-16).
    from theorems.maths.boolean_determinant import permanent_term_counts
    from theorems.papers.giannou2023.app_d_sparse_inverse import all_masks

    masks = all_masks(2, 4)
    products = np.array([khatri_rao(a, b) for a in masks for b in masks])
    zero = int((permanent_term_counts(products) == 0).sum())
    exact = bd.zero_probability_after_replacing(2, bd.PRINTED_REPLACEMENT.density(bd.P_VARIABLE, 2), 0)
    assert bd.fmpq_of(exact, Fraction(1, 2)) == Fraction(zero, 2**16) == Fraction(62155, 65536)
    # With every column replaced it is an iid Bern(q) matrix: P = (#masks with DetBool 0 by weight)·q^w(1−q)^(16−w).
    q = Fraction(1, 16)  # p = 1/2, q = p²/(2d)
    all_4x4 = all_masks(4, 4)
    weights = all_4x4.sum(axis=(1, 2))[permanent_term_counts(all_4x4) == 0]
    expected = sum(q ** int(w) * (1 - q) ** (16 - int(w)) for w in weights)
    replaced = bd.zero_probability_after_replacing(2, bd.PRINTED_REPLACEMENT.density(bd.P_VARIABLE, 2), 4)
    assert bd.fmpq_of(replaced, Fraction(1, 2)) == expected


# --- past the sweeps, and the reduction of the column replacement to Lemma 10 ----------


def test_beyond_sweep_pins_refute_each_broken_dominance():
    (_, d, row), (_, _, grid) = bd.BEYOND_PINNED
    row, grid = bd.left_side_class(row), bd.left_side_class(grid)

    def witness(statement, left):
        return statement.violation(left, d, bd.P_VARIABLE).witness

    assert witness(bd.PRINTED, row) is None and witness(bd.PRINTED, grid) is None
    assert witness(bd.REVERSED, row) is not None
    assert witness(bd.Q_IS_P_SQUARED, grid) is not None


@pytest.mark.parametrize("kind", bd.BEYOND_KINDS)
def test_random_graphs_are_square_boolean(kind):
    rng = np.random.default_rng(7)
    for d in (4, 12):
        graph = bd.random_graph(kind, d, rng)
        assert graph.shape == (d, d) and graph.dtype == bool


def test_reduction_certifies_the_printed_density_only():
    from theorems.engine.context import Context
    from theorems.engine.verdicts import ALL_SIZES, Verdict

    def outcome(statement):
        return bd.reduction_check(statement, "statement").run(Context("quick", 0, "cpu"))

    printed = outcome(bd.PRINTED_REPLACEMENT)
    assert printed.verdict is Verdict.CERTIFIED and printed.scope == ALL_SIZES and printed.relies_on
    reversed_direction = outcome(bd.REVERSED_REPLACEMENT)
    assert reversed_direction.verdict is Verdict.REFUTED and reversed_direction.counterexample["d"] == 1
    assert outcome(bd.MARGINAL_REPLACEMENT).verdict is Verdict.INCONCLUSIVE
    assert outcome(bd.Replacement(lambda p, d: p * p / (4 * d))).verdict is Verdict.CERTIFIED


def test_conditional_step_holds_and_its_pins_refute_each_broken_replacement():
    from theorems.engine.context import Context
    from theorems.engine.verdicts import Verdict

    check = bd.conditional_step_check(bd.PRINTED_REPLACEMENT, "statement")
    assert check.run(Context("quick", 0, "cpu")).verdict is Verdict.SUPPORTED
    for statement, pinned in ((bd.REVERSED_REPLACEMENT, 0), (bd.MARGINAL_REPLACEMENT, 1)):
        refuted = bd.conditional_step_check(statement, "statement").run(Context("quick", 0, "cpu"))
        assert refuted.verdict is Verdict.REFUTED and "pinned" in refuted.summary
        assert refuted.counterexample["configuration"]["M"] == bd.CONDITIONAL_PINNED[pinned][2].astype(int).tolist()


def test_replacement_detectable_effect_is_the_largest_configuration_with_its_power():
    rows = [{"d": 2, "p": 0.6, "detectable_decrease": 0.03}, {"d": 3, "p": 0.7, "detectable_decrease": 0.04}]
    effect = bd.replacement_detectable_effect(rows, 1e-10)
    assert effect["decrease_of_P_zero"] == 0.04 and effect["power"] == 0.9
    assert effect["per_configuration"] == {"d = 2, p = 0.6": 0.03, "d = 3, p = 0.7": 0.04}


def test_thinned_marginal_density_is_exact_on_polynomials_and_floats():
    assert bd.THINNED_MARGINAL_REPLACEMENT.density(bd.P_VARIABLE, 3) == bd.P_VARIABLE**2 * 9 / 10
    assert abs(bd.THINNED_MARGINAL_REPLACEMENT.density(0.7, 3) - 0.441) < 1e-12
