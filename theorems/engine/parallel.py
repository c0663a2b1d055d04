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
import json
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from .context import Context
from .registry import Claim, claims
from .runner import CheckCrashed, CheckResult, ClaimResult, run_claim

# The environment the workers are spawned with: read by BLAS and OpenMP when they load.
WORKER_ENVIRONMENT = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def check_jobs(jobs: int) -> int:
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    return jobs


def import_every_suite_module() -> None:
    """Import every module of the ``theorems`` package. Hypothesis (≥ 6.13x) mixes into its
    draws the constants found in the source of the *local* modules imported so far, so a
    search's examples depended on which of the suite's modules happened to be loaded: a
    claim's evidence differed between ``check`` and ``report`` and between processes.
    With every suite module loaded before the first claim, the constants are the same
    everywhere."""
    import importlib
    import pkgutil

    import theorems

    for module in pkgutil.walk_packages(theorems.__path__, prefix="theorems."):
        # Never theorems.__main__: importing it runs the command line, and a spawned worker
        # inherits the parent's sys.argv, so each worker would start another pool.
        if module.name != "theorems.__main__":
            importlib.import_module(module.name)


def _start_worker() -> None:
    import flint
    import torch

    import_every_suite_module()
    flint.ctx.threads = 1
    torch.set_num_threads(1)


def _run_in_worker(claim_id: str, context: Context):
    """Run one claim; return what the parent needs to rebuild its ClaimResult (a Claim holds
    functions, which do not cross process boundaries; outcomes do)."""
    result = run_claim(claims()[claim_id], context)
    return result.verdict, [(r.outcome, r.seconds) for r in result.checks], result.seconds


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


def seconds_in_report(path: Path) -> dict[str, float]:
    """Each claim's run time in an earlier report.json (empty if there is none): only the
    order in which workers pick claims up depends on it, never a result."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
        return {claim["id"]: float(claim["timing_s"]["total"]) for claim in report["claims"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def run_claims(selected: list[Claim], context: Context, jobs: int = 1, desc: str = "claims",
               expected_seconds: dict[str, float] | None = None) -> list[ClaimResult]:
    """Run ``selected`` in ``jobs`` processes (in this process when jobs is 1). Workers take
    the longest claims first (by ``expected_seconds``; claims without an estimate before
    all others), so that a long claim does not start last. A check that crashes in a worker
    raises its CheckCrashed here, and the claims not started are dropped."""
    jobs = check_jobs(jobs)
    import_every_suite_module()
    from tqdm import tqdm

    if jobs == 1 or len(selected) <= 1:
        return [run_claim(claim, context)
                for claim in tqdm(selected, desc=desc, disable=not context.show_progress, file=sys.stderr)]
    quiet = dataclasses.replace(context, show_progress=False)
    results: dict[str, ClaimResult] = {}
    pool = ProcessPoolExecutor(min(jobs, len(selected)), mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start_worker)
    try:
        with _environment(WORKER_ENVIRONMENT):  # the workers are spawned by the first submissions
            expected = expected_seconds or {}
            longest_first = sorted(selected, key=lambda claim: -expected.get(claim.id, float("inf")))
            futures = {pool.submit(_run_in_worker, claim.id, quiet): claim for claim in longest_first}
        done = tqdm(as_completed(futures), total=len(futures), desc=f"{desc} ({jobs} jobs)",
                    disable=not context.show_progress, file=sys.stderr)
        for future in done:
            claim = futures[future]
            verdict, outcomes, seconds = future.result()
            checks = [CheckResult(check, outcome, check_seconds) for check, (outcome, check_seconds) in zip(claim.checks, outcomes)]
            results[claim.id] = ClaimResult(claim, verdict, checks, context, seconds)
    except BrokenProcessPool as error:
        pool.shutdown(wait=False, cancel_futures=True)
        raise CheckCrashed(f"a worker process died while running claims ({error})") from error
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return [results[claim.id] for claim in selected]
