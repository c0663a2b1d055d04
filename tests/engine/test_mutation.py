"""The mutation rule on toy claims: a broken object must fail every certificate that takes it."""

import pytest

from theorems.engine.checks import exhaustive_sweep, search_beyond_sweep
from theorems.engine.context import Context
from theorems.engine.mutation import mutation_test
from theorems.engine.registry import Broken, Check, Claim, takes
from theorems.engine.runner import run_claim
from theorems.engine.verdicts import Outcome, Verdict
from theorems.errors import ClaimDefinitionError

CTX = Context("quick", 7, "cpu")


def square_sweep(square):
    """Certifies (n + 1)² = n² + 2n + 1 for n ≤ 5 by evaluating the object ``square``."""
    return exhaustive_sweep("n ≤ 5", lambda ctx: range(6),
                            lambda n: None if square(n + 1) == square(n) + 2 * n + 1 else f"n = {n}",
                            bound=lambda ctx: "n ≤ 5", certifies=True)


def retyped(square):
    """A certificate that never looks at its object: it compares the formula with itself."""
    return exhaustive_sweep("retyped", lambda ctx: range(6), lambda n: None, bound=lambda ctx: "n ≤ 5", certifies=True)


def toy(checks, broken, **kwargs):
    return Claim("mypaper.toy", "test", (), checks, broken, label="Toy", statement="(n + 1)² = n² + 2n + 1",
                 subject={"square": lambda n: n * n}, **kwargs)


OFF_BY_ONE = Broken("n(n + 1) for n²", {"square": lambda n: n * (n + 1)}, refuted_by="n = 0")
WRONG_FROM_SEVEN = Broken("wrong from n = 7 on", {"square": lambda n: n * n + (n >= 7)}, refuted_by="n = 6")


def test_a_certificate_that_evaluates_its_object_refutes_the_broken_one():
    report = mutation_test(toy((takes("square", build=square_sweep),), (OFF_BY_ONE,)), CTX)
    assert report.passed, report.failures
    assert report.to_json()["checks"][0]["refuted_by"] == ["broken-1"]


def test_a_certificate_that_cannot_fail_fails_the_rule():
    """It never calls its object, so the engine does not let it certify (``engine.coverage``), and
    the mutation rule still names it as a check that cannot fail."""
    claim = toy((takes("square", build=retyped),), (OFF_BY_ONE,))
    genuine = run_claim(claim, CTX)
    assert genuine.verdict is Verdict.SUPPORTED
    assert "no certifying check evaluated square" in genuine.checks[0].outcome.summary
    report = mutation_test(claim, CTX, genuine)
    assert not report.passed
    assert any("'retyped' refutes no broken variant" in failure for failure in report.failures)


def test_a_certifying_check_may_not_certify_any_broken_object_it_takes():
    """Refuting one variant is not enough: a variant wrong only past the sweep's bound passes it."""
    report = mutation_test(toy((takes("square", build=square_sweep),), (OFF_BY_ONE, WRONG_FROM_SEVEN)), CTX)
    assert report.checks[0].refuted_by == ["broken-1"] and report.checks[0].certified == ["broken-2"]
    assert report.failures[0].startswith("certifying check 'n ≤ 5' certifies broken-2 (wrong from n = 7 on)")
    assert report.failures[1] == "broken-2 (wrong from n = 7 on) is not refuted by any check"


def test_a_claim_without_broken_variants_fails_the_rule():
    report = mutation_test(toy((takes("square", build=square_sweep),), ()), CTX)
    assert report.failures == ["certifying check 'n ≤ 5' refutes no broken variant (the claim has none): "
                               "a check that cannot fail"]


def test_a_check_that_takes_no_object_cannot_certify():
    plain = Check("plain", "symbolic", lambda ctx: Outcome(Verdict.CERTIFIED, "x", scope="all"))
    with pytest.raises(ClaimDefinitionError, match="takes no object under test"):
        run_claim(toy((plain,), ()), CTX)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: toy((takes("cube", build=square_sweep),), ()), "the subject .* does not name"),
        (lambda: Broken("b", {}, refuted_by="x"), "replaces= maps the names"),
        (lambda: Broken("b", {"square": abs}, refuted_by=" "), "refuted_by= names the explicit case"),
        (lambda: toy((takes("square", build=square_sweep),), (Broken("b", {"cube": abs}, refuted_by="x"),))
         .with_objects({"cube": abs}), "replaces \\['cube'\\]"),
    ],
)
def test_malformed_subjects_and_variants_are_named(make, message):
    with pytest.raises(ClaimDefinitionError, match=message):
        make()


def test_with_objects_rebuilds_only_the_checks_that_take_them():
    claim = Claim("mypaper.toy", "test", (), (takes("square", build=square_sweep), takes("other", build=retyped)), (),
                  label="Toy", statement="s", subject={"square": lambda n: n * n, "other": None})
    broken = claim.with_objects({"square": lambda n: n * (n + 1)})
    assert broken.checks[0].run is not claim.checks[0].run
    assert [c.takes for c in broken.checks] == [("square",), ("other",)]


def test_search_beyond_sweep_refutes_with_the_configuration_and_supports_otherwise():
    def decide(n):
        return None if n < 40 else f"n = {n}"

    check = search_beyond_sweep("beyond", lambda rng: int(rng.integers(6, 12)), decide, sweep_bound=lambda ctx: "n ≤ 5",
                                reach=lambda ctx: "6 ≤ n ≤ 11", budget=lambda ctx: 20)
    outcome = check.run(CTX.for_check("t", "beyond"))
    assert outcome.verdict is Verdict.SUPPORTED and outcome.evidence["drawn"] == 20
    assert outcome.evidence["reach"] == "6 ≤ n ≤ 11" and outcome.evidence["sweep_bound"] == "n ≤ 5"
    pinned = search_beyond_sweep("beyond", lambda rng: 6, decide, sweep_bound=lambda ctx: "n ≤ 5",
                                 reach=lambda ctx: "n ≤ 40", budget=lambda ctx: 3, pinned=[40])
    refuted = pinned.run(CTX.for_check("t", "beyond"))
    assert refuted.verdict is Verdict.REFUTED and refuted.counterexample["configuration"] == 40
