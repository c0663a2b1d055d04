"""The suite from Python: ``theorems.check(id)`` runs one claim, ``theorems.claims()`` lists
the implemented ones. Same claims, contexts and errors as the command line:

>>> import theorems
>>> result = theorems.check("giannou2023.thm6", profile="quick", seed=0)
>>> result.verdict.value
'certified'
"""

from __future__ import annotations

from .engine import profiles
from .engine.context import Context
from .engine.parallel import import_every_suite_module
from .engine.registry import Claim, NotImplementedClaim, UnknownClaim, resolve
from .engine.registry import claims as registered_claims
from .engine.runner import ClaimResult, resolve_device, run_claim

__all__ = ["check", "claims", "ClaimResult", "Claim", "UnknownClaim", "NotImplementedClaim"]


def claims() -> dict[str, Claim]:
    """Every implemented claim (catalog ids and variants), keyed by id."""
    return dict(registered_claims())


def check(claim_id: str, *, profile: str = profiles.DEFAULT_PROFILE, seed: int = profiles.DEFAULT_SEED,
          device: str = "auto", progress: bool = False) -> ClaimResult:
    """Run one claim's checks and return its result: ``verdict``, per-check ``checks``
    (outcome, evidence, seconds), ``seconds`` and ``to_json()`` (the CLI's JSON record).

    Raises ``UnknownClaim`` (with the closest ids) or ``NotImplementedClaim`` for an id
    without a verdict, ``ValueError`` for a bad profile, seed or device, and
    ``CheckCrashed`` when a check raises instead of returning an outcome.
    """
    claim = resolve(claim_id)
    if profile not in profiles.PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {', '.join(profiles.PROFILES)}")
    if not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be an integer in [0, 2^63), got {seed!r}")
    # The same modules loaded as in a CLI run, so that the same seed gives the same evidence
    # (Hypothesis draws constants from the source of the modules loaded so far).
    import_every_suite_module()
    return run_claim(claim, Context(profile, seed, resolve_device(device), show_progress=progress))
