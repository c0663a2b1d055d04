"""theorems.maths.construction: the solves, folds and exact verification behind the constructions,
the methods behind one call and the torch modules built from the plans."""


import numpy as np
import pytest
import torch
from torch import nn

from theorems.maths import construction as cm
from theorems.maths.exact import fraction_array


def q(a):
    return fraction_array(a)


def test_diagonal_solve_is_lemma4_over_q():
    rng = np.random.default_rng(0)
    left, right, target = q(rng.integers(-9, 10, (2, 4))), q(rng.integers(-9, 10, (4, 2))), q([[1, 2], [3, 4]])
    gamma = cm.diagonal_solve(left, right, target)
    assert np.all(left @ (gamma[:, None] * right) == target)


def test_inconsistent_exact_system_fails_with_a_reason():
    with pytest.raises(cm.ConstructionFailed, match="inconsistent"):
        cm.solve_system(q([[1, 1], [1, 1]]), q([1, 2]))


def test_float_singular_system_fails():
    with pytest.raises(cm.ConstructionFailed, match="singular"):
        cm.solve_system(np.ones((3, 3)), np.arange(3.0))


def test_nullspace_vectors():
    m = q([[1, 2, 3], [2, 4, 7]])
    x = cm.nullspace_vector(m)
    assert np.all(m @ x == 0) and np.any(x != 0)
    y = cm.nullspace_vector(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 7.0]]))
    assert np.abs(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 7.0]]) @ y).max() < 1e-12
    with pytest.raises(cm.ConstructionFailed, match="trivial kernel"):
        cm.nullspace_vector(q([[1, 0], [0, 1]]))


def test_composite_coefficients_match_a_direct_product_in_the_fully_connected_case():
    rng = np.random.default_rng(1)
    first, second, gamma = rng.standard_normal((4, 3)), rng.standard_normal((2, 4)), rng.standard_normal(4)
    t = cm.composite_coefficients(second[:, :, None], first[:, :, None])
    assert np.allclose((t @ gamma)[:, :, 0], second @ (gamma[:, None] * first))


def test_composite_of_1d_filters_is_their_convolution():
    a, b = np.array([[[1.0, 2.0]]]), np.array([[[3.0, 0.0, -1.0]]])
    t = cm.composite_coefficients(b, a)
    assert np.allclose(t[0, 0, :, 0], np.convolve([1.0, 2.0], [3.0, 0.0, -1.0]))


def test_embed_target_centres_the_filter():
    out = cm.embed_target(np.ones((1, 1, 1)), (3,))
    assert out.tolist() == [[[0.0, 1.0, 0.0]]]
    with pytest.raises(ValueError, match="Δk < 0"):
        cm.embed_target(np.ones((1, 1, 3)), (1,))


def test_burkholz_widths_reproduce_the_paper():
    assert cm.burkholz_width(64, 64, 9, "min") == 36801
    assert cm.burkholz_width(64, 64, 9, "max") == 64 * 64 * 9


def test_batchnorm_affine_inverts_prop1():
    rng = np.random.default_rng(2)
    gamma, beta, bias, mean, var = rng.standard_normal((5, 3))
    var = np.abs(var) + 0.5
    weight, shift = cm.batchnorm_affine(gamma, beta, bias, mean, var, 1e-5)
    h = rng.standard_normal(3)  # W h, before the linear bias
    bn = weight * (h + bias - mean) / np.sqrt(var + 1e-5) + shift
    assert np.allclose(bn, gamma * h + beta)


def test_rank_factorization_exact_and_float():
    w = q([[1, 2, 3], [2, 4, 6], [1, 0, 1]])
    a, b = cm.rank_factorization(w, 2)
    assert np.all(a @ b == w)
    a, b = cm.rank_factorization(np.array([[1.0, 2.0], [2.0, 4.0]]), 1)
    assert np.allclose(a @ b, [[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(ValueError, match="exceeds"):
        cm.rank_factorization(w, 1)


def exact_setup(seed=0):
    rng = np.random.default_rng(seed)
    layers = [cm.Affine(q(rng.integers(-3, 4, (2, 2))), q(rng.integers(-2, 3, 2)), True),
              cm.Affine(q(rng.integers(-3, 4, (1, 2))), q([1]), False)]
    return layers, (lambda shape: q(rng.integers(-999, 1000, shape)))


@pytest.mark.parametrize("method", ["wide", "low_rank", "deep", "burkholz"])
def test_plans_are_exact_over_q(method):
    layers, draw = exact_setup()
    if method == "wide":
        plan, groups = cm.plan_wide(layers, draw), None
        groups = [plan[0:2], plan[2:4]]
    elif method == "low_rank":
        plan = cm.plan_low_rank(layers, draw, 2)
        groups = [plan[0:4], plan[4:8]]
    elif method == "deep":
        plan = cm.plan_deep(layers, draw, 1)
        groups = [[b] for b in plan]
    else:
        plan = cm.plan_burkholz(layers, draw)
        groups = [plan[0:2], plan[2:4]]
    assert cm.verify_exact(layers, groups) is None


def test_verify_exact_catches_a_dropped_shift_and_finds_a_witness():
    layers, draw = exact_setup(1)
    plan = cm.plan_wide(layers, draw, recipe=cm.Recipe(linearize=False))
    assert "not provably on" in cm.verify_exact(layers, [plan[0:2], plan[2:4]])
    hidden, _, _ = cm.affine_forms(plan[0:2], 2)
    points = np.array([-row / np.abs(row).sum() for g, _ in hidden for row in g if np.any(row != 0)], dtype=object)
    assert cm.exact_mismatch(layers, lambda x: cm.run_stages(plan, x), points) is not None


def test_deep_zero_block_gets_zero_scale():
    layers = [cm.Affine(q([[1, 0], [2, 0]]), q([0, 0]), False)]
    rng = np.random.default_rng(3)
    plan = cm.plan_deep(layers, lambda shape: q(rng.integers(-99, 100, shape)), 1)
    assert plan[0].order == (1, 0) and np.all(plan[0].gammas[0] == 0)
    assert cm.verify_exact(layers, [[plan[0]]]) is None


def test_solve_log_records_time_and_condition():
    log = cm.SolveLog()
    cm.solve_system(np.eye(3) * 2, np.ones(3), log)
    assert log.solves == 1 and log.worst_condition >= 1 and log.seconds >= 0


def test_compose_filters_sums_the_composite_coefficients():
    rng = np.random.default_rng(0)
    first, second = rng.standard_normal((3, 2, 2, 1)), rng.standard_normal((2, 3, 2, 3))
    expected = cm.composite_coefficients(second, first).sum(axis=-1).reshape(2, 2, 3, 3)
    assert np.allclose(cm.compose_filters(second, first), expected)
    assert np.allclose(cm.compose_filters(second[:, :, 0, 0], first[:, :, 0, 0]),
                       second[:, :, 0, 0] @ first[:, :, 0, 0])


# ---------------------------------------------------------------- methods and torch modules

def float_target():
    torch.manual_seed(0)
    target = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2)).double()
    target[1].running_mean.uniform_(-1, 1)
    target[1].running_var.uniform_(0.5, 2)
    return target.eval()


def test_target_layers_fold_batchnorm_into_the_linear_before_it():
    target = float_target()
    layers = cm.target_layers(target)
    assert [layer.weight.shape for layer in layers] == [(4, 3), (2, 4)]
    assert [layer.relu for layer in layers] == [True, False]
    x = torch.randn(20, 3, dtype=torch.float64)
    with torch.no_grad():
        assert np.allclose(cm.run_target(layers, x.numpy()), target(x).numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("method, options", [("wide", {}), ("low_rank", {}), ("deep", {"k": 2}), ("burkholz", {})])
def test_module_of_computes_its_plan(method, options):
    """The torch source (frozen biases and running statistics from the draws, BatchNorm
    parameters from batchnorm_affine) computes the function of its float64 plan."""
    layers = cm.target_layers(float_target())
    draws = cm.Draws(1)
    built = cm.plan(layers, method, draws, **options)
    source = cm.module_of(built, draws, torch.float64)
    assert not source.training
    x = np.random.default_rng(2).standard_normal((20, 3))
    run = cm.run_blocks if method == "deep" else cm.run_stages
    with torch.no_grad():
        assert np.allclose(source(torch.from_numpy(x)).numpy(), run(built, x), rtol=1e-9, atol=1e-9)


def test_source_module_is_fixed_by_the_seed():
    layers = cm.target_layers(float_target())
    first, second = (cm.source_module(layers, "wide", 5, torch.float64) for _ in range(2))
    assert all(torch.equal(a, b) for a, b in zip(first.state_dict().values(), second.state_dict().values(),
                                                 strict=True))


def test_sparse_support_check_names_the_layer_of_a_singular_mask():
    with pytest.raises(cm.ConstructionFailed, match=r"target layer 3: .*perfect matching"):
        cm.sparse_support_check(3, np.zeros((4, 2)), np.ones((2, 4)))
    cm.sparse_support_check(0, np.ones((4, 2)), np.ones((2, 4)))


def test_the_torch_classes_are_made_once_and_pickle_by_their_name():
    import pickle

    from theorems import constructions

    assert cm.FrozenBatchNorm1d is cm.torch_class("FrozenBatchNorm1d") is constructions.FrozenBatchNorm1d
    assert cm.FrozenBatchNorm1d.__module__ == "theorems.maths.construction.modules"
    module = pickle.loads(pickle.dumps(cm.FrozenBatchNorm2d(3)))
    assert type(module) is cm.FrozenBatchNorm2d and isinstance(module, nn.BatchNorm2d)
    with pytest.raises(AttributeError):
        cm.FrozenBatchNorm3d  # noqa: B018


@pytest.mark.parametrize("frozen, plain, shape", [(cm.FrozenBatchNorm1d, nn.BatchNorm1d, (8, 3)),
                                                  (cm.FrozenBatchNorm2d, nn.BatchNorm2d, (8, 3, 4, 4))])
def test_frozen_batchnorm_in_training_mode_is_batchnorm_in_eval_mode(frozen, plain, shape):
    reference = plain(3, dtype=torch.float64)
    with torch.no_grad():
        for tensor in (reference.weight, reference.bias, reference.running_mean):
            tensor.normal_()
        reference.running_var.uniform_(0.5, 2)
    module = frozen(3, dtype=torch.float64)
    module.load_state_dict(reference.state_dict())
    assert isinstance(module, plain) and module.weight.requires_grad and module.bias.requires_grad
    x = torch.randn(shape, dtype=torch.float64)
    assert torch.equal(module.train()(x), reference.eval()(x))
    assert all(torch.equal(a, b) for a, b in zip(module.state_dict().values(), reference.state_dict().values(),
                                                 strict=True))  # running statistics untouched
