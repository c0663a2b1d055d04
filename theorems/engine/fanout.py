"""One check's work split into chunks: tasks of the cluster when the claim runs on one, else a loop.

A check with many independent pieces (the configurations of an exhaustive sweep, the draws of
a search past it) hands them to ``map_chunks``. Where its claim runs as a task of a Dask
cluster (``--scheduler``), each chunk becomes a task of its own, which any worker may run;
elsewhere the chunks run one after the other in this process. The results come back in the
order of the chunks either way, and a chunk's result depends on the chunk alone, so a check
that merges them in order gives the same evidence for any chunking and any number of workers.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

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


def map_chunks(function: Callable[[T], R], chunks: Sequence[T]) -> list[R]:
    """``[function(chunk) for chunk in chunks]``: on a cluster, each chunk a task of its own.
    ``function`` must be picklable by cloudpickle (a closure is) and depend on its chunk alone."""
    if len(chunks) <= 1 or not on_cluster_worker():
        return [function(chunk) for chunk in chunks]
    from distributed import worker_client

    # worker_client secedes this task from the worker's thread pool while it waits, so a
    # single-threaded worker runs chunks too instead of idling behind its own claim.
    with worker_client() as client:
        futures = client.map(function, list(chunks), pure=False)
        return client.gather(futures)
