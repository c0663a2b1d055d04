"""Unit tests of burkholz2024 Thm 2.5 helpers."""

import numpy as np

from theorems.maths import construction as cm
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
