"""The suite from Python: ``theorems.check(id)`` runs one claim, ``theorems.claims()`` lists
the implemented ones. Same claims, contexts, validation and errors as the command line:

>>> import theorems
>>> result = theorems.check("giannou2023.thm6", profile="quick", seed=0)
>>> result.verdict.value
'certified'
"""

from __future__ import annotations

from .engine import settings
from .engine.context import Context
from .engine.parallel import run_claims
from .engine.registry import Claim, resolve
from .engine.registry import claims as registered_claims
from .engine.runner import ClaimResult
from .engine.tasks import import_every_suite_module
from .errors import NotImplementedClaim, TheoremsError, UnknownClaim, UsageError

__all__ = ["Claim", "ClaimResult", "NotImplementedClaim", "TheoremsError", "UnknownClaim", "check", "claims"]


def claims() -> dict[str, Claim]:
    """Every implemented claim (catalog ids and variants), keyed by id."""
    return dict(registered_claims())


def check(claim_id: str, *, profile: str = settings.DEFAULT_PROFILE, seed: int = settings.DEFAULT_SEED,
          device: str = "auto", progress: bool = False) -> ClaimResult:
    """Run one claim's checks and return its result: ``verdict``, per-check ``checks``
    (outcome, evidence, seconds), ``seconds``, ``scope`` (limited by the claims it rests on,
    which run too) and ``to_json()`` (the engine's JSON).

    Raises ``UnknownClaim`` (with the closest ids) or ``NotImplementedClaim`` for an id
    without a verdict, ``UsageError`` for an id that is not a string, ``SettingError`` for a
    bad profile, seed or device (both ``ValueError``s), and ``CheckCrashed`` when a check
    raises instead of returning an outcome; all derive from ``theorems.TheoremsError``.
    """
    if not isinstance(claim_id, str):
        raise UsageError(f"a claim id is a string such as 'giannou2023.lemma6', got {claim_id!r}")
    claim = resolve(claim_id)
    context = Context(settings.validate_profile(profile), settings.validate_seed(seed),
                      settings.resolve_device(device), show_progress=progress)
    # The same modules loaded as in a CLI run, so that the same seed gives the same evidence
    # (Hypothesis draws constants from the source of the modules loaded so far).
    import_every_suite_module()
    [result] = run_claims([claim], context)
    return result
