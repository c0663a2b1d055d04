"""Matchings of target rows into feature rows against brute force."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from theorems.maths import matchings

FAST = settings(max_examples=60, deadline=None, database=None, derandomize=True)


def brute_match(target, mask):
    t, f = target.shape[0], mask.shape[0]

    def fits(i, r):
        return bool((mask[r][target[i].astype(bool)]).all())

    return any(all(fits(i, r) for i, r in enumerate(rows)) for rows in itertools.permutations(range(f), t))


@FAST
@given(st.integers(1, 3), st.integers(0, 2), st.integers(1, 3), st.data())
def test_matching_agrees_with_brute_force(t, extra, c0, data):
    target = data.draw(hnp.arrays(np.int64, (t, c0), elements=st.integers(0, 1)))
    mask = data.draw(hnp.arrays(np.int64, (t + extra, c0), elements=st.integers(0, 1)))
    expected = brute_match(target, mask)
    assert (matchings.row_matching(target, mask) is not None) == expected
    assert bool(matchings.matching_exists(matchings.fit_matrix(target, mask))) == expected
    found = matchings.row_matching(target, mask)
    if found is not None:
        assert len(set(found.tolist())) == t
        assert all(mask[r][target[i].astype(bool)].all() for i, r in enumerate(found))


def test_weight_counts_sum_to_the_brute_force_probability():
    target = np.array([[1, 0], [0, 1]])
    counts = matchings.matching_weight_counts(target, 2)
    total = sum(counts)
    brute = sum(brute_match(target, m) for m in matchings.all_masks(2, 2))
    assert total == brute == 7  # 2p² − p⁴ at p = 1/2 is 7/16
    from fractions import Fraction
    assert matchings.weight_polynomial(counts, 4, Fraction(1, 2)) == Fraction(7, 16)
    assert matchings.weight_polynomial(matchings.cover_weight_counts(target, 2), 4, Fraction(1, 2)) == Fraction(9, 16)


def test_more_target_rows_than_feature_rows_never_match():
    assert matchings.row_matching(np.zeros((3, 2)), np.ones((2, 2))) is None


def test_bad_inputs():
    with pytest.raises(ValueError, match="0 and 1"):
        matchings.fit_matrix(np.array([[2]]), np.array([[1]]))
    with pytest.raises(ValueError, match="inputs"):
        matchings.fit_matrix(np.ones((1, 2)), np.ones((1, 3)))
    with pytest.raises(ValueError, match="cells"):
        matchings.all_masks(5, 4)


@FAST
@given(st.integers(1, 3), st.integers(0, 2), st.integers(1, 3), st.data())
def test_exact_programme_agrees_with_the_enumeration_of_masks(t, extra, c0, data):
    from fractions import Fraction

    target = data.draw(hnp.arrays(np.int64, (t, c0), elements=st.integers(0, 1)))
    rows = t + extra
    p = Fraction(2, 7)
    counts = matchings.matching_weight_counts(target, rows)
    by_rows = matchings.matching_probabilities(target, p, rows)
    assert by_rows[rows] == matchings.weight_polynomial(counts, rows * c0, p)
    assert by_rows[:t] == [0] * t  # fewer feature rows than target rows never match
    assert sum(matchings.fit_set_law(target, p)) == 1


def test_exact_programme_edge_cases():
    from fractions import Fraction

    assert matchings.matching_probabilities(np.zeros((0, 2), dtype=np.int64), Fraction(1, 3), 2) == [1, 1, 1]
    assert matchings.union_sizes(np.array([[1, 1, 0], [0, 1, 1]])) == [0, 2, 2, 3]
    with pytest.raises(ValueError, match="target rows"):
        matchings.matching_probabilities(np.ones((7, 1), dtype=np.int64), Fraction(1, 2), 7)
