"""Run claims in worker processes, with the same verdicts and evidence for any number of jobs.

Claims reach their workers through one interface (``Workers``), served by the local process
pool (``ProcessWorkers``) and by a Dask cluster (``engine.cluster.ClusterWorkers``): ``drive``
groups, orders, collects and stops for both, and what a worker runs is ``tasks.run_group``.

A claim's randomness comes from the run seed and its own id and check names (``Context``), so
a claim gives the same evidence in a worker as in the main process. Workers run BLAS, OpenMP,
torch and flint on one thread each, so that the workers share the cores instead of
oversubscribing them, and there are never more of them than cores, nor than fit in the memory
available (``worker_count``). Results come back in the order of ``selected``.

Workers are forked from a fork server (``multiprocessing``'s forkserver), a process started
once, which imports the whole suite and then runs no thread: forking it is cheap, and safe,
where forking the main process is not (a fork copies locks held by threads the child does
not have: flint's thread pool hung a forked worker). ``start_worker_server`` starts it early,
so that its imports overlap the main process's own. Where there is no fork server, workers
are spawned and import the suite themselves.

No worker outlives its run: the main process ends them when the run stops, and a worker
(and the fork server) whose parent dies for any reason, SIGKILL included, is killed by the
kernel (Linux: ``PR_SET_PDEATHSIG``) or, elsewhere, exits by itself within a second (a
watchdog thread that polls the main process). Workers ignore Ctrl-C, SIGTERM and SIGHUP,
which reach the whole process group from a terminal: the main process alone decides what
to keep, and stops on any of the three (``stop_signals``).

The command line imports this module for every command (its stop signals, the fork server),
one that only lists claims included: the runner and the workers' tasks, which load the
claims' mathematics, are imported where a run needs them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import multiprocessing
import os
import pickle
import queue
import signal
import sys
import threading
import time
import types
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..errors import CheckCrashed, ClaimDefinitionError, ClaimsCrashed, Interrupted, SchedulerLost
from . import resources
from .pauses import pause_at
from .registry import Claim, claims, registering_module
from .settings import usable_cores, validate_jobs
from .vocabulary import Device

if TYPE_CHECKING:
    from .context import Context
    from .runner import ClaimResult
    from .tasks import ClaimOutcome

# The environment the worker processes start with: read by BLAS and OpenMP when they load.
WORKER_ENVIRONMENT = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# The signals that stop a run as Ctrl-C does (SIGHUP: the terminal closed).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
# Set in the fork server's environment only (the main process's id, and the environment to
# put back): see worker_server.
SERVER_VARIABLE = "THEOREMS_WORKER_SERVER"
_told: set[str] = set()  # the --jobs caps already announced by this process
_sent = None  # in a worker: the queue that carries each claim's outcome to the main process


def worker_count(jobs: int) -> tuple[int, str | None]:
    """How many workers ``jobs`` gets, and why, when fewer: at most one per usable core, and
    at most as many as fit in the memory available now, counting for each worker the
    resident size of this process once it has imported the suite (as each worker has)."""
    jobs = validate_jobs(jobs)
    reasons = []
    cores = usable_cores()
    workers = min(jobs, cores)
    if workers < jobs:
        reasons.append(f"{cores} cores")
    resident = resources.resident_memory_bytes()
    if workers > 1 and resident:
        available = resources.available_memory_bytes(Device.CPU)
        fit = max(1, available // resident)
        if fit < workers:
            workers = fit
            reasons.append(f"{available / 2**30:.1f} GiB available, {resident / 2**30:.2f} GiB per worker")
    return workers, "; ".join(reasons) or None


def _server_context():
    """The forkserver context, preloading ``worker_server`` (which prepares the server and
    imports the suite there), or None where the platform has no fork server."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return None
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([f"{__package__}.worker_server"])
    return context


def start_worker_server() -> None:
    """Start the process workers are forked from, if it is not running. It imports the suite
    in the background: call this before importing the claims, and the two imports overlap."""
    if _server_context() is None:
        return
    from multiprocessing import forkserver

    # The server runs `python -c`, whose module path starts with the working directory, which
    # may hold another copy of the suite: it is given this process's path instead, so that it
    # imports the same modules, and puts back its environment before it forks a worker.
    path = {"PYTHONSAFEPATH": "1", "PYTHONPATH": os.pathsep.join(os.path.abspath(p or os.curdir) for p in sys.path)}
    server = {"main": os.getpid(), "environment": {name: os.environ.get(name) for name in path}}
    with _environment({**WORKER_ENVIRONMENT, **path, SERVER_VARIABLE: json.dumps(server)}):
        forkserver.ensure_running()


def _die_with_parent() -> None:
    """Linux: have the kernel SIGKILL this process when its parent dies (PR_SET_PDEATHSIG)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # 1: PR_SET_PDEATHSIG


def _ignore_stop_signals() -> None:
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def start_watchdog(main_pid: int, interval: float = 0.5) -> None:
    """A daemon thread that ends this process when ``main_pid`` is gone or this process's
    parent changes (it was re-parented: the parent died)."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent and _alive(main_pid):
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="theorems-watchdog", daemon=True).start()


def prepare_server(server: dict) -> None:
    """In the fork server, before it forks any worker: put back the environment, die with the
    main process, leave the stop signals to it, import the suite and stop every thread but
    its own."""
    for name, value in server["environment"].items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    _die_with_parent()
    if os.getppid() != server["main"]:  # the main process died before the line above
        os._exit(1)
    _ignore_stop_signals()
    from .tasks import import_every_suite_module, one_thread_each

    import_every_suite_module()
    one_thread_each()


def _start_worker(main_pid: int, sent) -> None:
    global _sent
    _sent = sent
    _ignore_stop_signals()
    _die_with_parent()
    start_watchdog(main_pid)
    from .tasks import import_every_suite_module, one_thread_each

    import_every_suite_module()  # nothing to do when forked from the fork server
    one_thread_each()


def _run_in_worker(claim_ids: list[str], context: Context, packages: tuple[str, ...],
                   prepare: Callable[[ClaimResult], None] | None) -> None:
    """A process-pool task: ``run_group``, each outcome sent to the main process as soon as it
    is there. Pickled here, so that an outcome that cannot be sent fails this task."""
    from .tasks import run_group

    for outcome in run_group(claim_ids, context, packages, prepare):
        _sent.put(pickle.dumps(outcome))


def _claim_groups(selected: list[Claim], expected: dict[str, float]) -> list[list[Claim]]:
    """The selected claims by the module that registered them, the longest group first (by
    ``expected``; a group with a claim without an estimate before all others). A group runs
    in one worker, one claim after the other: claims of one module share its caches (the
    daneshmand2020 chains are run once for four claims), which two workers would each fill."""
    groups: dict[str, list[Claim]] = {}
    for claim in selected:
        groups.setdefault(registering_module(claim.id) or claim.id, []).append(claim)
    return sorted(groups.values(), key=lambda group: -sum(expected.get(claim.id, math.inf) for claim in group))


@contextlib.contextmanager
def stop_signals():
    """Ctrl-C, SIGTERM and SIGHUP raise KeyboardInterrupt in the main thread, and the
    signal is remembered (``.signum`` of what this yields): raised inside a
    garbage-collector callback (Hypothesis installs one) the exception is swallowed, and
    the run then stops after the claim that was running."""
    received = types.SimpleNamespace(signum=None)
    if threading.current_thread() is not threading.main_thread():
        yield received  # signal handlers belong to the main thread
        return

    def on_signal(signum, frame):
        received.signum = signum
        raise KeyboardInterrupt

    previous = {signum: signal.signal(signum, on_signal) for signum in STOP_SIGNALS}
    try:
        yield received
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def _environment(values: dict[str, str]):
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run_claims(selected: list[Claim], context: Context, jobs: int = 1, desc: str = "claims",
               expected_seconds: dict[str, float] | None = None, packages: Sequence[str] = (),
               prepare: Callable[[ClaimResult], None] | None = None, scheduler: str | None = None) -> list[ClaimResult]:
    """Run ``selected`` and the claims they rest on (``depends_on``, transitively), so that each
    scope is limited by its dependencies' (``runner.attach_dependencies``); the results of
    ``selected`` are returned, in order. ``scheduler``: run them as tasks of the Dask cluster
    at that address, or of a local one of ``jobs`` workers ("local"; ``engine.cluster``).

    A stop signal raises ``Interrupted`` with the selected claims that finished; claims that
    crashed raise ``ClaimsCrashed`` with the others' results, once every other claim ran."""
    from .runner import attach_dependencies, dependency_ids

    available = claims(*packages)
    registered = {claim.id: claim for claim in selected}
    closure = list(selected)
    for claim in closure:  # grows as it goes: the transitive closure, selected claims first
        for dependency in dependency_ids(claim, available):
            if dependency not in registered:
                registered[dependency] = available[dependency]
                closure.append(available[dependency])
    wanted = {claim.id for claim in selected}
    # A dependency this process already ran at the same seed, profile and device is not run again:
    # its verdict and evidence are functions of those alone.
    known = {claim.id: _FINISHED[key] for claim in closure[len(selected):]
             if (key := _finished_key(claim, context)) in _FINISHED}
    try:
        results = _run_each([claim for claim in closure if claim.id not in known], context, jobs, desc,
                            expected_seconds, packages, prepare, scheduler)
    except (Interrupted, ClaimsCrashed, SchedulerLost) as stopped:
        attach_dependencies([*stopped.finished, *known.values()], registered)
        for result in stopped.finished:
            _FINISHED[_finished_key(result.claim, context)] = result
        stopped.finished = [result for result in stopped.finished if result.claim.id in wanted]
        raise
    for result in results:
        _FINISHED[_finished_key(result.claim, context)] = result
    attach_dependencies([*results, *known.values()], registered)
    return [result for result in results if result.claim.id in wanted]


# Results of this process's runs, by claim and run settings (``run_claims``'s dependencies).
_FINISHED: dict[tuple[int, str, int, str], ClaimResult] = {}


def _finished_key(claim: Claim, context: Context) -> tuple[int, str, int, str]:
    return id(claim), context.profile, context.seed, context.device.value


class Workers(Protocol):
    """Where claims run beside this process: the local process pool (``ProcessWorkers``) or a
    Dask cluster (``engine.cluster.ClusterWorkers``). ``drive`` does the rest, the same for both."""

    count: int  # how many workers, for the progress bar

    def submit(self, group: list[Claim], priority: int) -> None:
        """Run ``group`` in one worker, one claim after the other (higher ``priority`` first)."""

    def arrived(self, timeout: float | None) -> list[ClaimOutcome]:
        """The outcomes that came back, waiting up to ``timeout`` for one (None: not waiting).
        A claim whose worker was lost comes back as a crash naming the worker."""

    def stop(self) -> None:
        """Cancel what has not finished and end the run's workers now."""

    def close(self) -> None:
        """End the run's workers once every outcome came back."""


def _run_each(selected: list[Claim], context: Context, jobs: int, desc: str,
              expected_seconds: dict[str, float] | None, packages: Sequence[str],
              prepare: Callable[[ClaimResult], None] | None, scheduler: str | None = None) -> list[ClaimResult]:
    """Run ``selected`` in up to ``jobs`` processes (``worker_count``; in this process when
    that is 1), or on the Dask cluster ``scheduler`` names. Workers take the claims by module
    (``_claim_groups``), the longest first (by ``expected_seconds``), so that a long claim does
    not start last, and send each result as it finishes. Workers import the claim modules of
    ``packages`` (default the packaged papers), which ``selected`` comes from. ``prepare`` (a
    module-level function) is applied to each result in the worker that ran it: the report
    renders figures there, in parallel.
    On this machine, a claim that needs more memory than a worker's share at this profile
    (``Claim.memory_gb_at``) runs after the workers have finished and gone, in this process,
    with every core's BLAS threads: no worker waits idle behind it and none competes for its
    memory. On a remote cluster it goes to a worker that offers the memory (``Claim.needs``).
    A claim whose check crashes, or whose workers died, is named in the ``ClaimsCrashed``
    raised after the others ran. Ctrl-C, SIGTERM or SIGHUP raise ``Interrupted`` with the
    claims that finished."""
    from .tasks import import_every_suite_module

    jobs = validate_jobs(jobs)
    if scheduler is None and jobs > 1 and usable_cores() > 1:
        start_worker_server()  # (already running if the command line started it)
    import_every_suite_module()
    if scheduler is not None:
        from .cluster import ClusterWorkers

        workers = ClusterWorkers(scheduler, worker_count(jobs)[0], context, tuple(packages), prepare)
        alone = [claim for claim in selected if workers.local and claim.alone_at(context.profile)]
        workers.refuse_unmet([claim for claim in selected if claim not in alone], context)
    else:
        count, why = worker_count(jobs)
        if why and f"{jobs} {count}" not in _told:
            _told.add(f"{jobs} {count}")
            print(f"theorems: --jobs {jobs} capped to {count} ({why})", file=sys.stderr)
        if count == 1 or len(selected) <= 1:
            return _finish(*_run_here(selected, context, desc, [], prepare))
        alone = [claim for claim in selected if claim.alone_at(context.profile)]
        shared = [claim for claim in selected if claim not in alone]
        workers = ProcessWorkers(min(count, len(shared)), context, tuple(packages), prepare) if shared else None
    shared = [claim for claim in selected if claim not in alone]
    finished, crashes = drive(workers, shared, context, desc, expected_seconds or {}) if shared else ([], [])
    finished, more, errors = _run_here(alone, context, f"{desc} (alone)", finished, prepare)
    by_id = {result.claim.id: result for result in finished}
    return _finish([by_id[claim.id] for claim in selected if claim.id in by_id], crashes + more, errors)


def _finish(finished: list[ClaimResult], crashes: list[dict], errors: Sequence[CheckCrashed] = ()
            ) -> list[ClaimResult]:
    """``finished``, or ``ClaimsCrashed`` naming the ``crashes``; raised from the first of the
    ``errors`` this process caught, so that a debugger and pytest show the original traceback."""
    if crashes:
        raise ClaimsCrashed(finished, crashes) from (errors[0] if errors else None)
    return finished


def _run_here(selected: list[Claim], context: Context, desc: str, finished: list[ClaimResult],
              prepare: Callable[[ClaimResult], None] | None = None
              ) -> tuple[list[ClaimResult], list[dict], list[CheckCrashed]]:
    """Run ``selected`` in this process, one after the other, after ``finished``; a claim that
    needs more than a worker's share at this profile on every core. Returns the results, the
    crashes and their errors."""
    from tqdm import tqdm

    from .runner import run_claim
    from .tasks import here

    finished, crashes, errors = list(finished), [], []
    with stop_signals() as stop:
        try:
            for claim in tqdm(selected, desc=desc, disable=not context.show_progress or not selected,
                              file=sys.stderr):
                try:
                    result = run_claim(claim, context, usable_cores() if claim.alone_at(context.profile) else 1)
                except CheckCrashed as error:
                    crashes.append({"claims": [claim.id], "worker": here(), "reason": str(error), **error.details()})
                    errors.append(error)
                else:
                    if prepare is not None:
                        prepare(result)
                    finished.append(result)
                if stop.signum:
                    raise KeyboardInterrupt
                pause_at("claim")
        except KeyboardInterrupt:
            raise Interrupted(finished, stop.signum or signal.SIGINT) from None
    return finished, crashes, errors


def drive(workers: Workers, selected: list[Claim], context: Context, desc: str,
          expected: dict[str, float]) -> tuple[list[ClaimResult], list[dict]]:
    """Run ``selected`` on ``workers``: submit them by group, the longest first, and collect
    each outcome as it comes back. Returns the results (in the order they came) and the
    crashes, one per worker and reason. A stop signal stops the workers and raises
    ``Interrupted`` with what came back, a lost scheduler ``SchedulerLost`` with the same and
    the crashes; any other failure stops them and propagates."""
    from tqdm import tqdm

    by_id = {claim.id: claim for claim in selected}
    results: dict[str, ClaimResult] = {}
    crashes: dict[tuple[str, str], dict] = {}  # (worker, reason) -> the crash entry, naming its claims
    done = 0

    def take(outcomes: list[ClaimOutcome]) -> int:
        for outcome in outcomes:
            if outcome.malformed is not None:
                raise ClaimDefinitionError(outcome.malformed)
            if outcome.crash is None:
                results[outcome.claim_id] = outcome.result(by_id[outcome.claim_id], context)
            else:
                entry = {"claims": [], "worker": outcome.worker, "reason": outcome.crash, **outcome.crash_details}
                crashes.setdefault((outcome.worker, outcome.crash), entry)["claims"].append(outcome.claim_id)
        return len(outcomes)

    with stop_signals() as stop:
        try:
            groups = _claim_groups(selected, expected)
            for rank, group in enumerate(groups):
                workers.submit(group, priority=len(groups) - rank)
            with tqdm(total=len(selected), desc=f"{desc} ({workers.count} jobs)", disable=not context.show_progress,
                      file=sys.stderr) as bar:
                while done < len(selected):
                    arrived = take(workers.arrived(timeout=0.2))
                    done += arrived
                    bar.update(arrived)
                    if stop.signum:
                        raise KeyboardInterrupt
                    if arrived:
                        pause_at("claim")
        except KeyboardInterrupt:
            with contextlib.suppress(Exception):
                take(workers.arrived(timeout=None))  # what had already arrived
            workers.stop()
            finished = [results[claim.id] for claim in selected if claim.id in results]
            raise Interrupted(finished, stop.signum or signal.SIGINT) from None
        except SchedulerLost as lost:
            workers.stop()
            lost.finished = [results[claim.id] for claim in selected if claim.id in results]
            lost.crashes = list(crashes.values())
            raise
        except BaseException:
            workers.stop()
            raise
    workers.close()
    return list(results.values()), list(crashes.values())


class ProcessWorkers:
    """The local process pool: ``count`` processes forked from the fork server (or spawned),
    each sending each claim's outcome through a queue as soon as it finishes. The pool does
    not retry: a worker that dies breaks the pool, and every claim not back is a crash."""

    def __init__(self, count: int, context: Context, packages: tuple[str, ...],
                 prepare: Callable[[ClaimResult], None] | None):
        self.count = count
        self._task = (dataclasses.replace(context, show_progress=False), packages, prepare)
        process_context = _server_context() or multiprocessing.get_context("spawn")
        self._sent = process_context.Queue()
        self._pool = ProcessPoolExecutor(count, mp_context=process_context, initializer=_start_worker,
                                         initargs=(os.getpid(), self._sent))
        self._groups: dict[Future, set[str]] = {}  # each task's claims that have not come back

    def submit(self, group: list[Claim], priority: int) -> None:
        # (the pool runs tasks in submission order, which is the priority order)
        with _environment(WORKER_ENVIRONMENT):  # spawned workers start with the first submissions
            future = self._pool.submit(_run_in_worker, [claim.id for claim in group], *self._task)
        self._groups[future] = {claim.id for claim in group}

    def arrived(self, timeout: float | None) -> list[ClaimOutcome]:
        outcomes = []
        try:
            message = self._sent.get(timeout=timeout) if timeout is not None else self._sent.get_nowait()
            while True:
                outcomes.append(pickle.loads(message))
                message = self._sent.get_nowait()
        except queue.Empty:
            pass
        for outcome in outcomes:
            for pending in self._groups.values():
                pending.discard(outcome.claim_id)
        if not outcomes:
            outcomes = self._lost()
        return outcomes

    def _lost(self) -> list[ClaimOutcome]:
        """Crashes for the claims of tasks that failed (a worker died: the pool is broken)."""
        from .tasks import ClaimOutcome

        lost = []
        for future, pending in list(self._groups.items()):
            if future.done() and future.exception() is not None and not self._sent.qsize():
                error = future.exception()
                reason = ("the worker process died" if isinstance(error, BrokenProcessPool)
                          else f"{type(error).__name__}: {error}")
                lost += [ClaimOutcome(claim_id, None, [], 0.0, {}, {}, reason, "a local worker process")
                         for claim_id in sorted(pending)]
                del self._groups[future]
        return lost

    def stop(self) -> None:
        """Stop now: cancel what has not started and end the workers (the pool would otherwise
        wait for the running claims; ``terminate_workers`` arrives only in Python 3.14).
        Workers ignore SIGTERM, so they are killed."""
        processes = list((self._pool._processes or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.kill()
        for process in processes:
            process.join(5)

    def close(self) -> None:
        self._pool.shutdown(wait=True)
