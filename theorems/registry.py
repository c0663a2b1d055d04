"""The claim registry: every implemented claim, its checks and its broken variants.

A claim module builds ``Claim`` objects and passes them to ``register``. Importing
``theorems.registry`` alone registers nothing; ``claims()`` imports every module listed in
``CLAIM_MODULES``, so adding a module there adds its claims to the CLI, the tests, the
meta-tests and the report with no other wiring.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass, field
from typing import Callable

from .catalog import catalog
from .context import Context
from .verdicts import Outcome

CLAIM_MODULES = (
    "theorems.linear_algebra",  # giannou2023 App. A.1–A.3
    "theorems.khatri_rao",  # giannou2023 App. A.4–C
    "theorems.sparse_khatri_rao",  # giannou2023 App. D: Boolean determinant, Lemma 9
    "theorems.bernoulli_dominance",  # giannou2023 App. D: Lemma 10
    "theorems.sparsification",  # giannou2023 App. D, Sec. 4.3: sparsity thresholds
    "theorems.markov_algebra",  # daneshmand2020: exact and symbolic claims on M(H)
    "theorems.markov_dynamics",  # daneshmand2020: one chain step, rank-one chains, gradients
    "theorems.markov_chain",  # daneshmand2020: statistical claims on BN chains
)

CHECK_KINDS = ("symbolic", "randomized", "certificate")


@dataclass(frozen=True)
class Check:
    """One way of testing a claim.

    ``part`` names the conjunct of the claim this check covers (see ``verdicts.combine``);
    a ``corroborating`` check can only refute, never lower a certification.
    """

    name: str
    kind: str
    run: Callable[[Context], Outcome]
    part: str = "statement"
    corroborating: bool = False

    def __post_init__(self) -> None:
        if self.kind not in CHECK_KINDS:
            raise ValueError(f"check {self.name!r}: kind must be one of {CHECK_KINDS}, not {self.kind!r}")


@dataclass(frozen=True)
class Broken:
    """A deliberately wrong version of a claim: the named checks are replaced by the same
    machinery run against a perturbed statement, and each replacement must refute it."""

    description: str
    checks: tuple[Check, ...]


@dataclass(frozen=True)
class Claim:
    id: str
    source: str
    hypotheses: tuple[str, ...]
    checks: tuple[Check, ...]
    broken: tuple[Broken, ...]
    notes: str = ""
    # Ids outside the catalog are variants (e.g. "<id>.corrected") and state their own text.
    variant_of: str | None = None
    label: str | None = None
    statement: str | None = None
    depends_on: tuple[str, ...] = field(default=())

    @property
    def paper(self) -> str:
        return self.id.split(".", 1)[0]

    def catalog_label(self) -> str:
        return self.label or catalog()[self.id].label

    def catalog_statement(self) -> str:
        return self.statement or catalog()[self.id].statement

    def with_checks(self, replacements: tuple[Check, ...]) -> "Claim":
        """This claim with the named checks replaced (used to run broken variants)."""
        names = {c.name for c in self.checks}
        unknown = [c.name for c in replacements if c.name not in names]
        if unknown:
            raise ValueError(f"{self.id}: no check named {unknown}")
        by_name = {c.name: c for c in replacements}
        return Claim(**{**self.__dict__, "checks": tuple(by_name.get(c.name, c) for c in self.checks)})


_REGISTRY: dict[str, Claim] = {}


def register(claim: Claim) -> Claim:
    entries = catalog()
    if claim.variant_of is None and claim.id not in entries:
        raise ValueError(f"{claim.id} is not in the catalog; declare variant_of for a variant id")
    if claim.variant_of is not None:
        if claim.variant_of not in entries:
            raise ValueError(f"{claim.id}: variant of unknown id {claim.variant_of}")
        if not (claim.label and claim.statement):
            raise ValueError(f"variant {claim.id} needs its own label and statement")
    if claim.id in _REGISTRY:
        raise ValueError(f"{claim.id} registered twice")
    if not claim.checks:
        raise ValueError(f"{claim.id} has no checks")
    names = [c.name for c in claim.checks]
    if len(set(names)) != len(names):
        raise ValueError(f"{claim.id}: check names must be unique, got {names}")
    for broken in claim.broken:
        claim.with_checks(broken.checks)  # validates the replaced names
    unknown = [d for d in claim.depends_on if d not in entries and not d.startswith(tuple(f"{e}." for e in entries))]
    if unknown:
        raise ValueError(f"{claim.id} depends on unknown ids {unknown}")
    _REGISTRY[claim.id] = claim
    return claim


def claims() -> dict[str, Claim]:
    """Every implemented claim, keyed by id, after importing the claim modules."""
    for module in CLAIM_MODULES:
        importlib.import_module(module)
    return _REGISTRY


def known_ids() -> list[str]:
    """Catalog ids followed by registered variant ids."""
    ids = list(catalog())
    ids += [claim_id for claim_id in claims() if claim_id not in catalog()]
    return ids


class UnknownClaim(LookupError):
    def __init__(self, claim_id: str, suggestions: list[str]):
        self.claim_id = claim_id
        self.suggestions = suggestions
        hint = f"; closest: {', '.join(suggestions)}" if suggestions else ""
        super().__init__(f"unknown claim id {claim_id!r}{hint}")


class NotImplementedClaim(LookupError):
    def __init__(self, claim_id: str):
        self.claim_id = claim_id
        super().__init__(f"{claim_id} is in the catalog but not implemented yet (no verdict)")


def resolve(claim_id: str) -> Claim:
    """The registered claim with this id, or a clear error naming the closest ids."""
    registered = claims()
    if claim_id in registered:
        return registered[claim_id]
    if claim_id in catalog():
        raise NotImplementedClaim(claim_id)
    raise UnknownClaim(claim_id, difflib.get_close_matches(claim_id, known_ids(), n=3, cutoff=0.5))
