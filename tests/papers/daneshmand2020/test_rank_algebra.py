"""Unit tests for theorems/markov_algebra.py: the exact engines against brute-force oracles,
the float engines against independent computations, input validation, and the paper's
counterexamples reproduced by hand."""

import itertools
from fractions import Fraction

import flint
import numpy as np
import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from theorems.engine.context import Context
from theorems.engine.verdicts import Verdict
from theorems.maths import exact
from theorems.maths.bn_chain import effective_rank, fbn_step, gram, project_rows, rank_tau
from theorems.papers.daneshmand2020 import rank_algebra as ma

CTX = Context("ci", 7, "cpu", "daneshmand2020.test", "test")
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
    assert ma.regularity_constant(*ma.mixture_means([atom], [1])) == 1
    other = ma.flat_eigenbasis_gram([Fraction(3), Fraction(1), Fraction(0), Fraction(0)], 5)
    assert ma.regularity_constant(*ma.mixture_means([atom, other], [1, 1])) < 1


# --- Lemma 20 ---------------------------------------------------------------------------


def test_spread_spectrum_case_separates_the_soft_rank_factors():
    (_, h), tau = ma.SPREAD_SPECTRUM_CASE
    assert ma.projected_rank_tau(h, tau) == 1
    assert exact.fmpq_to_fraction(ma.projected_effective_rank(h)) == Fraction(25, 17)


# --- the index calculus of Lemma 12 ------------------------------------------------------


def _graph_value(graph, m: list[list[Fraction]]) -> Fraction:
    """Σ over every map of the graph's vertices to {0, …, d−1} of Π_edges m_ab (brute force)."""
    d = len(m)
    vertices = sorted({x for edge in graph for x in edge})
    total = Fraction(0)
    for image in itertools.product(range(d), repeat=len(vertices)):
        at = dict(zip(vertices, image, strict=True))
        term = Fraction(1)
        for a, b in graph:
            term *= m[at[a]][at[b]]
        total += term
    return total


def test_index_calculus_agrees_with_the_explicit_derivation_at_d_3():
    """The symbolic-d coefficients, evaluated at d = 3 and a rational unit-diagonal M by brute-force
    sums over the index maps, equal the explicit sympy derivation on 3 × 3 matrices."""
    d = sympy.Symbol("d")
    first, second = ma.index_gamma_coefficients(d)
    off = {(0, 1): Fraction(1, 3), (0, 2): Fraction(-2, 5), (1, 2): Fraction(3, 7)}
    m = [[Fraction(1) if i == j else off[min(i, j), max(i, j)] for j in range(3)] for i in range(3)]

    def evaluate(coefficients) -> sympy.Expr:
        return sum(value.subs(d, 3) * sympy.Rational(_graph_value(graph, m)) for graph, value in coefficients.items())

    explicit_first, explicit_second, _ = ma.symbolic_gamma_coefficients(3)
    at_m = {sympy.Symbol(f"m{i + 1}{j + 1}"): sympy.Rational(v) for (i, j), v in off.items()}
    assert first == {}
    assert explicit_first == 0
    assert sympy.simplify(evaluate(second) - explicit_second.subs(at_m)) == 0


def test_canonical_graph_identifies_relabelled_multigraphs():
    triangle = ma._canonical_graph([(5, 7), (7, 9), (9, 5)])
    assert triangle == ma._canonical_graph([(1, 2), (3, 1), (2, 3)])
    assert triangle != ma._canonical_graph([(1, 2), (1, 2), (1, 3)])
    assert ma._canonical_graph([]) == ()


def test_index_delta_f_names_the_four_graphs():
    d = sympy.Symbol("d")
    delta, nonlinear = ma.index_delta_f(ma.delta_f, d)
    assert {ma.GRAPH_NAMES[g]: v for g, v in delta.items()} == {
        "d^k": 2 * d**2, "‖M‖_F²": -2, "Tr(M³)": -8, "Tr(diag(M²)²)": 8}
    assert nonlinear == 0


def test_index_delta_f_keeps_what_is_not_linear_in_the_invariants():
    d = sympy.Symbol("d")
    _, nonlinear = ma.index_delta_f(lambda d, frobenius_sq, trace_cube, diag_square: frobenius_sq**2 + d, d)
    assert nonlinear == sympy.Symbol("F") ** 2


def test_expected_contraction_rejects_fourth_moments():
    term = ma.IndexTerm(1, frozenset({1, 2}), (("w", 1, 2),) * 4)
    with pytest.raises(ValueError, match="second moments"):
        ma.expected_contraction([term], sympy.Symbol("d"))


# --- exhaustive sweeps ------------------------------------------------------------------


def test_compositions_and_pattern_counts():
    assert sorted(ma.compositions(3)) == [(1, 1, 1), (1, 2), (2, 1), (3,)]
    assert all(len(ma.compositions(k)) == 2 ** (k - 1) for k in range(1, 7))
    # Σ_{d, N ≤ 5} (2^min(d, N) − 1), the count the notes of lemma1.corrected state.
    assert len(ma.singular_value_patterns(5)) == 141


@pytest.mark.parametrize("pattern", [ma.SingularValuePattern(3, 4, (2, 1)), ma.SingularValuePattern(4, 2, (1, 1)),
                                     ma.SingularValuePattern(1, 1, (1,))])
def test_singular_value_pattern_has_the_stated_rank_and_spectrum(pattern):
    h = pattern.matrix()
    g = exact.fmpq_matrix(h) * exact.fmpq_matrix(h).transpose()
    sigma_sq = [v * v for v, c in enumerate(pattern.multiplicities, start=1) for _ in range(c)]
    assert exact.rank_exact(h) == sum(pattern.multiplicities)
    assert ma.power_sums(g, 2) == [sum(sigma_sq), sum(x * x for x in sigma_sq)]


def test_rational_orthogonal_is_orthogonal():
    q = ma.rational_orthogonal(4, 7)
    assert q * q.transpose() == ma.diagonal_matrix([flint.fmpq(1)] * 4)


def test_spectra_on_grid_are_the_partitions_of_d():
    spectra = ma.spectra_on_grid(2, 4)
    assert len(spectra) == 5  # 8 = 8 + 0 = 7 + 1 = 6 + 2 = 5 + 3 = 4 + 4, in quarters
    assert all(sum(s) == 2 and list(s) == sorted(s, reverse=True) and min(s) >= 0 for s in spectra)


def test_soft_rank_readings_differ_at_a_tie():
    """λ = (3/2, 1/2), τ = 1/2: ≥ counts 2, > counts 1; the bound (1/4)·(8/5) holds for both."""
    decide = ma.soft_rank_spectral(ma.soft_rank_bound)
    assert decide(((Fraction(3, 2), Fraction(1, 2)), Fraction(8, 5), Fraction(1, 2))) is None
    dropped = ma.soft_rank_spectral(ma.unweighted_soft_rank_bound)
    assert "> τ" in dropped(((Fraction(3, 2), Fraction(1, 2)), Fraction(8, 5), Fraction(1, 2)))


def test_draws_past_the_sweeps_are_past_them():
    rng = np.random.default_rng(0)
    for _ in range(30):
        pattern = ma.draw_pattern_beyond(rng)
        assert ma.PATTERNS_BEYOND[0] <= max(pattern.rows, pattern.cols) <= ma.PATTERNS_BEYOND[1]
        assert sum(pattern.multiplicities) <= min(pattern.rows, pattern.cols)
        spectrum, ratio, tau = ma.draw_spectrum_beyond(rng)
        assert ma.SPECTRA_BEYOND[0] <= len(spectrum) <= ma.SPECTRA_BEYOND[1] and sum(spectrum) == len(spectrum)
        assert list(spectrum) == sorted(spectrum, reverse=True) and 0 <= tau <= 1
        assert ratio == Fraction(len(spectrum) ** 2) / sum(x * x for x in spectrum)


def test_pinned_configurations_past_the_sweeps_refute_the_broken_objects():
    pattern = ("pattern", ma.RANK_RATIO_PINNED[0][1])
    assert ma.RankRatioStatement(ma.effective_rank, ">").prop(pattern) is not None
    beyond = ("pattern", ma.SingularValuePattern(7, 8, (7,)).matrix())
    assert ma.RankRatioStatement(ma.effective_rank, equality_case=True).prop(beyond) is None
    for broken in (ma.trace_unsquared_rank, ma.inverted_rank):
        assert ma.RankRatioStatement(broken, equality_case=True).prop(beyond) is not None
    spectral = ma.spectral_configuration((Fraction(7),) + (Fraction(1, 4),) * 8, Fraction(1, 4))
    assert ma.soft_rank_spectral(ma.soft_rank_bound)(spectral) is None
    for broken in (ma.unweighted_soft_rank_bound, ma.misplaced_square_soft_rank_bound):
        assert ma.soft_rank_spectral(broken)(spectral) is not None


# --- inequality certificates ------------------------------------------------------------


def test_unit_interval_form_equals_the_polynomial_and_exposes_its_sign():
    t, s = sympy.symbols("t s", real=True)
    p = 1 - t + t**2 / 2  # > 0 on [0, 1], with a negative coefficient in t alone
    form = ma.unit_interval_form(p, t, s)
    assert sympy.expand(form.subs(s, 1 - t) - p) == 0
    assert all(c > 0 for c in sympy.Poly(form, t, s).coeffs())


@pytest.mark.parametrize("bound, proved", [
    (ma.soft_rank_bound, True), (lambda tau, r: (1 - tau) ** 3 * r, True),
    (ma.square_dropped_soft_rank_bound, False), (ma.misplaced_square_soft_rank_bound, False),
    (ma.unweighted_soft_rank_bound, False),
])
def test_soft_rank_slack_proves_exactly_the_bounds_that_hold(bound, proved):
    outcome = ma.soft_rank_certificate(bound, ma.SOFT_RANK_HYPOTHESES).run(CTX)
    assert (outcome.verdict is Verdict.CERTIFIED) is proved


def test_soft_rank_certificate_needs_each_hypothesis():
    """Without τ ≤ 1 (σ = 1 − τ unproved) or rank_τ's definition (C unproved), or Tr M = d, the genuine bound is
    not certified: the extremal spectra hold, so the check is inconclusive."""
    for dropped in range(len(ma.SOFT_RANK_HYPOTHESES)):
        kept = ma.SOFT_RANK_HYPOTHESES[:dropped] + ma.SOFT_RANK_HYPOTHESES[dropped + 1:]
        outcome = ma.soft_rank_certificate(ma.soft_rank_bound, kept).run(CTX)
        assert outcome.verdict is Verdict.INCONCLUSIVE, str(ma.SOFT_RANK_HYPOTHESES[dropped])


def test_extremal_spectra_refute_each_stronger_bound():
    for bound in (ma.square_dropped_soft_rank_bound, ma.misplaced_square_soft_rank_bound,
                  ma.unweighted_soft_rank_bound):
        assert any(ma.soft_rank_spectral(bound)(case) for case in ma.EXTREMAL_SPECTRA)
    assert not any(ma.soft_rank_spectral(ma.soft_rank_bound)(case) for case in ma.EXTREMAL_SPECTRA)
