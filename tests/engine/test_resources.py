from theorems.engine import resources
from theorems.engine.context import Context
from theorems.engine.registry import Check, Claim
from theorems.engine.runner import run_claim
from theorems.engine.verdicts import Outcome, Verdict


def _claim_asking_for(bytes_per_size):
    def check(ctx):
        size = ctx.capped_size("n", 1 << 40, bytes_per_size, smallest=2)
        return Outcome(Verdict.SUPPORTED, f"ran at n = {size}", {"n": size})

    return Claim("giannou2023.lemma6", "test", (), (Check("sized", "randomized", check),), ())


def test_a_size_that_does_not_fit_is_capped_and_recorded():
    result = run_claim(_claim_asking_for(lambda n: 8.0 * n * n), Context("quick", 0, "cpu"))
    (cap,) = result.resources["capped"]
    used = result.checks[0].outcome.evidence["n"]
    assert cap == {**cap, "parameter": "n", "wanted": 1 << 40, "used": used, "device": "cpu"}
    assert 8.0 * used * used <= cap["bytes_budget"] < 8.0 * (2 * used) ** 2  # the largest on the halving ladder
    assert cap["where"] == "giannou2023.lemma6 sized"


def test_a_size_that_fits_is_not_recorded_and_caps_do_not_leak_into_the_next_claim():
    run_claim(_claim_asking_for(lambda n: 8.0 * n * n), Context("quick", 0, "cpu"))
    result = run_claim(_claim_asking_for(lambda n: 1.0), Context("quick", 0, "cpu"))
    assert result.resources["capped"] == []
    assert result.checks[0].outcome.evidence["n"] == 1 << 40


def test_peak_memory_is_measured():
    result = run_claim(_claim_asking_for(lambda n: 1.0), Context("quick", 0, "cpu"))
    assert result.resources["peak_resident_bytes"] > 10 * 2**20  # the interpreter with numpy and torch loaded


def test_available_memory_is_positive():
    assert resources.available_memory_bytes("cpu") > 0
