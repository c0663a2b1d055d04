"""Unit tests of the giannou2023 App. A.1–A.3 helpers against independent oracles."""

import numpy as np
import sympy
from hypothesis import given

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


def test_khatri_rao_is_column_wise_kronecker_with_row_major_rows():
    a, b = np.arange(6).reshape(2, 3), np.arange(6, 12).reshape(2, 3)
    product = la.khatri_rao(a, b)
    for k in range(3):
        assert np.array_equal(product[:, k], np.kron(a[:, k], b[:, k]))


def test_exact_matmul_does_not_overflow():
    big = np.array([[2**40]], dtype=np.int64)
    assert la.exact_matmul(big, big)[0, 0] == 2**80


def test_corrected_condition_uses_the_transposed_test_when_l_exceeds_n():
    a = np.array([[1, 0, 0]])
    b = np.array([[1, 0], [0, 1], [0, 0]])  # AB = [1, 0] has full rank 1; null(A) ∩ col(B) ∋ e2
    assert la.product_is_full_rank(a, b)
    assert not la.trivial_intersection(a, b)
    assert la.corrected_condition(a, b)

def test_fact1_pinned_pairs_separate_the_printed_and_the_corrected_remark():
    a, b = la.WIDE_PAIR
    assert la.product_is_full_rank(a, b) and la.null_col_intersection(a, b) == 1
    assert la.remark4_necessity(la.trivial_intersection)(la.WIDE_PAIR) is not None
    assert la.remark4_necessity(la.corrected_condition)(la.WIDE_PAIR) is None
    assert la.fact1_sufficiency(min)(la.TRIVIAL_PAIR) is None


def test_large_profile_widens_the_lemma4_identity():
    from theorems.engine.context import Context

    assert set(la.lemma4_cases(Context("thorough", 0, "cpu"))) < set(la.lemma4_cases(Context("large", 0, "cpu")))


def test_fact1_sweep_finds_the_minimal_counterexample_first():
    from theorems.engine.context import Context
    from theorems.engine.verdicts import Verdict

    outcome = la.fact1_sweep(la.remark4_necessity(la.trivial_intersection), la.fact1_sweep_top)(Context("ci", 0, "cpu"))
    assert outcome.verdict is Verdict.REFUTED
    cx = outcome.counterexample
    assert (cx["n"], cx["m"], cx["l"], cx["intersection_dimension"]) == (1, 3, 2, 1)


def test_canonical_pairs_break_necessity_exactly_when_l_exceeds_n():
    for m in range(2, 6):
        for n in range(1, m):
            for l in range(1, m):
                broken = [k for k, a, b in la.canonical_pairs(n, m, l)
                          if la.product_is_full_rank(a, b) and not la.trivial_intersection(a, b)]
                assert bool(broken) == (l > n)


def test_thm6_symbolic_sizes_identities_vanish_and_their_near_misses_do_not():
    assert la.kr_kron_difference(False)()[0] == 0 and la.kr_kron_difference(True)()[0] != 0
    assert la.kr_hadamard_difference(lambda b, d: b * d)()[0] == 0
    assert la.kr_hadamard_difference(lambda b, d: b * d, crossed=True)()[0] != 0
