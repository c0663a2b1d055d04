"""Every registered claim, run at the test profile, must reach its manifest verdict.

The registry drives the parametrization: registering a claim adds its test here. Each test
is the one the pytest plugin runs for another project's claims (``theorems.pytest_plugin``).
"""

import pytest

from theorems.cli import default_manifest_path
from theorems.engine.catalog import catalog
from theorems.engine.manifest import differences, load_manifest, load_scopes
from theorems.engine.registry import claims
from theorems.engine.verdicts import Verdict
from theorems.pytest_plugin import check_manifest_verdict, claim_marks

MANIFEST = load_manifest(default_manifest_path())
SCOPES = load_scopes(default_manifest_path())


def _claim_params():
    for claim in claims().values():
        yield pytest.param(claim, id=claim.id, marks=claim_marks(claim))


@pytest.mark.parametrize("claim", list(_claim_params()))
def test_claim_reaches_its_manifest_verdict(claim, theorems_profile):
    check_manifest_verdict(claim, MANIFEST, default_manifest_path(), theorems_profile, scopes=SCOPES)


def test_manifest_covers_exactly_the_registered_claims():
    registered = {claim_id: MANIFEST.get(claim_id, Verdict.INCONCLUSIVE) for claim_id in claims()}
    missing = [line for line in differences(MANIFEST, registered) if "expected" not in line]
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("claim", [pytest.param(c, id=c.id) for c in claims().values()
                                   if MANIFEST.get(c.id) is Verdict.REFUTED])
def test_every_refuted_claim_carries_its_erratum(claim):
    assert claim.erratum is not None, f"{claim.id} is refuted in the manifest but has no Erratum"
    for corrected in claim.erratum.corrected:
        assert corrected in claims(), f"{claim.id}: erratum names {corrected}, which is not registered"


@pytest.mark.parametrize("claim", [pytest.param(c, id=c.id) for c in claims().values()
                                   if c.variant_of is None and catalog()[c.id].core])
def test_every_core_claim_has_a_symbolic_and_a_randomized_check(claim):
    kinds = {check.kind for check in claim.checks}
    assert {"symbolic", "randomized"} <= kinds, f"{claim.id} is a core claim with checks of kinds {sorted(kinds)}"
