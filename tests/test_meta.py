"""Meta-tests: every checker must refute a deliberately broken version of its claim.

Each ``Broken`` variant swaps some checks of a claim for the same machinery run against a
perturbed statement (an off-by-one, a dropped hypothesis, a constant too small, a dynamics
that collapses); every swapped check must come out refuted. A check that no broken variant
exercises is a check that might not be able to fail, so that is a failure too. Each variant
names the explicit case that refutes it (``Broken.refuted_by``), and the slow test runs
every variant at fresh seeds: none may escape.
"""

import pytest

from theorems.engine.context import Context
from theorems.engine.registry import claims
from theorems.engine.runner import run_claim
from theorems.engine.settings import DEFAULT_SEED
from theorems.engine.verdicts import Verdict

FRESH_SEEDS = (11, 222, 3333, 44444, 555555)


def _broken_params(marks=()):
    for claim in claims().values():
        for broken in claim.broken:
            yield pytest.param(claim, broken, id=f"{claim.id}: {broken.description}", marks=[pytest.mark.meta, *marks])


def _assert_refuted(claim, broken, seed):
    result = run_claim(claim.with_checks(broken.checks), Context("quick", seed, "cpu"))
    replaced = {check.name for check in broken.checks}
    for check_result in result.checks:
        if check_result.check.name in replaced:
            outcome = check_result.outcome
            assert outcome.verdict is Verdict.REFUTED, (
                f"{claim.id} / {broken.description} (seed {seed}): check {check_result.check.name!r} "
                f"gave {outcome.verdict} ({outcome.summary}); it should have refuted the broken claim"
            )
    assert result.verdict is Verdict.REFUTED


@pytest.mark.parametrize("claim, broken", list(_broken_params()))
def test_broken_variant_is_refuted(claim, broken):
    _assert_refuted(claim, broken, DEFAULT_SEED)


@pytest.mark.parametrize("claim, broken", list(_broken_params(marks=[pytest.mark.slow])))
@pytest.mark.parametrize("seed", FRESH_SEEDS)
def test_broken_variant_is_refuted_at_fresh_seeds(claim, broken, seed):
    _assert_refuted(claim, broken, seed)


@pytest.mark.parametrize("claim, broken", list(_broken_params()))
def test_broken_variant_names_the_case_that_refutes_it(claim, broken):
    assert broken.refuted_by.strip(), (
        f"{claim.id} / {broken.description}: no explicit refuting case (Broken.refuted_by); "
        "pin one in the replaced checks so the variant is refuted at every seed"
    )


@pytest.mark.parametrize("claim", [pytest.param(c, id=c.id) for c in claims().values()])
def test_every_check_is_exercised_by_a_broken_variant(claim):
    exercised = {check.name for broken in claim.broken for check in broken.checks}
    unexercised = [check.name for check in claim.checks if check.name not in exercised]
    assert not unexercised, f"{claim.id}: no broken variant exercises {unexercised}"
