"""The suite's pytest plugin, loaded in any project that installs ``theorems`` (the
``pytest11`` entry point ``theorems``).

A good citizen: in a project that configures nothing it adds options and markers under its
own names and changes nothing else. Its Hypothesis profiles are registered as
``theorems-<profile>`` and loaded by no one but who asks (``--hypothesis-profile
theorems-ci``, or the suite's own conftest.py); claim checks carry their own settings.

A project that gates its own paper names its claim packages and manifest, in its pytest
configuration (ini options ``theorems_package``, ``theorems_manifest``) or on the command
line (``--theorems-package``, ``--theorems-manifest``). Then every pytest run of that project,
whatever paths it is given or walks, gates the claims: one test item per claim of the
packages, marked ``theorem`` and with its check kinds, runs the claim (at
``--theorems-profile``, ``--theorems-seed`` or the ``--theorems-seeds K`` after it, on
``--theorems-device``, as ``theorems gate`` does) and fails with a readable message when the
verdict differs from the manifest or the claim has no entry, when the claim is refuted
without an erratum, or when its broken variants break the mutation rule at the gate's profile
and first seed (``theorems.discipline``: a variant not refuted, a check refuting none, a
certifying check certifying a broken object), or when a generated mutant of a certified claim
survives within its certified scope (a survivor not shown either way is a warning;
``--theorems-no-generated`` skips them, as ``theorems gate --no-generated``); a manifest entry
that names no claim of the packages fails too. A gate that cannot run — no manifest file, a malformed one, a manifest
naming no claim of the packages — stops the run with one line naming the manifest and why (a
usage error), never "no tests ran"; a claims module that raises on import, or defines a
malformed claim, is a collection error of the manifest, one line naming the module and the error.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

from .engine import settings
from .engine.vocabulary import Device
from .errors import (
    CheckCrashed,
    ClaimDefinitionError,
    ClaimPackageError,
    GeneratedMutantWarning,
    ManifestError,
    SettingError,
    TheoremsError,
    VerdictMismatch,
)

MARKERS = {
    "theorem": "runs a registered claim through its checks and compares the verdict with the gate manifest",
    "symbolic": "the claim has an exact symbolic check (sympy)",
    "randomized": "the claim has a randomized search for a counterexample (Hypothesis or random draws)",
    "statistical": "the claim has a statistical test at a stated false-alarm rate",
    "certificate": "the claim has an exact-arithmetic certificate (python-flint)",
}

settings.register_test_profiles()


def pytest_addoption(parser):
    group = parser.getgroup("theorems", "executable claims (theorems)")
    group.addoption(
        "--theorems-profile",
        help=f"profile for claim runs: {', '.join(settings.PROFILES)} (default: ${settings.PROFILE_VARIABLE} when set, "
             f"else {settings.DEFAULT_PROFILE})",
    )
    group.addoption("--theorems-seed", default=str(settings.DEFAULT_SEED), metavar="N",
                    help="run seed of the gated claims (default %(default)s), as `theorems gate --seed`")
    group.addoption("--theorems-seeds", metavar="K",
                    help="gate each claim at the K seeds after --theorems-seed, as `theorems gate --seeds`: "
                         "every seed must give the manifest verdict")
    group.addoption("--theorems-device", default=Device.AUTO.value, metavar="DEVICE",
                    help="where torch-based checks of the gated claims run: auto, cpu or cuda (default %(default)s)")
    group.addoption("--theorems-scheduler", metavar="ADDRESS",
                    help="run the gated claims as tasks of the Dask cluster at ADDRESS, or of a local one ('local'), "
                         f"as `theorems gate --scheduler` (default: ${settings.SCHEDULER_VARIABLE} when set)")
    group.addoption("--theorems-no-generated", action="store_true",
                    help="do not run the generated mutants of the gated claims, as `theorems gate --no-generated`")
    group.addoption("--theorems-package", action="append", metavar="MODULE",
                    help="claim package (or module) to gate against --theorems-manifest (repeatable; "
                         "overrides the ini option theorems_package)")
    group.addoption("--theorems-manifest", metavar="FILE",
                    help="gate manifest of --theorems-package (overrides the ini option theorems_manifest)")
    parser.addini("theorems_package", "claim packages (or modules) whose claims the manifest gates", type="args")
    parser.addini("theorems_manifest", "gate manifest (TOML) of theorems_package, relative to the ini file")


@dataclass(frozen=True)
class Gate:
    """What a project configured: its claim packages and manifest, and how to run them."""

    packages: tuple[str, ...]
    manifest_path: Path
    manifest: dict  # claim id -> Verdict
    scopes: dict | None  # claim id -> scope of each certified claim, when the manifest has [scopes]
    claims: dict  # claim id -> Claim, the claims of the packages
    profile: str
    seeds: tuple[int, ...]
    device: Device
    scheduler: str | None
    generated: bool  # whether the generated mutants of each certified claim run
    # Why the packages' claims could not be loaded (a module raising on import, a malformed
    # claim): collected as an error of the manifest, so that pytest reports a collection error.
    error: str | None = None


_GATE = pytest.StashKey[Gate | None]()


def pytest_configure(config):
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")
    options = run_options(config)
    config.option.theorems_profile = options.profile  # readers of the option see $THEOREMS_PROFILE's profile too
    config.stash[_GATE] = configured_gate(config, options)


@dataclass(frozen=True)
class RunOptions:
    profile: str
    seeds: tuple[int, ...]
    device: str  # as asked (auto, cpu, cuda): resolved only when a gate runs
    scheduler: str | None  # a Dask scheduler's address, "local", or None: this process
    generated: bool  # run the generated mutants (not --theorems-no-generated)


def run_options(config) -> RunOptions:
    """The gate's run options, validated as `theorems gate` validates them."""
    from .engine.manifest import seeds_after

    try:
        asked = config.getoption("--theorems-profile")
        profile = settings.validate_profile(asked) if asked is not None else settings.default_profile()
        seed = settings.validate_seed(config.getoption("--theorems-seed"))
        count = config.getoption("--theorems-seeds")
        seeds = tuple(seeds_after(seed, settings.validate_seed_count(count))) if count is not None else (seed,)
        device = settings.validate_device(config.getoption("--theorems-device"))
        scheduler = config.getoption("--theorems-scheduler")
        scheduler = settings.validate_scheduler(scheduler) if scheduler is not None else settings.default_scheduler()
    except SettingError as error:
        raise pytest.UsageError(f"theorems: {error}") from None
    return RunOptions(profile, seeds, device, scheduler, not config.getoption("--theorems-no-generated"))


def configured_gate(config, options: RunOptions) -> Gate | None:
    """The gate the project configured, checked now so that a gate that cannot run stops
    the run with one line instead of quietly collecting nothing; None when none is set."""
    packages = config.getoption("--theorems-package") or config.getini("theorems_package")
    manifest_option = config.getoption("--theorems-manifest")
    manifest_ini = config.getini("theorems_manifest")
    if not packages and not (manifest_option or manifest_ini):
        return None
    if not packages:
        raise pytest.UsageError("theorems: a gate manifest is set (theorems_manifest / --theorems-manifest) but no "
                                "claim package (ini option theorems_package or --theorems-package)")
    if manifest_option:
        path = config.invocation_params.dir / manifest_option
    elif manifest_ini:
        path = (config.inipath.parent if config.inipath else config.rootpath) / manifest_ini
    else:
        raise pytest.UsageError(f"theorems: packages {', '.join(packages)} are gated but no manifest is set "
                                "(ini option theorems_manifest or --theorems-manifest)")
    from .engine.manifest import load_manifest, load_scopes
    from .engine.registry import claims

    try:
        device = settings.resolve_device(options.device)
    except SettingError as error:
        raise pytest.UsageError(f"theorems: {error}") from None
    if not path.is_file():
        raise pytest.UsageError(f"theorems: gate manifest {path} not found (theorems_manifest / --theorems-manifest): "
                                "the claims of " + ", ".join(packages) + " cannot be gated")
    try:
        manifest = load_manifest(path)
        scopes = load_scopes(path)
    except ManifestError as error:
        raise pytest.UsageError(f"theorems: {error}") from None
    try:
        registered = claims(*packages)
    except (ClaimPackageError, ClaimDefinitionError) as error:
        return Gate(tuple(packages), path, manifest, scopes, {}, options.profile, options.seeds, device,
                    options.scheduler, options.generated, str(error))
    if not registered:
        raise pytest.UsageError(f"theorems: no claims registered by {', '.join(packages)} (gated by {path})")
    if not manifest.keys() & registered.keys():
        raise pytest.UsageError(f"theorems: gate manifest {path} names no claim of {', '.join(packages)}")
    return Gate(tuple(packages), path, manifest, scopes, registered, options.profile, options.seeds, device,
                options.scheduler, options.generated)


@pytest.hookimpl(tryfirst=True)  # before -k/-m deselection, which then applies to the claims too
def pytest_collection_modifyitems(session, config, items):
    """Collect the gated claims from the configuration, whatever paths this run walked."""
    gate = config.stash.get(_GATE, None)
    if gate is None:
        return
    manifest = ManifestFile.from_parent(session, path=gate.manifest_path, gate=gate)
    if gate.error is None:
        collected = list(manifest.collect())
        items.extend(collected)
        # Reported as the items of a walked file are, so that "collected N items" counts them.
        manifest.ihook.pytest_collectreport(report=pytest.CollectReport(manifest.nodeid, "passed", None, collected))
        return
    # Reported as pytest reports a file it cannot collect: "ERROR collecting", and the run
    # stops after collection (exit 2), as the command line exits 2 for the same package.
    report = pytest.CollectReport(manifest.nodeid, "failed", f"theorems: {gate.error}", [])
    manifest.ihook.pytest_collectreport(report=report)


@pytest.fixture(scope="session")
def theorems_profile(pytestconfig):
    return pytestconfig.getoption("--theorems-profile")


def claim_marks(claim) -> list[pytest.MarkDecorator]:
    """``theorem`` and the kinds of the claim's checks (``pytest -m certificate``)."""
    kinds = sorted({check.kind.value for check in claim.checks})  # plain strings: xdist serializes marks
    return [pytest.mark.theorem] + [getattr(pytest.mark, kind) for kind in kinds]


def check_manifest_verdict(claim, manifest: dict, manifest_path: Path, profile: str,
                           seeds: tuple[int, ...] = (settings.DEFAULT_SEED,), device: Device = Device.CPU,
                           scopes: dict | None = None, packages: tuple[str, ...] = (),
                           scheduler: str | None = None, properties: list | None = None) -> list:
    """Run ``claim`` (with the claims of ``packages`` it rests on, which limit its scope) at
    ``profile`` at each of ``seeds`` on ``device`` (on the Dask cluster ``scheduler``, when
    given) and raise
    ``VerdictMismatch`` when a verdict is not the manifest's, when a certification's scope
    and the manifest's ``scopes`` disagree on covering every size, or when a refutation
    comes without a counterexample; return the results, one per seed. ``properties`` (a test's
    ``user_properties``, which pytest's --junitxml writes) gets each seed's verdict and scope."""
    from .engine.context import Context
    from .engine.manifest import scope_difference
    from .engine.parallel import run_claims
    from .engine.vocabulary import Verdict

    if claim.id not in manifest:
        raise VerdictMismatch(f"{claim.id} has no entry in {manifest_path}: "
                              f"add \"{claim.id}\" = \"<verdict>\" under [verdicts]")
    results = []
    for seed in seeds:
        [result] = run_claims([claim], Context(profile, seed, device), packages=packages, scheduler=scheduler)
        results.append(result)
        if properties is not None:
            at_seed = "" if len(seeds) == 1 else f" (seed {seed})"
            properties.append(("verdict", f"{result.verdict}{at_seed}"))
            properties += [("scope", f"{result.scope}{at_seed}")] if result.scope is not None else []
        report = "\n".join(f"  {r.check.name}: {r.outcome.verdict} — {r.outcome.summary}" for r in result.checks)
        at = f"at profile {profile}" + (f", seed {seed}" if seeds != (settings.DEFAULT_SEED,) else "")
        if result.verdict is not manifest[claim.id]:
            raise VerdictMismatch(f"{claim.id}: expected {manifest[claim.id]} ({manifest_path}), got {result.verdict} "
                                  f"{at}\n{report}")
        scope = result.scope  # for every claim: checks that certify one part with different scopes raise here
        difference = scope_difference(claim.id, scopes[claim.id], scope) if claim.id in (scopes or {}) else None
        if difference:
            raise VerdictMismatch(f"{difference} ({manifest_path}) {at}\n{report}")
        if result.verdict is Verdict.REFUTED and not any(r.outcome.counterexample for r in result.checks):
            raise VerdictMismatch(f"{claim.id}: refuted without a counterexample {at}\n{report}")
    return results


def check_discipline(results: list, generated: bool = True) -> None:
    """Raise ``VerdictMismatch`` when the claim of ``results`` (its runs, one per seed) breaks
    the erratum or paper rule, its broken variants the mutation rule, or (with ``generated``, a
    certified claim) a generated mutant survives within the certified scope, both at the first
    run's profile and seed (``theorems.discipline``); a generated survivor not shown either way
    is a warning."""
    from .discipline import erratum_failure, generated_mutant_failures, mutation_failures, paper_failure
    from .engine.mutation import mutation_test
    from .engine.vocabulary import Verdict

    first = results[0]
    lines = list(dict.fromkeys(line for result in results if (line := erratum_failure(result))))
    lines += [line] if (line := paper_failure(first)) else []
    lines += mutation_failures(mutation_test(first.claim, first.context, first))
    if generated and first.verdict is Verdict.CERTIFIED:
        from .engine.generated_mutants import generated_mutation_test

        failures, unshown = generated_mutant_failures(generated_mutation_test(first.claim, first.context, first))
        lines += failures
        for line in unshown:
            warnings.warn(GeneratedMutantWarning(line), stacklevel=1)
    if lines:
        raise VerdictMismatch("\n".join(lines))


class ManifestFile(pytest.File):
    """The gate manifest of the configured claim packages: one item per claim, and one per
    manifest entry that names no claim of the packages."""

    def __init__(self, *, gate: Gate, **kwargs):
        super().__init__(**kwargs)
        self.gate = gate

    def collect(self):
        for claim in self.gate.claims.values():
            item = ClaimItem.from_parent(self, name=claim.id, claim=claim)
            for mark in claim_marks(claim):
                item.add_marker(mark)
            yield item
        for claim_id in sorted(self.gate.manifest.keys() - self.gate.claims.keys()):
            item = ClaimItem.from_parent(self, name=claim_id, claim=None)
            item.add_marker(pytest.mark.theorem)
            yield item


class ClaimItem(pytest.Item):
    def __init__(self, *, claim, **kwargs):
        super().__init__(**kwargs)
        self.claim = claim

    def runtest(self):
        gate = self.parent.gate
        if self.claim is None:
            raise VerdictMismatch(f"{self.name}: in {self.path} as {gate.manifest[self.name]} but not a claim of "
                                  f"{', '.join(gate.packages)}")
        results = check_manifest_verdict(self.claim, gate.manifest, self.path, gate.profile, gate.seeds, gate.device,
                                         gate.scopes, gate.packages, gate.scheduler, self.user_properties)
        check_discipline(results, gate.generated)

    def repr_failure(self, excinfo):
        error = excinfo.value
        if isinstance(error, CheckCrashed):
            # A defect, in the claim's code or the suite's: the traceback of the exception the check
            # raised shows where, followed by the suite's line; raised in another process (a
            # cluster's worker), the traceback kept there.
            original = error
            while isinstance(original, CheckCrashed):
                original = original.__cause__
            if original is None:
                kept = getattr(error, "crashes", None) or [{"reason": str(error), **error.details()}]
                return "".join(crash.get("traceback", crash["reason"] + "\n") for crash in kept) + str(error)
            shown = super().repr_failure(pytest.ExceptionInfo.from_exception(original))
            if hasattr(shown, "addsection"):
                shown.addsection("theorems", str(error))
            return shown
        # The suite's other errors (a verdict that differs, a malformed claim) say what is wrong in
        # a line or a few: a traceback adds nothing.
        if isinstance(error, TheoremsError):
            return str(error)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"claim {self.name}"
