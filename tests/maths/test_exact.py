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


def test_large_matrices_go_through_the_engine(monkeypatch):
    """Above ENGINE_ABOVE the modular LU engine answers; flint (the reference) must agree."""
    from theorems.maths import modular_lu

    monkeypatch.setattr(exact, "ENGINE_ABOVE", 4)
    calls = []
    factor = modular_lu.factor
    monkeypatch.setattr(modular_lu, "factor",
                        lambda a, p=modular_lu.PRIME, device="cpu": calls.append(p) or factor(a, p, device))
    rng = np.random.default_rng(3)
    full = exact.random_points(rng, (9, 9))
    found = exact.nonzero_det_residue(full)
    assert found.prime == modular_lu.PRIME and calls == [modular_lu.PRIME]
    assert found.residue == int(exact.nmod_matrix(full, found.prime).det()) != 0
    assert exact.det_mod_p(full, modular_lu.PRIMES[1]) == int(exact.nmod_matrix(full, modular_lu.PRIMES[1]).det())
    assert exact.det_mod_p(full) == int(exact.nmod_matrix(full).det())  # 2^61 − 1 stays with flint
    assert exact.rank_exact(full) == 9
    low_rank = rng.integers(-9, 10, (9, 3)) @ rng.integers(-9, 10, (3, 8))
    assert exact.rank_exact(low_rank) == sympy.Matrix(low_rank.tolist()).rank() == 3  # deficient: decided over Z
    # A pivot that vanishes modulo the first engine prime only: the next prime certifies.
    p = modular_lu.PRIME
    only_mod_p = np.diag([p, 1, 1, 1, 1, 1]).astype(np.int64)
    found = exact.nonzero_det_residue(only_mod_p)
    assert found.prime == modular_lu.PRIMES[1] and found.residue == p % found.prime
    assert exact.nonzero_det_residue(np.ones((6, 6), dtype=np.int64)) is None
    assert exact.refute_identically_zero(lambda: np.diag(exact.random_points(rng, (6,))), degree=6) != 0


# ---------------------------------------------------------------- rationals: flint and Python


def test_floats_convert_exactly_not_to_a_nearby_simple_rational():
    from fractions import Fraction

    tenth = Fraction(0.1)  # 3602879701896397/36028797018963968, not 1/10
    assert exact.fmpq_to_fraction(exact.to_fmpq(0.1)) == tenth != Fraction(1, 10)
    assert exact.fraction_array(np.array([[0.1, 2]]))[0, 0] == tenth
    assert exact.fmpq_matrix_to_fractions(exact.fmpq_matrix(np.array([[0.1, 2.0]])))[0, 0] == tenth


def test_conversions_round_trip():
    from fractions import Fraction

    import flint

    values = np.array([[Fraction(-7, 3), 2**100], [0, Fraction(1, 2**70)]], dtype=object)
    m = exact.fmpq_matrix(values)
    assert m == flint.fmpq_mat([[flint.fmpq(-7, 3), 2**100], [0, flint.fmpq(1, 2**70)]])
    back = exact.fmpq_matrix_to_fractions(m)
    assert back.dtype == object and back.shape == (2, 2) and np.all(back == values)
    assert all(isinstance(x, Fraction) for x in back.flat)
    entry = m[0, 0]
    assert exact.to_fmpq(entry) is entry  # an fmpq passes through
    assert exact.fmpq_matrix([[entry, 1]])[0, 0] == entry  # as do fmpq entries
    assert exact.fraction_array(np.zeros((0, 3))).shape == (0, 3)
    assert exact.fmpq_matrix_to_fractions(flint.fmpq_mat(0, 3)).shape == (0, 3)


@pytest.mark.parametrize("call, message", [
    (lambda: exact.to_fmpq(float("nan")), "exact value"),
    (lambda: exact.to_fmpq(float("inf")), "exact value"),
    (lambda: exact.fmpq_matrix(np.array([1.0, 2.0])), "2-D"),
    (lambda: exact.fmpq_matrix([]), "2-D"),
    (lambda: exact.fmpq_matrix(np.array([[1.0, np.inf]])), "NaN or infinite"),
    (lambda: exact.fmpq_matrix(np.array([[1, float("nan")]], dtype=object)), "exact value"),
])
def test_values_without_an_exact_rational_are_rejected(call, message):
    with pytest.raises(ValueError, match=message):
        call()
