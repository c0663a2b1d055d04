"""The README's claims table is generated from the registry and the manifest."""

import io
import re
from contextlib import redirect_stdout
from pathlib import Path

from theorems import cli

README = Path(__file__).resolve().parents[1] / "README.md"
TABLE = re.compile(r"<!-- claims-table:start -->\n(.*)<!-- claims-table:end -->", re.S)


def generated_table() -> str:
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        cli.main(["list", "--markdown"])
    return buffer.getvalue()


def test_readme_claims_table_is_current():
    match = TABLE.search(README.read_text(encoding="utf-8"))
    assert match, "README lacks the claims-table markers"
    assert match.group(1) == generated_table(), (
        "README claims table is stale: regenerate with `python tests/test_readme.py`"
    )


if __name__ == "__main__":
    text = README.read_text(encoding="utf-8")
    table = f"<!-- claims-table:start -->\n{generated_table()}<!-- claims-table:end -->"
    README.write_text(TABLE.sub(lambda m: table, text), encoding="utf-8")
