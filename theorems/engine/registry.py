"""The claim registry: every implemented claim, its checks and its broken variants.

A claim names its objects under test (``subject``: the definition, construction, formula or
feature map the statement is about) and builds every check from them (``takes``). A broken
variant replaces objects, never checks: every check that takes a replaced object is rebuilt
from the broken one and run against it (``engine.mutation``), so a check that cannot tell a
broken object from the genuine one is caught, whichever checks the variant's author had in mind.

A claim module builds ``Claim`` objects and passes them to ``register``. Importing the
engine alone registers nothing; ``claims()`` walks every package of ``CLAIM_PACKAGES``
(``theorems.papers``: one subpackage per paper) and imports each module it finds, so a new
module under ``theorems/papers/<paper>/`` adds its claims to the CLI, the tests, the
meta-tests and the report with no other wiring. The packages are named, not imported,
here: the engine knows no paper.

Another project gates its own paper the same way: ``claims("mypaper.claims")`` walks its
package (or module) instead, and its claims, outside the packaged catalog, state their own
label and statement; the package declares its paper as the packaged ones do
(``engine.papers.register_paper``).
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ClaimDefinitionError, ClaimPackageError, NotImplementedClaim, UnknownClaim
from . import blame
from .catalog import CLAIM_ID, catalog
from .settings import PROFILES
from .verdicts import Outcome
from .vocabulary import CheckKind, Device, Severity, choices

if TYPE_CHECKING:
    from .context import Context

CLAIM_PACKAGES = ["theorems.papers"]


DEFAULT_PART = "statement"


@dataclass(frozen=True)
class Check:
    """One way of testing a claim.

    ``part`` names the conjunct of the claim this check covers (see ``verdicts.combine``); a
    claim whose checks certify one part with different scopes must say so with ``part=``
    (``verdicts.claim_scope``). A ``corroborating`` check can only refute, never lower a
    certification. ``takes`` names the objects of the claim's subject the check was built
    from (set by ``takes``); a check that takes none cannot certify.
    """

    name: str
    kind: CheckKind
    run: Callable[[Context], Outcome]
    part: str | None = None
    corroborating: bool = False
    takes: tuple[str, ...] = ()
    # The objects of ``takes`` that were traced when the check was built (``coverage.traceable``):
    # their calls are recorded while it runs; the others (constants, library objects) are read whole.
    traces: tuple[str, ...] = ()
    explicit_part: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "kind", CheckKind(self.kind))
        except ValueError:
            raise ClaimDefinitionError(f"check {self.name!r}: kind must be one of {choices(CheckKind)}, "
                                       f"not {self.kind!r}") from None
        object.__setattr__(self, "explicit_part", self.part is not None)
        object.__setattr__(self, "part", self.part or DEFAULT_PART)


@dataclass(frozen=True)
class Takes:
    """A check built from named objects of the claim's subject: ``build(*objects)`` returns the
    ``Check``. Write it with ``takes``."""

    names: tuple[str, ...]
    build: Callable[..., Check]

    def check(self, subject: Mapping[str, Any], claim_id: str) -> Check:
        from . import coverage  # (sympy: imported when a claim is built, not by a command that only lists)

        built = self.build(*(coverage.traced(name, subject[name]) for name in self.names))
        if not isinstance(built, Check):
            raise ClaimDefinitionError(f"{claim_id}: a check built from {list(self.names)} is a "
                                       f"{type(built).__name__}, not a Check")
        return Check(built.name, built.kind, built.run, built.part if built.explicit_part else None,
                     built.corroborating, self.names,
                     tuple(name for name in self.names if coverage.traceable(subject[name])))


def takes(*names: str, build: Callable[..., Check]) -> Takes:
    """A check of a claim built from the subject's objects ``names`` (passed to ``build`` in
    that order), so that a broken variant replacing one of them rebuilds it:
    ``takes("detbool", build=exhaustive_check)``."""
    if not names or not all(isinstance(name, str) and name for name in names):
        raise ClaimDefinitionError(f"takes() needs the names of the subject's objects, got {names!r}")
    if not callable(build):
        raise ClaimDefinitionError("takes(): build must be a function of the named objects returning a Check")
    return Takes(tuple(names), build)


@dataclass(frozen=True)
class Broken:
    """A deliberately wrong version of a claim's object under test: ``replaces`` maps names of
    the claim's subject to broken objects (an off-by-one definition, a construction that drops
    a hypothesis, a constant too small). Every check that takes a replaced object is rebuilt
    from it; the variant must come out refuted, and no certifying check may certify it.

    ``refuted_by`` names the explicit case (a ``pinned`` example of ``property_search``, a
    fixed adversarial instance, a size that a certificate always visits) that refutes the
    variant at every seed: a variant caught only when a search happens to draw the right
    input is a check that can silently stop failing.
    """

    description: str
    replaces: Mapping[str, Any]
    refuted_by: str

    def __post_init__(self) -> None:
        if not isinstance(self.replaces, Mapping) or not self.replaces:
            raise ClaimDefinitionError(f"broken variant {self.description!r}: replaces= maps the names of the "
                                       "objects under test to their broken versions (a variant replaces an object, "
                                       "not a check)")
        if not (isinstance(self.refuted_by, str) and self.refuted_by.strip()):
            raise ClaimDefinitionError(f"broken variant {self.description!r}: refuted_by= names the explicit case "
                                       "that refutes it at every seed")


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
    """One claim: where the paper states it, its hypotheses, its objects under test
    (``subject``) and the checks built from them, and broken variants of those objects.

    ``checks`` are ``takes(...)`` entries, turned into the checks built from the genuine
    subject. ``general_argument`` is a prose argument for the sizes no check covers: shown as
    "general argument: not machine-checked", it never widens a certificate's scope.
    """

    id: str
    # Where the paper states the claim ("App. A.2, Theorem 5, Eq. (13)"); the paper itself (title,
    # authors, venue, year, link) is declared once by the claim's package (``engine.papers``).
    source: str
    hypotheses: tuple[str, ...]
    checks: tuple[Check | Takes, ...]
    broken: tuple[Broken, ...]
    notes: str = ""
    # Ids outside the catalog are variants (e.g. "<id>.corrected") and state their own text.
    variant_of: str | None = None
    label: str | None = None
    statement: str | None = None
    depends_on: tuple[str, ...] = field(default=())
    # Set on claims the suite refutes: how much the refutation matters (see ``Erratum``).
    erratum: Erratum | None = None
    subject: Mapping[str, Any] = field(default_factory=dict)
    general_argument: str = ""
    # Why the claim's verdict at the quick profile may be stronger than at ci, or refuted at one
    # and not the other (tests/test_claims.py fails otherwise); shown in the report. Keep it rare:
    # a verdict stronger on less data usually means an overconfident check.
    profile_note: str = ""
    # The memory (GiB) the claim needs to itself, by profile, where it needs more than a worker's
    # share: on one machine it then runs alone, after the others, in the main process with every
    # core's BLAS threads; on a Dask cluster only a worker offering that much MEMORY_GB runs it
    # (``needs``).
    memory_gb_at: Mapping[str, float] = field(default_factory=dict)
    # The objects of the subject each part's statement is about (``coverage.apply_rule``: an all-sizes
    # part evaluates every one of them at symbolic sizes), where they differ from the objects its checks
    # take: more, or fewer where a float check takes a hypothesis or a bounded check a proof's formula. The
    # objects its all-sizes certificates take always count. A part not named here is about the objects its
    # checks take.
    parts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The declared entries, kept so that a variant can rebuild the checks from other objects.
    entries: tuple[Check | Takes, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        if not re.fullmatch(CLAIM_ID, self.id):
            raise ClaimDefinitionError(f"claim id {self.id!r} is not of the form '<paper>.<name>' "
                                       "(e.g. 'mypaper.lemma1')")
        if self.id not in catalog() and not (self.label and self.statement):
            raise ClaimDefinitionError(f"claim {self.id} is not in the packaged catalog: give it its own label= "
                                       "and statement=")
        if not isinstance(self.subject, Mapping):
            raise ClaimDefinitionError(f"{self.id}: subject= maps names to the objects under test")
        for profile, gigabytes in dict(self.memory_gb_at).items():
            if profile not in PROFILES or isinstance(gigabytes, bool) or not isinstance(gigabytes, int | float) \
                    or not gigabytes > 0:
                raise ClaimDefinitionError(f"{self.id}: memory_gb_at= maps profiles ({', '.join(PROFILES)}) to "
                                           f"a positive number of GiB, not {profile!r}: {gigabytes!r}")
        for part, objects in dict(self.parts).items():
            unknown = [name for name in objects if name not in self.subject] if isinstance(objects, tuple) else None
            if unknown is None or not objects or unknown:
                raise ClaimDefinitionError(f"{self.id}: parts= maps each part to a tuple of the subject's objects its "
                                           f"statement is about; {part!r}: {objects!r} (the subject names "
                                           f"{sorted(self.subject)})")
        if not self.entries:
            object.__setattr__(self, "entries", tuple(self.checks))
        for entry in self.entries:
            if isinstance(entry, Takes):
                missing = [name for name in entry.names if name not in self.subject]
                if missing:
                    raise ClaimDefinitionError(f"{self.id}: a check takes {missing}, which the subject "
                                               f"(subject=) does not name; it names {sorted(self.subject)}")
            elif not isinstance(entry, Check):
                raise ClaimDefinitionError(f"{self.id}: checks= holds takes(...) entries (or Checks), "
                                           f"not {type(entry).__name__}")
        object.__setattr__(self, "checks", self._built(self.subject))

    def _built(self, subject: Mapping[str, Any]) -> tuple[Check, ...]:
        return tuple(entry.check(subject, self.id) if isinstance(entry, Takes) else entry for entry in self.entries)

    @property
    def paper(self) -> str:
        return self.id.split(".", 1)[0]

    def catalog_label(self) -> str:
        return self.label or catalog()[self.id].label

    def catalog_statement(self) -> str:
        return self.statement or catalog()[self.id].statement

    def alone_at(self, profile: str) -> bool:
        """Whether the claim needs more memory than a worker's share at ``profile``."""
        return profile in self.memory_gb_at

    def needs(self, profile: str, device: Device) -> dict[str, float]:
        """The Dask resources a worker must offer to run the claim at ``profile`` on ``device``:
        a GPU for every claim of a CUDA run (its checks run on the run's device), and the
        memory the claim declares (``memory_gb_at``)."""
        return {**({"GPU": 1} if device is Device.CUDA else {}),
                **({"MEMORY_GB": float(self.memory_gb_at[profile])} if profile in self.memory_gb_at else {})}

    def with_objects(self, replaces: Mapping[str, Any]) -> Claim:
        """This claim with objects of its subject replaced (a broken variant's), every check
        that takes one of them rebuilt from the replacement."""
        unknown = sorted(set(replaces) - set(self.subject))
        if unknown:
            raise ClaimDefinitionError(f"{self.id}: a broken variant replaces {unknown}, which the subject does not "
                                       f"name; it names {sorted(self.subject)}")
        broken = Claim(**{**self.__dict__, "subject": {**self.subject, **replaces}})
        renamed = [(a.name, b.name) for a, b in zip(self.checks, broken.checks, strict=True) if a.name != b.name]
        if renamed:
            raise ClaimDefinitionError(f"{self.id}: a check's name changes with its objects {renamed}: name checks "
                                       "independently of the objects they take")
        return broken


_REGISTRY: dict[str, Claim] = {}
# The module that registered each claim, so that ``claims(package)`` returns that package's
# claims whatever else this process has imported.
_REGISTERED_BY: dict[str, str] = {}
# The file and line of each claim's register call: where a claim found malformed as it runs is
# named (``malformed``).
_REGISTERED_AT: dict[str, tuple[str, int]] = {}


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
        if not isinstance(broken, Broken):
            raise ClaimDefinitionError(f"{claim.id}: broken= holds Broken variants, not {type(broken).__name__}")
        unchanged = [name for name, value in broken.replaces.items()
                     if name in claim.subject and value is claim.subject[name]]
        if unchanged:
            raise ClaimDefinitionError(f"{claim.id}: broken variant {broken.description!r} replaces {unchanged} by "
                                       "the genuine object itself: it is the claim, not a broken version of it")
        claim.with_objects(broken.replaces)  # validates the replaced names
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
    # The caller's module and line: register is called at the top level of a claim module.
    caller = sys._getframe(1)
    _REGISTERED_BY[claim.id] = caller.f_globals.get("__name__", "")
    _REGISTERED_AT[claim.id] = (caller.f_code.co_filename, caller.f_lineno)
    return claim


def claim_modules(package: str) -> list[str]:
    """Every module under ``package``, found by walking it (sorted, so that registration
    order, and with it every listing, is the same on every machine); a plain module is its
    own only module."""
    if not isinstance(package, str) or not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", package):
        raise ClaimPackageError(f"claim package {package!r} is not a dotted module name (e.g. 'mypaper.claims')")
    try:
        root = importlib.import_module(package)
    except Exception as error:  # anything a package raises on import, named in one line
        raise _not_importable("package", package, error) from error
    if not hasattr(root, "__path__"):
        return [package]
    found = pkgutil.walk_packages(root.__path__, prefix=f"{package}.")
    return sorted(info.name for info in found if not info.ispkg)


def registered_claim(claim_id: str) -> Claim | None:
    """The claim registered under ``claim_id`` so far, by any package, importing none (None
    when there is none)."""
    return _REGISTRY.get(claim_id)


def registering_module(claim_id: str) -> str | None:
    """The module that registered ``claim_id`` (None for a claim never registered)."""
    return _REGISTERED_BY.get(claim_id)


def claim_package(claim_id: str) -> str | None:
    """The top-level package of the module that registered ``claim_id`` when it is another
    project's (``mypaper`` for ``mypaper.claims``); None for the suite's own claims."""
    top = (registering_module(claim_id) or "").split(".", 1)[0]
    return None if top in ("", blame.SUITE) else top


def malformed(claim_id: str, error: ClaimDefinitionError) -> ClaimDefinitionError:
    """``error``, found as ``claim_id`` ran, named with the claim and, for another project's
    claim, the file:line of its register call: the claim author's error, where they can fix it."""
    message = str(error) if claim_id in str(error) else f"{claim_id}: {error}"
    at = _REGISTERED_AT.get(claim_id)  # (none for a claim run without registering it)
    if claim_package(claim_id) is None or at is None:
        return ClaimDefinitionError(message)
    return ClaimDefinitionError(f"{blame.location(*at)}: {message}")


def _not_importable(what: str, name: str, error: Exception) -> ClaimPackageError:
    """A claims module or package that raised ``error`` on import, as bad input in one line that
    names the file:line of its code that raised, when there is one."""
    at = blame.raised_at(error, name.split(".", 1)[0])
    return ClaimPackageError(f"{at + ': ' if at else ''}cannot import claim {what} {name!r}: "
                             f"{type(error).__name__}: {error}")


def claims(*packages: str) -> dict[str, Claim]:
    """The implemented claims of ``packages`` (default ``CLAIM_PACKAGES``: the packaged
    papers), keyed by id in registration order, after importing their modules."""
    packages = packages or tuple(CLAIM_PACKAGES)
    for package in packages:
        for module in claim_modules(package):
            try:
                importlib.import_module(module)
            except Exception as error:  # a claims module that raises anything on import is bad input, named
                raise _not_importable("module", module, error) from error
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
    raise UnknownClaim(claim_id, difflib.get_close_matches(claim_id, known_ids(*packages), n=3, cutoff=0.5),
                       tuple(packages))
