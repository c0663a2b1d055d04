"""The claim registry: every implemented claim, its checks and its broken variants.

A claim module builds ``Claim`` objects and passes them to ``register``. Importing the
engine alone registers nothing; ``claims()`` walks every package of ``CLAIM_PACKAGES``
(``theorems.papers``: one subpackage per paper) and imports each module it finds, so a new
module under ``theorems/papers/<paper>/`` adds its claims to the CLI, the tests, the
meta-tests and the report with no other wiring. The packages are named, not imported,
here: the engine knows no paper.

Another project gates its own paper the same way: ``claims("mypaper.claims")`` walks its
package (or module) instead, and its claims, outside the packaged catalog, state their own
label and statement.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..errors import ClaimDefinitionError, ClaimPackageError, NotImplementedClaim, UnknownClaim
from .catalog import CLAIM_ID, catalog
from .context import Context
from .verdicts import Outcome
from .vocabulary import CheckKind, Severity, choices

CLAIM_PACKAGES = ["theorems.papers"]


@dataclass(frozen=True)
class Check:
    """One way of testing a claim.

    ``part`` names the conjunct of the claim this check covers (see ``verdicts.combine``);
    a ``corroborating`` check can only refute, never lower a certification.
    """

    name: str
    kind: CheckKind
    run: Callable[[Context], Outcome]
    part: str = "statement"
    corroborating: bool = False

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "kind", CheckKind(self.kind))
        except ValueError:
            raise ClaimDefinitionError(f"check {self.name!r}: kind must be one of {choices(CheckKind)}, "
                                       f"not {self.kind!r}") from None


@dataclass(frozen=True)
class Broken:
    """A deliberately wrong version of a claim: the named checks are replaced by the same
    machinery run against a perturbed statement, and each replacement must refute it.

    ``refuted_by`` names the explicit case, pinned in the replaced checks (a ``pinned``
    example of ``property_search``, a fixed adversarial instance, a size that a certificate
    always visits), that refutes the variant at every seed: a variant caught only when a
    search happens to draw the right input is a check that can silently stop failing.
    """

    description: str
    checks: tuple[Check, ...]
    refuted_by: str = ""


@dataclass(frozen=True)
class Erratum:
    """What a refuted claim means for the paper.

    ``severity`` is ``"as-printed"`` when the printed text is false but a reading the
    paper's own proof or surrounding text supports holds and nothing later relies on the
    false reading, and ``"substantive"`` when a later result or proof step relies on it or
    no nearby reading repairs it. ``corrected`` lists the ids of corrected variants.
    Which implemented claims rest on it is computed from ``depends_on`` (``affected_by``).
    """

    severity: Severity
    reason: str
    corrected: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "severity", Severity(self.severity))
        except ValueError:
            raise ClaimDefinitionError(f"erratum severity must be one of {choices(Severity)}, "
                                       f"not {self.severity!r}") from None
        if not self.reason.strip():
            raise ClaimDefinitionError("an erratum needs a reason")


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
    # Set on claims the suite refutes: how much the refutation matters (see ``Erratum``).
    erratum: Erratum | None = None

    def __post_init__(self) -> None:
        if not re.fullmatch(CLAIM_ID, self.id):
            raise ClaimDefinitionError(f"claim id {self.id!r} is not of the form '<paper>.<name>' "
                                       "(e.g. 'mypaper.lemma1')")
        if self.id not in catalog() and not (self.label and self.statement):
            raise ClaimDefinitionError(f"claim {self.id} is not in the packaged catalog: give it its own label= "
                                       "and statement=")

    @property
    def paper(self) -> str:
        return self.id.split(".", 1)[0]

    def catalog_label(self) -> str:
        return self.label or catalog()[self.id].label

    def catalog_statement(self) -> str:
        return self.statement or catalog()[self.id].statement

    def with_checks(self, replacements: tuple[Check, ...]) -> Claim:
        """This claim with the named checks replaced (used to run broken variants)."""
        names = {c.name for c in self.checks}
        unknown = [c.name for c in replacements if c.name not in names]
        if unknown:
            raise ClaimDefinitionError(f"{self.id}: no check named {unknown}")
        by_name = {c.name: c for c in replacements}
        return Claim(**{**self.__dict__, "checks": tuple(by_name.get(c.name, c) for c in self.checks)})


_REGISTRY: dict[str, Claim] = {}
# The module that registered each claim, so that ``claims(package)`` returns that package's
# claims whatever else this process has imported.
_REGISTERED_BY: dict[str, str] = {}


def register(claim: Claim) -> Claim:
    """Add a claim to the registry (called at the top level of its claim module).

    A claim of a packaged paper has a catalog id or is a variant of one (``variant_of``); a
    claim of another paper (``mypaper.lemma1``) states its own label and statement, and may
    vary, or depend on, its own paper's claims and catalog ids.
    """
    entries = catalog()
    packaged_papers = {entry.paper for entry in entries.values()}
    if claim.variant_of is None and claim.id not in entries and claim.paper in packaged_papers:
        raise ClaimDefinitionError(f"{claim.id} is not in the catalog; declare variant_of for a variant id")
    if claim.variant_of is not None and claim.variant_of not in entries and claim.variant_of not in _REGISTRY:
        raise ClaimDefinitionError(f"{claim.id}: variant of unknown id {claim.variant_of}")
    if not claim.checks:
        raise ClaimDefinitionError(f"{claim.id} has no checks")
    names = [c.name for c in claim.checks]
    if len(set(names)) != len(names):
        raise ClaimDefinitionError(f"{claim.id}: check names must be unique, got {names}")
    for broken in claim.broken:
        claim.with_checks(broken.checks)  # validates the replaced names
    if claim.erratum is not None:
        unknown_corrections = [c for c in claim.erratum.corrected if not c.startswith(claim.id + ".")]
        if unknown_corrections:
            raise ClaimDefinitionError(f"{claim.id}: corrected variants must be ids {claim.id}.*, "
                                       f"not {unknown_corrections}")
    # Another paper's claims may also rest on their own paper's ids, registered or not yet.
    own_paper = () if claim.paper in packaged_papers else (f"{claim.paper}.",)
    unknown = [d for d in claim.depends_on
               if d not in entries and not d.startswith((*(f"{e}." for e in entries), *own_paper))]
    if unknown:
        raise ClaimDefinitionError(f"{claim.id} depends on unknown ids {unknown}")
    if claim.id in _REGISTRY:  # after the claim's own checks, so a malformed claim says what is wrong
        raise ClaimDefinitionError(f"{claim.id} registered twice")
    _REGISTRY[claim.id] = claim
    # The caller's module: register is called at the top level of a claim module.
    _REGISTERED_BY[claim.id] = sys._getframe(1).f_globals.get("__name__", "")
    return claim


def claim_modules(package: str) -> list[str]:
    """Every module under ``package``, found by walking it (sorted, so that registration
    order, and with it every listing, is the same on every machine); a plain module is its
    own only module."""
    if not isinstance(package, str) or not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", package):
        raise ClaimPackageError(f"claim package {package!r} is not a dotted module name (e.g. 'mypaper.claims')")
    try:
        root = importlib.import_module(package)
    except ImportError as error:
        raise ClaimPackageError(f"cannot import claim package {package!r}: {error}") from error
    if not hasattr(root, "__path__"):
        return [package]
    found = pkgutil.walk_packages(root.__path__, prefix=f"{package}.")
    return sorted(info.name for info in found if not info.ispkg)


def registering_module(claim_id: str) -> str | None:
    """The module that registered ``claim_id`` (None for a claim never registered)."""
    return _REGISTERED_BY.get(claim_id)


def claims(*packages: str) -> dict[str, Claim]:
    """The implemented claims of ``packages`` (default ``CLAIM_PACKAGES``: the packaged
    papers), keyed by id in registration order, after importing their modules."""
    packages = packages or tuple(CLAIM_PACKAGES)
    for package in packages:
        for module in claim_modules(package):
            try:
                importlib.import_module(module)
            except ImportError as error:
                raise ClaimPackageError(f"cannot import claim module {module!r}: {error}") from error
    inside = tuple(f"{package}." for package in packages)
    return {claim_id: claim for claim_id, claim in _REGISTRY.items()
            if _REGISTERED_BY[claim_id] in packages or _REGISTERED_BY[claim_id].startswith(inside)}


def _listing_order(registered: dict[str, Claim]) -> list[str]:
    """Registered ids outside the catalog, each variant after the claims of the id it varies:
    variants of catalog ids in catalog order, then other papers' claims in registration order."""
    entries = catalog()
    outside = [claim for claim in registered.values() if claim.id not in entries]
    position = {claim_id: index for index, claim_id in enumerate([*entries, *(claim.id for claim in outside)])}
    # Stable: a variant follows its base and the variants registered before it.
    outside.sort(key=lambda claim: position.get(claim.variant_of, position[claim.id]))
    return [claim.id for claim in outside]


def affected_by(claim_id: str) -> list[str]:
    """Implemented claims that rest on ``claim_id``, directly or through other claims'
    ``depends_on`` (a dependency on ``x`` covers its variants ``x.*`` too), in listing order:
    the packaged papers' claims and those of any other claim package imported so far."""
    claims()
    registered = _REGISTRY

    def rests_on(dependency: str, target: str) -> bool:
        return target == dependency or target.startswith(dependency + ".")

    affected: set[str] = set()
    frontier = [claim_id]
    while frontier:
        current = frontier.pop()
        for claim in registered.values():
            resting = any(rests_on(d, current) for d in claim.depends_on)
            if resting and claim.id not in affected and claim.id != claim_id:
                affected.add(claim.id)
                frontier.append(claim.id)
    return [claim_id for claim_id in [*catalog(), *_listing_order(registered)] if claim_id in affected]


def known_ids(*packages: str) -> list[str]:
    """Catalog ids followed by the registered ids outside it, the variants in the catalog
    order of the claims they vary (so the order does not depend on which module defines
    them). With ``packages``, only their claims."""
    registered = claims(*packages)
    inside = [claim_id for claim_id in catalog() if not packages or claim_id in registered]
    return inside + _listing_order(registered)


def resolve(claim_id: str, packages: Sequence[str] = ()) -> Claim:
    """The registered claim with this id (among the claims of ``packages``, default the
    packaged papers), or a clear error naming the closest ids."""
    registered = claims(*packages)
    if claim_id in registered:
        return registered[claim_id]
    if claim_id in catalog() and not packages:
        raise NotImplementedClaim(claim_id)
    raise UnknownClaim(claim_id, difflib.get_close_matches(claim_id, known_ids(*packages), n=3, cutoff=0.5))
