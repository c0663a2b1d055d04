import dataclasses
import json

import pytest

from theorems import report
from theorems.cli import main
from theorems.engine.context import Context
from theorems.engine.registry import claims
from theorems.engine.runner import run_claim
from theorems.report import records, reproduce

CLAIM = "giannou2023.lemma6"  # certified in well under a second at quick, with sizes in its evidence


@pytest.fixture(scope="module")
def record_path(tmp_path_factory):
    from theorems.engine import environment

    out = tmp_path_factory.mktemp("report")
    context = Context("quick", 7, "cpu")
    run = {"profile": "quick", "seed": 7, "device": "cpu", "seconds": 0.0, "environment": environment.describe(context)}
    report.write_report([run_claim(claims()[CLAIM], context)], run, out)
    return out / "records" / f"{CLAIM}.json"


def test_a_record_is_self_contained(record_path):
    record = json.loads(record_path.read_text())
    assert record["format"] == records.RECORD_FORMAT
    assert record["claim"]["id"] == CLAIM and record["claim"]["statement"]
    assert (record["run"]["profile"], record["run"]["seed"], record["run"]["device"]) == ("quick", 7, "cpu")
    assert record["run"]["sizes"], "the sizes the checks name are collected"
    assert {"numpy", "torch", "python-flint"} <= set(record["environment"]["packages"])
    assert record["environment"]["git_commit"]
    assert record["timing_s"]["total"] >= 0 and "capped" in record["resources"]
    assert record["verdict"] == "certified" and record["evidence"]
    assert record["reproduce"]["command"] == f"theorems reproduce {record_path.parent.as_posix()}/{CLAIM}.json"
    assert list(record)[-1] == "digest" and len(record["digest"]["sha256"]) == 64 and "claim_packages" not in record
    assert records.integrity(record) is records.Integrity.INTACT
    markdown = record_path.with_suffix(".md").read_text()
    assert "certified" in markdown and record["reproduce"]["command"] in markdown


CITATION = ("Giannou, Rajput, Papailiopoulos, *The Expressive Power of Tuning Only the Normalization Layers*, "
            "COLT 2023 ([arXiv:2302.07937](https://arxiv.org/abs/2302.07937)), App. A.4, Lemma 6 (main text Lemma 2)")


def test_a_record_and_the_report_cite_the_paper(record_path):
    record = json.loads(record_path.read_text())
    assert record["paper"] == {
        "id": "giannou2023", "title": "The Expressive Power of Tuning Only the Normalization Layers",
        "authors": ["Angeliki Giannou", "Shashank Rajput", "Dimitris Papailiopoulos"], "venue": "COLT", "year": 2023,
        "link": "https://arxiv.org/abs/2302.07937", "note": record["paper"]["note"]}
    assert record["claim"]["source"] == "App. A.4, Lemma 6 (main text Lemma 2)"
    assert f"Source: {CITATION}." in record_path.with_suffix(".md").read_text()
    folder = record_path.parents[1]
    assert json.loads((folder / "report.json").read_text())["papers"]["giannou2023"] == record["paper"]
    markdown = (folder / "report.md").read_text()
    assert f"Source: {CITATION}." in markdown
    assert ("## Papers\n\n- **giannou2023**: Angeliki Giannou, Shashank Rajput, Dimitris Papailiopoulos. "
            "*The Expressive Power of Tuning Only the Normalization Layers*. COLT 2023. [arXiv:2302.07937]"
            "(https://arxiv.org/abs/2302.07937).") in markdown


def test_reproduce_confirms_an_untouched_record(record_path, capsys):
    assert main(["reproduce", str(record_path)]) == 0
    out = capsys.readouterr().out
    assert "matches" in out and "scope, sizes and evidence: identical" in out and "EDITED" not in out
    assert main(["reproduce", str(record_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["integrity"] == "intact"


def _tampered(record_path, tmp_path, change, seal: bool = False) -> str:
    """The record changed by ``change``: by hand (its digest left as it was), or, ``seal``ed,
    as if the suite had written it so (a record of another run, device or version)."""
    record = json.loads(record_path.read_text())
    change(record)
    if seal:
        record = records.sealed({key: value for key, value in record.items() if key != records.DIGEST})
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(record))
    return str(path)


def test_reproduce_names_the_evidence_that_differs(record_path, tmp_path, capsys):
    def change(record):
        record["evidence"][0]["summary"] = "something else"

    rerun_summary = json.loads(record_path.read_text())["evidence"][0]["summary"]
    difference = f"evidence[0].summary: recorded 'something else', re-run {rerun_summary!r}"
    for seal in (True, False):  # a record of a run that gave other evidence, and one edited by hand
        assert main(["reproduce", _tampered(record_path, tmp_path, change, seal), "--json"]) == 1
        outcome = json.loads(capsys.readouterr().out)
        assert outcome["verdict_matches"] and not outcome["evidence_matches"]
        assert outcome["differences"] == [difference]
        assert (outcome["integrity"], outcome["edited_field"]) == (("intact", None) if seal
                                                                   else ("edited by hand", difference))


def test_reproduce_fails_when_the_verdict_differs(record_path, tmp_path, capsys):
    def change(record):
        record["verdict"], record["scope"] = "refuted", None

    assert main(["reproduce", _tampered(record_path, tmp_path, change, seal=True)]) == 1
    assert "DIFFERS" in capsys.readouterr().out
    assert main(["reproduce", _tampered(record_path, tmp_path, change)]) == 1
    assert "EDITED BY HAND: it holds other than what its digest covers; the first field that differs: verdict: " \
           "recorded 'refuted', re-run 'certified'" in capsys.readouterr().out


@pytest.mark.parametrize("change, field", [
    (lambda record: record.update(scope="n, m ≤ 3"), "scope: recorded 'n, m ≤ 3', re-run 'all'"),
    (lambda record: record["evidence"][0].update(scope="all"), "evidence[0].scope: recorded 'all', re-run 'n, m ≤ 4'"),
    (lambda record: record["run"]["sizes"].clear(), "run.sizes: recorded {}, missing in the re-run"),
    (lambda record: record["claim"].update(notes="proved in general"), "claim.notes: recorded 'proved in general'"),
])
def test_a_scope_or_any_field_edited_by_hand_fails_and_is_named(record_path, tmp_path, capsys, change, field):
    assert main(["reproduce", _tampered(record_path, tmp_path, change)]) == 1
    out = capsys.readouterr().out
    assert f"{CLAIM}: record EDITED BY HAND: it holds other than what its digest covers; the first field that " \
           f"differs: {field}" in out, out


@pytest.mark.parametrize("change", [lambda record: record["timing_s"].update(total=0.0),
                                    lambda record: record["environment"].update(host="elsewhere"),
                                    lambda record: record.pop("digest"),
                                    lambda record: record["digest"].update(sha256="0" * 64)])
def test_an_edit_that_a_re_run_cannot_check_is_found_by_the_digest(record_path, tmp_path, capsys, change):
    assert main(["reproduce", _tampered(record_path, tmp_path, change)]) == 1
    out = capsys.readouterr().out
    assert "record EDITED BY HAND" in out and "the edit is in one it cannot check" in out
    assert "verdict certified (recorded certified): matches" in out and "evidence: identical" in out


def test_a_record_written_before_records_had_a_digest_is_compared_field_by_field(record_path, tmp_path, capsys):
    def version_2(record):
        record["format"] = records.FORMATS_WITHOUT_DIGEST[0]
        del record["digest"]

    assert main(["reproduce", _tampered(record_path, tmp_path, version_2)]) == 0
    out = capsys.readouterr().out
    assert (f"{CLAIM}: no digest (the record was written before records carried one, format version 2): hand edits are "
            "found only where a re-run differs; compared field by field") in out and "matches" in out

    def widened(record):
        version_2(record)
        record["evidence"][0]["scope"] = "all"

    assert main(["reproduce", _tampered(record_path, tmp_path, widened)]) == 1
    assert "  evidence[0].scope: recorded 'all', re-run 'n, m ≤ 4'" in capsys.readouterr().out


def test_a_record_re_run_on_another_device_is_not_a_match(record_path, tmp_path, capsys):
    def change(record):
        record["run"]["device"] = "cuda"
        record["evidence"][0]["summary"] = "drawn from CUDA's streams"

    assert main(["reproduce", _tampered(record_path, tmp_path, change, seal=True), "--device", "cpu"]) == 4
    out = capsys.readouterr().out
    assert "verdict certified (recorded certified): matches" in out and "NOT COMPARED" in out


def test_a_device_field_changed_to_one_this_machine_lacks_is_not_a_match(record_path, tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")

    def change(record):
        record["run"]["device"] = "cuda"
        record["evidence"][0]["summary"] = "anything at all"

    assert main(["reproduce", _tampered(record_path, tmp_path, change, seal=True)]) == 4
    out = capsys.readouterr().out
    assert "NOT COMPARED" in out and "this machine has no cuda device" in out and "identical" not in out
    assert main(["reproduce", _tampered(record_path, tmp_path, change, seal=True), "--json"]) == 4
    assert json.loads(capsys.readouterr().out)["agreement"] == "evidence not compared"


@pytest.mark.parametrize("field, value", [("statement", "Something else entirely."),
                                          ("hypotheses", ["no hypothesis"]), ("source", "another paper")])
def test_a_record_of_another_version_of_the_claim_is_not_a_match(record_path, tmp_path, capsys, field, value):
    def change(record):
        record["claim"][field] = value

    assert main(["reproduce", _tampered(record_path, tmp_path, change, seal=True)]) == 1
    out = capsys.readouterr().out
    assert "another version of this claim" in out and f"claim.{field}: recorded {value!r}" in out
    assert "EDITED" not in out
    assert main(["reproduce", _tampered(record_path, tmp_path, change)]) == 1
    assert f"record EDITED BY HAND: it holds other than what its digest covers; the first field that differs: " \
           f"claim.{field}: recorded {value!r}" in capsys.readouterr().out


def test_a_record_of_another_paper_is_not_a_match_but_a_corrected_title_is(record_path, tmp_path, capsys,
                                                                           monkeypatch):
    from theorems.engine import papers

    def other_paper(record):
        record["paper"]["link"] = "https://arxiv.org/abs/2302.07937v9"

    assert main(["reproduce", _tampered(record_path, tmp_path, other_paper, seal=True)]) == 1
    assert "claim.paper link: recorded 'https://arxiv.org/abs/2302.07937v9'" in capsys.readouterr().out

    def retitled(record):
        record["paper"]["title"] = "The Expressive Power of Tuning Only the Norm Layers"

    assert main(["reproduce", _tampered(record_path, tmp_path, retitled)]) == 1  # by hand: named
    assert "the first field that differs: paper.title: recorded 'The Expressive Power of Tuning Only the Norm " \
           "Layers'" in capsys.readouterr().out
    # The installed paper's title corrected since: the record still reproduces.
    installed = papers.paper("giannou2023")
    monkeypatch.setitem(papers._PAPERS, "giannou2023", dataclasses.replace(installed, title="A corrected title"))
    assert main(["reproduce", str(record_path)]) == 0
    assert "matches" in capsys.readouterr().out


def test_differences_come_in_numeric_path_order_and_are_counted_past_twenty(record_path, tmp_path, capsys):
    def change(record):
        record["evidence"] = [{"check": f"c{index}"} for index in range(25)]

    assert main(["reproduce", _tampered(record_path, tmp_path, change, seal=True)]) == 1
    lines = [line.strip().removeprefix("evidence") for line in capsys.readouterr().out.splitlines()
             if line.startswith("  ")]
    indices = [int(line[1:line.index("]")]) for line in lines if line.startswith("[")]
    assert indices == sorted(indices) and len(lines) == 21 and lines[-1].startswith("… and ")


def test_json_paths_sort_numerically():
    paths = ["[10].a", "[2].b", "[2].a[11]", "[2].a[9]"]
    assert sorted(paths, key=reproduce.json_path_order) == ["[2].a[9]", "[2].a[11]", "[2].b", "[10].a"]


def test_float_rounding_is_told_apart_from_a_difference():
    differences, rounding = reproduce.evidence_differences([{"x": 1.0, "y": 2.0}], [{"x": 1.0 + 1e-13, "y": 2.1}])
    assert rounding == ["[0].x: recorded 1.0, re-run 1.0000000000001"]
    assert differences == ["[0].y: recorded 2.0, re-run 2.1"]


@pytest.mark.parametrize("content, message", [("{", "is not JSON"),
                                              ('{"format": "other"}', "is not a theorems reproducibility record")])
def test_reproduce_rejects_what_is_not_a_record(tmp_path, capsys, content, message):
    path = tmp_path / "x.json"
    path.write_text(content)
    assert main(["reproduce", str(path)]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


def test_reproduce_rejects_a_missing_file(tmp_path, capsys):
    assert main(["reproduce", str(tmp_path / "none.json")]) == 2
    assert "cannot read record" in capsys.readouterr().err
