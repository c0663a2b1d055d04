"""The report room: everything the suite writes for people and for re-runs, rendered from the
engine's results. The engine produces ``ClaimResult``s; nothing here runs a check except
``reproduce``, which re-runs a record through the engine.

    document     the report as data (report.json): claims, errata, ``affects``, timings
    markdown     report.md
    html_pages   html/: dashboard, dependency graph, claim pages, errata (offline, no script)
    records      records/<id>.json and .md: one reproducibility record per claim
    reproduce    re-run a record and compare verdict and evidence (a typed ``Reproduction``)
    benchmarks   the ``theorems bench all`` table, for bench.md and both reports
    mutants      the generated mutants' score of each certified claim (``report --mutants``)
    junit        ``gate --junit``: JUnit XML, a test case per claim and seed
    files        the report folder, written atomically
"""

from .document import build_report, claim_document, claim_seconds
from .files import FiguresAndMutants, ensure_writable, render_figures, write_report

__all__ = ["FiguresAndMutants", "build_report", "claim_document", "claim_seconds", "ensure_writable", "render_figures",
           "write_report"]
