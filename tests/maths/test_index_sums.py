"""Index identities at symbolic sizes: proved range conditions, and unproved ones left open;
flat indices split by quotient and remainder; sums over independent indices as power sums."""

import pytest
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


def test_a_flat_index_splits_into_quotient_and_remainder_once_the_remainder_is_in_range():
    q, s, r = index_sums.nonnegative_integers("q s r")
    flat = q * s + r
    parts = index_sums.quotient(flat, s), sympy.Mod(flat, s)
    # without 0 ≤ r < s sympy cannot reduce Mod(q·s + r, s)
    assert parts[1] != r
    assert [index_sums.with_remainder_below(part, s, r) for part in parts] == [q, r]


def test_with_remainder_below_reduces_only_what_the_hypothesis_covers():
    s, r, q, x = *index_sums.nonnegative_integers("s r q"), sympy.Symbol("x")
    assert index_sums.with_remainder_below(x * s + r, s, r) == x * s + r  # no Mod: nothing to do
    assert index_sums.with_remainder_below(sympy.Mod(q * s + r + 1, s), s, r) == sympy.Mod(q * s + r + 1, s)
    assert index_sums.with_remainder_below(sympy.Mod(x * s + r, s), s, r) == sympy.Mod(x * s + r, s)  # x not integer


def test_independent_index_sum_factors_over_independent_indices():
    k, (x, y) = sympy.Symbol("k"), sympy.symbols("x y")
    p1, p2 = index_sums.power_sum("λ", 1, k), index_sums.power_sum("λ", 2, k)
    assert index_sums.independent_index_sum(x * y, [x, y], k, "λ") == sympy.expand(p1**2)
    assert index_sums.independent_index_sum(x**2, [x, y], k, "λ") == sympy.expand(k * p2)  # y absent: Σ_j 1 = k
    assert index_sums.independent_index_sum(sympy.Integer(3), [x], k, "λ") == 3 * k


@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_independent_index_sum_agrees_with_explicit_sums_at_concrete_sizes(size):
    k, (x, y) = sympy.Symbol("k"), sympy.symbols("x y")
    values = sympy.symbols(f"v1:{size + 1}")
    summand = x**3 * y - 2 * x**2 * y**2 + 5 * x
    explicit = sum(summand.subs({x: a, y: b}, simultaneous=True) for a in values for b in values)
    symbolic = index_sums.independent_index_sum(summand, [x, y], k, "λ").subs(
        {k: size, **{index_sums.power_sum("λ", p, k): sum(v**p for v in values) for p in range(1, 5)}})
    assert sympy.expand(symbolic - explicit) == 0
