"""The Python face: ``theorems.check`` and ``theorems.claims`` give what the CLI gives."""

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
