"""Every registered claim, run at the test profile, must reach its manifest verdict.

The registry drives the parametrization: registering a claim adds its test here.
"""

import pytest

from theorems.engine.catalog import catalog
from theorems.engine.context import Context
from theorems.engine.manifest import default_manifest_path, differences, load_manifest
from theorems.engine.profiles import DEFAULT_SEED
from theorems.engine.registry import claims
from theorems.engine.runner import run_claim
from theorems.engine.verdicts import Verdict

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


@pytest.mark.parametrize("claim", [pytest.param(c, id=c.id) for c in claims().values() if MANIFEST.get(c.id) is Verdict.REFUTED])
def test_every_refuted_claim_carries_its_erratum(claim):
    assert claim.erratum is not None, f"{claim.id} is refuted in the manifest but has no Erratum"
    for corrected in claim.erratum.corrected:
        assert corrected in claims(), f"{claim.id}: erratum names {corrected}, which is not registered"


@pytest.mark.parametrize("claim", [pytest.param(c, id=c.id) for c in claims().values()
                                   if c.variant_of is None and catalog()[c.id].core])
def test_every_core_claim_has_a_symbolic_and_a_randomized_check(claim):
    kinds = {check.kind for check in claim.checks}
    assert {"symbolic", "randomized"} <= kinds, f"{claim.id} is a core claim with checks of kinds {sorted(kinds)}"
