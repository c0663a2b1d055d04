"""Parameterizations of Thm 3.1: correspondences, symbolic sides, float networks."""

import numpy as np
import torch

from theorems.maths import features
from theorems.papers.randfeat2025 import app_a2_1_equivalence as eq


def test_id_cond_correspondence_reproduces_the_effective_weight():
    gamma = np.arange(6.0)
    for c0, c2 in [(2, 3), (3, 2)]:
        w1, w2 = features.id_cond(c0, c2)
        assert (features.effective_weight(w1, w2, gamma) == eq.ID_COND.to_weight(gamma, c0, c2)).all()
        assert not (features.effective_weight(w1, w2, gamma) == eq.COLUMN_MAJOR.to_weight(gamma, c0, c2)).all()
        # pair is the inverse of to_weight's placement
        flat = eq.COLUMN_MAJOR.to_weight(gamma, c0, c2).ravel()
        assert (flat[eq.COLUMN_MAJOR.pair(c0, c2)] == gamma).all()


def test_minimal_and_ortho_to_weight_match_the_layers():
    gamma = np.arange(1.0, 6.0)
    w1, w2 = features.id_cond_minimal(3, 2)
    assert (features.effective_weight(w1, w2, gamma) == eq.MINIMAL.to_weight(gamma, 3, 2)).all()
    gamma = np.arange(4.0)
    w1, w2 = eq._ortho_layers(2, 2)
    expected = features.effective_weight(np.asarray(w1, float), np.asarray(w2, float), gamma)
    assert np.allclose(expected, eq.ORTHO_COND.to_weight(gamma, 2, 2))
    assert abs(float(eq._rational_rotation(2)[0, 0])) not in (0.0, 1.0)


def test_symbolic_sides_agree_for_id_cond_and_differ_for_column_major():
    lhs, rhs = eq._symbolic_sides(eq.ID_COND, 2, 2, "polynomial")
    assert eq._first_nonzero_at_point(lhs, rhs) is None
    lhs, rhs = eq._symbolic_sides(eq.COLUMN_MAJOR, 2, 2, "polynomial")
    assert eq._first_nonzero_at_point(lhs, rhs) is not None


def test_networks_share_every_parameter_but_the_layer():
    generator = torch.Generator().manual_seed(0)
    student, original = eq._networks(eq.ID_COND, 3, 2, generator)
    assert torch.allclose(student[2].effective_weight(), original[2].gamma2[:, None] * original[2].weight)
    assert torch.equal(student[0].weight, original[0].weight)
