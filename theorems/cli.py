"""The ``theorems`` command line: list, check, report, gate, meta, reproduce, enumerate, bench.

Exit codes (also in --help and the README):
  0  success (for ``check`` and ``report``, whatever the verdicts are)
  1  ``gate``: some verdict differs from the manifest, or a claim breaks the erratum or
     mutation rule, or (``--package``) a generated mutant survives within its certified scope
     (``theorems.discipline``); ``report --package``: a claim breaks those rules (marked in the
     report; generated mutants with ``--mutants``); ``meta``: a claim breaks the mutation rule
  2  bad input: unknown claim id, claim not implemented, bad option value or setting
     (``THEOREMS_PROFILE``, ``THEOREMS_SCHEDULER``), unwritable report folder, ``--device cuda``
     without a GPU, a claims module that cannot be imported or defines a malformed claim
  3  a check crashed instead of returning a verdict: an internal error, or (``--package``) an
     error in the package's own code, named with its file:line
  128 + N  stopped by signal N: 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP (``report`` first writes
     the claims that finished)
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__
from .engine import settings
from .engine.catalog import catalog
from .engine.registry import claims, known_ids, resolve
from .engine.vocabulary import Device, Verdict
from .errors import (
    CheckCrashed,
    ClaimDefinitionError,
    ClaimPackageError,
    ClaimsCrashed,
    Interrupted,
    NotImplementedClaim,
    SchedulerLost,
    SettingError,
    TheoremsError,
    UnknownClaim,
    UsageError,
)

if TYPE_CHECKING:  # imported where used: `theorems list` and `--help` start without numpy, sympy or torch
    from .engine.context import Context

# Where the command line looks when not told: the suite's own manifest and report folders,
# relative to the working directory (a checkout of the suite).
MANIFEST_PATH = Path("tests") / "claims.toml"
REPORTS_FOLDER = Path("reports")

EXIT_SCHEDULER_LOST = 5
EXIT_CODES = """exit codes:
  0  success (check and report succeed whatever the verdicts are)
  1  gate: a verdict differs from the manifest, or a claim breaks the erratum
     or mutation rule, or (--package) a generated mutant survives within its
     certified scope; report --package: a claim breaks those rules (marked in
     the report); meta: a claim breaks the mutation rule
  2  bad input: unknown or unimplemented claim id, bad option value or
     THEOREMS_* setting, unwritable report folder, --device cuda without a
     GPU, a claims module that cannot be imported or defines a malformed claim
  3  a check crashed instead of returning a verdict: an internal error, or
     (--package) an error in the package's code, named with its file:line
  5  --scheduler: the Dask scheduler was lost and did not answer again within
     30 s; report first writes a report of the claims that finished
  128+N  stopped by signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP); report
     first writes a report of the claims that finished"""


EXIT_CODES_REPRODUCE = """exit codes:
  0  the same claim, verdict, scope, sizes and evidence, re-run on the record's device
  1  the record was edited by hand (its digest does not cover what it holds), or the claim
     (id, statement, hypotheses, source), the verdict, scope, sizes or evidence differs
     (the differences are printed, numeric paths in order)
  2  bad input: not a record, unknown claim id, a claim package (--package, else the
     record's) that cannot be imported, --device cuda without a GPU
  3  internal error: a check crashed instead of returning a verdict
  4  the verdict matches but the evidence was not compared: re-run on another device than
     the record's (this machine lacks it, or --device asked for another)"""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage dump
        raise UsageError(message, self.prog)


def _option(validator):
    """An argparse ``type`` from one of ``settings``' validators, so that the command line,
    the Python API and the pytest plugin accept and reject the same values."""
    def parse(text: str):
        try:
            return validator(text)
        except SettingError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    parse.__name__ = validator.__name__.removeprefix("validate_")  # argparse names it in errors
    return parse


DEVICE_CHOICES = tuple(device.value for device in Device)


def _run_options(parser: argparse.ArgumentParser, profile: str = settings.DEFAULT_PROFILE, jobs: int = 1,
                 jobs_note: str = "") -> None:
    parser.add_argument("--profile", choices=settings.PROFILES,
                        help=f"how hard the checks try (default: ${settings.PROFILE_VARIABLE} when set, "
                             f"else {profile})")
    parser.set_defaults(profile_fallback=profile)
    parser.add_argument("--seed", type=_option(settings.validate_seed), default=settings.DEFAULT_SEED,
                        help="run seed (default %(default)s)")
    parser.add_argument("--device", choices=DEVICE_CHOICES, default=Device.AUTO.value,
                        help="where torch-based checks run (default %(default)s)")
    parser.add_argument("--progress", action="store_true",
                        help="progress bars on stderr (default when it is a terminal)")
    parser.add_argument("--jobs", type=_option(settings.validate_jobs), default=jobs, metavar="N",
                        help="run claims in N worker processes, at most one per core and as many as fit in memory; "
                             f"verdicts and evidence do not depend on N (default {jobs_note or jobs})")
    parser.add_argument("--scheduler", type=_option(settings.validate_scheduler), metavar="ADDRESS",
                        help="run claims as tasks of the Dask cluster at ADDRESS (tcp://host:8786), or of a local one "
                             "of --jobs workers ('local'); needs the cluster extra (default: "
                             f"${settings.SCHEDULER_VARIABLE} when set, else this machine's processes)")


def _show_progress(args) -> bool:
    """Progress bars on stderr: with --progress, else only when stderr is a terminal (never
    into a redirected file or pipe). Every command that draws a bar asks here."""
    return args.progress or sys.stderr.isatty()


def _context(args) -> Context:
    from .engine.context import Context

    return Context(args.profile, args.seed, settings.resolve_device(args.device), show_progress=_show_progress(args))


def default_manifest_path() -> Path:
    """The suite's gate manifest: tests/claims.toml in the working directory, else in the
    source tree the suite runs from (an editable install). An installed wheel has none: the
    manifest belongs to the suite's tests, not to the package."""
    for path in (Path.cwd() / MANIFEST_PATH, Path(__file__).resolve().parents[1] / MANIFEST_PATH):
        if path.is_file():
            return path
    raise UsageError(f"the suite's own gate manifest, {MANIFEST_PATH}, is in a checkout of the suite, not in an "
                     "installed copy: run there, pass --manifest FILE, or gate your own paper with --package MODULE")


def project_manifest_path(folder: Path) -> Path:
    """The gate manifest of another project, run from its ``folder``: the ``theorems_manifest``
    of its pytest configuration there (pytest.ini, pyproject.toml, tox.ini, setup.cfg, in the
    order pytest reads them; relative to that file), else ``claims.toml`` in ``folder``. Never
    the suite's own manifest: a foreign package compared with it would fail for no reason
    or, worse, pass."""
    configured = _pytest_ini_option(folder, "theorems_manifest")
    if configured:
        return folder / configured
    if (folder / "claims.toml").is_file():
        return folder / "claims.toml"
    raise UsageError(f"no gate manifest for --package in {folder}: set theorems_manifest in its pytest "
                     "configuration, put a claims.toml there, or pass --manifest")


def _pytest_ini_option(folder: Path, name: str) -> str | None:
    """An ini option from the pytest configuration file in ``folder`` (the first of those pytest
    reads that has a pytest section)."""
    import configparser
    import tomllib

    candidates = (("pytest.ini", "pytest"), ("pyproject.toml", None), ("tox.ini", "pytest"),
                  ("setup.cfg", "tool:pytest"))
    for filename, section in candidates:
        path = folder / filename
        if not path.is_file():
            continue
        try:
            if section is None:
                table = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("pytest", {})
                options = table.get("ini_options") if isinstance(table, dict) else None
            else:
                parser = configparser.ConfigParser(interpolation=None)
                parser.read(path, encoding="utf-8")
                options = dict(parser[section]) if parser.has_section(section) else None
        except (OSError, UnicodeDecodeError, ValueError, configparser.Error) as error:
            raise UsageError(f"cannot read the pytest configuration {path}: {error}") from None
        if options is None and filename != "pytest.ini":
            continue  # pytest.ini is the configuration even without a [pytest] section
        value = (options or {}).get(name)
        return str(value).strip() if value else None
    return None


def _manifest_path(args) -> Path:
    """--manifest, else the packages' project manifest (with --package), else the suite's."""
    if args.manifest:
        return Path(args.manifest)
    return project_manifest_path(Path.cwd()) if args.package else default_manifest_path()


def _package_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--package", action="append", metavar="MODULE",
                        help="the claims of this package or module (another project's paper; repeatable) "
                             "instead of the packaged papers; imported as `python -m` would, the working directory "
                             "first on the module path")


def _working_directory_first() -> None:
    """Put the working directory first on the module path, as `python -m` does, so that
    --package finds a project's package in the folder the command runs in: a console script's
    path starts at the script's own folder instead. Called before the worker server starts,
    which inherits this path."""
    here = os.getcwd()
    if not sys.path or os.path.abspath(sys.path[0] or os.curdir) != here:
        sys.path.insert(0, here)


def _selected_claims(args) -> dict:
    """The claims of the --package modules, else of the packaged papers. A package that
    cannot be imported, or registers no claims, is bad input."""
    if not args.package:
        return claims()
    try:
        found = claims(*args.package)
    except (ClaimPackageError, ClaimDefinitionError) as error:
        raise UsageError(str(error) + _missing_package_hint(error, args.package)) from None
    if not found:
        raise UsageError(f"no claims registered by {', '.join(args.package)}")
    return found


def _once_each(values: list, what: str) -> None:
    """Bad input when a value is given twice: a typo, most likely, which would otherwise run
    the same thing twice and count it as two."""
    repeated = sorted({value for value in values if values.count(value) > 1})
    if repeated:
        raise UsageError(f"{what} given more than once: {', '.join(map(str, repeated))}")


def _missing_package_hint(error: Exception, packages: list[str]) -> str:
    """Where to look, when what is missing is the top-level package of a --package, not a
    module inside it or something it imports."""
    missing = error.__cause__
    if not isinstance(missing, ModuleNotFoundError) or missing.name not in {p.split(".")[0] for p in packages}:
        return ""
    return (f" ({missing.name} is neither in the working directory {os.getcwd()} nor installed: run from the folder "
            f"that holds {missing.name}/, or install it)")


def _resolve_all(ids: list[str], packages: list[str] | None = None):
    _once_each(ids, "claim id")
    return [resolve(claim_id, packages or ()) for claim_id in ids]


def counted(count: int, noun: str) -> str:
    """'1 claim', '2 claims'."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _folder(text: str) -> str:
    """An argparse type for a path the command writes or reads: never empty (an empty path
    would silently mean the working directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the path is empty")
    return text


def _run_claims(selected, context: Context, progress_label: str, args, prepare=None):
    from .engine.parallel import run_claims
    from .report import claim_seconds

    # With several jobs, the longest claims go first, as timed by the last report of this
    # profile (or the committed thorough one).
    expected = {}
    if args.jobs > 1 or args.scheduler:
        for profile in ("thorough", context.profile):
            expected.update(claim_seconds(REPORTS_FOLDER / profile / "report.json"))
    return run_claims(selected, context, args.jobs, desc=progress_label, expected_seconds=expected,
                      packages=args.package or (), prepare=prepare, scheduler=args.scheduler)


def _manifest_expectations(packages: list[str] | None) -> tuple[dict, dict]:
    """The manifest's verdicts and scopes for `list` (none when there is no readable manifest)."""
    from .engine.manifest import load_manifest, load_scopes
    from .errors import ManifestError

    try:
        path = project_manifest_path(Path.cwd()) if packages else default_manifest_path()
        return load_manifest(path), load_scopes(path) or {}
    except (ManifestError, UsageError):
        return {}, {}


def command_list(args) -> int:
    from .engine.listing import listing_of, packaged_listing
    from .engine.verdicts import shown_verdict

    # The packaged papers from the index the package carries, without importing their claim
    # modules (seconds of sympy, flint and numpy); another project's claims by importing them.
    listing = listing_of(_selected_claims(args), known_ids(*args.package)) if args.package else packaged_listing()
    expected, scopes = _manifest_expectations(args.package)
    rows = []
    for claim_id in listing.ids:
        entry = catalog().get(claim_id)
        claim = listing.claims.get(claim_id)
        paper = claim_id.split(".", 1)[0]
        rows.append({
            "id": claim_id,
            "paper": paper,
            # title, authors, venue, year and link, so that a script needs no second table (None: undeclared)
            "paper_metadata": listing.papers[paper],
            "source": claim["source"] if claim else None,  # where the paper states it: "App. A.2, Theorem 5"
            "label": entry.label if entry else claim["label"],
            "statement": entry.statement if entry else claim["statement"],
            "implemented": claim is not None,
            "core": bool(entry and entry.core),
            "variant_of": claim["variant_of"] if claim else None,
            "check_kinds": claim["check_kinds"] if claim else [],
            "general_argument": claim["general_argument"] if claim else None,
            "expected_verdict": expected[claim_id].value if claim_id in expected else None,
            "expected_scope": scopes.get(claim_id),
        })
    if args.json:
        print(json.dumps(rows, indent=1, ensure_ascii=False))
    elif args.markdown:
        print(markdown_claims_table(rows))
    else:
        # Columns as wide as their longest entry, so that a long id never shifts the others.
        id_width = max(len("id"), *(len(row["id"]) for row in rows))
        label_width = max(len("label"), *(len(row["label"]) for row in rows))
        print(f"{'id':<{id_width}}  {'label':<{label_width}}  verdict in the manifest (or status)")
        for row in rows:
            status = (shown_verdict(row["expected_verdict"], row["expected_scope"]) if row["expected_verdict"]
                      else "implemented" if row["implemented"] else "not implemented")
            print(f"{row['id']:<{id_width}}  {row['label']:<{label_width}}  {status}")
    return 0


def markdown_claims_table(rows: list[dict]) -> str:
    """The README's claims table: one row per claim (its id names its paper), verdicts and
    scopes from the gate manifest. Only a scope the machine checks for every size reads "all
    sizes, machine-checked"; a claim whose argument for the sizes past its scope is prose says
    "general argument: not machine-checked"."""
    from .engine.verdicts import ALL_SIZES
    from .report.document import GENERAL_ARGUMENT_LABEL, MACHINE_CHECKED_ALL_SIZES

    lines = ["| id | label | checks | verdict |", "|---|---|---|---|"]
    for row in rows:
        scope = row["expected_scope"]
        qualifiers = [MACHINE_CHECKED_ALL_SIZES if scope == ALL_SIZES else scope] if scope else []
        if row["general_argument"] and scope != ALL_SIZES:
            qualifiers.append(GENERAL_ARGUMENT_LABEL)
        shown = f" ({'; '.join(qualifiers)})" if qualifiers else ""
        verdict = f"**{row['expected_verdict']}**{shown}" if row["expected_verdict"] else "not implemented"
        core = " (core)" if row["core"] else ""
        lines.append(f"| `{row['id']}`{core} | {row['label']} | {', '.join(row['check_kinds'])} | {verdict} |")
    return "\n".join(lines)


def command_check(args) -> int:
    _selected_claims(args)  # an unimportable --package is named before any id
    selected = _resolve_all(args.ids, args.package)
    context = _context(args)
    results = _run_claims(selected, context, "claims", args)
    if args.json:
        from .engine.environment import describe
        from .report import claim_document

        environment = describe(context, tuple(args.package or ()))
        print(json.dumps([{**claim_document(r), "environment": environment} for r in results], indent=1,
                         ensure_ascii=False))
        return 0
    from .engine.verdicts import shown_verdict

    for result in results:
        print(f"{result.claim.id}: {shown_verdict(result.verdict, result.scope)}  ({result.seconds:.1f} s, "
              f"seed {context.seed}, "
              f"profile {context.profile})")
        for check in result.checks:
            outcome = check.outcome
            print(f"  - {check.check.name} [{check.check.kind}]: {shown_verdict(outcome.verdict, outcome.scope)} — "
                  f"{outcome.summary}")
    return 0


def command_report(args) -> int:
    from . import report
    from .engine import environment

    registered = _selected_claims(args)  # an unimportable --package is named before any id or folder
    selected = _resolve_all(args.ids, args.package) if args.ids else list(registered.values())
    out = Path(args.out) if args.out else REPORTS_FOLDER / args.profile
    report.ensure_writable(out)
    context = _context(args)
    started = time.perf_counter()
    stopped, crashes, lost = None, [], None
    # With --mutants, each certified claim's generated mutants run right after it, where it ran.
    prepare = report.FiguresAndMutants(frozenset(claim.id for claim in selected)) if args.mutants \
        else report.render_figures
    try:
        results = _run_claims(selected, context, "claims", args, prepare=prepare)
    except Interrupted as interruption:  # keep what finished: a partial report that says so
        results, stopped = interruption.finished, interruption.signum
    except ClaimsCrashed as crash:  # the same, naming the claims that crashed and why
        results, crashes = crash.finished, crash.crashes
    except SchedulerLost as error:  # the same: what finished before the scheduler was lost
        results, crashes, lost = error.finished, error.crashes, error
    # Another project's claims are held to the discipline, as its gate holds them, and marked where they break it.
    discipline = _discipline([results], args.package, generated=args.mutants) if args.package and not stopped else None
    finished = {result.claim.id for result in results}
    not_run = [claim.id for claim in selected if claim.id not in finished]
    interrupted = {"signal": signal.Signals(stopped).name, "not_run": not_run} if stopped else None
    run = {"profile": context.profile, "seed": context.seed, "device": context.device,
           "seconds": round(time.perf_counter() - started, 1),
           "environment": environment.describe(context, tuple(args.package or ())),
           **({"scheduler": args.scheduler} if args.scheduler else {}),
           **({"claim_packages": args.package,
               "claim_projects": [environment.claim_package(package) for package in args.package]}
              if args.package else {}),
           **({"generated_mutants": True} if args.mutants else {}),
           **({"interrupted": interrupted} if stopped else {}), **({"crashed": crashes} if crashes else {}),
           **({"scheduler_lost": {"waited_s": round(lost.waited_s), "not_run": not_run}} if lost else {}),
           **_benchmarks_in(out)}
    try:
        json_path, md_path = report.write_report(results, run, out, html=args.html, not_run=not_run,
                                                 expected=_manifest_expectations(args.package)[0],
                                                 discipline=discipline)
    except OSError as error:
        raise UsageError(f"could not write the report to {out}: {error}") from None
    counts = ", ".join(f"{sum(r.verdict is verdict for r in results)} {verdict}" for verdict in Verdict)
    print(f"wrote {json_path} and {md_path}: {counted(len(results), 'claim')} ({counts}) in {run['seconds']:.0f} s")
    if args.html:
        print(f"wrote the HTML report: {out / 'html' / 'index.html'}")
    if args.mutants:
        scored = [result.generated_mutants for result in results if result.generated_mutants is not None]
        print(f"generated mutants of {counted(len(scored), 'certified claim')}: "
              f"{sum(len(generated.mutants) for generated in scored)} generated, "
              f"{sum(len(generated.concerns) for generated in scored)} surviving within the certified scope or not "
              "shown not to")
    if stopped:
        print(f"theorems: interrupted ({interrupted['signal']}): the report holds the {len(results)} claims that "
              f"finished; {len(not_run)} did not run", file=sys.stderr)
        return 128 + stopped
    if lost:
        print(f"theorems: {lost}: the report holds the {len(results)} claims that finished; {len(not_run)} did not "
              "run", file=sys.stderr)
        return EXIT_SCHEDULER_LOST
    if crashes:
        crashed = [claim_id for crash in crashes for claim_id in crash["claims"]]
        if args.traceback:
            _print_crash_tracebacks(crashes)
        print(f"theorems: {counted(len(crashed), 'claim')} crashed, the report names them and why: "
              f"{', '.join(crashed)}", file=sys.stderr)
        return 3
    broken = discipline or {}
    for line in (line for lines in broken.values() for line in lines):
        print(line)
    if broken:
        print(f"report: {counted(len(broken), 'claim')} breaking the discipline, marked in the report: "
              f"{', '.join(broken)}")
    return 1 if broken else 0


def _benchmarks_in(out: Path) -> dict:
    """The benchmarks `theorems bench all` wrote into the report folder, if any."""
    try:
        return {"benchmarks": json.loads((out / "bench.json").read_text(encoding="utf-8"))}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read {out / 'bench.json'}: {error}") from None


def command_gate(args) -> int:
    from .engine.manifest import differences, load_manifest, load_scopes, scope_difference, seed_agreement, seeds_after

    _once_each(args.seed_list or [], "seed of --seed-list")
    if args.junit:
        _check_junit_path(Path(args.junit))
    path = _manifest_path(args)
    expected = load_manifest(path)
    scopes = load_scopes(path) or {}
    seeds = args.seed_list or (seeds_after(args.seed, args.seeds) if args.seeds else None)
    packaged = _selected_claims(args)
    selected = _resolve_all(args.ids, args.package) if args.ids else list(packaged.values())
    if args.ids:
        expected = {claim.id: expected[claim.id] for claim in selected if claim.id in expected}
    context = _context(args)
    done: list[tuple[int, list]] = []  # each seed's results
    if seeds is None:
        results = _gate_run(selected, context, "gate", args, done, expected, scopes)
        lines = differences(expected, {r.claim.id: r.verdict for r in results}, scopes,
                            {r.claim.id: r.scope for r in results}, args.package or ())
        broken_rules = _discipline([results], args.package, not args.no_generated)
        lines += [line for broken in broken_rules.values() for line in broken]
        for line in lines:
            print(line)
        print(f"gate: {counted(len(results), 'claim')} checked against {path}, {counted(len(lines), 'difference')}")
        _write_junit(args, done, expected, scopes, broken_rules)
        return 1 if lines else 0
    runs, scope_lines, scope_differing = {}, [], set()
    for seed in seeds:
        seeded = dataclasses.replace(context, seed=seed)
        results = _gate_run(selected, seeded, f"gate seed {seed}", args, done, expected, scopes)
        runs[seed] = {r.claim.id: r.verdict for r in results}
        for r in results:
            line = scope_difference(r.claim.id, scopes[r.claim.id], r.scope) if r.claim.id in scopes else None
            if line and r.verdict is expected.get(r.claim.id):
                scope_lines.append(f"seed {seed}: {line}")
                scope_differing.add(r.claim.id)
    broken_rules = _discipline([results for _, results in done], args.package, not args.no_generated)
    lines, differing = seed_agreement(expected, runs, args.package or ())
    for line in lines + scope_lines + [line for broken in broken_rules.values() for line in broken]:
        print(line)
    # a claim whose verdict differs at another seed is counted once
    differing += len({claim_id for claim_id in scope_differing | broken_rules.keys()
                      if all(run.get(claim_id) is expected.get(claim_id) for run in runs.values())})
    print(f"gate: {counted(len(selected), 'claim')} at {counted(len(seeds), 'seed')} ({', '.join(map(str, seeds))}; "
          f"profile {context.profile}, device {context.device}) against {path}: {differing} differ from the manifest "
          "at some seed")
    _write_junit(args, done, expected, scopes, broken_rules)
    return 1 if differing else 0


def _gate_run(selected: list, context: Context, label: str, args, done: list, expected: dict, scopes: dict) -> list:
    """The gate's run at ``context``'s seed, added to ``done``; a crash first writes the JUnit
    file (--junit) of what ran, the claims that crashed as errors."""
    try:
        results = _run_claims(selected, context, label, args)
    except ClaimsCrashed as crash:
        _write_junit(args, [*done, (context.seed, crash.finished)], expected, scopes, crashes=crash.crashes)
        raise
    done.append((context.seed, results))
    return results


def _check_junit_path(path: Path) -> None:
    """Bad input before any claim runs: a --junit file that could not be written."""
    folder = path.parent
    if path.is_dir() or not folder.is_dir() or not os.access(folder, os.W_OK):
        why = "is a folder" if path.is_dir() else f"{folder} is not a writable folder"
        raise UsageError(f"--junit {path}: cannot write the JUnit file there ({why})")


def _write_junit(args, done: list, expected: dict, scopes: dict, broken: dict | None = None,
                 crashes: list = ()) -> None:
    if not args.junit:
        return
    from .report.junit import gate_cases, write_junit

    try:
        write_junit(Path(args.junit), gate_cases(done, expected, scopes, broken, crashes, args.package or ()))
    except OSError as error:
        raise UsageError(f"could not write the JUnit file {args.junit}: {error.strerror or error}") from None


def _discipline(seeded_results: list[list], packages: list[str] | None, generated: bool = True) -> dict[str, list[str]]:
    """The lines of each claim that breaks the erratum rule (at any seed), of the first claim
    of each paper that breaks the paper rule, or, when gating ``packages`` (another project's
    claims), the mutation rule and, with ``generated``, the generated mutants' rule (both at the
    first seed and the gate's profile): ``theorems.discipline``. Generated survivors not shown
    to change the object within the certified scope are printed as warnings."""
    from .discipline import erratum_failure, generated_mutant_failures, mutation_failures, paper_failure

    broken: dict[str, list[str]] = {}
    for results in seeded_results:
        for result in results:
            line = erratum_failure(result)
            if line and line not in broken.get(result.claim.id, []):
                broken.setdefault(result.claim.id, []).append(line)
    first = seeded_results[0]
    for result in first:  # one line per paper, counted against its first claim
        line = paper_failure(result)
        if line and not any(line in lines for lines in broken.values()):
            broken.setdefault(result.claim.id, []).append(line)
    if packages and first:
        reports = _mutation_reports(first)
        for report in reports:
            if report.failures:
                broken.setdefault(report.claim.id, []).extend(mutation_failures(report))
        variants = sum(len(report.variants) for report in reports)
        print(f"mutation rule (profile {first[0].context.profile}, seed {first[0].context.seed}): "
              f"{counted(len(reports), 'claim')}, {counted(variants, 'broken variant')}, "
              f"{sum(not report.passed for report in reports)} breaking it")
    if packages and first and generated:
        generated_reports = _generated_reports(first)
        breaching = 0
        for report in generated_reports:
            failures, warnings = generated_mutant_failures(report)
            if failures:
                broken.setdefault(report.claim_id, []).extend(failures)
                breaching += 1
            for line in warnings:
                print(f"warning: {line}")
        print(f"generated mutants (profile {first[0].context.profile}, seed {first[0].context.seed}): "
              f"{counted(len(generated_reports), 'certified claim')}, "
              f"{counted(sum(len(report.mutants) for report in generated_reports), 'mutant')}, "
              f"{breaching} with a survivor within the certified scope")
    return broken


def _generated_reports(genuine: list) -> list:
    """The generated mutants (``engine.generated_mutants``) of each certified claim of
    ``genuine`` at that result's context, one claim after the other (those a report ran
    beside the claim are not run again)."""
    from tqdm import tqdm

    from .engine.generated_mutants import generated_mutation_test

    certified = [result for result in genuine if result.verdict is Verdict.CERTIFIED]
    shown = bool(certified) and certified[0].context.show_progress
    return [result.generated_mutants if result.generated_mutants is not None  # run already (report --mutants)
            else generated_mutation_test(result.claim, result.context, result)
            for result in tqdm(certified, desc="generated mutants", disable=not shown, file=sys.stderr)]


def _mutation_reports(genuine: list) -> list:
    """The mutation rule for the claim of each result of ``genuine`` at that result's context,
    one claim after the other (the claims' own checks are not run again)."""
    from tqdm import tqdm

    from .engine.mutation import mutation_test

    shown = bool(genuine) and genuine[0].context.show_progress
    return [mutation_test(result.claim, result.context, result)
            for result in tqdm(genuine, desc="broken variants", disable=not shown, file=sys.stderr)]


def command_meta(args) -> int:
    from .engine import coverage
    from .engine.verdicts import scope_text, shown_verdict

    registered = _selected_claims(args)
    selected = _resolve_all(args.ids, args.package) if args.ids else list(registered.values())
    context = _context(args)
    genuine = _run_claims(selected, context, "claims", args)
    reports = _mutation_reports(genuine)
    if args.generated:
        from .engine.generated_mutants import generated_mutation_test

        for result, report in zip(genuine, reports, strict=True):
            report.generated = generated_mutation_test(result.claim, result.context, result)
    failing = [report for report in reports
               if not report.passed or (args.strict_generated and report.generated and report.generated.concerns)]
    if args.json:
        documents = [report.to_json() for report in reports]
        print(json.dumps({
            "profile": context.profile, "seed": context.seed, "device": context.device.value, "passed": not failing,
            "checks": [row for document in documents for row in document["checks"]],
            "variants": [{"claim": document["claim"], **variant} for document in documents
                         for variant in document["variants"]],
            "failures": [{"claim": document["claim"], "failure": failure} for document in documents
                         for failure in document["failures"]],
            **({"generated": [document["generated"] for document in documents]} if args.generated else {}),
            **({"coverage": [{"claim": result.claim.id, "matrix": coverage.matrix([r.to_json() for r in result.checks]),
                              "parts": [cover.to_json() for cover in result.covers]} for result in genuine]}
               if args.coverage else {}),
        }, indent=1, ensure_ascii=False))
        return 1 if failing else 0
    for result, report in zip(genuine, reports, strict=True):
        print(f"{report.claim.id} ({shown_verdict(result.verdict, result.scope)}): "
              f"{'passes' if report.passed else 'BREAKS'} the mutation rule "
              f"({counted(len(report.variants), 'broken variant')})")
        for row in report.checks:
            role = f"certifying, {scope_text(row.scope)}" if row.certifying else "not certifying"
            certifies = f"; CERTIFIES {', '.join(row.certified)}" if row.certified else ""
            print(f"  check {row.check!r} ({role}): refutes {', '.join(row.refuted_by) or 'no variant'}{certifies}")
        for variant in report.variants:
            verdicts = ", ".join(f"{name}: {verdict.value}" for name, verdict in variant.verdicts.items())
            print(f"  {variant.id} {'refuted' if variant.refuted else 'NOT REFUTED'}: {variant.variant.description} "
                  f"(replaces {', '.join(sorted(variant.variant.replaces))}; {verdicts or 'no check takes it'})")
        for failure in report.failures:
            print(f"  - {failure}")
        if report.generated is not None:
            print(f"  generated mutants: {report.generated.summary()}")
            for mutant in report.generated.survivors:
                print(f"    survived [{mutant.kind.value}] {mutant.description}: {mutant.reason}; "
                      f"within the certified scope: {': '.join(mutant.within_scope)}")
        if args.coverage:
            _print_coverage(result)
    print(f"meta: {counted(len(reports), 'claim')} (profile {context.profile}, seed {context.seed}), "
          f"{len(failing)} breaking the mutation rule" + (" or with a generated mutant surviving in scope"
                                                         if args.strict_generated else ""))
    return 1 if failing else 0


def _print_coverage(result) -> None:
    """The object × check matrix of one claim's run, and what each certified part covers."""
    from .engine import coverage
    from .engine.verdicts import scope_text

    print("  coverage (object × check: how the check called the object):")
    for row in coverage.matrix([check.to_json() for check in result.checks]):
        print(f"    {row['object']}:")
        for check, text in row["cells"].items():
            if text:
                print(f"      {check}: {text}")
    for cover in result.covers:
        scope = "not certified" if cover.scope is None else scope_text(cover.scope)
        because = f" ({cover.reason})" if cover.reason else ""
        print(f"    part {cover.part!r} about {', '.join(cover.objects)}: {scope}{because}")


def command_reproduce(args) -> int:
    from .report.records import Integrity, load_record
    from .report.reproduce import Agreement, reproduce

    record = load_record(Path(args.record))
    claim = _recorded_claim(args, record)
    recorded = Device(record["run"]["device"])
    if args.device == "record":
        device, lacking = _record_device(recorded)
    else:
        device, lacking = settings.resolve_device(args.device), None
    outcome = reproduce(record, claim, device, args.package or ())
    code = {Agreement.MATCHES: 0, Agreement.DIFFERS: 1, Agreement.NOT_COMPARED: 4}[outcome.agreement]
    if args.json:
        print(json.dumps(outcome.to_json(), indent=1, ensure_ascii=False))
        return code
    if outcome.integrity is Integrity.EDITED:
        where = (f"the first field that differs: {outcome.edited_field}" if outcome.edited_field else
                 "no field a re-run gives again differs: the edit is in one it cannot check (timings, resources, "
                 "the environment, the command)")
        print(f"{outcome.id}: record EDITED BY HAND: it holds other than what its digest covers; {where}")
    elif outcome.integrity is Integrity.NO_DIGEST:
        print(f"{outcome.id}: no digest (the record was written before records carried one, format "
              f"{record['format'].rsplit(', ', 1)[-1]}): hand edits are found only where a re-run differs; "
              "compared field by field")
    if outcome.claim_differences:
        print(f"{outcome.id}: the record is of another version of this claim; not re-run:")
        _print_listed(outcome.claim_differences)
        return code
    print(f"{outcome.id}: verdict {outcome.verdict} (recorded {outcome.recorded_verdict}): "
          + ("matches" if outcome.verdict_matches else "DIFFERS"))
    if not outcome.evidence_compared:
        why = lacking or f"re-run on {outcome.device} as asked"
        print(f"evidence: NOT COMPARED: recorded on {outcome.recorded_device}; {why} "
              "(CUDA draws other random streams than the CPU, so evidence is compared only on the record's device)")
    elif outcome.evidence_matches:
        rounding = outcome.rounding_differences
        print("scope, sizes and evidence: identical"
              + (f" ({len(rounding)} floats differ below 1e-9 relative)" if rounding else ""))
    else:
        print(f"scope, sizes and evidence: {counted(len(outcome.differences), 'difference')}:")
        _print_listed(outcome.differences)
    if outcome.commit != outcome.recorded_commit:
        print(f"note: recorded at commit {outcome.recorded_commit}, re-run at {outcome.commit}")
    for line in outcome.package_commits:
        print(f"note: {line}")
    return code


def _recorded_claim(args, record: dict):
    """The claim a record is of: from --package, else from the claim packages the record
    names (imported as --package imports them), else from the packaged papers."""
    from .report.records import record_packages

    if not args.package and record_packages(record):
        args.package = record_packages(record)
        _working_directory_first()
        try:
            _selected_claims(args)
        except UsageError as error:
            raise UsageError(f"{args.record} is a record of a claim of {', '.join(args.package)}: {error}") from None
    try:
        return resolve(record["claim"]["id"], args.package or ())
    except (UnknownClaim, NotImplementedClaim) as error:
        hint = "" if args.package else "; a claim of another project needs its claims module: --package MODULE"
        raise UsageError(f"{args.record}: {error}{hint}") from None


def _print_listed(lines: list[str], shown: int = 20) -> None:
    for line in lines[:shown]:
        print(f"  {line}")
    if len(lines) > shown:
        print(f"  … and {len(lines) - shown} more")


def _record_device(recorded: Device) -> tuple[Device, str | None]:
    """The record's device where this machine has it; else the CPU (verdict-only comparison)
    and why."""
    try:
        return settings.resolve_device(recorded), None
    except SettingError:
        return Device.CPU, f"this machine has no {recorded} device, so the verdict was re-run on cpu"


def command_enumerate(args) -> int:
    from .maths.boolean_determinant import enumerate_boolean

    started = time.perf_counter()
    try:
        counts = enumerate_boolean(args.n, progress=_show_progress(args))
    except ValueError as error:
        raise UsageError(str(error)) from None
    seconds = time.perf_counter() - started
    if args.json:
        print(json.dumps(counts))
    else:
        print(f"n = {counts['n']}: {counts['total']} matrices, {counts['detbool_zero']} with DetBool = 0, "
              f"{counts['singular']} singular over Q ({seconds:.1f} s)")
    print(f"enumerated in {seconds:.1f} s", file=sys.stderr)
    return 0


def _print_bench_rows(measure, args, line) -> int:
    """Run a benchmark (a bad size is bad input) and print its rows as JSON or one line each."""
    try:
        rows = measure()
    except ValueError as error:
        raise UsageError(str(error)) from None
    print(json.dumps(rows) if args.json else "\n".join(line(row) for row in rows))
    return 0


def _certificate_line(row: dict) -> str:
    lu = "float64 LU" if row["lu_measured_at"] == row["size"] else f"float64 LU (n³ from {row['lu_measured_at']}²)"
    flint_part = ("flint not run (past its size or memory)" if row["flint_s"] is None else
                  f"flint {row['flint_s']:.2f} s (agrees: {row['flint_agrees']})")
    peak = "" if row["peak_bytes"] is None else (f"; peak {row['peak_bytes'] / 2**30:.2f} GiB "
                                                f"= {row['peak_per_copy']:.2f} × 8n²")
    return (f"size {row['size']}×{row['size']} on {row['device']}, {row['threads']} BLAS thread(s), fastest of "
            f"{row['repeat']}: certificate "
            f"(det mod {row['prime']}) {row['certificate_s']:.2f} s, {lu} {row['lu_s']:.3f} s, ratio "
            f"{row['ratio']:.2f}×{peak}; {flint_part}"
            + ("" if row["load_average"] is None else f"; load average {row['load_average']:.2f} before"))


def _chain_line(row: dict) -> str:
    return (f"{row['chains']} BN chains, d = {row['d']}, N = {row['n']}, on {row['device']} ({row['dtype']}, "
            f"{row['threads']} thread(s)): {row['layers_per_second']} layers/s, batched matmul "
            f"{row['matmul_per_second']} /s ({row['matmul_gflops']} GFLOP/s), ratio {row['ratio']:.2f}")


def _startup_line(row: dict) -> str:
    from .bench import STARTUP_LIBRARIES

    goal = "" if row["goal_s"] is None else (f"; goal: under +{row['goal_s']} s on a quiet machine, "
                                             f"{'met' if row['difference_s'] < row['goal_s'] else 'not met'}")
    imports = ", ".join(row["imports"]) if row["imports"] else f"none of {', '.join(STARTUP_LIBRARIES)}"
    return (f"{row['command']}: {row['seconds']:.2f} s, bare interpreter {row['bare_s']:.2f} s: "
            f"+{row['difference_s']:.2f} s ({row['ratio']:.1f}×){goal}; peak {row['peak_bytes'] / 2**20:.0f} MiB "
            f"(bare {row['bare_peak_bytes'] / 2**20:.0f} MiB); imports {imports}; median of {row['repeat']}"
            + ("" if row["load_average"] is None else f"; load average {row['load_average']:.2f} before"))


def command_bench(args) -> int:
    if args.target == "startup":
        from .bench import STARTUP_REPEAT, benchmark_startup

        repeat = STARTUP_REPEAT if args.repeat is None else args.repeat
        return _print_bench_rows(lambda: benchmark_startup(repeat), args, _startup_line)
    args.repeat = 3 if args.repeat is None else args.repeat  # the certificate's runs per row
    if args.target == "certificate":
        from .bench import benchmark_certificates

        device = _context(args).device
        return _print_bench_rows(
            lambda: benchmark_certificates(args.sizes, args.seed, device, args.threads, args.repeat), args,
            _certificate_line)
    if args.target == "all":
        from .bench import benchmark_all, write_benchmarks
        from .report import ensure_writable

        out = Path(args.out)
        ensure_writable(out)
        try:
            bench = benchmark_all(args.seed, _context(args).device, args.sizes, args.dims,
                                  progress=_show_progress(args), threads=args.threads,
                                  repeat=args.repeat)
        except ValueError as error:  # a size the benchmark cannot build
            raise UsageError(str(error)) from None
        path = write_benchmarks(bench, out)
        print(f"wrote {path} and {path.with_suffix('.md')}; `theorems report --out {out}` includes them")
        return 0
    if args.target == "construction":
        from .bench import benchmark_construction

        return _print_bench_rows(
            lambda: [benchmark_construction(d, seed=args.seed) for d in args.dims], args,
            lambda row: (f"d = {row['d']} (source width {row['source_width']}): build_source {row['total_s']:.2f} s, "
                         f"linear solves {row['solve_s']:.2f} s ({100 * row['solve_share']:.0f}%, largest system "
                         f"{row['largest_system']}², condition ≤ {row['worst_condition']:.1e}); "
                         f"max |f − g| {row['max_abs_error']:.1e}"))
    from .maths.bn_chain import benchmark_chain

    device = _context(args).device
    return _print_bench_rows(lambda: [benchmark_chain(device=device)], args, _chain_line)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="theorems", description="Executable claims from papers on normalization layers.",
                     epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"theorems {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("list", help="list every catalog id, implemented or not", epilog=EXIT_CODES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="JSON array of claim objects")
    fmt.add_argument("--markdown", action="store_true", help="markdown table (as in the README)")
    _package_option(p)
    p.set_defaults(func=command_list)

    p = sub.add_parser("check", help="run claims and print verdicts with evidence", epilog=EXIT_CODES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("ids", nargs="+", metavar="ID", help="claim ids (see `theorems list`)")
    _run_options(p)
    p.add_argument("--json", action="store_true", help="JSON: one object per claim")
    _package_option(p)
    p.set_defaults(func=command_check)

    p = sub.add_parser("report", help="run every claim and write report.json and report.md", epilog=EXIT_CODES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("ids", nargs="*", metavar="ID", help="report only these claims (default: every implemented claim)")
    p.add_argument("--out", type=_folder,
                   help="report folder (default reports/<profile>), replaced as a whole by the new report")
    p.add_argument("--html", action="store_true",
                   help="also write html/: a self-contained HTML report (dashboard, dependency graph, claim pages, "
                        "errata)")
    p.add_argument("--mutants", action="store_true",
                   help="also run the generated mutants of every certified claim (as `theorems meta --generated`), "
                        "right after it and where it ran, and report each one's score killed / (generated − "
                        "equivalent) with its survivors")
    jobs = settings.default_report_jobs()
    _run_options(p, jobs=jobs, jobs_note=f"the usable cores, at most {settings.REPORT_JOBS_CAP}: {jobs} here")
    _package_option(p)
    p.set_defaults(func=command_report)

    p = sub.add_parser("gate", help="run every claim; exit 1 if a verdict differs from the manifest", epilog=EXIT_CODES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("ids", nargs="*", metavar="ID", help="gate only these claims (default: every implemented claim)")
    p.add_argument("--manifest", type=_folder,
                   help="manifest TOML (default: tests/claims.toml; with --package, the project's theorems_manifest "
                        "ini option, else claims.toml in the working directory)")
    _package_option(p)
    _run_options(p)
    seeds = p.add_mutually_exclusive_group()
    seeds.add_argument("--seeds", type=_option(settings.validate_seed_count), metavar="K",
                       help="run the gate at the K seeds after --seed (2024, …, 2023+K by default) and report, "
                            "per claim, how many gave the manifest verdict")
    seeds.add_argument("--seed-list", type=_option(settings.validate_seed), nargs="+", metavar="N",
                       help="run the gate at these seeds (as --seeds)")
    p.add_argument("--junit", type=_folder, metavar="FILE",
                   help="also write JUnit XML to FILE: a test case per claim and seed (classname the paper), failing "
                        "where the verdict or scope differs from the manifest or the claim breaks the discipline, "
                        "erring where it crashed, with the verdict, scope and reason in its message")
    p.add_argument("--no-generated", action="store_true",
                   help="with --package, skip the generated mutants (by default each certified claim's generated "
                        "mutants run at the first seed: a survivor that changes an object within the certified scope "
                        "fails the gate, one not shown to is a warning)")
    p.set_defaults(func=command_gate)

    p = sub.add_parser("meta", help="run the broken variants; exit 1 if a claim breaks the mutation rule",
                       description="Run every broken variant of the claims against every check that takes one of its "
                                   "objects, and print for each check the variants it refutes. The mutation rule: "
                                   "every variant refuted, every check refuting one, no certifying check certifying "
                                   "a broken object.", epilog=EXIT_CODES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("ids", nargs="*", metavar="ID", help="only these claims (default: every implemented claim)")
    # The gate's profile: the rule is applied where the verdicts it guards are decided.
    _run_options(p)
    p.add_argument("--json", action="store_true",
                   help="JSON object: checks (claim, check, certifying, scope, refuted_by: variant ids, "
                        "certifies_broken), variants, failures, passed (with --coverage: coverage; with "
                        "--generated: generated, per claim)")
    p.add_argument("--coverage", action="store_true",
                   help="also the object × check matrix of each claim: which objects of its subject each check "
                        "called, symbolically or at which largest sizes, and what each certified part covers")
    p.add_argument("--generated", action="store_true",
                   help="also mutate each subject object mechanically (source operators, constants, a perturbation "
                        "gated past the sizes the checks ran) and print per claim the score killed / (generated − "
                        "equivalent) and each survivor with its reason")
    p.add_argument("--strict-generated", action="store_true",
                   help="with --generated, exit 1 also when a generated mutant survives that changes the object "
                        "within the certified scope (or is not shown not to)")
    _package_option(p)
    p.set_defaults(func=command_meta)

    p = sub.add_parser("reproduce", help="re-run a reproducibility record; say whether verdict and evidence match",
                       epilog=EXIT_CODES_REPRODUCE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("record", type=_folder,
                   help="a record JSON file (REPORT/records/<id>.json, written by `theorems report`)")
    p.add_argument("--device", choices=("record", *DEVICE_CHOICES), default="record",
                   help="where to re-run (default: the record's device where this machine has it, else cpu; "
                        "evidence is compared only on the record's device)")
    p.add_argument("--json", action="store_true",
                   help="JSON object: verdicts, whether they match, the evidence differences")
    _package_option(p)
    p.set_defaults(func=command_reproduce, progress=False)

    p = sub.add_parser("enumerate", help="exhaustive tables", epilog=EXIT_CODES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("table", choices=("boolean",),
                   help="boolean: DetBool = 0 and singular counts over all n×n 0/1 matrices")
    p.add_argument("--n", type=int, required=True, help="matrix size (1 to 5)")
    p.add_argument("--json", action="store_true", help="JSON object with keys n, total, detbool_zero, singular")
    p.add_argument("--progress", action="store_true", help="a progress bar on stderr (default when it is a terminal)")
    p.set_defaults(func=command_enumerate)

    p = sub.add_parser("bench", help="benchmarks that print ratios against a baseline measured in the same run",
                       epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", choices=("certificate", "chain", "construction", "startup", "all"),
                   help="certificate: modular determinant vs float64 LU; chain: BN chain layers/s vs matmul rate; "
                        "construction: build_source time and its share in linear solves; startup: `theorems list` "
                        "(and list --json, --help) as a new process vs `python -c pass`; all: every one, written to "
                        "--out/bench.json and bench.md, which `theorems report` into that folder includes")
    p.add_argument("--out", type=_folder, default=str(REPORTS_FOLDER / settings.DEFAULT_PROFILE),
                   help="all: the report folder to write bench.json into (default %(default)s)")
    p.add_argument("--dims", type=int, nargs="+", default=[16, 32],
                   help="construction: target widths d (source width d²)")
    p.add_argument("--sizes", type=int, nargs="+", default=[1024, 4096],
                   help="certificate: matrix orders n (perfect squares: A ⊙ B with √n × n factors)")
    p.add_argument("--threads", type=int, nargs="+", default=None,
                   help="certificate: BLAS thread counts to run each size at (default: 1 and every core)")
    p.add_argument("--repeat", type=int,
                   help="certificate: runs of the certificate and of LU per row, each timed by its fastest (default "
                        "3); startup: runs of each command and of the bare interpreter, timed by their median "
                        "(default 5)")
    p.add_argument("--seed", type=_option(settings.validate_seed), default=settings.DEFAULT_SEED)
    p.add_argument("--device", choices=DEVICE_CHOICES, default=Device.AUTO.value,
                   help="certificate: the engine and float64 LU on the CPU (numpy, LAPACK) or CUDA (torch, cuSOLVER)")
    p.add_argument("--json", action="store_true",
                   help="certificate: a JSON array, one object per size and thread count with size, device, "
                        "threads, certificate_s, flint_s, lu_s, lu_measured_at, ratio, peak_bytes, peak_per_copy; "
                        "construction: one object per d with total_s, solve_s, solve_share, max_abs_error; "
                        "chain: one object with d, n, chains, device, dtype, threads, layers, layers_per_second, "
                        "matmul_per_second, matmul_gflops, ratio; startup: one object per command with command, "
                        "seconds, bare_s, difference_s, ratio, goal_s, peak_bytes, bare_peak_bytes, imports, repeat")
    p.add_argument("--progress", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(func=command_bench, profile=settings.DEFAULT_PROFILE)
    for command in sub.choices.values():
        command.add_argument("--traceback", action="store_true",
                             help="when the command fails, first print the whole traceback to stderr (chained; of the "
                                  "original exception, for a check that crashed); the exit code is the same")
    return parser


def main(argv: list[str] | None = None) -> int:
    from .engine.parallel import start_worker_server, stop_signals, usable_cores

    stop = args = None
    try:
        with stop_signals() as stop:  # SIGTERM and SIGHUP stop a command as Ctrl-C does
            args = build_parser().parse_args(argv)
            if getattr(args, "package", None):
                _working_directory_first()
            # $THEOREMS_PROFILE and $THEOREMS_SCHEDULER: the default of the option where a command has
            # it (an option given wins), and checked all the same where it has not: a typo is bad input.
            if not getattr(args, "profile_fallback", None):
                settings.default_profile()
            elif args.profile is None:
                args.profile = settings.default_profile(args.profile_fallback)  # the pytest plugin's rule too
            if not hasattr(args, "scheduler"):
                settings.default_scheduler()
            elif args.scheduler is None:
                args.scheduler = settings.default_scheduler()
            if getattr(args, "jobs", 1) > 1 and not getattr(args, "scheduler", None) and usable_cores() > 1:
                start_worker_server()  # its imports overlap the claims' own
            return args.func(args)
    except BrokenPipeError:  # output piped into `head`: not an error of ours
        sys.stderr.close()
        return 0
    except (TheoremsError, KeyboardInterrupt) as error:
        if getattr(args, "traceback", False):
            _print_traceback(error)
        line, code = _failure(error, stop and stop.signum)
        print(line, file=sys.stderr)
        return code


def _failure(error: TheoremsError | KeyboardInterrupt, signum: int | None) -> tuple[str, int]:
    """The one line and the exit code of a command that failed."""
    if isinstance(error, UsageError):
        return f"{error.prog}: error: {error}", 2
    if isinstance(error, CheckCrashed):  # the error of a claim package's own code, else the suite's
        return f"theorems: {'error' if error.package else 'internal error'}: {error}", 3
    if isinstance(error, KeyboardInterrupt):  # Interrupted too: before TheoremsError, which it also is
        signum = getattr(error, "signum", None) or signum or signal.SIGINT
        return f"theorems: interrupted ({signal.Signals(signum).name})", 128 + signum
    if isinstance(error, SchedulerLost):
        return f"theorems: {error}", EXIT_SCHEDULER_LOST
    return f"theorems: error: {error}", 2  # bad input the suite named: a manifest, a record, a setting, an id


def _print_traceback(error: BaseException) -> None:
    """--traceback: the whole traceback of ``error``, chained; for checks that crashed, that of
    each original exception, as kept where it was raised (in this process or a worker)."""
    if isinstance(error, ClaimsCrashed):
        _print_crash_tracebacks(error.crashes)
    elif isinstance(error, CheckCrashed) and error.traceback:
        print(error.traceback, end="", file=sys.stderr)
    else:
        # Whole: the exceptions that the one-line messages hide (`raise UsageError(...) from None`) too.
        chained, seen = error, set()
        while chained is not None and id(chained) not in seen:
            seen.add(id(chained))
            chained.__suppress_context__ = False
            chained = chained.__cause__ or chained.__context__
        traceback.print_exception(error, file=sys.stderr)


def _print_crash_tracebacks(crashes: list[dict]) -> None:
    """The traceback of each crash of a run (its reason where none was kept: a worker that died)."""
    for crash in crashes:
        print(f"{', '.join(crash['claims'])} crashed on {crash['worker']}:", file=sys.stderr)
        print(crash.get("traceback", crash["reason"] + "\n"), end="", file=sys.stderr)
