"""Unit tests of burkholz2024 Sec. 2.2 helpers."""

import numpy as np
import pytest

from theorems.maths import construction as cm
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
    assert two.lemma21_statement(corrected=False) is not None


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
