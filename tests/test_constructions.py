"""The public construction API: theorems.constructions.build_source."""

import pytest
import torch
from torch import nn

from theorems.constructions import ConstructionFailed, build_source


def user_network(dtype=torch.float64, seed=0):
    torch.manual_seed(seed)
    net = nn.Sequential(nn.Linear(4, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Linear(5, 3), nn.ReLU(),
                        nn.Linear(3, 2)).to(dtype)
    net[1].running_mean.uniform_(-1, 1)
    net[1].running_var.uniform_(0.5, 2)
    return net.eval()


def ball_points(d, dtype, count=500, seed=1):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(count, d, generator=g, dtype=dtype)
    return x / x.norm(dim=1, keepdim=True) * torch.rand(count, 1, generator=g, dtype=dtype)


METHODS = [{"method": "wide"}, {"method": "low_rank"}, {"method": "low_rank", "rank": 4},
           {"method": "deep", "k": 1}, {"method": "deep", "k": 2}, {"method": "deep", "k": 4},
           {"method": "sparse", "p": 1.0}, {"method": "burkholz"}, {"method": "burkholz", "width": "max"}]


@pytest.mark.parametrize("options", METHODS, ids=lambda o: "-".join(map(str, o.values())))
@pytest.mark.parametrize("dtype, tolerance", [(torch.float64, 1e-9), (torch.float32, 5e-2)])
def test_source_equals_target_on_the_ball(options, dtype, tolerance):
    target = user_network(dtype)
    source = build_source(target, seed=3, **options)
    assert not source.training
    assert all(p.dtype == dtype for p in source.parameters())
    x = ball_points(4, dtype)
    with torch.no_grad():
        assert (source(x) - target(x)).abs().max() < tolerance


@pytest.mark.parametrize("options", METHODS[:1] + METHODS[3:4] + METHODS[7:8], ids=lambda o: o["method"])
def test_only_normalization_scales_and_shifts_are_trainable(options):
    source = build_source(user_network(), seed=0, **options)
    trainable = {name for name, p in source.named_parameters() if p.requires_grad}
    norms = {f"{name}.{kind}" for name, m in source.named_modules() if isinstance(m, nn.BatchNorm1d)
             for kind in ("weight", "bias")}
    assert trainable == norms and norms
    for module in source.modules():
        if isinstance(module, nn.BatchNorm1d):
            assert module.running_var.min() > 0 and module.running_mean.abs().sum() > 0


def test_radius_extends_the_domain():
    target = user_network()
    source = build_source(target, seed=0, radius=10.0)
    x = 10 * ball_points(4, torch.float64)
    with torch.no_grad():
        assert (source(x) - target(x)).abs().max() < 1e-8


def test_the_seed_fixes_the_source():
    a, b = build_source(user_network(), seed=5), build_source(user_network(), seed=5)
    assert all(torch.equal(p, q) for p, q in zip(a.state_dict().values(), b.state_dict().values(), strict=True))


@pytest.mark.parametrize("target, options, message", [
    (nn.Sequential(nn.Linear(3, 3), nn.Tanh()), {}, r"layer 1 \(Tanh\): unsupported layer type"),
    (nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(3, 2)), {},
     r"layer 2 \(Linear\): in_features 3 does not match"),
    (nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(4)).eval(), {}, r"layer 1 \(BatchNorm1d\): num_features 4"),
    (nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3).train()), {}, "eval mode"),
    (nn.Sequential(nn.ReLU(), nn.Linear(3, 3)), {}, r"layer 0 \(ReLU\)"),
    (nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 3)), {}, "two affine layers in a row"),
    (nn.Sequential(nn.Linear(3, 3)), {"method": "deep", "k": 4}, r"k = 4 outside \[1, 3\]"),
    (nn.Sequential(nn.Linear(3, 3)), {"method": "deep"}, r"k = None outside"),
    (nn.Sequential(nn.Linear(3, 3)), {"method": "sparse", "p": 0.0}, r"p = 0.0 outside \(0, 1\]"),
    (nn.Sequential(nn.Linear(3, 3)), {"method": "sparse", "p": 1.5}, r"outside \(0, 1\]"),
    (nn.Sequential(nn.Linear(3, 3)), {"method": "low_rank", "rank": 0}, r"rank = 0 must be an integer ≥ 1"),
    (nn.Sequential(nn.Linear(3, 3)), {"method": "low_rank", "rank": 1}, "has rank 3 > rank = 1"),
    (nn.Sequential(nn.Linear(3, 3)), {"method": "burkholz", "width": "huge"}, "width = 'huge'"),
    (nn.Sequential(nn.Linear(3, 3)), {"method": "magic"}, "unknown method 'magic'"),
    (nn.Sequential(nn.Linear(3, 3)), {"radius": -1.0}, "radius"),
    (nn.Linear(3, 3), {}, "nn.Sequential"),
])
def test_bad_input_is_a_value_error_naming_the_problem(target, options, message):
    with pytest.raises(ValueError, match=message):
        build_source(target, **options)


def test_nan_weights_are_rejected():
    target = nn.Sequential(nn.Linear(2, 2))
    with torch.no_grad():
        target[0].weight[0, 0] = float("nan")
    with pytest.raises(ValueError, match="NaN"):
        build_source(target)


def test_mixed_dtypes_are_rejected():
    target = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2).double())
    with pytest.raises(ValueError, match="float32 or all float64"):
        build_source(target)


def test_sparse_construction_fails_loudly_when_masks_are_degenerate():
    with pytest.raises(ConstructionFailed, match=r"target layer 0: .*perfect matching"):
        build_source(nn.Sequential(nn.Linear(3, 3)).double(), method="sparse", p=0.05, seed=0)


def test_deep_handles_zero_column_blocks_by_reordering():
    target = nn.Sequential(nn.Linear(3, 2)).double()
    with torch.no_grad():
        target[0].weight.copy_(torch.tensor([[1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]))
    source = build_source(target, method="deep", k=1)
    x = ball_points(3, torch.float64)
    with torch.no_grad():
        assert (source(x) - target(x)).abs().max() < 1e-10


def test_construction_benchmark_contract():
    from theorems.bench import benchmark_construction

    row = benchmark_construction(3, seed=0)
    assert row["source_width"] == 9 and row["solves"] >= 2 and 0 < row["solve_share"] <= 1
    assert row["max_abs_error"] < 1e-10
    with pytest.raises(ValueError, match="≥ 1"):
        benchmark_construction(0, seed=0)


def test_cli_bench_construction(capsys):
    from theorems import cli

    assert cli.main(["bench", "construction", "--dims", "2", "--json"]) == 0
    assert '"source_width": 4' in capsys.readouterr().out


@pytest.mark.parametrize("dims, width", [(1, "min"), (1, "max"), (2, "min")])
def test_convolutional_targets_with_burkholz(dims, width):
    torch.manual_seed(0)
    conv = nn.Conv1d if dims == 1 else nn.Conv2d
    target = nn.Sequential(conv(2, 3, 3, padding="same"), nn.ReLU(), conv(3, 2, 1), nn.ReLU(),
                           conv(2, 1, 3, padding=1)).double().eval()
    source = build_source(target, method="burkholz", width=width, seed=0)
    assert {n for n, p in source.named_parameters() if p.requires_grad} == {
        f"{n}.{kind}" for n, m in source.named_modules() if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d))
        for kind in ("weight", "bias")}
    x = torch.randn((4, 2) + (7,) * dims, dtype=torch.float64)
    with torch.no_grad():
        assert (source(x) - target(x)).abs().max() < 1e-9


@pytest.mark.parametrize("target, options, message", [
    (nn.Sequential(nn.Conv1d(2, 2, 3, padding="same")), {"method": "wide"}, "need method='burkholz'"),
    (nn.Sequential(nn.Conv1d(2, 2, 3, stride=2, padding=1)), {"method": "burkholz"},
     r"layer 0 \(Conv1d\): only stride 1"),
    (nn.Sequential(nn.Conv1d(2, 2, 2, padding="same")), {"method": "burkholz"}, "odd kernels"),
    (nn.Sequential(nn.Conv1d(2, 2, 3)), {"method": "burkholz"}, "'same' zero padding"),
    (nn.Sequential(nn.Conv1d(2, 3, 1), nn.Conv1d(2, 2, 1)), {"method": "burkholz"}, "in_channels 2 does not match"),
    (nn.Sequential(nn.Conv1d(2, 2, 1), nn.Conv2d(2, 2, 1)), {"method": "burkholz"}, "mixes 1-D and 2-D"),
    (nn.Sequential(nn.Conv1d(2, 2, 1), nn.Flatten()), {"method": "burkholz"}, r"layer 1 \(Flatten\): unsupported"),
])
def test_bad_convolutional_targets(target, options, message):
    with pytest.raises(ValueError, match=message):
        build_source(target, **options)
