"""Object coverage: which objects of a claim's subject each check ran, how, and at what sizes.

A certificate speaks for the objects it evaluated, at the sizes it evaluated them: a broken
object that no certifying check ever called, or called only at small sizes, leaves the
certificate standing. So the runner measures instead of trusting. Every object of a claim's
subject that can be traced is wrapped (``traced``) before the checks are built from it, and
each call made while a check runs is recorded in that check's ``CheckCoverage``:

- *symbolic* when an argument is a sympy expression with free symbols (a size or a parameter
  as a symbol, a matrix expression of symbolic shape), so the call stands for every value of
  them; an explicit matrix of symbols has a concrete size and is not symbolic;
- *concrete* otherwise, with its sizes: each int argument by value, each array or matrix
  by its dimensions, each other sequence by its length, kept as the largest per parameter.

Which functions of an object ran is recorded too: the object itself, or each method of an
instance and each function it holds in a field (the code paths of a two-faced object), and the
lines each runs under symbolic calls.

``apply_rule`` then decides, part by part, what the certifying checks cover (issue 36):

1. A part certified for all sizes has every object of the part (``Claim.parts``, else the
   objects its checks take; always those its all-sizes certificates take) called symbolically
   inside one of its all-sizes certificates, and
   every function of such an object that runs anywhere in the claim runs symbolically there.
   A constant, or an object that cannot be traced, counts when the certificate takes it.
2. A part that does not meet rule 1, or whose certificates are bounded, is certified for the
   sizes its certifying checks actually ran its objects at: its scope is generated from the
   recorded calls (``"detbool ran at A ≤ 4×4"``), never typed. The check's own words for
   its range stay in the result as its stated range.
3. A part with an object that no certifying check of it evaluated at all is not certified.

Objects are wrapped by delegation: a function by a function, an instance of a class of the
claim's own code by a copy whose class is a traced subclass (so ``isinstance`` and attribute
reads are unchanged). Numbers, strings, arrays, sympy and library objects are not wrapped: a
check that takes them reads them whole.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import sys
import textwrap
import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import sympy

from .verdicts import ALL_SIZES, Outcome, Verdict

# Classes from these packages are read whole, never traced: their instances are data (arrays,
# expressions, numbers) or library machinery whose identity other code relies on.
_LIBRARY_ROOTS = frozenset({"builtins", "numpy", "sympy", "torch", "scipy", "fractions", "decimal", "flint",
                            "collections", "enum", "functools", "mpmath", "hypothesis", "matplotlib", "typing"})


@dataclass
class ObjectUse:
    """How one check used one object of the subject."""

    traced: bool = True
    calls: int = 0
    symbolic_calls: int = 0
    # parameter (or "A[0]" for an array's first dimension, "len(xs)" for a sequence) → largest value
    largest: dict[str, int] = field(default_factory=dict)
    functions: set[str] = field(default_factory=set)
    symbolic_functions: set[str] = field(default_factory=set)
    # The lines of the functions that ran at symbolic arguments (file, line), and those of them that ran
    # there: a branch no symbolic call takes is a face of the object that no all-sizes proof saw.
    lines: set[tuple[str, int]] = field(default_factory=set)
    symbolic_lines: set[tuple[str, int]] = field(default_factory=set)

    def record(self, function: str, symbolic: bool, sizes: Mapping[str, int]) -> None:
        self.calls += 1
        self.functions.add(function)
        if symbolic:
            self.symbolic_calls += 1
            self.symbolic_functions.add(function)
            return
        for name, value in sizes.items():
            if value > self.largest.get(name, -1):
                self.largest[name] = value

    def merge(self, other: ObjectUse) -> None:
        """Add the calls of ``other`` (the same object's, recorded in another process)."""
        self.calls += other.calls
        self.symbolic_calls += other.symbolic_calls
        self.functions |= other.functions
        self.symbolic_functions |= other.symbolic_functions
        self.lines |= other.lines
        self.symbolic_lines |= other.symbolic_lines
        for name, value in other.largest.items():
            self.largest[name] = max(value, self.largest.get(name, value))

    @property
    def concrete_calls(self) -> int:
        return self.calls - self.symbolic_calls

    def to_json(self) -> dict[str, Any]:
        if not self.traced:
            return {"traced": False}
        return {"calls": self.calls, "symbolic_calls": self.symbolic_calls,
                "largest": dict(sorted(self.largest.items())), "functions": sorted(self.functions),
                **({"symbolic_functions": sorted(self.symbolic_functions),
                    "symbolic_lines": f"{len(self.symbolic_lines & self.lines)} of {len(self.lines)}"}
                   if self.symbolic_functions else {})}


class CheckCoverage(dict):
    """Object name → ``ObjectUse`` for one check run: every object the check takes, called or not."""

    def to_json(self) -> dict[str, Any]:
        return {name: use.to_json() for name, use in sorted(self.items())}


_RECORDING: ContextVar[CheckCoverage | None] = ContextVar("theorems_object_coverage", default=None)


def merge_into_current(recorded: CheckCoverage) -> None:
    """Add calls recorded elsewhere (a chunk of the check run as a task of the cluster,
    ``fanout``) to the check recording here, so that coverage never depends on where chunks ran."""
    current = _RECORDING.get()
    if current is None:
        return
    for name, use in recorded.items():
        current.setdefault(name, ObjectUse()).merge(use)


@contextlib.contextmanager
def recording(takes: Iterable[str], traceable: Callable[[str], bool]) -> Iterator[CheckCoverage]:
    """Record the calls of traced objects made inside the block: every object of ``takes`` gets
    an entry, marked untraced where ``traceable(name)`` is false (a constant, a library object)."""
    coverage = CheckCoverage({name: ObjectUse(traced=traceable(name)) for name in takes})
    token = _RECORDING.set(coverage)
    try:
        yield coverage
    finally:
        _RECORDING.reset(token)


# --- what a call's arguments say ------------------------------------------------------------

def _symbolic(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` stands for every size or parameter value: a sympy scalar expression with
    free symbols, or a matrix expression whose shape has them (``MatrixSymbol("A", n, m)``),
    alone or inside a list, tuple or dict. An explicit matrix or array has a concrete size
    whatever its entries are: a 5×5 matrix of symbols says nothing about 6×6."""
    if isinstance(value, sympy.MatrixBase):
        return False
    if isinstance(value, sympy.MatrixExpr):
        return any(getattr(extent, "free_symbols", None) for extent in value.shape)
    if isinstance(value, sympy.Basic):
        return bool(value.free_symbols)
    if depth > 2:
        return False
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_symbolic(entry, depth + 1) for entry in value)
    if isinstance(value, dict):
        return any(_symbolic(entry, depth + 1) for entry in value.values())
    return False


def _shape(value: Any) -> tuple[int, ...] | None:
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple) and all(isinstance(d, int | np.integer) for d in shape):
        return tuple(int(d) for d in shape)
    if callable(getattr(value, "nrows", None)) and callable(getattr(value, "ncols", None)):  # python-flint
        return int(value.nrows()), int(value.ncols())
    if hasattr(shape, "__iter__"):  # torch.Size
        with contextlib.suppress(TypeError, ValueError):
            return tuple(int(d) for d in shape)
    return None


def _sizes(name: str, value: Any, into: dict[str, int]) -> None:
    if isinstance(value, bool | np.bool_):
        return
    if isinstance(value, int | np.integer):
        into[name] = int(value)
        return
    shape = _shape(value)
    if shape is not None:
        for axis, extent in enumerate(shape):
            into[f"{name}[{axis}]"] = extent
        return
    if isinstance(value, tuple) and value and all(isinstance(v, int | np.integer) and not isinstance(v, bool)
                                                  for v in value):
        for position, entry in enumerate(value):
            into[f"{name}[{position}]"] = int(entry)
        return
    if isinstance(value, list | tuple) and value:
        into[f"len({name})"] = len(value)


def _parameter_names(function: Callable) -> list[str]:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def call_sizes(function: Callable, args: tuple, kwargs: Mapping[str, Any],
               names: list[str] | None = None) -> dict[str, int]:
    """The sizes of a concrete call of ``function``, per parameter (``names``: its parameters, when known)."""
    names, sizes = _parameter_names(function) if names is None else names, {}
    for position, value in enumerate(args):
        _sizes(names[position] if position < len(names) else f"arg{position}", value, sizes)
    for key, value in kwargs.items():
        _sizes(key, value, sizes)
    return sizes


def is_symbolic(args: tuple, kwargs: Mapping[str, Any]) -> bool:
    """Whether a call stands for every size or parameter value (``_symbolic`` of an argument)."""
    return _symbolic(args) or _symbolic(dict(kwargs))


def _recorder(object_name: str, function_name: str, function: Callable) -> Callable:
    """``function`` wrapped to record each call made while a check records."""
    names = _parameter_names(function)

    def record(*args, **kwargs):
        coverage = _RECORDING.get()
        if coverage is not None:
            use = coverage.get(object_name)
            if use is None:  # called from a check that does not take it (through another object)
                use = coverage[object_name] = ObjectUse()
            symbolic = is_symbolic(args, kwargs)
            use.record(function_name, symbolic, {} if symbolic else call_sizes(function, args, kwargs, names))
            if symbolic:
                use.lines |= _line_obligations(function)
                with _lines_run(function, use.symbolic_lines):
                    return function(*args, **kwargs)
        return function(*args, **kwargs)

    return record


# --- the lines a symbolic call runs ---------------------------------------------------------

def _plain_function(function: Callable) -> Any:
    while isinstance(function, functools.partial):
        function = function.func
    return getattr(function, "__func__", function)


def _code_objects(code: types.CodeType) -> list[types.CodeType]:
    """A code object and every one nested in it (lambdas, comprehensions, inner functions)."""
    found = [code]
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            found += _code_objects(constant)
    return found


@functools.cache
def _line_obligations(function: Callable) -> frozenset[tuple[str, int]]:
    """The lines of ``function`` (and of the code nested in it) that a symbolic call must run for
    the call to stand for every concrete one: every executable line but the ``def`` lines and the
    statements that only raise or assert (a rejected input is no value)."""
    code = getattr(_plain_function(function), "__code__", None)
    if code is None:
        return frozenset()
    exempt: set[int] = set()
    with contextlib.suppress(OSError, TypeError, SyntaxError):
        source, first = inspect.getsourcelines(_plain_function(function))
        for node in ast.walk(ast.parse(textwrap.dedent("".join(source)))):
            if isinstance(node, ast.Raise | ast.Assert):
                exempt.update(range(node.lineno + first - 1, node.end_lineno + first))
    lines = set()
    for nested in _code_objects(code):
        lines |= {(nested.co_filename, line) for _, _, line in nested.co_lines()
                  if line is not None and line != nested.co_firstlineno and line not in exempt}
    return frozenset(lines)


# The code objects whose lines are being recorded, each to the set of its object's use.
_WATCHED: dict[types.CodeType, set[tuple[str, int]]] = {}


def _trace_calls(frame, event, arg):
    lines = _WATCHED.get(frame.f_code)
    if lines is None:
        return None

    def trace_lines(frame, event, arg):
        if event == "line":
            lines.add((frame.f_code.co_filename, frame.f_lineno))
        return trace_lines

    return trace_lines


@contextlib.contextmanager
def _lines_run(function: Callable, into: set[tuple[str, int]]) -> Iterator[None]:
    """Record into ``into`` the lines of ``function`` that run inside the block (``sys.settrace``,
    in this thread, only while a symbolic call runs; a tracer already set is restored after)."""
    code = getattr(_plain_function(function), "__code__", None)
    added = [] if code is None else [nested for nested in _code_objects(code) if nested not in _WATCHED]
    for nested in added:
        _WATCHED[nested] = into
    previous = sys.gettrace()
    if added and previous is not _trace_calls:
        sys.settrace(_trace_calls)
    try:
        yield
    finally:
        if added and previous is not _trace_calls:
            sys.settrace(previous)
        for nested in added:
            del _WATCHED[nested]


# --- wrapping the subject's objects ---------------------------------------------------------

def _library(cls: type) -> bool:
    return cls.__module__.split(".", 1)[0] in _LIBRARY_ROOTS


def own_methods(cls: type) -> dict[str, Callable]:
    """The methods an instance's class (and its non-library bases) defines, ``__call__`` included."""
    methods: dict[str, Callable] = {}
    for base in reversed(cls.__mro__):
        if base is object or _library(base):
            continue
        for name, value in vars(base).items():
            if inspect.isfunction(value) and (not name.startswith("__") or name == "__call__"):
                methods[name] = value
    return methods


def traceable(value: Any) -> bool:
    """Whether ``traced`` can wrap ``value``: a function (or other callable of the claim's code),
    or an instance of a class of the claim's code with methods of its own."""
    if inspect.isclass(value) or isinstance(value, TracedFunction):
        return False
    if inspect.isfunction(value) or inspect.ismethod(value) or isinstance(value, functools.partial):
        return True
    # (an instance is traced as a copy of another class: only plain objects copy that way)
    cls = type(value)
    return cls.__new__ is object.__new__ and not _library(cls) and bool(own_methods(cls) or _callable_fields(value))


def _callable_fields(instance: Any) -> dict[str, Callable]:
    """The functions an instance holds as attributes (a dataclass's ``density`` field): code of
    the object as much as its methods are."""
    return {name: value for name, value in getattr(instance, "__dict__", {}).items()
            if inspect.isfunction(value) or isinstance(value, functools.partial)}


_TRACED_CLASSES: dict[tuple[type, str], type] = {}


def _traced_class(cls: type, object_name: str) -> type:
    """A subclass of ``cls`` whose own methods record their calls as functions of ``object_name``.
    It pickles as the plain instance traced again where it is unpickled (``fanout``)."""
    key = (cls, object_name)
    if key not in _TRACED_CLASSES:
        def reduce_ex(self, protocol):
            return traced, (object_name, _as_class(self, cls))

        namespace = {name: _wrap_method(object_name, name, method) for name, method in own_methods(cls).items()}
        namespace["__reduce_ex__"] = reduce_ex
        namespace["__module__"] = cls.__module__
        _TRACED_CLASSES[key] = type(cls.__name__, (cls,), namespace)
    return _TRACED_CLASSES[key]


def _as_class(instance: Any, cls: type) -> Any:
    """A shallow copy of ``instance`` whose class is ``cls`` (its attributes, or its slots)."""
    plain = object.__new__(cls)
    if hasattr(instance, "__dict__"):
        plain.__dict__.update(vars(instance))
    for base in cls.__mro__:
        for slot in getattr(base, "__slots__", ()):
            if hasattr(instance, slot):
                object.__setattr__(plain, slot, getattr(instance, slot))
    return plain


def _wrap_method(object_name: str, method_name: str, method: Callable) -> Callable:
    recorded = _recorder(object_name, method_name, method)
    return functools.wraps(method)(recorded)


class TracedFunction:
    """A function of the subject, recording its calls: it compares, hashes and pickles as the
    function itself, so a table keyed by the object still finds it (and a check that looks its
    object up instead of calling it shows as one that never evaluated it)."""

    __slots__ = ("__wrapped__", "_function_name", "_name", "_recorded")

    def __init__(self, name: str, function: Callable, function_name: str | None = None):
        self.__wrapped__, self._name, self._function_name = function, name, function_name
        plain = function.func if isinstance(function, functools.partial) else function
        self._recorded = _recorder(name, function_name or getattr(plain, "__name__", name), function)

    def __call__(self, *args, **kwargs):
        return self._recorded(*args, **kwargs)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.__wrapped__, attribute)

    def __eq__(self, other: object) -> bool:
        return self.__wrapped__ == (other.__wrapped__ if isinstance(other, TracedFunction) else other)

    def __hash__(self) -> int:
        return hash(self.__wrapped__)

    def __reduce__(self):  # traced in the process that unpickles it too (``fanout``)
        return TracedFunction, (self._name, self.__wrapped__, self._function_name)

    def __repr__(self) -> str:
        return repr(self.__wrapped__)


def traced(name: str, value: Any) -> Any:
    """``value`` wrapped so that its calls are recorded as uses of the subject's object ``name``
    (``value`` itself where it is not ``traceable``)."""
    if not traceable(value):
        return value
    if inspect.isfunction(value) or inspect.ismethod(value) or isinstance(value, functools.partial):
        return TracedFunction(name, value)
    clone = _as_class(value, _traced_class(type(value), name))
    for field_name, function in _callable_fields(value).items():  # recorded as the object's "field_name"
        object.__setattr__(clone, field_name, TracedFunction(name, function, field_name))
    return clone


def traced_subject(subject: Mapping[str, Any]) -> dict[str, Any]:
    return {name: traced(name, value) for name, value in subject.items()}


# --- the rule ------------------------------------------------------------------------------

@dataclass
class PartCover:
    """What the rule decided for one part: its scope (None: the part is not certified by what ran)
    and why, when it differs from what the checks stated."""

    part: str
    objects: tuple[str, ...]
    stated: list[str]
    scope: str | None
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"part": self.part, "objects": list(self.objects), "stated": self.stated, "scope": self.scope,
                **({"reason": self.reason} if self.reason else {})}


def _merged_largest(uses: Iterable[ObjectUse]) -> dict[str, int]:
    largest: dict[str, int] = {}
    for use in uses:
        for name, value in use.largest.items():
            largest[name] = max(value, largest.get(name, value))
    return largest


def _extents(largest: Mapping[str, int]) -> str:
    """``{"A[0]": 4, "A[1]": 3, "d": 2}`` as ``"A ≤ 4×3, d ≤ 2"``: each dimension's largest value."""
    grouped: dict[str, dict[int, int]] = {}
    for key, value in largest.items():
        base, bracket, axis = key.partition("[")
        grouped.setdefault(base, {})[int(axis[:-1]) if bracket else -1] = value
    pieces = []
    for base, axes in sorted(grouped.items()):
        scalar = axes.pop(-1, None)
        if scalar is not None:
            pieces.append(f"{base} ≤ {scalar}")
        if axes:
            pieces.append(f"{base} ≤ {'×'.join(str(axes[axis]) for axis in sorted(axes))}")
    return ", ".join(pieces)


def derived_scope(objects: Iterable[str], coverages: list[CheckCoverage], stated: str = "") -> str:
    """The sizes certifying checks ran each object at, from their recorded calls, largest per
    argument: ``"detbool ran at A ≤ 4×4"``, "; " between objects. It says where the objects ran,
    not that every smaller instance did: the checks' own words for their cases stay beside it. An
    object called without any size argument (a scalar parameter, a choice) ran at the points the
    checks ``stated`` (their bounded words), which then stand for it."""
    pieces, sizeless, calls = [], [], 0
    for name in objects:
        uses = [coverage[name] for coverage in coverages if name in coverage and coverage[name].traced]
        concrete = [use for use in uses if use.concrete_calls]
        sizes = _extents(_merged_largest(concrete))
        if sizes:
            pieces.append(f"{name} ran at {sizes}")
        elif concrete:
            sizeless.append(name)
            calls += sum(use.concrete_calls for use in concrete)
    if sizeless:
        pieces.append(stated or f"{', '.join(sizeless)} ran {calls}× without a size argument")
    return "; ".join(pieces)


def _uncovered_all_sizes(objects: tuple[str, ...], all_sizes: list[tuple[Any, CheckCoverage]],
                         everywhere: Mapping[str, set[str]]) -> list[str]:
    """Why the all-sizes certificates of a part do not cover its objects (empty: they do)."""
    reasons = []
    for name in objects:
        uses = [(check, coverage[name]) for check, coverage in all_sizes if name in coverage]
        if not uses:
            reasons.append(f"{name} is taken by no all-sizes certificate of the part")
            continue
        if not any(use.traced for _, use in uses):
            continue  # a constant, or an object read whole: taking it is evaluating it
        symbolic = set().union(*(use.symbolic_functions for _, use in uses))
        if not symbolic:
            reasons.append(f"{name} is never evaluated at symbolic sizes by an all-sizes certificate")
            continue
        unproved = sorted(everywhere.get(name, set()) - symbolic)
        if unproved:
            reasons.append(f"{name}'s {', '.join(unproved)} runs in the claim but never at symbolic sizes")
            continue
        required = set().union(*(use.lines for _, use in uses))
        missed = sorted(required - set().union(*(use.symbolic_lines for _, use in uses)))
        if missed:
            where = ", ".join(str(line) for _, line in missed[:6]) + (", …" if len(missed) > 6 else "")
            reasons.append(f"{name}'s line{'s' if len(missed) > 1 else ''} {where} ({Path(missed[0][0]).name}) never "
                           "run at symbolic sizes: a face of it no all-sizes certificate saw")
    return reasons


def apply_rule(results: list, parts: Mapping[str, tuple[str, ...]]) -> list[PartCover]:
    """Rewrite the scopes of the certified outcomes of ``results`` (``runner.CheckResult``s with
    their ``coverage``) by the rule of the module docstring, part by part; ``parts`` maps a part
    to the objects its statement is about (missing parts: the objects their checks take).
    Returns what was decided for each certified part."""
    everywhere: dict[str, set[str]] = {}
    for result in results:
        for name, use in result.coverage.items():
            everywhere.setdefault(name, set()).update(use.functions)
    by_part: dict[str, list] = {}
    for result in results:
        by_part.setdefault(result.check.part, []).append(result)
    decided = []
    for part, members in by_part.items():
        certifying = [r for r in members if not r.check.corroborating and r.outcome.verdict is Verdict.CERTIFIED]
        if not certifying:
            continue
        stated = list(dict.fromkeys(r.outcome.scope for r in certifying))
        all_sizes = [(r.check, r.coverage) for r in certifying if r.outcome.scope == ALL_SIZES]
        # A declaration names what the statement is about where that differs from what its checks take: a
        # hypothesis that only a float check takes, a proof's formula that only a bounded check reads. What an
        # all-sizes certificate takes is never left out: it must evaluate that at symbolic sizes.
        declared = parts.get(part) or tuple(name for r in members for name in r.check.takes)
        objects = tuple(dict.fromkeys([*declared, *(name for check, _ in all_sizes for name in check.takes)]))
        reasons = _uncovered_all_sizes(objects, all_sizes, everywhere) if all_sizes else []
        if all_sizes and not reasons:
            decided.append(PartCover(part, objects, stated, ALL_SIZES))
            continue
        coverages = [r.coverage for r in certifying]
        unevaluated = [name for name in objects
                       if not any(name in c and (c[name].calls or not c[name].traced) for c in coverages)]
        if unevaluated:
            cover = PartCover(part, objects, stated, None, "no certifying check evaluated "
                              + ", ".join(unevaluated) + ("; " + "; ".join(reasons) if reasons else ""))
        else:
            bounded = "; ".join(s for s in stated if s != ALL_SIZES)
            scope = derived_scope(objects, coverages, bounded) or bounded
            cover = PartCover(part, objects, stated, scope or None, "; ".join(reasons))
        for result in certifying:
            result.outcome = _narrowed(result.outcome, cover)
        decided.append(cover)
    return decided


def _narrowed(outcome: Outcome, cover: PartCover) -> Outcome:
    if cover.scope is None:
        return Outcome(Verdict.SUPPORTED, f"{outcome.summary} [not certified: {cover.reason}]", outcome.evidence,
                       figures=outcome.figures)
    summary = outcome.summary if not cover.reason else f"{outcome.summary} [narrowed: {cover.reason}]"
    return Outcome(outcome.verdict, summary, outcome.evidence, outcome.counterexample, outcome.certificate,
                   outcome.figures, cover.scope, outcome.relies_on)



def cell(use: Mapping[str, Any] | None) -> str:
    """One object × check cell of the coverage matrix, from an ``ObjectUse.to_json()``: how the
    check used the object."""
    if use is None:
        return ""
    if not use.get("traced", True):
        return "taken whole"
    if not use["calls"]:
        return "not called"
    concrete = use["calls"] - use["symbolic_calls"]
    at = f"at {_extents(use['largest']) or 'points without a size'}" if concrete else ""
    if use["symbolic_calls"]:
        return "symbolic" + (f"; {at}" if at else "")
    return at


def matrix(checks: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The object × check matrix of a claim from its checks' records (``CheckResult.to_json()``):
    a row per object that some check took, a cell per check (``cell``)."""
    objects = list(dict.fromkeys(name for check in checks for name in check.get("coverage", {})))
    return [{"object": name, "cells": {check["check"]: cell(check.get("coverage", {}).get(name)) for check in checks}}
            for name in objects]


def cached(function: Callable | None = None, *, maxsize: int | None = None) -> Callable:
    """``functools.lru_cache`` for claim code, keeping coverage a function of the seed: the calls of
    subject objects made while a value is computed are kept with it and counted again at every
    hit, so a check that finds its value cached (another check, an earlier run in this process)
    records the same calls as one that computed it. ``@cached`` or ``@cached(maxsize=N)``."""
    def decorate(compute: Callable) -> Callable:
        @functools.lru_cache(maxsize=maxsize)
        def with_calls(*args, **kwargs):
            with recording((), lambda name: True) as used:
                return compute(*args, **kwargs), used

        @functools.wraps(compute)
        def replayed(*args, **kwargs):
            value, used = with_calls(*args, **kwargs)
            merge_into_current(used)
            return value

        replayed.cache_clear, replayed.cache_info = with_calls.cache_clear, with_calls.cache_info
        return replayed

    return decorate if function is None else decorate(function)
