"""Unit tests of burkholz2024 Thm 2.5 helpers."""

import numpy as np

from theorems.maths import construction as cm
from theorems.maths.exact import fraction_array
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


def test_cases_sit_at_the_printed_bound_with_even_delta_k():
    for case in deep.FC_CASES + deep.CONV_CASES + deep.LARGE_CASES:
        c0, c_last, hidden, kernels, kt = case
        assert sum(hidden) + c_last == deep.equations(case) + len(kernels)
        assert min(hidden + (c_last,)) >= c0
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
