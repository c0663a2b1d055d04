import pytest

from theorems.engine import registry
from theorems.engine.catalog import catalog
from theorems.engine.registry import Broken, Check, Claim, NotImplementedClaim, UnknownClaim, claims, known_ids, register, resolve
from theorems.engine.verdicts import Outcome, Verdict


def check(name="c"):
    return Check(name, "randomized", lambda ctx: Outcome(Verdict.SUPPORTED, "ok"))


@pytest.mark.parametrize(
    "claim, message",
    [
        (Claim("giannou2023.nope", "s", (), (check(),), ()), "not in the catalog"),
        (Claim("giannou2023.thm8.corrected", "s", (), (check(),), (), variant_of="giannou2023.thm8"), "own label"),
        (Claim("giannou2023.thm8", "s", (), (check(), check()), ()), "unique"),
        (Claim("giannou2023.thm8", "s", (), (), ()), "no checks"),
        (Claim("giannou2023.thm8", "s", (), (check(),), (Broken("b", (check("other"),)),)), "no check named"),
        (Claim("giannou2023.thm8", "s", (), (check(),), (), depends_on=("giannou2023.lemma99",)), "unknown ids"),
        (Claim("giannou2023.thm5", "s", (), (check(),), ()), "registered twice"),
    ],
)
def test_register_rejects_malformed_claims(claim, message):
    claims()  # the real claims first, so that "registered twice" is meaningful
    with pytest.raises(ValueError, match=message):
        register(claim)


def test_check_kind_is_validated():
    with pytest.raises(ValueError, match="kind"):
        Check("c", "numerical", lambda ctx: None)


def test_resolve_errors_name_the_problem(monkeypatch):
    with pytest.raises(UnknownClaim, match="closest: giannou2023.lemma6"):
        resolve("giannou2023.lema6")
    implemented = {key: claim for key, claim in claims().items() if key != "giannou2023.thm8"}
    monkeypatch.setattr(registry, "claims", lambda: implemented)  # as before the claim was written
    with pytest.raises(NotImplementedClaim, match="not implemented"):
        resolve("giannou2023.thm8")


def test_every_catalog_id_is_known_and_variants_follow():
    ids = known_ids()
    assert ids[: len(catalog())] == list(catalog())
    assert all(claims()[i].variant_of for i in ids[len(catalog()):])
