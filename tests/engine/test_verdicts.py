import pytest

from theorems.engine.verdicts import Outcome, Verdict, combine

C, S, R, I = Verdict.CERTIFIED, Verdict.SUPPORTED, Verdict.REFUTED, Verdict.INCONCLUSIVE


def outcome(verdict):
    return Outcome(verdict, "x", counterexample={"x": 1} if verdict is R else None)


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
