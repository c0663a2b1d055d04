"""Generic check builders: the kinds of check a claim is made of.

- ``symbolic_identity``: an identity expanded to zero by sympy on small symbolic instances;
- ``symbolic_sizes_identity``: an index identity with the sizes themselves as symbols;
- ``property_search``: a Hypothesis search for a counterexample, shrunk when found;
- ``determinant_certificate``: Schwartz–Zippel certificates in arithmetic modulo a prime;
- ``exhaustive_sweep``: every discrete configuration up to a bound, each decided exactly;
- ``search_beyond_sweep``: random configurations past a sweep's bound, each decided exactly;
- ``symbolic_inequality``: an inequality at symbolic sizes, every nonnegativity it uses proved.

The two sweeps decide their configurations in chunks (``decide_in_chunks``): tasks of the
cluster when the claim runs on one (``fanout``), merged in order so that the evidence is the
same for any chunking and any number of workers.

A claim builds its checks from its objects under test (``registry.takes``), so a broken
variant's object runs through the same builder (see ``registry.Broken``). Certifying
builders take ``relies_on``: the standard results the certificate cites rather than checks,
each with a reference.

Builders that record an input as a counterexample (``property_search``, ``exhaustive_sweep``,
``search_beyond_sweep``, ``determinant_certificate``) take ``names``: the paper's names for the
entries of each input (``("W1", "W2", "target")``), so the counterexample reads
``{"W1": …, "W2": …, "target": …}`` rather than an unlabelled list (see ``Labels``).
"""

from __future__ import annotations

import numbers
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

import numpy as np
import sympy
from hypothesis import example as pin_example
from hypothesis import given
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import HypothesisDeprecationWarning

from ..errors import ClaimDefinitionError, TheoremsError
from ..maths import exact
from .blame import defined_at
from .context import Context
from .fanout import chunks_of, map_chunks
from .registry import Check
from .verdicts import ALL_SIZES, Outcome, Verdict


def to_jsonable(value: Any) -> Any:
    """Evidence-friendly form: arrays as nested lists, exact numbers as strings."""
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, (Fraction, sympy.Basic)):
        return str(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


class _Falsified(TheoremsError, AssertionError):
    pass


# The paper's names for a check's inputs: one name for the whole input, or a sequence naming the
# entries of a tuple input in order, where an entry that is itself a tuple may take a sequence too.
Names = str | Sequence[Any]


def _leaves(names: Sequence[Any]) -> Iterable[Any]:
    for name in names:
        if isinstance(name, str):
            yield name
        else:
            group = tuple(name)
            yield from _leaves(group) if group else [""]  # an empty group names nothing, as an empty name


class Labels:
    """``names`` (``Names``) for a check's inputs, checked against every input.

    Several names label the entries of a tuple input, one each, in order (a nested sequence
    labels the entries of a nested tuple); a single name labels the whole input. Every input is
    checked as it is drawn, not only a counterexample, so a wrong count fails the claim's
    definition on its first input, whatever the verdict. ``record(input)`` is the input in
    evidence form, one flat dict entry per name."""

    def __init__(self, check: str, names: Names):
        self.check, self.names = check, (names,) if isinstance(names, str) else tuple(names)
        leaves = list(_leaves(self.names))
        if not leaves or not all(isinstance(n, str) and n for n in leaves) or len(set(leaves)) != len(leaves):
            raise ClaimDefinitionError(f"check {check!r}: names must be distinct non-empty strings, got {names!r}")

    def _entries(self, names: tuple, value: Any) -> list[tuple[str, Any]]:
        if len(names) == 1 and isinstance(names[0], str):
            return [(names[0], value)]
        if not isinstance(value, (tuple, list)) or len(value) != len(names):
            count = f"{len(value)} entries" if isinstance(value, (tuple, list)) else f"type {type(value).__name__}"
            raise ClaimDefinitionError(f"check {self.check!r}: {len(names)} names {list(names)} for an input of "
                                       f"{count}")
        entries = []
        for name, entry in zip(names, value, strict=True):
            entries += [(name, entry)] if isinstance(name, str) else self._entries(tuple(name), entry)
        return entries

    def check_input(self, value: Any) -> None:
        self._entries(self.names, value)

    def record(self, value: Any) -> dict[str, Any]:
        return {name: to_jsonable(entry) for name, entry in self._entries(self.names, value)}


def _labels_for(check: str, names: Names | None, describe: Callable[[Any], Any]) -> Labels | None:
    """The labels of ``names``, or None when the builder records inputs with ``describe``:
    a ``describe`` gives its own form (and its own labels), so it comes without ``names``."""
    if names is None:
        return None
    if describe is not to_jsonable:
        raise ClaimDefinitionError(f"check {check!r}: give names= or describe=, not both")
    return Labels(check, names)


def property_search(
    name: str,
    strategy: st.SearchStrategy | Callable[[Context], st.SearchStrategy],
    prop: Callable[[Any], str | None],
    *,
    space: str,
    classify: Callable[[Any], str] | None = None,
    describe: Callable[[Any], Any] = to_jsonable,
    names: Names | None = None,
    pinned: Sequence[Any] = (),
    examples: Callable[[Context], int] | None = None,
    part: str | None = None,
    corroborating: bool = False,
) -> Check:
    """Search ``strategy`` for an example where ``prop`` reports a failure.

    ``prop(example)`` returns None when the claim holds on the example and a one-line
    reason when it fails; it must decide exactly (or verify a float failure exactly) so a
    reported counterexample is a proof. ``classify`` labels each example (a label or a list
    of labels) so the evidence shows what kinds of input were covered; ``pinned`` examples
    always run first. ``strategy`` may be a function of the context, so that the searched
    sizes grow with the profile. ``names`` labels the example's entries in the counterexample
    (``Labels``); ``describe`` instead gives the counterexample a form of its own.
    """
    named = _labels_for(name, names, describe)

    def run(ctx: Context) -> Outcome:
        failures: list[tuple[Any, str]] = []
        coverage: Counter[str] = Counter()

        def search(example):
            if named is not None:
                named.check_input(example)
            reason = prop(example)
            if reason is not None:
                failures.append((example, reason))
                raise _Falsified(reason)
            if classify is not None:
                labels = classify(example)
                coverage.update([labels] if isinstance(labels, str) else labels)
            coverage["(examples)"] += 1

        test = given(strategy if isinstance(strategy, st.SearchStrategy) else strategy(ctx))(search)
        for pinned_example in reversed(pinned):
            test = pin_example(pinned_example)(test)
        budget = {} if examples is None else {"max_examples": examples(ctx)}
        settings = ctx.hypothesis_settings(**budget)
        test = hypothesis_seed(ctx.int_seed("hypothesis"))(settings(test))
        evidence = {
            "space": space,
            "max_examples": settings.max_examples,
            "hypothesis_seed": ctx.int_seed("hypothesis"),
            "pinned_examples": len(pinned),
        }
        try:
            with warnings.catch_warnings():
                # Hypothesis warns when the global `random` state changes while a strategy draws; under
                # `-W error` (a project's filterwarnings) the warning fails that example, and its replay
                # passes: a FlakyFailure. The state is changed by the host process (a finalizer run by a
                # garbage collection during a draw; another thread, as Dask's jittered heartbeats on a
                # cluster worker), never by the suite's strategies, which draw only from Hypothesis
                # (tests/test_layout.py: no suite module imports `random`).
                warnings.filterwarnings("ignore", message="Do not use the `random` module inside strategies",
                                        category=HypothesisDeprecationWarning)
                test()
        except _Falsified:
            example, reason = failures[-1]  # Hypothesis replays the shrunk example last
            return Outcome(
                Verdict.REFUTED,
                f"counterexample: {reason}",
                evidence,
                counterexample={"example": (named.record if named else describe)(example), "reason": reason},
            )
        examples_run = coverage.pop("(examples)", 0)
        evidence.update(examples=examples_run, coverage=dict(sorted(coverage.items())))
        return Outcome(Verdict.SUPPORTED, f"no counterexample in {examples_run} examples ({space})", evidence)

    return Check(name, "randomized", run, part, corroborating)


def _nonzero_entries(difference: sympy.Matrix, limit: int = 3) -> list[str]:
    found = []
    for index, entry in enumerate(difference):
        if entry != 0:
            found.append(f"entry {divmod(index, difference.cols)}: {entry}")
            if len(found) == limit:
                break
    return found


Scope = str | Callable[[Context], str]

# Standard results certificates cite, with a reference (``Outcome.relies_on``).
SCHWARTZ_ZIPPEL = ("Schwartz–Zippel lemma: a nonzero polynomial of degree D vanishes at a uniform point of S^n "
                   "with probability ≤ D/|S| (J. T. Schwartz, J. ACM 27(4), 1980; R. Zippel, EUROSAM 1979); "
                   "a nonzero value at one point proves the polynomial nonzero")


def stated_scope(scope: Scope, ctx: Context) -> str:
    """A builder's ``scope``: a fixed string, or a function of the context where the range
    a check covers grows with the profile."""
    return scope(ctx) if callable(scope) else scope


def _side_matrix(side: Any) -> sympy.MatrixBase | None:
    """A side of an identity as a sympy matrix: a matrix (sympy's, a matrix expression of explicit
    shape, a numpy array of at most two dimensions, nested lists) as itself, a scalar (a sympy
    expression, a number, a 0-dimensional array) as a 1×1 matrix; None for anything else."""
    if isinstance(side, np.ndarray) and side.ndim == 0:
        side = side.item()
    if isinstance(side, sympy.MatrixBase):
        return side
    if isinstance(side, sympy.MatrixExpr):  # (before Expr, which it also is)
        return side.as_explicit() if side.shape[0].is_Integer and side.shape[1].is_Integer else None
    if isinstance(side, (sympy.Expr, numbers.Number)) and not isinstance(side, bool):
        return sympy.Matrix([[side]])
    if not isinstance(side, (np.ndarray, list, tuple)):
        return None
    try:
        matrix = sympy.Matrix(side)
    except Exception:  # anything sympy cannot read as a matrix of at most two dimensions
        return None
    return matrix if all(isinstance(entry, sympy.Expr) for entry in matrix) else None


def _built_at(function: Callable[..., Any]) -> str:
    """" (built at path:line)": where a claim's author wrote ``function``, for a malformed claim's message."""
    where = defined_at(function)
    return f" (built at {where})" if where else ""


def _sides(check: str, build: Callable[[Any], Any], case: Any, describe_case: Callable[[Any], str]
           ) -> tuple[sympy.MatrixBase, sympy.MatrixBase]:
    """``build(case)``'s two sides as sympy matrices (``_side_matrix``). Anything else is a
    malformed claim, named with where ``build`` is defined: the claim's author's error, not a crash."""
    sides = build(case)
    where = _built_at(build)
    if not isinstance(sides, (tuple, list)) or len(sides) != 2:
        raise ClaimDefinitionError(f"check {check!r}{where}: for {describe_case(case)} it gave "
                                   f"{type(sides).__name__}, not a pair (lhs, rhs)")
    matrices = []
    for which, side in zip(("lhs", "rhs"), sides, strict=True):
        matrix = _side_matrix(side)
        if matrix is None:
            raise ClaimDefinitionError(f"check {check!r}{where}: for {describe_case(case)} the {which} is of type "
                                       f"{type(side).__name__}; a side is a sympy expression or matrix, a number, "
                                       "or a numpy array of at most two dimensions")
        matrices.append(matrix)
    return matrices[0], matrices[1]


def symbolic_identity(
    name: str,
    cases: Callable[[Context], Iterable[Any]],
    build: Callable[[Any], tuple[Any, Any]],
    *,
    scope: Scope,
    describe_case: Callable[[Any], str] = str,
    part: str | None = None,
    relies_on: Sequence[str] = (),
) -> Check:
    """Certify ``lhs == rhs`` for each case by expanding ``lhs - rhs`` to zero in sympy; each
    side a scalar (a sympy expression, a number), a sympy matrix or a numpy array, a scalar
    read as 1×1 (``_side_matrix``). Cases should run smallest first, so the first failing case
    is a minimal one. ``scope`` is ``"all"`` only when a case is symbolic in the sizes (or the
    cases provably reduce every size to themselves); otherwise the range the cases cover."""

    def run(ctx: Context) -> Outcome:
        checked = []
        for case in cases(ctx):
            lhs, rhs = _sides(name, build, case, describe_case)
            if lhs.shape != rhs.shape:
                return Outcome(
                    Verdict.REFUTED,
                    f"{describe_case(case)}: sides have shapes {lhs.shape} and {rhs.shape}",
                    {"cases_checked": checked},
                    counterexample={"case": describe_case(case), "lhs_shape": list(lhs.shape),
                                    "rhs_shape": list(rhs.shape)},
                )
            difference = (lhs - rhs).applyfunc(sympy.expand)
            if any(entry != 0 for entry in difference):
                return Outcome(
                    Verdict.REFUTED,
                    f"{describe_case(case)}: lhs - rhs is not identically zero",
                    {"cases_checked": checked},
                    counterexample={"case": describe_case(case), "nonzero": _nonzero_entries(difference)},
                )
            checked.append(describe_case(case))
        return Outcome(
            Verdict.CERTIFIED,
            f"identity holds symbolically in {len(checked)} case{'' if len(checked) == 1 else 's'}",
            {"method": "sympy.expand(lhs - rhs) == 0 with symbolic entries", "cases": checked},
            scope=stated_scope(scope, ctx),
            relies_on=tuple(relies_on),
        )

    return Check(name, "symbolic", run, part)


def symbolic_sizes_identity(
    name: str,
    general_difference: Callable[[], tuple[sympy.Expr, dict]],
    concrete_cases: Iterable[Any],
    concrete_sides: Callable[[Any], tuple[Any, Any]],
    describe_case: Callable[[Any], str],
    part: str | None = None,
    relies_on: Sequence[str] = (),
) -> Check:
    """An identity in symbolic sizes: ``general_difference()`` gives lhs − rhs as an index expression
    (sympy Sum, KroneckerDelta, Indexed entries, with ``theorems.maths.index_sums`` for the ranges;
    a scalar or a matrix of them) and its evidence. Certified for all sizes when the difference
    vanishes; otherwise the first concrete case (``concrete_sides(case)`` gives both sides, as
    ``symbolic_identity``'s ``build``; cases smallest first) whose sides differ refutes, and if
    none does the check is inconclusive: a difference sympy cannot simplify is no proof either way."""

    def run(ctx: Context) -> Outcome:
        difference, evidence = general_difference()
        evidence = {**evidence, "difference": str(difference)}
        entries = _side_matrix(difference)
        if entries is None:
            raise ClaimDefinitionError(f"check {name!r}{_built_at(general_difference)}: the general difference is of "
                                       f"type {type(difference).__name__}, not a sympy expression or matrix")
        if all(entry == 0 for entry in entries):
            return Outcome(Verdict.CERTIFIED, "index identity holds for symbolic sizes", evidence, scope=ALL_SIZES,
                           relies_on=tuple(relies_on))
        for case in concrete_cases:
            lhs, rhs = _sides(name, concrete_sides, case, describe_case)
            if lhs.shape != rhs.shape or any(sympy.expand(e) != 0 for e in lhs - rhs):
                return Outcome(Verdict.REFUTED, f"{describe_case(case)}: the sides differ (the symbolic difference "
                               f"{difference} does not vanish)", evidence,
                               counterexample={"case": describe_case(case), "symbolic_difference": str(difference)})
        return Outcome(Verdict.INCONCLUSIVE, "the symbolic difference did not simplify to 0", evidence)

    return Check(name, "symbolic", run, part)


def determinant_certificate(
    name: str,
    sizes: Callable[[Context], Iterable[tuple[int, ...]]],
    build: Callable[[np.random.Generator, tuple[int, ...]], np.ndarray],
    degree: Callable[[tuple[int, ...]], int],
    *,
    space: str,
    scope: Scope,
    names: Names | None = None,
    part: str | None = None,
    relies_on: Sequence[str] = (),
) -> Check:
    """Certify that det(build(point)) is a nonzero polynomial for every size.

    ``build(rng, size)`` evaluates the matrix at a point drawn with ``exact.random_points``
    and returns it as an integer array. Sizes should run smallest first: the first size
    whose determinant vanishes identically is reported as the minimal counterexample.
    ``scope`` names the sizes covered (``"n·m ≤ 64"``), or "all" where a checked reduction
    brings every size to these. ``names`` labels the entries of a size (``("n", "m")``) in
    the counterexample.
    """
    named = None if names is None else Labels(name, names)

    def run(ctx: Context) -> Outcome:
        entries = []
        for size in ctx.progress(list(sizes(ctx)), "certificates"):
            if named is not None:
                named.check_input(size)
            rng = ctx.rng("certificate", *size)
            matrix = build(rng, size)
            label = "×".join(map(str, size))
            if matrix.shape[0] != matrix.shape[1]:
                return Outcome(
                    Verdict.REFUTED,
                    f"size {label}: the matrix is {matrix.shape[0]}×{matrix.shape[1]}, not square, so never invertible",
                    {"space": space, "certified": entries},
                    counterexample={"size": _size(size, named), "shape": list(matrix.shape)},
                )
            found_residue = exact.nonzero_det_residue(matrix, ctx.device)
            if found_residue is None:
                found = exact.refute_identically_zero(partial(build, rng, size), degree(size))
                if isinstance(found, exact.Refutation):
                    return Outcome(
                        Verdict.REFUTED,
                        f"size {label}: the determinant polynomial vanishes identically "
                        f"(false-refutation probability ≤ {found.false_refutation_bound:.1e})",
                        {"space": space, "certified": entries},
                        counterexample={"size": _size(size, named), "dimension": matrix.shape[0],
                                        **found.as_dict()},
                    )
                entries.append({"size": list(size), "dimension": matrix.shape[0],
                                "det_nonzero_over_Z_at_later_point": True})
                continue
            entries.append({"size": list(size), "dimension": matrix.shape[0], "det_mod_p": found_residue.residue,
                            # above exact.ENGINE_ABOVE the modular LU engine works modulo its own primes
                            **({"prime": found_residue.prime}
                               if found_residue.prime != exact.CERTIFICATE_PRIME else {})})
        return Outcome(
            Verdict.CERTIFIED,
            f"determinant polynomial nonzero for {len(entries)} sizes "
            f"(largest {entries[-1]['dimension']}×{entries[-1]['dimension']})",
            {"space": space, "sizes": len(entries)},
            certificate={
                "method": "Schwartz–Zippel: one nonzero evaluation modulo p proves the determinant polynomial nonzero",
                "prime": exact.CERTIFICATE_PRIME,
                **({"prime_note": "an entry with its own 'prime' was computed modulo that prime"}
                   if any("prime" in entry for entry in entries) else {}),
                "point_set": f"integers in [0, 2^{exact.POINT_BITS})",
                "rng": "numpy.random.default_rng(SeedSequence(seed_words)), seed_words = "
                "[seed, crc32(claim id), crc32(check name), crc32('certificate'), crc32(str(size_i))...]",
                "seed": ctx.seed,
                "entries": entries,
            },
            scope=stated_scope(scope, ctx),
            relies_on=(SCHWARTZ_ZIPPEL, *relies_on),
        )

    return Check(name, "certificate", run, part)


def _size(size: tuple[int, ...], named: Labels | None) -> list[int] | dict[str, int]:
    return list(size) if named is None else named.record(size)


@dataclass(frozen=True)
class Decided:
    """Items decided in order: the labels of those that hold, counted, up to the first failure,
    given as its index among the items and what the judge said of it."""

    coverage: Counter[str]
    failure: tuple[int, Any] | None = None


def _decide_chunk(judge: Callable[[Any], tuple[str | None, Any]], items: Sequence[Any]) -> Decided:
    coverage: Counter[str] = Counter()
    for position, item in enumerate(items):
        label, failure = judge(item)
        if failure is not None:
            return Decided(coverage, (position, failure))
        if label is not None:
            coverage[label] += 1
    return Decided(coverage)


def decide_in_chunks(judge: Callable[[Any], tuple[str | None, Any]], items: Sequence[Any], chunk_size: int) -> Decided:
    """``judge(item)`` for each item in order, up to the first failure: ``judge`` returns a
    coverage label (or None) and a failure (None when the item holds). The items go in chunks of
    ``chunk_size`` through ``fanout.map_chunks``, tasks of the cluster when there is one; a chunk
    sends back only its counted labels and its first failure, and the chunks merge in order, so
    the result is the same for any chunk size and any number of workers. ``chunk_size`` is a
    constant of the caller, never the number of workers."""
    decided = map_chunks(partial(_decide_chunk, judge), chunks_of(items, chunk_size),
                         stop=lambda chunk: chunk.failure is not None)
    coverage = sum((chunk.coverage for chunk in decided), Counter())
    if not decided or decided[-1].failure is None:
        return Decided(coverage)
    position, failure = decided[-1].failure
    return Decided(coverage, ((len(decided) - 1) * chunk_size + position, failure))


# Configurations one task of a sweep decides: a fixed number, so that a chunk's work never
# depends on the cluster, and enough that a task's overhead (milliseconds) is small beside it.
SWEEP_CHUNK = 100


def _judge_configuration(decide: Callable[[Any], str | None], classify: Callable[[Any], str] | None,
                         configuration: Any) -> tuple[str | None, str | None]:
    """A sweep's judge: the configuration's coverage label when it holds, else the reason it fails."""
    reason = decide(configuration)
    if reason is not None or classify is None:
        return None, reason
    return classify(configuration), None


def exhaustive_sweep(
    name: str,
    configurations: Callable[[Context], Sequence[Any]],
    decide: Callable[[Any], str | None],
    *,
    bound: Callable[[Context], str],
    certifies: bool = False,
    decided: str = "exactly (rational arithmetic)",
    describe: Callable[[Any], Any] = to_jsonable,
    names: Names | None = None,
    classify: Callable[[Any], str] | None = None,
    part: str | None = None,
    relies_on: Sequence[str] = (),
) -> Check:
    """Decide ``decide(configuration)`` (None: holds, else the reason it fails) exactly for
    every discrete configuration up to ``bound``, in the order given — smallest first, so the
    first failure is a minimal counterexample. The evidence records the bound and the count.

    A configuration fixes the discrete data of the claim (sizes, ranks, sign or multiplicity
    patterns). By default it carries one representative of its continuous data, so a clean
    sweep supports the claim and certificates are separate checks. With ``certifies=True``
    the decision of a configuration covers every instance of it (a generic rank decided
    exactly, an exact enumeration of all instances), so a clean sweep certifies the claim
    for the configurations swept: its scope is ``bound(ctx)``. ``decided`` says how each
    configuration is decided, for the evidence. ``names`` labels a configuration's entries in
    the counterexample (``Labels``); ``describe`` instead gives it a form of its own.
    """
    named = _labels_for(name, names, describe)

    def run(ctx: Context) -> Outcome:
        listed = list(configurations(ctx))
        if named is not None:
            for configuration in listed:
                named.check_input(configuration)
        swept = decide_in_chunks(partial(_judge_configuration, decide, classify), listed, SWEEP_CHUNK)
        if swept.failure is not None:
            index, reason = swept.failure
            return Outcome(
                Verdict.REFUTED,
                f"minimal counterexample (configuration {index + 1} of {len(listed)} in sweep order): {reason}",
                {"bound": bound(ctx), "configurations": len(listed), "holding_before": index},
                counterexample={"configuration": (named.record if named else describe)(listed[index]),
                                "reason": reason},
            )
        evidence = {"bound": bound(ctx), "configurations": len(listed), "decided": decided}
        if swept.coverage:
            evidence["coverage"] = dict(sorted(swept.coverage.items()))
        summary = f"all {len(listed)} configurations with {bound(ctx)} hold, decided exactly"
        if certifies:
            return Outcome(Verdict.CERTIFIED, summary, evidence, scope=bound(ctx), relies_on=tuple(relies_on))
        return Outcome(Verdict.SUPPORTED, summary, evidence)

    return Check(name, "certificate", run, part)


def search_beyond_sweep(
    name: str,
    draw: Callable[[np.random.Generator], Any],
    decide: Callable[[Any], str | None],
    *,
    sweep_bound: Callable[[Context], str],
    reach: Callable[[Context], str],
    budget: Callable[[Context], int],
    pinned: Sequence[Any] = (),
    decided: str = "exactly (rational arithmetic)",
    describe: Callable[[Any], Any] = to_jsonable,
    names: Names | None = None,
    classify: Callable[[Any], str] | None = None,
    part: str | None = None,
    corroborating: bool = False,
) -> Check:
    """Search configurations past an exhaustive sweep's bound: ``pinned`` ones first, then
    ``budget(ctx)`` drawn by ``draw(rng)`` from the run's randomness, each decided exactly by
    ``decide`` (None: holds, else the reason it fails). ``reach(ctx)`` says how far the draws
    go (each parameter up to at least twice ``sweep_bound(ctx)``); both are in the evidence.
    A failure refutes with its configuration; otherwise the claim is supported there, never
    certified: a sample of configurations covers none of the others. ``names`` labels a
    configuration's entries in the counterexample (``Labels``); ``describe`` instead gives it a
    form of its own."""
    named = _labels_for(name, names, describe)

    def run(ctx: Context) -> Outcome:
        rng = ctx.rng("beyond the sweep")
        count = budget(ctx)
        evidence = {"sweep_bound": sweep_bound(ctx), "reach": reach(ctx), "pinned": len(pinned), "drawn": count,
                    "decided": decided}
        # Every draw here, in order, before any is decided: drawing is cheap, deciding is not, and
        # the chunks then decide configurations that do not depend on how they are split.
        listed = [*pinned, *(draw(rng) for _ in range(count))]
        if named is not None:
            for configuration in listed:
                named.check_input(configuration)
        searched = decide_in_chunks(partial(_judge_configuration, decide, classify), listed, SWEEP_CHUNK)
        if searched.failure is not None:
            index, reason = searched.failure
            where = "pinned configuration" if index < len(pinned) else f"drawn configuration {index + 1 - len(pinned)}"
            return Outcome(Verdict.REFUTED, f"counterexample beyond the sweep ({where}): {reason}", evidence,
                           counterexample={"configuration": (named.record if named else describe)(listed[index]),
                                           "reason": reason})
        if searched.coverage:
            evidence["coverage"] = dict(sorted(searched.coverage.items()))
        return Outcome(Verdict.SUPPORTED, f"{len(pinned) + count} configurations past the sweep ({reach(ctx)}) hold, "
                       f"decided {decided}", evidence)

    return Check(name, "randomized", run, part, corroborating)


# --- inequalities at symbolic sizes, every nonnegativity proved -----------------------------
#
# ``symbolic_inequality`` certifies "target ≥ 0" (a claim's bound minus the quantity it bounds, at
# symbolic sizes) from a rewriting of the target whose sign shows. Nothing is taken on trust: the
# rewriting must equal the target (sympy), and every term of it is proved ≥ 0 by its structure —
# numbers, squares, absolute values, sums and products of what is already proved, powers and
# reciprocals of what is proved positive — or by a hypothesis the claim states as an object (a sympy
# relation of its subject, shown in the evidence as a premise). A symbol's own sympy assumptions
# (``nonnegative=True``) count for nothing.


@dataclass(frozen=True)
class Slack:
    """What ``symbolic_inequality`` decides: ``target`` ≥ 0 (> 0 where ``strict``), computed from the
    claim's objects at symbolic sizes. ``rewritten`` is the same quantity written so that its sign shows;
    its ``atoms`` are symbols standing for expressions (a sum of squares, a hypothesis' margin), each
    proved ≥ 0 from its expression. ``steps`` says how the rewriting was found, for the evidence."""

    target: sympy.Expr
    rewritten: sympy.Expr
    atoms: Mapping[sympy.Symbol, sympy.Expr]
    steps: dict
    strict: bool = False


def _index_symbols(expression: sympy.Expr) -> set[sympy.Symbol]:
    return {index for indexed in expression.atoms(sympy.Indexed) for index in indexed.free_symbols
            if isinstance(index, sympy.Symbol) and index != indexed.base.label}


def _plain_symbols(expression: sympy.Expr) -> set[sympy.Symbol]:
    """The free symbols of ``expression`` that are neither an Indexed base nor one of its indices."""
    indexed = expression.atoms(sympy.Indexed)
    return ({s for s in expression.free_symbols if isinstance(s, sympy.Symbol)}
            - {e.base.label for e in indexed} - _index_symbols(expression))


@dataclass(frozen=True)
class _Margin:
    """A hypothesis as ``margin`` ≥ 0 (> 0 where ``strict``); the indices of Indexed entries in it are
    wildcards, so "|W[a, b]| ≤ √3" covers every entry."""

    margin: sympy.Expr
    strict: bool
    text: str
    indexed: bool


def _substitute_equalities(expression: sympy.Expr, equalities: Sequence[sympy.Eq]) -> sympy.Expr:
    """Each hypothesis lhs = rhs used as a rewriting lhs → rhs: an Indexed lhs rewrites every entry of
    its base (its indices renamed), any other lhs rewrites where it occurs in the canonical form of sums."""
    for equality in equalities:
        lhs, rhs = equality.lhs, equality.rhs
        if isinstance(lhs, sympy.Indexed):
            def entry(found, lhs=lhs, rhs=rhs):
                return rhs.xreplace(dict(zip(lhs.indices, found.indices, strict=True)))
            expression = expression.replace(lambda e, lhs=lhs: isinstance(e, sympy.Indexed) and e.base == lhs.base,
                                            entry)
        else:
            expression = _canonical_sums(expression).xreplace({_canonical_sums(lhs): _canonical_sums(rhs)})
    return expression


def _canonical_sums(expression: sympy.Expr) -> sympy.Expr:
    """``expression`` expanded, every Sum split over the terms of its expanded summand, factors free of its
    indices taken out, indices in no factor counted (Σ_(p ≤ d) c = d·c), a summand that factors over the
    indices written as the product of the sums, and the indices renamed in order (ι1, ι2, …): two sums of
    the same terms are then the same sympy object, and a difference of equal sums expands to 0."""

    def split(total: sympy.Sum) -> sympy.Expr:
        indices = [limit[0] for limit in total.limits]
        if any(set(indices) & (low.free_symbols | high.free_symbols) for _, low, high in total.limits):
            return total  # a range that depends on another index: the sums do not factor
        result = sympy.Integer(0)
        for term in sympy.Add.make_args(sympy.expand(total.function)):
            outside, by_index, joint = [], {index: [] for index in indices}, []
            for factor in sympy.Mul.make_args(term):
                touched = [index for index in indices if index in factor.free_symbols]
                (outside if not touched else by_index[touched[0]] if len(touched) == 1 else joint).append(factor)
            product = sympy.Mul(*outside)
            if joint:  # a factor couples several indices: one sum over the indices the term involves
                body = sympy.Mul(*joint, *(f for fs in by_index.values() for f in fs))
                kept = [limit for limit in total.limits if limit[0] in body.free_symbols]
                for index, low, high in total.limits:
                    if index not in body.free_symbols:
                        product *= high - low + 1
                renamed = {limit[0]: sympy.Symbol(f"ι{k + 1}", integer=True) for k, limit in enumerate(kept)}
                result += product * sympy.Sum(body.xreplace(renamed),
                                              *[(renamed[i], low, high) for i, low, high in kept])
                continue
            for index, low, high in total.limits:
                if by_index[index]:
                    fresh = sympy.Symbol("ι1", integer=True)
                    product *= sympy.Sum(sympy.Mul(*by_index[index]).xreplace({index: fresh}), (fresh, low, high))
                else:
                    product *= high - low + 1
            result += product
        return result

    expression = sympy.expand(sympy.sympify(expression))
    return sympy.expand(expression.replace(lambda e: isinstance(e, sympy.Sum), split))


def _terms(expression: sympy.Expr) -> list[sympy.Expr]:
    """The terms of a sum, its numbers together: 1 − √3/8 is one positive constant, not 1 and a negative term."""
    constant = sympy.Add(*(term for term in sympy.Add.make_args(expression) if term.is_number))
    return [*([constant] if constant != 0 else []), *(t for t in sympy.Add.make_args(expression) if not t.is_number)]


class _Prover:
    """Proofs of ``expression ≥ 0`` (or > 0) from structure and hypotheses; ``proofs`` keeps what each
    atom of the slack was proved by, for the evidence."""

    def __init__(self, atoms: Mapping[sympy.Symbol, sympy.Expr], margins: Sequence[_Margin]):
        self.atoms, self.margins = atoms, margins
        self.proofs: dict[str, str] = {}
        self.used: set[str] = set()

    def atom(self, symbol: sympy.Symbol, strict: bool) -> str | None:
        reason = self.sign(self.atoms[symbol], strict)
        if reason is not None:
            self.proofs[f"{symbol} = {self.atoms[symbol]}"] = reason
            return f"{symbol} ({'> 0' if strict else '≥ 0'}, below)"
        return None

    def hypothesis(self, expression: sympy.Expr, strict: bool) -> str | None:
        for margin in self.margins:
            if margin.indexed:
                wild = {index: sympy.Wild(f"w_{index}") for index in _index_symbols(margin.margin)}
                matched = (sympy.expand(expression).match(sympy.expand(margin.margin.xreplace(wild))) is not None
                           and (margin.strict or not strict))
            else:
                rest = sympy.expand(expression - margin.margin)
                matched = rest.is_number and (rest.is_positive is True or (
                    rest.is_nonnegative is True and (margin.strict or not strict)))
            if matched:
                self.used.add(margin.text)
                return f"hypothesis {margin.text}"
        return None

    def sign(self, expression: sympy.Expr, strict: bool = False) -> str | None:
        """Why ``expression`` ≥ 0 (> 0 where ``strict``), or None: unproved, not false."""
        expression = sympy.sympify(expression)
        if expression.is_number:
            holds = expression.is_positive if strict else expression.is_nonnegative
            return f"the number {expression}" if holds is True else None
        if expression in self.atoms:
            return self.atom(expression, strict)
        found = self.hypothesis(expression, strict) or self.structure(expression, strict)
        if found is None and isinstance(expression, (sympy.Add, sympy.Mul, sympy.Pow)):
            # The same quantity expanded, then factored: a form whose sign shows term by term.
            for form in (sympy.expand(expression), sympy.factor(expression)):
                if found is None and form != expression and isinstance(form, (sympy.Add, sympy.Mul, sympy.Pow)):
                    found = self.structure(form, strict)
        return found

    def structure(self, expression: sympy.Expr, strict: bool) -> str | None:
        if isinstance(expression, sympy.Abs):
            return "absolute value" if not strict or self.sign(expression.args[0], True) else None
        if isinstance(expression, sympy.Pow):
            base, exponent = expression.args
            if exponent.is_integer and exponent.is_even and exponent > 0 and not strict:
                return "square" if exponent == 2 else "even power"
            if exponent.is_positive and self.sign(base, strict):
                return "power of a nonnegative" if not strict else "power of a positive"
            if exponent.is_negative and self.sign(base, True):
                return "reciprocal of a positive"
            return None
        if isinstance(expression, sympy.Add):
            terms = _terms(expression)
            reasons = [self.sign(term) for term in terms]
            if any(reason is None for reason in reasons):
                return None
            if strict and not any(self.sign(term, True) for term in terms):
                return None
            return "sum of: " + "; ".join(dict.fromkeys(reasons))
        if isinstance(expression, sympy.Mul):
            reasons = [self.sign(factor, strict) for factor in expression.args]
            return None if any(r is None for r in reasons) else "product of: " + "; ".join(dict.fromkeys(reasons))
        if isinstance(expression, sympy.Sum):
            # Σ_(i=a)^b counts b − a + 1 terms, negatively when b < a − 1 (Karr's convention, sympy's): a sum of
            # nonnegative terms is ≥ 0 when every range has a length ≥ 0, and > 0 when each is nonempty.
            if any(self.sign(high - low + (0 if strict else 1)) is None for _, low, high in expression.limits):
                return None
            reason = self.sign(expression.function, strict)
            return None if reason is None else f"sum over {', '.join(str(limit[0]) for limit in expression.limits)} " \
                                               f"of ({reason})"
        return None


def _margins(premises: Sequence[sympy.core.relational.Relational]) -> tuple[list[_Margin], list[sympy.Eq]]:
    margins, equalities = [], []
    for premise in premises:
        if isinstance(premise, sympy.Eq):
            equalities.append(premise)
            continue
        if not isinstance(premise, (sympy.Ge, sympy.Gt, sympy.Le, sympy.Lt)):
            raise ClaimDefinitionError(f"a premise is a sympy relation (≥, >, ≤, <, =), not {premise!r}")
        larger, smaller = premise.gts, premise.lts
        margins.append(_Margin(larger - smaller, isinstance(premise, (sympy.Gt, sympy.Lt)), str(premise), False))
    margins = [_Margin(_substitute_equalities(m.margin, equalities), m.strict, m.text,
                       bool(_index_symbols(m.margin))) for m in margins]
    return margins, equalities


def _under_premises(expression: sympy.Expr, margins: Sequence[_Margin], equalities: Sequence[sympy.Eq]) -> sympy.Expr:
    """``expression`` with the equalities among the premises substituted and |x| = x for every symbol x that
    a premise x ≥ 0 (or x > 0) makes nonnegative; then in the canonical form of sums, over one denominator."""
    expression = _substitute_equalities(expression, equalities)
    nonnegative = [m.margin for m in margins if isinstance(m.margin, sympy.Symbol)]
    expression = expression.xreplace({sympy.Abs(symbol): symbol for symbol in nonnegative})
    numerator, _ = sympy.fraction(sympy.together(_canonical_sums(expression)))
    return _canonical_sums(numerator)


def symbolic_inequality(name: str, slack: Callable[[], Slack], premises: Sequence[Any], concrete_cases: Sequence[Any],
                        decide: Callable[[Any], str | None], describe: Callable[[Any], Any], *,
                        relies_on: Sequence[str], part: str | None = None) -> Check:
    """Certified for all sizes when ``slack()``'s rewriting equals its target under ``premises`` (sympy
    relations: the hypotheses the claim states as objects; an equality is used as a rewriting, x ≥ 0 makes
    |x| = x) and is proved ≥ 0 (> 0 where strict) term by term by ``_Prover``: every nonnegativity from
    structure or a premise, none from a declaration. Otherwise refuted by the first of ``concrete_cases``
    that ``decide`` (exact) finds false, else inconclusive: an unproved inequality is no counterexample.
    The evidence lists the premises and each atom with its proof."""

    def run(ctx: Context) -> Outcome:
        found = slack()
        margins, equalities = _margins(premises)
        prover = _Prover(found.atoms, margins)
        difference = _under_premises(found.rewritten.xreplace(dict(found.atoms)) - found.target, margins, equalities)
        undefined = sorted(str(s) for s in _plain_symbols(found.rewritten) - set(found.atoms)
                           - set().union(*(m.margin.free_symbols for m in margins)))
        reason = prover.sign(found.rewritten, found.strict) if difference == 0 else None
        # Each term (or factor) of the rewriting with its proof, beside the atoms' proofs.
        parts = _terms(found.rewritten) if isinstance(found.rewritten, sympy.Add) else found.rewritten.args
        terms = {str(part): prover.sign(part) or "unproved" for part in parts} \
            if isinstance(found.rewritten, (sympy.Add, sympy.Mul)) else {}
        # The premises the identity used: equalities that rewrite something, x ≥ 0 where |x| occurs.
        identity = found.rewritten.xreplace(dict(found.atoms)) - found.target
        rewrote = [str(equality) for equality in equalities
                   if any(_substitute_equalities(x, [equality]) != _canonical_sums(x)
                          for x in (identity, *(p.gts - p.lts for p in premises if p not in equalities)))]
        rewrote += [m.text for m in margins if isinstance(m.margin, sympy.Symbol) and identity.has(sympy.Abs(m.margin))]
        evidence = {**found.steps, "target": str(found.target), "rewritten": str(found.rewritten),
                    "premises": [str(p) for p in premises],
                    "rewriting_equals_target": difference == 0 or f"no: the difference is {difference}",
                    "nonnegative": {**prover.proofs, **terms}, "premises_used": sorted({*prover.used, *rewrote}),
                    "method": "sympy: the rewriting equals the target under the premises, and every term of it is "
                              f"proved {'> 0' if found.strict else '≥ 0'} from squares, absolute values, sums and "
                              "products of proved terms, and the premises; no symbol's sign is taken on trust"}
        if reason is None and undefined:
            evidence["symbols_neither_atoms_nor_in_premises"] = undefined
        if reason is not None:
            evidence["proof"] = reason
            return Outcome(Verdict.CERTIFIED, "the slack equals a rewriting proved "
                           f"{'> 0' if found.strict else '≥ 0'} term by term, for symbolic sizes", evidence,
                           scope=ALL_SIZES, relies_on=tuple(relies_on))
        for case in concrete_cases:
            failure = decide(case)
            if failure is not None:
                return Outcome(Verdict.REFUTED, f"the slack is not proved nonnegative, and a pinned case fails: "
                               f"{failure}", evidence, counterexample={"case": describe(case), "reason": failure})
        return Outcome(Verdict.INCONCLUSIVE, "the slack is not proved nonnegative, and no pinned case fails", evidence)

    return Check(name, "symbolic", run, part)
