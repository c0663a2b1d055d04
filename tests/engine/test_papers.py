"""The papers' metadata: every field validated in one line, each packaged paper declared, and
no claim citing a file of this repository's build history."""

from pathlib import Path

import pytest

import theorems
from theorems.engine import papers
from theorems.engine.papers import Paper, register_paper
from theorems.engine.registry import claims
from theorems.errors import ClaimDefinitionError

GOOD = {"id": "mypaper", "title": "A Title", "authors": ("Ada Lovelace",), "venue": "ICLR", "year": 2024,
        "link": "https://openreview.net/forum?id=abc"}


@pytest.mark.parametrize("field, value, message", [
    ("id", "My Paper", "is not the prefix of its claims' ids"),
    ("title", " ", "title= must be a non-empty string"),
    ("venue", None, "venue= must be a non-empty string"),
    ("authors", "Ada Lovelace", "authors= must be a non-empty tuple of names"),
    ("authors", (), "authors= must be a non-empty tuple of names"),
    ("authors", ("Ada Lovelace", ""), "authors= must be a non-empty tuple of names"),
    ("year", "2024", "year= must be a year such as 2023"),
    ("year", True, "year= must be a year such as 2023"),
    ("link", "arXiv:2302.07937", "link= must be an https:// URL"),
    ("link", "http://arxiv.org/abs/2302.07937", "link= must be an https:// URL"),
    ("note", 3, "note= must be a string"),
])
def test_a_malformed_paper_is_one_line(field, value, message):
    with pytest.raises(ClaimDefinitionError, match=message) as error:
        Paper(**{**GOOD, field: value})
    assert "\n" not in str(error.value)


def test_a_paper_declared_again_must_be_the_same(monkeypatch):
    monkeypatch.setattr(papers, "_PAPERS", {})
    register_paper(Paper(**GOOD))
    register_paper(Paper(**GOOD))  # importing the package again is harmless
    with pytest.raises(ClaimDefinitionError, match="paper mypaper declared twice, differently"):
        register_paper(Paper(**{**GOOD, "year": 2025}))
    with pytest.raises(ClaimDefinitionError, match="register_paper\\(\\) takes a Paper, not dict"):
        register_paper(GOOD)


def test_every_packaged_paper_is_declared_with_a_stable_link():
    declared = {claim.paper: papers.paper(claim.paper) for claim in claims().values()}
    assert set(declared) == {"giannou2023", "daneshmand2020", "burkholz2024", "randfeat2025"}
    links = {paper_id: paper.link for paper_id, paper in declared.items()}
    assert links == {"giannou2023": "https://arxiv.org/abs/2302.07937",
                     "daneshmand2020": "https://arxiv.org/abs/2003.01652v1",
                     "burkholz2024": "https://openreview.net/forum?id=wOSYMHfENq",
                     "randfeat2025": "https://openreview.net/forum?id=E361DSJEyT"}


def test_sources_are_locations_in_the_paper_never_files_of_this_repository():
    for claim in claims().values():
        assert "shared/seeds" not in claim.source and not claim.source.startswith(claim.paper), claim.id
    package = Path(theorems.__file__).parent
    mentions = [path for path in package.rglob("*") if path.is_file() and path.suffix in (".py", ".md")
                and "shared/seeds" in path.read_text(encoding="utf-8")]
    assert mentions == []
