"""Running a claim's checks: a check that raises is a crash, reported in one line; a statistical check
states its power and never certifies."""

import subprocess
import sys

import pytest

from theorems.engine.context import Context
from theorems.engine.registry import Check
from theorems.engine.runner import CRASH_MESSAGE_CHARACTERS, run_check
from theorems.engine.verdicts import Outcome, Verdict
from theorems.errors import CheckCrashed, ClaimDefinitionError

CONTEXT = Context("quick", 1, "cpu")


def test_a_check_that_raises_is_a_crash_named_in_one_short_line():
    def raises(ctx):
        raise TypeError("Could not serialize object of type X\n" + "a long repr, " * 10_000)

    with pytest.raises(CheckCrashed) as crash:
        run_check(Check("serializes", "randomized", raises), "demo.claim", CONTEXT)
    message = str(crash.value)
    assert message.startswith("check 'serializes' of demo.claim crashed: TypeError: Could not serialize object")
    assert "\n" not in message and len(message) < CRASH_MESSAGE_CHARACTERS + 80
    assert "a long repr" in str(crash.value.__cause__)  # the whole message stays on the cause
    # the suite's own claim: an internal error, with the original traceback kept as text
    assert crash.value.package is None and "in raises\n    raise TypeError(" in crash.value.traceback


def test_a_check_found_malformed_as_it_runs_is_a_definition_error_of_its_claim_not_a_crash():
    def malformed(ctx):
        raise ClaimDefinitionError("check 'sides': for n = 1 the lhs is of type str")

    with pytest.raises(ClaimDefinitionError, match=r"^demo\.claim: check 'sides': for n = 1 the lhs is of type str$"):
        run_check(Check("sides", "symbolic", malformed), "demo.claim", CONTEXT)


@pytest.mark.parametrize(
    "outcome, message",
    [
        (Outcome(Verdict.SUPPORTED, "rate below 0.1", {"upper": 0.05}), "states no 'detectable_effect'"),
        (Outcome(Verdict.REFUTED, "rate above 0.1", {"lower": 0.2}, counterexample={"rate": 0.2}),
         "states no 'detectable_effect'"),
        (Outcome(Verdict.CERTIFIED, "rate 0", {"detectable_effect": 0.01}, scope="n ≤ 3"), "never certify"),
    ],
)
def test_a_statistical_check_states_its_detectable_effect_and_never_certifies(outcome, message):
    with pytest.raises(ClaimDefinitionError, match=message):
        run_check(Check("rate", "statistical", lambda ctx: outcome), "demo.claim", CONTEXT)


def test_a_statistical_check_with_its_detectable_effect_runs():
    stated = Outcome(Verdict.SUPPORTED, "rate below 0.1", {"detectable_effect": {"rate": 0.03}})
    assert run_check(Check("rate", "statistical", lambda ctx: stated), "demo.claim", CONTEXT).outcome is stated


def test_a_claim_that_first_reads_torch_gets_its_threads_and_one_that_never_does_imports_no_torch():
    code = ("import sys; from theorems import lazy; from theorems.engine.runner import torch_threads\n"
            "with torch_threads(3):\n"
            "    untouched = 'torch' not in sys.modules\n"
            "with torch_threads(3):\n"
            "    inside = lazy.torch.get_num_threads()\n"
            "print(untouched, inside, lazy.torch.get_num_threads())")
    default = subprocess.run([sys.executable, "-c", "import torch; print(torch.get_num_threads())"],
                             capture_output=True, text=True, check=True).stdout.split()
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split() == ["True", "3", *default]
