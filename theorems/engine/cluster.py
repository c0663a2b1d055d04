"""Claims as tasks of a Dask cluster (``--scheduler``): a laptop's ``LocalCluster``, a few
machines running ``dask scheduler`` and ``dask worker``, or a SLURM queue (dask-jobqueue).

``ClusterWorkers`` serves the interface the local process pool serves (``parallel.Workers``),
so that grouping, ordering, stop signals and results are ``parallel.drive``'s alone. Each
claim is one task (``run_claim_task``); the claims of a group follow one another, each sent
where the one before it ran, so that they share that worker's caches.

- Resources. A claim that needs a GPU (every claim of a ``--device cuda`` run) or more memory
  than a worker's share (``Claim.memory_gb_at``) is submitted with Dask resources
  (``{"GPU": 1}``, ``{"MEMORY_GB": 12}``), so only a worker started with them
  (``dask worker --resources "GPU=1,MEMORY_GB=64"``) runs it. A cluster without such a worker
  is refused before anything runs, naming the claims and what they need: never a hang.
- Faults. A worker that dies while running a claim (killed, out of memory, node lost) is the
  scheduler's to handle: it runs the task on another worker, up to its ``allowed-failures``
  (``LOCAL_ALLOWED_FAILURES`` on a local cluster), then gives up (``KilledWorker``) and the
  claims come back as crashes naming the last worker (``out of memory on worker X (limit
  400 MB)`` where its nanny restarted it for its memory limit): never a verdict, never dropped.
  The run watches the scheduler (``_watch``): a claim is never sent after its group's last
  worker once that worker is gone (a task pinned to a gone worker waits for it forever), a
  task left without any worker that can run it for ``NO_WORKER_TIMEOUT_S`` is reported, and a
  scheduler that stops answering for ``RECONNECT_TIMEOUT_S`` (the client's own reconnection)
  stops the run with the claims that finished (``SchedulerLost``): never a hang.
- Reproducibility. A worker whose code (any .py file of the suite or of a ``--package``,
  tracked or not: ``environment.software_files``), Python or dependency versions differ from
  this process's is refused with one line naming the first difference, when the run starts and
  for each claim that comes back (workers may join later): verdicts from a mixed cluster could
  not be reproduced. Each claim's record says where it ran (``ClaimResult.environment``).
- Isolation. Every key a run gives Dask holds its run id (its claims', and their chunks' data
  and tasks, ``fanout``): clients sharing a cluster never share, nor cancel, each other's keys.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import logging
import queue
import socket
import time
import uuid
from collections.abc import Callable

from ..errors import SchedulerError, SchedulerLost
from . import environment
from .context import Context
from .registry import Claim
from .runner import ClaimResult
from .tasks import ClaimOutcome, run_group

LOCAL = "local"  # --scheduler local: a LocalCluster on this machine
CONNECT_TIMEOUT_S = 10
# How long a run waits for a cluster's first worker (a SLURM job may still be queued).
FIRST_WORKER_TIMEOUT_S = 60
# A local cluster runs a claim whose worker died on a new worker twice more before giving up.
LOCAL_ALLOWED_FAILURES = 2
# How long a run's client tries to reach a scheduler it lost (restarted, its machine rebooted)
# before the run stops with the claims that finished.
RECONNECT_TIMEOUT_S = 30
# How long a claim may wait for a worker that can run it (every such worker left) before it is
# reported as crashed; and how often the run asks the scheduler about its waiting tasks.
NO_WORKER_TIMEOUT_S = 120
WATCH_INTERVAL_S = 2.0
INSTALL_HINT = "pip install 'theorems[cluster]'"

_connections: dict[str, tuple] = {}  # scheduler (or "local <n>") -> (client, local cluster or None)


def _distributed():
    try:
        import distributed
    except ImportError:
        raise SchedulerError(f"--scheduler needs Dask's distributed, which is not installed: {INSTALL_HINT}") from None
    return distributed


def _unreachable() -> tuple[type[Exception], ...]:
    """What the client raises when it has lost its scheduler."""
    return OSError, _distributed().client.ClosedClientError  # (CommClosedError is an OSError)


def _connection_key(scheduler: str, local_workers: int) -> str:
    return f"{LOCAL} {local_workers}" if scheduler == LOCAL else scheduler


def _connect(scheduler: str, local_workers: int):
    """A client of the cluster at ``scheduler`` (or of a new local one of ``local_workers``
    single-threaded processes), kept open for the rest of this process's runs."""
    distributed = _distributed()
    key = _connection_key(scheduler, local_workers)
    if key in _connections:
        return _connections[key]
    if scheduler == LOCAL:
        import dask

        # No memory limit per worker: as in the process pool, the checks cap their own sizes
        # to the memory available (``resources.capped_size``), and Dask's limit (the machine's
        # memory over the worker count) would kill a worker a process pool lets finish.
        with dask.config.set({"distributed.scheduler.allowed-failures": LOCAL_ALLOWED_FAILURES}):
            cluster = distributed.LocalCluster(n_workers=local_workers, threads_per_worker=1, processes=True,
                                               memory_limit=0, dashboard_address=None,
                                               silence_logs=logging.CRITICAL)
        client = distributed.Client(cluster, timeout=RECONNECT_TIMEOUT_S)
    else:
        cluster = None
        _refuse_unless_dask(scheduler)
        try:
            # (a client tries to reconnect to a lost scheduler for as long as its timeout; the
            # handshake has bounded the first connection by CONNECT_TIMEOUT_S)
            client = distributed.Client(scheduler, timeout=RECONNECT_TIMEOUT_S)
        except Exception as error:  # OSError, TimeoutError
            raise SchedulerError(f"cannot reach the Dask scheduler at {scheduler}: "
                                 f"{type(error).__name__}: {error}") from None
    _connections[key] = (client, cluster)
    return client, cluster


def _refuse_unless_dask(scheduler: str) -> None:
    """Refuse ``scheduler`` unless Dask's handshake with it completes within
    ``CONNECT_TIMEOUT_S``. Dask's client alone waits forever on a server that accepts and says
    nothing, and reads another protocol's first bytes as a message's length (an HTTP server's
    gave "MemoryError: Unable to allocate 3.07 EiB")."""
    import asyncio

    from distributed.comm import connect

    async def handshake() -> None:
        # (connect's own timeout bounds its attempts to connect, not always its handshake)
        comm = await asyncio.wait_for(connect(scheduler, timeout=CONNECT_TIMEOUT_S), CONNECT_TIMEOUT_S + 1)
        await comm.close()

    try:
        asyncio.run(handshake())
    except Exception as error:  # OSError, TimeoutError, MemoryError, ValueError for a malformed address
        if _answers(scheduler):
            raise SchedulerError(f"{scheduler} is not a Dask scheduler: something answers there, "
                                 f"but not with Dask's protocol within {CONNECT_TIMEOUT_S} s") from None
        raise SchedulerError(f"cannot reach the Dask scheduler at {scheduler}: "
                             f"{type(error).__name__}: {error}") from None


def _answers(scheduler: str) -> bool:
    """Whether a TCP connection to ``scheduler`` (a tcp:// address) is accepted."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        protocol, location = parse_address(scheduler)
        if protocol != "tcp":
            return False
        with socket.create_connection(parse_host_port(location), timeout=CONNECT_TIMEOUT_S):
            return True
    except (OSError, ValueError, TypeError):
        return False


def _disconnect(key: str) -> None:
    client, cluster = _connections.pop(key)
    with contextlib.suppress(Exception):
        client.close()
        if cluster is not None:
            cluster.close()


@atexit.register
def _disconnect_all() -> None:
    for key in list(_connections):
        _disconnect(key)


def worker_software(packages: tuple[str, ...]) -> dict:
    """On a worker: what a run's processes must share (``environment.software``)."""
    return environment.software(packages)


def run_claim_task(claim_id: str, context: Context, packages: tuple[str, ...],
                   prepare: Callable[[ClaimResult], None] | None) -> ClaimOutcome:
    """A cluster task: one claim (``tasks.run_group``)."""
    [outcome] = run_group([claim_id], context, packages, prepare)
    return outcome


class ClusterWorkers:
    """The workers of a Dask cluster, serving ``parallel.Workers``."""

    def __init__(self, scheduler: str, local_workers: int, context: Context, packages: tuple[str, ...],
                 prepare: Callable[[ClaimResult], None] | None):
        self.scheduler = scheduler
        self.local = scheduler == LOCAL
        self._key = _connection_key(scheduler, local_workers)
        self._client, _ = _connect(scheduler, local_workers)
        self._task = (context, packages, prepare)
        self._software = environment.software(packages)
        self._digest = environment.digest_of(self._software["files"])
        self._futures: dict = {}  # each task's future -> (its claim, the rest of its group, priority)
        self._done: queue.Queue = queue.Queue()  # futures as they finish
        self._run = uuid.uuid4().hex[:8]
        self._lost_since: float | None = None  # when the scheduler stopped answering
        self._watched = time.monotonic()  # when the run last asked the scheduler (``_watch``)
        self._memory_limits: dict[str, int] = {}  # each worker seen -> its memory limit in bytes (0: none)
        self._sent = itertools.count()  # a claim sent again (``_watch``) is a new task, under a new key
        self._unsent: list[tuple[list[Claim], int]] = []  # groups not sent: the scheduler was lost
        self._waiting_since: dict[str, float] = {}  # each task waiting for a worker -> when first seen so
        try:
            self._client.wait_for_workers(1, timeout=FIRST_WORKER_TIMEOUT_S)
        except TimeoutError:
            raise SchedulerError(f"the Dask scheduler at {scheduler} has no workers "
                                 f"(waited {FIRST_WORKER_TIMEOUT_S} s)") from None
        for address, software in sorted(self._client.run(worker_software, packages).items()):
            self._refuse_if_different(software, address)
        self.count = len(self._client.scheduler_info()["workers"])
        self._watch_scheduler()

    def _refuse_if_different(self, software: dict, address: str, recorded: str | None = None) -> None:
        """Refuse the worker at ``address`` if its ``software`` differs from this process's, or the
        digest it ``recorded`` for the code a claim ran with does (its files changed since)."""
        differences = environment.software_differences(self._software, software) or \
            ([f"software digest {self._digest[:12]} here, {recorded[:12]} there"]
             if recorded not in (None, self._digest) else [])
        if differences:
            raise SchedulerError(f"the worker {address} of {self.scheduler} differs from this process "
                                 f"({'; '.join(differences)}): verdicts from a mixed cluster cannot be reproduced")

    def _refuse_if_changed(self, outcome: ClaimOutcome) -> None:
        """Refuse the worker that ran ``outcome`` if its code or versions differ from this process's
        (one that joined after the run started, or whose files changed since)."""
        ran = outcome.environment
        if (ran.get("software_digest"), ran.get("python"), ran.get("packages")) != \
                (self._digest, self._software["python"], self._software["packages"]):
            worker = outcome.worker
            software = self._client.run(worker_software, self._task[1], workers=[worker])[worker]
            self._refuse_if_different(software, worker, ran.get("software_digest"))

    def _needs(self, claim: Claim) -> dict[str, float]:
        """What a worker must offer to run ``claim``: on a local cluster nothing (the machine is
        this one, and a claim that needs more than a worker's share runs alone, here)."""
        context = self._task[0]
        return {} if self.local else claim.needs(context.profile, context.device)

    def refuse_unmet(self, claims: list[Claim], context: Context) -> None:
        """Refuse a run with claims that no worker of the cluster has the resources for."""
        offered = [worker.get("resources") or {} for worker in self._client.scheduler_info()["workers"].values()]
        unmet = []
        for claim in claims:
            needs = self._needs(claim)
            if needs and not any(all(resources.get(name, 0) >= amount for name, amount in needs.items())
                                 for resources in offered):
                unmet.append(f"{claim.id} ({', '.join(f'{name}={amount:g}' for name, amount in needs.items())})")
        if unmet:
            raise SchedulerError(f"no worker of the Dask cluster at {self.scheduler} offers what {len(unmet)} "
                                 f"claim{'s' * (len(unmet) != 1)} need{'s' * (len(unmet) == 1)} at profile "
                                 f"{context.profile}: {'; '.join(unmet)} (start workers with "
                                 "dask worker --resources \"NAME=AMOUNT\")")

    def submit(self, group: list[Claim], priority: int) -> None:
        """Each claim is a task of its own, so that a worker lost mid-claim costs that claim alone;
        a group's claims go one after the other, each to the worker that ran the one before it
        where it is free (its caches are filled), else to any."""
        self._submit(list(group), priority, None)

    def _submit(self, group: list[Claim], priority: int, after: str | None) -> None:
        claim, rest = group[0], group[1:]
        try:
            # Pinned only to a worker that is there: the scheduler keeps a task pinned to a gone
            # worker waiting for it, although other workers are allowed (``_watch`` frees one
            # whose worker leaves later).
            there = after is not None and after in self._client.scheduler_info()["workers"]
            where = {"workers": [after], "allow_other_workers": True} if there else {}
            future = self._client.submit(run_claim_task, claim.id, *self._task,
                                         key=f"theorems-{self._run}-{claim.id}-{next(self._sent)}",
                                         resources=self._needs(claim) or None, priority=priority, pure=False,
                                         retries=0, **where)
        except _unreachable():  # the scheduler is lost: sent again once it answers (``_watch``)
            self._unsent.append((group, priority))
            return
        self._futures[future] = (claim, rest, priority)
        future.add_done_callback(self._done.put)  # called in the client's thread when it finishes

    def _finished(self, timeout: float | None) -> list:
        """The futures that finished, waiting up to ``timeout`` for the first (None: not waiting)."""
        done = []
        with contextlib.suppress(queue.Empty):
            done.append(self._done.get(timeout=timeout) if timeout is not None else self._done.get_nowait())
            while True:
                done.append(self._done.get_nowait())
        return [future for future in done if future in self._futures]  # (not one cancelled by ``stop``)

    def arrived(self, timeout: float | None) -> list[ClaimOutcome]:
        outcomes = self._watch()
        for future in self._finished(timeout):
            if future.cancelled() and self._client.status != "running":  # the client lost the scheduler
                continue  # (left in ``_futures``, for ``_watch`` to send again or give up)
            claim, rest, priority = self._futures.pop(future)
            if future.status == "finished":
                outcome = future.result()
                self._refuse_if_changed(outcome)
            else:
                worker, reason = self._failure(future)
                outcome = ClaimOutcome(claim.id, None, [], 0.0, {}, {}, reason, worker)
            outcomes.append(outcome)
            if rest:
                self._submit(rest, priority, outcome.worker if "://" in outcome.worker else None)
        return outcomes

    def _failure(self, future) -> tuple[str, str]:
        """Where and why a task ended without its outcomes."""
        if future.status == "cancelled":
            return f"a worker of {self.scheduler}", "cancelled by the scheduler (it restarted or lost this client)"
        error = future.exception()
        killed = _distributed().KilledWorker
        if isinstance(error, killed):
            address = error.last_worker.address
            restarted = {event["worker"] for _, event in self._client.get_events("worker-restart-memory")}
            if address in restarted:  # its nanny restarted it for its memory limit
                limit = self._memory_limits.get(address)
                return address, f"out of memory on worker {address}" + (f" (limit {limit / 1e6:.0f} MB)" if limit
                                                                         else "")
            return (address,
                    f"its worker died while running it (killed, out of memory or lost) on {error.allowed_failures + 1} "
                    "workers in turn: the scheduler's allowed-failures")
        return f"a worker of {self.scheduler}", f"{type(error).__name__}: {error}"

    def _watch(self) -> list[ClaimOutcome]:
        """The run's watchdog, every ``WATCH_INTERVAL_S``: a lost scheduler (its tasks are sent
        again once it answers, ``SchedulerLost`` after ``RECONNECT_TIMEOUT_S``), and crashes for
        the tasks that no worker could run for ``NO_WORKER_TIMEOUT_S``."""
        now = time.monotonic()
        if self._client.status != "running":
            self._lost_since = self._lost_since or now
            waited = now - self._lost_since
            # The client gives up by itself after RECONNECT_TIMEOUT_S (closed); the margin covers a
            # reconnection that hangs.
            if self._client.status in ("closing", "closed") or waited > RECONNECT_TIMEOUT_S + WATCH_INTERVAL_S:
                raise SchedulerLost(self.scheduler, max(waited, RECONNECT_TIMEOUT_S))
            return []
        if self._lost_since is not None or self._unsent:  # it answers again, without the tasks it had
            self._lost_since = None
            lost = [([claim, *rest], priority) for future, (claim, rest, priority) in self._futures.items()
                    if future.cancelled()]
            self._futures = {future: task for future, task in self._futures.items() if not future.cancelled()}
            lost, self._unsent = lost + self._unsent, []
            for group, priority in lost:
                self._submit(group, priority, None)
        if now - self._watched < WATCH_INTERVAL_S:
            return []
        self._watched = now
        try:
            stuck, orphans = self._watch_scheduler()
        except _unreachable():
            return []  # (the client's status says so by the next call)
        outcomes = []
        for future, (claim, rest, priority) in list(self._futures.items()):
            if future.key in orphans:  # pinned to a worker that left: sent again, to any worker
                del self._futures[future]
                future.cancel()
                self._submit([claim, *rest], priority, None)
            elif future.key in stuck:  # the rest of its group too: a worker for it would be missing as well
                del self._futures[future]
                future.cancel()
                outcomes += [ClaimOutcome(each.id, None, [], 0.0, {}, {}, f"no worker of {self.scheduler} could run it "
                                          f"for {NO_WORKER_TIMEOUT_S} s (the workers with what it needs left)",
                                          f"a worker of {self.scheduler}") for each in [claim, *rest]]
        return outcomes

    def _watch_scheduler(self) -> tuple[set[str], set[str]]:
        """Ask the scheduler for its workers (their memory limits are kept, for the crash of a
        claim whose worker the limit restarted) and for this run's tasks that wait for a worker
        (``no-worker``): the keys of those seen waiting for longer than ``NO_WORKER_TIMEOUT_S``,
        and of those pinned to workers that are gone."""
        def look(dask_scheduler, keys: set):  # on the scheduler, which need not import the suite
            # (``unrunnable`` is a set of tasks in distributed 2024.4, the lower bound, and a dict
            # from task to when it became unrunnable from 2024.8: iterating it serves both)
            waiting = [task for task in dask_scheduler.unrunnable if task.key in keys]
            orphans = {task.key for task in waiting
                       if task.worker_restrictions and not task.worker_restrictions & dask_scheduler.workers.keys()}
            limits = {address: worker.memory_limit for address, worker in dask_scheduler.workers.items()}
            return limits, {task.key for task in waiting}, orphans

        limits, waiting, orphans = self._client.run_on_scheduler(look, keys={future.key for future in self._futures})
        self._memory_limits.update(limits)
        # timed here, by when this process first saw each task waiting: the scheduler's own clock
        # for it exists only in newer releases of distributed
        now = time.monotonic()
        self._waiting_since = {key: self._waiting_since.get(key, now) for key in waiting}
        stuck = {key for key, since in self._waiting_since.items() if now - since > NO_WORKER_TIMEOUT_S}
        return stuck, orphans

    def stop(self) -> None:
        """Cancel the run's tasks; a local cluster is shut down with its workers."""
        if self._client.status == "running":  # (a client that lost its scheduler has nothing to cancel)
            with contextlib.suppress(Exception):
                self._client.cancel(list(self._futures), force=True)
        self._futures.clear()
        if self.local:
            _disconnect(self._key)

    def close(self) -> None:
        """Nothing to end: the connection serves this process's next run (closed at exit)."""

