"""Object coverage (``theorems.engine.coverage``): calls recorded as the checks run, and the rule
that a certificate covers the objects it evaluated, at the sizes it evaluated them."""

import pickle
from dataclasses import dataclass

import numpy as np
import sympy

from theorems.engine import coverage
from theorems.engine.checks import exhaustive_sweep
from theorems.engine.context import Context
from theorems.engine.registry import Check, Claim, takes
from theorems.engine.runner import run_claim
from theorems.engine.verdicts import ALL_SIZES, Outcome, Verdict

CTX = Context("quick", 7, "cpu")
n = sympy.Symbol("n", integer=True, nonnegative=True)


def square(k):
    return k * k


@dataclass(frozen=True)
class Shift:
    by: int

    def apply(self, k):
        return k + self.by

    def numeric(self, k):  # a second code path, as a two-faced object has
        return int(k) + self.by


def symbolic_certificate(square_object):
    """(n + 1)² − n² = 2n + 1 with n a symbol, by evaluating the object."""
    def run(ctx):
        difference = sympy.expand(square_object(n + 1) - square_object(n) - 2 * n - 1)
        if difference == 0:
            return Outcome(Verdict.CERTIFIED, "holds for symbolic n", scope=ALL_SIZES)
        return Outcome(Verdict.REFUTED, "differs", counterexample={"difference": str(difference)})
    return Check("symbolic", "symbolic", run)


def formula_only(square_object):
    """An all-sizes certificate that never evaluates its object."""
    def run(ctx):
        return Outcome(Verdict.CERTIFIED, "the formula, not the object", scope=ALL_SIZES)
    return Check("formula only", "symbolic", run)


def sweep(square_object):
    return exhaustive_sweep("sweep", lambda ctx: range(6),
                            lambda k: None if square_object(k + 1) == square_object(k) + 2 * k + 1 else f"k = {k}",
                            bound=lambda ctx: "k ≤ 5", certifies=True)


def toy(*builders, subject=None, parts=None):
    return Claim("mypaper.coverage", "test", (), tuple(takes(*names, build=b) for names, b in builders), (),
                 label="Toy", statement="(n + 1)² = n² + 2n + 1", subject=subject or {"square": square},
                 parts=parts or {})


def test_calls_are_recorded_symbolic_or_with_their_largest_sizes():
    traced = coverage.traced("f", lambda a, k, xs: 0)
    with coverage.recording(["f"], lambda name: True) as used:
        traced(np.zeros((3, 4)), 5, [1, 2])
        traced(np.zeros((2, 7)), 2, [1])
        traced(sympy.MatrixSymbol("A", n, n), 1, [])
        traced(sympy.Matrix([[n, n, n]]), 1, [])  # symbols as entries: a 1×3 matrix all the same
    use = used["f"]
    assert (use.calls, use.symbolic_calls) == (4, 1)
    assert use.largest == {"a[0]": 3, "a[1]": 7, "k": 5, "len(xs)": 2}
    assert coverage.cell(use.to_json()) == "symbolic; at a ≤ 3×7, k ≤ 5, len(xs) ≤ 2"
    traced(1, 2, 3)  # outside a check: not recorded, and no error


def test_an_instance_is_traced_by_its_methods_and_keeps_its_type():
    shift = coverage.traced("shift", Shift(2))
    assert isinstance(shift, Shift) and shift.by == 2
    with coverage.recording(["shift"], lambda name: True) as used:
        assert shift.apply(n) == n + 2 and shift.numeric(3) == 5
    assert used["shift"].functions == {"apply", "numeric"} and used["shift"].symbolic_functions == {"apply"}
    assert not coverage.traceable(0.5) and not coverage.traceable(np.eye(2)) and not coverage.traceable(Shift)


def test_a_traced_object_pickles_traced_and_its_calls_elsewhere_merge_into_the_check():
    """A chunk of a check run as a cluster task (``fanout``) records its calls there; the check's
    process adds them, so coverage does not depend on where the chunks ran."""
    function, instance = coverage.traced("square", square), coverage.traced("shift", Shift(2))
    assert function == square and hash(function) == hash(square) and {square: 1}[function] == 1
    elsewhere_function, elsewhere_instance = pickle.loads(pickle.dumps((function, instance)))
    with coverage.recording((), lambda name: True) as elsewhere:
        elsewhere_function(np.zeros((5, 2)))
        elsewhere_instance.apply(9)
    with coverage.recording(["square", "shift"], lambda name: True) as here:
        function(np.zeros((1, 3)))
        coverage.merge_into_current(elsewhere)
    assert here["square"].calls == 2 and here["square"].largest == {"k[0]": 5, "k[1]": 3}
    assert here["shift"].functions == {"apply"} and here["shift"].largest == {"k": 9}


def test_an_all_sizes_certificate_that_evaluates_its_object_symbolically_stays_all():
    result = run_claim(toy((("square",), symbolic_certificate)), CTX)
    assert result.verdict is Verdict.CERTIFIED and result.scope == ALL_SIZES
    assert result.checks[0].to_json()["coverage"]["square"]["symbolic_calls"] == 2


def test_an_all_sizes_certificate_that_never_calls_its_object_certifies_nothing():
    result = run_claim(toy((("square",), formula_only)), CTX)
    assert result.verdict is Verdict.SUPPORTED
    assert "no certifying check evaluated square" in result.checks[0].outcome.summary


def test_a_bounded_scope_is_generated_from_the_sizes_that_ran():
    result = run_claim(toy((("square",), sweep)), CTX)
    assert result.verdict is Verdict.CERTIFIED and result.scope == "square ran at k ≤ 6"
    assert result.checks[0].to_json()["stated_scope"] == "k ≤ 5"


def test_an_object_of_the_part_that_no_all_sizes_certificate_evaluates_narrows_the_part():
    """Class 1 of issue 36: the statement is about two objects; the symbolic certificate takes one."""
    shifted_sweep = lambda s, t: sweep(lambda k: s(t.apply(k) - 2))  # noqa: E731
    claim = toy((("square",), symbolic_certificate), (("square", "shift"), shifted_sweep),
                subject={"square": square, "shift": Shift(2)})
    result = run_claim(claim, CTX)
    assert result.verdict is Verdict.CERTIFIED and result.scope != ALL_SIZES
    assert "shift is taken by no all-sizes certificate" in result.covers[0].reason
    assert "shift ran at k ≤ 6" in result.scope


def test_a_code_path_that_runs_elsewhere_but_never_symbolically_narrows_the_part():
    """Class 3 of issue 36: a two-faced object whose numeric face only a bounded check runs."""
    def symbolic_face(shift):
        def run(ctx):
            return Outcome(Verdict.CERTIFIED, "symbolic face", scope=ALL_SIZES) if shift.apply(n) == n + 2 else \
                Outcome(Verdict.REFUTED, "no", counterexample={})
        return Check("symbolic face", "symbolic", run)

    def numeric_face(shift):
        return exhaustive_sweep("numeric face", lambda ctx: range(8),
                                lambda k: None if shift.numeric(k) == k + 2 else f"k = {k}",
                                bound=lambda ctx: "k ≤ 7", certifies=True)

    two_faced = run_claim(toy((("shift",), symbolic_face), (("shift",), numeric_face), subject={"shift": Shift(2)}),
                          CTX)
    assert two_faced.scope == "shift ran at k ≤ 7"
    assert "shift's numeric runs in the claim but never at symbolic sizes" in two_faced.covers[0].reason
    assert coverage.matrix([check.to_json() for check in two_faced.checks]) == [
        {"object": "shift", "cells": {"symbolic face": "symbolic", "numeric face": "at k ≤ 7"}}]


def test_parts_declare_the_objects_their_statement_is_about():
    claim = toy((("square",), symbolic_certificate), subject={"square": square, "shift": Shift(1)},
                parts={"statement": ("square", "shift")})
    result = run_claim(claim, CTX)
    assert result.verdict is Verdict.SUPPORTED and "no certifying check evaluated shift" in result.covers[0].reason


def test_a_declaration_may_leave_out_a_hypothesis_but_never_what_an_all_sizes_certificate_takes():
    """A corroborating check of the hypothesis takes an object the statement is not about; the
    all-sizes certificate's own objects count whatever the declaration says."""
    def hypothesis_check(shift):
        return Check("hypothesis", "randomized", lambda ctx: Outcome(Verdict.SUPPORTED, "checked in floats"),
                     corroborating=True)

    subject = {"square": square, "shift": Shift(1)}
    undeclared = run_claim(toy((("square",), symbolic_certificate), (("shift",), hypothesis_check), subject=subject),
                           CTX)
    assert undeclared.verdict is Verdict.SUPPORTED  # shift, taken by a check of the part, was never certified
    declared = run_claim(toy((("square",), symbolic_certificate), (("shift",), hypothesis_check), subject=subject,
                             parts={"statement": ("shift",)}), CTX)
    assert declared.verdict is Verdict.SUPPORTED  # square is still an object: the all-sizes certificate takes it...
    assert declared.covers[0].objects == ("shift", "square")  # ...and shift is declared
    only_square = run_claim(toy((("square",), symbolic_certificate), (("shift",), hypothesis_check), subject=subject,
                                parts={"statement": ("square",)}), CTX)
    assert only_square.verdict is Verdict.CERTIFIED and only_square.scope == ALL_SIZES


def test_a_cached_value_counts_the_calls_that_computed_it_at_every_hit():
    """Coverage, and with it a scope, never depends on what an earlier check left in a cache."""
    computed = []

    @coverage.cached
    def table(function, size):
        computed.append(size)
        return [function(k) for k in range(size)]

    traced = coverage.traced("square", square)
    runs = []
    for _ in range(2):
        with coverage.recording(["square"], lambda name: True) as used:
            assert table(traced, 4) == [0, 1, 4, 9]
        runs.append(used.to_json())
    assert computed == [4] and runs[0] == runs[1] == {"square": {"calls": 4, "symbolic_calls": 0,
                                                                 "largest": {"k": 3}, "functions": ["square"]}}


def test_an_object_that_ran_without_a_size_is_scoped_by_the_points_the_checks_stated():
    """A size says nothing about a scalar parameter: a grid of them is what the check states it ran."""
    def grid(halve):
        return exhaustive_sweep("p in the grid", lambda ctx: [0.25, 0.5, 1.0],
                                lambda p: None if 0 < halve(p) < p else f"p = {p}",
                                bound=lambda ctx: "p ∈ {1/4, 1/2, 1}", certifies=True)

    result = run_claim(toy((("halve",), grid), subject={"halve": lambda p: p / 2}), CTX)
    assert result.verdict is Verdict.CERTIFIED and result.scope == "p ∈ {1/4, 1/2, 1}"


def wrong_past_eight(k):
    """(k + 1)² at every symbolic k, but one too many at a concrete k ≥ 9: a face no proof sees."""
    if isinstance(k, int) and k >= 9:
        return k * k + 1
    return k * k


def test_a_branch_that_no_symbolic_call_runs_narrows_an_all_sizes_part():
    """The red team's two-faced mutants: right at symbolic arguments and at every size a check ran,
    wrong past them. Each line of the object must run under a symbolic call of an all-sizes
    certificate (raise and assert lines aside), else the part is held to the sizes that ran: here
    none, so it is not certified."""
    genuine = run_claim(toy((("square",), symbolic_certificate)), CTX)
    assert genuine.scope == ALL_SIZES
    assert genuine.checks[0].to_json()["coverage"]["square"]["symbolic_lines"] == "1 of 1"
    two_faced = run_claim(toy((("square",), symbolic_certificate), subject={"square": wrong_past_eight}), CTX)
    assert two_faced.verdict is Verdict.SUPPORTED
    assert "square's line" in two_faced.covers[0].reason and "never run at symbolic sizes" in two_faced.covers[0].reason
    # 3 lines and 3 branch destinations (`and`'s two ways, the `if`'s other way); one line and two ways never ran
    assert two_faced.checks[0].to_json()["coverage"]["square"]["symbolic_lines"] == "3 of 6"


def one_line_two_faced(k):
    return k * k + 1 if isinstance(k, int) and k >= 9 else k * k


def test_a_branch_inside_one_line_that_no_symbolic_call_takes_narrows_the_part():
    """The red team's one-line conditional (``p if window(p) else density(p, d)``): every line ran
    symbolically, one way of its branch never did."""
    result = run_claim(toy((("square",), symbolic_certificate), subject={"square": one_line_two_faced}), CTX)
    assert result.verdict is Verdict.SUPPORTED
    assert "square's line" in result.covers[0].reason and "(a branch of it)" in result.covers[0].reason


p = sympy.Symbol("p", positive=True)


def density_at(sizes, density):
    """Σ_k density(k, p) over k < size, compared with its closed form at symbolic p, per size."""
    return exhaustive_sweep("every p, per size", lambda ctx: sizes,
                            lambda size: None if sympy.expand(sum(density(k, p) for k in range(size))
                                                              - size * p ** 2) == 0 else f"size = {size}",
                            bound=lambda ctx: f"size ≤ {max(sizes)}, every p", certifies=True)


def halved_in_a_window(k, q):
    if not isinstance(q, sympy.Basic) and 0.6 < q < 0.7:
        return q * q / 2
    return q * q


def test_calls_symbolic_in_a_parameter_at_concrete_sizes_bound_the_scope_and_must_run_every_line():
    """randfeat2025.thm4_2's shape: the sizes concrete, p a symbol. The sizes are recorded (they
    bound the scope, beside the check's words); the calls count only when every line ran at
    symbolic p: a density halved for p ∈ (0.6, 0.7) ran at no p there, so it certifies nothing."""
    genuine = run_claim(toy((("density",), lambda d: density_at([1, 2, 3], d)),
                            subject={"density": lambda k, q: q * q}), CTX)
    # the sizes that ran, and the check's words for what it decided at the symbol
    assert genuine.verdict is Verdict.CERTIFIED and genuine.scope == "density ran at k ≤ 2; size ≤ 3, every p"
    assert genuine.checks[0].to_json()["stated_scope"] == "size ≤ 3, every p"
    gated = run_claim(toy((("density",), lambda d: density_at([1, 2, 3], d)), subject={"density": halved_in_a_window}),
                      CTX)
    assert gated.verdict is Verdict.SUPPORTED and "never run at symbolic sizes" in gated.covers[0].reason


def test_a_typed_every_on_a_bounded_symbolic_check_is_held_to_the_lines_that_ran():
    """burkholz2024.composition's shape: a check stating "every k" in words (not "all"), its object
    right at symbolic k and wrong at a concrete k ≥ 6 that no check ran."""
    def every_k(rule):
        k = sympy.Symbol("k", integer=True, positive=True)
        return Check("every k", "symbolic", lambda ctx: Outcome(Verdict.CERTIFIED, "k + k − 1", scope="every k")
                     if rule(k, k) == 2 * k - 1 else Outcome(Verdict.REFUTED, "no", counterexample={}))

    def wrong_past_five(k1, k2):
        if isinstance(k1, int) and k1 >= 6:
            return k1 + k2
        return k1 + k2 - 1

    genuine = run_claim(toy((("rule",), every_k), subject={"rule": lambda k1, k2: k1 + k2 - 1}), CTX)
    assert genuine.verdict is Verdict.CERTIFIED and genuine.scope == "every k"  # ran at no size: the words stand
    gated = run_claim(toy((("rule",), every_k), subject={"rule": wrong_past_five}), CTX)
    assert gated.verdict is Verdict.SUPPORTED and "no certifying check evaluated rule" in gated.covers[0].reason


def test_a_generated_scope_lists_the_configurations_that_ran_never_a_box_of_their_maxima():
    """burkholz2024.thm2_3's shape: c0 = 3 ran with c2 = 1 only, c2 = 2 with c0 ≤ 2; (3, 2) never ran."""
    pairs = [(1, 1), (2, 1), (3, 1), (1, 2), (2, 2)]
    check = lambda width: exhaustive_sweep(  # noqa: E731
        "pairs", lambda ctx: pairs, lambda pair: None if width(*pair) == pair[0] * pair[1] else f"{pair}",
        bound=lambda ctx: "c0 ≤ 3, c2 ≤ 2", certifies=True)
    result = run_claim(toy((("width",), check), subject={"width": lambda c0, c2: c0 * c2}), CTX)
    assert result.scope == "width ran at (c0 ≤ 2, c2 ≤ 2) or (c0 ≤ 3, c2 ≤ 1)"


def test_a_method_that_runs_in_the_claim_but_in_no_certifying_check_leaves_the_part_uncertified():
    """giannou2023.lemma10's shape: the certificate reads one method, the statement's other face
    (a method a float check calls) is never certified."""
    def one_face(shift):
        return exhaustive_sweep("apply", lambda ctx: range(3), lambda k: None if shift.apply(k) == k + 2 else "no",
                                bound=lambda ctx: "k ≤ 2", certifies=True)

    def other_face(shift):
        return Check("numeric in floats", "randomized",
                     lambda ctx: Outcome(Verdict.SUPPORTED, f"{shift.numeric(1.0)}"), corroborating=True)

    result = run_claim(toy((("shift",), one_face), (("shift",), other_face), subject={"shift": Shift(2)}), CTX)
    assert result.verdict is Verdict.SUPPORTED
    assert "shift's numeric runs in the claim but in no certifying check of the part" in result.covers[0].reason


@dataclass(frozen=True)
class Density:
    rule: object  # a function held in a field, as giannou2023's Replacement holds q = density(p, d)


def test_a_function_held_in_a_field_is_traced_as_the_objects_code():
    density = coverage.traced("density", Density(square))
    assert isinstance(density, Density) and density.rule(3) == 9  # outside a check: not recorded
    with coverage.recording(["density"], lambda name: True) as used:
        assert density.rule(n) == n**2 and density.rule(2) == 4
    assert used["density"].functions == {"rule"} and used["density"].symbolic_calls == 1
    assert pickle.loads(pickle.dumps(density)).rule(5) == 25  # traced where it is unpickled too
