"""The README is a short guide that opens with the four papers, whose claims table is generated
from the registry and the manifest, and whose links lead somewhere."""

import io
import re
from contextlib import redirect_stdout
from pathlib import Path

from theorems import cli
from theorems.engine.catalog import catalog
from theorems.engine.papers import paper
from theorems.engine.registry import claims

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TABLE = re.compile(r"<!-- claims-table:start -->\n(.*)<!-- claims-table:end -->", re.S)
PAPERS = re.compile(r"(?<=four papers on normalization layers:\n)(?:- .*\n)+")
# The committed thorough report, in every clone: each claim's record is its evidence (and holds its erratum).
RECORDS = "reports/thorough/records"
ROW_ID = re.compile(r"^\| `(?P<id>[^`]+)`")
MOST_LINES = 400  # read in ten minutes (issue 27)
# A markdown link's target: a relative path, an #anchor, or both; web addresses are not followed.
LINK = re.compile(r"\]\((?!https?://)([^)#\s]*)(?:#([^)\s]+))?\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def generated_table() -> str:
    """`theorems list --markdown`, each id linked to its committed record and a refuted claim
    also to the record's erratum, where the committed report has them."""
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        cli.main(["list", "--markdown"])
    rows = []
    for row in buffer.getvalue().splitlines(keepends=True):
        claim = ROW_ID.match(row)
        record = ROOT / RECORDS / f"{claim['id']}.md" if claim else None
        if record and record.is_file():
            link = f"{RECORDS}/{record.name}"
            row = row.replace(f"`{claim['id']}`", f"[`{claim['id']}`]({link})", 1)
            if "\n## Erratum\n" in record.read_text(encoding="utf-8"):
                row = row.rstrip().removesuffix(" |") + f", [erratum]({link}#erratum) |\n"
        rows.append(row)
    return "".join(rows)


def generated_papers() -> str:
    """The papers as their packages declare them (``register_paper``), in the catalog's order."""
    claims()  # imports the paper packages, which declare their papers
    lines = []
    for paper_id in dict.fromkeys(entry.paper for entry in catalog().values()):
        declared = paper(paper_id)
        note = f" {declared.note[0].upper()}{declared.note[1:]}." if declared.note else ""
        lines.append(f"- `{paper_id}`: {', '.join(declared.authors)}, [*{declared.title}*]({declared.link}), "
                     f"{declared.venue}, {declared.year}.{note}\n")
    return "".join(lines)


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_readme_claims_table_is_current():
    match = TABLE.search(README.read_text(encoding="utf-8"))
    assert match, "README lacks the claims-table markers"
    assert match.group(1) == generated_table(), (
        "README claims table is stale: regenerate with `python tests/test_readme.py`"
    )


def test_readme_opens_with_the_four_papers():
    text = README.read_text(encoding="utf-8")
    papers = PAPERS.search(text)
    assert papers and text.index(papers.group()) < text.index("\n## "), "README does not open with the papers"
    assert papers.group() == generated_papers(), "stale papers: regenerate with `python tests/test_readme.py`"
    assert papers.group().count("\n") == 4


def test_the_claims_table_links_each_id_to_its_evidence_and_each_erratum():
    table = TABLE.search(README.read_text(encoding="utf-8")).group(1)
    assert f"[`giannou2023.lemma6`]({RECORDS}/giannou2023.lemma6.md) (core)" in table
    assert f"**refuted**, [erratum]({RECORDS}/giannou2023.fact1.md#erratum) |" in table
    for path, fragment in LINK.findall(table):
        assert fragment in ("", "erratum"), fragment
        assert not fragment or "\n## Erratum\n" in (ROOT / path).read_text(encoding="utf-8"), path


def test_every_install_of_the_suite_says_where_it_comes_from():
    """No package index has the suite: `pip install 'theorems[cluster]'` fails. A clone installs
    itself (`-e '.[…]'`); anywhere else, pip installs from the repository's address."""
    text = " ".join(FENCE.sub("", README.read_text(encoding="utf-8")).split())
    installs = re.findall(r"pip install '(theorems[^']*)'", text)
    assert installs and all(" @ git+https://" in install for install in installs), installs


def test_readme_is_short():
    lines = len(README.read_text(encoding="utf-8").splitlines())
    assert lines < MOST_LINES, f"README.md has {lines} lines; keep it under {MOST_LINES}"


def test_readme_links_lead_to_files_and_headings_that_exist():
    text = FENCE.sub("", README.read_text(encoding="utf-8"))
    headings = {anchor(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}
    for path, fragment in LINK.findall(text):
        if path:
            assert (ROOT / path).exists(), f"README links to {path}, which does not exist"
        elif fragment:
            assert fragment in headings, f"README links to #{fragment}, which is no heading"


def test_the_readme_says_what_checks_refuted_by():
    """``Broken.refuted_by`` names the refuting case in prose, which nothing matches against the
    run: the README must not call it pinned (the meta-tests check that each variant is refuted)."""
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert "pinned (`refuted_by`)" not in text
    assert "refuted by a case every seed visits, named in `refuted_by` (prose, unchecked)" in text


def test_the_anchor_of_a_heading_is_githubs():
    assert anchor(" Gating your own paper") == "gating-your-own-paper"
    assert anchor(" `theorems meta`") == "theorems-meta"


if __name__ == "__main__":
    text = README.read_text(encoding="utf-8")
    table = f"<!-- claims-table:start -->\n{generated_table()}<!-- claims-table:end -->"
    text = PAPERS.sub(lambda m: generated_papers(), TABLE.sub(lambda m: table, text))
    README.write_text(text, encoding="utf-8")
