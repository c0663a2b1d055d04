"""The packaged index is what the claim modules register: ``theorems list`` reads it instead of
importing them. ``python tests/engine/test_listing.py`` rewrites it after a claim changes."""

from pathlib import Path

import theorems.papers
from theorems.engine.listing import INDEX, index_text, listing_of, packaged_listing
from theorems.engine.registry import claims, known_ids

INDEX_PATH = Path(theorems.papers.__file__).resolve().parent / INDEX


def registered_listing():
    return listing_of(claims(), known_ids())


def test_the_packaged_index_is_what_the_claim_modules_register():
    assert packaged_listing() == registered_listing(), (
        f"{INDEX_PATH} is stale: regenerate it with `python tests/engine/test_listing.py`")


def test_the_index_file_is_as_generated():
    # (also its order and layout: a regenerated index differs from the committed one only where claims changed)
    assert INDEX_PATH.read_text(encoding="utf-8") == index_text(registered_listing()), (
        f"{INDEX_PATH} is stale: regenerate it with `python tests/engine/test_listing.py`")


def test_a_listing_names_every_catalog_id_then_the_variants_each_with_its_paper():
    listing = packaged_listing()
    lemma6 = listing.claims["giannou2023.lemma6"]
    assert lemma6["check_kinds"] and lemma6["source"] and lemma6["variant_of"] is None
    corrected = listing.claims["giannou2023.fact1.corrected"]
    assert corrected["variant_of"] == "giannou2023.fact1" and corrected["label"]
    assert listing.ids.index("giannou2023.fact1.corrected") > listing.ids.index("daneshmand2020.fig2")
    assert listing.papers["giannou2023"]["year"] == 2023


if __name__ == "__main__":
    INDEX_PATH.write_text(index_text(registered_listing()), encoding="utf-8")
