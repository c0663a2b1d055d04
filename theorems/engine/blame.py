"""Whose code a failure is, and where: the suite's, or a claim package's (another project's
paper, ``--package``), named by the file:line of its code.

A check that raises is a defect, never a verdict. In the suite's own claims it is an internal
error; in another project's claims, raised in that project's code, it is that project's error,
and the message points at the line of its code that raised (the deepest frame in its files),
not at the suite's machinery that called it. A claim definition found malformed while it runs
(a side of an identity that is no matrix, scalar or array) names the function that built it.
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

SUITE = __name__.split(".", 1)[0]  # theorems
# A traceback kept in a crash entry (a worker's message, report.json): its head and tail when longer,
# since an exception's message may quote a whole object.
TRACEBACK_CHARACTERS = 20_000


def location(filename: str, line: int) -> str:
    """``path:line``, the path relative to the working directory where it lies inside it."""
    path = Path(filename)
    try:
        path = path.resolve().relative_to(Path.cwd().resolve())
    except (OSError, ValueError):  # outside the working directory: the path as Python names it
        pass
    return f"{path}:{line}"


def defined_at(function: Callable[..., Any]) -> str | None:
    """``path:line`` where ``function`` is defined, or None when it has no Python code of its own
    (a builtin, a callable object)."""
    while isinstance(function, functools.partial):
        function = function.func
    code = getattr(function, "__code__", None)
    return location(code.co_filename, code.co_firstlineno) if code is not None else None


def _chain(error: BaseException) -> Iterator[BaseException]:
    """``error``, then the exceptions it was raised from or while handling, each once."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or (None if error.__suppress_context__ else error.__context__)


def raised_at(error: BaseException, package: str) -> str | None:
    """``path:line`` of the deepest frame in ``package``'s files of the traceback of ``error`` (or
    of the first exception of its chain that has one); None when its code is in none."""
    from .environment import imported_from  # (it imports numpy; the registry, which imports this, must not)

    files = imported_from(package) or _found(package)

    def inside(filename: str) -> bool:
        path = Path(filename).resolve()
        return any(path == file or file in path.parents for file in files)

    for exception in _chain(error):
        frames = [frame for frame in traceback.extract_tb(exception.__traceback__) if inside(frame.filename)]
        if frames:
            return location(frames[-1].filename, frames[-1].lineno)
    return None


def _found(package: str) -> list[Path]:
    """Where ``package``, not imported (its import failed), would be imported from, importing
    nothing."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    return [Path(folder).resolve() for folder in spec.submodule_search_locations or ()] or \
        ([Path(spec.origin).resolve()] if spec.has_location and spec.origin else [])


def traceback_text(error: BaseException) -> str:
    """``error``'s traceback, chained, as Python prints it; its head and tail when it is longer than
    ``TRACEBACK_CHARACTERS``."""
    text = "".join(traceback.format_exception(error))
    if len(text) <= TRACEBACK_CHARACTERS:
        return text
    half = TRACEBACK_CHARACTERS // 2
    return f"{text[:half]}\n… ({len(text) - 2 * half} characters left out) …\n{text[-half:]}"
