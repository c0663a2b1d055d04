"""Unit tests of the giannou2023 App. A.4–C helpers."""

import functools

import numpy as np
import pytest

from theorems.engine.context import Context
from theorems.engine.verdicts import Verdict
from theorems.papers.giannou2023 import app_a4_c_invertibility as kr


@pytest.mark.parametrize("n, m", [(1, 1), (2, 3), (3, 2)])
def test_lemma6_witness_is_the_identity(n, m):
    a, b = kr.witness_matrices(kr.block_witness, n, m)
    assert np.array_equal(kr.khatri_rao(a, b).astype(int), np.eye(n * m, dtype=int))
    assert np.array_equal(kr.khatri_rao_matrix(kr.khatri_rao_entries, a, b), np.eye(n * m, dtype=int))


@pytest.mark.parametrize("kind", kr.D_KINDS)
def test_adversarial_diagonals_are_nonzero(kind):
    assert np.all(kr.adversarial_diagonal(kind, 7, np.random.default_rng(0)) != 0)


def test_adversarial_targets_are_nonzero():
    for target in kr.adversarial_targets(5, np.random.default_rng(0)).values():
        assert np.any(target != 0)


@pytest.mark.parametrize("n, m", [(1, 2), (2, 2), (2, 3), (3, 2)])
def test_witness_row_permutations_move_every_row_to_every_support_index(n, m):
    for row in range(n * m):
        for support in range(n * m):
            pi_a, pi_c = kr.witness_row_permutations(n, m, row, support)
            moved = np.kron(pi_a.astype(int), pi_c.astype(int)) @ np.eye(n * m, dtype=int)[:, row]
            assert moved[support] == 1 and moved.sum() == 1


def test_unpermuted_witness_fails_exactly_where_the_single_reduction_reading_said():
    # Row 1 with support index 2 at n = 1, m = 2: B = D, so w* = e_2 is orthogonal to row 1 of B⁻¹.
    unpermuted = functools.partial(kr.witness_row_permutations, permute="none")
    outcome = kr.proof_witness_determinants(unpermuted)(Context("quick", 0, "cpu"))
    assert outcome.verdict is Verdict.REFUTED
    assert (outcome.counterexample["n"], outcome.counterexample["m"]) == (1, 2)
    assert (outcome.counterexample["row"], outcome.counterexample["support_index"]) == (1, 2)


def test_symbolic_cramer_detects_an_adapted_target():
    check = kr.symbolic_cramer(kr.nonzero_diagonal, kr.target_chosen_after_b, kr.quantile_law)
    outcome = check(Context("quick", 0, "cpu"))
    assert outcome.verdict is Verdict.REFUTED and outcome.counterexample["row"] == 2


def test_folded_batchnorm_signs():
    scale, shift = kr.folded_batchnorm(-1)(np.array([2.0]), np.array([3.0]), np.array([4.0]), np.array([1.0]))
    assert scale[0] == 0.5 and shift[0] == 1.0 - 1.5


def test_bench_contract():
    from theorems.bench import benchmark_certificate

    row = benchmark_certificate(16, seed=0)
    assert row["det_mod_p_nonzero"] and row["ratio"] > 0
    with pytest.raises(ValueError, match="perfect square"):
        benchmark_certificate(15, seed=0)


@pytest.mark.large
def test_large_khatri_rao_certificate_4096():
    """n = m = 64: the 4096×4096 instance of Lemma 6 (thorough profile and --run-large)."""
    from theorems.bench import benchmark_certificate

    assert benchmark_certificate(4096, seed=0)["det_mod_p_nonzero"]


def test_large_profile_adds_the_8192_certificate_and_caps_it_by_memory(monkeypatch):
    from theorems.engine import resources

    thorough, large = (kr.lemma6_sizes(Context(profile, 0, "cpu")) for profile in ("thorough", "large"))
    assert large[-2:] == [(64, 64), (64, 128)] and large[:-2] == thorough[:-1]
    assert kr.square_factors(16384) == (128, 128)
    monkeypatch.setattr(resources, "available_memory_bytes",
                        lambda device: 2 * kr.CERTIFICATE_BYTES_PER_ENTRY * 4096**2)
    with resources.measured("cpu") as usage:
        capped = kr.lemma6_sizes(Context("large", 0, "cpu", "giannou2023.lemma6", "certificates"))
    assert capped[-1] == (64, 64)
    assert [(cap["wanted"], cap["used"]) for cap in usage["capped"]] == [(8192, 4096)]


def test_large_profile_sizes_grow():
    float_sizes = {profile: kr.lemma8_sizes(Context(profile, 0, "cpu").by_profile(3, 6, 16, 20))
                   for profile in ("thorough", "large")}
    assert set(float_sizes["thorough"]) < set(float_sizes["large"])
    assert kr.remark5_sizes(Context("large", 0, "cpu"))[-1] == (16, 16)


@pytest.mark.parametrize("rule, witness, vanishes", [
    (kr.khatri_rao_entries, kr.block_witness, True),
    (kr.khatri_rao_entries, kr.witness_blocks_n_wide, False),
    (kr.kronecker_sum_entries, kr.block_witness, False),
])
def test_lemma6_witness_index_identity(rule, witness, vanishes):
    assert (kr.witness_general_difference(rule, witness)()[0] == 0) is vanishes


@pytest.mark.parametrize("form", list(kr.REMARK5_FORMS))
def test_remark5_reduction_vanishes_at_the_generic_point_of_the_random_model(form):
    factors, shapes, reason = kr.generic_factors(kr.four_factors, kr.REMARK5_FACTORS)
    assert reason is None and kr.remark5_shapes_differ(shapes) is None
    assert kr.reduction_difference(form, factors)()[0] == 0


@pytest.mark.parametrize("model, reason", [
    (kr.four_factors_zero_column_in_d, "D[i, j]"),
    (kr.four_factors_c_from_a, "C[i, j] = a[Mod(i, n), j]"),
])
def test_remark5_generic_point_refuses_dependent_or_degenerate_factors(model, reason):
    assert reason in kr.generic_factors(model, kr.REMARK5_FACTORS)[2]


@pytest.mark.parametrize("model, reason", [
    (kr.independent_factors, None),
    (kr.repeated_factor, "A and B are one family of entries, not independent"),
    (kr.rank_deficient_first_factor, "A[i, j] = Sum("),
])
def test_lemma6_generic_point_reads_independence_off_the_model(model, reason):
    found = kr.generic_factors(model, ("A", "B"))[2]
    assert found == reason if reason is None else found.startswith(reason)


def test_a_model_that_branches_on_its_sizes_has_no_generic_point():
    def gated(n, m, fill):
        a, b = kr.independent_factors(n, m, fill)
        return (a, a) if n * m > 144 else (a, b)

    assert "cannot be evaluated at symbolic n, m" in kr.generic_factors(gated, ("A", "B"))[2]


@pytest.mark.parametrize("law", kr.FLOAT_LAWS)
def test_laws_are_read_exactly_for_atoms(law):
    assert kr.law_atoms(kr.quantile_law, law) == ([], [])
    atom = functools.partial(kr.law_with_atom_at_zero, zero_probability=0.05)
    assert kr.law_atoms(atom, law) == ([(0, kr.sympy.Rational(1, 20))], [])


def test_lemma8_symbolic_sizes_are_every_size_up_to_four():
    assert sorted(kr.LEMMA8_SYMBOLIC_SIZES) == sorted((n, m) for n in range(1, 5) for m in range(1, 5)
                                                      if 2 <= n * m <= 4)


def test_reduction_sizes_are_every_size_up_to_six():
    assert sorted(kr.REDUCTION_SIZES) == sorted((n, m) for n in range(1, 7) for m in range(1, 7) if 2 <= n * m <= 6)


def test_mulmod_mersenne61_matches_python_integers_at_the_extremes():
    p = kr.MERSENNE_61
    rng = np.random.default_rng(0)
    edges = [0, 1, 2, (1 << 32) - 1, 1 << 32, (1 << 60) + 12345, p - 2, p - 1]
    x = np.array(edges + rng.integers(0, p, size=200).tolist(), dtype=np.uint64)
    y = np.array(edges[::-1] + rng.integers(0, p, size=200).tolist(), dtype=np.uint64)
    for u in (x, np.full_like(x, p - 1)):
        assert kr.mulmod_mersenne61(u, y).tolist() == [int(a) * int(b) % p for a, b in zip(u, y, strict=True)]


@pytest.mark.parametrize("kind", kr.D_KINDS)
def test_lemma8_product_mod_p_is_the_exact_matrix_reduced(kind):
    for n, m in ((1, 2), (3, 2), (2, 4)):
        diagonal = kr.adversarial_diagonal(kind, n * m, np.random.default_rng(n))
        exact_b = kr.lemma8_matrix(np.random.default_rng(7), n, m, diagonal, points_mod_p=True)
        reduced = kr.lemma8_product_mod_p(*kr.lemma8_factors(np.random.default_rng(7), n, m, True), diagonal)
        assert reduced == kr.exact.nmod_matrix(exact_b)


def test_exact_gamma_zeros_tells_a_singular_b_from_a_zero_entry():
    assert kr.exact_gamma_zeros(np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([1.0, 0.0])) is None
    assert kr.exact_gamma_zeros(np.array([[1.0, 0.0], [0.0, 3.0]]), np.array([1.0, 0.0])) == [1]
    assert kr.exact_gamma_zeros(np.array([[1.0, 1.0], [0.0, 3.0]]), np.array([1.0, 1.0])) == []


def test_law_with_an_atom_zeroes_about_that_fraction_of_entries():
    atom = functools.partial(kr.law_with_atom_at_zero, zero_probability=0.05)
    entries = kr.draw_from(atom, "lognormal", np.random.default_rng(0), (200, 100))
    assert 0.04 < np.mean(entries == 0) < 0.06


@pytest.mark.parametrize("law, mean, spread", [("gaussian", 0.0, 1.0), ("uniform", 0.0, 3**-0.5)])
def test_float_draws_follow_the_law_expression(law, mean, spread):
    entries = kr.draw_law(law, np.random.default_rng(0), 100_000)
    assert abs(entries.mean() - mean) < 0.02 and abs(entries.std() - spread) < 0.02


def test_one_exactly_singular_float_draw_refutes_lemma6():
    # A zero column in the very first factor drawn, nowhere else: the check must not wait for a second event
    # (at 1 − 1e−9 the Clopper–Pearson lower bound after one event is 0).
    calls = []

    def zero_column_once(n, m, fill):
        a, b = kr.independent_factors(n, m, fill)
        if not calls:
            a[..., 0] = 0
        calls.append((n, m))
        return a, b

    outcome = kr.float_singular_statistics(zero_column_once, kr.khatri_rao_entries,
                                           kr.quantile_law)(Context("quick", 0, "cpu"))
    assert outcome.verdict is Verdict.REFUTED and outcome.counterexample["exactly_singular_draws"] == 1
    assert outcome.evidence["detectable_rate"]["power"] == 0.9


def test_prop1_fold_is_read_per_feature_at_symbolic_width():
    run = kr.prop1_per_feature
    context = Context("quick", 0, "cpu")
    assert run(kr.folded_batchnorm(-1), kr.normalization_scale)(context).verdict is Verdict.CERTIFIED

    def first_feature_scale(gamma, mu, s, beta):  # every feature scaled by feature 0's s: mixes features
        scale = gamma / s[0]
        return scale, beta - scale * mu

    def mixing_past_three_features(gamma, mu, s, beta):  # a fold gated on the width has no symbolic reading
        scale = gamma / s
        return scale, beta - scale * (np.roll(mu, -1) if len(mu) > 3 else mu)

    outcome = run(first_feature_scale, kr.normalization_scale)(context)
    assert outcome.verdict is Verdict.REFUTED and outcome.counterexample["d_out"] == 2
    outcome = run(mixing_past_three_features, kr.normalization_scale)(context)
    assert outcome.verdict is Verdict.INCONCLUSIVE and "symbolic width" in outcome.summary


def test_scale_values_evaluate_the_scale_expression():
    values = kr.scale_values(kr.normalization_scale, np.array([1.0, 3.0]), 1.0)
    assert np.allclose(values, [2**0.5, 2.0])


@pytest.mark.parametrize("law_expression, law, atoms, decided", [
    (lambda law, u: kr.sympy.Max(kr.quantile_law(law, u), 0), "uniform", [(0, kr.sympy.Rational(1, 2))], True),
    (lambda law, u: kr.quantile_law(law, u) * kr.sympy.Heaviside(u - kr.sympy.Rational(1, 20)), "gaussian",
     [(0, kr.sympy.Rational(1, 20))], True),
    (lambda law, u: kr.sympy.Abs(kr.quantile_law(law, u)), "uniform", [], True),
    (lambda law, u: kr.sympy.Integer(3), "cauchy", [(3, 1)], True),
    # sympy cannot solve erfinv(2u − 1) ≤ 0 for u: undecided, so no all-sizes certificate (never 'no atom')
    (lambda law, u: kr.sympy.Max(kr.quantile_law(law, u), 0), "gaussian", [], False),
])
def test_atoms_behind_non_analytic_functions_are_found_or_left_undecided(law_expression, law, atoms, decided):
    found, undecided = kr.law_atoms(law_expression, law)
    assert found == atoms and (not undecided) is decided


def test_symbolic_cramer_finds_a_nonzero_d_the_diagonal_model_makes_singular():
    def shifted(diagonal):  # D's first entry shifted by 1: zero at d_0 = −1, a nonzero D
        return [diagonal[0] + 1, *diagonal[1:]]

    outcome = kr.symbolic_cramer(shifted, kr.fixed_target, kr.quantile_law)(Context("quick", 0, "cpu"))
    assert outcome.verdict is Verdict.REFUTED and outcome.counterexample["D"] == "-1, 1"
    squared = kr.symbolic_cramer(lambda diagonal: [d**2 for d in diagonal], kr.fixed_target, kr.quantile_law)
    assert squared(Context("quick", 0, "cpu")).verdict is Verdict.CERTIFIED
