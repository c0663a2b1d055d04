"""Meta-tests: the mutation rule (``theorems.engine.mutation``) for every claim.

Every ``Broken`` variant replaces an object under test (a definition, a construction, a
formula, a dynamics) and every check that takes the object is rebuilt from the broken one:
each variant must come out refuted, every check must refute some variant, and no certifying
check may certify a broken object it takes. Each variant names the explicit case that refutes
it (``Broken.refuted_by``), and the slow test applies the rule at fresh seeds.
"""

import pytest

from theorems.engine.context import Context
from theorems.engine.mutation import mutation_test
from theorems.engine.registry import claims
from theorems.engine.settings import DEFAULT_SEED

FRESH_SEEDS = (11, 222, 3333, 44444, 555555)


def _claim_params(marks=()):
    return [pytest.param(claim, id=claim.id, marks=[pytest.mark.meta, *marks]) for claim in claims().values()]


def _assert_mutation_rule(claim, seed):
    report = mutation_test(claim, Context("quick", seed, "cpu"))
    assert report.passed, f"{claim.id} (seed {seed}): " + "; ".join(report.failures)


@pytest.mark.parametrize("claim", _claim_params())
def test_mutation_rule(claim):
    _assert_mutation_rule(claim, DEFAULT_SEED)


@pytest.mark.parametrize("claim", _claim_params(marks=[pytest.mark.slow]))
@pytest.mark.parametrize("seed", FRESH_SEEDS)
def test_mutation_rule_at_fresh_seeds(claim, seed):
    _assert_mutation_rule(claim, seed)
