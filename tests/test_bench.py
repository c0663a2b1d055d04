import json

import pytest

from theorems.bench import benchmark_certificate
from theorems.cli import main
from theorems.maths import exact


def test_certificate_row_engine_flint_and_lu_on_one_matrix():
    row = benchmark_certificate(400, seed=0)  # 400×400: above exact.ENGINE_ABOVE, so the engine's own path
    assert row["size"] == 400 and row["device"] == "cpu"
    assert row["det_mod_p_nonzero"] and row["flint_agrees"]
    assert row["ratio"] == pytest.approx(row["certificate_s"] / row["lu_s"])
    assert min(row["certificate_s"], row["flint_s"], row["lu_s"]) > 0
    assert 400 > exact.ENGINE_ABOVE


def test_certificate_json_keys(capsys):
    assert main(["bench", "certificate", "--sizes", "16", "--device", "cpu", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert {"size", "device", "certificate_s", "flint_s", "lu_s", "ratio"} <= set(row)


@pytest.mark.parametrize("size, device, message", [(15, "cpu", "perfect square"), (16, "tpu", "device")])
def test_bad_arguments(size, device, message):
    with pytest.raises(ValueError, match=message):
        benchmark_certificate(size, seed=0, device=device)
