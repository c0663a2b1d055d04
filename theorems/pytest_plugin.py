"""The suite's pytest plugin, loaded in any project that installs ``theorems`` (the
``pytest11`` entry point ``theorems``).

It gives every project the suite's test options: ``--theorems-profile`` (or
``THEOREMS_PROFILE``; default ci) picks the profile for claim runs and the Hypothesis
profile of the same name, derandomized so that a test run never flakes; ``--run-large`` and
``--run-slow`` add the tests marked ``large`` and ``slow``; the markers are registered here.

A project that gates its own paper names its claim package and manifest, in its pytest
configuration (ini options ``theorems_package``, ``theorems_manifest``) or on the command
line (``--theorems-package``, ``--theorems-manifest``). The manifest file then collects one
test item per claim of the package, marked ``theorem`` and with its check kinds, which runs
the claim and fails with a readable message when the verdict differs from the manifest or
the claim has no entry; a manifest entry that names no claim of the package fails too, as in
``theorems gate``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from .engine import settings
from .errors import ClaimDefinitionError, ClaimPackageError, ManifestError, SettingError, VerdictMismatch

MARKERS = {
    "theorem": "runs a registered claim through its checks and compares the verdict with the gate manifest",
    "symbolic": "the claim has an exact symbolic check (sympy)",
    "randomized": "the claim has a Hypothesis-driven randomized check",
    "certificate": "the claim has an exact-arithmetic certificate (python-flint)",
    "meta": "runs a deliberately broken variant of a claim, which must come out refuted",
    "large": "large instances (thousands of rows); run with --run-large",
    "slow": "long runs beyond the default budget; run with --run-slow",
}

settings.register_test_profiles()


def pytest_addoption(parser):
    group = parser.getgroup("theorems", "executable claims (theorems)")
    group.addoption(
        "--theorems-profile",
        choices=settings.PROFILES,
        default=os.environ.get("THEOREMS_PROFILE", settings.DEFAULT_PROFILE),
        help="profile for claim runs and Hypothesis (env THEOREMS_PROFILE; default %(default)s)",
    )
    group.addoption("--run-large", action="store_true", help="also run tests marked large")
    group.addoption("--run-slow", action="store_true", help="also run tests marked slow")
    group.addoption("--theorems-package", action="append", metavar="MODULE",
                    help="claim package (or module) to gate against --theorems-manifest (repeatable; "
                         "overrides the ini option theorems_package)")
    group.addoption("--theorems-manifest", metavar="FILE",
                    help="gate manifest of --theorems-package (overrides the ini option theorems_manifest)")
    parser.addini("theorems_package", "claim packages (or modules) whose claims the manifest gates", type="args")
    parser.addini("theorems_manifest", "gate manifest (TOML) of theorems_package, relative to the ini file")


def pytest_configure(config):
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")
    profile = config.getoption("--theorems-profile")
    try:
        settings.validate_profile(profile)
    except SettingError:
        raise pytest.UsageError(f"THEOREMS_PROFILE={profile!r} is not one of {', '.join(settings.PROFILES)}") from None
    if not config.getoption("hypothesis_profile", None):  # an explicit --hypothesis-profile wins
        hypothesis_settings.load_profile(profile)


def pytest_collection_modifyitems(config, items):
    for marker in ("large", "slow"):
        if config.getoption(f"--run-{marker}"):
            continue
        skip = pytest.mark.skip(reason=f"{marker} test: run with --run-{marker}")
        for item in items:
            if item.get_closest_marker(marker):
                item.add_marker(skip)


@pytest.fixture(scope="session")
def theorems_profile(pytestconfig):
    return pytestconfig.getoption("--theorems-profile")


def gated_packages(config) -> tuple[list[str], Path | None]:
    """The claim packages and the manifest this run gates (no packages: none)."""
    packages = config.getoption("--theorems-package") or config.getini("theorems_package")
    if not packages:
        return [], None
    manifest = config.getoption("--theorems-manifest")
    if manifest:
        return packages, config.invocation_params.dir / manifest
    manifest = config.getini("theorems_manifest")
    if not manifest:
        raise pytest.UsageError(f"theorems: packages {packages} are gated but no manifest is set "
                                f"(ini option theorems_manifest or --theorems-manifest)")
    base = config.inipath.parent if config.inipath else config.rootpath
    return packages, base / manifest


def pytest_collect_file(file_path, parent):
    packages, manifest = gated_packages(parent.config)
    if manifest is not None and file_path.resolve() == manifest.resolve():
        return ManifestFile.from_parent(parent, path=file_path, packages=packages)
    return None


def claim_marks(claim) -> list[pytest.MarkDecorator]:
    """``theorem`` and the kinds of the claim's checks (``pytest -m certificate``)."""
    return [pytest.mark.theorem] + [getattr(pytest.mark, kind) for kind in sorted({c.kind for c in claim.checks})]


def check_manifest_verdict(claim, manifest: dict, manifest_path: Path, profile: str) -> None:
    """Run ``claim`` at ``profile`` (default seed, CPU) and raise ``VerdictMismatch`` when its
    verdict is not the manifest's, or when a refutation comes without a counterexample."""
    from .engine.context import Context
    from .engine.runner import run_claim
    from .engine.vocabulary import Device, Verdict

    if claim.id not in manifest:
        raise VerdictMismatch(f"{claim.id} has no entry in {manifest_path}: "
                              f"add \"{claim.id}\" = \"<verdict>\" under [verdicts]")
    result = run_claim(claim, Context(profile, settings.DEFAULT_SEED, Device.CPU))
    report = "\n".join(f"  {r.check.name}: {r.outcome.verdict} — {r.outcome.summary}" for r in result.checks)
    if result.verdict is not manifest[claim.id]:
        raise VerdictMismatch(f"{claim.id}: expected {manifest[claim.id]} ({manifest_path}), got {result.verdict} "
                              f"at profile {profile}\n{report}")
    if result.verdict is Verdict.REFUTED and not any(r.outcome.counterexample for r in result.checks):
        raise VerdictMismatch(f"{claim.id}: refuted without a counterexample\n{report}")


class ManifestFile(pytest.File):
    """The gate manifest of the configured claim packages: one item per claim, and one per
    manifest entry that names no claim of the packages."""

    def __init__(self, *, packages: list[str], **kwargs):
        super().__init__(**kwargs)
        self.packages = packages

    def collect(self):
        from .engine.manifest import load_manifest
        from .engine.registry import claims

        try:
            manifest = load_manifest(self.path)
            registered = claims(*self.packages)
        except (ManifestError, ClaimPackageError, ClaimDefinitionError) as error:
            raise self.CollectError(f"theorems: {error}") from None
        if not registered:
            raise self.CollectError(f"theorems: no claims registered by {', '.join(self.packages)}")
        for claim in registered.values():
            item = ClaimItem.from_parent(self, name=claim.id, claim=claim, manifest=manifest)
            for mark in claim_marks(claim):
                item.add_marker(mark)
            yield item
        for claim_id in sorted(manifest.keys() - registered.keys()):
            item = ClaimItem.from_parent(self, name=claim_id, claim=None, manifest=manifest)
            item.add_marker(pytest.mark.theorem)
            yield item


class ClaimItem(pytest.Item):
    def __init__(self, *, claim, manifest: dict, **kwargs):
        super().__init__(**kwargs)
        self.claim = claim
        self.manifest = manifest

    def runtest(self):
        if self.claim is None:
            raise VerdictMismatch(f"{self.name}: in {self.path} as {self.manifest[self.name]} but not a claim of "
                                  f"{', '.join(self.parent.packages)}")
        check_manifest_verdict(self.claim, self.manifest, self.path, self.config.getoption("--theorems-profile"))

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, VerdictMismatch):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"claim {self.name}"
