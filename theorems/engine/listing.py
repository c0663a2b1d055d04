"""What ``theorems list`` shows of each claim, and the index of the packaged papers' claims.

Listing the packaged papers must not import their claim modules: those load sympy, flint and
numpy, which take longer than the whole listing may (``theorems bench startup``). So the
package carries the listing as data, ``papers/index.json`` beside the catalog (what each
implemented claim states beyond the catalog, and each paper's record), and ``theorems list``
reads it. Another project's claims (``--package``) are listed by importing them, as before.

The index is generated: ``tests/engine/test_listing.py`` imports every claim module, fails
when the index differs from what they register, and ``python tests/engine/test_listing.py``
rewrites it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from .catalog import CATALOG_PACKAGE, catalog
from .papers import papers_json

if TYPE_CHECKING:
    from .registry import Claim

INDEX = "index.json"


@dataclass(frozen=True)
class Listing:
    """Every listed id in order (``registry.known_ids``), what each implemented one states
    beyond the catalog (``summary``), and each paper's record (``papers.papers_json``)."""

    ids: list[str]
    claims: dict[str, dict[str, Any]]
    papers: dict[str, dict[str, Any] | None]


def summary(claim: Claim) -> dict[str, Any]:
    """What the listing shows of an implemented claim: where the paper states it, its own label
    and statement (a claim outside the catalog states them), the claim it varies, the kinds of
    its checks and its general argument."""
    return {"source": claim.source, "label": claim.label, "statement": claim.statement,
            "variant_of": claim.variant_of, "check_kinds": sorted({check.kind.value for check in claim.checks}),
            "general_argument": claim.general_argument or None}


def listing_of(registered: Mapping[str, Claim], ids: list[str]) -> Listing:
    """The listing of ``ids`` (in that order), the claims among them taken from ``registered``."""
    return Listing(list(ids), {claim_id: summary(registered[claim_id]) for claim_id in ids if claim_id in registered},
                   papers_json(claim_id.split(".", 1)[0] for claim_id in ids))


def index_text(listing: Listing) -> str:
    """The index file of ``listing``: its claims (in listing order) and papers; the ids are
    the catalog's followed by the claims outside it, as ``packaged_listing`` reads them."""
    return json.dumps({"claims": listing.claims, "papers": listing.papers}, indent=1, ensure_ascii=False) + "\n"


def packaged_listing() -> Listing:
    """The packaged papers' listing, read from the index the package carries."""
    index = json.loads(resources.files(CATALOG_PACKAGE).joinpath(INDEX).read_text(encoding="utf-8"))
    entries = catalog()
    ids = [*entries, *(claim_id for claim_id in index["claims"] if claim_id not in entries)]
    return Listing(ids, index["claims"], index["papers"])
