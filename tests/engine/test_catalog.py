import dataclasses
from importlib import resources
from pathlib import Path

import pytest

from theorems.engine.catalog import catalog, parse_catalog
from theorems.engine.registry import claims

SHARED = Path(__file__).resolve().parents[3] / "shared" / "CLAIMS.md"


def test_catalog_has_every_paper_and_core_claim():
    entries = catalog()
    assert {e.paper for e in entries.values()} == {"giannou2023", "burkholz2024", "randfeat2025", "daneshmand2020"}
    core = {e.id for e in entries.values() if e.core}
    assert core >= {"giannou2023.lemma6", "giannou2023.lemma8", "giannou2023.lemma9", "giannou2023.lemma10"}
    assert all(e.id.startswith(e.paper + ".") and e.label and e.statement for e in entries.values())


# Labels the packaged catalog corrects against the paper: the other copy's row of giannou2023.fig4
# reads "Fig. 4–5", but Fig. 5 is its variant giannou2023.fig4.sparse, and the claim is Fig. 4 (left).
CORRECTED_LABELS = {"giannou2023.fig4": "App. E, Fig. 4 (left)"}


@pytest.mark.skipif(not SHARED.exists(), reason="no other copy of the catalog beside this checkout to compare with")
def test_packaged_catalog_is_the_shared_one():
    shared = parse_catalog(SHARED.read_text(encoding="utf-8"))
    corrected = {claim_id: dataclasses.replace(entry, label=CORRECTED_LABELS.get(claim_id, entry.label))
                 for claim_id, entry in shared.items()}
    assert corrected == catalog()


def test_each_claim_has_one_label_the_catalog_s():
    """A claim of the catalog takes its label from it, so that `theorems list`, the README and
    the reports name it alike (fig4 read "Fig. 4–5" in one, "Fig. 4 (left)" in another)."""
    differing = {claim.id: (claim.catalog_label(), catalog()[claim.id].label) for claim in claims().values()
                 if claim.id in catalog() and claim.catalog_label() != catalog()[claim.id].label}
    assert not differing
    assert catalog()["giannou2023.fig4"].label == claims()["giannou2023.fig4"].source == "App. E, Fig. 4 (left)"


def test_duplicate_or_misfiled_ids_are_rejected():
    row = "| giannou2023.thm5 | Thm 5 | x |"
    with pytest.raises(ValueError, match="twice"):
        parse_catalog(f"## giannou2023 — t\n{row}\n{row}\n")
    with pytest.raises(ValueError, match="listed under paper"):
        parse_catalog(f"## burkholz2024 — t\n{row}\n")


def test_the_catalog_speaks_only_of_the_papers():
    """A reader of the installed catalog has the papers, not the folders nor the briefs it was
    first written from."""
    text = resources.files("theorems.papers").joinpath("CLAIMS.md").read_text(encoding="utf-8")
    for word in ("seeds/", "Seed:", "brief"):
        assert word not in text, f"CLAIMS.md mentions {word!r}"
