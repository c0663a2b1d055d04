"""The README is a short guide whose claims table is generated from the registry and the
manifest, and whose links lead somewhere."""

import io
import re
from contextlib import redirect_stdout
from pathlib import Path

from theorems import cli

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TABLE = re.compile(r"<!-- claims-table:start -->\n(.*)<!-- claims-table:end -->", re.S)
MOST_LINES = 400  # read in ten minutes (issue 27)
# A markdown link's target: a relative path, an #anchor, or both; web addresses are not followed.
LINK = re.compile(r"\]\((?!https?://)([^)#\s]*)(?:#([^)\s]+))?\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def generated_table() -> str:
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        cli.main(["list", "--markdown"])
    return buffer.getvalue()


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_readme_claims_table_is_current():
    match = TABLE.search(README.read_text(encoding="utf-8"))
    assert match, "README lacks the claims-table markers"
    assert match.group(1) == generated_table(), (
        "README claims table is stale: regenerate with `python tests/test_readme.py`"
    )


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
    README.write_text(TABLE.sub(lambda m: table, text), encoding="utf-8")
