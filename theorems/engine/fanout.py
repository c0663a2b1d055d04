"""One check's work split into chunks: tasks of the cluster when the claim runs on one, else a loop.

A check with many independent pieces (the configurations of an exhaustive sweep, the draws of
a search past it) hands them to ``map_chunks``. Where its claim runs as a task of a Dask
cluster (``--scheduler``), each chunk becomes a task of its own, which any worker may run;
elsewhere, or when a chunk is quick, the chunks run one after the other in this process. The results come back in the
order of the chunks either way, and a chunk's result depends on the chunk alone, so a check
that merges them in order gives the same evidence for any chunking and any number of workers.
The chunks' keys name the claim's task, which names its run (``cluster``): never content-derived,
since another client scattering the same chunk and then releasing it would take this one's data.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from . import coverage

T = TypeVar("T")
R = TypeVar("R")

# A chunk that takes less than this runs here: a task costs milliseconds of scheduling and
# serialization, and the suite's sweeps at ci decide a chunk in far less.
WORTHWHILE_S = 0.1
# Above the claims' priorities (their group's rank), so that a running claim's chunks go first.
CHUNK_PRIORITY = 1_000_000


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


def _up_to_stop(results: Iterable[R], stop: Callable[[R], bool] | None) -> list[R]:
    """``results`` in order, up to and including the first for which ``stop`` is true."""
    taken = []
    for result in results:
        taken.append(result)
        if stop is not None and stop(result):
            break
    return taken


def _run_pickled(payload: bytes):
    """A chunk run as a task: its result, and the calls of the claim's objects it made
    (``coverage``), which the check's own process adds to its record."""
    import cloudpickle

    function, chunk = cloudpickle.loads(payload)
    with coverage.recording((), lambda name: True) as used:
        return function(chunk), used


def _merged(task_result):
    result, used = task_result
    coverage.merge_into_current(used)
    return result


def _pickled(function: Callable, chunks: Sequence) -> list[bytes] | None:
    """Each chunk with ``function`` as one pickled object (Dask would serialize a list's items one
    by one: lemma10's 10,847 classes took 0.55–2.7 s that way, 0.13–0.3 s whole); None when one
    does not pickle (python-flint's matrices do not), and the chunks run here."""
    import cloudpickle

    try:
        return [cloudpickle.dumps((function, chunk)) for chunk in chunks]
    except Exception:  # pickle raises TypeError, PicklingError or AttributeError, by object
        return None


def chunk_keys(owner: str, count: int) -> tuple[list[str], list[str]]:
    """The keys of ``count`` chunks' scattered data and of their tasks, sent by the task ``owner``
    (a claim's, which holds its run's id): unique to this call, so that no other run, nor another
    map of this claim, ever holds or releases one of them."""
    call = f"{owner}-chunks-{uuid.uuid4().hex[:8]}"
    return [f"{call}-data-{index}" for index in range(count)], [f"{call}-task-{index}" for index in range(count)]


def submit_chunks(client, payloads: list[bytes], owner: str) -> list:
    """The futures of ``_pickled`` chunks as tasks of ``client``'s cluster, keyed by ``chunk_keys``.
    The chunks are scattered first: sent from this worker to the one that runs each chunk, not
    through the scheduler inside the task graph (slow for large chunks, and Dask warns of it)."""
    data_keys, task_keys = chunk_keys(owner, len(payloads))
    data = client.scatter(dict(zip(data_keys, payloads, strict=True)))
    return client.map(_run_pickled, [data[key] for key in data_keys], key=task_keys, pure=False,
                      priority=CHUNK_PRIORITY)


def map_chunks(function: Callable[[T], R], chunks: Sequence[T], stop: Callable[[R], bool] | None = None) -> list[R]:
    """``[function(chunk) for chunk in chunks]``, in order. On a cluster the first chunk runs
    here, and if it took ``WORTHWHILE_S`` or more the others become tasks of their own.
    ``function`` must depend on its chunk alone.

    With ``stop``, the results end at the first one for which ``stop(result)`` is true (a sweep's
    first failing chunk): a loop runs no chunk past it, a cluster cancels the tasks past it."""
    started = time.perf_counter()
    results = _up_to_stop(map(function, chunks[:1]), stop)
    if len(chunks) <= 1 or (stop is not None and stop(results[0])):
        return results
    rest = chunks[1:]
    quick = time.perf_counter() - started < WORTHWHILE_S
    payloads = None if quick or not on_cluster_worker() else _pickled(function, rest)
    if payloads is None:
        return results + _up_to_stop(map(function, rest), stop)  # map is lazy: nothing runs past the stop
    from distributed import get_worker, worker_client

    owner = str(get_worker().get_current_task())  # theorems-<run id>-<claim id>
    # worker_client secedes this task from the worker's thread pool while it waits, so a
    # single-threaded worker runs chunks too instead of idling behind its own claim; the chunks
    # go before the claims still queued, which would otherwise run first and keep this one waiting.
    with worker_client() as client:
        futures = submit_chunks(client, payloads, owner)
        try:
            return results + _up_to_stop((_merged(future.result()) for future in futures), stop)
        finally:
            client.cancel(futures)  # those past the stop; the others have finished and are read
