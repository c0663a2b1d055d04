"""Unit tests of burkholz2024 Thm 2.5 helpers."""

import numpy as np

from theorems.engine.context import Context
from theorems.maths import construction as cm
from theorems.maths.exact import fraction_array, nmod_matrix
from theorems.papers.burkholz2024 import sec2_4_deeper as deep


def test_jacobian_has_the_rescaling_directions_in_its_kernel():
    weights, gammas = deep.draw_layers(np.random.default_rng(0), 2, 2, (3, 2), exact=True)
    jacobian = deep.jacobian(weights, gammas)
    # γ⁽¹⁾ → tγ⁽¹⁾, γ⁽²⁾ → γ⁽²⁾/t: direction (γ⁽¹⁾, −γ⁽²⁾, 0)
    direction = np.concatenate([gammas[0], -gammas[1], 0 * gammas[2]])
    assert np.all(jacobian @ direction == 0)
    assert cm.rank(jacobian) <= sum(len(g) for g in gammas) - 2


def test_forward_is_the_layer_product():
    weights, gammas = deep.draw_layers(np.random.default_rng(1), 2, 2, (3,), exact=False)
    expected = gammas[1][:, None] * (weights[1] @ (gammas[0][:, None] * weights[0]))
    assert np.allclose(deep.forward(weights, gammas), expected)


def test_cases_sit_at_the_least_corrected_width_with_even_delta_k():
    for case in deep.FC_CASES + deep.CONV_CASES + deep.LARGE_CASES:
        c0, c_last, hidden, kernels, kt = case
        lower = deep.per_layer_lower(c0, c_last, kernels)
        assert all(c >= m for c, m in zip(hidden, lower, strict=True)) and c_last >= c0
        assert [sum(hidden) + c_last] == deep.minimal_totals(deep.equations(case) + len(kernels), lower, c_last)
        assert all((d - k) >= 0 and (d - k) % 2 == 0 for d, k in zip(deep.composite_size(kernels), kt, strict=True))


def test_conv_jacobian_columns_are_forward_at_unit_gammas():
    c0, c_last, hidden, kernels, _ = deep.CONV_CASES[2]
    weights, gammas = deep.draw_layers(np.random.default_rng(2), c0, c_last, hidden, exact=True, kernels=kernels)
    jacobian = deep.jacobian(weights, gammas)
    column = 0
    for layer, gamma in enumerate(gammas):
        for j in range(len(gamma)):
            unit = fraction_array(np.eye(len(gamma), dtype=int)[j])
            assert np.all(jacobian[:, column]
                          == deep.forward(weights, gammas[:layer] + [unit] + gammas[layer + 1:]).ravel())
            column += 1


def test_conv_forward_is_the_composed_convolution():
    # two layers with full padding: the composite filter of Sec. 2.1
    from theorems.papers.burkholz2024 import sec2_1_composition as comp
    weights, gammas = deep.draw_layers(np.random.default_rng(3), 1, 2, (2,), exact=True, kernels=((2,), (2,)))
    x = fraction_array(np.random.default_rng(4).integers(-3, 4, (1, 5)))
    scaled = [g[:, None, None] * w for g, w in zip(gammas, weights, strict=True)]
    assert np.all(comp.correlate(comp.correlate(x, scaled[0], "full"), scaled[1], "full")
                  == comp.correlate(x, deep.forward(weights, gammas), "full"))


def test_torch_sources_match_the_target_after_the_solve():
    c0, c_last, hidden, kernels, kt = deep.CONV_CASES[1]
    rng = np.random.default_rng(5)
    weights, _ = deep.draw_layers(rng, c0, c_last, hidden, exact=False, kernels=kernels)
    target = rng.standard_normal((c_last, c0) + kt)
    wanted = cm.embed_target(target, deep.composite_size(kernels)).ravel()
    gammas, residual, condition = deep.solve_gammas(weights, wanted, list(hidden) + [c_last], rng)
    assert residual < 1e-12 and np.isfinite(condition)
    assert deep.torch_equivalence(weights, gammas, target, kernels, rng) < 1e-12


def test_smallest_counterexample_is_a_multiple_of_the_first_filter():
    # c0 = c_L = 1, widths (1, 3, 1), kernels (2, 1, 1): F = (scalar) · W_1 for every γ
    rng = np.random.default_rng(6)
    weights, _ = deep.draw_layers(rng, 1, 1, (1, 3), exact=True, kernels=((2,), (1,), (1,)))
    for _ in range(3):
        gammas = [fraction_array(rng.integers(-9, 10, n)) for n in (1, 3, 1)]
        composite = deep.forward(weights, gammas).ravel()
        first = weights[0].ravel()
        assert composite[0] * first[1] == composite[1] * first[0]
    assert deep.rank_bound((1, 1, 3, 1), ((2,), (1,), (1,))) == 1


def test_rank_bound_is_never_below_the_jacobian_rank():
    # the bound must hold at every point; spot-check it against random-point ranks across the sweep
    rng = np.random.default_rng(7)
    configs = deep.configurations(deep.SweepBound(4, 2, 2, 6), deep.printed_lower, deep.printed_totals)
    for c0, c_last, hidden, kernels in configs[::7]:
        sizes = (c0,) + hidden + (c_last,)
        weights = [rng.integers(0, deep.PRIME, (b, a) + k)
                   for a, b, k in zip(sizes[:-1], sizes[1:], kernels, strict=True)]
        gammas = [rng.integers(1, deep.PRIME, b) for b in sizes[1:]]
        rank = nmod_matrix(deep.jacobian(weights, gammas, deep.PRIME), deep.PRIME).rank()
        assert rank <= deep.rank_bound(sizes, kernels)


def test_modular_jacobian_is_the_exact_one_reduced():
    c0, c_last, hidden, kernels, _ = deep.CONV_CASES[4]
    rng = np.random.default_rng(8)
    sizes = (c0,) + hidden + (c_last,)
    weights = [rng.integers(0, 50, (b, a) + k) for a, b, k in zip(sizes[:-1], sizes[1:], kernels, strict=True)]
    gammas = [rng.integers(1, 50, b) for b in sizes[1:]]
    exact = deep.jacobian([fraction_array(w) for w in weights], [fraction_array(g) for g in gammas])
    modular = deep.jacobian(weights, gammas, deep.PRIME)
    assert np.all(np.vectorize(lambda q: int(q) % deep.PRIME)(exact) == modular)


def test_per_layer_widths():
    # the convolutional-only reading reduces to the printed widths for fully connected layers; both sides ask c_L
    assert deep.convolutional_only_lower(2, 3, deep.FC * 3) == deep.printed_lower(2, 3, deep.FC * 3) == [2, 2]
    assert deep.per_layer_lower(2, 3, deep.FC * 3) == [3, 3]
    # 1-D kernels (1, 1, 2): the layer before the 2-tap filter needs c_L·2 channels
    assert deep.per_layer_lower(1, 1, ((1,), (1,), (2,))) == deep.convolutional_only_lower(1, 1, ((1,), (1,), (2,)))
    assert deep.per_layer_lower(1, 1, ((1,), (1,), (2,))) == [2, 2]


def test_fully_connected_counterexample_of_the_convolutional_only_reading():
    # c0 = 2, c_L = 4, widths (5, 2, 4): rank ≤ 2·2 + 4 − 1 = 7 < 8, and a random point reaches 7
    hidden = deep.searched_profile(deep.FC_COUNTEREXAMPLE, deep.convolutional_only_lower, deep.minimal_totals,
                                   deep.printed_count)
    assert hidden == (5, 2) and deep.rank_bound((2, 5, 2, 4), deep.FC * 3) == 7
    rng = np.random.default_rng(9)
    weights = [rng.integers(0, deep.PRIME, shape) for shape in ((5, 2), (2, 5), (4, 2))]
    gammas = [rng.integers(1, deep.PRIME, n) for n in (5, 2, 4)]
    assert nmod_matrix(deep.jacobian(weights, gammas, deep.PRIME), deep.PRIME).rank() == 7
    # both sides: c_l ≥ c_L = 4, so the least profile is (4, 4) and the Jacobian has full row rank 8
    assert deep.searched_profile(deep.FC_COUNTEREXAMPLE, deep.per_layer_lower, deep.minimal_totals,
                                 deep.printed_count) == (4, 4)
    assert deep.decide((2, 4, (4, 4), deep.FC * 3), rng)["decision"] == "full"


def test_search_draws_lie_past_the_sweep_within_twice_its_bound():
    bound = deep.SweepBound(4, 2, 3, 12)
    rng = np.random.default_rng(1)
    for _ in range(50):
        c0, c_last, kernels, shares, _ = deep.draw_beyond(bound)(rng)
        assert not deep.inside(bound, c0, c_last, kernels) and len(shares) == len(kernels) - 1
        assert len(kernels) <= 8 and c0 <= 4 and c0 <= c_last <= 6
        assert c_last * c0 * deep.composite_dim(kernels) <= 24



def test_search_decides_a_deficient_configuration_without_a_rank_bound_exactly(monkeypatch):
    # widths (3, 1, 1), kernels (1, 1, 2): F is a multiple of W_3, rank ≤ 1 < 2 everywhere; hide the rank bound
    config = (1, 1, (3, 1), ((1,), (1,), (2,)))
    monkeypatch.setattr(deep, "rank_bound", lambda sizes, kernels: 10**6)
    deep.decide_beyond.cache_clear()
    entry = deep.decide_beyond(config, 0)
    deep.decide_beyond.cache_clear()
    assert entry["decision"] == "identically deficient"
    assert entry["points"] == 3 + deep.MORE_POINTS + deep.EXACT_POINTS
    assert 0 < entry["false_refutation_bound"] < 1e-30


def test_search_draws_every_spatial_kind():
    draw = deep.draw_beyond(deep.both_sides_bound(Context("ci", 0, "cpu")))
    rng = np.random.default_rng(0)
    kinds = {len(draw(rng)[2][0]) for _ in range(60)}
    assert kinds == {0, 1, 2}
