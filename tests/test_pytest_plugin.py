"""The pytest plugin's verdict check, shared by tests/test_claims.py and the tests it collects
for another project's claims (tests/test_downstream.py runs those end to end)."""

import pytest

from theorems.engine.registry import resolve
from theorems.engine.verdicts import Verdict
from theorems.pytest_plugin import MARKERS, VerdictMismatch, check_manifest_verdict, claim_marks

CLAIM = "giannou2023.thm6"  # certified by sympy in well under a second at the quick profile


def test_a_matching_verdict_passes_and_others_fail_readably(tmp_path):
    claim, path = resolve(CLAIM), tmp_path / "claims.toml"
    check_manifest_verdict(claim, {CLAIM: Verdict.CERTIFIED}, path, "quick")
    expected = rf"^{CLAIM}: expected refuted \(.*claims.toml\), got certified at profile quick\n"
    with pytest.raises(VerdictMismatch, match=expected):
        check_manifest_verdict(claim, {CLAIM: Verdict.REFUTED}, path, "quick")
    with pytest.raises(VerdictMismatch, match=rf'{CLAIM} has no entry in .*claims.toml: add "{CLAIM}" = "<verdict>"'):
        check_manifest_verdict(claim, {}, path, "quick")


def test_claims_are_marked_theorem_and_with_their_check_kinds(pytestconfig):
    assert [mark.name for mark in claim_marks(resolve(CLAIM))] == ["theorem", "symbolic"]
    registered = "\n".join(pytestconfig.getini("markers"))
    assert all(f"{name}: " in registered for name in MARKERS)


def test_the_discipline_fails_a_refutation_without_erratum_a_paper_without_metadata_and_a_claim_without_variants():
    from theorems.engine.context import Context
    from theorems.engine.registry import Check, Claim, takes
    from theorems.engine.runner import run_claim
    from theorems.engine.verdicts import Outcome
    from theorems.pytest_plugin import check_discipline

    def search(square):
        return Check("search", "randomized", lambda ctx: Outcome(Verdict.REFUTED, "n = 2", counterexample={"n": 2}))

    claim = Claim("mypaper.toy", "test", (), (takes("square", build=search),), (), label="Toy", statement="S",
                  subject={"square": abs})
    with pytest.raises(VerdictMismatch) as raised:
        check_discipline([run_claim(claim, Context("quick", 1, "cpu"))])
    assert str(raised.value).splitlines() == [
        "mypaper.toy: refuted without an erratum: give the claim erratum=Erratum(severity, reason) saying how much the "
        "refutation matters",
        "mypaper: paper without metadata: add register_paper(Paper(id='mypaper', title=..., authors=(...), venue=..., "
        "year=..., link=...)) (from theorems.engine.papers) to the module that holds its claims",
        "mypaper.toy: mutation rule: check 'search' refutes no broken variant (the claim has none): a check that "
        "cannot fail"]


@pytest.mark.parametrize("environment, option, profile", [
    ("thorough", None, "thorough"), ("junk", "quick", "quick"), ("", None, "ci")])
def test_theorems_profile_is_the_default_profile_and_the_option_wins(pytester, monkeypatch, environment, option,
                                                                     profile):
    """The same rule as the command line's (theorems.engine.settings.default_profile)."""
    monkeypatch.setenv("THEOREMS_PROFILE", environment)
    pytester.makepyfile(test_profile=f"def test_it(theorems_profile):\n    assert theorems_profile == {profile!r}\n")
    result = pytester.runpytest_inprocess(*(["--theorems-profile", option] if option else []), "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()


def test_the_discipline_fails_a_generated_mutant_that_survives_within_the_certified_scope():
    """A certificate that reads only the sign of its object: the source mutants of ``twice``
    that keep the sign survive it, at the very calls it made (not run with --theorems-no-generated)."""
    from theorems.engine.context import Context
    from theorems.engine.registry import Broken, Check, Claim, claims, takes
    from theorems.engine.runner import run_claim
    from theorems.engine.verdicts import Outcome
    from theorems.pytest_plugin import check_discipline

    claims()  # the packaged papers' metadata, giannou2023's among them

    def twice(x):
        return 2 * x

    def positive(twice):
        def run(ctx):
            bad = next((x for x in range(1, 6) if twice(x) <= 0), None)
            return Outcome(Verdict.CERTIFIED, "twice(x) > 0 for x = 1..5", scope="x ≤ 5") if bad is None else \
                Outcome(Verdict.REFUTED, f"x = {bad}", counterexample={"x": bad})
        return Check("positive", "certificate", run)

    claim = Claim("giannou2023.toy", "test", (), (takes("twice", build=positive),),
                  (Broken("negated", replaces={"twice": lambda x: -x}, refuted_by="x = 1"),), label="Toy",
                  statement="S", subject={"twice": twice})
    result = run_claim(claim, Context("quick", 1, "cpu"))
    check_discipline([result], generated=False)
    with pytest.raises(VerdictMismatch) as raised:
        check_discipline([result])
    lines = str(raised.value).splitlines()
    assert lines and all(line.startswith("giannou2023.toy: generated mutant of twice survives within the certified "
                                         "scope: ") for line in lines), lines
    assert len(lines) == 2 and "`2 * x` → `2 / x` (arithmetic)" in lines[0] and "`2 * x` → `3 * x`" in lines[1], lines
