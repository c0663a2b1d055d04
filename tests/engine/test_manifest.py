"""The gate manifest: its format, verdicts and scopes, and the multi-seed gate's bookkeeping."""

import pytest

from theorems.engine.manifest import (
    differences,
    load_manifest,
    load_scopes,
    scope_difference,
    seed_agreement,
    seeds_after,
)
from theorems.engine.verdicts import Verdict

S, I, R = Verdict.SUPPORTED, Verdict.INCONCLUSIVE, Verdict.REFUTED


def test_seeds_after_are_the_next_integers_and_stay_in_range():
    assert seeds_after(2023, 3) == [2024, 2025, 2026]
    with pytest.raises(ValueError, match="at least 1"):
        seeds_after(0, 0)
    with pytest.raises(ValueError, match=r"leave \[0, 2\^63\)"):
        seeds_after(2**63 - 2, 2)


def test_seed_agreement_counts_agreeing_seeds_and_names_the_others():
    expected = {"a": S, "b": R, "gone": S}
    runs = {1: {"a": S, "b": R, "new": I}, 2: {"a": I, "b": R, "new": I}, 3: {"a": S, "b": R, "new": S}}
    lines, differing = seed_agreement(expected, runs)
    assert lines == [
        "a: supported at 2/3 seeds; seed 2: inconclusive",
        "b: refuted at 3/3 seeds",
        "gone: in the manifest as supported but not implemented",
        "new: verdict inconclusive, supported but missing from the manifest",
    ]
    assert differing == 3


def test_gating_another_projects_packages_an_entry_without_a_claim_is_not_one_of_theirs():
    """Not "not implemented": a packaged paper's id, or a typo, in another project's manifest is
    none of its claims (the pytest plugin's wording too)."""
    expected = {"mypaper.lemma1": S, "giannou2023.lemma6": S}
    lines = ["giannou2023.lemma6: in the manifest as supported but not a claim of mypaper.claims"]
    assert differences(expected, {"mypaper.lemma1": S}, packages=["mypaper.claims"]) == lines
    assert seed_agreement(expected, {1: {"mypaper.lemma1": S}}, ["mypaper.claims"])[0][0] == lines[0]
    assert differences(expected, {"mypaper.lemma1": S}) == [lines[0].replace("not a claim of mypaper.claims",
                                                                             "not implemented")]


@pytest.mark.parametrize("text, message", [
    ('[verdicts]\n"a.b" = "proved"\n',
     "a.b has unknown verdict 'proved' (allowed: certified, supported, refuted, inconclusive)"),
    ('[verdicts]\n"a.b" = 1\n', "unknown verdict 1"),
    ('[verdicts]\na.b = "certified"\n', 'quote the claim ids: write "a.…"'),
    ('[verdicts]\n"Lemma 1" = "certified"\n', "'Lemma 1' is not a claim id"),
    ('[verdict]\n"a.b" = "certified"\n', "unknown top-level keys ['verdict']"),
    ('version = 2\n[verdicts]\n', "version 2 is not supported (this suite reads version 1)"),
    ('"a.b" = "certified"\n', "unknown top-level keys ['a.b']"),
    ('version = 1\n', "no [verdicts] table"),
    ('[verdicts]\n"a.b" = certified\n', "is not valid TOML"),
])
def test_a_malformed_manifest_is_refused_in_one_line(tmp_path, text, message):
    path = tmp_path / "claims.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as error:
        load_manifest(path)
    assert message in str(error.value) and str(path) in str(error.value) and "\n" not in str(error.value)


def test_a_manifest_maps_quoted_ids_to_verdicts(tmp_path):
    path = tmp_path / "claims.toml"
    path.write_text('version = 1\n[verdicts]\n"mypaper.lemma1" = "certified"\n"mypaper.lemma1.x" = "refuted"\n')
    assert load_manifest(path) == {"mypaper.lemma1": Verdict.CERTIFIED, "mypaper.lemma1.x": R}


def test_scopes_name_every_certified_claim_and_the_gate_compares_all_against_bounded(tmp_path):
    path = tmp_path / "claims.toml"
    path.write_text('[verdicts]\n"p.a" = "certified"\n"p.b" = "certified"\n"p.c" = "supported"\n'
                    '[scopes]\n"p.a" = "all"\n"p.b" = "d ≤ 2"\n', encoding="utf-8")
    assert load_scopes(path) == {"p.a": "all", "p.b": "d ≤ 2"}
    expected, scopes = load_manifest(path), load_scopes(path)
    observed = {"p.a": Verdict.CERTIFIED, "p.b": Verdict.CERTIFIED, "p.c": Verdict.SUPPORTED}
    assert differences(expected, observed, scopes, {"p.a": "all", "p.b": "d ≤ 3", "p.c": None}) == []
    assert differences(expected, observed, scopes, {"p.a": "d ≤ 4", "p.b": "all", "p.c": None}) == [
        "p.a: certified for all sizes in the manifest, got scope 'd ≤ 4'",
        "p.b: certified for all sizes, the manifest says 'd ≤ 2': update its [scopes]",
    ]
    assert scope_difference("p.a", "all", None) is None  # a verdict difference is reported as such


def test_a_manifest_without_scopes_gates_verdicts_only(tmp_path):
    path = tmp_path / "claims.toml"
    path.write_text('[verdicts]\n"p.a" = "certified"\n', encoding="utf-8")
    assert load_scopes(path) is None


@pytest.mark.parametrize("text, message", [
    ('[verdicts]\n"p.a" = "certified"\n[scopes]\n', "certified claims without a scope under [scopes]: p.a"),
    ('[verdicts]\n"p.a" = "refuted"\n[scopes]\n"p.a" = "all"\n', "scopes given for claims not expected certified: p.a"),
    ('[verdicts]\n"p.a" = "certified"\n[scopes]\n"p.a" = ""\n', "p.a has scope ''"),
    ('[verdicts]\n"p.a" = "certified"\n[scopes]\np.a = "all"\n', 'quote the claim ids: write "p.…" = "<scope>"'),
    ('scopes = 3\n[verdicts]\n"p.a" = "certified"\n', "scopes must be a [scopes] table"),
])
def test_malformed_scopes_are_refused_in_one_line(tmp_path, text, message):
    path = tmp_path / "claims.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as error:
        load_scopes(path)
    assert message in str(error.value) and str(path) in str(error.value) and "\n" not in str(error.value)
