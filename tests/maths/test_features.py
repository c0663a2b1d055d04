"""Feature machinery: Khatri–Rao feature matrices, the proposed families, exact least squares, the torch student."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from theorems.maths import exact, features

FAST = settings(max_examples=40, deadline=None, database=None, derandomize=True)


def brute_feature_matrix(w1, w2):
    c1, c0 = w1.shape
    c2 = w2.shape[0]
    m = np.zeros((c0 * c2, c1), dtype=np.result_type(w1, w2))
    for i, j, k in itertools.product(range(c2), range(c0), range(c1)):
        m[i * c0 + j, k] = w2[i, k] * w1[k, j]
    return m


@FAST
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 5), st.data())
def test_feature_matrix_matches_its_definition(c0, c2, c1, data):
    w1 = data.draw(hnp.arrays(np.int64, (c1, c0), elements=st.integers(-3, 3)))
    w2 = data.draw(hnp.arrays(np.int64, (c2, c1), elements=st.integers(-3, 3)))
    m = features.feature_matrix(w1, w2)
    assert (m == brute_feature_matrix(w1, w2)).all()
    gamma = data.draw(hnp.arrays(np.int64, (c1,), elements=st.integers(-3, 3)))
    assert (features.effective_weight(w1, w2, gamma).ravel() == m @ gamma).all()


@pytest.mark.parametrize("c0, c2", [(1, 1), (2, 3), (3, 2), (4, 4)])
def test_id_cond_is_identity_and_minimal_variant_shares_input_zero(c0, c2):
    w1, w2 = features.id_cond(c0, c2)
    assert (features.feature_matrix(w1, w2) == np.eye(c0 * c2)).all()
    w1, w2 = features.id_cond_minimal(c0, c2)
    assert w1.shape == (c2 * (c0 - 1) + 1, c0)
    gamma = np.arange(1, w1.shape[0] + 1)
    weight = features.effective_weight(w1, w2, gamma)
    assert (weight[:, 0] == gamma[0]).all()
    assert sorted(weight[:, 1:].ravel().tolist()) == gamma[1:].tolist()


def test_ortho_cond_is_kronecker_and_orthogonal():
    rng = np.random.default_rng(0)
    u1, u2 = features.haar_orthogonal(rng, 3), features.haar_orthogonal(rng, 4)
    m = features.feature_matrix(*features.ortho_cond_layers(u1, u2))
    assert np.allclose(m, np.kron(u2, u1.T))
    assert np.allclose(m.T @ m, np.eye(12))


def test_cayley_orthogonal_is_exactly_orthogonal():
    s = np.array([[0, 1, -2], [-1, 0, 3], [2, -3, 0]], dtype=object)
    q = features.cayley_orthogonal(s)
    assert (q.T.dot(q) == np.eye(3, dtype=object)).all()
    with pytest.raises(ValueError, match="skew"):
        features.cayley_orthogonal(np.array([[0, 1], [1, 0]], dtype=object))


@pytest.mark.parametrize("family", features.FAMILIES)
def test_random_families_have_their_shapes_and_patterns(family):
    rng = np.random.default_rng(1)
    w1, w2 = features.random_layers(family, rng, 3, 12, 4)
    assert w1.shape == (12, 3) and w2.shape == (4, 12)
    if family == "orthogonal":
        assert np.allclose(w1.T @ w1, np.eye(3)) and np.allclose(w2 @ w2.T, np.eye(4))
    if family == "er_sign":
        assert set(np.unique(w1)) <= {-1.0, 0.0, 1.0}
    with pytest.raises(ValueError, match="unknown feature family"):
        features.random_layer("xavier", rng, 2, 2)


@FAST
@given(st.integers(1, 4), st.integers(1, 4), st.data())
def test_exact_pseudo_inverse_satisfies_penrose_equations(rows, cols, data):
    a = data.draw(hnp.arrays(np.int64, (rows, cols), elements=st.integers(-2, 2)))
    a_q = exact.fmpq_matrix(a)
    pinv = features.pinv_exact(a)
    assert a_q * pinv * a_q == a_q and pinv * a_q * pinv == pinv
    assert (a_q * pinv).transpose() == a_q * pinv and (pinv * a_q).transpose() == pinv * a_q
    v = data.draw(hnp.arrays(np.int64, (rows,), elements=st.integers(-3, 3)))
    _, residual = features.least_squares_exact(a, v)
    expected = float(np.sum((a @ np.linalg.pinv(a.astype(float)) @ v - v) ** 2))
    assert abs(float(residual) - expected) < 1e-9 and isinstance(residual, Fraction)


def test_nullspace_basis_spans_the_kernel():
    a = exact.fmpq_matrix(np.array([[1, 2, 3], [2, 4, 6]]))
    basis = features.nullspace_basis(a)
    assert len(basis) == 2
    for vector in basis:
        assert all(sum((a[i, j] * vector[j] for j in range(3)), 0) == 0 for i in range(2))


def test_condition_number_uses_the_smallest_nonzero_singular_value():
    assert features.condition_number(np.diag([4.0, 2.0, 0.0])) == pytest.approx(2.0)
    assert features.condition_number(np.zeros((2, 2))) == float("inf")


def test_feature_layer_computes_the_student_and_trains_only_the_scales():
    w1, w2 = features.id_cond(2, 3)
    layer = features.FeatureLayer(w1, w2, gamma1=np.arange(6.0), gamma2=[1.0, 2.0, 3.0])
    x = torch.randn(5, 2, dtype=torch.float64)
    assert torch.allclose(layer(x), x @ layer.effective_weight().T)
    assert torch.allclose(layer.effective_weight(), torch.tensor([[0.0, 1], [4, 6], [12, 15]], dtype=torch.float64))
    assert {name for name, _ in layer.named_parameters()} == {"scale1.gamma", "scale2.gamma"}
    assert features.FeatureLayer is features.FeatureLayer


def test_bad_inputs_raise_one_line_errors():
    with pytest.raises(ValueError, match="one column per feature"):
        features.feature_matrix(np.ones((3, 2)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="NaN"):
        features.feature_matrix(np.full((2, 2), np.nan), np.ones((2, 2)))
    with pytest.raises(ValueError, match="positive integer"):
        features.id_cond(0, 2)
    with pytest.raises(ValueError, match="γ1"):
        features.effective_weight(np.ones((2, 2)), np.ones((2, 2)), np.ones(3))
    with pytest.raises(ValueError, match="floating"):
        features.FrozenLinear(torch.ones(2, 2, dtype=torch.int64))


@pytest.mark.parametrize("c0, c2, c1", [(3, 4, 12), (3, 4, 7), (5, 2, 1), (1, 1, 1)])
def test_feature_singular_values_match_the_svd_of_m(c0, c2, c1):
    rng = np.random.default_rng(c0 * 100 + c2 * 10 + c1)
    w1, w2 = rng.standard_normal((c1, c0)), rng.standard_normal((c2, c1))
    expected = features.singular_values(features.feature_matrix(w1, w2))[:c1]
    assert np.allclose(features.feature_singular_values(w1, w2), expected, rtol=0, atol=1e-12 * expected[0])
    with pytest.raises(ValueError, match="c0·c2"):
        features.feature_singular_values(rng.standard_normal((13, 3)), rng.standard_normal((4, 13)))


def test_one_definition_gives_the_same_entries_at_symbolic_and_integer_sizes():
    n, m = sympy.symbols("n m", integer=True, positive=True)
    def entry(r, c):
        return features.indicator(features.divide(r, 2)[1], c)

    general = features.indexed_matrix(n, m, entry)
    concrete = features.indexed_matrix(5, 3, entry)
    assert concrete.shape == (5, 3) and concrete.dtype == np.int64
    assert all(general.lamda(r, c) == concrete[r, c] for r in range(5) for c in range(3))
    assert (features.indexed_vector(4, lambda k: 3 * k) == [0, 3, 6, 9]).all()
    assert features.indexed_vector(n, lambda k: 3 * k)[2, 0] == 6
