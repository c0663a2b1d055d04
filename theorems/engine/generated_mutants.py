"""Generated mutants: mutants of a claim's subject objects that nobody chose (issue 36, item 4).

The declared broken variants (``registry.Broken``) come from the hand that wrote the checks,
and checks kill what their authors imagined. Here each subject object is mutated mechanically:

- *source mutants*, in the manner of mutmut: one mutant per site of a function's source
  (``+``↔``-``, ``*``↔``/``, ``**``→``*``; ``<``↔``<=``, ``>``↔``>=``, ``==``↔``!=``; an integer
  n → n + 1, and 1 → 0 and 2; ``x[i]`` → ``x[i + 1]`` for a name ``i``; ``and``↔``or``; ``not``
  dropped), compiled in the function's globals with its closure. Mutated are a function, a
  lambda, a ``functools.partial`` or bound method of one, and an instance: the methods its class
  defines (a copy of the instance whose class is a subclass with the mutated method) and the
  functions it holds as fields (a copy holding the mutated one). Code of the standard library
  or of an installed package is not mutated, nor text (f-strings, ``raise``), annotations and
  docstrings. At most ``SITE_CAP`` mutants per object, chosen evenly over its sites.
- a *gated perturbation* of each callable object: its genuine value on every call within the
  largest concrete sizes the genuine checks ran it at (their ``coverage``), a perturbed value
  past them or at a symbolic argument (a number + 1, one entry of an array or matrix + 1, an
  expression + 1, a boolean negated).
- a *constant mutant* of each number of the subject: the number + 1 (a boolean negated).

Each mutant replaces its object (``Claim.with_objects``); the checks that take the object are
rerun at the genuine run's context, in the claim's order, until one kills it: it refutes the
mutant, or a check that certified the genuine claim no longer certifies it (or certifies
another scope). A check that crashes or runs past its time limit kills it too, counted apart.
A survivor is *equivalent* when a machine check shows it: the same bytecode as the genuine
function (both compiled, so constant folding included), or, where the object ran at symbolic
arguments, the mutated code ran there and the genuine and mutant values simplify to the same
expression at every symbolic call and agree at every concrete call the checks made. Any other
survivor is listed with its reason and whether it changes the object within the certified
scope. Score = killed / (generated − equivalent).
"""

from __future__ import annotations
import __future__

import ast
import contextlib
import copy
import functools
import inspect
import linecache
import operator
import signal
import sys
import sysconfig
import threading
import types
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import sympy

from ..errors import CheckCrashed, TheoremsError
from .context import Context
from .coverage import call_sizes, is_symbolic, own_methods
from .registry import Claim
from .runner import ClaimResult, run_check, run_claim, torch_threads
from .verdicts import ALL_SIZES, Verdict

# Mutants per object at most, chosen evenly over its sites, so that a claim's meta stays fast.
SITE_CAP = 24
# A check rerun on a mutant may take this many times its genuine time, and at least MINIMUM_SECONDS.
SLOWDOWN = 10
MINIMUM_SECONDS = 10.0
# Calls of a mutated function kept to compare it with the genuine one: symbolic calls, concrete calls.
KEPT_CALLS = (8, 256)


class MutantFate(StrEnum):
    """What became of a generated mutant."""

    KILLED = "killed"
    CRASHED = "killed by crash"
    EQUIVALENT = "equivalent"
    SURVIVED = "survived"


class MutantKind(StrEnum):
    SOURCE = "source"
    GATED = "gated"
    CONSTANT = "constant"


class InScope(StrEnum):
    """Whether a surviving mutant changes its object within the claim's certified scope."""

    YES = "yes"
    NO = "no"
    NOT_SHOWN = "not shown"


# --- arguments: symbolic, or concrete with sizes, read as the coverage recorder reads them ----


def object_bounds(genuine: ClaimResult, name: str) -> tuple[dict[str, int], str | None] | None:
    """The largest size per parameter at which the genuine checks ran the object ``name``
    concretely (their ``coverage``), and a check certifying all sizes that ran it at symbolic
    arguments (None if none did); None where no check traced the object."""
    uses = [(result, result.coverage[name]) for result in genuine.checks
            if name in result.coverage and result.coverage[name].traced]
    if not uses:
        return None
    bounds: dict[str, int] = {}
    for _, use in uses:
        for key, size in use.largest.items():
            bounds[key] = max(bounds.get(key, size), size)
    symbolic_in = next((result.check.name for result, use in uses if use.symbolic_calls
                        and not result.check.corroborating and result.outcome.verdict is Verdict.CERTIFIED
                        and result.stated_scope == ALL_SIZES), None)
    return bounds, symbolic_in


# --- source mutants ------------------------------------------------------------------------

BINARY_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.Pow: ast.Mult}
COMPARISON_SWAPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
                    ast.NotEq: ast.Eq}
BOOLEAN_SWAPS = {ast.And: ast.Or, ast.Or: ast.And}
# Fields that hold no computation of the function: annotations and decorators.
SKIPPED_FIELDS = {"annotation", "returns", "decorator_list"}
# The name under which a mutant's probe (did the mutated code run, and at symbolic arguments?) is a free variable.
PROBE = "__mutant_probe__"
FUTURE_FLAGS = functools.reduce(operator.or_, (getattr(__future__, feature).compiler_flag
                                               for feature in __future__.all_feature_names))
INSTALLED = tuple(Path(sysconfig.get_paths()[key]).resolve() for key in ("stdlib", "platstdlib", "purelib", "platlib"))


def _is_text(node: ast.AST) -> bool:
    """Code that only builds text: f-strings, raise statements, docstrings and other bare strings."""
    return isinstance(node, ast.JoinedStr | ast.Raise) or (
        isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))


def _descendants(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes below ``node`` that compute, in source order (pre-order, fields in order)."""
    for name, value in ast.iter_fields(node):
        if name in SKIPPED_FIELDS:
            continue
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, ast.AST) and not _is_text(child):
                yield child
                yield from _descendants(child)


def _body_nodes(function_node: ast.FunctionDef | ast.Lambda) -> list[ast.AST]:
    """The nodes of a function's body (not its signature's defaults), in source order."""
    body = function_node.body if isinstance(function_node.body, list) else [function_node.body]
    return [node for statement in body if not _is_text(statement) for node in (statement, *_descendants(statement))]


def _with_op(node: ast.AST, op: type) -> ast.AST:
    changed = copy.copy(node)
    changed.op = op()
    return changed


def _with_comparison(node: ast.Compare, index: int) -> ast.Compare:
    changed = copy.copy(node)
    changed.ops = [COMPARISON_SWAPS[type(op)]() if position == index else op for position, op in enumerate(node.ops)]
    return changed


def _with_value(node: ast.Constant, value: int) -> ast.Constant:
    return ast.Constant(value)


def _next_index(node: ast.Subscript) -> ast.Subscript:
    changed = copy.copy(node)
    changed.slice = ast.BinOp(node.slice, ast.Add(), ast.Constant(1))
    return changed


def _operators(node: ast.AST) -> list[tuple[str, Callable[[ast.AST], ast.AST]]]:
    """The mutations of one node: (operator name, node → mutated node)."""
    if isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in BINARY_SWAPS:
        return [("arithmetic", functools.partial(_with_op, op=BINARY_SWAPS[type(node.op)]))]
    if isinstance(node, ast.Compare):
        return [("comparison", functools.partial(_with_comparison, index=index))
                for index, op in enumerate(node.ops) if type(op) in COMPARISON_SWAPS]
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return [("constant", functools.partial(_with_value, value=value))
                for value in ((0, 2) if node.value == 1 else (node.value + 1,))]
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Name):
        return [("index", _next_index)]
    if isinstance(node, ast.BoolOp):
        return [("boolean", functools.partial(_with_op, op=BOOLEAN_SWAPS[type(node.op)]))]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return [("not", operator.attrgetter("operand"))]
    return []


class _Replace(ast.NodeTransformer):
    """Replace one node of a tree by its mutation; with ``probe``, make the mutated code call the
    probe first (an expression is wrapped as ``probe(expression)``, a statement preceded by ``probe()``)."""

    def __init__(self, target: ast.AST, mutate: Callable[[ast.AST], ast.AST], probe: bool):
        self.target, self.mutate, self.probe = target, mutate, probe

    def visit(self, node: ast.AST):
        if node is not self.target:
            return self.generic_visit(node)
        mutated = ast.copy_location(self.mutate(node), node)
        if not self.probe:
            return mutated
        call = ast.Call(ast.Name(PROBE, ast.Load()), [mutated] if isinstance(node, ast.expr) else [], [])
        return ast.copy_location(call, node) if isinstance(node, ast.expr) else [ast.Expr(call), mutated]


def same_bytecode(first: types.CodeType, second: types.CodeType) -> bool:
    """Whether two code objects run the same instructions on the same constants and names
    (line numbers aside); nested code objects are compared the same way."""
    if (first.co_code, first.co_names, first.co_varnames, first.co_freevars, first.co_cellvars,
            getattr(first, "co_exceptiontable", b"")) != (second.co_code, second.co_names, second.co_varnames,
                                                            second.co_freevars, second.co_cellvars,
                                                            getattr(second, "co_exceptiontable", b"")):
        return False
    if len(first.co_consts) != len(second.co_consts):
        return False
    return all(same_bytecode(a, b) if isinstance(a, types.CodeType) and isinstance(b, types.CodeType)
               else (type(a), repr(a)) == (type(b), repr(b))
               for a, b in zip(first.co_consts, second.co_consts, strict=True))


def _is_project_file(filename: str | None) -> bool:
    """Code of the project under test: a source file outside the standard library and site-packages."""
    if not filename or not Path(filename).is_file():
        return False
    path = Path(filename).resolve()
    return not any(path.is_relative_to(root) for root in INSTALLED)


@functools.lru_cache(maxsize=64)
def _module_tree(filename: str) -> ast.Module | None:
    try:
        return ast.parse("".join(linecache.getlines(filename)), filename)
    except SyntaxError:
        return None


@functools.lru_cache(maxsize=64)
def _module_imports(filename: str) -> tuple[ast.stmt, ...]:
    """The import statements of a module's top level (also inside its top-level ifs and trys)."""
    tree = _module_tree(filename)
    found, statements = [], list(tree.body if tree is not None else ())
    while statements:
        statement = statements.pop(0)
        if isinstance(statement, ast.Import) or (isinstance(statement, ast.ImportFrom)
                                                 and statement.module != "__future__"):
            found.append(statement)
        elif isinstance(statement, ast.If | ast.Try):
            statements[:0] = [child for child in ast.iter_child_nodes(statement) if isinstance(child, ast.stmt)]
    return tuple(found)


def compile_function(node: ast.FunctionDef | ast.Lambda, genuine: types.FunctionType,
                     probe: Callable | None = None) -> types.FunctionType | None:
    """The function that ``node`` (a def or a lambda) defines, in ``genuine``'s globals with its
    closure, defaults and names; with ``probe`` bound to ``PROBE``. None where the free variables
    differ from the genuine function's (the node cannot be rebuilt in its place)."""
    code = genuine.__code__
    cells = dict(zip(code.co_freevars, genuine.__closure__ or (), strict=True))
    if probe is not None:
        cells[PROBE] = types.CellType(probe)
    # The free variables become locals of an enclosing scope, so that the compiler makes them free again.
    scope = ast.parse(f"def __mutant_scope__():\n    {' = '.join([*cells, 'None'])}\n    return None")
    scope_function = scope.body[0]
    if isinstance(node, ast.Lambda):
        scope_function.body[-1].value = node
    else:
        undecorated = copy.copy(node)
        undecorated.decorator_list = []
        scope_function.body.insert(1, undecorated)
        scope_function.body[-1].value = ast.Name(node.name, ast.Load())
    # The module's imports come first: the compiler calls a method of an imported name differently.
    scope.body[:0] = _module_imports(code.co_filename)
    ast.fix_missing_locations(scope)
    try:
        module = compile(scope, code.co_filename, "exec", flags=code.co_flags & FUTURE_FLAGS, dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    scope_code = next(const for const in module.co_consts if isinstance(const, types.CodeType))
    function_code = next(const for const in scope_code.co_consts if isinstance(const, types.CodeType))
    if set(function_code.co_freevars) != set(cells):
        return None
    function = types.FunctionType(function_code, genuine.__globals__, genuine.__name__, genuine.__defaults__,
                                  tuple(cells[name] for name in function_code.co_freevars))
    function.__kwdefaults__ = copy.copy(genuine.__kwdefaults__)
    for attribute in ("__qualname__", "__doc__", "__module__", "__annotations__"):
        setattr(function, attribute, getattr(genuine, attribute))
    function.__dict__.update(genuine.__dict__)
    return function


def function_node(function: types.FunctionType) -> ast.FunctionDef | ast.Lambda | None:
    """The def or lambda of ``function``'s source, found in its module's syntax tree and
    recompiled to the function's own bytecode (which tells apart lambdas on one line); None for
    code outside the project, without source, or whose source no longer rebuilds it."""
    try:
        filename = inspect.getsourcefile(function)
    except TypeError:
        return None
    tree = _module_tree(filename) if _is_project_file(filename) else None
    if tree is None:
        return None
    code = function.__code__
    if code.co_name == "<lambda>":
        candidates = [node for node in ast.walk(tree) if isinstance(node, ast.Lambda)
                      and node.lineno == code.co_firstlineno]
    else:
        candidates = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                      and node.name == code.co_name
                      and code.co_firstlineno in (node.lineno, *(d.lineno for d in node.decorator_list))]
    for node in candidates:
        rebuilt = compile_function(node, function)
        if rebuilt is not None and same_bytecode(rebuilt.__code__, code):
            return node
    return None


@dataclass(frozen=True)
class Target:
    """A function of a subject object that source mutants change: ``install`` puts a mutated
    function back into a copy of the object; a method is compared with the genuine one on the
    genuine instance (``genuine_self``) in place of the mutant's."""

    label: str
    function: types.FunctionType
    node: ast.FunctionDef | ast.Lambda
    install: Callable[[Callable], Any]
    genuine_self: Any = None


def _subclass_with(instance: Any, name: str, value: Any) -> Any:
    """A copy of ``instance`` whose class is a subclass defining ``name`` as ``value``."""
    cls = type(instance)
    subclass = type(cls.__name__, (cls,), {"__slots__": (), "__module__": cls.__module__,
                                           "__qualname__": cls.__qualname__, name: value})
    clone = copy.copy(instance)
    object.__setattr__(clone, "__class__", subclass)
    return clone


def _copy_with_field(instance: Any, name: str, value: Any) -> Any:
    clone = copy.copy(instance)
    object.__setattr__(clone, name, value)
    return clone


def _method_targets(instance: Any) -> list[Target]:
    """The methods an instance's class defines (those ``coverage`` traces), each installed in a
    subclass, and the functions the instance holds as fields, each installed in a copy."""
    cls = type(instance)
    targets = [(f"{cls.__name__}.{name}", method, functools.partial(_subclass_with, instance, name), instance)
               for name, method in own_methods(cls).items()]
    targets += [(f"{cls.__name__}.{name} (field)", member, functools.partial(_copy_with_field, instance, name), None)
                for name, member in getattr(instance, "__dict__", {}).items() if isinstance(member, types.FunctionType)]
    return [Target(label, function, node, install, genuine_self) for label, function, install, genuine_self in targets
            if (node := function_node(function)) is not None]


def source_targets(subject_object: Any) -> list[Target]:
    """The functions of a subject object that source mutants change (see the module docstring)."""
    if isinstance(subject_object, functools.partial):
        partial = subject_object
        inner = inspect.unwrap(partial.func)
        candidates = [(f"partial({getattr(inner, '__qualname__', inner)})", inner,
                       lambda f: functools.partial(f, *partial.args, **partial.keywords))]
    elif isinstance(subject_object, types.MethodType):
        bound = subject_object
        candidates = [(bound.__func__.__qualname__, bound.__func__, lambda f: types.MethodType(f, bound.__self__))]
    elif callable(subject_object) and isinstance(inspect.unwrap(subject_object), types.FunctionType):
        inner = inspect.unwrap(subject_object)
        candidates = [(inner.__qualname__, inner, lambda f: f)]
    elif not isinstance(subject_object, type) and _is_project_file(_source_file(type(subject_object))):
        return _method_targets(subject_object)
    else:
        return []
    return [Target(label, function, node, install) for label, function, install in candidates
            if isinstance(function, types.FunctionType) and (node := function_node(function)) is not None]


def _source_file(cls: type) -> str | None:
    try:
        return inspect.getsourcefile(cls)
    except TypeError:
        return None


@dataclass(frozen=True)
class SourceMutation:
    """One site of a target's source and its mutation."""

    target: Target
    position: int  # index of the node in ``_body_nodes(target.node)``
    operator: str
    mutate: Callable[[ast.AST], ast.AST]

    def tree(self, probe: bool) -> ast.FunctionDef | ast.Lambda:
        node = copy.deepcopy(self.target.node)
        site = _body_nodes(node)[self.position]
        return _Replace(site, self.mutate, probe).visit(node)

    @property
    def description(self) -> str:
        """"label, line N: `before` → `after` (operator)", a constant shown in the expression around it."""
        nodes = _body_nodes(self.target.node)
        site = nodes[self.position]
        parents = {child: node for node in nodes for child in ast.iter_child_nodes(node)}
        context = site
        while isinstance(context, ast.Constant | ast.UnaryOp | ast.Tuple) and context in parents:
            context = parents[context]
        copied = copy.deepcopy(context)
        inner = [copied, *_descendants(copied)][[context, *_descendants(context)].index(site)]
        mutated = _Replace(inner, self.mutate, probe=False).visit(copied)
        return (f"{self.target.label}, line {site.lineno}: {_shown(ast.unparse(context))} → "
                f"{_shown(ast.unparse(mutated))} ({self.operator})")


def _shown(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return f"`{text}`" if len(text) <= limit else f"`{text[:limit - 1]}…`"


def source_mutations(targets: list[Target], cap: int = SITE_CAP) -> tuple[list[SourceMutation], int]:
    """The mutations of an object's functions, at most ``cap`` chosen evenly over the sites in
    source order, and the number of mutations there were."""
    every = [SourceMutation(target, position, name, mutate) for target in targets
             for position, node in enumerate(_body_nodes(target.node)) for name, mutate in _operators(node)]
    if len(every) <= cap:
        return every, len(every)
    return [every[index * len(every) // cap] for index in range(cap)], len(every)


# --- gated perturbations -------------------------------------------------------------------


class _Unperturbable(TheoremsError):
    """A value the gate cannot perturb (None, text, an object of no known kind)."""


def _unit_entry(rows, columns) -> sympy.FunctionMatrix:
    row, column = sympy.Dummy("i", integer=True), sympy.Dummy("j", integer=True)
    return sympy.FunctionMatrix(rows, columns, sympy.Lambda((row, column), sympy.KroneckerDelta(row, 0)
                                                            * sympy.KroneckerDelta(column, 0)))


def perturbed(value: Any) -> Any:
    """``value`` changed in one place: a number + 1, a boolean negated, the first entry of an
    array or matrix + 1 (negated if boolean), a sympy expression + 1, the first perturbable item
    of a tuple or list. Raises ``_Unperturbable`` for anything else."""
    if isinstance(value, bool | np.bool_):
        return not value
    if isinstance(value, np.ndarray) and value.size:
        changed = value.copy()
        changed.flat[0] = not changed.flat[0] if value.dtype == bool else changed.flat[0] + 1
        return changed
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor) and value.numel():
        changed = value.clone()
        changed.view(-1)[0] = ~changed.view(-1)[0] if value.dtype == torch.bool else changed.view(-1)[0] + 1
        return changed
    if isinstance(value, sympy.MatrixBase) and 0 not in value.shape:
        changed = value.as_mutable()
        changed[0, 0] += 1
        return changed
    if isinstance(value, sympy.FunctionMatrix):
        variables, entry = value.lamda.variables, value.lamda.expr
        return sympy.FunctionMatrix(*value.shape, sympy.Lambda(variables, entry + sympy.KroneckerDelta(variables[0], 0)
                                                               * sympy.KroneckerDelta(variables[1], 0)))
    if isinstance(value, sympy.MatrixExpr):
        return value + _unit_entry(*value.shape)
    if isinstance(value, sympy.logic.boolalg.Boolean) and not isinstance(value, sympy.Expr):
        return sympy.Not(value)
    if isinstance(value, sympy.Basic | int | float | complex | Fraction | np.number):
        return value + 1
    if isinstance(value, tuple | list):
        for index, item in enumerate(value):
            with contextlib.suppress(_Unperturbable):
                items = [*value[:index], perturbed(item), *value[index + 1:]]
                return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if type(value).__module__.split(".", 1)[0] == "flint":  # python-flint's exact numbers and matrices
        if not callable(getattr(value, "nrows", None)):
            return value + 1
        if value.nrows() and value.ncols():
            changed = type(value)(value)
            changed[0, 0] += 1
            return changed
    raise _Unperturbable(type(value).__name__)


@dataclass
class GateCounts:
    """The calls of a gated object: within the bounds, perturbed (and in which checks), or past
    the bounds with a value the gate cannot perturb (its types)."""

    inside: int = 0
    perturbed: int = 0
    perturbed_in: set[str] = field(default_factory=set)
    unperturbable: set[str] = field(default_factory=set)
    check: str = ""


def _past(bounds: Mapping[str, int], function: Callable, args: tuple, kwargs: Mapping[str, Any]) -> bool:
    """Whether a call lies past the bounds: a symbolic argument, or a size past the largest one
    the genuine checks ran (a size they never saw at all is past them too)."""
    if is_symbolic(args, kwargs):
        return True
    return any(key not in bounds or size > bounds[key] for key, size in call_sizes(function, args, kwargs).items())


def gated(function: Callable, bounds: Mapping[str, int], counts: GateCounts) -> Callable:
    """``function`` with its value perturbed on every call past ``bounds``."""

    @functools.wraps(function)
    def gate(*args, **kwargs):
        value = function(*args, **kwargs)
        if not _past(bounds, function, args, kwargs):
            counts.inside += 1
            return value
        try:
            changed = perturbed(value)
        except _Unperturbable as error:
            counts.unperturbable.add(str(error))
            return value
        counts.perturbed += 1
        counts.perturbed_in.add(counts.check)
        return changed

    return gate


def gated_object(subject_object: Any, bounds: Mapping[str, int], counts: GateCounts) -> Any:
    """The gated perturbation of a traced object: a function, a partial or a bound method is
    wrapped; an instance becomes a copy whose class gates every method ``coverage`` traces."""
    if isinstance(subject_object, types.FunctionType | functools.partial | types.MethodType):
        return gated(subject_object, bounds, counts)
    cls = type(subject_object)
    methods = {name: gated(method, bounds, counts) for name, method in own_methods(cls).items()}
    subclass = type(cls.__name__, (cls,), {"__slots__": (), "__module__": cls.__module__,
                                           "__qualname__": cls.__qualname__, **methods})
    clone = copy.copy(subject_object)
    object.__setattr__(clone, "__class__", subclass)
    return clone


# --- running a mutant ----------------------------------------------------------------------


class _MutantTimeout(BaseException):
    """A check ran past its time limit on a mutant (a BaseException, so that no check's
    ``except Exception`` turns it into a verdict)."""


@contextlib.contextmanager
def time_limit(seconds: float):
    """Raise ``_MutantTimeout`` in the main thread after ``seconds`` (no limit in another thread,
    where signals cannot reach)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        raise _MutantTimeout(f"ran past its limit of {seconds:.3g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class CallLog:
    """The calls of a mutated function during its checks, and whether its mutated code ran."""

    symbolic: list[tuple[str, tuple, dict]] = field(default_factory=list)
    concrete: list[tuple[str, tuple, dict]] = field(default_factory=list)
    calls: int = 0
    check: str = ""
    symbolic_depth: int = 0
    reached: int = 0
    reached_symbolically: int = 0

    def probe(self, value: Any = None) -> Any:
        self.reached += 1
        self.reached_symbolically += self.symbolic_depth > 0
        return value

    @property
    def complete(self) -> bool:
        return len(self.symbolic) + len(self.concrete) == self.calls


def recording(function: Callable, log: CallLog) -> Callable:
    """``function``, its calls kept in ``log`` (up to ``KEPT_CALLS``)."""

    @functools.wraps(function)
    def record(*args, **kwargs):
        symbolic = is_symbolic(args, kwargs)
        log.calls += 1
        kept = log.symbolic if symbolic else log.concrete
        if len(kept) < KEPT_CALLS[0 if symbolic else 1]:
            kept.append((log.check, args, kwargs))
        log.symbolic_depth += symbolic
        try:
            return function(*args, **kwargs)
        finally:
            log.symbolic_depth -= symbolic

    return record


@dataclass
class GeneratedMutant:
    """One generated mutant of an object of the claim's subject and what became of it."""

    object: str
    kind: MutantKind
    description: str
    fate: MutantFate
    reason: str
    # For a survivor: whether it changes the object within the certified scope, and why.
    within_scope: tuple[InScope, str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"object": self.object, "kind": self.kind.value, "description": self.description,
                "fate": self.fate.value, "reason": self.reason,
                **({"within_certified_scope": self.within_scope[0].value, "why": self.within_scope[1]}
                   if self.within_scope else {})}


@dataclass
class ObjectMutants:
    """How many mutants one subject object gave: its source sites, those generated (the cap),
    those not rebuilt, and what was not mutated and why."""

    name: str
    sites: int = 0
    generated: int = 0
    skipped: int = 0
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"object": self.name, "sites": self.sites, "generated": self.generated, "skipped": self.skipped,
                "notes": self.notes}


@dataclass
class GeneratedReport:
    claim_id: str
    cap: int
    objects: list[ObjectMutants]
    mutants: list[GeneratedMutant]

    def count(self, *fates: MutantFate) -> int:
        return sum(mutant.fate in fates for mutant in self.mutants)

    @property
    def survivors(self) -> list[GeneratedMutant]:
        return [mutant for mutant in self.mutants if mutant.fate is MutantFate.SURVIVED]

    @property
    def concerns(self) -> list[GeneratedMutant]:
        """Survivors that change the object within the certified scope, or may."""
        return [mutant for mutant in self.survivors if mutant.within_scope and mutant.within_scope[0] is not InScope.NO]

    @property
    def score(self) -> float | None:
        """killed / (generated − equivalent), crashes counted as kills; None with nothing to kill."""
        counted = len(self.mutants) - self.count(MutantFate.EQUIVALENT)
        return self.count(MutantFate.KILLED, MutantFate.CRASHED) / counted if counted else None

    def summary(self) -> str:
        score = "n/a" if self.score is None else f"{self.score:.2f}"
        killed = self.count(MutantFate.KILLED, MutantFate.CRASHED)
        return (f"score {score} ({killed}/{len(self.mutants) - self.count(MutantFate.EQUIVALENT)}): "
                f"{len(self.mutants)} generated (at most {self.cap} source mutants per object, of "
                f"{sum(o.sites for o in self.objects)} sites; {sum(o.skipped for o in self.objects)} not rebuilt), "
                f"{killed} killed ({self.count(MutantFate.CRASHED)} by crash), "
                f"{self.count(MutantFate.EQUIVALENT)} equivalent, {len(self.survivors)} survived")

    def to_json(self) -> dict[str, Any]:
        return {"claim": self.claim_id, "score": self.score, "cap": self.cap, "generated": len(self.mutants),
                "killed": self.count(MutantFate.KILLED), "killed_by_crash": self.count(MutantFate.CRASHED),
                "equivalent": self.count(MutantFate.EQUIVALENT), "survived": len(self.survivors),
                "objects": [entry.to_json() for entry in self.objects],
                "mutants": [mutant.to_json() for mutant in self.mutants]}


@dataclass(frozen=True)
class _Genuine:
    """What the genuine run established, per check: verdict, scope and time, and which certify."""

    claim: Claim
    context: Context
    # check → (verdict, scope after the coverage rule, scope the check stated, seconds)
    outcomes: dict[str, tuple[Verdict, str | None, str | None, float]]
    certifying: frozenset[str]

    @classmethod
    def of(cls, genuine: ClaimResult) -> _Genuine:
        outcomes = {r.check.name: (r.outcome.verdict, r.outcome.scope, r.stated_scope, r.seconds)
                    for r in genuine.checks}
        certifying = frozenset(r.check.name for r in genuine.checks
                               if not r.check.corroborating and r.outcome.verdict is Verdict.CERTIFIED)
        return cls(genuine.claim, genuine.context, outcomes, certifying)

    def certifying_takers(self, name: str) -> list[str]:
        return [check.name for check in self.claim.checks if name in check.takes and check.name in self.certifying]

    def limit(self, check: str) -> float:
        return max(MINIMUM_SECONDS, SLOWDOWN * self.outcomes[check][3])


def _first_line(text: str, limit: int = 200) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= limit else line[:limit - 1] + "…"


def _run_checks(genuine: _Genuine, name: str, mutant: Any, log: CallLog | GateCounts | None = None
                ) -> tuple[MutantFate, str]:
    """Rerun the checks that take ``name`` with ``mutant`` in its place, in the claim's order,
    until one kills it (``log`` told which check runs)."""
    try:
        claim = genuine.claim.with_objects({name: mutant})
    except Exception as error:  # building the checks from the mutant is its first use
        return MutantFate.CRASHED, f"building the checks crashed: {type(error).__name__}: {_first_line(str(error))}"
    verdicts = []
    for check in claim.checks:
        if name not in check.takes:
            continue
        if log is not None:
            log.check = check.name
        try:
            with time_limit(genuine.limit(check.name)):
                outcome = run_check(check, claim.id, genuine.context).outcome
        except _MutantTimeout as error:
            return MutantFate.CRASHED, f"check {check.name!r} {error}"
        except CheckCrashed as error:  # a crash of any kind kills the mutant; named in one line
            return MutantFate.CRASHED, _first_line(str(error).replace(f" of {claim.id} crashed", " crashed"))
        except Exception as error:
            return MutantFate.CRASHED, f"check {check.name!r}: {type(error).__name__}: {_first_line(str(error))}"
        verdict, _, stated, _ = genuine.outcomes[check.name]
        if outcome.verdict is Verdict.REFUTED:
            return MutantFate.KILLED, f"refuted by {check.name!r}: {_first_line(outcome.summary)}"
        if check.name in genuine.certifying and (outcome.verdict, outcome.scope) != (verdict, stated):
            now = outcome.verdict.value + (f" ({outcome.scope})" if outcome.scope else "")
            return MutantFate.KILLED, f"{check.name!r} no longer certifies {stated}: {now}"
        verdicts.append(f"{check.name}: {outcome.verdict.value}")
    return MutantFate.SURVIVED, "; ".join(verdicts)


def _same_value(first: Any, second: Any) -> bool:
    if isinstance(first, tuple | list) and isinstance(second, tuple | list):
        return len(first) == len(second) and all(map(_same_value, first, second))
    if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
        return np.shape(first) == np.shape(second) and bool(np.all(np.asarray(first) == np.asarray(second)))
    try:
        return bool(first == second)
    except Exception:  # a comparison that cannot decide: not shown the same
        return False


def _symbolically_same(first: Any, second: Any) -> bool:
    """Whether two values of a symbolic call simplify to the same expression (entrywise for
    sequences, arrays and matrices; a matrix of symbolic shape at a symbolic entry)."""
    if isinstance(first, tuple | list) and isinstance(second, tuple | list):
        return len(first) == len(second) and all(map(_symbolically_same, first, second))
    if isinstance(first, np.ndarray) and isinstance(second, np.ndarray):
        return first.shape == second.shape and all(map(_symbolically_same, first.flat, second.flat))
    if isinstance(first, sympy.MatrixBase) and isinstance(second, sympy.MatrixBase):
        return first.shape == second.shape and all(map(_symbolically_same, first, second))
    if isinstance(first, sympy.MatrixExpr) and isinstance(second, sympy.MatrixExpr):
        row, column = sympy.Dummy("i", integer=True, nonnegative=True), sympy.Dummy("j", integer=True, nonnegative=True)
        return (sympy.simplify(first.shape[0] - second.shape[0]) == 0
                and sympy.simplify(first.shape[1] - second.shape[1]) == 0
                and _symbolically_same(first[row, column], second[row, column]))
    if isinstance(first, sympy.logic.boolalg.Boolean) and isinstance(second, sympy.logic.boolalg.Boolean):
        return first == second or sympy.simplify(sympy.Equivalent(first, second)) is sympy.true
    if isinstance(first, sympy.Expr) or isinstance(second, sympy.Expr):
        return first == second or sympy.simplify(sympy.sympify(first) - sympy.sympify(second)) == 0
    return _same_value(first, second)


@dataclass(frozen=True)
class _Comparison:
    """The mutant against the genuine function on the calls the checks made: the first call
    where their values differ (None: none does) and the check that made it."""

    difference: str | None
    check: str | None
    compared: int


def _value(function: Callable, args: tuple, kwargs: dict) -> Any:
    try:
        return function(*args, **kwargs)
    except Exception as error:  # a call that raises: its error is its value
        return f"raises {type(error).__name__}"


def _compare(target: Target, mutant: Callable, log: CallLog, seconds: float) -> _Comparison:
    """Symbolic calls by simplification, then concrete calls by equality."""
    compared = 0
    try:
        with time_limit(seconds):
            for symbolic, (check, args, kwargs) in [*((True, call) for call in log.symbolic),
                                                    *((False, call) for call in log.concrete)]:
                genuine_args = (target.genuine_self, *args[1:]) if target.genuine_self is not None else args
                genuine_value = _value(target.function, genuine_args, kwargs)
                mutant_value = _value(mutant, args, kwargs)
                compared += 1
                if not (_symbolically_same if symbolic else _same_value)(genuine_value, mutant_value):
                    sizes = call_sizes(target.function, args, kwargs)
                    where = "symbolic arguments" if symbolic else _sizes_text(sizes)
                    return _Comparison(f"at a call of {check!r} ({where}): genuine {_shown(repr(genuine_value), 60)}, "
                                       f"mutant {_shown(repr(mutant_value), 60)}", check, compared)
    except _MutantTimeout:
        return _Comparison("somewhere: comparing the values ran past the time limit", None, compared)
    return _Comparison(None, None, compared)


def _sizes_text(sizes: Mapping[str, int], limit: int = 100) -> str:
    text = ", ".join(f"{key} ≤ {size}" for key, size in sorted(sizes.items())) or "no sizes"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _within_scope(genuine: _Genuine, name: str, difference_check: str | None, agrees_everywhere_run: bool,
                  unshown: str = "the calls compared do not cover every call the checks made") -> tuple[InScope, str]:
    """Whether a surviving mutant changes the object within the certified scope, and why
    (``unshown``: why agreement within a bounded scope is not shown)."""
    takers = genuine.certifying_takers(name)
    if not takers:
        return InScope.NO, "no check that certified the genuine claim takes this object"
    if difference_check in takers:
        return InScope.YES, f"it differs at a call of the certifying check {difference_check!r}, which did not notice"
    everywhere = [check for check in takers if genuine.outcomes[check][1] == ALL_SIZES]
    if everywhere:
        return InScope.YES, f"{everywhere[0]!r} certifies all sizes, and the mutant is not shown equivalent"
    scopes = "; ".join(sorted({genuine.outcomes[check][1] or "" for check in takers}))
    if agrees_everywhere_run:
        return InScope.NO, (f"it agrees with the genuine object wherever the checks ran it, and the certified scope "
                            f"({scopes}) is what they ran")
    return InScope.NOT_SHOWN, f"the certified scope is {scopes}, and {unshown}"


def _source_mutants(genuine: _Genuine, name: str, subject_object: Any, entry: ObjectMutants,
                    cap: int) -> list[GeneratedMutant]:
    targets = source_targets(subject_object)
    if not targets:
        entry.notes.append("no source mutants: no Python function of the project's own source")
        return []
    mutations, entry.sites = source_mutations(targets, cap)
    mutants = []
    for mutation in mutations:
        log = CallLog()
        plain = compile_function(mutation.tree(probe=False), mutation.target.function)
        probed = compile_function(mutation.tree(probe=True), mutation.target.function, probe=log.probe)
        try:
            installed = None if probed is None else mutation.target.install(recording(probed, log))
        except Exception:  # an instance that cannot be copied: the mutant cannot take its place
            installed = None
        if plain is None or installed is None:
            entry.skipped += 1
            continue
        entry.generated += 1
        if same_bytecode(plain.__code__, mutation.target.function.__code__):
            mutants.append(GeneratedMutant(name, MutantKind.SOURCE, mutation.description, MutantFate.EQUIVALENT,
                                           "the same bytecode as the genuine function, both compiled"))
            continue
        fate, reason = _run_checks(genuine, name, installed, log)
        within = None
        if fate is MutantFate.SURVIVED:
            fate, reason, within = _judge_source_survivor(genuine, name, mutation.target, probed, log, reason)
        mutants.append(GeneratedMutant(name, MutantKind.SOURCE, mutation.description, fate, reason, within))
    return mutants


def _judge_source_survivor(genuine: _Genuine, name: str, target: Target, mutant: Callable, log: CallLog,
                           verdicts: str) -> tuple[MutantFate, str, str | None]:
    """Equivalent where the mutated code ran at symbolic arguments and the values agree at every
    call kept; otherwise a survivor, with its reason and its place against the certified scope."""
    reached, reached_symbolically = log.reached, log.reached_symbolically
    comparison = _compare(target, mutant, log, MINIMUM_SECONDS)
    if comparison.difference is None and reached_symbolically:
        return (MutantFate.EQUIVALENT, f"equivalent where the checks ran it: the mutated code ran at symbolic "
                f"arguments, the values simplify to the genuine ones at the {len(log.symbolic)} symbolic call(s) and "
                f"agree at the {len(log.concrete)} concrete call(s) kept", None)
    if not reached:
        reason = f"the mutated code never ran in the checks that take {name!r} ({log.calls} call(s))"
    elif comparison.difference is not None:
        reason = f"it differs {comparison.difference}, yet no check noticed"
    else:
        kept = f"all {log.calls} calls" if log.complete else f"the {comparison.compared} calls kept of {log.calls}"
        reason = (f"the mutated code ran {reached} time(s), never at symbolic arguments, and the values agree at "
                  f"{kept}")
    agrees = comparison.difference is None and (log.complete or not reached)
    return (MutantFate.SURVIVED, f"survived: {reason}; no check distinguishes it ({verdicts})",
            _within_scope(genuine, name, comparison.check, agrees))


def _gated_mutants(genuine: _Genuine, result: ClaimResult, name: str, subject_object: Any,
                   entry: ObjectMutants) -> list[GeneratedMutant]:
    coverage = object_bounds(result, name)
    if coverage is None:
        if callable(subject_object):
            entry.notes.append("no gated mutant: no check traced the object's calls")
        return []
    bounds, symbolic_in = coverage
    counts = GateCounts()
    try:
        mutant = gated_object(subject_object, bounds, counts)
    except Exception as error:  # an instance that cannot be copied
        entry.notes.append(f"no gated mutant: {type(error).__name__}: {_first_line(str(error))}")
        return []
    description = (f"{name} perturbed past {_sizes_text(bounds)} and at symbolic arguments" if bounds else
                   f"{name} perturbed at symbolic arguments and at any size (no concrete call had one)")
    fate, reason = _run_checks(genuine, name, mutant, counts)
    within = None
    if fate is MutantFate.SURVIVED:
        if not counts.perturbed and counts.unperturbable:
            entry.notes.append(f"gated mutant not counted: cannot perturb a {', '.join(sorted(counts.unperturbable))}")
            return []
        if counts.perturbed:
            reason = (f"survived: perturbed at {counts.perturbed} call(s), yet no check distinguishes it ({reason})"
                      + (f"; SHOULD BE KILLED: the object ran symbolically in the all-sizes check {symbolic_in!r}"
                         if symbolic_in else ""))
        else:
            reason = f"survived: the checks never ran it past those sizes, nor at symbolic arguments ({reason})"
        perturbed_in = sorted(counts.perturbed_in & set(genuine.certifying_takers(name)))
        within = _within_scope(genuine, name, perturbed_in[0] if perturbed_in else None, not counts.perturbed)
    entry.generated += 1
    return [GeneratedMutant(name, MutantKind.GATED, description, fate, reason, within)]


def _changed_number(value: Any) -> Any:
    """A boolean negated, a number + 1; None for anything else."""
    if isinstance(value, bool | np.bool_):
        return not value
    if isinstance(value, int | float | Fraction | np.number) or (isinstance(value, sympy.Basic) and value.is_number):
        return value + 1
    return None


def _constant_mutants(genuine: _Genuine, name: str, subject_object: Any, entry: ObjectMutants) -> list[GeneratedMutant]:
    """A number of the subject changed, or each number an instance of the project's classes holds."""
    changed = _changed_number(subject_object)
    if changed is not None:
        candidates = [(f"{name} = {changed} (genuine {subject_object})", changed)]
    elif not isinstance(subject_object, type) and _is_project_file(_source_file(type(subject_object))):
        fields = getattr(subject_object, "__dict__", {}).items()
        candidates = [(f"{name}.{field} = {number} (genuine {value})", _copy_with_field(subject_object, field, number))
                      for field, value in fields if (number := _changed_number(value)) is not None]
    else:
        return []
    mutants = []
    for description, mutant in candidates:
        entry.generated += 1
        fate, reason = _run_checks(genuine, name, mutant)
        within = None
        if fate is MutantFate.SURVIVED:
            reason = f"survived: no check distinguishes it ({reason})"
            within = _within_scope(genuine, name, None, False, "a changed number has no calls to compare")
        mutants.append(GeneratedMutant(name, MutantKind.CONSTANT, description, fate, reason, within))
    return mutants


def generated_mutation_test(claim: Claim, context: Context, genuine: ClaimResult | None = None,
                            cap: int = SITE_CAP) -> GeneratedReport:
    """Generate the mutants of every object of ``claim``'s subject that a check takes, run them
    against those checks at ``context`` (``genuine``: the claim's own result there, run here
    when not given) and say what became of each (the module docstring)."""
    # A mutant's arithmetic warns (a division by zero, an overflow): what counts is what the checks say.
    with torch_threads(), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        result = genuine if genuine is not None else run_claim(claim, context)
        state = _Genuine.of(result)
        objects, mutants = [], []
        for name, subject_object in claim.subject.items():
            entry = ObjectMutants(name)
            objects.append(entry)
            if not any(name in check.takes for check in claim.checks):
                entry.notes.append("not mutated: no check takes it")
                continue
            mutants += _source_mutants(state, name, subject_object, entry, cap)
            mutants += _gated_mutants(state, result, name, subject_object, entry)
            mutants += _constant_mutants(state, name, subject_object, entry)
    return GeneratedReport(claim.id, cap, objects, mutants)
