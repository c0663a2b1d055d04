"""The generic check builders on toy statements whose truth is known."""

import gc
import random
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import strategies as st

from theorems.engine import checks, fanout
from theorems.engine.checks import (
    Slack,
    determinant_certificate,
    exhaustive_sweep,
    property_search,
    search_beyond_sweep,
    symbolic_identity,
    symbolic_inequality,
    symbolic_sizes_identity,
)
from theorems.engine.context import Context
from theorems.engine.verdicts import ALL_SIZES, Verdict
from theorems.errors import ClaimDefinitionError
from theorems.maths import exact

CTX = Context("quick", 7, "cpu", "toy.claim", "toy check")


def test_property_search_shrinks_to_the_minimal_counterexample():
    check = property_search("x < 10", st.integers(0, 1000), lambda x: None if x < 10 else f"x = {x}", space="0..1000")
    outcome = check.run(CTX)
    assert outcome.verdict is Verdict.REFUTED
    assert outcome.counterexample == {"example": 10, "reason": "x = 10"}


def test_property_search_supported_records_its_statistics():
    check = property_search("x ≥ 0", st.integers(0, 1000), lambda x: None, space="0..1000",
                            classify=lambda x: "small" if x < 500 else "large")
    outcome = check.run(CTX)
    assert outcome.verdict is Verdict.SUPPORTED
    assert outcome.evidence["examples"] == 30
    assert sum(outcome.evidence["coverage"].values()) == 30


def test_a_search_is_deaf_to_the_host_process_moving_the_global_random_state():
    # The host process moves `random`'s state during a draw (a finalizer run by a garbage collection, another
    # thread); Hypothesis warns, and under `-W error` the draw failed and its replay passed: a FlakyFailure that
    # crashed daneshmand2020.example16 in the full test run. Here every draw runs such a finalizer.
    class MovesRandomWhenCollected:
        def __del__(self):
            random.random()

    def drawn_during_a_collection(x):
        MovesRandomWhenCollected()
        gc.collect()
        return x

    check = property_search("x ≥ 0", st.integers(0, 1000).map(drawn_during_a_collection), lambda x: None,
                            space="0..1000")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check.run(CTX).verdict is Verdict.SUPPORTED


def test_pinned_examples_run_even_when_generation_would_miss_them():
    check = property_search("x ≠ 123456", st.integers(0, 10**9), lambda x: None if x != 123456 else "hit",
                            space="0..1e9", pinned=[123456])
    assert check.run(CTX).verdict is Verdict.REFUTED


def test_same_seed_same_evidence_other_seed_other_search():
    check = property_search("any", st.integers(0, 10**9), lambda x: None, space="0..1e9", classify=str)
    first, again = check.run(CTX).evidence, check.run(CTX).evidence
    other = check.run(Context("quick", 8, "cpu", "toy.claim", "toy check")).evidence
    assert first == again
    assert first["coverage"] != other["coverage"]


def test_symbolic_identity_certifies_and_refutes():
    import sympy

    x, y = sympy.symbols("x y")
    good = symbolic_identity("square", lambda ctx: [1, 2],
                             lambda k: (sympy.Matrix([(x + y) ** k]), sympy.Matrix([sympy.expand((x + y) ** k)])),
                             scope=lambda ctx: "k ≤ 2")
    bad = symbolic_identity("freshman", lambda ctx: [1, 2],
                            lambda k: (sympy.Matrix([(x + y) ** k]), sympy.Matrix([x**k + y**k])), scope="k ≤ 2")
    certified = good.run(CTX)
    assert certified.verdict is Verdict.CERTIFIED and certified.scope == "k ≤ 2"
    refuted = bad.run(CTX)
    assert refuted.verdict is Verdict.REFUTED and refuted.counterexample["case"] == "2"


def square_matrices(n):
    return tuple(sympy.Matrix(n, n, lambda i, j, name=name: sympy.Symbol(f"{name}{i}{j}")) for name in "ab")


def test_a_scalar_identity_is_certified_and_a_false_one_refuted_with_its_polynomial():
    """Sides need not be matrices: sympy scalars (a trace, a polynomial) are the most natural first claim."""
    a, b = sympy.symbols("a b")
    square = symbolic_identity("(a+b)² = a² + 2ab + b²", lambda ctx: [1],
                               lambda case: ((a + b) ** 2, a**2 + 2 * a * b + b**2), scope="all")
    assert square.run(CTX).verdict is Verdict.CERTIFIED
    commutes = symbolic_identity("tr(AB) = tr(BA)", lambda ctx: [1, 2, 3],
                                 lambda n: ((square_matrices(n)[0] * square_matrices(n)[1]).trace(),
                                            (square_matrices(n)[1] * square_matrices(n)[0]).trace()), scope="n ≤ 3")
    assert commutes.run(CTX).verdict is Verdict.CERTIFIED
    product = symbolic_identity("tr(AB) = tr A·tr B", lambda ctx: [1, 2],
                                lambda n: ((square_matrices(n)[0] * square_matrices(n)[1]).trace(),
                                           square_matrices(n)[0].trace() * square_matrices(n)[1].trace()),
                                scope="n ≤ 2", describe_case=lambda n: f"n = {n}")
    refuted = product.run(CTX)
    assert refuted.verdict is Verdict.REFUTED and refuted.counterexample == {
        "case": "n = 2", "nonzero": ["entry (0, 0): -a00*b11 + a01*b10 + a10*b01 - a11*b00"]}


@pytest.mark.parametrize("lhs, rhs", [
    (Fraction(1, 2) + Fraction(1, 3), Fraction(5, 6)),  # python numbers
    (3, sympy.Integer(3)),
    (np.int64(4), np.array(4)),  # a numpy scalar, a 0-dimensional array
    (np.array([[1, 2], [3, 4]]) * 2, sympy.Matrix([[2, 4], [6, 8]])),  # arrays and matrices
    (np.array([1, 2]), [1, 2]),  # a vector is a column, from numpy or from a list
    (sympy.MatrixSymbol("M", 2, 2) * sympy.eye(2), sympy.MatrixSymbol("M", 2, 2)),  # matrix expressions
])
def test_scalars_matrices_and_arrays_are_all_sides(lhs, rhs):
    assert symbolic_identity("sides", lambda ctx: [1], lambda case: (lhs, rhs), scope="toy").run(CTX).verdict \
        is Verdict.CERTIFIED


def builds_a_string(case):
    return "a + b", sympy.Symbol("a")


@pytest.mark.parametrize("build, message", [
    (builds_a_string, "for 1 the lhs is of type str; a side is a sympy expression or matrix"),
    (lambda case: (0, {"a": 1}), "for 1 the rhs is of type dict"),
    (lambda case: (0, np.zeros((2, 2, 2))), "for 1 the rhs is of type ndarray"),
    (lambda case: sympy.Symbol("a"), "for 1 it gave Symbol, not a pair (lhs, rhs)"),
])
def test_a_malformed_side_is_the_claims_definition_error_naming_where_it_was_built(build, message):
    check = symbolic_identity("malformed", lambda ctx: [1], build, scope="toy")
    with pytest.raises(ClaimDefinitionError) as raised:
        check.run(CTX)
    where = f"{Path(__file__).name}:{build.__code__.co_firstlineno}"  # this file, the line of the build
    assert str(raised.value).startswith("check 'malformed' (built at ") and f"{where}): {message}" in str(raised.value)


def test_an_identity_in_symbolic_sizes_takes_scalar_and_matrix_sides_and_differences():
    zero = symbolic_sizes_identity("zero", lambda: (sympy.zeros(2, 1), {}), [1], lambda case: (0, 0), str)
    assert zero.run(CTX).verdict is Verdict.CERTIFIED
    off = symbolic_sizes_identity("off", lambda: (sympy.Matrix([0, 1]), {}), [1, 2],
                                  lambda case: (np.array([1, case]), sympy.Matrix([1, 1])), lambda s: f"n = {s}")
    assert off.run(CTX).counterexample["case"] == "n = 2"
    with pytest.raises(ClaimDefinitionError, match="the general difference is of type str"):
        symbolic_sizes_identity("text", lambda: ("0", {}), [1], lambda case: (0, 0), str).run(CTX)


def test_determinant_certificate_certifies_generic_and_refutes_singular():
    generic = determinant_certificate("generic", lambda ctx: [(2,), (3,)],
                                      lambda rng, s: exact.random_points(rng, (s[0], s[0])), lambda s: s[0],
                                      space="toy", scope="n ≤ 3")
    outcome = generic.run(CTX)
    assert outcome.verdict is Verdict.CERTIFIED and outcome.scope == "n ≤ 3"
    assert outcome.certificate["prime"] == exact.CERTIFICATE_PRIME
    assert all(entry["det_mod_p"] != 0 for entry in outcome.certificate["entries"])

    def rank_one(rng, size):
        u = exact.random_points(rng, (size[0], 1))
        return u @ u.T

    singular = determinant_certificate("rank one", lambda ctx: [(1,), (2,), (3,)], rank_one, lambda s: 2 * s[0],
                                       space="toy", scope="n ≤ 3")
    refuted = singular.run(CTX)
    assert refuted.verdict is Verdict.REFUTED
    assert refuted.counterexample["size"] == [2]  # 1×1 is fine; 2×2 is the minimal failure


def _divisor_sweep(**keywords):
    """n ≥ 1 has a divisor in [1, n], decided by listing them: every configuration n ≤ 6."""
    return exhaustive_sweep("divisors", lambda ctx: list(range(1, 7)),
                            lambda n: None if any(n % k == 0 for k in range(1, n + 1)) else f"n = {n}",
                            bound=lambda ctx: "n ≤ 6", classify=lambda n: "even" if n % 2 == 0 else "odd", **keywords)


def test_exhaustive_sweep_supports_by_default_and_records_bound_and_count():
    outcome = _divisor_sweep().run(CTX)
    assert outcome.verdict is Verdict.SUPPORTED and outcome.scope is None
    assert outcome.evidence["bound"] == "n ≤ 6" and outcome.evidence["configurations"] == 6
    assert outcome.evidence["coverage"] == {"even": 3, "odd": 3}


def test_exhaustive_sweep_certifies_the_bound_when_each_decision_covers_every_instance():
    outcome = _divisor_sweep(certifies=True).run(CTX)
    assert outcome.verdict is Verdict.CERTIFIED and outcome.scope == "n ≤ 6"
    assert outcome.evidence["configurations"] == 6


def test_exhaustive_sweep_refutes_at_the_first_failing_configuration_in_order():
    decided = []

    def decide(n):
        decided.append(n)
        return f"{n} is prime" if n in (5, 3, 7) else None

    check = exhaustive_sweep("not prime", lambda ctx: [1, 4, 5, 3, 7], decide, bound=lambda ctx: "toy", certifies=True)
    outcome = check.run(CTX)
    assert outcome.verdict is Verdict.REFUTED and decided == [1, 4, 5]  # in the order given, not the smallest
    assert outcome.counterexample == {"configuration": 5, "reason": "5 is prime"}
    assert outcome.evidence == {"bound": "toy", "configurations": 5, "holding_before": 2}


def _chunked_sweeps(decided: list | None = None):
    """Sweeps and searches over more configurations than a few chunks hold, holding and failing
    in the middle of a chunk; ``decided`` collects the configurations decided."""

    def below(limit):
        def decide(n):
            if decided is not None:
                decided.append(n)
            return None if n < limit else f"n = {n} ≥ {limit}"

        return decide

    def by_residue(n):
        return f"{n % 3} mod 3"

    def draw(rng):
        return int(rng.integers(0, 100))

    search = {"sweep_bound": lambda ctx: "n < 20", "reach": lambda ctx: "n < 100", "budget": lambda ctx: 40,
              "pinned": [5, 17], "classify": by_residue}
    return [exhaustive_sweep("all hold", lambda ctx: range(20), below(20), bound=lambda ctx: "n < 20",
                             classify=by_residue),
            exhaustive_sweep("n < 7", lambda ctx: range(20), below(7), bound=lambda ctx: "n < 20",
                             classify=by_residue),
            search_beyond_sweep("all hold", draw, below(100), **search),
            search_beyond_sweep("n < 90", draw, below(90), **search)]


def _record(outcome):
    return outcome.verdict, outcome.summary, outcome.evidence, outcome.counterexample, outcome.scope


@pytest.mark.parametrize("chunk", [1, 3])
def test_sweep_evidence_does_not_depend_on_the_chunk_size(monkeypatch, chunk):
    monkeypatch.setattr(checks, "SWEEP_CHUNK", 10**9)  # everything in one chunk: decided in a plain loop
    whole = [_record(check.run(CTX)) for check in _chunked_sweeps()]
    monkeypatch.setattr(checks, "SWEEP_CHUNK", chunk)
    assert [_record(check.run(CTX)) for check in _chunked_sweeps()] == whole
    assert [verdict for verdict, *_ in whole] == [Verdict.SUPPORTED, Verdict.REFUTED] * 2
    assert whole[1][3] == {"configuration": 7, "reason": "n = 7 ≥ 7"}


def test_a_chunked_sweep_decides_nothing_past_its_first_failure(monkeypatch):
    monkeypatch.setattr(checks, "SWEEP_CHUNK", 3)
    decided = []
    _chunked_sweeps(decided)[1].run(CTX)
    assert decided == list(range(8))  # 7 fails in the middle of the third chunk


def test_sweeps_inside_a_cluster_task_run_their_chunks_as_tasks(monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(checks, "SWEEP_CHUNK", 3)
    monkeypatch.setattr(fanout, "WORTHWHILE_S", 0)  # every chunk worth a task, however quick
    direct = [_record(check.run(CTX)) for check in _chunked_sweeps()]
    # Each configuration counted under the task that decided it: the first chunk of three in the
    # claim's own task, each other chunk in a task of its own.
    by_task = exhaustive_sweep("by task", lambda ctx: range(10), lambda n: None, bound=lambda ctx: "n < 10",
                               classify=lambda n: str(distributed.get_worker().get_current_task()))
    with (distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0")
          as cluster, distributed.Client(cluster) as client):
        on_cluster = [_record(client.submit(lambda check=check: check.run(CTX), pure=False).result())
                      for check in [*_chunked_sweeps(), by_task]]
    assert on_cluster[:-1] == direct
    assert sorted(on_cluster[-1][2]["coverage"].values()) == [1, 3, 3, 3]


def test_symbolic_sizes_identity_certifies_for_all_sizes_refutes_concretely_or_stays_open():
    import sympy

    n = sympy.Symbol("n", integer=True, positive=True)
    k = sympy.Symbol("k", integer=True)

    def sides(gauss):
        return lambda size: (sympy.Matrix([sum(range(size + 1))]), sympy.Matrix([gauss.subs(n, size)]))

    def difference(gauss):
        return lambda: (sympy.simplify(sympy.Sum(k, (k, 0, n)).doit() - gauss), {"method": "toy"})

    right, wrong = n * (n + 1) / 2, n**2 / 2 + 1
    certified = symbolic_sizes_identity("Gauss", difference(right), [1, 2], sides(right), str).run(CTX)
    assert certified.verdict is Verdict.CERTIFIED and certified.scope == ALL_SIZES
    refuted = symbolic_sizes_identity("off", difference(wrong), [1, 2, 3], sides(wrong), lambda s: f"n = {s}").run(CTX)
    assert refuted.verdict is Verdict.REFUTED and refuted.counterexample["case"] == "n = 1"
    # a nonzero difference that no concrete case confirms proves nothing either way
    equal_at_two = 3 * n / 2 + (n - 2) * n * (n + 1)
    open_ = symbolic_sizes_identity("open", difference(equal_at_two), [2], sides(equal_at_two), str).run(CTX)
    assert open_.verdict is Verdict.INCONCLUSIVE


def test_shared_seeds_depend_on_the_seed_and_labels_only():
    from theorems.engine.context import seeded_int

    assert seeded_int(1, "a", 8) == seeded_int(1, "a", 8)
    assert len({seeded_int(1, "a", 8), seeded_int(2, "a", 8), seeded_int(1, "a", 16)}) == 3
    assert CTX.int_seed("x") == seeded_int(CTX.seed, CTX.claim_id, CTX.check_name, "x")


def test_context_randomness_is_reproducible_and_separated():
    assert np.array_equal(CTX.rng("a").integers(0, 100, 5), CTX.rng("a").integers(0, 100, 5))
    assert not np.array_equal(CTX.rng("a").integers(0, 10**9, 5), CTX.rng("b").integers(0, 10**9, 5))
    assert CTX.by_profile(1, thorough=3) == 1
    assert Context("large", 0, "cpu").by_profile(1, thorough=3) == 3


def test_checks_run_on_one_torch_thread_and_the_setting_is_restored():
    import torch

    from theorems.engine.registry import Check, Claim
    from theorems.engine.runner import run_claim
    from theorems.engine.verdicts import Outcome

    seen = []

    def run(ctx):
        seen.append(torch.get_num_threads())
        return Outcome(Verdict.SUPPORTED, "ok")

    claim = Claim("giannou2023.thm5", "s", (), (Check("threads", "randomized", run),), ())
    before = torch.get_num_threads()
    run_claim(claim, CTX)
    assert seen == [1] and torch.get_num_threads() == before


def test_search_counterexamples_carry_the_names_of_their_inputs():
    pairs = st.tuples(st.integers(0, 100), st.integers(0, 100))
    search = property_search("a + b < 10", pairs, lambda ab: None if sum(ab) < 10 else "a + b ≥ 10", space="toy",
                             names=("a", "b"))
    example = search.run(CTX).counterexample["example"]
    assert set(example) == {"a", "b"} and example["a"] + example["b"] == 10
    beyond = search_beyond_sweep("n < 8", lambda rng: (int(rng.integers(6, 12)), np.eye(2, dtype=int)),
                                 lambda c: None if c[0] < 8 else "n ≥ 8", sweep_bound=lambda ctx: "n ≤ 5",
                                 reach=lambda ctx: "n < 12", budget=lambda ctx: 40, pinned=[(9, np.eye(2, dtype=int))],
                                 names=("n", "W"))
    assert beyond.run(CTX).counterexample["configuration"] == {"n": 9, "W": [[1, 0], [0, 1]]}
    sweep = exhaustive_sweep("n < 3", lambda ctx: range(6), lambda n: None if n < 3 else "n ≥ 3",
                             bound=lambda ctx: "n ≤ 5", names="n")  # one name labels the whole input
    assert sweep.run(CTX).counterexample["configuration"] == {"n": 3}
    certificate = determinant_certificate("zero for m > 1", lambda ctx: [(1, 1), (1, 2)],
                                          lambda rng, s: np.zeros((s[0], s[0]), dtype=np.int64) + (s[1] == 1),
                                          lambda s: 1, space="toy", scope="toy", names=("n", "m"))
    assert certificate.run(CTX).counterexample["size"] == {"n": 1, "m": 2}
    nested = exhaustive_sweep("kinds", lambda ctx: [(("zero", np.zeros((1, 2), dtype=int)), "1/2")],
                              lambda c: f"{c[0][0]} H", bound=lambda ctx: "toy", names=(("kind", "H"), "τ"))
    assert nested.run(CTX).counterexample["configuration"] == {"kind": "zero", "H": [[0, 0]], "τ": "1/2"}


@pytest.mark.parametrize("names", [("a", "a"), (), ("a", ""), ("a", ()), (("a", "b"), "a")])
def test_names_must_be_distinct_strings(names):
    with pytest.raises(ClaimDefinitionError, match="distinct non-empty strings"):
        exhaustive_sweep("toy", lambda ctx: [(1, 2)], lambda c: None, bound=lambda ctx: "toy", names=names)


def test_names_count_every_input_not_only_a_counterexample():
    holds = exhaustive_sweep("holds", lambda ctx: [(1, 2), (1, 2, 3)], lambda c: None, bound=lambda ctx: "toy",
                             names=("a", "b"))
    with pytest.raises(ClaimDefinitionError, match=r"2 names \['a', 'b'\] for an input of 3 entries"):
        holds.run(CTX)
    search = property_search("holds", st.integers(), lambda x: None, space="toy", names=("a", "b"))
    with pytest.raises(ClaimDefinitionError, match="for an input of type int"):
        search.run(CTX)


def test_names_and_describe_are_alternatives():
    with pytest.raises(ClaimDefinitionError, match="names= or describe="):
        property_search("toy", st.integers(), lambda x: None, space="toy", names=("x",), describe=str)


# --- symbolic_inequality: every nonnegativity proved -------------------------------------------

GAMMA = sympy.Symbol("gamma", real=True)
B = sympy.Symbol("B", real=True)
W = sympy.IndexedBase("W")
I, J, P = sympy.symbols("i j p", integer=True)
D = sympy.Symbol("d", integer=True)


def inequality(target, rewritten, atoms=None, premises=(), cases=(), decide=lambda case: None, strict=False):
    return symbolic_inequality("toy", lambda: Slack(target, rewritten, atoms or {}, {}, strict), premises, cases,
                               decide, str, relies_on=())


def test_inequality_proves_squares_and_lists_each_atom_with_its_proof():
    a, b, z = sympy.symbols("a b Z", real=True)
    outcome = inequality(a**2 + b**2 - 2 * a * b, z, {z: (a - b) ** 2}).run(CTX)
    assert outcome.verdict is Verdict.CERTIFIED and outcome.scope == ALL_SIZES
    assert outcome.evidence["nonnegative"] == {"Z = (a - b)**2": "square"}


def test_a_declared_nonnegative_symbol_proves_nothing():
    """γ² = γ − Z with Z ≥ 0: true for γ ∈ [0, 1] only; Z's sympy assumption and the premise γ ≥ 0 prove
    nothing about γ − γ², so the false slack is refuted by its pinned case γ = 2, not certified."""
    declared = sympy.Symbol("Z", nonnegative=True)
    decide = lambda g: None if g - g**2 >= 0 else f"γ − γ² = {g - g**2} < 0 at γ = {g}"  # noqa: E731
    for atoms in ({}, {declared: GAMMA - GAMMA**2}):
        outcome = inequality(GAMMA - GAMMA**2, declared, atoms, (sympy.Ge(GAMMA, 0),), [Fraction(1, 2), 2],
                             decide).run(CTX)
        assert outcome.verdict is Verdict.REFUTED and outcome.counterexample["case"] == "2"
    lie = {declared: (GAMMA - 1) ** 2}  # an atom standing for something else than what the rewriting needs
    outcome = inequality(GAMMA - GAMMA**2, declared, lie, (sympy.Ge(GAMMA, 0),)).run(CTX)
    assert outcome.verdict is Verdict.INCONCLUSIVE
    assert outcome.evidence["rewriting_equals_target"].startswith("no")


def test_hypotheses_cover_indexed_entries_and_make_absolute_values_plain():
    target = sympy.sqrt(3) * B * D * GAMMA - sympy.Sum(sympy.Abs(GAMMA) * sympy.Abs(W[I, P]) * B, (P, 1, D))
    rewritten = sympy.Sum(GAMMA * (sympy.sqrt(3) - sympy.Abs(W[I, P])) * B, (P, 1, D))
    support, gamma_nonnegative, slope = sympy.Le(sympy.Abs(W[I, J]), sympy.sqrt(3)), sympy.Ge(GAMMA, 0), sympy.Ge(B, 0)
    size = sympy.Ge(D, 1)
    outcome = inequality(target, rewritten, premises=(support, gamma_nonnegative, slope, size)).run(CTX)
    assert outcome.verdict is Verdict.CERTIFIED
    assert outcome.evidence["premises_used"] == sorted(map(str, (support, gamma_nonnegative, slope, size)))
    without = inequality(target, rewritten, premises=(support, slope, size)).run(CTX)  # |γ| ≠ γ: not the target
    assert without.verdict is Verdict.INCONCLUSIVE


def test_equality_hypotheses_rewrite_and_strict_slacks_need_a_positive_term():
    r = sympy.IndexedBase("r")
    n = sympy.Symbol("N", real=True)
    # |K_pq| ≤ B r_p r_q / N with rows of norm √N (r_p = √N): B − |K_pq| ≥ 0.
    premises = (sympy.Le(sympy.Abs(W[I, J]), B * r[I] * r[J] / n), sympy.Eq(r[I], sympy.sqrt(n)), sympy.Gt(B, 0))
    assert inequality(B - sympy.Abs(W[I, P]), B - sympy.Abs(W[I, P]), premises=premises).run(CTX).verdict \
        is Verdict.CERTIFIED
    assert inequality(B - sympy.Abs(W[I, P]), B - sympy.Abs(W[I, P]), premises=premises[::2]).run(CTX).verdict \
        is Verdict.INCONCLUSIVE
    positive = 1 - sympy.sqrt(3) / 8 + sympy.Abs(GAMMA) / B
    assert inequality(positive, positive, premises=premises, strict=True).run(CTX).verdict is Verdict.CERTIFIED
    assert inequality(sympy.Abs(GAMMA), sympy.Abs(GAMMA), strict=True).run(CTX).verdict is Verdict.INCONCLUSIVE
    assert inequality(1 - sympy.sqrt(3), 1 - sympy.sqrt(3)).run(CTX).verdict is Verdict.INCONCLUSIVE


def test_sums_are_compared_in_a_canonical_form():
    x = sympy.IndexedBase("x")
    h = sympy.Symbol("h", integer=True)
    gap = sympy.Sum((x[I] - x[J]) ** 2 / 2, (I, 1, h), (J, 1, h))
    power_sums = h * sympy.Sum(x[P] ** 2, (P, 1, h)) - sympy.Sum(x[P], (P, 1, h)) ** 2
    g = sympy.Symbol("G", real=True)
    outcome = inequality(power_sums, g, {g: gap}, premises=(sympy.Ge(h, 0),)).run(CTX)
    assert outcome.verdict is Verdict.CERTIFIED
    assert outcome.evidence["nonnegative"] == {f"G = {gap}": "sum over i, j of (product of: the number 1/2; square)"}


def test_a_premise_must_be_a_relation():
    with pytest.raises(ClaimDefinitionError, match="sympy relation"):
        inequality(GAMMA, GAMMA, premises=(GAMMA,)).run(CTX)


def test_a_sum_is_nonnegative_only_over_a_range_of_nonnegative_length():
    """Σ_(p=1)^d 1 = d is −5 at d = −5 (Karr's convention): the range's length needs a premise d ≥ 0."""
    total = sympy.Sum(sympy.Abs(W[I, P]), (P, 1, D))
    assert inequality(total, total).run(CTX).verdict is Verdict.INCONCLUSIVE
    assert inequality(total, total, premises=(sympy.Ge(D, 0),)).run(CTX).verdict is Verdict.CERTIFIED
