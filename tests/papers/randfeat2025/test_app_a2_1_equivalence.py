"""Parameterizations of Thm 3.1: correspondences, the all-sizes argument, exact and float networks."""

from dataclasses import replace

import flint
import numpy as np
import sympy
import torch

from theorems.maths import features
from theorems.papers.randfeat2025 import app_a2_1_equivalence as eq

ID_COND = eq.Parameterization(features.id_cond, eq.row_major_weight, eq.row_major_pair, eq.no_nonlinearity)
COLUMN_MAJOR = eq.Parameterization(features.id_cond, eq.column_major_weight, eq.column_major_pair,
                                   eq.no_nonlinearity)
BETWEEN = eq.Parameterization(features.id_cond, eq.row_major_weight, eq.row_major_pair, eq.bent_between)
MINIMAL = eq.Parameterization(features.id_cond_minimal, eq.minimal_weight, eq.minimal_pair, eq.no_nonlinearity)
ORTHO_COND = eq.Parameterization(eq.ortho_layers, eq.ortho_weight, eq.row_major_pair, eq.no_nonlinearity)


def test_id_cond_correspondence_reproduces_the_effective_weight():
    gamma = np.arange(6.0)
    for c0, c2 in [(2, 3), (3, 2)]:
        w1, w2 = features.id_cond(c0, c2)
        assert (features.effective_weight(w1, w2, gamma) == eq.row_major_weight(gamma, c0, c2)).all()
        assert not (features.effective_weight(w1, w2, gamma) == eq.column_major_weight(gamma, c0, c2)).all()
        # pair is the inverse of to_weight's placement
        flat = eq.column_major_weight(gamma, c0, c2).ravel()
        assert (flat[eq.column_major_pair(c0, c2)] == gamma).all()


def test_minimal_and_ortho_to_weight_match_the_layers():
    gamma = np.arange(1.0, 6.0)
    w1, w2 = features.id_cond_minimal(3, 2)
    assert (features.effective_weight(w1, w2, gamma) == eq.minimal_weight(gamma, 3, 2)).all()
    gamma = np.arange(4.0)
    w1, w2 = eq.ortho_layers(2, 2)
    expected = features.effective_weight(np.asarray(w1, float), np.asarray(w2, float), gamma)
    assert np.allclose(expected, eq.ortho_weight(gamma, 2, 2))
    assert abs(float(eq._rational_rotation(2)[0, 0])) not in (0.0, 1.0)


def test_symbolic_sides_agree_for_id_cond_and_differ_for_column_major():
    lhs, rhs = eq._symbolic_sides(ID_COND, 2, 2, "polynomial")
    assert eq._first_nonzero_at_point(lhs, rhs) is None
    lhs, rhs = eq._symbolic_sides(COLUMN_MAJOR, 2, 2, "polynomial")
    assert eq._first_nonzero_at_point(lhs, rhs) is not None


def test_networks_share_every_parameter_but_the_layer():
    generator = torch.Generator().manual_seed(0)
    student, original = eq._networks(ID_COND, 3, 2, generator)
    assert torch.allclose(student[2].effective_weight(), original[2].gamma2[:, None] * original[2].weight)
    assert torch.equal(student[0].weight, original[0].weight)


def test_every_step_of_the_all_sizes_argument_is_proved_for_the_theorem():
    steps = eq._all_sizes_steps(ID_COND)
    assert [s.name for s in steps if not s.proved] == []


def _first_failure(parameterization):
    failed = next(s for s in eq._all_sizes_steps(parameterization) if not s.proved and s.difference is not None)
    return failed.name, eq._smallest_instance(failed)


def test_the_all_sizes_argument_refutes_a_wrong_correspondence_at_its_smallest_case():
    name, found = _first_failure(COLUMN_MAJOR)
    assert name.startswith("layer(e_j)")
    assert found == {"c0": 2, "c2": 2, "i": 0, "j": 1, "student − original": "γ2_i*γ1[1] - γ2_i*γ1[2]"}


def test_the_all_sizes_argument_evaluates_to_weight_and_pair_themselves():
    name, found = _first_failure(replace(ID_COND, to_weight=eq.dropped_factor_weight))
    assert name.startswith("layer(e_j)") and (found["c0"], found["c2"], found["i"], found["j"]) == (2, 2, 1, 0)
    name, found = _first_failure(replace(ID_COND, pair=eq.shifted_pair))
    assert name.startswith("∂L/∂γ⁽¹⁾_k")
    assert found == {"c0": 1, "c2": 2, "i": 0, "j": 0, "student − original": "G[0] - G[1]"}
    # an object that cannot be evaluated at symbolic sizes proves nothing
    unproved = {s.name for s in eq._all_sizes_steps(MINIMAL) if not s.proved}
    assert any(name.startswith("layer(e_j)") for name in unproved)


def test_a_nonlinearity_between_the_layers_is_never_certified():
    unproved = {s.name for s in eq._all_sizes_steps(BETWEEN) if not s.proved}
    assert any(name.startswith("layer(e_j)") for name in unproved)
    assert any("is linear" in name for name in unproved)


def test_parameterizations_without_a_symbolic_form_fail_at_a_small_size():
    assert eq.concrete_failure(ID_COND, 2, 3) is None
    assert eq.concrete_failure(MINIMAL, 1, 2)["feature"] == 0
    assert eq.concrete_failure(ORTHO_COND, 1, 2) is not None
    assert eq.concrete_failure(BETWEEN, 1, 1)["student − original"] == "g1_0**2/2"


def _symbolic_parameters(params):
    """The same parameters as sympy symbols, and the substitution back to the rational values."""
    symbols, point = {}, {}
    for name, value in params.items():
        names = [f"{name}_{index}" for index in range(value.size)]
        array = np.array(sympy.symbols(names, seq=True), dtype=object).reshape(value.shape)
        symbols[name] = array
        point.update({s: sympy.Rational(int(v.p), int(v.q)) for s, v in zip(array.ravel(), value.ravel(), strict=True)})
    return symbols, point


def _as_sympy(array):
    return np.vectorize(lambda v: sympy.Rational(int(v.p), int(v.q)), otypes=[object])(array)


def test_hand_derived_gradients_are_the_derivatives_of_the_loss():
    x, y = _as_sympy(eq._rationals((eq.INPUTS, eq.BATCH), 7)), _as_sympy(eq._rationals((eq.OUTPUTS, eq.BATCH), 8))
    student, original, (w1, w2) = eq._exact_pair(ID_COND, 2, 1)
    layers = (np.vectorize(int, otypes=[object])(w1), np.vectorize(int, otypes=[object])(w2))
    for params, network_layers, between in ((student, layers, eq.no_nonlinearity), (original, None, None),
                                            (student, layers, eq.bent_between)):
        symbols, point = _symbolic_parameters(params)
        loss, _ = eq._loss_and_gradients(symbols, x, y, network_layers, between)
        _, grads = eq._loss_and_gradients({n: _as_sympy(v) for n, v in params.items()}, x, y, network_layers, between)
        for name, array in symbols.items():
            for symbol, grad in zip(array.ravel(), grads[name].ravel(), strict=True):
                assert sympy.diff(loss, symbol).xreplace(point) == grad, (name, symbol)


def test_exact_optimizer_follows_torch_momentum_and_weight_decay():
    params = {"p": np.array([flint.fmpq(1)], dtype=object)}
    grads = {"p": np.array([flint.fmpq(2)], dtype=object)}
    optimizer, buffers = eq.EXACT_OPTIMIZERS[2], {}
    optimizer.step(params, grads, buffers)  # b = 2 + 1/10, p = 1 − (1/4)(21/10)
    assert params["p"][0] == flint.fmpq(19, 40)
    optimizer.step(params, grads, buffers)  # b = (1/2)(21/10) + 2 + 19/400
    assert buffers["p"][0] == flint.fmpq(21, 20) + 2 + flint.fmpq(19, 400)


def test_optimizers_outside_the_class_separate_student_and_original():
    student, original, _ = eq._exact_pair(ID_COND, 1, 2)
    grads = {name: value * 0 + 1 for name, value in student.items()}
    original_grads = {name: value * 0 + 1 for name, value in original.items()}
    for optimizer in (*eq.DECAY_EXEMPTING_SCALES, *eq.SHAPE_AWARE):
        s_params, o_params = dict(student), dict(original)
        optimizer.step(s_params, grads, {})
        optimizer.step(o_params, original_grads, {})
        assert not (s_params["gamma1"] == o_params["W"].ravel()).all(), optimizer.label


def _two_faced_weight(gamma1, c0, c2):
    """Row-major at symbolic sizes and up to 10, transposed past 10 (where no exact check looks)."""
    if features.is_symbolic(c0, c2) or max(c0, c2) <= 10:
        return eq.row_major_weight(gamma1, c0, c2)
    return eq.column_major_weight(gamma1, c0, c2)


def test_the_all_sizes_check_ties_to_weight_at_integer_sizes_to_its_symbolic_evaluation():
    from theorems.engine.context import Context
    from theorems.engine.vocabulary import Device

    assert eq.untied_correspondence(ID_COND) is None
    two_faced = replace(ID_COND, to_weight=_two_faced_weight)
    assert eq.untied_correspondence(two_faced) == (11, 11)
    outcome = eq.all_sizes_check(*(getattr(two_faced, name) for name in eq.CORRESPONDENCE)).run(
        Context("quick", 0, Device.CPU))
    assert outcome.verdict.value == "refuted" and outcome.counterexample["c0"] == 11
