"""Unit tests of the giannou2023 App. B–C construction claims' helpers."""

import numpy as np
import pytest
import sympy
import torch

from theorems.constructions import build_source
from theorems.engine.context import Context
from theorems.engine.verdicts import Verdict
from theorems.maths import construction as cm
from theorems.papers.giannou2023 import app_b_constructions as ab


@pytest.mark.parametrize("kind", ab.TARGET_KINDS + ("rank two",))
def test_target_kinds_have_the_stated_shape(kind):
    w = ab.target_weights(np.random.default_rng(0), (3, 4), kind)
    assert w.shape == (3, 4)
    if kind == "rank one":
        assert np.linalg.matrix_rank(w) <= 1
    if kind == "zero last column block":
        assert not w[:, -1].any() and w.any()


def test_zero_last_block_is_provably_out_of_reach_as_printed():
    layers = ab.exact_layers((2, 2), "zero last column block", seed=0)
    proof = ab.deep_impossibility(layers, ab.rational_draw(np.random.default_rng(1)), 1)
    assert proof is not None and "Γ_K = 0 is forced" in proof


def test_thm9_counterexample_lies_inside_the_printed_hypotheses():
    (layer,) = ab.exact_layers((2, 2), "first column 1/d", seed=0)
    assert not layer.relu and not np.any(layer.bias != 0)
    assert np.linalg.norm(layer.weight.astype(float), 2) <= 1 and not np.any(layer.weight[:, 1] != 0)


def test_thm9_as_printed_is_refuted_by_a_proof_inside_the_hypotheses():
    check = ab.exact_check("exact", "deep", ab.thm9_instances(False), gamma_nonzero=True, bound=ab.thm9_bound,
                           static_proof=ab.printed_order_proof)
    outcome = check.run(Context("quick", 0, "cpu", "giannou2023.thm9", check.name))
    assert outcome.verdict is Verdict.REFUTED and "first column 1/d" in outcome.summary
    assert "Γ_K = 0 is forced" in outcome.counterexample["reason"]
    # only in-hypothesis targets are listed, and every configuration with ⌈d/k⌉ ≥ 2 is among them
    assert all("first column 1/d" in instance for instance in outcome.evidence["unreachable"])
    assert len(outcome.evidence["unreachable"]) == 1  # quick: d ≤ 2, so only (d, k) = (2, 1)


def test_a_source_of_width_zero_is_proved_unable_to_match():
    layers = ab.exact_layers((1, 1), "half identity", seed=0, relu_last=True)
    frozen = [np.zeros((0, 1), dtype=object), np.zeros((1, 0), dtype=object)]
    assert "narrowest width 0" in ab.source_impossibility(layers, "wide", frozen)


def test_no_proof_where_the_source_is_wide_enough():
    layers = ab.exact_layers((2, 2), "half identity", seed=0)
    draw = ab.rational_draw(np.random.default_rng(0))
    assert ab.source_impossibility(layers, "wide", [draw((4, 2)), draw((2, 4))]) is None


def test_a_failed_construction_without_proof_is_inconclusive_not_refuted():
    # width d² − 2 at d = 2 fails the Γ' = 1 solve, yet no rank or row-space argument rules the target out
    check = ab.exact_check("exact", "wide", lambda ctx: [((2, 2), "half identity", {})], cm.Recipe(width_offset=-2),
                           bound=lambda ctx: "d = 2")
    outcome = check.run(Context("quick", 0, "cpu", "giannou2023.thm8", check.name))
    assert outcome.verdict is Verdict.INCONCLUSIVE and outcome.evidence["undecided"]


def test_a_float_construction_failure_is_not_a_counterexample():
    check = ab.deep_float_check(cm.DEFAULT, reorder=False)
    outcome = check.run(Context("quick", 0, "cpu", "giannou2023.thm9", check.name))
    assert check.corroborating and outcome.verdict is Verdict.SUPPORTED
    assert outcome.evidence["coverage"]["construction failed (float, undecided)"] >= 1


def test_reordered_deep_construction_has_nonzero_gammas_on_nonzero_blocks():
    layers = ab.exact_layers((3, 3), "integer", seed=2)
    plan = cm.plan_deep(layers, ab.rational_draw(np.random.default_rng(3)), 1)
    assert ab.gamma_zero_report(plan, layers) is None


@pytest.mark.parametrize("method", ["wide", "deep k=1"])
def test_skeleton_counts_equal_built_sources(method):
    target = ab.target_module((3, 3), "integer", 0)
    layers = cm.target_layers(target)
    draws = cm.Draws(0)
    skeleton = ab.wide_skeleton(layers, draws) if method == "wide" else ab.deep_skeleton(layers, draws)
    built = build_source(target, "wide" if method == "wide" else "deep", k=1)

    def count(m):
        return sum(p.numel() for p in m.parameters() if p.requires_grad), sum(p.numel() for p in m.parameters())

    assert count(cm.module_of(skeleton, draws, torch.float64)) == count(built)


def test_pinned_sparse_draw_separates_matching_from_zero_lines():
    predicted, actual = ab.sparse_prediction(2, 0.7, 0)
    assert predicted == actual is False
    assert ab.naive_prediction(2, 0.7, 0) is True


def test_theory_p_is_capped_at_one():
    assert ab.theory_p(4, 1.5) == pytest.approx(1.5 * np.sqrt(np.log(4) / 4))
    assert ab.theory_p(2, 10) == 1.0


def test_evaluation_points_include_sphere_and_switching_points():
    layers = cm.target_layers(ab.target_module((3, 3), "integer", 1))
    x = ab.evaluation_points(layers, np.random.default_rng(0), 8)
    norms = np.linalg.norm(x, axis=1)
    assert np.all(norms <= 1 + 1e-12) and np.isclose(norms[8:16], 1).all() and len(x) > 16


def test_column_block_targets_have_exactly_the_stated_nonzero_blocks():
    kind = ab.ColumnBlocks(2, (1,), in_hypothesis=True)
    (layer,) = ab.exact_layers((5, 5), kind, seed=3)
    nonzero_columns = [j for j in range(5) if any(layer.weight[:, j] != 0)]
    assert nonzero_columns == [2, 3] and all(layer.weight[:, 2:4].ravel() != 0)
    assert not any(layer.bias != 0) and np.abs(layer.weight).sum() == 1  # in-hypothesis: ‖W*‖₂ ≤ Σ|w*| = 1
    assert ab.block_patterns(3, 1)[0] == (0, 1, 2) and len(ab.block_patterns(3, 1)) == 8


def test_pattern_targets_certify_almost_every_pair_and_fixed_targets_only_support():
    context = Context("quick", 0, "cpu", "giannou2023.thm9.corrected", "exact")
    pattern = ab.exact_check("exact", "deep", ab.thm9_patterns, gamma_nonzero=True, bound=ab.thm9_bound).run(context)
    fixed = ab.exact_check("exact", "deep", ab.thm9_instances(True), gamma_nonzero=True, bound=ab.thm9_bound,
                           certifies=False).run(context)
    assert pattern.verdict is Verdict.CERTIFIED and pattern.relies_on == (ab.ALMOST_EVERYWHERE,)
    assert fixed.verdict is Verdict.SUPPORTED


@pytest.mark.parametrize("recipe", [ab.ONE_SHORT, ab.NO_SHIFT])
def test_search_past_the_sweep_refutes_broken_constructions_at_its_first_pinned_configuration(recipe):
    check = ab.beyond_sweep_check(recipe, reorder=True)
    outcome = check.run(Context("quick", 0, "cpu", "giannou2023.thm9.corrected", check.name))
    assert outcome.verdict is Verdict.REFUTED and "pinned" in outcome.summary
    configuration = outcome.counterexample["configuration"]
    assert (configuration["d"], configuration["k"]) == ab.PINNED_BEYOND[0][:2]


def test_count_polynomials_are_the_hand_counts_and_a_dropped_depth_fails():
    d, depth = ab._WIDTH, ab._DEPTH
    wide = ab.count_polynomials("wide")
    assert sympy.expand(wide["trainable"] - 2 * depth * (d**2 + d)) == 0
    assert sympy.expand(wide["total"] - depth * (2 * d**3 + 3 * d**2 + 3 * d)) == 0
    assert ab.order_failure(wide["trainable"], d * d * depth) is None
    assert "depends on l" in ab.order_failure(wide["trainable"], d * d)["failure"]
    assert "0 or ∞" in ab.order_failure(wide["trainable"], d**3 * depth)["failure"]


def test_pinned_sparse_draws_split_into_realized_and_refused():
    for (widths, kind, seed), refused in zip(ab.PINNED_SPARSE, (False, True), strict=True):
        layers = cm.target_layers(ab.target_module(widths, kind, seed))
        try:
            cm.plan(layers, "sparse", cm.Draws(seed), **ab.sparse_keep(widths, seed))
            assert not refused
        except cm.ConstructionFailed:
            assert refused


def test_failure_detectable_rate_lies_above_one_over_d_and_falls_with_trials():
    few, many = (ab.failure_detectable_effect([4, 6], trials) for trials in (60, 400))
    for d in ("4", "6"):
        assert 1 / int(d) < many["failure_rate"][d] < few["failure_rate"][d]
    assert many["power"] == 0.9
