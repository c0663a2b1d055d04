"""Every registered claim, run at the test profile, must reach its manifest verdict.

The registry drives the parametrization: registering a claim adds its test here.
"""

import pytest

from theorems.context import Context
from theorems.manifest import default_manifest_path, differences, load_manifest
from theorems.profiles import DEFAULT_SEED
from theorems.registry import claims
from theorems.runner import run_claim
from theorems.verdicts import Verdict

MANIFEST = load_manifest(default_manifest_path())


def _claim_params():
    for claim in claims().values():
        kinds = sorted({check.kind for check in claim.checks})
        marks = [pytest.mark.theorem] + [getattr(pytest.mark, kind) for kind in kinds]
        yield pytest.param(claim, id=claim.id, marks=marks)


@pytest.mark.parametrize("claim", list(_claim_params()))
def test_claim_reaches_its_manifest_verdict(claim, theorems_profile):
    assert claim.id in MANIFEST, f"{claim.id} has no entry in {default_manifest_path()}"
    result = run_claim(claim, Context(theorems_profile, DEFAULT_SEED, "cpu"))
    report = "\n".join(f"  {r.check.name}: {r.outcome.verdict} — {r.outcome.summary}" for r in result.checks)
    assert result.verdict is MANIFEST[claim.id], (
        f"{claim.id}: expected {MANIFEST[claim.id]}, got {result.verdict}\n{report}"
    )
    if result.verdict is Verdict.REFUTED:
        assert any(r.outcome.counterexample for r in result.checks), f"{claim.id}: refuted without a counterexample"


def test_manifest_covers_exactly_the_registered_claims():
    registered = {claim_id: MANIFEST.get(claim_id, Verdict.INCONCLUSIVE) for claim_id in claims()}
    missing = [line for line in differences(MANIFEST, registered) if "expected" not in line]
    assert not missing, "\n".join(missing)
