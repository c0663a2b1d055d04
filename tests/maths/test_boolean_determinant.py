"""The Boolean determinant engine against brute-force oracles and published counts."""

import itertools
import math
import time

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import sparse
from sympy.combinatorics import Permutation

from theorems.maths import boolean_determinant
from theorems.maths.boolean_determinant import (
    boolean_matrix,
    detbool,
    detbool_recursive,
    detbool_stack,
    enumerate_boolean,
    frobenius_konig_block,
    has_unique_perfect_matching,
    perfect_matching,
    perfect_matchings,
    permanent_term_counts,
    permutation_signs,
)

# OEIS A046747 (singular n×n 0/1 matrices) and A088672 (0/1 matrices with permanent 0).
SINGULAR = {1: 1, 2: 10, 3: 338, 4: 42976, 5: 21040112}
PERMANENT_ZERO = {1: 1, 2: 9, 3: 265, 4: 27713, 5: 10363361}
# OEIS A089482: 0/1 matrices with permanent 1, i.e. exactly one perfect matching.
PERMANENT_ONE = {1: 1, 2: 6, 3: 150, 4: 13032}


def every_matrix(n):
    for bits in itertools.product((0, 1), repeat=n * n):
        yield np.array(bits, dtype=np.int64).reshape(n, n)


def brute_force_terms(mask):
    """Nonzero permanent terms, by the textbook definition."""
    n = len(mask)
    return sum(all(mask[sigma[j], j] for j in range(n)) for sigma in itertools.permutations(range(n)))


def assert_zero_block(mask, block):
    rows, cols = block
    assert len(rows) + len(cols) > len(mask)
    assert not np.asarray(mask, dtype=bool)[np.ix_(rows, cols)].any()


@pytest.mark.parametrize("n", [1, 2, 3])
def test_all_views_agree_on_every_small_matrix(n):
    unique = 0
    for mask in every_matrix(n):
        terms = brute_force_terms(mask)
        expected = int(terms > 0)
        assert detbool_recursive(mask) == detbool(mask) == expected
        assert len(perfect_matchings(mask)) == terms
        matching, block = perfect_matching(mask), frobenius_konig_block(mask)
        if expected:
            assert block is None and sorted(matching) == list(range(n)) and mask[matching, np.arange(n)].all()
        else:
            assert matching is None
            assert_zero_block(mask, block)
        assert has_unique_perfect_matching(mask) == (terms == 1)
        unique += terms == 1
    assert unique == PERMANENT_ONE[n]


def test_four_by_four_counts_match_oeis():
    codes = np.arange(1 << 16)
    masks = ((codes[:, None] >> np.arange(16)) & 1).astype(bool).reshape(-1, 4, 4)
    terms = permanent_term_counts(masks)
    assert np.count_nonzero(terms == 0) == PERMANENT_ZERO[4]
    assert np.count_nonzero(terms == 1) == PERMANENT_ONE[4]
    sample = masks[:: 97]
    assert [detbool_recursive(m) for m in sample] == [int(t > 0) for t in terms[:: 97]]
    assert sum(has_unique_perfect_matching(m) for m in sample) == np.count_nonzero(terms[:: 97] == 1)


@settings(max_examples=120, deadline=None, database=None, derandomize=True)
@given(st.integers(1, 8).flatmap(lambda n: hnp.arrays(np.bool_, (n, n))))
def test_recursive_and_matching_agree(mask):
    value = detbool(mask)
    assert detbool_recursive(mask) == value == int(len(perfect_matchings(mask)) > 0)
    if value == 0:
        assert_zero_block(mask, frobenius_konig_block(mask))


@pytest.mark.parametrize("n", [1, 2, 5, 7])
def test_classical_permanents(n):
    assert len(perfect_matchings(np.ones((n, n), dtype=int))) == math.factorial(n)
    assert len(perfect_matchings(np.eye(n, dtype=int))) == 1
    derangements = round(math.factorial(n) / math.e) if n > 0 else 1
    assert len(perfect_matchings(1 - np.eye(n, dtype=int))) == derangements
    assert detbool(1 - np.eye(n, dtype=int)) == int(n > 1)


def test_permutation_signs_match_sympy():
    permutations = np.array(list(itertools.permutations(range(5))))
    expected = [Permutation(list(p)).signature() for p in permutations]
    assert permutation_signs(permutations).tolist() == expected


def test_inputs_of_every_numeric_kind_and_sparse():
    mask = np.array([[0, 1], [1, 0]])
    forms = (mask, mask.astype(bool), mask.astype(float), mask.astype(np.uint8), sparse.csr_array(mask),
             sparse.coo_matrix(mask))
    for form in forms:
        assert detbool(form) == 1
    assert detbool(sparse.csr_array(np.array([[1, 1], [0, 0]]))) == 0


@pytest.mark.parametrize(
    "bad, message",
    [
        (np.ones(3), "2-D"),
        (np.ones((2, 2, 2)), "2-D"),
        (np.ones((2, 3)), "square"),
        (np.zeros((0, 0)), "empty"),
        (np.array([[1.0, np.nan], [0.0, 1.0]]), "NaN"),
        (np.array([[1, 2], [0, 1]]), "Boolean"),
        (np.array([[1, -1], [0, 1]]), "Boolean"),
        (np.array([[0.5, 1.0], [0.0, 1.0]]), "Boolean"),
        (np.array([["a", "b"], ["c", "d"]]), "dtype"),
    ],
)
def test_bad_masks_are_rejected_with_the_reason(bad, message):
    for function in (detbool, detbool_recursive, perfect_matchings, frobenius_konig_block):
        with pytest.raises(ValueError, match=message):
            function(bad)


def test_bad_sparse_masks_are_rejected():
    with pytest.raises(ValueError, match="Boolean"):
        detbool(sparse.csr_array(np.array([[2, 0], [0, 1]])))
    with pytest.raises(ValueError, match="NaN"):
        detbool(sparse.csr_array(np.array([[np.nan, 0], [0, 1]])))
    with pytest.raises(ValueError, match="square"):
        detbool(sparse.csr_array(np.ones((2, 3))))


def test_exponential_oracles_refuse_large_sizes():
    with pytest.raises(ValueError, match="use detbool"):
        detbool_recursive(np.eye(21, dtype=int))
    with pytest.raises(ValueError, match="permutations"):
        perfect_matchings(np.eye(10, dtype=int))


def test_large_sparse_mask_is_fast_and_certified():
    n = 4096
    rng = np.random.default_rng(0)
    for factor, expected in ((0.5, 0), (4.0, 1)):
        mask = sparse.random_array((n, n), density=factor * np.log(n) / n, rng=rng, format="csr")
        mask.data[:] = 1
        started = time.perf_counter()
        value = detbool(mask)
        assert time.perf_counter() - started < 1.0
        assert value == expected
        if value == 0:
            assert_zero_block(mask.toarray(), frobenius_konig_block(mask))


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_enumeration_matches_brute_force(n):
    counts = enumerate_boolean(n)
    assert counts["total"] == 2 ** (n * n)
    if n <= 3:
        singular = sum(flint.fmpz_mat(n, n, m.ravel().tolist()).det() == 0 for m in every_matrix(n))
        zero = sum(detbool_recursive(m) == 0 for m in every_matrix(n))
        assert (counts["singular"], counts["detbool_zero"]) == (singular, zero)
    assert counts == {"n": n, "total": 2 ** (n * n), "detbool_zero": PERMANENT_ZERO[n], "singular": SINGULAR[n]}


def test_enumeration_of_five_by_five_matches_oeis():
    assert enumerate_boolean(5) == {"n": 5, "total": 2**25, "detbool_zero": PERMANENT_ZERO[5], "singular": SINGULAR[5]}


@pytest.mark.parametrize(
    "n, message",
    [(0, "at least 1"), (-2, "at least 1"), (6, "at most n = 5"), (2.0, "integer"), (True, "integer"),
     ("3", "integer")],
)
def test_enumeration_rejects_impossible_sizes(n, message):
    with pytest.raises(ValueError, match=message):
        enumerate_boolean(n)


def test_boolean_matrix_allows_rectangles_when_asked():
    assert boolean_matrix(np.array([[1, 0, 1]]), square=False).dtype == bool


def test_detbool_stack_equals_detbool_on_every_3x3_mask():
    masks = np.array(list(every_matrix(3)))
    assert detbool_stack(masks).tolist() == [detbool(mask) for mask in masks]


@pytest.mark.parametrize("n", [1, 4, 9, 25])
def test_detbool_stack_equals_detbool_across_chunks(n, monkeypatch):
    # Chunks of three masks: the block-diagonal union is rebuilt several times per stack.
    monkeypatch.setattr(boolean_determinant, "STACK_CHUNK_CELLS", 3 * n * n)
    rng = np.random.default_rng(n)
    masks = rng.random((40, n, n)) < rng.random((40, 1, 1))
    masks[:5] = np.eye(n, dtype=bool)[::-1]  # no zero line, one perfect matching
    values = detbool_stack(masks)
    assert values.dtype == np.int64 and values.tolist() == [detbool(mask) for mask in masks]


def test_detbool_stack_accepts_0_1_numbers_and_empty_stacks():
    assert detbool_stack(np.array([[[1, 0], [0, 1]], [[1, 1], [0, 0]]])).tolist() == [1, 0]
    assert detbool_stack(np.zeros((0, 3, 3), dtype=bool)).tolist() == []


@pytest.mark.parametrize("masks", [np.ones((2, 2, 3)), np.ones((2, 2)), np.zeros((2, 0, 0)), np.full((1, 2, 2), 2)])
def test_detbool_stack_rejects_what_is_not_a_stack_of_square_masks(masks):
    with pytest.raises(ValueError):
        detbool_stack(masks)
