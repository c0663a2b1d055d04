"""Object coverage: which objects of a claim's subject each check ran, how, and at what sizes.

A certificate speaks for the objects it evaluated, at the sizes it evaluated them: a broken
object that no certifying check ever called, or called only at small sizes, leaves the
certificate standing. So the runner measures instead of trusting. Every object of a claim's
subject that can be traced is wrapped (``traced``) before the checks are built from it, and
each call made while a check runs is recorded in that check's ``CheckCoverage``:

- *symbolic* in the parameters given a sympy expression with free symbols (a size or a parameter
  as a symbol, a matrix expression of symbolic shape) or a python-flint polynomial, so the
  call stands for every value of them; an explicit matrix of symbols has a concrete size and is
  not symbolic;
- with the sizes of its concrete arguments: each int by value, each array or matrix by its
  dimensions, each other sequence by its length. The maximal configurations are kept (the sizes
  that ran together), apart for the calls that were symbolic in some parameter.

Which functions of an object ran is recorded too: the object itself, or each method of an
instance and each function it holds in a field (the code paths of a two-faced object), and the
lines and the ways of each branch each runs under symbolic calls.

``apply_rule`` then decides, part by part, what the certifying checks cover (issue 36):

1. A part certified for all sizes has every object of the part (``Claim.parts``, else the
   objects its checks take; always those its all-sizes certificates take) called symbolically
   inside one of its all-sizes certificates, every function of such an object that runs
   anywhere in the claim runs symbolically there, and under those calls every line of it and
   both ways of every branch ran (raise and assert lines aside). A constant, or an object that
   cannot be traced, counts when the certificate takes it.
2. A part that does not meet rule 1, or whose certificates are bounded, is certified for the
   size configurations its certifying checks actually ran its objects at: its scope is generated
   from the recorded calls (``"detbool ran at A ≤ 4×4"``, ``"width ran at (c0 ≤ 3, c2 ≤ 1) or
   (c0 ≤ 2, c2 ≤ 2)"``), never typed; a call symbolic in a parameter counts by its concrete
   sizes when the object's symbolic calls meet rule 1's test of functions, lines and branches,
   and for nothing otherwise. The check's own words for its range stay in the result as its
   stated range, and stand for an object that ran without a size (they only narrow).
3. A part with an object that no certifying check of it evaluated at all, or with a function
   of an object that runs in the claim but in none of its certifying checks, is not certified.

Objects are wrapped by delegation: a function by a function, an instance of a class of the
claim's own code by a copy whose class is a traced subclass (so ``isinstance`` and attribute
reads are unchanged). Numbers, strings, arrays, sympy and library objects are not wrapped: a
check that takes them reads them whole.
"""

from __future__ import annotations

import ast
import contextlib
import dis
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

import flint
import numpy as np
import sympy

from .verdicts import ALL_SIZES, Outcome, Verdict

# Classes from these packages are read whole, never traced: their instances are data (arrays,
# expressions, numbers) or library machinery whose identity other code relies on.
_LIBRARY_ROOTS = frozenset({"builtins", "numpy", "sympy", "torch", "scipy", "fractions", "decimal", "flint",
                            "collections", "enum", "functools", "mpmath", "hypothesis", "matplotlib", "typing"})


Configuration = tuple[tuple[str, int], ...]  # a call's sizes, sorted: (("A[0]", 4), ("A[1]", 4), ("k", 2))


def _dominates(larger: Configuration, smaller: Configuration) -> bool:
    """Whether a call at ``larger`` was at least as large as one at ``smaller`` in every size of it."""
    sizes = dict(larger)
    return all(key in sizes and value <= sizes[key] for key, value in smaller)


def _add_maximal(maxima: set[Configuration], configuration: Configuration) -> None:
    """Keep ``maxima`` the calls' maximal configurations: the sizes that ran together, never a box
    of per-argument maxima that holds configurations no call had (c0 = 3 with c2 = 1, and
    c0 = 2 with c2 = 2, is not c0 = 3 with c2 = 2)."""
    if any(_dominates(kept, configuration) for kept in maxima):
        return
    maxima -= {kept for kept in maxima if _dominates(configuration, kept)}
    maxima.add(configuration)


# python-flint's univariate polynomials: exact certificates pass p as one (giannou2023's gap in p)
_FLINT_POLYNOMIALS = tuple(getattr(flint, name) for name in ("fmpz_poly", "fmpq_poly", "nmod_poly", "fmpz_mod_poly")
                           if hasattr(flint, name))


@dataclass
class ObjectUse:
    """How one check used one object of the subject."""

    traced: bool = True
    calls: int = 0
    symbolic_calls: int = 0
    # parameter (or "A[0]" for an array's first dimension, "len(xs)" for a sequence) → largest value
    largest: dict[str, int] = field(default_factory=dict)
    # The maximal size configurations of the concrete calls, and of the concrete arguments of the
    # symbolic calls (a size fixed while p is a symbol), with the parameters that were symbols there.
    configurations: set[Configuration] = field(default_factory=set)
    symbolic_configurations: set[Configuration] = field(default_factory=set)
    symbolic_parameters: set[str] = field(default_factory=set)
    functions: set[str] = field(default_factory=set)
    symbolic_functions: set[str] = field(default_factory=set)
    # What of the functions that ran at symbolic arguments must run there (their lines, and both
    # ways of each branch), and what did: a face no symbolic call takes is one no proof saw.
    lines: set[tuple] = field(default_factory=set)
    symbolic_lines: set[tuple] = field(default_factory=set)

    def record(self, function: str, sizes: Mapping[str, int], symbolic: Iterable[str] = ()) -> None:
        """A call of ``function`` with ``sizes`` (of its concrete arguments) and ``symbolic``, the
        parameters it got as symbols."""
        self.calls += 1
        self.functions.add(function)
        for name, value in sizes.items():
            if value > self.largest.get(name, -1):
                self.largest[name] = value
        configuration = tuple(sorted(sizes.items()))
        symbolic = set(symbolic)
        if symbolic:
            self.symbolic_calls += 1
            self.symbolic_functions.add(function)
            self.symbolic_parameters |= symbolic
            _add_maximal(self.symbolic_configurations, configuration)
        else:
            _add_maximal(self.configurations, configuration)

    def merge(self, other: ObjectUse) -> None:
        """Add the calls of ``other`` (the same object's, recorded in another process)."""
        self.calls += other.calls
        self.symbolic_calls += other.symbolic_calls
        self.functions |= other.functions
        self.symbolic_functions |= other.symbolic_functions
        self.symbolic_parameters |= other.symbolic_parameters
        self.lines |= other.lines
        self.symbolic_lines |= other.symbolic_lines
        for name, value in other.largest.items():
            self.largest[name] = max(value, self.largest.get(name, value))
        for mine, theirs in ((self.configurations, other.configurations),
                             (self.symbolic_configurations, other.symbolic_configurations)):
            for configuration in theirs:
                _add_maximal(mine, configuration)

    @property
    def concrete_calls(self) -> int:
        return self.calls - self.symbolic_calls

    def to_json(self) -> dict[str, Any]:
        if not self.traced:
            return {"traced": False}
        return {"calls": self.calls, "symbolic_calls": self.symbolic_calls,
                "largest": dict(sorted(self.largest.items())), "functions": sorted(self.functions),
                **({"configurations": [dict(c) for c in sorted(self.configurations)]}
                   if len(self.configurations) > 1 else {}),
                **({"symbolic_functions": sorted(self.symbolic_functions),
                    "symbolic_parameters": sorted(self.symbolic_parameters),
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
    free symbols, a matrix expression whose shape has them (``MatrixSymbol("A", n, m)``), or a
    python-flint polynomial of degree ≥ 1, alone or inside a list, tuple or dict. An explicit
    matrix or array has a concrete size whatever its entries are: a 5×5 matrix of symbols says
    nothing about 6×6."""
    if isinstance(value, sympy.MatrixBase):
        return False
    if isinstance(value, sympy.MatrixExpr):
        return any(getattr(extent, "free_symbols", None) for extent in value.shape)
    if isinstance(value, sympy.Basic):
        return bool(value.free_symbols)
    if isinstance(value, _FLINT_POLYNOMIALS):  # a polynomial in p stands for every value of p
        return value.degree() >= 1
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


def _integers(value: Any) -> tuple[int, ...] | None:
    """The entries of a tuple of ints (a kernel's shape, in-degrees): sizes by their values. (An
    integer array is data, a diagonal or a mask: it is sized by its shape.)"""
    if isinstance(value, tuple) and value and all(isinstance(v, int | np.integer) and not isinstance(v, bool)
                                                  for v in value):
        return tuple(int(entry) for entry in value)
    return None


def _sizes(name: str, value: Any, into: dict[str, int]) -> None:
    if isinstance(value, bool | np.bool_):
        return
    if isinstance(value, int | np.integer):
        into[name] = int(value)
        return
    entries = _integers(value)
    if entries is not None:
        for position, entry in enumerate(entries):
            into[f"{name}({position})"] = entry
        return
    shape = _shape(value)
    if shape is not None:
        for axis, extent in enumerate(shape):
            into[f"{name}[{axis}]"] = extent
        return
    if isinstance(value, list | tuple):  # (an empty one too: a kernel of no dimensions is not a 1-D one)
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
    named = [*((names[position] if position < len(names) else f"arg{position}", value)
               for position, value in enumerate(args)), *kwargs.items()]
    for name, value in named:
        if _symbolic(value):  # (reading a shape can raise: a sympy Indexed at a symbolic index)
            continue
        _sizes(name, value, sizes)
    return sizes


def is_symbolic(args: tuple, kwargs: Mapping[str, Any]) -> bool:
    """Whether a call stands for every size or parameter value (``_symbolic`` of an argument)."""
    return _symbolic(args) or _symbolic(dict(kwargs))


def symbolic_parameters(function: Callable, args: tuple, kwargs: Mapping[str, Any],
                        names: list[str] | None = None) -> list[str]:
    """The parameters of ``function`` that a call gives a symbolic argument (``_symbolic``)."""
    names = _parameter_names(function) if names is None else names
    return [*(names[position] if position < len(names) else f"arg{position}"
              for position, value in enumerate(args) if _symbolic(value)),
            *(key for key, value in kwargs.items() if _symbolic(value))]


def _recorder(object_name: str, function_name: str, function: Callable) -> Callable:
    """``function`` wrapped to record each call made while a check records."""
    names = _parameter_names(function)

    def record(*args, **kwargs):
        coverage = _RECORDING.get()
        if coverage is not None:
            use = coverage.get(object_name)
            if use is None:  # called from a check that does not take it (through another object)
                use = coverage[object_name] = ObjectUse()
            symbolic = symbolic_parameters(function, args, kwargs, names)
            use.record(function_name, call_sizes(function, args, kwargs, names), symbolic)
            if symbolic:
                use.lines |= _obligations(function)
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


def _exempt_lines(function: Callable) -> set[int]:
    """The lines of statements that only raise or assert: a rejected input is no value."""
    exempt: set[int] = set()
    with contextlib.suppress(OSError, TypeError, SyntaxError):
        source, first = inspect.getsourcelines(_plain_function(function))
        for node in ast.walk(ast.parse(textwrap.dedent("".join(source)))):
            if isinstance(node, ast.Raise | ast.Assert):
                exempt.update(range(node.lineno + first - 1, node.end_lineno + first))
    return exempt


def _branch_destinations(code: types.CodeType, exempt: set[int]) -> dict[int, int]:
    """Offset → line of the instructions each conditional jump of ``code`` goes to, either way
    (``x if c else y``, ``a and b``, ``[x for x in xs if x]``): a branch inside one line is a face of the
    object as much as a line is."""
    instructions = list(dis.get_instructions(code))
    line, lines = None, {}
    for instruction in instructions:  # (an instruction without a line of its own belongs to the last)
        line = instruction.positions.lineno or line
        lines[instruction.offset] = line
    destinations = {}
    for index, instruction in enumerate(instructions):
        # (a loop's exit is left to the lines after it: where it lands differs between Python versions)
        if "JUMP_IF" not in instruction.opname and not instruction.opname.startswith("POP_JUMP"):
            continue
        following = instructions[index + 1].offset if index + 1 < len(instructions) else None
        for offset in (instruction.argval, following):
            if isinstance(offset, int) and lines.get(offset) is not None and lines[offset] not in exempt:
                destinations[offset] = lines[offset]
    return destinations


@functools.cache
def _watch_plan(function: Callable) -> tuple[tuple[types.CodeType, dict[int, int]], ...]:
    """The code objects of ``function`` (itself and the code nested in it), each with its branch
    destinations."""
    code = getattr(_plain_function(function), "__code__", None)
    if code is None:
        return ()
    exempt = _exempt_lines(function)
    return tuple((nested, _branch_destinations(nested, exempt)) for nested in _code_objects(code))


@functools.cache
def _obligations(function: Callable) -> frozenset[tuple]:
    """What a symbolic call of ``function`` must run for the call to stand for every concrete
    one: every executable line but the ``def`` lines and the statements that only raise or
    assert, ``(file, line)``, and both ways of every branch, ``(file, line, code, offset)``."""
    exempt, obligations = _exempt_lines(function), set()
    for nested, destinations in _watch_plan(function):
        obligations |= {(nested.co_filename, line) for _, _, line in nested.co_lines()
                        if line is not None and line != nested.co_firstlineno and line not in exempt}
        obligations |= {(nested.co_filename, line, _code_key(nested), offset) for offset, line in destinations.items()}
    return frozenset(obligations)


def _code_key(code: types.CodeType) -> str:
    """A code object's name in a record: it pickles, and is the same in every process."""
    return f"{code.co_qualname}:{code.co_firstlineno}"


# The code objects whose lines and branches are being recorded: each to its branch destinations
# and the set of its object's use that records what ran.
_WATCHED: dict[types.CodeType, tuple[dict[int, int], set[tuple]]] = {}


def _trace_calls(frame, event, arg):
    watched = _WATCHED.get(frame.f_code)
    if watched is None:
        return None
    destinations, ran = watched
    code = frame.f_code
    key = _code_key(code)
    frame.f_trace_opcodes = bool(destinations)

    def trace_lines(frame, event, arg):
        if event == "line":
            ran.add((code.co_filename, frame.f_lineno))
        elif event == "opcode" and frame.f_lasti in destinations:
            ran.add((code.co_filename, destinations[frame.f_lasti], key, frame.f_lasti))
        return trace_lines

    return trace_lines


@contextlib.contextmanager
def _lines_run(function: Callable, into: set[tuple]) -> Iterator[None]:
    """Record into ``into`` the lines and branch destinations of ``function`` that run inside the
    block (``sys.settrace``, in this thread, only while a symbolic call runs; a tracer already
    set is restored after)."""
    added = [nested for nested, _ in _watch_plan(function) if nested not in _WATCHED]
    for nested, destinations in _watch_plan(function):
        if nested in added:
            _WATCHED[nested] = (destinations, into)
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
    # object → the maximal size configurations it ran at, where the scope was generated from them
    ran: dict[str, list[dict[str, int]]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"part": self.part, "objects": list(self.objects), "stated": self.stated, "scope": self.scope,
                **({"reason": self.reason} if self.reason else {}), **({"ran": self.ran} if self.ran else {})}


def _extents(largest: Mapping[str, int]) -> str:
    """``{"A[0]": 4, "A[1]": 3, "d": 2, "k(0)": 3, "k(1)": 1}`` as ``"A ≤ 4×3, d ≤ 2, k ≤ (3, 1)"``:
    each dimension's largest value, each entry's of a tuple of sizes."""
    grouped: dict[tuple[str, str], dict[int, int]] = {}
    for key, value in largest.items():
        opening = next((mark for mark in "[(" if mark in key and not key.startswith("len(")), "")
        base, _, axis = key.partition(opening) if opening else (key, "", "")
        grouped.setdefault((base, opening), {})[int(axis[:-1]) if opening else -1] = value
    pieces = []
    for (base, opening), axes in sorted(grouped.items()):
        if not opening:
            pieces.append(f"{base} ≤ {axes[-1]}")
        elif opening == "[":
            pieces.append(f"{base} ≤ {'×'.join(str(axes[axis]) for axis in sorted(axes))}")
        else:
            pieces.append(f"{base} ≤ ({', '.join(str(axes[axis]) for axis in sorted(axes))})")
    return ", ".join(pieces)


_LISTED = 4  # maximal configurations a scope lists; past that it names their box and the record lists them


def _configurations(maxima: Iterable[Configuration]) -> str:
    """Maximal size configurations as a scope: ``"A ≤ 4×4"``, or ``"(c0 ≤ 2, c2 ≤ 2) or (c0 ≤ 3,
    c2 ≤ 1)"`` where no single call was largest in every size; past ``_LISTED`` of them, how many
    and the box that holds them, which they do not fill."""
    described = sorted({_extents(dict(configuration)) for configuration in maxima} - {""})
    if len(described) <= 1:
        return "".join(described)
    if len(described) <= _LISTED:
        return " or ".join(f"({each})" for each in described)
    box: dict[str, int] = {}
    for configuration in maxima:
        for key, value in configuration:
            box[key] = max(value, box.get(key, value))
    return f"{len(described)} maximal size configurations within {_extents(box)} (listed in object_coverage)"


def _ran_at(name: str, coverages: list[CheckCoverage], symbolic: bool) -> tuple[list[Configuration], int, int]:
    """The maximal size configurations at which certifying checks ran object ``name``, how many
    calls count, and how many of those were symbolic in some parameter: those count by their
    concrete sizes when ``symbolic`` (the object's symbolic calls met the rule), as
    configurations of their own (a size left out there was a symbol, not a smaller value)."""
    uses = [coverage[name] for coverage in coverages if name in coverage and coverage[name].traced]
    concrete: set[Configuration] = set()
    at_symbols: set[Configuration] = set()
    for use in uses:
        for configuration in use.configurations:
            _add_maximal(concrete, configuration)
        for configuration in use.symbolic_configurations if symbolic else ():
            _add_maximal(at_symbols, configuration)
    symbolic_calls = sum(use.symbolic_calls for use in uses) if symbolic else 0
    return sorted(concrete | at_symbols), sum(use.concrete_calls for use in uses) + symbolic_calls, symbolic_calls


def derived_scope(objects: Iterable[str], coverages: list[CheckCoverage], stated: str = "",
                  symbolic: Iterable[str] = ()) -> str:
    """Where certifying checks ran each object, from their recorded calls (``_ran_at``): the
    maximal size configurations of its calls (``"detbool ran at A ≤ 4×4"``), "; " between
    objects. It says where the objects ran, not that every smaller instance did: the checks' own
    words for their cases stay beside it. What the sizes cannot say, the checks ``stated`` (their
    bounded words) say beside them: for an object that ran without any size argument (a scalar
    parameter, a choice) and for one that ran at symbols (which values of them a check then
    decided). What ran can narrow the checks' words, never widen them."""
    symbolic = set(symbolic)
    pieces, sizeless, calls, at_symbols = [], [], 0, False
    for name in objects:
        maxima, counted, symbolic_calls = _ran_at(name, coverages, name in symbolic)
        at = _configurations(maxima)
        at_symbols |= bool(symbolic_calls)
        if at:
            pieces.append(f"{name} ran at {at}")
        elif counted:
            sizeless.append(name)
            calls += counted
    if stated and (sizeless or at_symbols):
        if stated not in "; ".join(pieces):  # ("dominance ran at d ≤ 5" says "d ≤ 5" already)
            pieces.append(stated)
    elif sizeless:
        pieces.append(f"{', '.join(sizeless)} ran {calls}× without a size argument")
    return "; ".join(pieces)


def _symbolic_gaps(name: str, uses: list[ObjectUse], everywhere: Mapping[str, set[str]]) -> list[str]:
    """Why the symbolic calls of object ``name`` in ``uses`` do not stand for every value of their
    symbolic arguments (empty: they do): every function of it that runs in the claim runs at
    symbolic arguments there, and under those calls every line and both ways of every branch of
    it ran (raise and assert lines aside)."""
    symbolic = set().union(*(use.symbolic_functions for use in uses))
    if not symbolic:
        return [f"{name} is never evaluated at symbolic sizes by an all-sizes certificate"]
    unproved = sorted(everywhere.get(name, set()) - symbolic)
    if unproved:
        return [f"{name}'s {', '.join(unproved)} runs in the claim but never at symbolic sizes"]
    missed = sorted(set().union(*(use.lines for use in uses)) - set().union(*(use.symbolic_lines for use in uses)))
    if not missed:
        return []
    lines = sorted({obligation[1] for obligation in missed})
    where = ", ".join(map(str, lines[:6])) + (", …" if len(lines) > 6 else "")
    branch = " (a branch of it)" if all(len(obligation) > 2 for obligation in missed) else ""
    return [f"{name}'s line{'s' if len(lines) > 1 else ''} {where}{branch} ({Path(missed[0][0]).name}) never "
            "run at symbolic sizes: a face of it no symbolic evaluation saw"]


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
        reasons = []
        for name in objects if all_sizes else ():
            uses = [coverage[name] for _, coverage in all_sizes if name in coverage]
            if not uses:
                reasons.append(f"{name} is taken by no all-sizes certificate of the part")
            elif any(use.traced for use in uses):  # (a constant, or an object read whole: taking it is evaluating it)
                reasons += _symbolic_gaps(name, uses, everywhere)
        if all_sizes and not reasons:
            decided.append(PartCover(part, objects, stated, ALL_SIZES))
            continue
        cover = _bounded_cover(part, objects, stated, [r.coverage for r in certifying], everywhere, reasons)
        for result in certifying:
            result.outcome = _narrowed(result.outcome, cover)
        decided.append(cover)
    return decided


def _bounded_cover(part: str, objects: tuple[str, ...], stated: list[str], coverages: list[CheckCoverage],
                   everywhere: Mapping[str, set[str]], reasons: list[str]) -> PartCover:
    """Rules 2 and 3 for a part whose certificates are bounded (or failed rule 1, ``reasons``):
    a face of an object that runs in the claim but in no certifying check leaves the part
    uncertified; symbolic calls count only where they met rule 1's test of lines and branches,
    and then add the parameters they took as symbols to the generated scope."""
    reasons, unevaluated, symbolic = list(reasons), [], set()
    for name in objects:
        uses = [coverage[name] for coverage in coverages if name in coverage]
        if uses and not any(use.traced for use in uses):
            continue  # taken whole
        unrun = sorted(everywhere.get(name, set()) - set().union(*(use.functions for use in uses)))
        if unrun:
            reasons.append(f"{name}'s {', '.join(unrun)} runs in the claim but in no certifying check of the part")
            unevaluated.append(name)
            continue
        if any(use.symbolic_calls for use in uses):
            gaps = _symbolic_gaps(name, uses, everywhere)
            if gaps:
                reasons += [gap for gap in gaps if gap not in reasons]
            else:
                symbolic.add(name)
        if name not in symbolic and not any(use.concrete_calls for use in uses):
            unevaluated.append(name)
    if unevaluated:
        return PartCover(part, objects, stated, None, "no certifying check evaluated " + ", ".join(unevaluated)
                         + ("; " + "; ".join(reasons) if reasons else ""))
    bounded = "; ".join(s for s in stated if s != ALL_SIZES)
    scope = derived_scope(objects, coverages, bounded, symbolic) or bounded
    ran = {name: [dict(configuration) for configuration in _ran_at(name, coverages, name in symbolic)[0]]
           for name in objects}
    return PartCover(part, objects, stated, scope or None, "; ".join(reasons),
                     {name: configurations for name, configurations in ran.items() if any(configurations)})


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
