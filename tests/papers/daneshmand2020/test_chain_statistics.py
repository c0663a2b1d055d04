"""Unit tests for theorems/markov_chain.py: the interval decisions, the exact rank
certifier against exact arithmetic, the adversarial starts, and reproducibility."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from theorems.engine.context import Context
from theorems.engine.registry import claims
from theorems.engine.runner import run_claim
from theorems.engine.verdicts import Verdict
from theorems.maths import exact
from theorems.maths.bn_chain import gram
from theorems.papers.daneshmand2020 import chain_statistics as mc

DETERMINISTIC = settings(max_examples=60, deadline=None, database=None, derandomize=True)


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


def test_ks_critical_distance_shrinks_with_samples():
    assert mc.ks_critical_distance(100, 100, 1e-9) > mc.ks_critical_distance(1000, 1000, 1e-9) > 0


# --- exact rank certificates -------------------------------------------------------------


def exact_det(a) -> Fraction:
    a = [[Fraction(x) for x in row] for row in a]
    if len(a) == 1:
        return a[0][0]
    return sum((-1) ** j * a[0][j] * exact_det([row[:j] + row[j + 1:] for row in a[1:]]) for j in range(len(a)))


square_minors = st.integers(1, 3).flatmap(
    lambda k: hnp.arrays(np.float64, (k, k), elements=st.one_of(
        st.integers(-3, 3).map(float), st.floats(-2, 2, allow_nan=False, allow_subnormal=False)))
)


@DETERMINISTIC
@given(square_minors)
def test_error_bound_never_certifies_a_zero_determinant(minor):
    certified = bool(mc.nonzero_by_error_bound(torch.tensor(minor)[None])[0])
    if certified:
        assert exact_det(minor.tolist()) != 0


def test_error_bound_decides_clear_cases_and_defers_ties():
    minors = torch.tensor([[[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [2.0, 4.0]], [[1.0, 1 / 3], [3.0, 1.0]]])
    assert mc.nonzero_by_error_bound(minors).tolist() == [True, False, False]


def test_greedy_pivots_find_independent_columns():
    H = torch.tensor([[1.0, 1.0, 0.0, 2.0], [2.0, 2.0, 1.0, 4.0], [0.0, 0.0, 0.0, 0.0]], dtype=torch.float64)[None]
    columns = mc.greedy_pivots(H, 2)[0].tolist()
    assert exact.rank_exact(H[0, :, columns].numpy()) == 2


def test_rank_certifier_proves_rank_two_and_refutes_rank_three_on_two_columns():
    pair = torch.randn(4, 2, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    two_columns = pair[:, [0, 1, 0, 1, 1]][None]
    for k, failures in ((2, 0), (3, 1)):
        certifier = mc.RankCertifier(k, {"case": "two columns"})
        certifier.observe(two_columns)
        certifier.margins()
        assert len(certifier.failures) == failures
    assert certifier.failures[0]["exact_rank"] == 2 and certifier.failures[0]["layer"] == 1


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
    assert record["exact_rank_of_last_iterate"] == 1
    assert record["max_entry_deviation_from_start"] < 1e-12


def test_clustered_start_is_asymmetric():
    M = gram(mc.clustered_start(6, torch.Generator().manual_seed(0), "cpu")[None])[0]
    assert float(M[0, 1]) / math.sqrt(float(M[0, 0] * M[1, 1])) > 0.9


# --- reproducibility ---------------------------------------------------------------------


@pytest.mark.parametrize("claim_id", ["daneshmand2020.thm5", "daneshmand2020.lemma6"])
def test_evidence_is_a_function_of_the_seed(claim_id):
    claim = claims()[claim_id]
    first, second = (run_claim(claim, Context("quick", 7, "cpu")).to_json() for _ in range(2))
    assert first["evidence"] == second["evidence"]


@pytest.mark.parametrize(
    "holds, expected",
    [([True, True, True], 10), ([False, True, True], 20), ([True, False, True], 30), ([True, True, False], None)],
)
def test_first_layer_of_final_run(holds, expected):
    assert mc.first_layer_of_final_run(np.array([10, 20, 30]), np.array(holds)) == expected
