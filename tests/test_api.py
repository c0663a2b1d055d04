"""The Python face: ``theorems.check`` and ``theorems.claims`` give what the CLI gives."""

import sys

import pytest

import theorems
from theorems.engine import registry
from theorems.engine.registry import NotImplementedClaim, UnknownClaim
from theorems.engine.verdicts import Verdict


def test_check_returns_the_claim_result_with_verdict_evidence_and_timings():
    result = theorems.check("giannou2023.thm6", profile="quick", seed=0)
    assert result.verdict is Verdict.CERTIFIED
    record = result.to_json()
    assert record["id"] == "giannou2023.thm6" and record["seed"] == 0 and record["profile"] == "quick"
    assert record["evidence"] and record["timing_s"]["total"] >= 0


def test_claims_lists_every_implemented_claim():
    listed = theorems.claims()
    assert "giannou2023.lemma6" in listed and "giannou2023.fact1.corrected" in listed
    assert all(claim.id == claim_id for claim_id, claim in listed.items())


def test_same_errors_as_the_command_line(monkeypatch):
    with pytest.raises(UnknownClaim, match=r"giannou2023\.lemma6"):
        theorems.check("giannou2023.lema6")
    implemented = {key: claim for key, claim in registry.claims().items() if key != "giannou2023.thm8"}
    monkeypatch.setattr(registry, "claims", lambda: implemented)  # as before the claim was written
    with pytest.raises(NotImplementedClaim):
        theorems.check("giannou2023.thm8")
    monkeypatch.undo()
    with pytest.raises(ValueError, match="profile"):
        theorems.check("giannou2023.thm6", profile="fast")
    with pytest.raises(ValueError, match="seed"):
        theorems.check("giannou2023.thm6", seed=-1)


# Another project's claims module: a scalar identity (sympy scalars on both sides) about its object.
APIPAPER = """
import sympy

from theorems.engine.checks import symbolic_identity
from theorems.engine.registry import Broken, Claim, register, takes


def double(x):
    return 2 * x


def additive(double):
    x, y = sympy.symbols("x y")
    return symbolic_identity("D(x + y) = D(x) + D(y)", lambda ctx: [1],
                             lambda case: (double(x + y), double(x) + double(y)), scope="all")


register(Claim(id="apipaper.lemma1", label="Lemma 1", statement="doubling is additive", source="Sec. 1",
               hypotheses=(), subject={"double": double}, checks=(takes("double", build=additive),),
               broken=(Broken("squaring", replaces={"double": lambda x: x**2}, refuted_by="the only case"),)))
"""


@pytest.fixture
def apipaper(tmp_path, monkeypatch):
    """The package ``apipaper`` on the module path, registered into copies of the registries."""
    (tmp_path / "apipaper").mkdir()
    (tmp_path / "apipaper" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "apipaper" / "claims.py").write_text(APIPAPER, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.claims()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_REGISTERED_BY", dict(registry._REGISTERED_BY))
    yield "apipaper.claims"
    for name in [name for name in sys.modules if name.split(".")[0] == "apipaper"]:
        del sys.modules[name]


def test_package_reaches_another_projects_claims(apipaper):
    assert list(theorems.claims(package=apipaper)) == list(theorems.claims([apipaper])) == ["apipaper.lemma1"]
    assert list(theorems.claims(apipaper)) == ["apipaper.lemma1"]  # positionally too
    result = theorems.check("apipaper.lemma1", package=apipaper, profile="quick")
    assert result.verdict is Verdict.CERTIFIED and result.scope == "all"  # a scalar identity
    with pytest.raises(UnknownClaim, match=r"^unknown claim id 'apipaper\.lemma2' \(not a claim of apipaper\.claims\); "
                                           r"closest: apipaper\.lemma1$"):
        theorems.check("apipaper.lemma2", package=apipaper)
    with pytest.raises(UnknownClaim):  # not without the package
        theorems.check("apipaper.lemma1")
