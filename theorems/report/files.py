"""The report folder: report.json, report.md, figures/, records/ and, with ``--html``, html/.

Files are staged in a temporary folder beside the target and moved into place with
os.replace, so a crash or a full disk never leaves a half-written report.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from ..engine.runner import ClaimResult
from ..errors import UsageError
from .document import build_report, slug
from .html_pages import write_html
from .markdown import render_markdown
from .records import write_records


def ensure_writable(out: Path) -> None:
    """Fail before any work is done if the report folder cannot be written."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".probe-"):
            pass
    except OSError as error:
        raise UsageError(f"report folder {out} is not writable: {error.strerror or error}") from None


def _replace_folder(new: Path, target: Path, parking: Path) -> None:
    """Put folder ``new`` at ``target``: the old one is renamed away first (a rename cannot
    replace a non-empty folder) and deleted with the staging folder."""
    if target.exists():
        os.replace(target, parking)
    os.replace(new, target)


def write_report(results: list[ClaimResult], run: dict, out: Path, html: bool = False) -> tuple[Path, Path]:
    """Write report.json, report.md, figures/, records/ (one reproducibility record per claim)
    and, with ``html``, the HTML report html/ under ``out`` atomically; return the paths."""
    ensure_writable(out)
    report = build_report(results, run)
    staging = Path(tempfile.mkdtemp(prefix=".report-", dir=out))
    try:
        figures: dict[str, list[str]] = {}
        (staging / "figures").mkdir()
        for result in results:
            for name, figure in result.figures.items():
                filename = f"{slug(result.claim.id)}--{slug(name)}.png"
                figure.savefig(staging / "figures" / filename, dpi=110, bbox_inches="tight")
                figures.setdefault(result.claim.id, []).append(f"figures/{filename}")
        report["figures"] = figures
        (staging / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        (staging / "report.md").write_text(render_markdown(report, figures), encoding="utf-8")
        (out / "figures").mkdir(exist_ok=True)
        for stale in (out / "figures").glob("*.png"):
            if not (staging / "figures" / stale.name).exists():
                stale.unlink()
        for figure_file in (staging / "figures").iterdir():
            os.replace(figure_file, out / "figures" / figure_file.name)
        write_records(results, report["environment"], staging / "records", out / "records")
        if html:
            write_html(report, staging / "html", sources=(staging, out))
            _replace_folder(staging / "html", out / "html", staging / "old-html")
        _replace_folder(staging / "records", out / "records", staging / "old-records")
        for name in ("report.json", "report.md"):
            os.replace(staging / name, out / name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out / "report.json", out / "report.md"
