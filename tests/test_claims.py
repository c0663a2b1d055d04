"""Every registered claim, run at the test profile, must reach its manifest verdict, and no
stronger a verdict at the quick profile; a check that decides at a false-alarm rate is declared
statistical, so that the runner holds it to stating its detectable effect.

The registry drives the parametrization: registering a claim adds its test here. Each test
is the one the pytest plugin runs for another project's claims (``theorems.pytest_plugin``),
and then the same claim at ``quick``: a verdict stronger on less data means an overconfident
check (issue 27).
"""

import pytest

from theorems.cli import default_manifest_path
from theorems.engine.catalog import catalog
from theorems.engine.context import Context
from theorems.engine.manifest import differences, load_manifest, load_scopes
from theorems.engine.registry import claims
from theorems.engine.runner import run_claim
from theorems.engine.verdicts import Verdict
from theorems.pytest_plugin import check_manifest_verdict, claim_marks

MANIFEST = load_manifest(default_manifest_path())
SCOPES = load_scopes(default_manifest_path())
SMALLEST_PROFILE = "quick"
# How much a verdict says; refuted is not on this scale (it is compared as equal or not).
STRENGTH = {Verdict.INCONCLUSIVE: 0, Verdict.SUPPORTED: 1, Verdict.CERTIFIED: 2}


def profile_inconsistency(smaller: Verdict, larger: Verdict) -> str | None:
    """Why a verdict at a smaller profile cannot stand beside one at a larger, or None: stronger
    (certified > supported > inconclusive) on less data, or refuted at one and not the other."""
    if (smaller is Verdict.REFUTED) != (larger is Verdict.REFUTED):
        return "refuted at one profile and not the other"
    if smaller is not Verdict.REFUTED and STRENGTH[smaller] > STRENGTH[larger]:
        return "stronger on less data"
    return None


# Evidence keys that only a test at a false-alarm rate writes (a search may state its detectable rate).
STATISTICAL_EVIDENCE = "false_alarm"


def _keys(evidence) -> set[str]:
    if isinstance(evidence, dict):
        return set(evidence) | {key for value in evidence.values() for key in _keys(value)}
    if isinstance(evidence, list):
        return {key for value in evidence for key in _keys(value)}
    return set()


def undeclared_statistics(result) -> list[str]:
    """The checks of a claim's run that decide at a false-alarm rate but are not of kind statistical."""
    undeclared = []
    for check in result.checks:
        hits = sorted(key for key in _keys(check.outcome.evidence) if STATISTICAL_EVIDENCE in str(key))
        if hits and check.check.kind != "statistical":
            undeclared.append(f"{check.check.name!r} (evidence keys {hits})")
    return undeclared


def _claim_params():
    for claim in claims().values():
        yield pytest.param(claim, id=claim.id, marks=claim_marks(claim))


@pytest.mark.parametrize("claim", list(_claim_params()))
def test_claim_reaches_its_manifest_verdict(claim, theorems_profile):
    [result] = check_manifest_verdict(claim, MANIFEST, default_manifest_path(), theorems_profile, scopes=SCOPES)
    undeclared = undeclared_statistics(result)
    assert not undeclared, f"{claim.id}: checks deciding at a false-alarm rate must be 'statistical': {undeclared}"
    if theorems_profile == SMALLEST_PROFILE or claim.profile_note:
        return
    # The claim alone (its verdict does not depend on the claims it rests on), after the larger
    # profile, so that the caches that run filled (trials, certificates) serve quick too.
    quick = run_claim(claim, Context(SMALLEST_PROFILE, result.context.seed, result.context.device))
    problem = profile_inconsistency(quick.verdict, result.verdict)
    assert problem is None, (f"{claim.id}: {quick.verdict} at {SMALLEST_PROFILE}, {result.verdict} at "
                             f"{theorems_profile}: {problem}; fix the check, or say why on the claim (profile_note=)")


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
    # A statistical check samples as a randomized search does; it decides by a test instead of by a counterexample.
    kinds = {check.kind for check in claim.checks}
    assert "symbolic" in kinds and kinds & {"randomized", "statistical"}, (
        f"{claim.id} is a core claim with checks of kinds {sorted(kinds)}")


@pytest.mark.parametrize(("smaller", "larger", "consistent"), [
    (Verdict.INCONCLUSIVE, Verdict.SUPPORTED, True), (Verdict.SUPPORTED, Verdict.CERTIFIED, True),
    (Verdict.SUPPORTED, Verdict.SUPPORTED, True), (Verdict.REFUTED, Verdict.REFUTED, True),
    (Verdict.SUPPORTED, Verdict.INCONCLUSIVE, False), (Verdict.CERTIFIED, Verdict.SUPPORTED, False),
    (Verdict.REFUTED, Verdict.INCONCLUSIVE, False), (Verdict.INCONCLUSIVE, Verdict.REFUTED, False),
])
def test_profile_inconsistency_orders_verdicts_and_compares_refuted_as_equal_or_not(smaller, larger, consistent):
    assert (profile_inconsistency(smaller, larger) is None) is consistent
