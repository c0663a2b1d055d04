"""The HTML report: a folder that opens offline, for readers who never run the suite.

``write_html(report, out, sources)`` turns the report dict (report.json) into

    index.html          verdicts by paper, every claim with its badge, the run's environment
    graph.html          the claims' dependency graph (an inline SVG laid out here, by depth)
    errata.html         every refuted claim: counterexample, severity, reason, corrected variant
    claims/<id>.html    one page per claim: statement, checks, evidence, figures, records
    figures/, records/  copies of the report's figures and reproducibility records

Styles are inline, the graph is SVG and there is no script, so the folder can be zipped,
mailed or served from anywhere. Every text from the report is HTML-escaped.
"""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from collections import Counter
from functools import partial
from html import escape
from pathlib import Path
from urllib.parse import quote

from ..engine import coverage
from ..engine.vocabulary import Verdict
from .benchmarks import BENCHMARK_COLUMNS, benchmark_rows, benchmarks_caption
from .document import (
    GENERAL_ARGUMENT_LABEL,
    RELIES_ON_LABEL,
    SEVERITY_EXPLANATION,
    absent_label,
    affects_relation,
    crashed_ids,
    discipline_mark,
    link_label,
    manifest_mark,
    rerun_command,
    scope_limit,
    scope_text,
    short_authors,
    slug,
)
from .mutants import counts_text, score_text

VERDICTS = tuple(Verdict)
# Claims without a verdict: not implemented yet; selected but crashed (a check raised, its
# worker died) or not run (the run was interrupted); or not selected for this run.
NOT_IMPLEMENTED, CRASHED, NOT_RUN, NOT_SELECTED = "not implemented", "crashed", "not run", "not in this run"
ABSENT = (CRASHED, NOT_RUN, NOT_IMPLEMENTED)  # the columns of the claims without a verdict, in order
COLOURS = {Verdict.CERTIFIED: "#1a7f37", Verdict.SUPPORTED: "#0969da", Verdict.REFUTED: "#cf222e",
           Verdict.INCONCLUSIVE: "#9a6700", NOT_IMPLEMENTED: "#8c959f", CRASHED: "#bc4c00", NOT_RUN: "#6e7781",
           NOT_SELECTED: "#8c959f"}
TINTS = {Verdict.CERTIFIED: "#dafbe1", Verdict.SUPPORTED: "#ddf4ff", Verdict.REFUTED: "#ffebe9",
         Verdict.INCONCLUSIVE: "#fff8c5", NOT_IMPLEMENTED: "#f6f8fa", CRASHED: "#fff1e5", NOT_RUN: "#eaeef2",
         NOT_SELECTED: "#f6f8fa"}
_ROWS_SHOWN = 12  # longer tables and lists in the evidence fold behind <details>

_CSS = f"""
body {{ font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 0 1.2em 3em;
        color: #1f2328; }}
nav {{ padding: .7em 0; border-bottom: 1px solid #d0d7de; margin-bottom: 1em; }}
nav a {{ margin-right: 1.2em; }}
a {{ color: #0969da; }}
h1 {{ font-size: 1.6em; }} h2 {{ font-size: 1.3em; margin-top: 1.6em; }} h3 {{ font-size: 1.05em; }}
table {{ border-collapse: collapse; margin: .5em 0; }}
th, td {{ border: 1px solid #d0d7de; padding: .25em .55em; text-align: left; vertical-align: top; }}
th {{ background: #f6f8fa; }}
td.num {{ text-align: right; font-variant-numeric: tabular-nums; }}
code, pre {{ font: 13px/1.4 ui-monospace, monospace; }}
h1 code, h2 code {{ font-size: .9em; }}
.evidence {{ overflow-x: auto; }}
pre {{ background: #f6f8fa; padding: .6em; overflow-x: auto; }}
table.matrix td {{ border: none; padding: 0 .5em; text-align: right; font: 13px ui-monospace, monospace; }}
table.matrix {{ border-left: 2px solid #57606a; border-right: 2px solid #57606a; }}
blockquote {{ margin: .8em 0; padding: .5em 1em; border-left: 4px solid #d0d7de; background: #f6f8fa; }}
.badge {{ display: inline-block; padding: 0 .55em; border-radius: 1em; font-size: .85em; font-weight: 600;
          color: #fff; white-space: nowrap; background: {COLOURS[NOT_SELECTED]}; }}
.scope {{ font-size: .85em; color: #555; }}
.manifest-differs {{ font-size: .85em; color: #a40; font-weight: bold; }}
{"".join(f".v-{v.replace(' ', '-')} {{ background: {c}; }}" for v, c in COLOURS.items())}
.box {{ border: 1px solid; border-radius: 6px; padding: .5em 1em; margin: 1em 0; }}
.warn, .interrupted {{ border-color: {COLOURS[Verdict.REFUTED]}; background: {TINTS[Verdict.REFUTED]}; }}
.erratum, .unchecked {{ border-color: {COLOURS[Verdict.INCONCLUSIVE]}; background: {TINTS[Verdict.INCONCLUSIVE]}; }}
figure {{ margin: 1em 0; }} figure img {{ max-width: 100%; border: 1px solid #d0d7de; }}
figcaption {{ color: #57606a; font-size: .9em; }}
.muted {{ color: #57606a; }}
table.wide {{ width: 100%; }}
.scroll {{ overflow-x: auto; }}  /* a table still wider than the page scrolls inside its box */
.graph {{ overflow-x: auto; }}
"""


def write_html(report: dict, out: Path, sources: tuple[Path, ...]) -> Path:
    """Write the HTML report for ``report`` into the new folder ``out`` and return index.html.

    The figures (``report["figures"]``) and reproducibility records (a claim's ``records``
    entries, or ``records/<id>.md|json`` and ``records/<id>--*.md|json``) are paths relative to
    the report folder; each is looked up in ``sources`` in order and copied into ``out``.
    Missing records are left out; a missing figure is an error."""
    claims = report["claims"]
    figures = {claim_id: [_copy(path, sources, out, required=True) for path in paths]
               for claim_id, paths in report.get("figures", {}).items()}
    records = {claim["id"]: [copied for path in _record_paths(claim, sources)
                             if (copied := _copy(path, sources, out, required=False)) is not None] for claim in claims}
    graph = _Graph(claims, report["not_implemented"], report.get("not_run", []), crashed_ids(report))
    (out / "claims").mkdir(parents=True, exist_ok=True)
    pages = {"index.html": _index(report, graph), "graph.html": _graph_page(graph),
             "errata.html": _errata_page(report, graph)}
    for claim in claims:
        pages[_claim_page_path(claim["id"])] = _claim_page(claim, report["papers"].get(claim["paper"]), graph,
                                                           figures.get(claim["id"], []), records[claim["id"]])
    for name, text in pages.items():
        (out / name).write_text(text, encoding="utf-8")
    return out / "index.html"


# --- files -------------------------------------------------------------------------------------

def _copy(relative: str, sources: tuple[Path, ...], out: Path, required: bool) -> str | None:
    """Copy ``relative`` (a path inside the report folder) from the first source holding it."""
    for source in sources:
        if (source / relative).is_file():
            (out / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / relative, out / relative)
            return relative
    if required:
        raise FileNotFoundError(f"{relative} is in the report but in none of {[str(s) for s in sources]}")
    return None


def _record_paths(claim: dict, sources: tuple[Path, ...]) -> list[str]:
    """The reproducibility records of a claim: those its ``records`` entry names (a path, a
    list of paths, or dicts of paths) and those named after it in records/."""
    named = claim.get("records") or []
    named = [named] if isinstance(named, (str, dict)) else named
    paths = []
    for entry in named:
        values = entry.values() if isinstance(entry, dict) else [entry]
        paths += [v for v in values if isinstance(v, str) and v.endswith((".md", ".json"))]
    names = {claim["id"], slug(claim["id"])}
    for source in sources:
        folder = source / "records"
        if folder.is_dir():
            paths += sorted(f"records/{p.name}" for p in folder.iterdir() if p.suffix in (".md", ".json")
                            and p.stem.split("--", 1)[0] in names)
    return list(dict.fromkeys(p for p in paths if not Path(p).is_absolute() and ".." not in Path(p).parts))


def _claim_page_path(claim_id: str) -> str:
    return f"claims/{slug(claim_id)}.html"


# --- the dependency graph ----------------------------------------------------------------------

def _barycentre(node: str, rank: dict[str, int], neighbours) -> float:
    """The mean rank of ``node``'s neighbours in the columns beside it (its own rank when it
    has none): sorting a column by it pulls linked nodes level, so fewer edges cross."""
    linked = [rank[m] for m in neighbours(node) if m in rank]
    return sum(linked) / len(linked) if linked else rank[node]


class _Graph:
    """Claims and what they rest on: ``depends_on`` edges and ``variant_of`` edges."""

    def __init__(self, claims: list[dict], not_implemented: list[str], not_run: list[str] = (),
                 crashed: set[str] = frozenset()):
        self.claims = {claim["id"]: claim for claim in claims}
        self.not_implemented = set(not_implemented)
        self.not_run = set(not_run)
        self.crashed = set(crashed)
        self.depends = {c["id"]: list(c["depends_on"]) for c in claims}
        self.variant_of = {c["id"]: c["variant_of"] for c in claims if c["variant_of"]}
        # What this run did not check (not implemented, or left out) but a claim rests on is a node too.
        missing = (parent for claim in self.claims for parent in self.parents(claim) if parent not in self.claims)
        self.nodes = list(self.claims) + list(dict.fromkeys(missing))
        self._refuted_below: dict[str, set[str]] = {}

    def verdict(self, node: str) -> str:
        if node in self.claims:
            return self.claims[node]["verdict"]
        if node in self.not_run:
            return CRASHED if node in self.crashed else NOT_RUN
        return NOT_IMPLEMENTED if node in self.not_implemented else NOT_SELECTED

    def parents(self, node: str) -> list[str]:
        """What a node rests on (its dependencies, and the claim it is a variant of)."""
        return self.depends.get(node, []) + ([self.variant_of[node]] if node in self.variant_of else [])

    def users(self, node: str) -> list[str]:
        return [c for c in self.claims if node in self.depends[c]]

    def variants(self, node: str) -> list[str]:
        return [c for c, original in self.variant_of.items() if original == node]

    def refuted_below(self, node: str) -> set[str]:
        """The refuted claims that ``node`` rests on through depends_on, directly or not (a
        corrected variant does not rest on the claim it corrects)."""
        if node not in self._refuted_below:
            self._refuted_below[node] = set()  # guards against a cycle
            found = set()
            for dependency in self.depends.get(node, []):
                if self.verdict(dependency) == Verdict.REFUTED:
                    found.add(dependency)
                found |= self.refuted_below(dependency)
            self._refuted_below[node] = found
        return self._refuted_below[node]

    def depth(self) -> dict[str, int]:
        """Longest chain of parents below each node: the column of the layout."""
        depths: dict[str, int] = {}

        def visit(node: str, path: frozenset) -> int:
            if node not in depths:
                parents = [p for p in self.parents(node) if p not in path]
                depths[node] = 1 + max((visit(p, path | {node}) for p in parents), default=-1)
            return depths[node]

        for node in self.nodes:
            visit(node, frozenset())
        return depths


_NODE_W, _GAP_X, _GAP_Y, _BAND_TITLE, _MARGIN = 220, 56, 12, 30, 16
# A node shows its whole id and label, wrapped: at most this many characters a line (the id in
# 12 px monospace, the label in 11 px), each line _LINE_H high, below a _NODE_PAD top margin.
_ID_CHARS, _LABEL_CHARS, _LINE_H, _NODE_PAD = 28, 32, 15, 6


def _wrap_id(text: str, width: int) -> list[str]:
    """A claim id in lines of at most ``width`` characters, broken after its dots."""
    lines = [""]
    for part in re.split(r"(?<=\.)", text):
        if lines[-1] and len(lines[-1]) + len(part) > width:
            lines.append("")
        lines[-1] += part
    return [chunk for line in lines for chunk in textwrap.wrap(line, width, break_on_hyphens=False)]


def _node_lines(graph: _Graph, node: str) -> tuple[list[str], list[str]]:
    """A node's text: its id (without the paper, which its band names) and its claim's label,
    or its verdict where the run has no claim."""
    claim = graph.claims.get(node)
    short = node.split(".", 1)[1] if "." in node else node
    return _wrap_id(short, _ID_CHARS), textwrap.wrap(claim["label"] if claim else graph.verdict(node), _LABEL_CHARS)


def _node_height(graph: _Graph) -> float:
    """One height for every node, the tallest text's: rows stay aligned across columns."""
    lines = max((sum(map(len, _node_lines(graph, node))) for node in graph.nodes), default=2)
    return 2 * _NODE_PAD + lines * _LINE_H


def _layout(graph: _Graph, node_h: float) -> tuple[dict[str, tuple[float, float]], list[tuple[str, float, float]],
                                                   float, float]:
    """Node positions: one band per paper, columns by depth, rows ordered to shorten edges
    (barycentre sweeps) and placed level with their parents where there is room. Returns
    positions, bands (paper, top, height), width and height."""
    depth = graph.depth()
    papers = list(dict.fromkeys(node.split(".", 1)[0] for node in graph.nodes))
    positions: dict[str, tuple[float, float]] = {}
    bands = []
    top = _MARGIN + 34  # room for the legend
    for paper in papers:
        nodes = [n for n in graph.nodes if n.split(".", 1)[0] == paper]
        columns: dict[int, list[str]] = {}
        for node in nodes:
            columns.setdefault(depth[node], []).append(node)
        for _ in range(3):  # down the columns by parents, then up by users
            for order, neighbours in ((sorted(columns), graph.parents), (sorted(columns, reverse=True), graph.users)):
                rank = {n: i for column in columns.values() for i, n in enumerate(column)}
                for d in order:
                    columns[d].sort(key=partial(_barycentre, rank=rank, neighbours=neighbours))
                    rank.update({n: i for i, n in enumerate(columns[d])})
        row: dict[str, float] = {}  # each node level with what it rests on, where there is room
        for d in sorted(columns):
            last = -1.0
            for node in columns[d]:
                linked = [row[m] for m in graph.parents(node) if m in row]
                row[node] = last = max(sum(linked) / len(linked) if linked else 0.0, last + 1)
        height = _BAND_TITLE + (max(row.values()) + 1) * (node_h + _GAP_Y) + _GAP_Y
        for node in nodes:
            positions[node] = (_MARGIN + 10 + depth[node] * (_NODE_W + _GAP_X),
                               top + _BAND_TITLE + row[node] * (node_h + _GAP_Y))
        bands.append((paper, top, height))
        top += height + _GAP_Y
    width = 2 * _MARGIN + 20 + (max(depth.values(), default=0) + 1) * (_NODE_W + _GAP_X) - _GAP_X
    return positions, bands, width, top + _MARGIN


def _dependency_svg(graph: _Graph) -> str:
    """The dependency graph as inline SVG: an arrow from each claim to the claims resting on it
    (dashed to a variant), nodes coloured by verdict, a red dashed ring around every claim that
    rests on a refuted claim, and red arrows along the steps that carry a refutation."""
    node_h = _node_height(graph)
    positions, bands, width, height = _layout(graph, node_h)
    legend, legend_width = _legend()
    width = max(width, legend_width + _MARGIN)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
             f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="system-ui, sans-serif" font-size="12" '
             f'role="img" aria-label="dependency graph of the claims">',
             "<defs>" + "".join(
                 f'<marker id="arrow-{name}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
                 f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
                 for name, colour in (("plain", "#8c959f"), ("refuted", COLOURS[Verdict.REFUTED]))) + "</defs>"]
    parts.append(legend)
    for paper, top, band_height in bands:
        parts.append(f'<rect x="{_MARGIN}" y="{top}" width="{width - 2 * _MARGIN:.0f}" height="{band_height:.0f}" '
                     f'rx="8" fill="#f6f8fa" stroke="#d0d7de"/>'
                     f'<text x="{_MARGIN + 10}" y="{top + 20}" font-weight="600" font-size="14">{escape(paper)}</text>')
    for node in graph.nodes:
        for parent in graph.parents(node):
            (x1, y1), (x2, y2) = positions[parent], positions[node]
            x1, y1, y2 = x1 + _NODE_W, y1 + node_h / 2, y2 + node_h / 2
            variant = parent == graph.variant_of.get(node) and parent not in graph.depends.get(node, [])
            carries = not variant and (graph.verdict(parent) == Verdict.REFUTED or graph.refuted_below(parent))
            colour, marker = (COLOURS[Verdict.REFUTED], "refuted") if carries else ("#8c959f", "plain")
            bend = max(_GAP_X / 2, (x2 - x1) / 2)
            dash = ' stroke-dasharray="5 4"' if variant else ""
            parts.append(f'<path d="M{x1:.0f},{y1:.0f} C{x1 + bend:.0f},{y1:.0f} {x2 - bend:.0f},{y2:.0f} '
                         f'{x2:.0f},{y2:.0f}" fill="none" stroke="{colour}" '
                         f'stroke-width="{2 if carries else 1.2}"{dash} marker-end="url(#arrow-{marker})"/>')
    for node in graph.nodes:
        parts.append(_node_svg(graph, node, positions[node], node_h))
    parts.append("</svg>")
    return "\n".join(parts)


def _node_svg(graph: _Graph, node: str, position: tuple[float, float], node_h: float) -> str:
    x, y = position
    verdict = graph.verdict(node)
    claim = graph.claims.get(node)
    below = sorted(graph.refuted_below(node))
    tip = f"{node} — {verdict}" + (f"\n{claim['label']}: {claim['statement']}" if claim else "")
    if below:
        tip += "\nrests on refuted: " + ", ".join(below)
    shape = [f"<title>{escape(tip)}</title>"]
    if below:
        shape.append(f'<rect x="{x - 4}" y="{y - 4}" width="{_NODE_W + 8}" height="{node_h + 8}" rx="9" fill="none" '
                     f'stroke="{COLOURS[Verdict.REFUTED]}" stroke-width="2" stroke-dasharray="4 3"/>')
    refuted = verdict == Verdict.REFUTED
    shape.append(f'<rect x="{x}" y="{y}" width="{_NODE_W}" height="{node_h}" rx="6" '
                 f'fill="{COLOURS[verdict] if refuted else TINTS[verdict]}" stroke="{COLOURS[verdict]}" '
                 'stroke-width="1.5"'
                 + (' stroke-dasharray="3 3"' if claim is None else "") + "/>")
    ink = "#ffffff" if refuted else "#1f2328"
    id_lines, label_lines = _node_lines(graph, node)
    lines = [(line, 'font-family="ui-monospace, monospace" font-weight="600"') for line in id_lines]
    lines += [(line, 'font-size="11"') for line in label_lines]
    for n, (line, attributes) in enumerate(lines):
        shape.append(f'<text x="{x + 8}" y="{y + _NODE_PAD + 11 + n * _LINE_H}" fill="{ink}" {attributes}>'
                     f"{escape(line)}</text>")
    body = "".join(shape)
    if claim is None:
        return f"<g>{body}</g>"
    return f'<a href="{escape(_claim_page_path(node))}">{body}</a>'


def _legend() -> tuple[str, float]:
    items, x = [], _MARGIN
    for verdict in (*VERDICTS, NOT_IMPLEMENTED):
        fill = COLOURS[verdict] if verdict == Verdict.REFUTED else TINTS[verdict]
        items.append(f'<rect x="{x}" y="{_MARGIN}" width="14" height="14" rx="3" fill="{fill}" '
                     f'stroke="{COLOURS[verdict]}"/>'
                     f'<text x="{x + 19}" y="{_MARGIN + 11}">{escape(verdict)}</text>')
        x += 34 + 7 * len(verdict)
    items.append(f'<rect x="{x}" y="{_MARGIN - 2}" width="18" height="18" rx="4" fill="none" '
                 f'stroke="{COLOURS[Verdict.REFUTED]}" stroke-width="2" stroke-dasharray="4 3"/>'
                 f'<text x="{x + 24}" y="{_MARGIN + 11}">rests on a refuted claim</text>')
    x += 190
    items.append(f'<path d="M{x},{_MARGIN + 7} h30" stroke="#8c959f" stroke-dasharray="5 4" '
                 'marker-end="url(#arrow-plain)"/>'
                 f'<text x="{x + 36}" y="{_MARGIN + 11}">variant</text>')
    return "".join(items), x + 90


# --- pages -------------------------------------------------------------------------------------

def _page(title: str, body: str, root: str) -> str:
    nav = "".join(f'<a href="{root}{href}">{text}</a>' for href, text in
                  (("index.html", "Verdicts"), ("graph.html", "Dependency graph"), ("errata.html", "Errata")))
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{_CSS}</style></head>\n"
            f"<body><nav>{nav}</nav>\n{body}\n</body></html>\n")


def _badge(verdict: str) -> str:
    return f'<span class="badge v-{escape(verdict.replace(" ", "-"))}">{escape(verdict)}</span>'


def _scoped_badge(entry: dict) -> str:
    """A claim's or check's verdict badge, with what a certification covers beside it, and a
    claim's expected verdict where the manifest expects another."""
    scope, differs, breaks = scope_text(entry.get("scope")), manifest_mark(entry), discipline_mark(entry)
    return (_badge(entry["verdict"]) + (f' <span class="scope">{escape(scope)}</span>' if scope else "")
            + "".join(f' <span class="manifest-differs">{escape(mark.strip())}</span>' for mark in (differs, breaks)
                      if mark))


def _id_code(claim_id: str) -> str:
    """A claim id as code that may break after its dots, so that tables of long ids fit the page."""
    return f"<code>{escape(claim_id).replace('.', '.<wbr>')}</code>"


def _claim_link(claim_id: str, root: str, graph: _Graph) -> str:
    if claim_id in graph.claims:
        return f'<a href="{escape(root + _claim_page_path(claim_id))}">{_id_code(claim_id)}</a>'
    return _id_code(claim_id)


def _linked_verdict(claim_id: str, verdict: str, root: str, graph: _Graph) -> str:
    return f"{_claim_link(claim_id, root, graph)}&nbsp;{_badge(verdict)}"


def _claim_list(ids, root: str, graph: _Graph) -> str:
    return ", ".join(_linked_verdict(i, graph.verdict(i), root, graph) for i in ids) or "—"


def _index(report: dict, graph: _Graph) -> str:
    claims = report["claims"]
    not_run = report.get("not_run", [])
    absent = {CRASHED: [i for i in not_run if i in graph.crashed],  # the rows without a verdict
              NOT_RUN: [i for i in not_run if i not in graph.crashed], NOT_IMPLEMENTED: report["not_implemented"]}
    columns = (*VERDICTS, *(kind for kind in ABSENT if absent[kind] or kind == NOT_IMPLEMENTED))
    papers = list(dict.fromkeys([c["paper"] for c in claims] + [i.split(".", 1)[0] for ids in absent.values()
                                                                  for i in ids]))
    total = Counter(c["verdict"] for c in claims)
    env = report.get("environment", {})
    run = ", ".join(f"{name} <strong>{escape(str(report[key]))}</strong>" for name, key in
                    (("profile", "profile"), ("seed", "seed"), ("device", "device"), ("generated", "generated_at"))
                    if key in report)
    body = [f"<h1>Verification report — theorems {escape(str(report['version']))}</h1>",
            f"<p>{run}; commit <code>{escape(str(env.get('git_commit', '?')))}</code>. "
            '<a href="#run">Run details</a>.</p>',
            *([_interrupted_banner(report)] if "interrupted" in report else []),
            *([_discipline_banner(report)] if report.get("discipline", {}).get("breaking") else []),
            *(_crash_banner(crash) for crash in report.get("crashed", ())),
            "<p>" + " ".join(f"{_badge(v)} {total[v]}" for v in VERDICTS)
            + "".join(f" &nbsp; {_badge(kind)} {len(absent[kind])}" for kind in columns if kind in absent)
            + f" &nbsp; of {len(claims)} claims checked. See the <a href=\"graph.html\">dependency graph</a> and the "
              f"<a href=\"errata.html\">errata</a> ({len(report['errata'])} refuted).</p>",
            "<h2>Verdicts by paper</h2>", '<div class="scroll"><table><tr><th>paper</th>'
            + "".join(f"<th>{_badge(v)}</th>" for v in columns)
            + "<th>rest on a refuted claim</th><th></th></tr>"]
    for paper in papers:
        mine = [c for c in claims if c["paper"] == paper]
        counts = Counter(c["verdict"] for c in mine)
        for kind, ids in absent.items():
            counts[kind] = sum(i.split(".", 1)[0] == paper for i in ids)
        resting = sum(bool(graph.refuted_below(c["id"])) for c in mine)
        body.append(f'<tr><td><a href="#{escape(slug(paper))}">{escape(paper)}</a></td>'
                    + "".join(f'<td class="num">{counts[v]}</td>' for v in columns)
                    + f'<td class="num">{resting}</td><td>{_bar(counts)}</td></tr>')
    body.append("</table></div>")
    for paper in papers:
        metadata = report["papers"].get(paper)
        body += [f'<h2 id="{escape(slug(paper))}">{escape(paper)}</h2>',
                 f'<p>{_reference(metadata) if metadata else "No paper metadata declared."}</p>',
                 '<div class="scroll"><table class="wide"><tr><th>claim</th><th>label</th><th>verdict</th>'
                 "<th>rests on a refuted claim</th><th>time (s)</th></tr>"]
        for claim in (c for c in claims if c["paper"] == paper):
            below = sorted(graph.refuted_below(claim["id"]))
            body.append(f"<tr><td>{_claim_link(claim['id'], '', graph)}</td><td>{escape(claim['label'])}</td>"
                        f"<td>{_scoped_badge(claim)}</td><td>{_claim_list(below, '', graph) if below else ''}</td>"
                        f"<td class=\"num\">{claim['timing_s']['total']:.1f}</td></tr>")
        for kind, ids in absent.items():
            for claim_id in (i for i in ids if i.split(".", 1)[0] == paper):
                body.append(f"<tr><td><code>{escape(claim_id)}</code></td>"
                            f"<td>{escape(absent_label(claim_id, report))}</td><td>{_badge(kind)}</td>"
                            "<td></td><td></td></tr>")
        body.append("</table></div>")
    if "benchmarks" in report:
        body += ['<h2 id="performance">Performance</h2>', f"<p>{escape(benchmarks_caption(report['benchmarks']))}</p>",
                 '<div class="scroll"><table class="wide"><tr>'
                 + "".join(f"<th>{escape(c)}</th>" for c in BENCHMARK_COLUMNS) + "</tr>"
                 + "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>"
                           for row in benchmark_rows(report["benchmarks"])) + "</table></div>"]
    body += ['<h2 id="run">Run</h2>', _run_table(report)]
    return _page(f"Verification report — theorems {report['version']}", "\n".join(body), "")


def _crash_banner(crash: dict) -> str:
    return (f'<div class="box interrupted"><strong>Crashed on {escape(str(crash["worker"]))}, without a verdict:'
            "</strong> " + ", ".join(f"<code>{escape(i)}</code>" for i in crash["claims"])
            + f". {escape(str(crash['reason']))}</div>")


def _discipline_banner(report: dict) -> str:
    discipline = report["discipline"]
    return (f'<div class="box warn"><strong>Breaking the discipline</strong> ({escape(discipline["applied"])}): '
            + ", ".join(f'<a href="{escape(_claim_page_path(i))}">{_id_code(i)}</a>' for i in discipline["breaking"])
            + ".</div>")


def _interrupted_banner(report: dict) -> str:
    not_run = report.get("not_run", [])
    return (f'<div class="box interrupted"><strong>Interrupted '
            f'({escape(str(report["interrupted"].get("signal", "SIGINT")))}).</strong> This report holds only the '
            f"claims that finished; {len(not_run)} did not run: "
            + ", ".join(f"<code>{escape(i)}</code>" for i in not_run) + ".</div>")


def _bar(counts: Counter) -> str:
    """A stacked bar of a paper's verdicts."""
    total = sum(counts.values()) or 1
    x, rects = 0.0, []
    for verdict in (*VERDICTS, *ABSENT):
        width = 200 * counts[verdict] / total
        if width:
            rects.append(f'<rect x="{x:.1f}" y="0" width="{width:.1f}" height="12" fill="{COLOURS[verdict]}">'
                         f"<title>{counts[verdict]} {escape(verdict)}</title></rect>")
        x += width
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="12">{"".join(rects)}</svg>'


def _run_table(report: dict) -> str:
    env = report.get("environment", {})
    rows = [("profile", report.get("profile")), ("seed", report.get("seed")), ("device", report.get("device")),
            ("generated", report.get("generated_at")), ("total time (s)", report.get("seconds")),
            ("commit", env.get("git_commit")), ("command", env.get("command")),
            ("same evidence again", rerun_command(report)),
            ("search budget", env.get("search_budget")), ("Python", env.get("python")),
            ("platform", env.get("platform")),
            ("CPU", f"{env['cpu']} ({env.get('cpu_count', '?')} cores)" if "cpu" in env else None),
            ("GPU", env.get("gpu")), ("BLAS", env.get("blas")), ("packages", env.get("packages"))]
    known = {"profile", "seed", "device", "generated_at", "seconds", "suite", "version", "environment", "summary",
             "claims", "errata", "not_implemented", "not_run", "interrupted", "crashed", "figures", "benchmarks",
             "labels"}
    rows += [(key, value) for key, value in report.items() if key not in known]  # whatever later runs add
    return '<div class="scroll"><table>' + "".join(f"<tr><th>{escape(str(k))}</th><td>{_render(v)}</td></tr>"
                                                 for k, v in rows if v is not None) + "</table></div>"


def _graph_page(graph: _Graph) -> str:
    resting = [c for c in graph.claims if graph.refuted_below(c)]
    body = ["<h1>Dependency graph</h1>",
            "<p>Each claim points to the claims that rest on it (<code>depends_on</code>, solid) and to its variants "
            "(<code>variant_of</code>, dashed), left to right by depth, one band per paper. Colours are verdicts; a "
            "red dashed ring marks a claim that rests, directly or through other claims, on a refuted claim, and red "
            "arrows carry the refutation. Click a claim for its page; <a href=\"#statements\">the statements</a> "
            "are listed below the graph.</p>",
            f'<div class="graph">{_dependency_svg(graph)}</div>',
            f"<h2>Claims resting on a refuted claim ({len(resting)})</h2>"]
    if resting:
        body.append('<div class="scroll"><table><tr><th>claim</th><th>verdict</th><th>rests on (refuted)</th></tr>'
                    + "".join(f"<tr><td>{_claim_link(c, '', graph)}</td><td>{_badge(graph.verdict(c))}</td>"
                              f"<td>{_claim_list(sorted(graph.refuted_below(c)), '', graph)}</td></tr>"
                              for c in resting) + "</table></div>")
    else:
        body.append("<p>None.</p>")
    body.append('<h2 id="statements">Statements</h2><div class="scroll"><table class="wide"><tr><th>claim</th>'
                "<th>label</th><th>verdict</th><th>statement</th></tr>"
                + "".join(f"<tr><td>{_claim_link(c['id'], '', graph)}</td><td>{escape(c['label'])}</td>"
                          f"<td>{_badge(c['verdict'])}</td><td>{escape(c['statement'])}</td></tr>"
                          for c in graph.claims.values()) + "</table></div>")
    return _page("Dependency graph", "\n".join(body), "")


def _errata_page(report: dict, graph: _Graph) -> str:
    entries = report["errata"]
    body = ["<h1>Errata</h1>"]
    if not entries:
        body.append("<p>No claim was refuted in this run.</p>")
        return _page("Errata", "\n".join(body), "")
    body += ["<p>" + re.sub(r"\*(.+?)\*", r"<em>\1</em>", escape(SEVERITY_EXPLANATION)) + "</p>",
             '<div class="scroll"><table><tr><th>claim</th><th>label</th><th>severity</th><th>corrected</th>'
             "<th>affects</th></tr>"]
    for entry in entries:
        body.append(f'<tr><td><a href="#{escape(slug(entry["id"]))}">{_id_code(entry["id"])}</a></td>'
                    f"<td>{escape(entry['label'])}</td><td>{escape(entry['severity'])}</td>"
                    f"<td>{_verdict_entries(entry['corrected'], '', graph)}</td>"
                    f"<td>{_verdict_entries(entry['affects'], '', graph)}</td></tr>")
    body.append("</table></div>")
    for entry in entries:
        body += [f'<h2 id="{escape(slug(entry["id"]))}">{_claim_link(entry["id"], "", graph)} '
                 f"<span class=\"muted\">({escape(entry['label'])})</span> {_badge('refuted')}</h2>",
                 f"<p><strong>Severity: {escape(entry['severity'])}.</strong> {escape(entry['reason'])}</p>",
                 f"<p>Corrected: {_verdict_entries(entry['corrected'], '', graph)}</p>",
                 f"<p>{_affects(_verdict_entries(entry['affects'], '', graph), entry)}</p>"]
        for refutation in entry["counterexamples"]:
            body.append(f"<h3>Refuted by {escape(refutation['check'])}</h3><p>{escape(refutation['summary'])}</p>")
            if refutation.get("counterexample") is not None:
                body.append(_counterexample(refutation["counterexample"]))
    return _page("Errata", "\n".join(body), "")


def _affects(listed: str, erratum: dict) -> str:
    """The claims an erratum affects (``listed``, as HTML) and how its severity bears on them."""
    return (f"Affects: {listed}. " if erratum["affects"] else "") + escape(
        affects_relation(erratum["severity"], erratum["affects"]))


def _verdict_entries(entries: list[dict], root: str, graph: _Graph, empty: str = "—") -> str:
    """Entries of the report's errata ({id, verdict}), linked where the run has the claim."""
    return ", ".join(_linked_verdict(e["id"], e["verdict"], root, graph) for e in entries) or escape(empty)


def _evidence(value) -> str:
    return f'<div class="evidence">{_render(value)}</div>'


def _counterexample(value) -> str:
    return (f"{_evidence(value)}<details><summary>JSON</summary>"
            f"<pre>{escape(json.dumps(value, indent=1, ensure_ascii=False))}</pre></details>")


def _paper_link(paper: dict) -> str:
    return f'<a href="{escape(paper["link"])}">{escape(link_label(paper["link"]))}</a>'


def _reference(paper: dict) -> str:
    """A paper's full reference: every author, the title, venue and year, its link and note."""
    note = f" {escape(paper['note'][0].upper() + paper['note'][1:])}." if paper.get("note") else ""
    return (f"{escape(', '.join(paper['authors']))}. <em>{escape(paper['title'])}</em>. "
            f"{escape(paper['venue'])} {paper['year']}. {_paper_link(paper)}.{note}")


def _citation(paper: dict | None, claim: dict) -> str:
    """Where the paper states the claim: "Giannou, Rajput, Papailiopoulos, <em>The Expressive
    Power of …</em>, COLT 2023 (arXiv:2302.07937, linked), App. A.2, Theorem 5"."""
    if paper is None:
        return f"{escape(claim['paper'])} (no paper metadata declared), {escape(claim['source'])}"
    return (f"{escape(short_authors(paper['authors']))}, <em>{escape(paper['title'])}</em>, "
            f"{escape(paper['venue'])} {paper['year']} ({_paper_link(paper)}), {escape(claim['source'])}")


def _claim_page(claim: dict, paper: dict | None, graph: _Graph, figures: list[str], records: list[str]) -> str:
    root, claim_id = "../", claim["id"]
    below = sorted(graph.refuted_below(claim_id))
    body = [f"<h1><code>{escape(claim_id)}</code> {_scoped_badge(claim)}</h1>",
            f"<p><strong>{escape(claim['label'])}</strong> · source: {_citation(paper, claim)}</p>",
            f"<h2>Statement</h2><blockquote>{escape(claim['statement'])}</blockquote>"]
    if claim["hypotheses"]:
        body.append("<p><strong>Hypotheses:</strong></p><ul>"
                    + "".join(f"<li>{escape(h)}</li>" for h in claim["hypotheses"]) + "</ul>")
    limit = scope_limit(claim)
    if limit:
        body.append(f"<p><strong>Scope:</strong> {escape(limit)}.</p>")
    if claim.get("breaks_discipline"):
        body.append('<div class="box warn"><strong>Breaks the discipline:</strong><ul>'
                    + "".join(f"<li>{escape(line)}</li>" for line in claim["breaks_discipline"]) + "</ul></div>")
    if below:
        body.append(f'<div class="box warn"><strong>Rests on a refuted claim:</strong> '
                    f"{_claim_list(below, root, graph)}.</div>")
    if "erratum" in claim:
        erratum = claim["erratum"]
        body.append(f'<div class="box erratum"><strong>Erratum ({escape(erratum["severity"])}).</strong> '
                    f"{escape(erratum['reason'])}<br>Corrected: {_claim_list(erratum['corrected'], root, graph)}. "
                    f"{_affects(_claim_list(erratum['affects'], root, graph), erratum)} "
                    f'<a href="{root}errata.html#{escape(slug(claim_id))}">In the errata</a>.</div>')
    relations = [("Variant of", [claim["variant_of"]] if claim["variant_of"] else []),
                 ("Variants", graph.variants(claim_id)), ("Rests on", claim["depends_on"]),
                 ("Used by", graph.users(claim_id))]
    if any(ids for _, ids in relations):
        body.append("<table>" + "".join(f"<tr><th>{name}</th><td>{_claim_list(ids, root, graph)}</td></tr>"
                                        for name, ids in relations if ids) + "</table>")
    if claim["notes"]:
        body.append(f"<h2>Notes</h2><p>{escape(claim['notes'])}</p>")
    if claim.get("profile_note"):
        body.append(f"<p><strong>Profiles:</strong> {escape(claim['profile_note'])}</p>")
    if claim.get("general_argument"):
        body.append(f'<h2>General argument</h2><div class="box unchecked"><strong>{escape(GENERAL_ARGUMENT_LABEL)}.'
                    f"</strong> {escape(claim['general_argument'])}</div>")
    timing = claim["timing_s"]
    body += [f"<h2>Checks</h2><p class=\"muted\">profile {escape(str(claim['profile']))}, "
             f"seed {escape(str(claim['seed']))}, "
             f"device {escape(str(claim['device']))}; {timing['total']:.2f} s in all</p>",
             '<div class="scroll"><table><tr><th>check</th><th>kind</th><th>part</th><th>verdict</th>'
             "<th>summary</th><th>time (s)</th></tr>"]
    for n, check in enumerate(claim["evidence"]):
        part = check["part"] + (" (corroborating)" if check["corroborating"] else "")
        seconds = timing.get(check["check"])
        body.append(f'<tr><td><a href="#check-{n}">{escape(check["check"])}</a></td><td>{escape(check["kind"])}</td>'
                    f"<td>{escape(part)}</td><td>{_scoped_badge(check)}</td><td>{escape(check['summary'])}</td>"
                    f"<td class=\"num\">{'' if seconds is None else f'{seconds:.2f}'}</td></tr>")
    body.append("</table></div>")
    body.append(_coverage_table(claim))
    body.append(_mutants_section(claim))
    for n, check in enumerate(claim["evidence"]):
        body += [f'<h3 id="check-{n}">{escape(check["check"])} {_scoped_badge(check)}</h3>',
                 f"<p>{escape(check['summary'])}</p>"]
        if check.get("relies_on"):
            body.append(f"<p><strong>{escape(RELIES_ON_LABEL[0].upper() + RELIES_ON_LABEL[1:])}:</strong></p><ul>"
                        + "".join(f"<li>{escape(result)}</li>" for result in check["relies_on"]) + "</ul>")
        body.append(_evidence(check.get("evidence", {})))
        if "counterexample" in check:
            body += ["<h4>Counterexample</h4>", _counterexample(check["counterexample"])]
        if "certificate" in check:
            body += ["<h4>Certificate</h4>", _evidence(check["certificate"])]
    if figures:
        body.append("<h2>Figures</h2>")
        for path in figures:
            caption = Path(path).stem.split("--", 1)[-1]
            body.append(f'<figure><img src="{escape(root + quote(path))}" alt="{escape(claim_id)}: {escape(caption)}">'
                        f"<figcaption>{escape(caption)}</figcaption></figure>")
    if records:
        body.append("<h2>Reproducibility records</h2><ul>"
                    + "".join(f'<li><a href="{escape(root + quote(path))}">{escape(path)}</a></li>' for path in records)
                    + "</ul>")
    return _page(f"{claim_id} — {claim['verdict']}", "\n".join(body), root)


def _coverage_table(claim: dict) -> str:
    """The object × check matrix (``engine.coverage``): how each check called each object of the
    claim's subject, and what each certified part's certificates cover."""
    rows = coverage.matrix(claim["evidence"])
    if not rows:
        return ""
    checks = [check["check"] for check in claim["evidence"]]
    html = ['<h2>Object coverage</h2><p class="muted">How each check called each object of the statement: '
            "symbolically (for every size), or at the largest sizes shown; measured while the checks ran.</p>",
            '<div class="scroll"><table><tr><th>object</th>'
            + "".join(f"<th>{escape(name)}</th>" for name in checks) + "</tr>"]
    for row in rows:
        html.append(f"<tr><td><code>{escape(row['object'])}</code></td>"
                    + "".join(f"<td>{escape(row['cells'][name])}</td>" for name in checks) + "</tr>")
    html.append("</table></div>")
    for cover in claim.get("object_coverage", []):
        scope = "not certified" if cover["scope"] is None else cover["scope"]
        reason = f" — {cover['reason']}" if cover.get("reason") else ""
        html.append(f"<p>Part <em>{escape(cover['part'])}</em> (about {escape(', '.join(cover['objects']))}): "
                    f"{escape(scope)}{escape(reason)}.</p>")
    return "\n".join(html)


def _mutants_section(claim: dict) -> str:
    """The score of the claim's generated mutants (``report --mutants``) and each survivor."""
    mutants = claim.get("generated_mutants")
    if mutants is None:
        return ""
    html = [f"<h2>Generated mutants</h2><p>Score <strong>{escape(score_text(mutants))}</strong>: "
            f"{escape(counts_text(mutants))}.</p>"]
    if mutants["survivors"]:
        html.append('<div class="scroll"><table><tr><th>object</th><th>mutant</th><th>within the certified scope</th>'
                    "<th>reason</th></tr>")
        html += [f"<tr><td><code>{escape(survivor['object'])}</code></td><td>{escape(survivor['description'])}</td>"
                 f"<td>{escape(survivor['within_scope'])}: {escape(survivor['why'])}</td>"
                 f"<td>{escape(survivor['reason'])}</td></tr>" for survivor in mutants["survivors"]]
        html.append("</table></div>")
    return "\n".join(html)


# --- evidence ----------------------------------------------------------------------------------

def _scalar(value) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _matrix_entry(value) -> bool:
    """Numbers, and short strings such as exact rationals ("433/250")."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return number or (isinstance(value, str) and len(value) < 40)


def _fold(rows: int, html: str, what: str) -> str:
    if rows <= _ROWS_SHOWN:
        return html
    return f"<details><summary>{rows} {what}</summary>{html}</details>"


def _render(value) -> str:
    """Evidence as HTML: dicts as key/value tables, lists of records as tables with a column per
    key, matrices as bracketed grids, vectors inline; long ones fold away."""
    if _scalar(value):
        if value is None:
            return '<span class="muted">—</span>'
        return f"<code>{escape(json.dumps(value))}</code>" if not isinstance(value, str) else escape(value)
    if isinstance(value, dict):
        if not value:
            return '<span class="muted">{}</span>'
        rows = "".join(f"<tr><th>{escape(str(k))}</th><td>{_render(v)}</td></tr>" for k, v in value.items())
        return f"<table>{rows}</table>"
    if not value:
        return '<span class="muted">[]</span>'
    if all(_scalar(v) for v in value):
        text = escape("[" + ", ".join(v if isinstance(v, str) else json.dumps(v) for v in value) + "]")
        return _fold(len(value), f"<code>{text}</code>", "values")
    if all(isinstance(row, list) and row and all(_matrix_entry(v) for v in row) for row in value):
        rows = "".join("<tr>" + "".join(f"<td>{escape(v if isinstance(v, str) else json.dumps(v))}</td>" for v in row)
                       + "</tr>" for row in value)
        return _fold(len(value), f'<table class="matrix">{rows}</table>', "rows")
    if all(isinstance(row, dict) for row in value):
        keys = list(dict.fromkeys(k for row in value for k in row))
        head = "".join(f"<th>{escape(str(k))}</th>" for k in keys)
        rows = "".join("<tr>" + "".join(f"<td>{_render(row[k]) if k in row else ''}</td>" for k in keys) + "</tr>"
                       for row in value)
        return _fold(len(value), f"<table><tr>{head}</tr>{rows}</table>", "rows")
    items = "".join(f"<li>{_render(v)}</li>" for v in value)
    return _fold(len(value), f'<ol start="0">{items}</ol>', "items")
