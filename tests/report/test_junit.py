"""`theorems gate --junit FILE`: JUnit XML that a JUnit parser (xml.etree here) reads, one test
case per claim and seed, failing where the gate fails and erring where a claim crashed."""

import xml.etree.ElementTree as ET

from theorems.cli import main
from theorems.engine.context import Context
from theorems.engine.registry import claims
from theorems.engine.runner import run_claim
from theorems.engine.vocabulary import Verdict
from theorems.report import junit

CLAIMS = ("giannou2023.thm6", "giannou2023.lemma6")  # certified (all sizes) in well under a second at quick


def _cases(path):
    suite = ET.parse(path).getroot().find("testsuite")
    return suite, {case.get("name"): case for case in suite.iter("testcase")}


def test_gate_writes_one_case_per_claim_and_seed(tmp_path, capsys):
    manifest = tmp_path / "claims.toml"
    manifest.write_text(f'[verdicts]\n"{CLAIMS[0]}" = "certified"\n"{CLAIMS[1]}" = "refuted"\n', encoding="utf-8")
    path = tmp_path / "gate.xml"
    code = main(["gate", *CLAIMS, "--manifest", str(manifest), "--profile", "quick", "--seed-list", "1", "2",
                 "--junit", str(path)])
    assert code == 1
    suite, cases = _cases(path)
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "2", "0")
    assert set(cases) == {f"{claim_id} [{seed}]" for claim_id in CLAIMS for seed in (1, 2)}
    assert {case.get("classname") for case in cases.values()} == {"giannou2023"}
    passed = cases[f"{CLAIMS[0]} [1]"]
    assert passed.find("failure") is None and passed.find("error") is None
    assert {p.get("name"): p.get("value") for p in passed.iter("property")} == {
        "verdict": "certified", "scope": "all", "seed": "1"}
    failure = cases[f"{CLAIMS[1]} [2]"].find("failure")
    message = failure.get("message")
    assert message.startswith(f"{CLAIMS[1]} [2]: verdict certified (all sizes); {CLAIMS[1]}: expected refuted, got "
                              "certified; reason: proof witness: A⊙B = I: identity holds symbolically in")
    assert "Schwartz–Zippel certificates: certified (n, m ≤ 6)" in failure.text
    assert "at some seed" in capsys.readouterr().out  # the gate's own output is unchanged


def test_gate_with_one_seed_and_a_manifest_entry_naming_no_claim(tmp_path):
    manifest = tmp_path / "claims.toml"
    manifest.write_text(f'[verdicts]\n"{CLAIMS[0]}" = "certified"\n[scopes]\n"{CLAIMS[0]}" = "p ≤ 2"\n',
                        encoding="utf-8")
    path = tmp_path / "gate.xml"
    assert main(["gate", CLAIMS[0], "--manifest", str(manifest), "--profile", "quick", "--junit", str(path)]) == 1
    _, cases = _cases(path)
    [case] = cases.values()
    assert case.get("name") == f"{CLAIMS[0]} [2023]"
    assert "certified for all sizes, the manifest says 'p ≤ 2'" in case.find("failure").get("message")


def test_crashes_are_errors_and_unimplemented_entries_failures():
    result = run_claim(claims()[CLAIMS[0]], Context("quick", 3, "cpu"))
    expected = {CLAIMS[0]: Verdict.CERTIFIED, "giannou2023.nothing": Verdict.CERTIFIED, CLAIMS[1]: Verdict.CERTIFIED}
    cases = junit.gate_cases([(3, [result])], expected, {}, {CLAIMS[0]: [f"{CLAIMS[0]}: refuted without an erratum"]},
                             crashes=[{"claims": [CLAIMS[1]], "worker": "pid 7", "reason": "ValueError: boom"}])
    root = junit.junit_xml(cases).getroot()
    testcases = {case.get("name"): case for case in root.iter("testcase")}
    assert set(testcases) == {f"{CLAIMS[0]} [3]", f"{CLAIMS[1]} [3]", "giannou2023.nothing"}
    assert root.find("testsuite").get("errors") == "1" and root.find("testsuite").get("failures") == "2"
    error = testcases[f"{CLAIMS[1]} [3]"].find("error")
    assert error.get("message") == f"{CLAIMS[1]} [3]: no verdict; crashed on pid 7: ValueError: boom"
    assert "refuted without an erratum" in testcases[f"{CLAIMS[0]} [3]"].find("failure").get("message")
    assert "in the manifest as certified but not implemented" in \
        testcases["giannou2023.nothing"].find("failure").get("message")


def test_a_crash_writes_the_file_before_the_gate_stops(tmp_path, monkeypatch, capsys):
    from theorems import cli
    from theorems.errors import ClaimsCrashed

    def crash(selected, context, label, args, prepare=None):
        raise ClaimsCrashed([], [{"claims": [CLAIMS[0]], "worker": "pid 1", "reason": "check 'x' crashed: boom"}])

    monkeypatch.setattr(cli, "_run_claims", crash)
    path = tmp_path / "gate.xml"
    assert main(["gate", CLAIMS[0], "--profile", "quick", "--junit", str(path)]) == 3
    suite, cases = _cases(path)
    assert suite.get("errors") == "1" and cases[f"{CLAIMS[0]} [2023]"].find("error").get("type") == "crashed"
    assert capsys.readouterr().err.count("\n") == 1
