"""One check's work split into chunks: tasks of the cluster when the claim runs on one, else a loop.

A check with many independent pieces (the configurations of an exhaustive sweep, the draws of
a search past it) hands them to ``map_chunks``. Where its claim runs as a task of a Dask
cluster (``--scheduler``), each chunk becomes a task of its own, which any worker may run;
elsewhere the chunks run one after the other in this process. The results come back in the
order of the chunks either way, and a chunk's result depends on the chunk alone, so a check
that merges them in order gives the same evidence for any chunking and any number of workers.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def chunks_of(items: Sequence[T], size: int) -> list[Sequence[T]]:
    """``items`` in consecutive slices of ``size`` (the last may be shorter)."""
    if size < 1:
        raise ValueError(f"a chunk holds at least one item, not {size}")
    return [items[start:start + size] for start in range(0, len(items), size)]


def on_cluster_worker() -> bool:
    """Whether this code runs inside a task on a Dask worker (never true without ``distributed``
    loaded: the suite imports it only for ``--scheduler``)."""
    if sys.modules.get("distributed") is None:
        return False
    from distributed import get_worker

    try:
        get_worker()
    except ValueError:
        return False
    return True


@dataclasses.dataclass(frozen=True)
class _Whole:
    """A chunk Dask sends as one object."""

    chunk: Any


def _apply(function: Callable[[T], R], whole: _Whole) -> R:
    return function(whole.chunk)


def _up_to_stop(results: Iterable[R], stop: Callable[[R], bool] | None) -> list[R]:
    """``results`` in order, up to and including the first for which ``stop`` is true."""
    taken = []
    for result in results:
        taken.append(result)
        if stop is not None and stop(result):
            break
    return taken


def map_chunks(function: Callable[[T], R], chunks: Sequence[T], stop: Callable[[R], bool] | None = None) -> list[R]:
    """``[function(chunk) for chunk in chunks]``: on a cluster, each chunk a task of its own.
    ``function`` must be picklable by cloudpickle (a closure is) and depend on its chunk alone.

    With ``stop``, the results end at the first one for which ``stop(result)`` is true (a sweep's
    first failing chunk): a loop runs no chunk past it, a cluster cancels the tasks past it."""
    if len(chunks) <= 1 or not on_cluster_worker():
        return _up_to_stop(map(function, chunks), stop)  # map is lazy: nothing runs past the stop
    from distributed import worker_client

    # worker_client secedes this task from the worker's thread pool while it waits, so a
    # single-threaded worker runs chunks too instead of idling behind its own claim.
    with worker_client() as client:
        # Each chunk travels as one object: Dask would otherwise serialize a list's items one
        # by one (10,847 classes of lemma10 took 0.55–2.7 s that way, 0.13–0.3 s whole).
        futures = client.map(functools.partial(_apply, function), [_Whole(chunk) for chunk in chunks], pure=False)
        try:
            return _up_to_stop((future.result() for future in futures), stop)
        finally:
            client.cancel(futures)  # those past the stop; the others have finished and are read
