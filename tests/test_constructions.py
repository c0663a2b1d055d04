"""The public construction API: theorems.constructions.build_source."""

from itertools import pairwise

import pytest
import torch
from torch import nn

from theorems.constructions import (
    ConstructionFailed,
    ConstructionInputError,
    FrozenBatchNorm1d,
    FrozenBatchNorm2d,
    build_source,
)


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


def test_low_rank_accepts_a_float32_target_of_exact_rank():
    """The rank is read at float32 precision: a float32 product of rank 2 is rank 2, not 6."""
    torch.manual_seed(0)
    target = nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 2)).eval()
    with torch.no_grad():
        target[0].weight.copy_(torch.randn(6, 2) @ torch.randn(2, 6) / 3)
    for rank in (2, None):  # None: the largest rank of a target weight, here 2
        source = build_source(target, method="low_rank", rank=rank, seed=0)
        assert [m.out_features for m in source if isinstance(m, nn.Linear)][:2] == [2 * 6, 2]
        x = ball_points(6, torch.float32)
        with torch.no_grad():
            assert (source(x) - target(x)).abs().max() < 1e-3


def conv_network():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.ReLU(), nn.Conv2d(3, 2, 3, padding=1)).double().eval()


TRAINED = [(user_network, {"method": "wide"}, lambda: ball_points(4, torch.float64)),
           (user_network, {"method": "burkholz"}, lambda: ball_points(4, torch.float64)),
           (conv_network, {"method": "burkholz"}, lambda: torch.randn(16, 2, 5, 5, dtype=torch.float64))]
TRAINED_IDS = ["wide", "burkholz", "burkholz-conv"]


@pytest.mark.parametrize("make_target, options, points", TRAINED + [
    (user_network, {"method": "deep", "k": 2}, lambda: ball_points(4, torch.float64))], ids=TRAINED_IDS + ["deep"])
def test_source_stays_the_target_in_training_mode(make_target, options, points):
    target, x = make_target(), points()
    source = build_source(target, seed=0, **options).train()
    norms = [m for m in source.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    assert norms and all(isinstance(m, (FrozenBatchNorm1d, FrozenBatchNorm2d)) for m in norms)
    buffers = {name: b.clone() for name, b in source.named_buffers()}
    with torch.no_grad():
        assert (source(x) - target(x)).abs().max() < 1e-9
        source(3 * x + 1)  # a batch with other statistics
    assert all(torch.equal(b, buffers[name]) for name, b in source.named_buffers())


@pytest.mark.parametrize("make_target, options, points", TRAINED, ids=TRAINED_IDS)
def test_batch_statistics_break_the_equality_in_training_mode(make_target, options, points):
    """The near miss: plain BatchNorm (statistics="batch") equals the target in eval mode only;
    its state dict is the frozen source's, key for key."""
    target, x = make_target(), points()
    plain = build_source(target, seed=0, statistics="batch", **options)
    frozen = build_source(target, seed=0, **options)
    assert not any(isinstance(m, (FrozenBatchNorm1d, FrozenBatchNorm2d)) for m in plain.modules())
    assert plain.state_dict().keys() == frozen.state_dict().keys()
    assert all(torch.equal(a, b) for a, b in zip(plain.state_dict().values(), frozen.state_dict().values(),
                                                 strict=True))
    with torch.no_grad():
        assert (plain(x) - target(x)).abs().max() < 1e-9
        assert (plain.train()(x) - target(x)).abs().max() > 1e-2


@pytest.mark.parametrize("make_target, options, points", TRAINED, ids=TRAINED_IDS)
def test_fine_tuning_in_training_mode_lowers_the_loss(make_target, options, points):
    """An optimizer over the BatchNorm weight and bias, in training mode, fits a perturbed target."""
    target, x = make_target(), points()
    source = build_source(target, seed=0, **options).train()
    with torch.no_grad():
        for parameter in target.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
        y = target(x)
    optimizer = torch.optim.SGD([p for p in source.parameters() if p.requires_grad], lr=1e-4)
    losses = []
    for _ in range(10):
        loss = ((source(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert all(after < before for before, after in pairwise(losses))  # every step lowers it


def with_nan(target, index):
    with torch.no_grad():
        target[index].weight.view(-1)[0] = float("nan")
    return target


def batchnorm_statistic(name, value):
    target = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)).eval()
    getattr(target[1], name).fill_(value)
    return target


def linear3():
    return nn.Sequential(nn.Linear(3, 3))


BAD_INPUTS = [  # (target factory, options, message substring)
    (lambda: nn.Sequential(nn.Linear(3, 3), nn.Tanh()), {}, "layer 1 (Tanh): unsupported layer type"),
    (lambda: nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(3, 2)), {},
     "layer 2 (Linear): in_features 3 does not match"),
    (lambda: nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(4)).eval(), {}, "layer 1 (BatchNorm1d): num_features 4"),
    (lambda: nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3).train()), {}, "eval mode"),
    (lambda: batchnorm_statistic("running_var", -1.0), {}, "layer 1 (BatchNorm1d): running_var + eps must be"),
    (lambda: batchnorm_statistic("running_mean", float("nan")), {}, "layer 1 (BatchNorm1d): running statistics"),
    (lambda: nn.Sequential(nn.ReLU(), nn.Linear(3, 3)), {}, "layer 0 (ReLU)"),
    (lambda: nn.Sequential(nn.ReLU()), {}, "layer 0 (ReLU)"),
    (lambda: nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 3)), {}, "two affine layers in a row"),
    (lambda: nn.Sequential(), {}, "target has no layers"),
    (lambda: [nn.Linear(3, 3)], {}, "target must be a torch.nn.Sequential, got list"),
    (lambda: nn.Linear(3, 3), {}, "target must be a torch.nn.Sequential, got Linear"),
    (lambda: with_nan(linear3(), 0), {}, "layer 0 (Linear): weight or bias has NaN"),
    (lambda: nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2).double()), {}, "float32 or all float64"),
    (lambda: linear3().half(), {}, "float32 or all float64"),
    (linear3, {"method": "deep", "k": 4}, "k must be an integer in [1, 3]"),
    (linear3, {"method": "deep", "k": 2.5}, "k must be an integer in [1, 3] (the target's input width, for method "
                                            "'deep'), got 2.5"),
    (linear3, {"method": "deep"}, "got None"),
    (linear3, {"method": "sparse", "p": 0.0}, "p = 0.0 outside (0, 1]"),
    (linear3, {"method": "sparse", "p": 1.5}, "outside (0, 1]"),
    (linear3, {"method": "low_rank", "rank": 0}, "rank = 0 must be an integer ≥ 1"),
    (linear3, {"method": "low_rank", "rank": 1}, "has rank 3 > rank = 1"),
    (linear3, {"method": "burkholz", "width": "huge"}, "width = 'huge'"),
    (linear3, {"method": "magic"}, "unknown method 'magic'"),
    (linear3, {"radius": -1.0}, "radius = -1.0 must be positive"),
    (linear3, {"seed": "abc"}, "seed must be an integer ≥ 0, got 'abc'"),
    (linear3, {"seed": -1}, "seed must be an integer ≥ 0, got -1"),
    (linear3, {"statistics": "running"}, "statistics = 'running'"),
    (lambda: nn.Sequential(nn.Conv1d(2, 2, 3, padding="same")), {"method": "wide"}, "need method='burkholz'"),
    (lambda: nn.Sequential(nn.Conv1d(2, 2, 3, stride=2, padding=1)), {"method": "burkholz"},
     "layer 0 (Conv1d): only stride 1"),
    (lambda: nn.Sequential(nn.Conv1d(2, 2, 2, padding="same")), {"method": "burkholz"}, "odd kernels"),
    (lambda: nn.Sequential(nn.Conv1d(2, 2, 3)), {"method": "burkholz"}, "'same' zero padding"),
    (lambda: nn.Sequential(nn.Conv1d(2, 3, 1), nn.Conv1d(2, 2, 1)), {"method": "burkholz"},
     "in_channels 2 does not match"),
    (lambda: nn.Sequential(nn.Conv1d(2, 2, 1), nn.Conv2d(2, 2, 1)), {"method": "burkholz"}, "mixes 1-D and 2-D"),
    (lambda: nn.Sequential(nn.Conv1d(2, 2, 1), nn.Flatten()), {"method": "burkholz"},
     "layer 1 (Flatten): unsupported"),
    (lambda: with_nan(nn.Sequential(nn.Conv2d(2, 2, 3, padding=1), nn.ReLU(), nn.Conv2d(2, 1, 1)), 2),
     {"method": "burkholz"}, "layer 2 (Conv2d): weight or bias has NaN"),
]


@pytest.mark.parametrize("make_target, options, message", BAD_INPUTS, ids=[row[2][:40] for row in BAD_INPUTS])
def test_bad_input_is_one_line_naming_the_problem(make_target, options, message):
    with pytest.raises(ConstructionInputError) as raised:
        build_source(make_target(), **options)
    assert message in str(raised.value) and "\n" not in str(raised.value)


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
