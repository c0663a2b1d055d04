"""The papers the claims are about: title, authors, venue, year and a stable link.

A claim's ``source`` is its location in the paper ("App. A.2, Theorem 5, Eq. (13)"); the
paper itself is declared once, by the package (or module) that holds its claims, with
``register_paper(Paper(...))`` at its top level, so it is registered whenever the claims are
loaded. The packaged papers declare theirs in ``theorems/papers/<paper>/__init__.py``; another
project declares its own the same way, and ``theorems gate`` fails on a paper with claims but
no declaration (``theorems.discipline``). The engine stores the records; the report formats
the citation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..errors import ClaimDefinitionError

PAPER_ID = r"[a-z0-9_]+"  # the part of a claim id before its first dot (``catalog.CLAIM_ID``)


@dataclass(frozen=True)
class Paper:
    """One paper: ``id`` is the prefix of its claims' ids (``giannou2023``); ``link`` a stable
    URL of the version whose numbering the claims' locations follow (an arXiv abstract page
    or an OpenReview forum); ``note`` what a reader needs to find that version, if anything."""

    id: str
    title: str
    authors: tuple[str, ...]
    venue: str
    year: int
    link: str
    note: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not re.fullmatch(PAPER_ID, self.id):
            raise ClaimDefinitionError(f"paper id {self.id!r} is not the prefix of its claims' ids (e.g. 'mypaper')")
        for name in ("title", "venue"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                raise ClaimDefinitionError(f"paper {self.id}: {name}= must be a non-empty string")
        if (not isinstance(self.authors, tuple) or not self.authors
                or not all(isinstance(author, str) and author.strip() for author in self.authors)):
            raise ClaimDefinitionError(f"paper {self.id}: authors= must be a non-empty tuple of names, "
                                       f"not {self.authors!r}")
        if isinstance(self.year, bool) or not isinstance(self.year, int) or not 1900 <= self.year <= 2100:
            raise ClaimDefinitionError(f"paper {self.id}: year= must be a year such as 2023, not {self.year!r}")
        if not isinstance(self.link, str) or not re.fullmatch(r"https://\S+", self.link):
            raise ClaimDefinitionError(f"paper {self.id}: link= must be an https:// URL (an arXiv abstract page "
                                       f"or an OpenReview forum), not {self.link!r}")
        if not isinstance(self.note, str):
            raise ClaimDefinitionError(f"paper {self.id}: note= must be a string")

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "authors": list(self.authors), "venue": self.venue,
                "year": self.year, "link": self.link, **({"note": self.note} if self.note else {})}


_PAPERS: dict[str, Paper] = {}


def register_paper(paper: Paper) -> Paper:
    """Declare ``paper`` (called at the top level of the package or module holding its
    claims). Declaring the same record again is harmless; another record under the same id
    is an error."""
    if not isinstance(paper, Paper):
        raise ClaimDefinitionError(f"register_paper() takes a Paper, not {type(paper).__name__}")
    known = _PAPERS.get(paper.id)
    if known is not None and known != paper:
        raise ClaimDefinitionError(f"paper {paper.id} declared twice, differently")
    _PAPERS[paper.id] = paper
    return paper


def paper(paper_id: str) -> Paper | None:
    """The declared paper ``paper_id`` (None where its claims' package declares none)."""
    return _PAPERS.get(paper_id)


def papers_json(paper_ids) -> dict[str, dict[str, Any] | None]:
    """``{id: the paper's JSON}`` for each of ``paper_ids`` in order; None for an undeclared one."""
    return {paper_id: (found.to_json() if (found := paper(paper_id)) else None)
            for paper_id in dict.fromkeys(paper_ids)}
