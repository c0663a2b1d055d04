"""The special target of Fig. 1(e): enumeration of targets, exact matching probabilities, the k rules."""

from fractions import Fraction

import numpy as np
import pytest
import sympy

from theorems.papers.randfeat2025 import sec4_matching as mt
from theorems.papers.randfeat2025 import sec4_special_target as st

HALF = Fraction(1, 2)


def test_degree_sequences_and_targets_up_to_permutations():
    assert list(st.degree_sequences(2, 2)) == [(0, 0), (1, 0), (1, 1), (2, 0)]
    # (1, 1): disjoint {0},{1} or identical {0},{0}; (2, 1): {0,1},{2} or nested {0,1},{0}
    assert len(st.targets_with_degrees((1, 1))) == 2 and len(st.targets_with_degrees((2, 1))) == 2
    assert sum(map(st.is_disjoint, st.targets_with_degrees((2, 1, 1)))) == 1


def test_programme_agrees_with_the_enumeration_of_masks():
    for degrees in ((1, 1), (2, 1), (1, 1, 1), (2, 2, 1)):
        for target in st.targets_with_degrees(degrees):
            if len(degrees) * len(target) <= 9:
                assert st.match_polynomial(target, len(degrees)) == st.brute_force_polynomial(target, len(degrees))
    identity = st.as_sympy(st.match_polynomial((1, 2), 2)).as_expr()
    assert sympy.expand(identity - (2 * mt.P**2 - mt.P**4)) == 0


def test_two_rows_disjoint_is_best_by_the_closed_form():
    # c2 = 2: P = 2p^(d1+d2) − p^(2|S1 ∪ S2|), largest when the union is largest (disjoint)
    for target in st.targets_with_degrees((2, 1)):
        union = len(target)
        expected = 2 * mt.P**3 - mt.P ** (2 * union)
        assert sympy.expand(st.as_sympy(st.match_polynomial(target, 2)).as_expr() - expected) == 0


def test_same_edge_count_near_miss():
    concentrated = st.as_sympy(st.match_polynomial((1, 1), 3)).eval(HALF)    # {0, 1}, ∅, ∅
    spread = st.as_sympy(st.match_polynomial((1, 2), 3)).eval(HALF)          # {0}, {1}, ∅
    assert concentrated == sympy.Rational(37, 64) < spread == sympy.Rational(23, 32)


def test_maximizers_and_the_domination_decision():
    assert st.disjoint_target((2, 1)) in st.targets_with_degrees((2, 1)) and st.is_disjoint(st.disjoint_target((2, 1)))
    identical = st.nested_target((1, 1))
    assert st.supports(identical, 2) == [[0], [0]]
    assert st.domination_failure(st.disjoint_target, 2, (1, 1), identical) is None
    assert st.domination_failure(st.nested_target, 2, (1, 1), st.disjoint_target((1, 1))) is not None
    assert st.columns_of([[0], [1]]) == st.disjoint_target((1, 1))
    # empty rows are left out of the programme: 7 outputs, 2 with edges
    assert st.match_polynomial(st.columns_of([[0], [1], [], [], [], [], []]), 7) is not None


def test_competitors_keep_the_in_degrees():
    rows = st.competitors((3, 2, 1), np.random.default_rng(0))
    for supports in rows.values():
        assert sorted(map(len, supports), reverse=True) == [3, 2, 1]
    assert len(set().union(*map(set, rows["disjoint"]))) == 6
    assert rows["one shared column"][1][0] == rows["one shared column"][0][0]


def test_fig1e_minimal_counterexample():
    curve = st.match_curve(1, 1, HALF)
    assert [curve.at(k) for k in (1, 2, 3, 4)] == [1 - HALF**k for k in (1, 2, 3, 4)]
    delta = Fraction(1, 10)
    assert st.printed_k(1, 1, HALF, delta) == 2 and curve.at(2) == Fraction(3, 4) < 1 - delta
    assert curve.least_sufficient_k(delta) == 4 == st.cover_k(1, 1, HALF, delta) == st.partition_k(1, 1, HALF, delta)
    assert st.sandwich_failure(st.cover_k, st.partition_k, (1, 1, HALF, delta)) is None
    assert st.sandwich_failure(st.cover_k_plus_one, st.partition_k, (1, 1, HALF, delta)) is not None


def test_fig1e_bounds_and_the_cover_identity():
    p = Fraction(2, 3)
    assert st.cover_probability(2, 1, p, 1) == (2 * p - p**2) ** 2
    curve = st.match_curve(2, 1, p)
    assert curve.at(1) == 2 * p**2 - p**4 == Fraction(56, 81)
    for delta in (Fraction(1, 4), Fraction(1, 20)):
        k_star = curve.least_sufficient_k(delta)
        assert st.cover_k(2, 1, p, delta) <= k_star <= st.partition_k(2, 1, p, delta)
    # the printed k stays 1 while δ → 0; the exact k grows
    table = st.delta_to_zero(st.printed_k, 1)
    assert {row["k"] for row in table} == {1} and table[-1]["k_star"] > table[0]["k_star"] + 5



@pytest.mark.parametrize("degrees", [(1,), (2, 1), (1, 1, 1), (3, 1, 2), (2, 2, 1, 0), (1, 3, 3, 2)])
def test_the_targets_are_built_canonical_without_trying_every_row_order(degrees):
    disjoint_rows = [list(range(sum(degrees[:i]), sum(degrees[:i + 1]))) for i in range(len(degrees))]
    nested_rows = [list(range(d)) for d in degrees]
    assert st.disjoint_target(degrees) == st.columns_of(disjoint_rows)
    assert st.nested_target(degrees) == st.columns_of(nested_rows)
