import sys

import pytest

from theorems.engine import registry
from theorems.engine.catalog import catalog
from theorems.engine.registry import (
    Broken,
    Check,
    Claim,
    NotImplementedClaim,
    UnknownClaim,
    claims,
    known_ids,
    register,
    resolve,
    takes,
)
from theorems.engine.verdicts import Outcome, Verdict


def check(name="c"):
    return Check(name, "randomized", lambda ctx: Outcome(Verdict.SUPPORTED, "ok"))


@pytest.mark.parametrize(
    "claim, message",
    [
        (Claim("giannou2023.nope", "s", (), (check(),), (), label="L", statement="S"), "not in the catalog"),
        (Claim("giannou2023.thm8.x", "s", (), (check(),), (), variant_of="giannou2023.nope", label="L", statement="S"),
         "variant of unknown id"),
        (Claim("mypaper.lemma1", "s", (), (check(),), (), label="L", statement="S", depends_on=("otherpaper.lemma2",)),
         "unknown ids"),
        (Claim("giannou2023.thm8", "s", (), (check(), check()), ()), "unique"),
        (Claim("giannou2023.thm8", "s", (), (), ()), "no checks"),
        (Claim("giannou2023.thm8", "s", (), (check(),), (Broken("b", {"other": abs}, refuted_by="x"),)),
         r"replaces \['other'\], which the subject does not name"),
        (Claim("giannou2023.thm8", "s", (), (takes("f", build=lambda f: check()),),
               (Broken("b", {"f": abs}, refuted_by="x"),), subject={"f": abs}), "by the genuine object itself"),
        (Claim("giannou2023.thm8", "s", (), (check(),), ("not a variant",)), "holds Broken variants"),
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
    with pytest.raises(UnknownClaim, match=r"closest: giannou2023\.lemma6"):
        resolve("giannou2023.lema6")
    implemented = {key: claim for key, claim in claims().items() if key != "giannou2023.thm8"}
    monkeypatch.setattr(registry, "claims", lambda: implemented)  # as before the claim was written
    with pytest.raises(NotImplementedClaim, match="not implemented"):
        resolve("giannou2023.thm8")


def test_every_catalog_id_is_known_and_variants_follow():
    ids = known_ids()
    assert ids[: len(catalog())] == list(catalog())
    assert all(claims()[i].variant_of for i in ids[len(catalog()):])


@pytest.mark.parametrize("claim_id, fields, message", [
    ("giannou2023.thm8.corrected", {"variant_of": "giannou2023.thm8"}, "own label= and statement="),
    ("mypaper.lemma1", {"label": "Lemma 1"}, "not in the packaged catalog"),
    ("Lemma 1", {"label": "L", "statement": "S"}, "'<paper>.<name>'"),
])
def test_a_claim_outside_the_catalog_states_its_own_label_and_statement(claim_id, fields, message):
    with pytest.raises(ValueError, match=message):
        Claim(claim_id, "s", (), (check(),), (), **fields)


def test_catalog_claims_take_label_and_statement_from_the_catalog():
    claim = Claim("giannou2023.thm8", "s", (), (check(),), ())
    assert (claim.catalog_label(), claim.catalog_statement()) == (catalog()["giannou2023.thm8"].label,
                                                                 catalog()["giannou2023.thm8"].statement)


@pytest.fixture
def scratch_registry(monkeypatch):
    """The registry as it is now (with the packaged claims), restored after the test, and
    the otherpaper modules it imported forgotten, so that no other test sees them."""
    claims()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_REGISTERED_BY", dict(registry._REGISTERED_BY))
    yield
    for name in [name for name in sys.modules if name.split(".")[0] == "otherpaper"]:
        del sys.modules[name]


def test_another_papers_claims_come_from_its_own_package(tmp_path, monkeypatch, scratch_registry):
    """A package outside the suite registers claims with their own text, variants and
    dependencies; claims(package) lists only them, and the default stays the packaged papers."""
    (tmp_path / "otherpaper").mkdir()
    (tmp_path / "otherpaper" / "__init__.py").write_text("")
    (tmp_path / "otherpaper" / "claims.py").write_text(
        "from theorems.engine.registry import Check, Claim, register, takes\n"
        "from theorems.engine.verdicts import Outcome, Verdict\n"
        "def certificate(f):\n"
        "    return Check('c', 'symbolic', lambda ctx: Outcome(Verdict.CERTIFIED, 'ok', scope='all'))\n"
        "ok = dict(checks=(takes('f', build=certificate),), subject={'f': abs})\n"
        "register(Claim('otherpaper.lemma1', 's', (), broken=(), label='Lemma 1', statement='S',\n"
        "               depends_on=('giannou2023.lemma6', 'otherpaper.lemma0'), **ok))\n"
        "register(Claim('otherpaper.lemma1.corrected', 's', (), broken=(), variant_of='otherpaper.lemma1',\n"
        "               label='Lemma 1 (corrected)', statement='S', **ok))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert list(claims("otherpaper.claims")) == ["otherpaper.lemma1", "otherpaper.lemma1.corrected"]
    assert known_ids("otherpaper") == ["otherpaper.lemma1", "otherpaper.lemma1.corrected"]
    assert "otherpaper.lemma1" not in claims() and "giannou2023.lemma6" not in claims("otherpaper")
    assert resolve("otherpaper.lemma1", ["otherpaper"]).catalog_label() == "Lemma 1"
    assert registry.affected_by("giannou2023.lemma6")[-1] == "otherpaper.lemma1"
    with pytest.raises(UnknownClaim, match=r"closest: otherpaper\.lemma1"):
        resolve("otherpaper.lemma", ["otherpaper"])
    with pytest.raises(UnknownClaim):
        resolve("giannou2023.lemma6", ["otherpaper"])


def test_an_unimportable_claim_package_is_named():
    with pytest.raises(ImportError, match=r"cannot import claim package 'nopaper\.claims'"):
        claims("nopaper.claims")


def test_a_claims_module_that_raises_on_import_is_named_with_the_line_that_raised(tmp_path, monkeypatch):
    (tmp_path / "solo.py").write_text("x = 1\n\nraise RuntimeError('no data')\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError, match=r"^solo\.py:3: cannot import claim package 'solo': RuntimeError: no data$"):
        claims("solo")
    assert "solo" not in sys.modules  # (found where it lies, without its import)


def test_another_projects_claims_are_named_by_their_package(monkeypatch):
    claims()
    monkeypatch.setitem(registry._REGISTERED_BY, "demopkg.lemma", "demopkg.claims")
    assert registry.claim_package("giannou2023.lemma6") is None
    assert registry.claim_package("demopkg.lemma") == "demopkg"
