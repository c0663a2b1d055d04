import json

import pytest

from theorems import report
from theorems.engine.catalog import catalog
from theorems.engine.context import Context
from theorems.engine.registry import affected_by, claims
from theorems.engine.runner import run_claim
from theorems.report import claim_seconds
from theorems.report import files as report_files


def _results():
    return [run_claim(claims()["giannou2023.thm6"], Context("quick", 1, "cpu"))]


RUN = {"profile": "quick", "seed": 1, "device": "cpu", "seconds": 0.1,
       "environment": {"git_commit": "x", "command": "t", "packages": {}, "python": "3", "platform": "p", "cpu": "c",
                       "cpu_count": 1, "gpu": "none"}}


def test_report_is_written_atomically(tmp_path, monkeypatch):
    out = tmp_path / "r"
    report.write_report(_results(), RUN, out)
    before = (out / "report.json").read_text()

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(report_files, "render_markdown", broken)
    with pytest.raises(RuntimeError):
        report.write_report(_results(), {**RUN, "seed": 2}, out)
    assert (out / "report.json").read_text() == before  # the old report is intact
    # ... and no staging folder is left
    assert sorted(p.name for p in out.iterdir()) == ["figures", "records", "report.json", "report.md"]


def test_report_lists_unimplemented_ids_without_verdicts(tmp_path, monkeypatch):
    """A catalog id no claim implements is "not implemented"; an implemented claim this run
    did not select is "not in this run", never "not implemented"."""
    from theorems.report import document

    unimplemented = "randfeat2025.fig1e_k"  # as before its claim was written
    implemented = {key: claim for key, claim in claims().items() if not key.startswith(unimplemented)}
    monkeypatch.setattr(document, "registered_claims", lambda: implemented)
    json_path, md_path = report.write_report(_results(), RUN, tmp_path)
    data = json.loads(json_path.read_text())
    assert unimplemented in data["not_implemented"] and data["not_run"] == []
    assert "giannou2023.lemma6" not in data["not_implemented"]
    markdown = md_path.read_text()
    assert f"| {unimplemented} | {catalog()[unimplemented].label} | not implemented | |" in markdown
    assert f"| giannou2023.lemma6 | {catalog()['giannou2023.lemma6'].label} | not in this run | |" in markdown


def _refuted_claim_id() -> str:
    """A claim the gate manifest records as refuted (the first one: kept cheap at quick)."""
    from theorems.cli import default_manifest_path
    from theorems.engine.manifest import load_manifest
    from theorems.engine.verdicts import Verdict

    return next(claim_id for claim_id, verdict in load_manifest(default_manifest_path()).items()
                if verdict is Verdict.REFUTED)


def test_errata_list_every_refuted_claim_with_counterexample_severity_and_consequences(tmp_path):
    refuted = claims()[_refuted_claim_id()]
    context = Context("quick", 1, "cpu")
    results = [run_claim(refuted, context)] + [run_claim(claims()[i], context) for i in refuted.erratum.corrected]
    json_path, md_path = report.write_report(results, RUN, tmp_path)
    data = json.loads(json_path.read_text())

    (entry,) = data["errata"]  # the corrected variants are not refuted
    assert entry["id"] == refuted.id and entry["severity"] == refuted.erratum.severity
    assert entry["reason"] == refuted.erratum.reason
    assert [c["id"] for c in entry["corrected"]] == list(refuted.erratum.corrected)
    assert all(c["verdict"] in {"certified", "supported"} for c in entry["corrected"])
    assert [a["id"] for a in entry["affects"]] == affected_by(refuted.id)
    assert entry["counterexamples"] and all(c["summary"] for c in entry["counterexamples"])
    assert any(c["counterexample"] is not None for c in entry["counterexamples"])

    markdown = md_path.read_text()
    errata = markdown[markdown.index("## Errata"):markdown.index("## Claims")]
    assert f"| `{refuted.id}` | {refuted.erratum.severity} |" in errata
    assert refuted.erratum.reason in errata and "```json" in errata


def test_report_without_refutations_says_so(tmp_path):
    _, md_path = report.write_report(_results(), RUN, tmp_path)
    assert "## Errata\n\nNo claim was refuted in this run." in md_path.read_text()
    assert json.loads((tmp_path / "report.json").read_text())["errata"] == []


def test_claim_seconds_reads_an_earlier_report_or_nothing(tmp_path):
    path = tmp_path / "report.json"
    assert claim_seconds(path) == {}
    path.write_text('{"claims": [{"id": "a.b", "timing_s": {"total": 2.5}}]}')
    assert claim_seconds(path) == {"a.b": 2.5}
    path.write_text("not json")
    assert claim_seconds(path) == {}


def test_an_interrupted_report_lists_the_claims_not_run_never_as_not_implemented(tmp_path):
    not_run = ["giannou2023.lemma6", "giannou2023.thm10.corrected"]  # a catalog id and a variant
    run = {**RUN, "interrupted": {"signal": "SIGTERM", "not_run": not_run}}
    report.write_report(_results(), run, tmp_path, html=True, not_run=not_run)
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["not_run"] == not_run and data["interrupted"]["signal"] == "SIGTERM"
    assert not set(not_run) & set(data["not_implemented"])
    markdown = (tmp_path / "report.md").read_text()
    assert "**Interrupted (SIGTERM)" in markdown and "2 not run (interrupted)" in markdown
    labels = {claim_id: claims()[claim_id].catalog_label() for claim_id in not_run}  # a variant's too
    for claim_id in not_run:
        assert f"| {claim_id} | {labels[claim_id]} | not run | |" in markdown
    index = (tmp_path / "html" / "index.html").read_text()
    assert '<div class="box interrupted"><strong>Interrupted (SIGTERM).</strong>' in index
    for claim_id in not_run:
        assert (f'<tr><td><code>{claim_id}</code></td><td>{labels[claim_id]}</td><td><span class="badge v-not-run">'
                "not run</span>" in index)


def test_a_crash_report_says_crashed_not_interrupted_and_labels_the_claim(tmp_path):
    crashed = "giannou2023.thm10.corrected"  # a variant: its label is not the catalog's
    crash = {"claims": [crashed], "worker": "process 1 on h", "reason": "check 'c' crashed: KeyError: 'x'"}
    report.write_report(_results(), {**RUN, "crashed": [crash]}, tmp_path, html=True, not_run=[crashed])
    markdown = (tmp_path / "report.md").read_text()
    label = claims()[crashed].catalog_label()
    assert "; 1 not run (crashed);" in markdown and "(interrupted)" not in markdown
    assert f"| {crashed} | {label} | crashed | |" in markdown
    index = (tmp_path / "html" / "index.html").read_text()
    badge = '<span class="badge v-crashed">crashed</span>'
    assert f"<tr><td><code>{crashed}</code></td><td>{label}</td><td>{badge}" in index
    assert "badge v-not-run" not in index  # nothing was interrupted


def _entries(folder):
    return sorted(path.name for path in folder.iterdir())


def test_each_report_replaces_the_whole_folder_and_keeps_the_benchmarks(tmp_path):
    out = tmp_path / "r"
    report.write_report(_results(), RUN, out, html=True)
    (out / "bench.json").write_text("{}")  # as `theorems bench all` leaves them
    (out / "bench.md").write_text("bench")
    (out / "figures" / "stale.png").write_bytes(b"")
    report.write_report(_results(), RUN, out)  # no --html: no html/ is left from the run before
    assert _entries(out) == ["bench.json", "bench.md", "figures", "records", "report.json", "report.md"]
    assert "stale.png" not in _entries(out / "figures")
    assert (out / "bench.md").read_text() == "bench"
    assert _entries(tmp_path) == ["r"]  # nothing left beside it


def test_the_next_run_removes_what_a_killed_run_left_but_not_a_running_writers_folder(tmp_path):
    import fcntl
    import os

    out = tmp_path / "r"
    report.write_report(_results(), RUN, out)
    for name in (".r.staging-killed", ".r.staging-running", ".r.old-killed"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "report.json").write_text("{}")
    running = os.open(tmp_path / ".r.staging-running", os.O_RDONLY)  # as a writer holds it
    fcntl.flock(running, fcntl.LOCK_EX)
    try:
        report.write_report(_results(), RUN, out)
        assert _entries(tmp_path) == [".r.staging-running", "r"]
    finally:
        os.close(running)
    report.ensure_writable(out)
    assert _entries(tmp_path) == ["r"]


def test_without_an_atomic_exchange_the_old_folder_is_renamed_aside_and_a_half_swap_repaired(tmp_path, monkeypatch):
    out = tmp_path / "r"
    report.write_report(_results(), RUN, out)
    monkeypatch.setattr(report_files, "_exchange", lambda first, second: False)
    report.write_report(_results(), {**RUN, "seed": 2}, out)
    assert json.loads((out / "report.json").read_text())["seed"] == 2 and _entries(tmp_path) == ["r"]
    # Killed between the two renames: the old report aside, the new one staged, no folder.
    whole = (out / "report.json").read_text()
    out.rename(tmp_path / ".r.old-x")
    (tmp_path / ".r.staging-y").mkdir()
    report.ensure_writable(out)
    assert (out / "report.json").read_text() == whole and _entries(tmp_path) == ["r"]


def test_the_report_folder_appears_only_whole(tmp_path):
    out = tmp_path / "a" / "r"
    report.ensure_writable(out)  # checks, and creates nothing
    assert list(tmp_path.iterdir()) == []
    report.write_report(_results(), RUN, out)
    assert (out / "report.json").is_file() and _entries(tmp_path / "a") == ["r"]


def test_a_folder_a_report_would_drop_or_the_working_directory_is_refused(tmp_path, monkeypatch):
    from theorems.errors import UsageError

    (tmp_path / "r" / "data").mkdir(parents=True)
    with pytest.raises(UsageError, match="holds data/"):
        report.ensure_writable(tmp_path / "r")
    monkeypatch.chdir(tmp_path / "r" / "data")
    with pytest.raises(UsageError, match="working directory"):
        report.ensure_writable(tmp_path / "r")


@pytest.mark.parametrize("scope, shown", [("d ≤ 2", "certified (d ≤ 2)"), ("all", "certified (all sizes)")])
def test_a_certification_shows_its_scope_wherever_its_verdict_is(tmp_path, scope, shown):
    from theorems.engine.registry import Check, Claim, takes
    from theorems.engine.verdicts import Outcome, Verdict

    def exhaustive(definition):
        return Check("exhaustive", "symbolic", lambda ctx: Outcome(Verdict.CERTIFIED, "every case", {"cases": 3},
                                                                    scope=scope))

    claim = Claim("mypaper.scoped", "test", (), (takes("definition", build=exhaustive),), (), label="Scoped",
                  statement="A statement.", subject={"definition": abs})
    json_path, md_path = report.write_report([run_claim(claim, Context("quick", 1, "cpu"))], RUN, tmp_path, html=True)
    (entry,) = json.loads(json_path.read_text())["claims"]
    assert entry["scope"] == scope and entry["evidence"][0]["scope"] == scope
    markdown = md_path.read_text()
    assert f"**{shown}**" in markdown and f"| {shown} |\n\n- *exhaustive*: every case" in markdown
    record = json.loads((tmp_path / "records" / "mypaper.scoped.json").read_text())
    assert record["scope"] == scope and shown in (tmp_path / "records" / "mypaper.scoped.md").read_text()
    page = next((tmp_path / "html").rglob("mypaper.scoped*.html")).read_text()
    assert f'<span class="scope">{shown[len("certified ("):-1]}</span>' in page


def _toy_result():
    """A claim of another paper certified for all sizes by its own certificate, which cites a
    standard result, with a prose argument, resting on a claim certified for n ≤ 4 only."""
    from theorems.engine.registry import Check, Claim, takes
    from theorems.engine.verdicts import Outcome, Verdict

    def certificate(square):
        return Check("identity", "symbolic", lambda ctx: Outcome(
            Verdict.CERTIFIED, "holds for symbolic n", scope="all", relies_on=("rank–nullity (Axler, LADR, 3.22)",)))

    claim = Claim("mypaper.toy", "mypaper.pdf", (), (takes("square", build=certificate),), (), label="Toy",
                  statement="S", subject={"square": abs}, depends_on=("mypaper.base",),
                  general_argument="a prose argument for every n")
    result = run_claim(claim, Context("quick", 1, "cpu"))
    result.dependencies = {"mypaper.base": (Verdict.CERTIFIED, "n ≤ 4")}
    return result


def test_a_package_report_shows_what_the_machine_did_not_check(tmp_path):
    """Cited results, the prose argument and the scope its dependencies limit, in every
    rendering; and another project's report lists its own claims, not the packaged catalog."""
    json_path, md_path = report.write_report([_toy_result()], {**RUN, "claim_packages": ["mypaper.claims"]}, tmp_path,
                                             html=True)
    data = json.loads(json_path.read_text())
    (claim,) = data["claims"]
    assert (claim["scope"], claim["own_scope"]) == ("as mypaper.base: n ≤ 4", "all")
    assert claim["general_argument"] == "a prose argument for every n" and data["not_implemented"] == []
    assert claim["evidence"][0]["relies_on"] == ["rank–nullity (Axler, LADR, 3.22)"]
    limit = "its own certificates cover all sizes; limited by the claims it rests on to as mypaper.base: n ≤ 4"
    markdown = md_path.read_text()
    assert "giannou2023" not in markdown and limit in markdown
    assert "*general argument: not machine-checked* — a prose argument for every n" in markdown
    assert "identity relies on (cited, not machine-checked): rank–nullity (Axler, LADR, 3.22)." in markdown
    page = (tmp_path / "html" / "claims" / "mypaper.toy.html").read_text()
    assert limit in page and "general argument: not machine-checked" in page and "rank–nullity" in page
    record = json.loads((tmp_path / "records" / "mypaper.toy.json").read_text())
    assert record["own_scope"] == "all" and record["claim"]["general_argument"] == "a prose argument for every n"
    assert record["reproduce"]["command"].endswith("mypaper.toy.json --package mypaper.claims")
    record_markdown = (tmp_path / "records" / "mypaper.toy.md").read_text()
    assert limit in record_markdown and "rank–nullity" in record_markdown


def test_errata_say_how_severity_and_the_claims_resting_on_it_relate():
    from theorems.report.document import affects_relation
    from theorems.report.markdown import _errata_lines

    affects = [{"id": "p.later", "verdict": "supported"}, {"id": "p.other", "verdict": "refuted"}]
    printed = {"id": "p.lemma", "label": "Lemma 1", "severity": "as-printed", "reason": "r", "counterexamples": [],
               "corrected": [{"id": "p.lemma.corrected", "verdict": "certified"}], "affects": affects}
    substantive = {**printed, "id": "p.thm", "severity": "substantive"}
    alone = {**printed, "id": "p.alone", "affects": []}
    lines = "\n".join(_errata_lines([printed, substantive, alone]))
    assert "| `p.lemma` | as-printed | `p.lemma.corrected` (certified) | 2 (1 refuted) |" in lines
    assert "| `p.alone` | as-printed | `p.lemma.corrected` (certified) | — |" in lines  # table cells stay short
    assert "Affects: `p.later` (supported), `p.other` (refuted)." in lines
    for entry in (printed, substantive, alone):
        assert affects_relation(entry["severity"], entry["affects"]) in lines
    assert "need only the corrected reading" in affects_relation("as-printed", affects)
    assert "2 claims" in affects_relation("substantive", affects) and "relies on it" in affects_relation(
        "substantive", affects)
    assert affects_relation("as-printed", []) == "No implemented claim rests on it."


def test_report_md_tables_keep_a_long_scope_below_them():
    from theorems.report.markdown import _check_lines

    scope = "every k ≤ d ≤ 3 and every pattern of zero column blocks of the d×d target"
    claim = {"evidence": [{"check": "sweep", "kind": "certificate", "part": "statement", "corroborating": False,
                           "verdict": "certified", "scope": scope, "summary": "all 40 configurations hold"}]}
    assert _check_lines(claim) == ["| check | kind | part | verdict |", "|---|---|---|---|",
                                   "| sweep | certificate | statement | certified (scope below) |", "",
                                   f"- *sweep* (certified for {scope}): all 40 configurations hold"]


def test_report_marks_a_verdict_that_differs_from_the_manifest(tmp_path):
    """Issue 27: report.md and the HTML say "supported (manifest: inconclusive)" where the run's
    verdict is not the manifest's, and nothing where they agree."""
    from theorems.engine.verdicts import Verdict

    [result] = _results()  # giannou2023.thm6, certified
    differing = {"giannou2023.thm6": Verdict.INCONCLUSIVE}
    json_path, md_path = report.write_report([result], RUN, tmp_path / "a", html=True, expected=differing)
    assert json.loads(json_path.read_text())["claims"][0]["manifest_verdict"] == "inconclusive"
    markdown = md_path.read_text()
    assert markdown.count(f"{result.verdict} (all sizes) (manifest: inconclusive)") == 2  # the table and the claim
    page = (tmp_path / "a" / "html" / "claims" / "giannou2023.thm6.html").read_text()
    assert '<span class="manifest-differs">(manifest: inconclusive)</span>' in page
    assert "manifest-differs" in (tmp_path / "a" / "html" / "index.html").read_text()
    agreeing = {"giannou2023.thm6": result.verdict}
    _, md_path = report.write_report([result], RUN, tmp_path / "b", html=True, expected=agreeing)
    assert "(manifest:" not in md_path.read_text()
    assert "manifest-differs\"" not in (tmp_path / "b" / "html" / "index.html").read_text()


def test_report_shows_a_claims_profile_note(tmp_path):
    from dataclasses import replace

    claim = replace(claims()["giannou2023.thm6"], profile_note="quick samples fewer sizes")
    result = run_claim(claim, Context("quick", 1, "cpu"))
    _, md_path = report.write_report([result], RUN, tmp_path, html=True)
    assert "Profiles: quick samples fewer sizes" in md_path.read_text()
    page = (tmp_path / "html" / "claims" / "giannou2023.thm6.html").read_text()
    assert "<strong>Profiles:</strong> quick samples fewer sizes" in page
