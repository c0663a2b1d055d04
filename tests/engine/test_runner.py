"""Running a claim's checks: a check that raises is a crash, reported in one line."""

import pytest

from theorems.engine.context import Context
from theorems.engine.registry import Check
from theorems.engine.runner import CRASH_MESSAGE_CHARACTERS, run_check
from theorems.errors import CheckCrashed


def test_a_check_that_raises_is_a_crash_named_in_one_short_line():
    def raises(ctx):
        raise TypeError("Could not serialize object of type X\n" + "a long repr, " * 10_000)

    with pytest.raises(CheckCrashed) as crash:
        run_check(Check("serializes", "randomized", raises), "demo.claim", Context("quick", 1, "cpu"))
    message = str(crash.value)
    assert message.startswith("check 'serializes' of demo.claim crashed: TypeError: Could not serialize object")
    assert "\n" not in message and len(message) < CRASH_MESSAGE_CHARACTERS + 80
    assert "a long repr" in str(crash.value.__cause__)  # the whole message stays on the cause
