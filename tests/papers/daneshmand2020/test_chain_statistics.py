"""Unit tests for theorems/markov_chain.py: the interval decisions, the exact rank
certifier against exact arithmetic, the adversarial starts, and reproducibility."""

import json
import math

import numpy as np
import pytest
import sympy
import torch

from theorems.engine.context import Context
from theorems.engine.registry import claims
from theorems.engine.runner import run_claim
from theorems.engine.verdicts import Verdict
from theorems.maths import bn_chain, exact, stats
from theorems.maths.bn_chain import gram
from theorems.papers.daneshmand2020 import chain_statistics as mc

# --- decisions ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "quantity, bound, sense, verdict",
    [
        ((2.0, 3.0), (1.0, 1.5), ">=", Verdict.SUPPORTED),
        ((2.0, 3.0), (3.5, 4.0), ">=", Verdict.REFUTED),
        ((2.0, 3.0), (2.5, 4.0), ">=", Verdict.INCONCLUSIVE),
        ((2.0, 3.0), (3.5, 4.0), "<=", Verdict.SUPPORTED),
        ((2.0, 3.0), (1.0, 1.5), "<=", Verdict.REFUTED),
        ((2.0, 3.0), (2.5, 2.5), "<=", Verdict.INCONCLUSIVE),
    ],
)
def test_compare_separates_intervals(quantity, bound, sense, verdict):
    assert mc.compare(quantity, bound, sense) is verdict


def test_compare_rejects_an_unknown_sense():
    with pytest.raises(ValueError, match="sense"):
        mc.compare((0, 1), (0, 1), ">")


def test_table_outcome_combines_rows():
    ok = {"d": 8, "verdict": Verdict.SUPPORTED}
    undecided = {"d": 16, "verdict": Verdict.INCONCLUSIVE}
    bad = {"d": 32, "value": 1.5, "verdict": Verdict.REFUTED}
    assert mc.table_outcome([ok], "x", {}).verdict is Verdict.SUPPORTED
    assert mc.table_outcome([ok, undecided], "x", {}).verdict is Verdict.INCONCLUSIVE
    refuted = mc.table_outcome([ok, undecided, bad], "x", {})
    assert refuted.verdict is Verdict.REFUTED and refuted.counterexample == {"d": 32, "value": 1.5}
    assert json.dumps(refuted.evidence)  # evidence stays serialisable


@pytest.mark.parametrize("statistics", [mc.SIGN_FLIP_STATISTICS, mc.PERMUTATION_STATISTICS])
def test_symmetric_statistics_are_odd_under_their_transformation(statistics):
    # Each statistic is x(M) with x(transformed M) = −x(M): its law is symmetric when the law of H is invariant.
    M = gram(torch.randn(3, 5, 5, generator=torch.Generator().manual_seed(0), dtype=torch.float64))
    flip = torch.diag(torch.tensor([-1.0, 1, 1, 1, 1], dtype=torch.float64))
    swap = torch.eye(5, dtype=torch.float64)[[2, 3, 0, 1, 4]]
    transform = flip if statistics is mc.SIGN_FLIP_STATISTICS else swap
    for statistic in statistics:
        torch.testing.assert_close(statistic.of(transform @ M @ transform.T), -statistic.of(M))


# --- sequential decisions ------------------------------------------------------------------


def test_sequential_row_stops_at_the_first_decisive_look():
    ctx = Context("quick", 3, "cpu")
    budgets = []

    def decide(series_of, false_alarm):
        budgets.append(false_alarm)
        return {"verdict": Verdict.SUPPORTED if len(budgets) == 2 else Verdict.INCONCLUSIVE}

    row = mc.sequential_row(ctx, decide)
    design = mc.linear_design(ctx)
    assert row["look"] == 2 and row["chains"] == design.chains_at(2) == design.chains * 4
    assert budgets == list(stats.spending_schedule(design.looks)[:2])


def test_sequential_row_says_inconclusive_only_after_the_last_look():
    ctx = Context("quick", 3, "cpu")
    row = mc.sequential_row(ctx, lambda series_of, false_alarm: {"verdict": Verdict.INCONCLUSIVE})
    assert row["verdict"] is Verdict.INCONCLUSIVE and row["look"] == mc.linear_design(ctx).looks


def test_later_looks_add_fresh_chains():
    ctx = Context("quick", 3, "cpu")
    first, second = mc.linear_series(ctx, 8, 0.5, 1), mc.linear_series(ctx, 8, 0.5, 2)
    design = mc.linear_design(ctx)
    assert second.r.shape[1] == second.soft_rank(0.5).shape[1] == design.chains_at(2)
    np.testing.assert_array_equal(second.r[:, : design.chains], first.r)
    assert not np.allclose(second.r[:, design.chains : 2 * design.chains], first.r)



@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_large_profile_runs_wider_and_deeper_than_thorough(device):
    # Designs only (no chain is run): cheap, and the CUDA design is checked on any machine.
    thorough, large = (Context(profile, 1, device) for profile in ("thorough", "large"))
    design, base = mc.linear_design(large), mc.linear_design(thorough)
    assert max(design.dims_at(mc.SMALL_GAMMA)) == 256 > max(base.dims_at(mc.SMALL_GAMMA))
    assert max(design.run_at(256)[1], design.steps) > base.steps
    assert set(base.dims_at(mc.SMALL_GAMMA)) <= set(design.dims_at(mc.SMALL_GAMMA))
    for gamma in mc.FIG2_GAMMAS:  # every γ keeps thorough's widths
        assert set(base.dims_at(gamma)) <= set(design.dims_at(gamma))
    assert max(mc.lyapunov_design(large).dims) > max(mc.lyapunov_design(thorough).dims)
    assert max(mc.law_design(large).dims) > max(mc.law_design(thorough).dims)
    assert max(d for d, _ in mc.rank_design(large).shapes) > max(d for d, _ in mc.rank_design(thorough).shapes)


def test_a_wide_width_reports_its_own_chains():
    design = mc.LinearDesign((8,), chains=8, burn_in=10, steps=100, every=2,
                             wide=(mc.WideRun(256, (mc.SMALL_GAMMA,), chains=1, steps=1000, every=20),))
    assert design.dims_at(mc.SMALL_GAMMA) == (8, 256) and design.dims_at(0.5) == (8,)
    assert design.chains_at(2, 256) == 4 and design.chains_at(2, 8) == design.chains_at(2) == 32
    assert design.run_at(256) == (1, 1000, 20) and design.run_at(8) == (8, 100, 2)

# --- lemma15, thm3, lemma18 --------------------------------------------------------------------


def test_regularity_gap_certificate_certifies_alpha_and_refutes_the_inverted_one():
    ctx = Context("quick", 0, "cpu")
    assert mc.regularity_gap_certificate(mc.regularity_observables).run(ctx).verdict is Verdict.CERTIFIED
    assert mc.regularity_gap_certificate(mc.inverted_regularity_observables).run(ctx).verdict is Verdict.REFUTED


def test_row_quantities_of_the_certificate_are_those_of_m():
    # The certificate writes M_ii, (M²)_ii, (M³)_ii through h = row i and u = HᵀMe_i: check that on a float H.
    H = torch.randn(5, 7, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    M, n = gram(H), H.shape[1]
    for i in range(5):
        h, u = H[i], H.T @ M[:, i]
        torch.testing.assert_close(M[i, i], h @ h / n)
        torch.testing.assert_close((M @ M)[i, i], u @ h / n)
        torch.testing.assert_close((M @ M @ M)[i, i], u @ u / n)


def test_constant_evidence_reads_the_worst_row():
    rows = [{"ratio": [2.5, 2.7]}, {"ratio": [2.3, 2.4]}, {"verdict": Verdict.INCONCLUSIVE}]
    lower = mc.constant_evidence(rows, "ratio", "b", ">=")
    assert lower["sharpest_constant_supported"] == 2.3 and lower["paper_algebra_constant"] == 2.0
    assert mc.constant_evidence(rows, "ratio", "b", "<=")["sharpest_constant_supported"] == 2.7


def test_narrow_width_gap_is_d_cubed_minus_d_over_16_and_zero_at_d_1():
    for d in (1, *mc.NARROW_WIDTHS):
        m = mc.equicorrelated_gram(d)
        square = m * m
        assert (square * m).trace() - sum(square[i, i] ** 2 for i in range(d)) == sympy.Rational(d**3 - d, 16)
        assert all(m[i, i] == 1 for i in range(d)) and min(m.eigenvals()) > 0  # the Gram of an H ∈ 𝓗
    assert mc.regularity_gap_reason(mc.regularity_observables, 1) is not None  # M = 1: α = 1 at d = 1
    context = Context("quick", 1, "cpu")
    assert mc.narrow_width_gap(mc.regularity_observables).run(context).verdict is Verdict.SUPPORTED
    assert mc.narrow_width_gap(mc.inverted_regularity_observables).run(context).verdict is Verdict.REFUTED


# --- Lyapunov gap: a zero-gap chain is never called positive -------------------------------


def test_lyapunov_check_does_not_call_a_zero_gap_chain_positive(seed=1):
    # Conformal updates I + γ(aI + bK): all singular values of every product are equal, λ_1 = λ_2.
    outcome = mc.lyapunov_gap_statement(0.0, conformal=True).run(Context("quick", seed, "cpu"))
    assert outcome.verdict is not Verdict.SUPPORTED
    assert all(row["look"] == 3 for row in outcome.evidence["rows"])  # sampled to the budget first
    assert outcome.evidence["detectable_effect"]["gap_per_layer"] > 0


def test_conformal_products_have_equal_singular_values():
    growth = bn_chain.lyapunov_log_growth(4, 50, 0.5, torch.Generator().manual_seed(0), chains=3, top=4, conformal=True)
    spread = growth.sum(0).amax(-1) - growth.sum(0).amin(-1)
    assert float(spread.abs().max()) < 1e-12


# --- soft rank (thm5) ----------------------------------------------------------------------


def test_soft_rank_margins_are_sigma_k_over_sigma_1():
    H = torch.diag(torch.tensor([4.0, 2.0, 1.0], dtype=torch.float64))[None]
    assert mc.soft_rank_margins(H, 2).tolist() == [0.5]
    assert mc.soft_rank_margins(H[:, :, :2], 3).tolist() == [0.0]  # rank < 3 by shape


@pytest.mark.parametrize("margin, verdict",
                         [(0.3, Verdict.SUPPORTED), (1e-10, Verdict.INCONCLUSIVE), (1e-16, Verdict.REFUTED)])
def test_margin_verdict(margin, verdict):
    assert mc.margin_verdict(margin) is verdict


def test_vanilla_chain_collapses_below_the_refutation_margin_with_full_exact_rank():
    # The case of issue 8: the exact rank of float iterates cannot see this collapse; the soft rank does.
    X = torch.randn(1, 4, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    run = bn_chain.run_vanilla_chain(X, 400, 0.5, torch.Generator().manual_seed(1))
    assert float(mc.soft_rank_margins(run.final, 2)[0]) < mc.COLLAPSED_MARGIN
    assert exact.rank_exact(run.final[0].numpy()) == 4


def test_lemma6_symbolic_step_needs_odd_f_and_symmetric_weights():
    ctx = Context("quick", 0, "cpu")
    certified = mc.sign_flip_equivariance("uniform", mc.ODD_ACTIVATIONS).run(ctx)
    assert certified.verdict is Verdict.CERTIFIED
    assert certified.scope == "(d, N) ∈ {(2, 1), (2, 2)}"  # concrete sizes: a bounded scope, never "all"
    assert mc.sign_flip_equivariance("uniform", mc.PARITY_FREE_ACTIVATIONS).run(ctx).verdict is Verdict.REFUTED
    assert mc.sign_flip_equivariance("asymmetric", mc.ODD_ACTIVATIONS).run(ctx).verdict is Verdict.REFUTED


def test_two_column_start_stays_exactly_rank_two_along_a_tanh_chain():
    from theorems.maths.bn_chain import run_chain

    X = mc.rank_start("two distinct columns", 5, 6, torch.Generator().manual_seed(1), "cpu")
    run = run_chain(X, 40, 1 / 40, torch.Generator().manual_seed(2), activation=torch.tanh)
    assert exact.rank_exact(run.final.numpy()) == 2


@pytest.mark.parametrize("kind", mc.START_KINDS)
def test_rank_starts_have_rank_at_least_two(kind):
    X = mc.rank_start(kind, 6, 5, torch.Generator().manual_seed(3), "cpu")
    assert X.shape == (6, 5) and exact.rank_exact(X.numpy()) >= 2


def test_rank_one_fixed_point_stays_rank_one():
    record = mc.rank_one_fixed_point(Context("quick", 1, "cpu"), 4, 3, "sin", 50)
    assert record["sigma2_over_sigma1_of_last_iterate"] < 1e-12
    assert record["max_entry_deviation_from_start"] < 1e-12


def test_clustered_start_is_asymmetric():
    M = gram(mc.clustered_start(6, "cpu")[None])[0]
    assert float(M[0, 1]) / math.sqrt(float(M[0, 0] * M[1, 1])) > 0.99
    assert float(M[2, 3]) == 0


# --- reproducibility ---------------------------------------------------------------------


@pytest.mark.parametrize("claim_id", ["daneshmand2020.thm5", "daneshmand2020.lemma6"])
def test_evidence_is_a_function_of_the_seed(claim_id):
    claim = claims("theorems.papers.daneshmand2020")[claim_id]
    first, second = (run_claim(claim, Context("quick", 7, "cpu")).to_json() for _ in range(2))
    assert first["evidence"] == second["evidence"]


@pytest.mark.parametrize(
    "holds, expected",
    [([True, True, True], 10), ([False, True, True], 20), ([True, False, True], 30), ([True, True, False], None)],
)
def test_first_layer_of_final_run(holds, expected):
    assert mc.first_layer_of_final_run(np.array([10, 20, 30]), np.array(holds)) == expected


# --- certificates and hypotheses ------------------------------------------------------------


def test_minors_at_zero_weights_are_those_of_h():
    assert all(mc.minor_at_zero_weights(k) == 0 for k in (1, 2, 3))


def test_exact_rank_certificate_refutes_a_rank_above_the_inputs():
    context = Context("quick", 1, "cpu")
    assert mc.exact_rank_certificate(2).run(context).verdict is Verdict.CERTIFIED
    assert mc.exact_rank_certificate(3).run(context).verdict is Verdict.REFUTED


def test_lemma4_boundary_input_is_refuted_only_when_admitted():
    context = Context("quick", 1, "cpu")
    outcome = mc.hypothesis_boundary(mc.any_input).run(context)
    assert outcome.verdict is Verdict.REFUTED and "rank 0" in outcome.counterexample["reason"]
    assert mc.hypothesis_boundary(mc.nonzero_input).run(context).verdict is Verdict.SUPPORTED
    assert [mc.nonzero_input(x) for x in mc.BOUNDARY_INPUTS] == [False, True]
