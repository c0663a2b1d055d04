"""Unit tests of the giannou2023 App. A.4–C helpers."""

import numpy as np
import pytest

from theorems.engine.context import Context
from theorems.engine.verdicts import Verdict
from theorems.papers.giannou2023 import app_a4_c_invertibility as kr


@pytest.mark.parametrize("n, m", [(1, 1), (2, 3), (3, 2)])
def test_lemma6_witness_is_the_identity(n, m):
    a, b = kr.lemma6_witness(n, m, "as printed")
    assert np.array_equal(kr.khatri_rao(a, b).astype(int), np.eye(n * m, dtype=int))


@pytest.mark.parametrize("kind", kr.D_KINDS)
def test_adversarial_diagonals_are_nonzero(kind):
    assert np.all(kr.adversarial_diagonal(kind, 7, np.random.default_rng(0)) != 0)


def test_adversarial_targets_are_nonzero():
    for target in kr.adversarial_targets(5, np.random.default_rng(0)).values():
        assert np.any(target != 0)


def test_witness_check_can_pass_when_every_replaced_column_keeps_its_diagonal_entry():
    # The proof's step fails only because w*_i may vanish; with every entry nonzero it holds.
    run = kr.proof_witness_determinants(lambda w: w + 1)
    assert run(Context("quick", 0, "cpu")).verdict is Verdict.CERTIFIED


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
