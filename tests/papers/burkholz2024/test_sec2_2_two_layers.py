"""Unit tests of burkholz2024 Sec. 2.2 helpers."""

import flint
import numpy as np
import pytest
import torch

from theorems.engine.context import Context
from theorems.engine.registry import claims
from theorems.engine.verdicts import Verdict
from theorems.maths import construction as cm
from theorems.maths import exact, modular_lu
from theorems.maths.exact import fraction_array
from theorems.papers.burkholz2024 import sec2_2_two_layers as two


def test_lemma21_counterexample_has_a_kernel_but_no_representation():
    _, first, second, target = two.LEMMA21_COUNTEREXAMPLE
    first, second, target = fraction_array(first), fraction_array(second), fraction_array(target)
    coefficients = cm.composite_coefficients(two.expand(second), two.expand(first))
    system, _ = cm.pivot_system(two.expand(target), coefficients)
    assert system.shape[1] - cm.rank(system) == 1
    assert not np.any(coefficients[0, 1, 0] != 0) and target[0, 1] != 0
    with pytest.raises(cm.ConstructionFailed, match="pivot denominator"):
        cm.solve_two_layer(two.expand(target), coefficients)
    assert two.lemma21_property(cm.eliminated_row, two.kernel_nonzero)(two.LEMMA21_COUNTEREXAMPLE) is not None


def test_residual_solution_reproduces_the_target():
    rng = np.random.default_rng(0)
    first, second = two.source_pair(rng, 2, 3, 2, (), (), exact=True)
    target = fraction_array(rng.integers(1, 4, (2, 2, 1)))
    skip = fraction_array(rng.integers(-3, 4, (2, 2, 1)))
    coefficients = cm.composite_coefficients(two.expand(second), two.expand(first))
    gamma1, gamma2 = two.solve_residual(target, coefficients, skip)
    assert np.all(two.realized(two.expand(first), two.expand(second), gamma1, gamma2, skip) == target)


def test_dim_and_widths():
    assert two.dim((1, 1), (3, 3)) == 9 and two.dim((2,), (2,)) == 3
    assert two.paper_width(64, 64, (1, 1), (3, 3)) == 36801


def test_sweep_enumerates_every_kernel_with_per_axis_coverage_smallest_first():
    ctx = Context("quick", 0, "cpu")
    shapes = two.sweep_configurations(ctx)
    # per axis (k1, k2, kt) with k1, k2 ≤ 2 and kt ≤ k1 + k2 − 1: 8 triples; FC + 8 (1-D) + 64 (2-D), c0, c2 ≤ 2
    assert len(shapes) == 4 * (1 + 8 + 64) == len(set(shapes))
    assert all(kt <= a + b - 1 for _, _, k1, k2, kts in shapes for a, b, kt in zip(k1, k2, kts, strict=True))
    rows = [c2 * c0 * two.dim(k1, k2) for c0, c2, k1, k2, _ in shapes]
    assert rows == sorted(rows) and shapes[0] == (1, 1, (), (), ())
    assert len(two.sweep_configurations(ctx, with_target=False)) == 4 * (1 + 4 + 16)
    assert two.flattened_only(ctx)[0] == ((1, 1), (1, 2), (2, 1))


@pytest.mark.parametrize("kind, shape, c1, expected", [
    ("pivot", (1, 1, (), (), ()), 0, two.NOT_REPRESENTABLE),  # no channel: the composite is 0
    ("pivot", (1, 1, (), (), ()), 1, two.REPRESENTABLE),
    ("pivot", (2, 2, (1,), (2,), (2,)), 6, two.NOT_REPRESENTABLE),  # one short of 2·2·2 − 2 + 1 = 7
    ("pivot", (2, 2, (1,), (2,), (2,)), 7, two.REPRESENTABLE),
    ("residual", (1, 1, (), (), ()), 0, two.REPRESENTABLE),  # γ⁽²⁾ scales the skip onto the target
    ("residual", (2, 1, (), (), ()), 0, two.NOT_REPRESENTABLE),
    ("full", (2, 1, (1,), (2,), (1,)), 3, two.NOT_REPRESENTABLE),  # 4 rows, 3 columns
    ("full", (2, 1, (1,), (2,), (1,)), 4, two.REPRESENTABLE),
])
def test_decisions_at_a_point(kind, shape, c1, expected):
    assert two.decide_at_point(kind, shape, c1, np.random.default_rng(1)) == expected


def replayed_sources(c: int, seed: int):
    """The W1ᵀ, W2 and target that paper_family_matrix draws, as Python ints."""
    rng = np.random.default_rng(seed)
    n = 9 * c * c
    first = exact.random_points(rng, (c, n - c + 1)).astype(object)  # at c1 = 9c² − c + 1
    second = exact.random_points(rng, (9 * c, n - c + 1)).astype(object)
    return first, second, exact.random_points(rng, (c, 9, c)) + 1


def test_paper_family_matrix_is_the_composite_and_the_target_blocks():
    c = 2
    matrix = two.paper_family_matrix(np.random.default_rng(5), c, 9 * c * c - c + 1)
    first, second, target = replayed_sources(c, 5)
    c1 = 9 * c * c - c + 1
    w2 = second.reshape(c, 9, c1).transpose(0, 2, 1).reshape(c, c1, 3, 3)
    w1 = first.T.reshape(c1, c, 1, 1)
    composite = cm.composite_coefficients(w2, w1)  # (c2, c0, 9, c1), exact
    expected = composite.transpose(0, 2, 1, 3).reshape(9 * c * c, c1)
    integers = matrix.integers()
    assert np.array_equal(integers[:, :c1].astype(object), expected)
    assert np.array_equal(integers[:9 * c, c1], target[0].reshape(-1)) and not integers[9 * c:, c1].any()


def test_paper_family_residues_in_column_blocks_are_the_integers_residues():
    matrix = two.paper_family_matrix(np.random.default_rng(3), 4, 9 * 16 - 4 + 1)
    integers, p = matrix.integers(), modular_lu.PRIMES[1]
    blocks = [matrix.residue_columns(p, start, min(start + 37, matrix.shape[1])) for start in range(0, 144, 37)]
    assert np.array_equal(np.mod(np.hstack(blocks), p), np.mod(integers, p))  # blocks across T and B alike


def test_paper_family_residue_of_the_engine_is_flints():
    matrix = two.paper_family_matrix(np.random.default_rng(0), 8, 9 * 64 - 7)  # 576 rows: the modular LU engine
    found = two.nonzero_residue(matrix, "cpu")
    assert found is not None
    assert int(exact.nmod_matrix(matrix.integers(), found.prime).det()) == found.residue


def test_engine_primes_for_the_papers_36864_rows():
    primes = modular_lu.primes_for(36865, 3)
    assert all(modular_lu.supports(p, 36865) and p < 1 << 20 for p in primes) and len(set(primes)) == 3
    assert not modular_lu.supports(primes[0] + 2, 36865) or not flint.fmpz(primes[0] + 2).is_prime()
    assert modular_lu.primes_for(1000, 3) == modular_lu.PRIMES[:3]


def test_large_profile_adds_the_largest_family_member_the_device_and_memory_allow(monkeypatch):
    from theorems.engine import resources

    assert two.paper_family_channels(Context("thorough", 0, "cpu")) == [2, 4, 8, 16]
    # 0.75 × 16 GiB holds 8.8 bytes × 36864²; 0.75 × 14 GiB does not.
    monkeypatch.setattr(resources, "available_memory_bytes", lambda device: 16 * 2**30)
    assert two.paper_family_channels(Context("large", 0, "cpu"))[-1] == two.PAPER_CHANNELS
    assert two.paper_family_channels(Context("large", 0, "cuda"))[-1] == two.PAPER_CHANNELS
    monkeypatch.setattr(resources, "available_memory_bytes", lambda device: 14 * 2**30)
    with resources.measured("cpu") as usage:
        capped = two.paper_family_channels(Context("large", 0, "cpu", "burkholz2024.thm2_2", "family"))
    assert capped == [2, 4, 8, 16, 32]
    assert [(cap["wanted"], cap["used"]) for cap in usage["capped"]] == [(64, 32)]


@pytest.mark.large
def test_large_profile_certifies_the_largest_family_member_on_this_machine():
    """The paper's c = 64 (36864 rows) where the memory allows, else the largest member that fits."""
    check = next(c for c in claims()["burkholz2024.thm2_2"].checks if "family" in c.name)
    ctx = Context("large", 2023, "cuda" if torch.cuda.is_available() else "cpu", "burkholz2024.thm2_2", check.name)
    outcome = check.run(ctx)
    assert outcome.verdict is Verdict.CERTIFIED
    assert outcome.evidence["large"]["certified_c"] == two.paper_family_channels(ctx)[-1]


def test_lemma21_enumeration_counts_and_its_minimal_counterexample():
    instances = list(two.lemma21_instances(5))
    assert len(instances) == 3**3 + 3 * 3**5  # (1, 1, 1) and the three widths with one 2
    printed = two.lemma21_property(cm.eliminated_row, two.kernel_nonzero)
    first = next(example for example in instances if printed(example) is not None)
    assert first[0] == (1, 1, 1) and not first[2].any() and first[3].all()  # W2 = 0, nonzero target


def test_kernel_representation_avoids_a_kernel_vector_with_a_zero_denominator():
    """ker M = R² (no rows of M): e_2 alone gives T_p·γ = 0, a combination does not."""
    first, second, target = (fraction_array(a) for a in ([[1], [0]], [[1, 1]], [[3]]))
    coefficients = cm.composite_coefficients(two.expand(second), two.expand(first))
    gamma1, gamma2 = two.kernel_representation(two.expand(target), coefficients)
    assert np.all(two.realized(two.expand(first), two.expand(second), gamma1, gamma2) == two.expand(target))


def failing_construction(*args, **kwargs):
    raise cm.ConstructionFailed("forced failure")


@pytest.mark.parametrize("kind, width, expected", [
    ("pivot", two.paper_width, Verdict.INCONCLUSIVE),  # representable configurations: a failed draw proves nothing
    ("pivot", two.one_short_width, Verdict.REFUTED),  # one short: [B] is 1×1 and nonzero, full column rank
    ("full", two.maximum_width_one_short, Verdict.REFUTED),  # one short: c1 = 0 < 1 row
])
def test_a_failed_construction_refutes_only_with_a_proof(kind, width, expected):
    outcome = two.representation_check("representation", kind, width, failing_construction).run(
        Context("quick", 0, "cpu"))
    assert outcome.verdict is expected
    if expected is Verdict.REFUTED:
        assert outcome.counterexample["reason"] == two.IMPOSSIBILITY[kind]
    else:
        assert "undecided" in outcome.summary


def test_the_width_requirement_is_checked_to_be_the_least():
    """A width one channel too generous still represents, but the check proves c1 − 1 representable."""
    outcome = two.representation_check("representation", "pivot", lambda *shape: two.paper_width(*shape) + 1,
                                       two.pivot_construction, least=True).run(Context("quick", 0, "cpu"))
    assert outcome.verdict is Verdict.REFUTED and "not the least width" in outcome.summary


def test_the_construction_without_the_pivot_ratio_misses_the_target():
    first, second, target = (fraction_array(a) for a in ([[1, 2], [3, 1], [1, 1]], [[1, 2, 1]], [[3, 1]]))
    coefficients = cm.composite_coefficients(two.expand(second), two.expand(first))
    for row, reproduces in ((cm.eliminated_row, True), (two.unrescaled_row, False)):
        gamma1, gamma2 = two.kernel_construction(two.expand(target), coefficients, row)
        realized = two.realized(two.expand(first), two.expand(second), gamma1, gamma2)
        assert bool(np.all(realized == two.expand(target))) is reproduces


def test_search_draws_lie_past_the_sweep_within_twice_its_bound():
    rng = np.random.default_rng(0)
    for _ in range(50):
        (c0, c2, k1, k2, kt), _ = two.draw_beyond((2, 3, 2))(rng)
        assert max(c0, c2) > 2 or any(k > (3 if len(k1) == 1 else 2) for k in k1 + k2)
        assert max(c0, c2) <= 4 and all(k <= (6 if len(k1) == 1 else 4) for k in k1 + k2)
        assert all(t <= a + b - 1 for a, b, t in zip(k1, k2, kt, strict=True))


def test_a_failed_float_construction_is_undecided_not_a_counterexample():
    check = two.float_check("float", two.paper_width, failing_construction)
    outcome = check.run(Context("quick", 0, "cpu"))
    assert check.corroborating and outcome.verdict is Verdict.SUPPORTED
    assert outcome.evidence["coverage"]["construction failed (float, undecided)"] == outcome.evidence["examples"]


def test_the_construction_is_run_where_the_family_and_the_sweep_certify():
    ctx = Context("ci", 0, "cpu")

    def doubled_from_third_channel(target, coefficients):
        gamma1, gamma2 = two.pivot_construction(target, coefficients)
        return gamma1, np.concatenate([gamma2[:2], 2 * gamma2[2:]])

    shape = (3, 3, (1, 1), (3, 3), (3, 3))
    c1 = two.paper_width(3, 3, (1, 1), (3, 3))
    assert two.construct_or_decide(ctx, "pivot", two.pivot_construction, shape, c1) == ("built", None)
    built, reason = two.construct_or_decide(ctx, "pivot", doubled_from_third_channel, shape, c1)
    assert built == "wrong" and reason.startswith("composite entry (2,")
    # full width, no target kernel in the configuration: the target fills the composite window
    assert two.construct_or_decide(ctx, "full", two.full_construction, (1, 2, (2,), (2,), ()), 6) == ("built", None)


@pytest.mark.parametrize("row, hypothesis, verdict", [
    (cm.eliminated_row, two.denominators_nonzero, Verdict.CERTIFIED),
    (cm.eliminated_row, two.kernel_nonzero, Verdict.INCONCLUSIVE),  # admits zero pivot denominators
    (two.row_squared_from(4), two.denominators_nonzero, Verdict.REFUTED),  # the sized case c1 = 4
    (two.row_squared_from(9), two.denominators_nonzero, Verdict.INCONCLUSIVE),  # not evaluable at a symbolic c1
])
def test_pivot_identity_reads_the_row_at_a_symbolic_width(row, hypothesis, verdict):
    assert two.pivot_elimination_check(row, hypothesis).run(Context("quick", 0, "cpu")).verdict is verdict


def test_any_size_difference_names_the_dropped_ratio():
    difference = two.any_size_pivot_difference(two.unrescaled_row)
    assert "w_I" in str(difference) and "T_p*gamma" in str(difference)


def test_the_absolute_network_bounds_every_output_of_the_source():
    """The float check's rounding allowance: the network run on |x| with every parameter's
    magnitude dominates |S(x)| entrywise, whatever the folded biases and statistics cancel."""
    rng = np.random.default_rng(5)
    weights = (rng.standard_normal((3, 2, 3)), rng.standard_normal((2, 3, 3)))
    gammas = (1e-3 * rng.standard_normal(3), 1e3 * rng.standard_normal(2))
    source = two.torch_source(weights, gammas, (np.zeros(3), rng.standard_normal(2)), 1, rng)
    x = torch.from_numpy(rng.uniform(-1, 1, (4, 2, 6)))
    with torch.no_grad():
        assert (two.absolute_network(source)(x.abs()) >= source(x).abs()).all()
        assert float(two.absolute_network(source)(x.abs()).max()) > 100 * float(source(x).abs().max())
