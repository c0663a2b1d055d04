"""The HTML report opens offline in a real browser: headless Chromium (Debian's ``chromium``)
loads every page reachable from index.html and the test fails on a console error, a link or
image source that does not resolve to a file (or anchor) inside the folder, or an image that
does not load. Chromium is driven over the DevTools protocol on a pipe, so no driver package
is needed. Set THEOREMS_HTML_SHOTS to a folder to keep screenshots of the main pages."""

import base64
import fcntl
import json
import os
import queue
import re
import shutil
import subprocess
import threading
from html import escape, unescape
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from theorems import report
from theorems.engine import environment
from theorems.engine.context import Context
from theorems.engine.registry import claims
from theorems.engine.runner import run_claim
from theorems.report.html_pages import write_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

# A refuted claim (giannou2023.thm10) with its corrected variant, a refuted claim resting on it
# (remark11), a claim with figures resting on both (remark3), and a second paper's refuted
# lemma with a theorem resting on it: every kind of page, node and edge, in a few seconds.
CLAIM_IDS = ("giannou2023.thm10", "giannou2023.thm10.corrected", "giannou2023.remark11", "giannou2023.remark3",
             "burkholz2024.lemma2_1", "burkholz2024.thm2_4")
CONTEXT = Context("quick", 1, "cpu")


def _write(results, out: Path) -> None:
    run = {"profile": "quick", "seed": 1, "device": "cpu", "seconds": 0.1, "environment": environment.describe(CONTEXT)}
    report.write_report(results, run, out, html=True)


@pytest.fixture(scope="module")
def report_folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    _write([run_claim(claims()[i], CONTEXT) for i in CLAIM_IDS], out)
    return out


class Chromium:
    """Headless Chromium over ``--remote-debugging-pipe``: DevTools messages are JSON ending in
    a NUL byte, read by the browser on file descriptor 3 and written on 4."""

    def __init__(self, profile: Path):
        self._to_browser, to_browser_child = os.pipe()[::-1]
        from_browser_child, self._from_browser = os.pipe()[::-1]
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                 "--host-resolver-rules=MAP * ~NOTFOUND",  # offline: any network request fails loudly
                 f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"]

        def descriptors_3_and_4():  # (moved above 4 first: either pipe end may itself be 3 or 4)
            reads, writes = (fcntl.fcntl(fd, fcntl.F_DUPFD, 5) for fd in (to_browser_child, from_browser_child))
            os.dup2(reads, 3)
            os.dup2(writes, 4)

        self.process = subprocess.Popen([CHROMIUM, *flags], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, close_fds=False, preexec_fn=descriptors_3_and_4)
        os.close(to_browser_child)
        os.close(from_browser_child)
        self._messages: queue.Queue = queue.Queue()
        self.events: list[dict] = []
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)
        # a narrow window (half a laptop screen): a wide table has to wrap or scroll inside its box
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=900, height=900, deviceScaleFactor=1,
                  mobile=False)

    def _read(self):
        buffer = b""
        with os.fdopen(self._from_browser, "rb", buffering=0) as pipe:
            while chunk := pipe.read(65536):
                buffer += chunk
                *messages, buffer = buffer.split(b"\0")
                for message in messages:
                    self._messages.put(json.loads(message))

    def call(self, method: str, session: bool = False, **params) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._messages.get(timeout=30)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def open(self, path: Path) -> dict:
        """Load a page and wait for its load event; return its links, sources, images and ids."""
        self.events.clear()
        self.call("Page.navigate", session=True, url=path.as_uri())
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.append(self._messages.get(timeout=30))
        script = """(() => ({
            hrefs: [...document.querySelectorAll('[href]')].map(e => e.getAttribute('href')),
            srcs: [...document.querySelectorAll('[src]')].map(e => e.getAttribute('src')),
            broken_images: [...document.images].filter(i => !(i.complete && i.naturalWidth > 0))
                                               .map(i => i.getAttribute('src')),
            images: document.images.length,
            ids: [...document.querySelectorAll('[id]')].map(e => e.id),
            overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        }))()"""
        return self.call("Runtime.evaluate", session=True, expression=script, returnByValue=True)["result"]["value"]

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and failed loads since the last page opened."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(params["exceptionDetails"].get("text", "exception"))
            elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert", "warning"):
                found.append(" ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                found.append(f"{params['entry']['text']} ({params['entry'].get('url', '')})")
        return found

    def screenshot(self, path: Path, max_height: int = 6000) -> None:
        size = self.call("Page.getLayoutMetrics", session=True)["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], max_height), "scale": 1}
        shot = self.call("Page.captureScreenshot", session=True, format="png", clip=clip, captureBeyondViewport=True)
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self):
        try:
            self.call("Browser.close")
        except (RuntimeError, queue.Empty, OSError):
            self.process.kill()
        self.process.wait(timeout=10)
        os.close(self._to_browser)


def crawl(folder: Path, browser: Chromium, shots: Path | None = None) -> dict[Path, dict]:
    """Every page reachable from index.html, with what the browser found on it; fails on a
    console error, an unloaded image, a link leaving the folder or pointing nowhere, or a page
    wider than the window. The only links out are the papers' own (arXiv, OpenReview), as
    report.json declares them."""
    report = json.loads((folder.parent / "report.json").read_text(encoding="utf-8"))
    paper_links = {paper["link"] for paper in report["papers"].values() if paper}
    folder = folder.resolve()
    pages, pending, problems = {}, [folder / "index.html"], []
    while pending:
        page = pending.pop()
        if page in pages:
            continue
        pages[page] = found = browser.open(page)
        problems += [f"{page.name}: {error}" for error in browser.errors()]
        problems += [f"{page.name}: image {src} did not load" for src in found["broken_images"]]
        if found["overflow"] > 0:  # a wide table or graph scrolls inside its box, never the page
            problems.append(f"{page.name}: {found['overflow']} px wider than the window")
        for reference in found["hrefs"] + found["srcs"]:
            parts = urlsplit(reference)
            if parts.scheme or parts.netloc:
                if reference not in paper_links:
                    problems.append(f"{page.name}: {reference} leaves the folder")
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.is_relative_to(folder) or not target.is_file():
                problems.append(f"{page.name}: {reference} does not resolve to a file in the folder")
            elif target.suffix == ".html":
                pending.append(target)
        if shots is not None and page.name in ("index.html", "graph.html", "errata.html", "giannou2023.remark3.html"):
            browser.screenshot(shots / page.with_suffix(".png").name)
    for page, found in pages.items():  # anchors exist on the pages they point into
        for reference in found["hrefs"]:
            parts = urlsplit(reference)
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if parts.fragment and target in pages and parts.fragment not in pages[target]["ids"]:
                problems.append(f"{page.name}: anchor {reference} does not exist")
    assert not problems, "\n".join(problems)
    return pages


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)")
    chromium = Chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield chromium
    chromium.close()


def test_html_report_opens_offline_with_every_link_figure_and_anchor(report_folder, browser):
    html = report_folder / "html"
    shots = os.environ.get("THEOREMS_HTML_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
    pages = crawl(html, browser, Path(shots) if shots else None)

    written = set(html.rglob("*.html"))
    assert {page.resolve() for page in pages} == {page.resolve() for page in written}  # every page is linked
    assert {p.relative_to(html).as_posix() for p in written} >= {f"claims/{i}.html" for i in CLAIM_IDS}
    remark3 = pages[(html / "claims" / "giannou2023.remark3.html").resolve()]
    assert remark3["images"] == 2  # both threshold-study figures, loaded
    assert any(href.startswith("../records/") for href in remark3["hrefs"]) or not (report_folder / "records").exists()


def test_html_report_marks_what_rests_on_a_refuted_claim(report_folder):
    html = report_folder / "html"
    graph = (html / "graph.html").read_text(encoding="utf-8")
    svg = graph[graph.index("<svg"):graph.index("</svg>")]
    assert svg.count('<a href="claims/') == len(CLAIM_IDS)  # every claim is a node linking to its page
    assert "rests on refuted: giannou2023.remark11, giannou2023.thm10" in graph
    claim_page = (html / "claims" / "burkholz2024.thm2_4.html").read_text(encoding="utf-8")
    assert "Rests on a refuted claim:" in claim_page and "burkholz2024.lemma2_1.html" in claim_page
    errata = (html / "errata.html").read_text(encoding="utf-8")
    for claim_id in ("giannou2023.thm10", "giannou2023.remark11", "burkholz2024.lemma2_1"):
        assert f'id="{claim_id}"' in errata
    assert "claims/giannou2023.thm10.corrected.html" in errata


def test_html_report_cites_each_paper_with_a_link(report_folder):
    html = report_folder / "html"
    page = (html / "claims" / "giannou2023.thm10.html").read_text(encoding="utf-8")
    assert ("source: Giannou, Rajput, Papailiopoulos, <em>The Expressive Power of Tuning Only the Normalization "
            'Layers</em>, COLT 2023 (<a href="https://arxiv.org/abs/2302.07937">arXiv:2302.07937</a>), App. D, '
            "Theorem 10") in page
    index = (html / "index.html").read_text(encoding="utf-8")
    assert ("<p>Rebekka Burkholz. <em>Batch Normalization is Sufficient for Universal Function Approximation in "
            'CNNs</em>. ICLR 2024. <a href="https://openreview.net/forum?id=wOSYMHfENq">OpenReview</a>.</p>') in index
    assert "Angeliki Giannou, Shashank Rajput, Dimitris Papailiopoulos. <em>The Expressive Power" in index


def test_html_report_escapes_the_report_text(report_folder, tmp_path):
    data = json.loads((report_folder / "report.json").read_text(encoding="utf-8"))
    data["claims"][0]["statement"] = '<script>alert("x")</script> & <b>'
    data["claims"][0]["evidence"][0]["evidence"] = {"<key>": ["<a>", 1]}
    write_html(data, tmp_path / "html", sources=(report_folder,))
    page = (tmp_path / "html" / "claims" / f"{data['claims'][0]['id']}.html").read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;" in page
    assert "&lt;key&gt;" in page and "[&lt;a&gt;, 1]" in page


def test_html_report_is_replaced_whole(report_folder, tmp_path):
    out = tmp_path / "r"
    shutil.copytree(report_folder, out)
    (out / "html" / "stale.html").write_text("old", encoding="utf-8")
    _write([run_claim(claims()[CLAIM_IDS[1]], CONTEXT)], out)
    assert not (out / "html" / "stale.html").exists()
    assert sorted(p.name for p in (out / "html" / "claims").iterdir()) == [f"{CLAIM_IDS[1]}.html"]
    assert not [p for p in out.iterdir() if p.name.startswith(".report-")]  # no staging left


def test_graph_nodes_show_whole_labels_and_claim_pages_their_statements(report_folder):
    html = report_folder / "html"
    data = json.loads((report_folder / "report.json").read_text(encoding="utf-8"))
    graph = (html / "graph.html").read_text(encoding="utf-8")
    for claim in data["claims"]:
        node = re.search(rf'<a href="claims/{re.escape(claim["id"])}.html">(.*?)</a>', graph, re.S).group(1)
        lines = [unescape(text) for text in re.findall(r"<text [^>]*>(.*?)</text>", node)]
        assert " ".join(lines).endswith(claim["label"])  # the id's lines, then the whole label
        assert "".join(lines).startswith(claim["id"].split(".", 1)[1])
        assert f"<td>{escape(claim['statement'])}</td>" in graph  # statements below the graph, not only on hover
        page = (html / "claims" / f"{claim['id']}.html").read_text(encoding="utf-8")
        assert f"<h2>Statement</h2><blockquote>{escape(claim['statement'])}</blockquote>" in page


def test_errata_relate_severity_to_the_claims_resting_on_it(report_folder):
    errata = (report_folder / "html" / "errata.html").read_text(encoding="utf-8")
    thm10 = errata[errata.index('id="giannou2023.thm10"'):errata.index('id="giannou2023.remark11"')]
    assert "need only the corrected reading (as-printed" in thm10
    remark11 = errata[errata.index('id="giannou2023.remark11"'):]
    assert "where the false reading may matter (substantive" in remark11.split("<h2")[0]
