"""The heavy libraries, imported when first used: torch (seconds), matplotlib and scipy.stats
(a fraction of a second each) serve some claims only, and a command that lists the claims, or
checks one that needs none of them, should not wait for them.

    from theorems.lazy import torch
    torch.zeros(3)      # torch is imported here, the first time

Each name stands for its module: reading an attribute imports the module (once) and reads the
attribute there, a submodule included (``matplotlib.figure.Figure``). Code that runs when its
module is imported (a default argument, a class's base, a table of functions) must not read
them: ``tasks.import_every_suite_module`` imports every module of the suite before the first
claim runs. The suite imports these libraries only through this module
(``tests/test_lazy.py``), so that ``on_import`` reaches torch however late a claim loads it.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Callable, Iterator
from types import ModuleType

# Actions waiting for a module to be imported (``on_import``), by top-level module name.
_waiting: dict[str, list[Callable[[ModuleType], None]]] = {}


def load(name: str) -> ModuleType:
    """Module ``name``, imported now if it is not yet; the actions waiting for its top-level
    module run first (``on_import``)."""
    module = importlib.import_module(name)
    top = name.partition(".")[0]
    if _waiting.get(top):
        for action in _waiting.pop(top):
            action(sys.modules[top])
    return module


class Deferred:
    """A module imported when an attribute is first read from it."""

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attribute: str):
        module = load(self._name)
        try:
            return getattr(module, attribute)
        except AttributeError as missing:  # or a submodule its package does not import
            submodule = f"{self._name}.{attribute}"
            if attribute.startswith("__"):
                raise
            try:
                return load(submodule)
            except ModuleNotFoundError as error:
                if error.name != submodule:
                    raise
                raise missing from None

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported when first used>"


torch = Deferred("torch")
nn = Deferred("torch.nn")
matplotlib = Deferred("matplotlib")
scipy_stats = Deferred("scipy.stats")

# What a command that runs no claim needing them never imports (``tests/test_lazy.py``).
HEAVY = ("torch", "matplotlib", "scipy.stats")


@contextlib.contextmanager
def on_import(name: str, action: Callable[[ModuleType], None]) -> Iterator[None]:
    """Within the block, ``action(module)`` for the top-level module ``name``: now if it is
    imported, else when this module first loads it (``runner.torch_threads`` gives torch the
    running claim's thread count before its first kernel, without importing it for a claim
    that never uses it)."""
    if name in sys.modules:
        action(sys.modules[name])
        yield
        return
    waiting = _waiting.setdefault(name, [])
    waiting.append(action)
    try:
        yield
    finally:
        if action in waiting:
            waiting.remove(action)
