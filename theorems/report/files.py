"""The report folder: report.json, report.md, figures/, records/ and, with ``--html``, html/.

The whole new folder is built beside the target (``.<name>.staging-*``, holding also the
benchmarks ``theorems bench all`` left in the old one) and swapped in with one atomic
operation (Linux ``renameat2(RENAME_EXCHANGE)``), so that the target holds one whole
report at every moment: the old one, or the new one (before the first report there is no
folder, never an empty one: the first is renamed into place). A crash, a full disk or a signal
leaves at most a staging folder, or the swapped-out old report (``.<name>.staging-*``,
which the run was removing), beside it; the next run removes them. Where the atomic
exchange is not available the old folder is renamed aside (``.<name>.old-*``) first and
the new one renamed into place: killed between the two, the next run puts the old report
back. A running writer holds a lock on its staging folder, so that only leftovers of runs
that ended are removed.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import io
import json
import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..engine.generated_mutants import generated_mutation_test
from ..engine.pauses import pause_at
from ..engine.runner import ClaimResult
from ..engine.vocabulary import Verdict
from ..errors import UsageError
from .document import build_report, slug
from .html_pages import write_html
from .markdown import render_markdown
from .records import write_records

# What a report folder holds: written by each report (REPORT_ENTRIES), and left there by
# `theorems bench all` or by hand (any other file, carried over into each new report).
REPORT_ENTRIES = ("report.json", "report.md", "figures", "records", "html")
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2
FIGURE_OPTIONS = {"dpi": 110, "bbox_inches": "tight"}


def _leftover(entry: str) -> bool:
    """Probe files, and staging folders inside the folder from earlier versions of the suite."""
    return entry.startswith((".probe-", ".report-"))


def ensure_writable(out: Path) -> None:
    """Fail before any work is done if the report folder cannot be written, or holds a
    folder a report does not write (which each new report would drop); remove what killed
    runs left beside it. It creates nothing: a report folder appears only when its report is
    whole (``write_report``), so that a run killed before leaves none, not an empty one."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder")
    target = out.resolve()
    nearest = next(folder for folder in (target, *target.parents) if folder.exists())  # where folders are made
    try:
        if target.parent.exists():
            _tidy(target)
        for folder in dict.fromkeys((nearest, target.parent)):
            if folder.exists():
                with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
                    pass
    except OSError as error:
        raise UsageError(f"report folder {out} is not writable: {error.strerror or error}") from None
    if Path.cwd().resolve().is_relative_to(target):
        raise UsageError(f"report folder {out} holds the working directory, and each report replaces its folder: "
                         "choose another folder")
    if not out.exists():
        return
    foreign = sorted(entry.name for entry in out.iterdir()
                     if entry.is_dir() and entry.name not in REPORT_ENTRIES and not _leftover(entry.name))
    if foreign:
        raise UsageError(f"report folder {out} holds {', '.join(f + '/' for f in foreign)}, which a report does not "
                         "write and would drop: choose another folder")


def _locked(folder: Path) -> int | None:
    """A descriptor holding an exclusive lock on ``folder``, or None if another process holds one."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        return None
    return descriptor


def _tidy(target: Path) -> None:
    """Repair and remove what killed runs left beside ``target``: put back an old report
    renamed aside by a swap that did not finish, then remove the staging and old folders
    that no running writer holds."""
    prefixes = (f".{target.name}.staging-", f".{target.name}.old-")
    leftovers = sorted((p for p in target.parent.iterdir() if p.name.startswith(prefixes) and p.is_dir()),
                       key=lambda p: p.stat().st_mtime)
    if not target.exists() or not any(target.iterdir()):
        aside = [p for p in leftovers if p.name.startswith(prefixes[1])]
        if aside:
            os.rename(aside[-1], target)  # also over an empty folder (one made by an earlier version)
            leftovers.remove(aside[-1])
    for folder in leftovers:
        descriptor = _locked(folder)
        if descriptor is not None:
            try:
                shutil.rmtree(folder, ignore_errors=True)
            finally:
                os.close(descriptor)


def _exchange(first: Path, second: Path) -> bool:
    """Swap two folders in one step (Linux ``renameat2`` with ``RENAME_EXCHANGE``); False
    where the platform, the C library or the file system cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(second))


def _swap_in(new: Path, target: Path) -> None:
    """Put the complete folder ``new`` at ``target``; afterwards ``new`` holds the old report
    (or nothing, or is gone where there was no old one)."""
    if not target.exists():  # the first report into this folder
        os.rename(new, target)
        return
    if _exchange(new, target):
        return
    aside = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    os.rename(target, aside)  # replaces the empty folder just made
    os.rename(new, target)
    os.rename(aside, new)


def _carry_over(old: Path, new: Path) -> None:
    """Copy into the new folder the files of the old one that a report does not write
    (bench.json and bench.md of `theorems bench all`)."""
    for entry in old.iterdir():
        if entry.is_file() and entry.name not in REPORT_ENTRIES and not _leftover(entry.name):
            shutil.copy2(entry, new / entry.name)


class RenderedFigure:
    """A figure already rendered to PNG, as the report writes it: workers render their claims'
    figures (``render_figures``), so that the main process only writes the files."""

    def __init__(self, figure):
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", **FIGURE_OPTIONS)
        self.png = buffer.getvalue()

    def savefig(self, path, **options) -> None:
        Path(path).write_bytes(self.png)


def render_figures(result: ClaimResult) -> None:
    """Render the figures of ``result`` to PNG, in place (``run_claims``' ``prepare``)."""
    for check in result.checks:
        check.outcome.figures = {name: RenderedFigure(figure) for name, figure in check.outcome.figures.items()}


@dataclass(frozen=True)
class FiguresAndMutants:
    """``run_claims``' ``prepare`` for a report with mutants: in the worker that ran a claim,
    render its figures, and when it is one of ``selected`` and certified, run its generated
    mutants at its own context (the claims it rests on, run beside it, are not mutated)."""

    selected: frozenset[str]

    def __call__(self, result: ClaimResult) -> None:
        render_figures(result)
        if result.claim.id in self.selected and result.verdict is Verdict.CERTIFIED:
            result.generated_mutants = generated_mutation_test(result.claim, result.context, result)


def write_report(results: list[ClaimResult], run: dict, out: Path, html: bool = False,
                 not_run: list[str] = (), expected: Mapping[str, Verdict] | None = None,
                 discipline: Mapping[str, list[str]] | None = None) -> tuple[Path, Path]:
    """Write report.json, report.md, figures/, records/ (one reproducibility record per claim)
    and, with ``html``, the HTML report html/ under ``out`` atomically, replacing the whole
    folder (a report without ``html`` has no html/); return the paths. ``not_run``: the
    claims selected that did not run (the run was interrupted); ``expected``: the gate
    manifest's verdicts, marked beside the verdicts that differ; ``discipline``: where it was
    applied, the lines of each claim that breaks it, marked beside its verdict."""
    ensure_writable(out)
    target = out.resolve()
    report = build_report(results, run, not_run, expected, discipline)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.parent / f".{target.name}.staging-{secrets.token_hex(6)}"
    staging.mkdir()  # with a new folder's permissions (the umask's), unlike mkdtemp's private one
    lock = _locked(staging)
    try:
        if target.exists():
            os.chmod(staging, stat.S_IMODE(target.stat().st_mode))
            _carry_over(target, staging)
        figures: dict[str, list[str]] = {}
        (staging / "figures").mkdir()
        for result in results:
            for name, figure in result.figures.items():
                filename = f"{slug(result.claim.id)}--{slug(name)}.png"
                figure.savefig(staging / "figures" / filename, **FIGURE_OPTIONS)
                figures.setdefault(result.claim.id, []).append(f"figures/{filename}")
        report["figures"] = figures
        (staging / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        (staging / "report.md").write_text(render_markdown(report, figures), encoding="utf-8")
        write_records(results, report["environment"], staging / "records", out / "records",
                      report.get("claim_packages", ()))
        if html:
            write_html(report, staging / "html", sources=(staging,))
        pause_at("staged")
        _swap_in(staging, target)
        pause_at("swapped")
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # after the swap: the old report
        if lock is not None:
            with contextlib.suppress(OSError):
                os.close(lock)
    return out / "report.json", out / "report.md"
