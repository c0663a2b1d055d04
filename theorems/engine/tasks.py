"""What a worker runs, in a process pool or on a cluster: a group of claims, one after the
other, and the outcome it sends back for each.

A claim's randomness comes from the run seed and its own id and check names (``Context``),
never from what ran before it in the same process, so a claim gives the same evidence in any
worker as in the main process.
"""

from __future__ import annotations

import dataclasses
import os
import platform
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..errors import CheckCrashed, ClaimDefinitionError
from ..lazy import torch
from . import environment
from .context import Context
from .coverage import CheckCoverage, PartCover
from .fanout import on_cluster_worker
from .registry import Claim, claims
from .runner import CheckResult, ClaimResult, run_claim
from .verdicts import Outcome, Verdict


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


def one_thread_each() -> None:
    """flint and torch on one thread; setting flint's threads to 1 also ends its thread pool.
    This imports torch, in a worker process: in the fork server, every worker forked from it
    starts with torch loaded."""
    import flint

    flint.ctx.threads = 1
    torch.set_num_threads(1)


def here() -> str:
    """This process, as a crash names where it happened: a cluster worker's address, or the
    process and its host."""
    if on_cluster_worker():
        from distributed import get_worker

        return get_worker().address
    return f"process {os.getpid()} on {platform.node()}"


@dataclasses.dataclass
class ClaimOutcome:
    """What a worker sends back for one claim: what the main process needs to rebuild its
    ClaimResult (a Claim holds functions, which do not cross process boundaries; outcomes do).
    A claim that crashed has no verdict, and ``crash`` says why."""

    claim_id: str
    verdict: Verdict | None
    # Each check's outcome, seconds, object coverage and stated scope (``CheckResult``).
    checks: list[tuple[Outcome, float, CheckCoverage, str | None]]
    seconds: float
    resources: dict
    environment: dict
    crash: str | None = None
    worker: str = ""  # where it ran: a cluster worker's address, or a local process
    covers: list[PartCover] = dataclasses.field(default_factory=list)
    generated_mutants: Any = None  # ``ClaimResult.generated_mutants``
    crash_details: dict = dataclasses.field(default_factory=dict)  # ``CheckCrashed.details()``
    # A claim found malformed as it ran (``registry.malformed``): bad input, which the main
    # process raises as ``ClaimDefinitionError``, as when it runs the claim itself.
    malformed: str | None = None

    @classmethod
    def of(cls, result: ClaimResult) -> ClaimOutcome:
        return cls(result.claim.id, result.verdict,
                   [(r.outcome, r.seconds, r.coverage, r.stated_scope) for r in result.checks], result.seconds,
                   result.resources, result.environment, worker=here(), covers=result.covers,
                   generated_mutants=result.generated_mutants)

    def result(self, claim: Claim, context: Context) -> ClaimResult:
        checks = [CheckResult(check, *measured) for check, measured in zip(claim.checks, self.checks, strict=True)]
        return ClaimResult(claim, self.verdict, checks, context, self.seconds, self.resources, None,
                           {**self.environment, "worker": self.worker}, self.covers,
                           self.generated_mutants)


def run_group(claim_ids: list[str], context: Context, packages: tuple[str, ...],
              prepare: Callable[[ClaimResult], None] | None) -> Iterator[ClaimOutcome]:
    """In a worker: run claims of ``packages`` (default the packaged papers) one after the
    other, yielding each one's outcome (after ``prepare``) as it finishes. A claim whose check
    crashes yields its crash, and the next claim runs."""
    import_every_suite_module()  # (nothing to do after the first time in a process)
    one_thread_each()
    registered = claims(*packages)
    # The code that ran (a cluster's worker may hold other files than the client: ``engine.cluster``).
    software = {**environment.machine(context.device), "software_digest": environment.software_digest(packages)}
    for claim_id in claim_ids:
        try:
            result = run_claim(registered[claim_id], context)
        except CheckCrashed as error:
            yield ClaimOutcome(claim_id, None, [], 0.0, {}, software, str(error), here(),
                               crash_details=error.details())
            continue
        except ClaimDefinitionError as error:
            yield ClaimOutcome(claim_id, None, [], 0.0, {}, software, worker=here(), malformed=str(error))
            return
        result.environment = software
        if prepare is not None:
            prepare(result)
        yield ClaimOutcome.of(result)
