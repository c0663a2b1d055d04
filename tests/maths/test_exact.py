import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from theorems.maths import exact
from theorems.maths.strategies import EXACT_KINDS, matrices


@given(matrices(st.integers(1, 4), st.integers(1, 4), kinds=EXACT_KINDS))
def test_rank_exact_matches_sympy(a):
    assert exact.rank_exact(a) == sympy.Matrix(a.tolist()).rank()


@given(matrices(st.integers(1, 4), st.integers(1, 4), kinds=EXACT_KINDS).filter(lambda a: a.shape[0] == a.shape[1]))
def test_det_mod_p_matches_sympy(a):
    assert exact.det_mod_p(a) == int(sympy.Matrix(a.tolist()).det()) % exact.CERTIFICATE_PRIME


def test_float_rank_is_exact_not_tolerance_based():
    tiny = np.array([[1.0, 1.0], [1.0, 1.0 + 2.0**-52]])
    assert exact.rank_exact(tiny) == 2  # a float rank with a tolerance would say 1


def test_big_integers_and_fractions():
    from fractions import Fraction

    big = np.array([[2**100, 1], [2**100, 1]], dtype=object)
    assert exact.rank_exact(big) == 1
    assert exact.rank_exact(np.array([[Fraction(1, 3), 1], [1, 3]], dtype=object)) == 1
    assert exact.det_mod_p(np.array([[-1, 0], [0, 1]])) == exact.CERTIFICATE_PRIME - 1


@pytest.mark.parametrize(
    "bad, message",
    [(np.ones(3, dtype=int), "2-D"), (np.ones((2, 2)), "integer"), (np.ones((2, 3), dtype=int), "non-square")],
)
def test_clear_errors(bad, message):
    with pytest.raises(ValueError, match=message):
        exact.det_mod_p(bad)


def test_nan_is_rejected():
    with pytest.raises(ValueError, match="NaN"):
        exact.rank_exact(np.array([[np.nan, 1.0]]))


def test_refutation_only_for_identically_singular_polynomials():
    rng = np.random.default_rng(0)

    def repeated_row():
        row = exact.random_points(rng, (1, 3))
        return np.vstack([row, row, exact.random_points(rng, (1, 3))])

    found = exact.refute_identically_zero(repeated_row, degree=3)
    assert isinstance(found, exact.Refutation) and found.false_refutation_bound < 1e-30
    assert exact.refute_identically_zero(lambda: exact.random_points(rng, (3, 3)), degree=3) != 0
