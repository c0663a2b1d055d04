"""Unit tests of burkholz2024 Thm 2.4 helpers."""

import pytest

from theorems.papers.burkholz2024 import sec2_3_activations as act


def test_printed_tanh_choice_violates_the_condition_for_q1_2():
    gamma, b, m, c = act.printed_choice("tanh", 0.1, 2.0, 0.5)
    deviation = act.deviation_interval("tanh", gamma, b, m, c, 2.0)
    assert deviation.a > 0.1 * gamma * m / 0.5


@pytest.mark.parametrize("name", act.ACTIVATIONS)
def test_corrected_choice_meets_the_condition(name):
    for q1 in act.Q1S:
        gamma, b, m, c = act.corrected_choice(name, 0.01, q1, 1.0)
        assert act.deviation_interval(name, gamma, b, m, c, q1).b < 0.01 * gamma * m


def test_relu_choice_is_exact():
    gamma, b, m, c = act.printed_choice("relu", 0.01, 3.0, 1.0)
    assert act.deviation_interval("relu", gamma, b, m, c, -3.0).b == 0
