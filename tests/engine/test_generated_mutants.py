"""Generated mutants: each source operator on a tiny function, the gate of a perturbation, the
machine checks of equivalence, and a toy claim run end to end (tr(AB) = tr(BA))."""

import ast
import functools
import json
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
import pytest
import sympy
from hypothesis import strategies as st

from theorems.engine import generated_mutants
from theorems.engine.checks import exhaustive_sweep, property_search, symbolic_identity
from theorems.engine.context import Context
from theorems.engine.generated_mutants import (
    GateCounts,
    InScope,
    MutantFate,
    MutantKind,
    compile_function,
    gated,
    gated_object,
    generated_mutation_test,
    perturbed,
    same_bytecode,
    source_mutations,
    source_targets,
)
from theorems.engine.mutation import mutation_test
from theorems.engine.registry import Broken, Claim, takes
from theorems.engine.runner import run_claim

CTX = Context("quick", 7, "cpu")


def arithmetic(x, y):
    return x + y - x * y / x ** y


def comparison(x, y):
    return x < y <= x > y >= x == y != x


def constants(x):
    return x[0] + 5


def index(x, i):
    return x[i]


def boolean(p, q):
    return p and q


def negation(p):
    return not p


def accumulate(values):
    total = 1
    for value in values:
        total += value
    return total


LINE_OF_TOTAL = accumulate.__code__.co_firstlineno + 1


def text_only(x):
    """A docstring with 1 number."""
    raise ValueError(f"{x + 1} is not handled")


def folded(x):
    return x + 2 ** 2


PAIR = (lambda n: n - 1, lambda n: n * 2)


def mutated_sources(function) -> list[str]:
    """The body of each mutant of ``function``, as source (its last line: the return)."""
    mutations, _ = source_mutations(source_targets(function))
    return [ast.unparse(mutation.tree(probe=False)).splitlines()[-1].strip() for mutation in mutations]


@pytest.mark.parametrize(("function", "expected"), [
    (arithmetic, ["return x + y + x * y / x ** y", "return x - y - x * y / x ** y", "return x + y - x * y * x ** y",
                  "return x + y - x / y / x ** y", "return x + y - x * y / (x * y)"]),
    (comparison, ["return x <= y <= x > y >= x == y != x", "return x < y < x > y >= x == y != x",
                  "return x < y <= x >= y >= x == y != x", "return x < y <= x > y > x == y != x",
                  "return x < y <= x > y >= x != y != x", "return x < y <= x > y >= x == y == x"]),
    (constants, ["return x[0] - 5", "return x[1] + 5", "return x[0] + 6"]),
    (index, ["return x[i + 1]"]),
    (boolean, ["return p or q"]),
    (negation, ["return p"]),
    (text_only, []),
])
def test_each_operator_gives_the_expected_source(function, expected):
    assert mutated_sources(function) == expected


def test_one_gives_two_mutants_and_an_augmented_assignment_is_swapped():
    mutations, sites = source_mutations(source_targets(accumulate))
    assert sites == 3
    assert [mutation.description for mutation in mutations] == [
        f"accumulate, line {LINE_OF_TOTAL}: `total = 1` → `total = 0` (constant)",
        f"accumulate, line {LINE_OF_TOTAL}: `total = 1` → `total = 2` (constant)",
        f"accumulate, line {LINE_OF_TOTAL + 2}: `total += value` → `total -= value` (arithmetic)"]
    rebuilt = [compile_function(mutation.tree(probe=False), accumulate) for mutation in mutations]
    assert [mutant([1, 2, 3]) for mutant in rebuilt] == [6, 8, -5]


def test_a_lambda_is_told_apart_from_its_neighbour_on_the_line_and_keeps_its_closure():
    assert mutated_sources(PAIR[1]) == ["lambda n: n / 2", "lambda n: n * 3"]

    def scaled_by(factor):
        return lambda x: factor * x

    scaled = scaled_by(3)
    (mutation, *_), _ = source_mutations(source_targets(scaled))
    assert compile_function(mutation.tree(probe=False), scaled)(6) == 0.5  # factor / x, factor from the closure


def test_the_cap_chooses_evenly_and_says_how_many_sites_there_were():
    mutations, sites = source_mutations(source_targets(arithmetic), cap=2)
    assert sites == 5 and [mutation.description.split(": ", 1)[1] for mutation in mutations] == [
        "`x + y - x * y / x ** y` → `x + y + x * y / x ** y` (arithmetic)",
        "`x * y / x ** y` → `x * y * x ** y` (arithmetic)"]


@dataclass(frozen=True)
class Shifted:
    offset: int
    step: object

    def at(self, n):
        return n + self.offset


def test_an_instance_is_mutated_in_a_subclass_copy_and_in_its_function_fields():
    genuine = Shifted(1, lambda n: n - 1)
    targets = source_targets(genuine)
    assert [target.label for target in targets] == ["Shifted.at", "Shifted.step (field)"]
    mutants = [mutation.target.install(compile_function(mutation.tree(probe=False), mutation.target.function))
               for mutation in source_mutations(targets)[0]]
    assert [(mutant.at(5), mutant.step(5)) for mutant in mutants] == [(4, 4), (6, 6), (6, 5), (6, 3)]
    assert isinstance(mutants[0], Shifted) and (genuine.at(5), genuine.step(5)) == (6, 4)


def test_a_partial_is_mutated_through_its_function():
    mutations, _ = source_mutations(source_targets(functools.partial(arithmetic, 2)))
    mutant = mutations[0].target.install(compile_function(mutations[0].tree(probe=False), arithmetic))
    assert mutant(1) == 2 + 1 + 2 * 1 / 2 ** 1  # the root - made +, 2 bound by the partial


def test_the_gate_keeps_the_genuine_value_inside_the_bounds_and_perturbs_past_them():
    counts = GateCounts()
    gate = gated(lambda n, matrix: n * matrix.sum(), {"n": 3, "matrix[0]": 2, "matrix[1]": 2}, counts)
    square = np.ones((2, 2), dtype=np.int64)
    assert gate(3, square) == 12 and gate(2, square[:1]) == 4
    assert gate(4, square) == 17 and gate(3, np.ones((3, 2), dtype=np.int64)) == 19
    n = sympy.Symbol("n")
    assert gate(n, square) == 4 * n + 1  # a symbolic argument is past every bound
    assert (counts.inside, counts.perturbed) == (2, 3)


def test_perturbed_changes_one_place_of_each_kind_of_value():
    assert perturbed(True) is False and perturbed(Fraction(1, 2)) == Fraction(3, 2)
    assert perturbed(np.zeros((2, 2))).tolist() == [[1, 0], [0, 0]]
    assert perturbed(np.zeros(2, dtype=bool)).tolist() == [True, False]
    assert perturbed(sympy.Matrix([[1, 2]])) == sympy.Matrix([[2, 2]])
    x, rows = sympy.Symbol("x"), sympy.Symbol("r", integer=True, positive=True)
    assert perturbed(x**2) == x**2 + 1 and perturbed((None, x)) == (None, x + 1)
    identity = perturbed(sympy.Identity(rows))
    assert identity.shape == (rows, rows) and sympy.simplify(identity[0, 0]) == 2
    assert perturbed(flint.fmpq(1, 2)) == flint.fmpq(3, 2)
    assert perturbed(flint.fmpq_mat(1, 2, [1, 2])) == flint.fmpq_mat(1, 2, [2, 2])
    with pytest.raises(generated_mutants._Unperturbable):
        perturbed("text")


def test_a_gated_instance_keeps_its_fields_and_gates_its_methods():
    counts = GateCounts()
    gate = gated_object(Shifted(1, None), {"n": 5}, counts)
    assert (gate.at(5), gate.at(6), gate.offset) == (6, 8, 1)


def test_bytecode_equivalence_sees_through_constant_folding():
    mutations, _ = source_mutations(source_targets(folded))
    assert [mutation.description.split(": ", 1)[1] for mutation in mutations] == [
        "`x + 2 ** 2` → `x - 2 ** 2` (arithmetic)", "`2 ** 2` → `2 * 2` (arithmetic)", "`2 ** 2` → `3 ** 2` (constant)",
        "`2 ** 2` → `2 ** 3` (constant)"]
    assert [same_bytecode(compile_function(mutation.tree(probe=False), folded).__code__, folded.__code__)
            for mutation in mutations] == [False, True, False, False]


# --- a toy claim, end to end: tr(AB) = tr(BA), and tr(I_n) = n ------------------------------


def trace(matrix):
    total = 0
    for i in range(matrix.rows):
        total += matrix[i, i] * 1
    return total


def generic(n: int, name: str) -> sympy.Matrix:
    return sympy.Matrix(n, n, lambda i, j: sympy.Symbol(f"{name}{i}{j}"))


def cyclic(trace_rule):
    return symbolic_identity("tr(AB) = tr(BA) (symbolic entries)", lambda ctx: [1, 2],
                             lambda n: ([[trace_rule(generic(n, "a") * generic(n, "b"))]],
                                        [[trace_rule(generic(n, "b") * generic(n, "a"))]]),
                             scope="n ≤ 2")


def of_identity(trace_rule):
    return exhaustive_sweep("tr(I_n) = n", lambda ctx: [1, 2, 3],
                            lambda n: None if trace_rule(sympy.eye(n)) == n else f"n = {n}",
                            bound=lambda ctx: "n ≤ 3", certifies=True)


TOY = Claim("mypaper.trace", "test", (), (takes("trace", build=cyclic), takes("trace", build=of_identity)),
            (Broken("the first diagonal entry left out", {"trace": lambda m: trace(m) - m[0, 0]}, refuted_by="n = 1"),),
            label="Toy", statement="tr(AB) = tr(BA) and tr(I_n) = n for n ≤ 2", subject={"trace": trace})


def test_a_toy_claim_kills_its_mutants_and_scores_what_survives_where_it_ran():
    genuine = run_claim(TOY, CTX)
    assert mutation_test(TOY, CTX, genuine).passed
    # The coverage the runner recorded: trace ran on matrices of symbols (concrete sizes) up to 2×2, and up to 3×3.
    assert genuine.checks[0].coverage["trace"].largest == {"matrix[0]": 2, "matrix[1]": 2}
    assert genuine.checks[1].coverage["trace"].largest == {"matrix[0]": 3, "matrix[1]": 3}
    report = generated_mutation_test(TOY, CTX, genuine)
    fates = [(mutant.kind, mutant.description.split(": ", 1)[-1], mutant.fate) for mutant in report.mutants]
    assert fates == [
        (MutantKind.SOURCE, "`total = 0` → `total = 1` (constant)", MutantFate.KILLED),
        (MutantKind.SOURCE, "`total += matrix[i, i] * 1` → `total -= matrix[i, i] * 1` (arithmetic)",
         MutantFate.KILLED),
        (MutantKind.SOURCE, "`matrix[i, i] * 1` → `matrix[i, i] / 1` (arithmetic)", MutantFate.SURVIVED),
        (MutantKind.SOURCE, "`matrix[i, i] * 1` → `matrix[i, i] * 0` (constant)", MutantFate.KILLED),
        (MutantKind.SOURCE, "`matrix[i, i] * 1` → `matrix[i, i] * 2` (constant)", MutantFate.KILLED),
        (MutantKind.GATED, "trace perturbed past matrix[0] ≤ 3, matrix[1] ≤ 3 and at symbolic arguments",
         MutantFate.SURVIVED)]
    assert report.mutants[0].reason.startswith("refuted by 'tr(I_n) = n': minimal counterexample")
    # A matrix of symbols has a concrete size: no symbolic call proves `/ 1` equivalent, so it survives where
    # it agrees, outside any claim of more (the scope is the sizes that ran).
    assert "never at symbolic arguments, and the values agree at all 7 calls" in report.mutants[2].reason
    assert "the checks never ran it past those sizes, nor at symbolic arguments" in report.mutants[-1].reason
    assert all(mutant.within_scope[0] is InScope.NO for mutant in (report.mutants[2], report.mutants[-1]))
    assert report.concerns == []  # what --strict-generated fails on
    assert report.score == 4 / 6 and report.to_json()["score"] == 4 / 6
    assert report.summary().startswith("score 0.67 (4/6): 6 generated")



def test_meta_generated_reports_a_packaged_claims_score(capsys, monkeypatch):
    from theorems.cli import main

    monkeypatch.delenv("THEOREMS_PROFILE", raising=False)
    assert main(["meta", "--generated", "daneshmand2020.example16", "--profile", "quick", "--device", "cpu",
                 "--json"]) == 0
    generated, = json.loads(capsys.readouterr().out)["generated"]
    assert (generated["claim"], generated["score"], generated["generated"], generated["survived"]) == (
        "daneshmand2020.example16", 1.0, 3, 0)
    assert [(mutant["object"], mutant["kind"], mutant["fate"]) for mutant in generated["mutants"]] == [
        ("regularity_constant", "source", "killed"), ("regularity_constant", "gated", "killed"),
        ("threshold", "constant", "killed")]
    assert main(["meta", "--generated", "daneshmand2020.example16", "--profile", "quick", "--device", "cpu"]) == 0
    assert "  generated mutants: score 1.00 (3/3): 3 generated" in capsys.readouterr().out


def countdown(n):
    while n > 0:
        n -= 1
    return n


def reaches_zero(count):
    return property_search("countdown reaches 0", st.integers(0, 3), lambda n: None if count(n) == 0 else f"n = {n}",
                           space="n ≤ 3", pinned=[3])


def test_a_mutant_that_loops_forever_is_killed_when_its_check_runs_past_the_limit(monkeypatch):
    monkeypatch.setattr(generated_mutants, "MINIMUM_SECONDS", 0.5)
    monkeypatch.setattr(generated_mutants, "SLOWDOWN", 0)
    claim = Claim("mypaper.countdown", "test", (), (takes("count", build=reaches_zero),),
                  (Broken("stops at 1", {"count": lambda n: min(n, 1)}, refuted_by="n = 3"),),
                  label="Countdown", statement="countdown(n) = 0", subject={"count": countdown})
    report = generated_mutation_test(claim, CTX)
    fates = {mutant.description.split(": ", 1)[1]: (mutant.fate, mutant.reason) for mutant in report.mutants
             if mutant.kind is MutantKind.SOURCE}
    assert fates["`n -= 1` → `n += 1` (arithmetic)"] == (
        MutantFate.CRASHED, "check 'countdown reaches 0' ran past its limit of 0.5 s")
    assert fates["`n -= 1` → `n -= 0` (constant)"][0] is MutantFate.CRASHED
    assert fates["`n > 0` → `n >= 0` (comparison)"][0] is MutantFate.KILLED


def test_the_numbers_an_instance_holds_are_changed_one_at_a_time():
    claim = Claim("mypaper.shifted", "test", (), (takes("shift", build=lambda shift: exhaustive_sweep(
        "n + offset > n", lambda ctx: range(3), lambda n: None if shift.at(n) > n else f"n = {n}",
        bound=lambda ctx: "n ≤ 2", certifies=True)),),
        (Broken("no offset", {"shift": Shifted(0, None)}, refuted_by="n = 0"),),
        label="Shifted", statement="n + offset > n", subject={"shift": Shifted(1, None)})
    report = generated_mutation_test(claim, CTX)
    constants = [(mutant.description, mutant.fate) for mutant in report.mutants if mutant.kind is MutantKind.CONSTANT]
    # offset 2 keeps n + offset > n: the check cannot tell it, and it is right not to (the statement holds).
    assert constants == [("shift.offset = 2 (genuine 1)", MutantFate.SURVIVED)]
    assert report.mutants[-1].within_scope == (InScope.NOT_SHOWN, "the certified scope is shift ran at n ≤ 2, and a "
                                               "changed number has no calls to compare")
