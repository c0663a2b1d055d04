"""Meta-tests: every checker must refute a deliberately broken version of its claim.

Each ``Broken`` variant swaps some checks of a claim for the same machinery run against a
perturbed statement (flipped inequality, wrong dimension, perturbed identity); every
swapped check must come out refuted. A check that no broken variant exercises is a check
that might not be able to fail, so that is a failure too.
"""

import pytest

from theorems.context import Context
from theorems.profiles import DEFAULT_SEED
from theorems.registry import claims
from theorems.runner import run_claim
from theorems.verdicts import Verdict


def _broken_params():
    for claim in claims().values():
        for broken in claim.broken:
            yield pytest.param(claim, broken, id=f"{claim.id}: {broken.description}", marks=pytest.mark.meta)


@pytest.mark.parametrize("claim, broken", list(_broken_params()))
def test_broken_variant_is_refuted(claim, broken):
    result = run_claim(claim.with_checks(broken.checks), Context("quick", DEFAULT_SEED, "cpu"))
    replaced = {check.name for check in broken.checks}
    for check_result in result.checks:
        if check_result.check.name in replaced:
            outcome = check_result.outcome
            assert outcome.verdict is Verdict.REFUTED, (
                f"{claim.id} / {broken.description}: check {check_result.check.name!r} "
                f"gave {outcome.verdict} ({outcome.summary}); it should have refuted the broken claim"
            )
    assert result.verdict is Verdict.REFUTED


@pytest.mark.parametrize("claim", [pytest.param(c, id=c.id) for c in claims().values()])
def test_every_check_is_exercised_by_a_broken_variant(claim):
    exercised = {check.name for broken in claim.broken for check in broken.checks}
    unexercised = [check.name for check in claim.checks if check.name not in exercised]
    assert not unexercised, f"{claim.id}: no broken variant exercises {unexercised}"
