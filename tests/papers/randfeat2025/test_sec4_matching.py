"""Matching probabilities of Thm 4.2/4.3 against hand computations."""

from fractions import Fraction

import numpy as np
import sympy

from theorems.papers.randfeat2025 import sec4_matching as mt


def test_identity_target_polynomial_is_2p2_minus_p4():
    poly = mt.matching_polynomial(((0, 1), (1, 0)))
    assert sympy.expand(poly.as_expr() - (2 * mt.P**2 - mt.P**4)) == 0
    cover = mt.cover_polynomial(((0, 1), (1, 0)))
    assert sympy.expand(cover - (2 * mt.P - mt.P**2) ** 2) == 0


def test_sign_decision_is_exact():
    assert mt.nonnegative_on_unit_interval(sympy.Poly(mt.P**2 * (1 - mt.P) ** 2, mt.P)) == (True, None)
    product = (mt.P - sympy.Rational(1, 3)) * (mt.P - sympy.Rational(1, 2))
    ok, witness = mt.nonnegative_on_unit_interval(sympy.Poly(product, mt.P))
    assert not ok and sympy.Rational(1, 3) < witness < sympy.Rational(1, 2)


def test_thm4_3_minimal_counterexample_and_corrected_success():
    half = Fraction(1, 2)
    k = mt.printed_k(1, 1, half, half, Fraction(1, 16))
    assert k == 2
    assert mt.exact_match_probability(1, 1, 2, half, half) == Fraction(7, 8)
    assert mt.corrected_lower(1, 1, 2, half, half) == Fraction(7, 8)
    assert mt.printed_success(1, half, half, 2) == Fraction(15, 16)


def test_monte_carlo_targets_have_their_structure():
    targets = mt.mc_targets(6)
    assert (targets["disjoint pairs"].sum(axis=0) <= 1).all()
    assert (targets["identical rows (d = 2)"].sum(axis=1) == 2).all()
    assert np.array_equal(targets["disjoint singletons"], np.eye(6, dtype=bool))


def test_partition_check_derives_the_corrected_bound_and_refutes_the_proofs():
    assert mt.partition_failure(mt.corrected_lower, (2, 2)) is None
    # at c2t = 1 the one group is every feature row: the row success is the match itself
    point = {mt.P: sympy.Rational(1, 3), mt.Q: sympy.Rational(1, 2)}
    enumerated = mt.exact_match_probability(2, 1, 2, Fraction(1, 3), Fraction(1, 2))
    assert mt.row_success(2, 2).subs(point) == sympy.Rational(enumerated)
    assert mt.partition_failure(mt.proof_lower, (1, 1)) is None  # Jensen is an equality for one row
    assert "7/8 < bound 15/16" in mt.partition_failure(mt.proof_lower, (1, 2))


def test_bound_search_decides_targets_past_the_sweep():
    assert mt.bound_failure(mt.product_bound, np.eye(4, dtype=np.int64)) is None
    assert mt.bound_failure(mt.greedy_bound, np.eye(4, dtype=np.int64)) is not None
    empty_rows = np.array([[1, 0], [0, 0], [0, 0]])  # empty rows take any leftover feature row
    assert sympy.expand(mt.dp_matching_polynomial(empty_rows, 3).as_expr() - (1 - (1 - mt.P) ** 3)) == 0
