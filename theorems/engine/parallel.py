"""Run claims in worker processes, with the same verdicts and evidence for any number of jobs.

A claim's randomness comes from the run seed and its own id and check names (``Context``),
never from what ran before it in the same process, so a claim gives the same evidence in a
worker as in the main process. Workers are spawned, not forked: a fork copies locks held by
threads that the child does not have (flint's thread pool hung a forked worker), and each
imports the claim modules once. They run BLAS, OpenMP, torch and flint on one thread each,
so that ``jobs`` workers share the cores instead of oversubscribing them. Results come
back in the order of ``selected``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from ..errors import CheckCrashed, Interrupted
from .context import Context
from .registry import Claim, claims
from .runner import CheckResult, ClaimResult, run_claim
from .settings import validate_jobs

# The environment the workers are spawned with: read by BLAS and OpenMP when they load.
WORKER_ENVIRONMENT = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def import_every_suite_module() -> None:
    """Import every module of the ``theorems`` package. Hypothesis (≥ 6.13x) mixes into its
    draws the constants found in the source of the *local* modules imported so far, so a
    search's examples depended on which of the suite's modules happened to be loaded: a
    claim's evidence differed between ``check`` and ``report`` and between processes.
    With every suite module loaded before the first claim, the constants are the same
    everywhere."""
    import importlib
    import pkgutil

    # The package's folder, found from this file rather than by importing the package,
    # which imports the Python face and through it this module.
    package_folder = Path(__file__).resolve().parents[1]
    for module in pkgutil.walk_packages([str(package_folder)], prefix="theorems."):
        # Never theorems.__main__: importing it runs the command line, and a spawned worker
        # inherits the parent's sys.argv, so each worker would start another pool. Nor the
        # pytest plugin: it needs pytest (a test extra), and pytest loads it itself.
        if module.name not in ("theorems.__main__", "theorems.pytest_plugin"):
            importlib.import_module(module.name)


def _start_worker() -> None:
    import signal

    import flint
    import torch

    # Ctrl-C reaches the whole process group; the parent alone decides what to keep.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    import_every_suite_module()
    flint.ctx.threads = 1
    torch.set_num_threads(1)


def _run_in_worker(claim_id: str, context: Context, packages: tuple[str, ...]):
    """Run one claim of ``packages`` (default the packaged papers); return what the parent
    needs to rebuild its ClaimResult (a Claim holds functions, which do not cross process
    boundaries; outcomes do)."""
    result = run_claim(claims(*packages)[claim_id], context)
    return result.verdict, [(r.outcome, r.seconds) for r in result.checks], result.seconds, result.resources


@contextlib.contextmanager
def _remembered_interrupt():
    """Ctrl-C raises KeyboardInterrupt as usual and is also remembered: raised inside a
    garbage-collector callback (Hypothesis installs one) the exception is swallowed, and
    the run then stops after the claim that was running."""
    import signal
    import threading
    import types

    interrupt = types.SimpleNamespace(requested=False)
    if threading.current_thread() is not threading.main_thread():
        yield interrupt  # signal handlers belong to the main thread
        return

    def on_interrupt(signum, frame):
        interrupt.requested = True
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield interrupt
    finally:
        signal.signal(signal.SIGINT, previous)


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Stop now: cancel what has not started and end the running claims' workers (the pool
    would otherwise wait for them; ``terminate_workers`` arrives only in Python 3.14)."""
    processes = list((pool._processes or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()


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
               expected_seconds: dict[str, float] | None = None, packages: Sequence[str] = ()) -> list[ClaimResult]:
    """Run ``selected`` in ``jobs`` processes (in this process when jobs is 1). Workers take
    the longest claims first (by ``expected_seconds``; claims without an estimate before
    all others), so that a long claim does not start last. Workers import the claim modules
    of ``packages`` (default the packaged papers), which ``selected`` comes from. A check
    that crashes in a worker raises its CheckCrashed here, and the claims not started are
    dropped."""
    jobs = validate_jobs(jobs)
    import_every_suite_module()
    from tqdm import tqdm

    if jobs == 1 or len(selected) <= 1:
        finished = []
        try:
            with _remembered_interrupt() as interrupt:
                for claim in tqdm(selected, desc=desc, disable=not context.show_progress, file=sys.stderr):
                    finished.append(run_claim(claim, context))
                    if interrupt.requested:
                        raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise Interrupted(finished) from None
        return finished
    quiet = dataclasses.replace(context, show_progress=False)
    results: dict[str, ClaimResult] = {}
    pool = ProcessPoolExecutor(min(jobs, len(selected)), mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start_worker)
    try:
        with _environment(WORKER_ENVIRONMENT):  # the workers are spawned by the first submissions
            expected = expected_seconds or {}
            longest_first = sorted(selected, key=lambda claim: -expected.get(claim.id, float("inf")))
            futures = {pool.submit(_run_in_worker, claim.id, quiet, tuple(packages)): claim for claim in longest_first}
        done = tqdm(as_completed(futures), total=len(futures), desc=f"{desc} ({jobs} jobs)",
                    disable=not context.show_progress, file=sys.stderr)
        for future in done:
            claim = futures[future]
            verdict, outcomes, seconds, usage = future.result()
            checks = [CheckResult(check, outcome, check_seconds)
                      for check, (outcome, check_seconds) in zip(claim.checks, outcomes, strict=True)]
            results[claim.id] = ClaimResult(claim, verdict, checks, context, seconds, usage)
    except BrokenProcessPool as error:
        pool.shutdown(wait=False, cancel_futures=True)
        raise CheckCrashed(f"a worker process died while running claims ({error})") from error
    except KeyboardInterrupt:
        _stop_workers(pool)
        raise Interrupted([results[claim.id] for claim in selected if claim.id in results]) from None
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return [results[claim.id] for claim in selected]
