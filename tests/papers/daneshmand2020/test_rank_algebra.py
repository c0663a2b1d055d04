"""Unit tests for theorems/markov_algebra.py: the exact engines against brute-force oracles,
the float engines against independent computations, input validation, and the paper's
counterexamples reproduced by hand."""

from fractions import Fraction

import numpy as np
import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from theorems.maths import exact
from theorems.maths.bn_chain import effective_rank, fbn_step, gram, project_rows, rank_tau
from theorems.papers.daneshmand2020 import rank_algebra as ma

DETERMINISTIC = settings(max_examples=40, deadline=None, database=None, derandomize=True)


def integer_symmetric(n_max: int = 5):
    return st.integers(1, n_max).flatmap(
        lambda n: hnp.arrays(np.int64, (n, n), elements=st.integers(-3, 3)).map(lambda a: a + a.T)
    )


# --- exact linear algebra --------------------------------------------------------------


@DETERMINISTIC
@given(integer_symmetric())
def test_nonnegative_eigenvalue_count_matches_numpy_and_exact_rank(a):
    eigenvalues = np.linalg.eigvalsh(a.astype(float))
    # Nonzero eigenvalues of these small integer matrices are far from 0; zeros come from the rank.
    expected = int(np.sum(eigenvalues > 1e-6)) + a.shape[0] - exact.rank_exact(a)
    assert ma.nonnegative_eigenvalue_count(exact.fmpq_matrix(a)) == expected


@DETERMINISTIC
@given(hnp.arrays(np.int64, st.tuples(st.integers(1, 5)).map(lambda t: (t[0], t[0])), elements=st.integers(-3, 3)))
def test_power_sums_are_traces_of_powers(a):
    m = exact.fmpq_matrix(a)
    power, expected = m, []
    for _ in range(4):
        expected.append(ma.trace(power))
        power = power * m
    assert ma.power_sums(m, 4) == expected


@DETERMINISTIC
@given(st.integers(1, 6), st.integers(1, 7), st.integers(0, 2**32 - 1), st.floats(0.05, 0.95))
def test_projected_quantities_match_bn_chain_away_from_ties(d, n, seed, tau):
    h = np.random.default_rng(seed).standard_normal((d, n))
    hcal = project_rows(torch.tensor(h))
    eigenvalues = torch.linalg.svdvals(hcal) ** 2 / n
    if torch.min((eigenvalues - tau).abs()) < 1e-9:
        return  # a float tie: the float engine is not the oracle there
    assert ma.projected_rank_tau(h, Fraction(tau)) == int(rank_tau(hcal, tau))
    assert (float(exact.fmpq_to_fraction(ma.projected_effective_rank(h)))
            == pytest.approx(float(effective_rank(hcal)), rel=1e-12))


def test_projected_rank_tau_counts_singular_values_not_padding_zeros():
    h = np.ones((3, 1))  # d > N: M has two zero eigenvalues that are not singular values of H
    assert ma.projected_rank_tau(h, 0) == 1
    assert ma.projected_rank_tau(np.eye(3), 1) == 3  # tie at τ = 1 decided exactly


def test_equal_nonzero_eigenvalues():
    projection = exact.fmpq_matrix(np.array([[1, 1], [1, 1]]))
    assert ma.equal_nonzero_eigenvalues(projection)
    assert not ma.equal_nonzero_eigenvalues(exact.fmpq_matrix(np.diag([1, 2])))
    assert ma.equal_nonzero_eigenvalues(exact.fmpq_matrix(np.diag([3, 0, 3])))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ma.nonnegative_eigenvalue_count(exact.fmpq_matrix(np.ones((2, 3)))), "square"),
        (lambda: ma.nonnegative_eigenvalue_count(exact.fmpq_matrix(np.array([[0, 1], [2, 0]]))), "symmetric"),
        (lambda: ma.projected_rank_tau(np.array([[1, 0], [0, 0]]), 0), "row 1 of H is zero"),
        (lambda: ma.projected_rank_tau(np.eye(2), -1), "tau must be ≥ 0"),
        (lambda: ma.hessian_gamma2_coefficient(torch.ones(3)), "d×N matrix"),
    ],
)
def test_bad_inputs_raise_clear_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- Lemma 12 ---------------------------------------------------------------------------


def test_hessian_coefficient_matches_central_differences():
    """E_W of a quadratic form with iid unit-variance W is Σ_ab of its diagonal: each term is a
    second difference of f along e_ab, independent of torch.func."""
    h = project_rows(torch.tensor(np.random.default_rng(1).standard_normal((3, 4))))

    def f(w):
        return float((gram(fbn_step(h, w, 1.0)) ** 2).sum())

    step, total = 1e-4, 0.0
    for a in range(3):
        for b in range(3):
            e = torch.zeros(3, 3, dtype=torch.float64)
            e[a, b] = step
            total += (f(e) + f(-e) - 2 * f(0 * e)) / step**2
    assert ma.hessian_gamma2_coefficient(h) == pytest.approx(total / 2, rel=1e-5)


def test_symbolic_coefficient_agrees_with_hessian_at_a_point():
    first, second, _m = ma.symbolic_gamma_coefficients(2)
    h = project_rows(torch.tensor([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]], dtype=torch.float64))
    value = float(second.subs(sympy.Symbol("m12"), float(gram(h)[0, 1])))
    assert first == 0
    assert ma.hessian_gamma2_coefficient(h) == pytest.approx(value, rel=1e-10)


def test_antithetic_quotients_are_the_quadratic_form_of_the_hessian():
    """y(γ) = [(f(γW) + f(−γW))/2 − f(0)]/γ² → ½ vec(W)ᵀ Hess vec(W) per sample, with no O(γ) term."""
    h = project_rows(torch.tensor(np.random.default_rng(2).standard_normal((3, 5))))
    w = torch.tensor(np.random.default_rng(3).uniform(-1.7, 1.7, (4, 3, 3)))

    def frobenius_sq(v):
        return (gram(fbn_step(h, v, 1.0)) ** 2).sum()

    hessian = torch.func.hessian(frobenius_sq)(torch.zeros(3, 3, dtype=torch.float64))
    quadratic = 0.5 * torch.einsum("kab,abcd,kcd->k", w, hessian, w).numpy()
    quotients = ma.antithetic_quotients(h, w, [1e-3])[1e-3]
    assert np.allclose(quotients, quadratic, rtol=1e-4, atol=1e-4)


# --- Prop. 13, Example 16 ---------------------------------------------------------------


@DETERMINISTIC
@given(st.sampled_from([1, 2, 4, 8]).flatmap(lambda d: st.lists(st.fractions(0, 3, max_denominator=4),
                                                                min_size=d, max_size=d)),
       st.integers(0, 2**32 - 1))
def test_flat_eigenbasis_family_has_equal_row_norms_and_its_spectrum(eigenvalues, seed):
    atom = ma.flat_eigenbasis_gram(eigenvalues, seed)
    assert len(set(ma._row_norms_sq(atom.matrix))) == 1
    matrix = np.array([[float(exact.fmpq_to_fraction(x)) for x in row] for row in atom.matrix.tolist()])
    numeric = np.sort(np.linalg.eigvalsh(matrix))
    assert np.allclose(numeric, np.sort([float(x) for x in eigenvalues]))


def test_circulant_family_has_equal_row_norms():
    atom = ma.circulant_gram([3, -1, 0, 2])
    assert len(set(ma._row_norms_sq(atom.matrix))) == 1
    assert ma.with_unit_diagonal(atom).matrix[2, 2] == 1


def test_regularity_constant_is_one_exactly_for_equal_spectra():
    atom = ma.flat_eigenbasis_gram([Fraction(2), Fraction(2), Fraction(0), Fraction(0)], 5)
    assert ma.regularity_constant([atom], [1]) == 1
    other = ma.flat_eigenbasis_gram([Fraction(3), Fraction(1), Fraction(0), Fraction(0)], 5)
    assert ma.regularity_constant([atom, other], [1, 1]) < 1


# --- Lemma 20 ---------------------------------------------------------------------------


def test_spread_spectrum_case_separates_the_soft_rank_factors():
    (_, h), tau = ma.SPREAD_SPECTRUM_CASE
    assert ma.projected_rank_tau(h, tau) == 1
    assert exact.fmpq_to_fraction(ma.projected_effective_rank(h)) == Fraction(25, 17)
