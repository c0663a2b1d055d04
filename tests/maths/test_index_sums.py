"""Index identities at symbolic sizes: proved range conditions, and unproved ones left open."""

import sympy

from theorems.maths import index_sums

i, j, r_i, r_j, k = index_sums.nonnegative_integers("i j r_i r_j k")
c0, c2 = j + 1 + r_j, i + 1 + r_i


def test_nonnegativity_is_proved_from_coefficients_only():
    assert index_sums.proved_nonnegative(c0 * c2 - 1 - (i * c0 + j))
    assert index_sums.proved_positive(c0)
    assert not index_sums.proved_nonnegative(j - i)  # false for i > j
    assert not index_sums.proved_nonnegative((i - j) ** 2)  # true, but not by its coefficients: unproved
    assert not index_sums.proved_nonnegative(sympy.Symbol("x") ** 2)  # not a nonnegative integer symbol
    assert index_sums.proved_nonnegative(sympy.Integer(0)) and not index_sums.proved_nonnegative(-1)


def test_a_delta_at_a_flat_index_in_range_is_summed_out():
    gamma = sympy.Function("gamma")
    flat = i * c0 + j
    # sympy alone leaves the condition flat ≤ c0·c2 − 1 open
    assert isinstance(sympy.Sum(sympy.KroneckerDelta(k, flat) * gamma(k), (k, 0, c0 * c2 - 1)).doit(),
                      sympy.Piecewise)
    summed = index_sums.index_sum(sympy.KroneckerDelta(k, flat) * gamma(k), (k, 0, c0 * c2 - 1))
    assert sympy.expand(summed - gamma(flat)) == 0


def test_a_delta_possibly_out_of_range_stays_conditional():
    gamma = sympy.Function("gamma")
    # i may exceed c0 − 1 = j + r_j: not proved, so the sum is not evaluated to gamma(i)
    result = index_sums.index_sum(sympy.KroneckerDelta(k, i) * gamma(k), (k, 0, c0 - 1))
    assert result != gamma(i) and result.has(sympy.Piecewise)
