import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from theorems.engine.context import Context
from theorems.engine.parallel import run_claims, usable_cores
from theorems.engine.registry import resolve
from theorems.engine.settings import validate_jobs

# Fast at the quick profile, from different papers and kinds of check (symbolic,
# certificate, randomized, torch statistics).
ROOT = Path(__file__).resolve().parents[2]
IDS = ("giannou2023.lemma6", "giannou2023.thm6", "giannou2023.fact1", "daneshmand2020.lemma12", "daneshmand2020.thm5")


def run_cli(*arguments):
    """A fresh process, as a user runs it: the evidence must not depend on what this test
    process has imported (Hypothesis draws constants from the loaded local modules)."""
    completed = subprocess.run([sys.executable, "-m", "theorems", "check", *IDS, "--profile", "quick", "--seed", "7",
                                "--json", *arguments], capture_output=True, text=True, check=True)
    return [{key: value for key, value in record.items() if key not in ("timing_s", "environment", "resources")}
            for record in json.loads(completed.stdout)]


def test_verdicts_and_evidence_do_not_depend_on_the_number_of_jobs():
    one, two = run_cli("--jobs", "1"), run_cli("--jobs", "2")
    assert [record["id"] for record in two] == list(IDS)  # the order asked for, not the order of completion
    assert one == two


def test_results_come_back_as_claim_results_in_order():
    selected = [resolve(claim_id) for claim_id in IDS[:3]]
    results = run_claims(selected, Context("quick", 7, "cpu"), jobs=2, expected_seconds={IDS[2]: 9.0})
    assert [r.claim.id for r in results] == list(IDS[:3])
    assert all(r.checks and r.seconds > 0 and len(r.checks) == len(r.claim.checks) for r in results)


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True])
def test_bad_job_counts(jobs):
    with pytest.raises(ValueError, match="jobs"):
        validate_jobs(jobs)


@pytest.mark.parametrize("command", ["check giannou2023.thm6", "report", "gate"])
def test_cli_rejects_a_bad_job_count(command, capsys):
    from theorems.cli import main

    assert main([*command.split(), "--jobs", "0"]) == 2
    assert "jobs must be at least 1" in capsys.readouterr().err


def test_importing_every_suite_module_never_runs_the_command_line(monkeypatch):
    """Workers inherit the parent's sys.argv; importing theorems.__main__ there would run the
    command line again and start a pool in every worker (a fork bomb)."""
    import sys

    from theorems.engine.tasks import import_every_suite_module

    monkeypatch.setattr(sys, "argv", ["theorems", "report", "--jobs", "2"])
    monkeypatch.delitem(sys.modules, "theorems.__main__", raising=False)
    import_every_suite_module()
    assert "theorems.__main__" not in sys.modules


def test_ctrl_c_keeps_the_claims_that_finished():
    from theorems.engine.registry import Check, Claim
    from theorems.engine.verdicts import Outcome, Verdict
    from theorems.errors import Interrupted

    def finishes(ctx):
        return Outcome(Verdict.SUPPORTED, "done", {})

    def interrupted(ctx):
        raise KeyboardInterrupt

    first = Claim("giannou2023.lemma6", "test", (), (Check("ok", "randomized", finishes),), ())
    second = Claim("giannou2023.lemma9", "test", (), (Check("stopped", "randomized", interrupted),), ())
    third = Claim("giannou2023.thm6", "test", (), (Check("ok", "randomized", finishes),), ())
    with pytest.raises(Interrupted) as stop:
        run_claims([first, second, third], Context("quick", 0, "cpu"))
    assert [result.claim.id for result in stop.value.finished] == ["giannou2023.lemma6"]


def test_an_interrupted_report_keeps_what_finished_and_says_what_did_not_run(tmp_path, monkeypatch, capsys):
    from theorems import cli
    from theorems.engine.registry import claims
    from theorems.engine.runner import run_claim
    from theorems.errors import Interrupted

    def stopped_after_one(selected, context, *args, **kwargs):
        raise Interrupted([run_claim(selected[0], context)])

    monkeypatch.setattr(cli, "_run_claims", stopped_after_one)
    assert cli.main(["report", "--profile", "quick", "--out", str(tmp_path)]) == 130
    report = json.loads((tmp_path / "report.json").read_text())
    first = next(iter(claims()))
    assert [claim["id"] for claim in report["claims"]] == [first]
    assert len(report["interrupted"]["not_run"]) == len(claims()) - 1
    assert (tmp_path / "records" / f"{first}.json").exists()
    assert "Interrupted" in (tmp_path / "report.md").read_text()
    assert "did not run" in capsys.readouterr().err


def test_jobs_are_capped_by_the_cores_and_by_memory(monkeypatch):
    from theorems.engine import parallel, resources

    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    assert parallel.worker_count(1000) == (2, "2 cores")
    assert parallel.worker_count(2) == (2, None)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 64)
    monkeypatch.setattr(resources, "resident_memory_bytes", lambda: 2**30)
    monkeypatch.setattr(resources, "available_memory_bytes", lambda device: 3 * 2**30 + 5)
    assert parallel.worker_count(8) == (3, "3.0 GiB available, 1.00 GiB per worker")
    assert parallel.worker_count(3) == (3, None)


def test_the_command_line_says_when_it_caps_the_jobs(capsys, monkeypatch):
    from theorems import cli
    from theorems.engine import parallel

    monkeypatch.setattr(parallel, "_told", set())
    assert cli.main(["check", "giannou2023.fact1", "--profile", "quick", "--jobs", "1000"]) == 0
    cores = parallel.usable_cores()
    assert f"theorems: --jobs 1000 capped to {cores} ({cores} cores" in capsys.readouterr().err


def test_a_stop_signal_raises_interrupted_with_the_claims_that_finished_and_the_signal():
    import threading

    from theorems.engine.registry import Check, Claim
    from theorems.engine.verdicts import Outcome, Verdict
    from theorems.errors import Interrupted

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers belong to the main thread")

    def finishes(ctx):
        return Outcome(Verdict.SUPPORTED, "done", {})

    def terminated(ctx):  # as `kill PID` would, while this check runs
        os.kill(os.getpid(), signal.SIGTERM)
        return Outcome(Verdict.SUPPORTED, "done", {})

    first = Claim("giannou2023.lemma6", "test", (), (Check("ok", "randomized", finishes),), ())
    second = Claim("giannou2023.lemma9", "test", (), (Check("stopped", "randomized", terminated),), ())
    third = Claim("giannou2023.thm6", "test", (), (Check("ok", "randomized", finishes),), ())
    with pytest.raises(Interrupted) as stop:
        run_claims([first, second, third], Context("quick", 0, "cpu"))
    assert stop.value.signum == signal.SIGTERM
    assert [result.claim.id for result in stop.value.finished] in (["giannou2023.lemma6"],
                                                                   ["giannou2023.lemma6", "giannou2023.lemma9"])


# --- no worker outlives its run: the process tree of a run, read from /proc ------------------

def _parent_of(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            children.setdefault(_parent_of(int(entry.name)), []).append(int(entry.name))
    found, frontier = [], [root]
    while frontier:
        below = children.get(frontier.pop(), [])
        found += below
        frontier += below
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def paused_run(*arguments: str, point: str = "claim") -> subprocess.Popen:
    """``theorems ARGUMENTS`` in a fresh process, returned once it has paused at ``point``
    (the test hook of theorems/engine/pauses.py)."""
    environment = {**os.environ, "THEOREMS_TEST_PAUSE_AT": point,
                   "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen([sys.executable, "-m", "theorems", *arguments], env=environment, cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    for line in process.stderr:
        if line.strip() == f"theorems: test pause at {point}":
            return process
    process.wait()
    raise AssertionError(f"theorems {' '.join(arguments)} ended ({process.returncode}) before pausing at {point}")


@pytest.mark.parametrize("signum", [
    signal.SIGKILL, signal.SIGTERM,
    pytest.param(signal.SIGHUP, marks=pytest.mark.slow), pytest.param(signal.SIGINT, marks=pytest.mark.slow)])
def test_no_worker_outlives_its_run_whatever_ends_the_parent(signum):
    """Workers and the fork server they come from end with the main process: killed (the
    kernel's parent-death signal, or their watchdog), or stopped by a signal, which the
    main process alone handles (it ends the workers and exits 128 + signal). Ctrl-C and
    SIGHUP reach the whole process group, as from a terminal."""
    process = paused_run("check", *IDS[:4], "--profile", "quick", "--jobs", "2")
    tree = _descendants(process.pid)
    servers = [pid for pid in tree if _parent_of(pid) == process.pid and any(_parent_of(p) == pid for p in tree)]
    workers = [pid for pid in tree if _parent_of(pid) in servers]
    assert len(servers) == 1 and len(workers) == 2, tree
    # The fork server runs no thread but its own: a fork copies no thread, nor may it copy a held lock.
    assert len(list(Path(f"/proc/{servers[0]}/task").iterdir())) == 1
    if signum in (signal.SIGINT, signal.SIGHUP):
        os.killpg(process.pid, signum)
    else:
        process.send_signal(signum)
    process.communicate(timeout=60)
    assert process.returncode == (-signum if signum == signal.SIGKILL else 128 + signum)
    deadline = time.monotonic() + 5
    while any(_alive(pid) for pid in tree) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in tree if _alive(pid)], "processes outlived the run"


def test_a_worker_whose_main_process_is_gone_exits_by_itself():
    """The watchdog, for platforms without a parent-death signal: it polls the main process."""
    main = subprocess.Popen(["sleep", "60"])
    code = ("import sys, time\n"
            "from theorems.engine.parallel import start_watchdog\n"
            "start_watchdog(int(sys.argv[1]), interval=0.1)\n"
            "time.sleep(30)\n")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    worker = subprocess.Popen([sys.executable, "-c", code, str(main.pid)], env=environment)
    time.sleep(0.5)
    assert worker.poll() is None
    main.kill()
    main.wait()
    assert worker.wait(timeout=10) == 1


def test_workers_import_the_suite_the_main_process_runs_not_one_in_the_working_directory(tmp_path):
    """Run as a script (as the `theorems` console script is), the main process does not look
    in the working directory; the fork server, a `python -c` process, would: it must import
    the same suite as the main process, not another copy found there."""
    shadow = tmp_path / "elsewhere" / "theorems"
    shadow.mkdir(parents=True)
    marker = tmp_path / "imported"
    (shadow / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\nraise ImportError('another copy')\n")
    script = tmp_path / "run.py"
    script.write_text("import sys\nfrom theorems.cli import main\nif __name__ == '__main__':\n    sys.exit(main())\n")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    completed = subprocess.run([sys.executable, str(script), "check", *IDS[:3], "--profile", "quick", "--jobs", "2"],
                               cwd=shadow.parent, env=environment, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert not marker.exists()


DEPENDENT_CLAIMS = '''
import sympy

from theorems.engine.registry import Broken, Claim, register, takes
from theorems.engine.checks import exhaustive_sweep


def sweep(name, bound, square):
    # "all" sizes only where the object runs at a symbolic n (engine.coverage)
    cases = [sympy.Symbol("n")] if bound == "all" else range(4)
    return exhaustive_sweep(name, lambda ctx: cases, lambda n: None if square(n) == n * n else f"n = {n}",
                            bound=lambda ctx: bound, certifies=True)


for claim_id, bound, rests_on in (("depsdemo.base", "n ≤ 3", ()), ("depsdemo.step", "all", ("depsdemo.base",))):
    register(Claim(claim_id, "test", (), (takes("square", build=lambda s, n=claim_id, b=bound: sweep(n, b, s)),),
                   (Broken("n + 1", {"square": lambda n: n + 1}, refuted_by="n = 0"),), label=claim_id,
                   statement="squares", subject={"square": lambda n: n * n}, depends_on=rests_on))
'''


def test_a_claim_runs_with_what_it_rests_on_and_is_never_certified_for_more_sizes(tmp_path, monkeypatch):
    (tmp_path / "depsdemo_claims.py").write_text(DEPENDENT_CLAIMS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    from theorems.engine.registry import claims

    step = claims("depsdemo_claims")["depsdemo.step"]
    [result] = run_claims([step], Context("quick", 7, "cpu"), packages=("depsdemo_claims",))
    assert result.claim.id == "depsdemo.step" and result.own_scope == "all"
    # the base's scope is generated from the sizes its check ran the object at
    assert result.dependencies == {"depsdemo.base": (result.verdict, "square ran at n ≤ 3")}
    assert result.scope == "as depsdemo.base: square ran at n ≤ 3"
    assert result.to_json()["own_scope"] == "all"


def test_a_claim_that_needs_more_than_a_workers_memory_runs_alone_after_the_others_in_this_process():
    from theorems.engine.registry import Check, Claim
    from theorems.engine.verdicts import Outcome, Verdict

    def where(ctx):
        return Outcome(Verdict.SUPPORTED, "ran", {"pid": os.getpid(), "torch_threads": torch.get_num_threads()})

    alone = Claim(id="wholemachine.claim", source="test", hypotheses=(), checks=(Check("where", "randomized", where),),
                  broken=(), label="Alone", statement="runs alone", memory_gb_at={"quick": 1})
    others = [resolve(claim_id) for claim_id in IDS[:2]]
    results = run_claims([others[0], alone, others[1]], Context("quick", 7, "cpu"), jobs=2)
    assert [r.claim.id for r in results] == [IDS[0], alone.id, IDS[1]]  # the order asked for
    evidence = results[1].checks[0].outcome.evidence
    assert evidence["pid"] == os.getpid() and evidence["torch_threads"] == usable_cores()
