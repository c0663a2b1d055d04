"""The claim catalog: ids, labels and paraphrases parsed from the packaged CLAIMS.md.

The catalog is a copy of ``shared/CLAIMS.md`` shipped as package data beside the papers
(``theorems/papers/CLAIMS.md``), so that an installed suite can list every id without the
source papers beside it. The engine reads that file as data; it imports no paper module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from ..errors import CatalogError

# A claim id: "<paper>.<name>", the paper in lower case (giannou2023.lemma6, mypaper.lemma1).
CLAIM_ID = r"[a-z0-9_]+\.[A-Za-z0-9_.]+"
_PAPER_HEADING = re.compile(r"^## (\w+) — ")
_ROW = re.compile(rf"^\|\s*(?P<id>{CLAIM_ID})\s*\|(?P<label>[^|]*)\|(?P<statement>.*)\|\s*$")
_CORE = "**[core"


@dataclass(frozen=True)
class CatalogEntry:
    id: str
    paper: str
    label: str
    statement: str
    core: bool


def parse_catalog(text: str) -> dict[str, CatalogEntry]:
    """Parse the markdown tables of CLAIMS.md into entries keyed by id, in catalog order."""
    entries: dict[str, CatalogEntry] = {}
    paper = None
    for line in text.splitlines():
        heading = _PAPER_HEADING.match(line)
        if heading:
            paper = heading.group(1)
            continue
        row = _ROW.match(line)
        if not row or paper is None:
            continue
        claim_id = row.group("id")
        if not claim_id.startswith(paper + "."):
            raise CatalogError(f"catalog id {claim_id} listed under paper {paper}")
        if claim_id in entries:
            raise CatalogError(f"catalog id {claim_id} listed twice")
        label = row.group("label").strip()
        core = _CORE in label
        label = re.sub(r"\s*\*\*\[core[^*]*\]\*\*", "", label).strip()
        entries[claim_id] = CatalogEntry(claim_id, paper, label, row.group("statement").strip(), core)
    return entries


CATALOG_PACKAGE = "theorems.papers"


@cache
def catalog() -> dict[str, CatalogEntry]:
    text = resources.files(CATALOG_PACKAGE).joinpath("CLAIMS.md").read_text(encoding="utf-8")
    return parse_catalog(text)
