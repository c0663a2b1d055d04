"""Unit tests of the giannou2023 App. A.1–A.3 helpers against independent oracles."""

import numpy as np
import sympy
from hypothesis import given

from theorems.maths.khatri_rao import khatri_rao
from theorems.papers.giannou2023 import app_a_linear_algebra as la


def brute_solution_count(a, b):
    """Oracle via sympy's own solver."""
    x = sympy.symbols(f"x0:{a.shape[1]}")
    solutions = sympy.linsolve((sympy.Matrix(a.tolist()), sympy.Matrix(b.tolist())), *x)
    if solutions == sympy.EmptySet:
        return "none"
    (solution,) = solutions
    return "infinite" if any(entry.free_symbols for entry in solution) else "unique"


@given(la.linear_systems())
def test_witness_solution_count_matches_sympy(system):
    assert la.solution_count_by_witness(*system) == brute_solution_count(*system)


def test_intersection_dimension_on_a_hand_example():
    a = np.array([[1, 0, 0]])
    b = np.array([[0, 0], [1, 0], [0, 1]])  # col(B) = span(e2, e3) = null(A)
    assert la.null_col_intersection(a, b) == 2
    assert la.null_col_intersection(a, np.array([[1], [0], [0]])) == 0


def test_khatri_rao_rule_is_scipys_column_wise_kronecker():
    a, b = np.arange(6).reshape(2, 3), np.arange(6, 15).reshape(3, 3)
    product = la.khatri_rao_matrix(la.khatri_rao_entries, a, b)
    assert np.array_equal(product, khatri_rao(a, b))
    for k in range(3):
        assert np.array_equal(product[:, k], np.kron(a[:, k], b[:, k]))


def test_kron_rule_is_numpys_kron_and_the_broken_rules_differ():
    a, b = np.arange(6).reshape(2, 3), np.arange(6, 10).reshape(2, 2)
    assert np.array_equal(la.kron_matrix(la.kron_entries, a, b), np.kron(a, b))
    assert np.array_equal(la.kron_matrix(la.swapped_kron_entries, a, b), np.kron(b, a))
    assert not np.array_equal(la.khatri_rao_matrix(la.kronecker_sum_entries, a[:, :2], b), khatri_rao(a[:, :2], b))


def test_vec_rules_are_row_and_column_major():
    w = np.arange(6).reshape(2, 3)
    assert np.array_equal(la.vec_of(la.row_major_position, w).ravel(), w.ravel())
    assert np.array_equal(la.vec_of(la.column_major_position, w).ravel(), w.T.ravel())


def test_exact_matmul_does_not_overflow():
    big = np.array([[2**40]], dtype=np.int64)
    assert la.exact_matmul(big, big)[0, 0] == 2**80


def pair_holds(condition, pair):
    return la.holds(condition, *pair)


def test_corrected_condition_uses_the_transposed_test_when_l_exceeds_n():
    a = np.array([[1, 0, 0]])
    b = np.array([[1, 0], [0, 1], [0, 0]])  # AB = [1, 0] has full rank 1; null(A) ∩ col(B) ∋ e2
    assert la.product_is_full_rank(a, b)
    assert not pair_holds(la.trivial_intersection, (a, b))
    assert pair_holds(la.corrected_condition, (a, b))


def test_fact1_pinned_pairs_separate_the_printed_and_the_corrected_remark():
    a, b = la.WIDE_PAIR
    assert la.product_is_full_rank(a, b) and la.null_col_intersection(a, b) == 1
    assert la.fact1_statement(la.min_rank, la.trivial_intersection)(la.WIDE_PAIR) is not None
    assert la.fact1_statement(la.min_rank, la.corrected_condition)(la.WIDE_PAIR) is None
    assert la.fact1_statement(la.min_rank, la.trivial_intersection)(la.TRIVIAL_PAIR) is None


def test_large_profile_widens_the_lemma4_identity():
    from theorems.engine.context import Context

    assert set(la.lemma4_cases(Context("thorough", 0, "cpu"))) < set(la.lemma4_cases(Context("large", 0, "cpu")))


def test_fact1_sweep_finds_the_minimal_counterexample_first():
    from theorems.engine.context import Context
    from theorems.engine.verdicts import Verdict

    statement = la.fact1_statement(la.min_rank, la.trivial_intersection)
    outcome = la.fact1_sweep(statement, la.fact1_sweep_top)(Context("ci", 0, "cpu"))
    assert outcome.verdict is Verdict.REFUTED
    cx = outcome.counterexample
    assert (cx["n"], cx["m"], cx["l"], cx["intersection_dimension"]) == (1, 3, 2, 1)


def test_fact1_reduction_certifies_the_corrected_reading_and_refutes_the_printed_one():
    from theorems.engine.context import Context
    from theorems.engine.verdicts import ALL_SIZES, Verdict

    corrected = la.fact1_reduced(la.min_rank, la.corrected_condition, la.fact1_sweep_top)(Context("quick", 0, "cpu"))
    assert corrected.verdict is Verdict.CERTIFIED and corrected.scope == ALL_SIZES
    printed = la.fact1_reduced(la.min_rank, la.trivial_intersection, la.fact1_sweep_top)(Context("quick", 0, "cpu"))
    assert printed.verdict is Verdict.REFUTED
    assert (printed.counterexample["n"], printed.counterexample["m"], printed.counterexample["l"]) == (1, 3, 2)


def test_canonical_pairs_break_necessity_exactly_when_l_exceeds_n():
    for m in range(2, 6):
        for n in range(1, m):
            for l in range(1, m):
                broken = [k for k, a, b in la.canonical_pairs(n, m, l)
                          if la.product_is_full_rank(a, b) and not pair_holds(la.trivial_intersection, (a, b))]
                assert bool(broken) == (l > n)


def test_random_pairs_past_the_sweep_are_full_rank_and_past_the_bound():
    rng = np.random.default_rng(0)
    for _ in range(5):
        a, b = la.random_full_rank_pair(rng, 6)
        assert 6 < a.shape[1] <= 12 and la.rank_nullity_failure(a, b) is None
        assert la.exact.rank_exact(a) == a.shape[0] and la.exact.rank_exact(b) == b.shape[1]


def test_thm6_symbolic_sizes_identities_vanish_and_their_near_misses_do_not():
    assert la.kr_kron_difference(la.khatri_rao_entries, la.kron_entries)()[0] == 0
    assert la.kr_kron_difference(la.khatri_rao_entries, la.swapped_kron_entries)()[0] != 0
    assert la.kr_kron_difference(la.kronecker_sum_entries, la.kron_entries)()[0] != 0
    assert la.kr_hadamard_difference(la.khatri_rao_entries)()[0] == 0
    assert la.kr_hadamard_difference(la.kronecker_sum_entries)()[0] != 0


def test_lemma4_symbolic_sizes_identity_evaluates_the_rules():
    assert la.lemma4_general_difference(la.row_major_position, la.khatri_rao_entries)()[0] == 0
    assert la.lemma4_general_difference(la.column_major_position, la.khatri_rao_entries)()[0] != 0


def test_kron_block_form_holds_for_the_rule_and_fails_for_the_sum():
    assert la.kron_block_difference(la.kron_entries) == 0
    assert la.kron_block_difference(la.kronecker_sum_entries_full) != 0
    assert la.kron_mixed_difference(la.kron_entries)()[0] == 0


def test_rank_normal_forms_have_their_rank_and_refute_the_near_miss():
    from theorems.maths import exact
    assert exact.rank_exact(la.rank_normal_form(3, 2, 2)) == 2
    assert exact.rank_exact(la.rank_normal_form(2, 3, 0)) == 0
    identity = la.rank_normal_form(2, 2, 2)
    near_miss = la.kron_rank_statement(la.kron_entries, lambda rank_a, rank_b: rank_a + rank_b - 1)
    assert near_miss((identity, identity)) is not None
    assert all(near_miss(pair) is None for pair in la.normal_form_pairs()
               if 1 in (exact.rank_exact(pair[0]), exact.rank_exact(pair[1])))
