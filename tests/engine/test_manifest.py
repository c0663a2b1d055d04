"""The multi-seed gate's bookkeeping: which seeds, and per claim how many agree."""

import pytest

from theorems.engine.manifest import seed_agreement, seeds_after
from theorems.engine.verdicts import Verdict

S, I, R = Verdict.SUPPORTED, Verdict.INCONCLUSIVE, Verdict.REFUTED


def test_seeds_after_are_the_next_integers_and_stay_in_range():
    assert seeds_after(2023, 3) == [2024, 2025, 2026]
    with pytest.raises(ValueError, match="at least 1"):
        seeds_after(0, 0)
    with pytest.raises(ValueError, match=r"leave \[0, 2\^63\)"):
        seeds_after(2**63 - 2, 2)


def test_seed_agreement_counts_agreeing_seeds_and_names_the_others():
    expected = {"a": S, "b": R, "gone": S}
    runs = {1: {"a": S, "b": R, "new": I}, 2: {"a": I, "b": R, "new": I}, 3: {"a": S, "b": R, "new": S}}
    lines, differing = seed_agreement(expected, runs)
    assert lines == [
        "a: supported at 2/3 seeds; seed 2: inconclusive",
        "b: refuted at 3/3 seeds",
        "gone: in the manifest as supported but not implemented",
        "new: verdict inconclusive, supported but missing from the manifest",
    ]
    assert differing == 3
