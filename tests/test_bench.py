import json

import pytest

from theorems.bench import benchmark_certificate
from theorems.cli import main
from theorems.maths import exact


def test_certificate_row_engine_flint_and_lu_on_one_matrix():
    row = benchmark_certificate(400, seed=0, threads=1)  # 400×400: above exact.ENGINE_ABOVE, the engine's own path
    assert row["size"] == 400 and row["device"] == "cpu" and row["threads"] == 1 and row["lu_measured_at"] == 400
    assert row["det_mod_p_nonzero"] and row["flint_agrees"]
    assert row["ratio"] == pytest.approx(row["certificate_s"] / row["lu_s"])
    assert min(row["certificate_s"], row["flint_s"], row["lu_s"]) > 0
    assert row["peak_bytes"] is None or row["peak_per_copy"] == pytest.approx(row["peak_bytes"] / (8 * 400**2))
    assert 400 > exact.ENGINE_ABOVE


def test_lu_time_is_extrapolated_by_n_cubed_where_two_copies_do_not_fit(monkeypatch):
    from theorems.engine import resources

    monkeypatch.setattr(resources, "available_memory_bytes", lambda device: int(1.5 * 8 * 900**2))
    row = benchmark_certificate(900, seed=0, threads=1, lu_reference=(400, 0.01))
    assert row["lu_measured_at"] == 400 and row["lu_s"] == pytest.approx(0.01 * (900 / 400) ** 3)
    with pytest.raises(ValueError, match="smaller size first"):
        benchmark_certificate(900, seed=0, threads=1)


def test_certificate_json_keys(capsys):
    assert main(["bench", "certificate", "--sizes", "16", "--threads", "1", "2", "--repeat", "2", "--device", "cpu",
                 "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["threads"] for row in rows] == [1, 2] and {row["repeat"] for row in rows} == {2}
    assert {"size", "device", "threads", "certificate_s", "flint_s", "lu_s", "ratio", "peak_bytes"} <= set(rows[0])


@pytest.mark.parametrize("size, device, message", [(15, "cpu", "perfect square"), (16, "tpu", "device")])
def test_bad_arguments(size, device, message):
    with pytest.raises(ValueError, match=message):
        benchmark_certificate(size, seed=0, device=device)


@pytest.mark.parametrize("option, message", [("--threads", "BLAS threads must be ≥ 1"),
                                             ("--repeat", "repeats must be ≥ 1")])
def test_bad_counts_are_one_line_and_exit_2(option, message, capsys):
    assert main(["bench", "certificate", "--sizes", "16", option, "0"]) == 2
    assert message in capsys.readouterr().err


def test_bench_all_writes_every_benchmark_and_the_report_includes_them(tmp_path, monkeypatch, capsys):
    import functools

    from theorems import bench as benchmarks
    from theorems import cli
    from theorems.maths import bn_chain

    # The chain benchmark at its default d = 256 takes seconds, the startup benchmark's five rounds too; their
    # own tests cover them.
    small_chain = functools.partial(bn_chain.benchmark_chain, d=8, n=8, layers=2, rounds=1)
    monkeypatch.setattr(bn_chain, "benchmark_chain", small_chain)
    monkeypatch.setattr(benchmarks, "benchmark_startup", functools.partial(benchmarks.benchmark_startup, repeat=1))
    assert main(["bench", "all", "--sizes", "16", "--threads", "1", "--dims", "2", "--out", str(tmp_path)]) == 0
    bench = json.loads((tmp_path / "bench.json").read_text())
    assert [row["size"] for row in bench["certificate"]] == [16] and bench["certificate"][0]["flint_agrees"]
    assert bench["chain"]["d"] == 8 and bench["chain"]["ratio"] > 0
    assert [row["d"] for row in bench["construction"]] == [2]
    assert bench["environment"]["git_commit"]
    assert [row["command"] for row in bench["startup"]] == ["theorems list", "theorems list --json", "theorems --help"]
    assert "| exact certificate (det mod p) | 16², 1 BLAS thread(s) |" in (tmp_path / "bench.md").read_text()
    assert "| startup: theorems list | a new process, median of 1 |" in (tmp_path / "bench.md").read_text()

    monkeypatch.setattr(cli, "claims", lambda *packages: {})  # a report with no claims: only the benchmarks matter here
    assert main(["report", "--profile", "quick", "--out", str(tmp_path), "--html"]) == 0
    assert json.loads((tmp_path / "report.json").read_text())["benchmarks"] == bench
    assert "## Performance" in (tmp_path / "report.md").read_text()
    assert '<h2 id="performance">Performance</h2>' in (tmp_path / "html" / "index.html").read_text()


def test_startup_rows_time_each_command_against_the_bare_interpreter(capsys):
    assert main(["bench", "startup", "--repeat", "1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["command"] for row in rows] == ["theorems list", "theorems list --json", "theorems --help"]
    for row in rows:
        assert row["difference_s"] == pytest.approx(row["seconds"] - row["bare_s"])
        assert row["ratio"] == pytest.approx(row["seconds"] / row["bare_s"]) and row["repeat"] == 1
        assert row["peak_bytes"] > 0 and row["bare_peak_bytes"] > 0
        assert row["imports"] == []  # none of torch, matplotlib, scipy.stats, sympy, flint, hypothesis, numpy
    assert [row["goal_s"] for row in rows] == [0.5, None, None]
    assert main(["bench", "startup", "--repeat", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("theorems list: ") and "bare interpreter" in lines[0]
    assert "goal: under +0.5 s on a quiet machine" in lines[0] and "median of 1" in lines[0]
    assert "imports none of torch, matplotlib, scipy.stats" in lines[2]
