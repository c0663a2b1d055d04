import pytest

from theorems.engine.verdicts import Outcome, Verdict, claim_scope, combine, limit_by_dependencies

C, S, R, I = Verdict.CERTIFIED, Verdict.SUPPORTED, Verdict.REFUTED, Verdict.INCONCLUSIVE


def outcome(verdict):
    return Outcome(verdict, "x", counterexample={"x": 1} if verdict is R else None,
                   scope="all" if verdict is C else None)


@pytest.mark.parametrize(
    "checks, expected",
    [
        ([("p", False, C)], C),
        ([("p", False, C), ("p", False, S)], C),  # best within a part
        ([("p", False, C), ("q", False, S)], S),  # worst over parts
        ([("p", False, C), ("p", True, S)], C),  # corroborating support does not lower a certificate
        ([("p", False, C), ("p", True, R)], R),  # but a corroborating refutation refutes
        ([("p", False, S), ("q", False, I)], I),
        ([("p", False, I), ("p", False, S)], S),
    ],
)
def test_combine(checks, expected):
    assert combine([(part, corr, outcome(v)) for part, corr, v in checks]) is expected


def test_refuted_outcome_needs_a_counterexample():
    with pytest.raises(ValueError, match="counterexample"):
        Outcome(R, "no evidence")


def test_a_part_with_only_corroborating_checks_is_a_defect():
    with pytest.raises(ValueError, match="only corroborating"):
        combine([("p", True, outcome(S))])


def certified(scope):
    return Outcome(C, "x", scope=scope)


@pytest.mark.parametrize(
    "checks, expected",
    [
        ([("p", False, certified("all"))], "all"),
        ([("p", False, certified("d ≤ 2"))], "d ≤ 2"),
        ([("p", False, certified("d ≤ 2")), ("p", False, certified("all"))], "all"),  # one general proof suffices
        ([("p", False, certified("d ≤ 2")), ("p", False, certified("n ≤ 5"))], "d ≤ 2; n ≤ 5"),
        ([("p", False, certified("all")), ("q", False, certified("d ≤ 5"))], "q: d ≤ 5"),  # the bounded part
        ([("p", False, certified("n ≤ 3")), ("q", False, certified("d ≤ 5"))], "p: n ≤ 3 · q: d ≤ 5"),
        ([("p", False, certified("all")), ("p", True, certified("d ≤ 1"))], "all"),
        ([("p", False, certified("d ≤ 2")), ("p", True, certified("all"))], "d ≤ 2"),  # corroboration earns nothing
        ([("p", False, certified("all")), ("p", False, outcome(S))], "all"),
    ],
)
def test_a_claims_scope_is_all_only_when_every_part_has_a_general_certification(checks, expected):
    outcomes = [(part, corr, o) for part, corr, o in checks]
    assert claim_scope(outcomes, combine(outcomes)) == expected


def test_only_certifications_have_a_scope():
    assert claim_scope([("p", False, outcome(S))], S) is None
    with pytest.raises(ValueError, match="only a certified outcome has a scope"):
        Outcome(S, "searched", scope="d ≤ 3")
    for missing in (None, "", " "):
        with pytest.raises(ValueError, match="a certified outcome states its scope"):
            Outcome(C, "proved", scope=missing)


def test_scopes_within_a_part_do_not_merge_silently():
    """Two checks certifying the default part with different scopes must name their parts."""
    outcomes = [("statement", False, certified("n ≤ 6")), ("statement", False, certified("all"))]
    with pytest.raises(ValueError, match=r"'bounded' \(n ≤ 6\), 'general' \(all\) certify part 'statement'"):
        claim_scope(outcomes, C, explicit=[False, False], names=["bounded", "general"])
    assert claim_scope(outcomes, C, explicit=[True, True], names=["bounded", "general"]) == "all"
    same = [("statement", False, certified("n ≤ 6")), ("statement", False, certified("n ≤ 6"))]
    assert claim_scope(same, C, explicit=[False, False], names=["a", "b"]) == "n ≤ 6"


@pytest.mark.parametrize(
    "own, dependencies, expected",
    [
        ("all", {"p.a": (C, "all")}, "all"),
        ("all", {"p.a": (C, "n ≤ 4")}, "as p.a: n ≤ 4"),  # never more sizes than what it rests on
        ("d ≤ 3", {"p.a": (C, "n ≤ 4"), "p.b": (C, "all")}, "d ≤ 3 · as p.a: n ≤ 4"),
        ("all", {"p.a": (S, None)}, "as p.a: supported"),
        ("all", {"p.a": None}, "as p.a: not run"),
        (None, {"p.a": (C, "n ≤ 4")}, None),
    ],
)
def test_a_scope_is_limited_by_the_claims_it_rests_on(own, dependencies, expected):
    assert limit_by_dependencies(own, dependencies) == expected


def test_an_outcome_names_what_it_relies_on():
    assert Outcome(C, "x", scope="all", relies_on=["rank–nullity"]).relies_on == ("rank–nullity",)
