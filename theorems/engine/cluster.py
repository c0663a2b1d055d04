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
  claims come back as crashes naming the last worker: never a verdict, never dropped.
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
import logging
import queue
import socket
import uuid
import warnings
from collections.abc import Callable

from ..errors import SchedulerError
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
INSTALL_HINT = "pip install 'theorems[cluster]'"

_connections: dict[str, tuple] = {}  # scheduler (or "local <n>") -> (client, local cluster or None)


def _distributed():
    try:
        import distributed
    except ImportError:
        raise SchedulerError(f"--scheduler needs Dask's distributed, which is not installed: {INSTALL_HINT}") from None
    return distributed


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
        client = distributed.Client(cluster)
    else:
        cluster = None
        _refuse_unless_dask(scheduler)
        try:
            client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT_S)
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
    # Dask's own threads (heartbeats, their jittered intervals) draw from the global `random`
    # while a Hypothesis search generates examples, and Hypothesis, which reseeds that module for
    # each example, takes the change for a strategy using it. The suite's strategies never do
    # (the same searches in one process give no such warning, and the same evidence).
    warnings.filterwarnings("ignore", message="Do not use the `random` module inside strategies")
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
        self._futures: dict = {}  # each task's future -> (its claim's id, the rest of its group, priority)
        self._done: queue.Queue = queue.Queue()  # futures as they finish
        self._run = uuid.uuid4().hex[:8]
        try:
            self._client.wait_for_workers(1, timeout=FIRST_WORKER_TIMEOUT_S)
        except TimeoutError:
            raise SchedulerError(f"the Dask scheduler at {scheduler} has no workers "
                                 f"(waited {FIRST_WORKER_TIMEOUT_S} s)") from None
        for address, software in sorted(self._client.run(worker_software, packages).items()):
            self._refuse_if_different(software, address)
        self.count = len(self._client.scheduler_info()["workers"])

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
        where = {"workers": [after], "allow_other_workers": True} if after else {}
        future = self._client.submit(run_claim_task, claim.id, *self._task, key=f"theorems-{self._run}-{claim.id}",
                                     resources=self._needs(claim) or None, priority=priority, pure=False, retries=0,
                                     **where)
        self._futures[future] = (claim.id, rest, priority)
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
        outcomes = []
        for future in self._finished(timeout):
            claim_id, rest, priority = self._futures.pop(future)
            if future.status == "finished":
                outcome = future.result()
                self._refuse_if_changed(outcome)
            else:
                worker, reason = self._failure(future)
                outcome = ClaimOutcome(claim_id, None, [], 0.0, {}, {}, reason, worker)
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
            return (error.last_worker.address,
                    f"its worker died while running it (killed, out of memory or lost) on {error.allowed_failures + 1} "
                    "workers in turn: the scheduler's allowed-failures")
        return f"a worker of {self.scheduler}", f"{type(error).__name__}: {error}"

    def stop(self) -> None:
        """Cancel the run's tasks; a local cluster is shut down with its workers."""
        with contextlib.suppress(Exception):
            self._client.cancel(list(self._futures), force=True)
        self._futures.clear()
        if self.local:
            _disconnect(self._key)

    def close(self) -> None:
        """Nothing to end: the connection serves this process's next run (closed at exit)."""

