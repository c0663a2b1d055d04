"""Claims as tasks of a Dask cluster (``--scheduler``): the verdicts and evidence of one job,
on a LocalCluster and on a scheduler and two workers started as separate processes; each
claim's record from the worker that ran it; and the faults: a worker killed mid-claim (the
claim is retried), one that always dies and a check that raises (reported as crashed, with
the worker and the reason), a worker restarted by its memory limit (out of memory, the run goes
on), a worker stopped and continued, a claim no worker can run, a scheduler lost mid-run (exit
5 in bounded time, the report of what finished), a cluster without the resources a claim
needs, a worker whose software differs (a dependency, an edited or an extra module), two
clients at once, an unreachable scheduler, an address where something else answers, and no
``distributed`` installed."""

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from theorems.engine import cluster, environment
from theorems.engine.context import Context
from theorems.engine.parallel import run_claims
from theorems.engine.registry import resolve
from theorems.errors import ClaimsCrashed, SchedulerError, SchedulerLost

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

IDS = ["giannou2023.lemma6", "giannou2023.thm6", "giannou2023.fact1", "daneshmand2020.lemma12"]
ROOT = Path(__file__).resolve().parents[2]

# A claim package whose checks misbehave on purpose. Each claim is cheap; the ones that kill
# their process run only on a cluster, where the process is a worker.
FAULTS = '''
import os
import signal
import time
from pathlib import Path

from theorems.engine.papers import Paper, register_paper
from theorems.engine.registry import Check, Claim, register
from theorems.engine.verdicts import Outcome, Verdict

register_paper(Paper(id="faultdemo", title="Faults", authors=("A. Tester",), venue="test", year=2026,
                     link="https://example.org"))
MARKERS = Path(os.environ["FAULTDEMO_MARKERS"])


def claim(name, run, **more):
    return register(Claim(id=f"faultdemo.{name}", source="test", hypotheses=(), label=name, statement=name,
                          checks=(Check("check", "randomized", run),), broken=(), **more))


def steady(ctx):
    return Outcome(Verdict.SUPPORTED, "fine", {"draw": float(ctx.rng().random())})


def dies_once(ctx):
    marker = MARKERS / "dies_once"
    if not marker.exists():
        marker.write_text("killed once")
        os.kill(os.getpid(), signal.SIGKILL)
    return steady(ctx)


def always_dies(ctx):
    with (MARKERS / "always_dies").open("a") as attempts:
        attempts.write("attempt\\n")
    os.kill(os.getpid(), signal.SIGKILL)


def raises(ctx):
    raise RuntimeError("a defect of the check")


def slow(ctx):
    (MARKERS / "slow").write_text(str(os.getpid()))  # the worker's process, for the test to watch
    time.sleep(120)
    return steady(ctx)


def naps(ctx):
    (MARKERS / "naps").write_text(str(os.getpid()))
    time.sleep(4)
    return steady(ctx)


def hogs(ctx):
    held = []
    for _ in range(40):  # 2 GB, 50 MB at a time: the nanny's memory limit restarts the worker first
        held.append(bytearray(50 * 2**20))
        time.sleep(0.05)
    return steady(ctx)


claim("steady", steady)
claim("dies_once", dies_once)
claim("always_dies", always_dies)
claim("raises", raises)
claim("big", steady, memory_gb_at={"quick": 1000})
claim("slow", slow)
claim("naps", naps)
claim("hogs", hogs)
'''


def comparable(result) -> dict:
    """What must not depend on where a claim ran: the claim's record less timings, memory and
    the machine."""
    record = result.to_json()
    return {key: value for key, value in record.items() if key not in ("timing_s", "resources", "environment")}


@pytest.fixture(scope="module")
def one_job():
    return [comparable(r) for r in run_claims([resolve(i) for i in IDS], Context("quick", 7, "cpu"), jobs=1)]


def test_a_local_cluster_gives_the_verdicts_and_evidence_of_one_job(one_job):
    results = run_claims([resolve(i) for i in IDS], Context("quick", 7, "cpu"), jobs=2, scheduler="local")
    assert [comparable(r) for r in results] == one_job
    assert all(r.environment["worker"].startswith("tcp://127.0.0.1:") for r in results)


def family(processes: list[subprocess.Popen]) -> list[psutil.Process]:
    """``processes`` and every process they started (a nanny's worker), while they run."""
    members = []
    for process in processes:
        with contextlib.suppress(psutil.NoSuchProcess):
            members += [psutil.Process(process.pid), *psutil.Process(process.pid).children(recursive=True)]
    return members


@contextlib.contextmanager
def dask_processes(folder: Path, workers: int, *worker_options: str, env: dict | None = None, port: int = 0):
    """A scheduler (on ``port``, 0: any free one) and ``workers`` single-threaded workers, each
    its own process, on 127.0.0.1, started in ``folder`` (so that they import the claim packages
    there); yields the scheduler's address and the processes, killed at the end."""
    scheduler_file = folder / "scheduler.json"
    scheduler_file.unlink(missing_ok=True)  # (a scheduler's before, at the same port)
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    worker = [sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file", str(scheduler_file),
              "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1", *worker_options]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": folder, "env": env}
    processes = [subprocess.Popen([*dask, "--scheduler-file", str(scheduler_file), "--host", "127.0.0.1",
                                   "--port", str(port), "--no-dashboard"], **quiet)]
    try:
        for _ in range(300):
            if scheduler_file.exists() and scheduler_file.read_text().strip():
                break
            time.sleep(0.1)
        processes += [subprocess.Popen(worker, **quiet) for _ in range(workers)]
        address = json.loads(scheduler_file.read_text())["address"]
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(workers, timeout=120)
        yield address, processes
    finally:
        for member in family(processes):  # a nanny first, then its worker: it would start another
            with contextlib.suppress(psutil.NoSuchProcess):
                member.kill()
        for process in processes:
            process.wait()


@pytest.fixture(scope="module")
def separate_cluster(tmp_path_factory):
    """A scheduler and two workers apart, shared by the tests that do not harm them, in a folder
    that holds the fault package (the workers import it from there, as a client does from its own
    folder)."""
    folder = tmp_path_factory.mktemp("cluster")
    with dask_processes(folder, 2, env=fault_package(folder)) as (address, _):
        with distributed.Client(address, timeout=30) as client:
            workers = set(client.scheduler_info()["workers"])
        yield address, workers, folder


def test_a_scheduler_and_two_workers_apart_give_the_verdicts_and_evidence_of_one_job(separate_cluster, one_job):
    address, workers, _ = separate_cluster
    results = run_claims([resolve(i) for i in IDS], Context("quick", 7, "cpu"), jobs=1, scheduler=address)
    assert [comparable(r) for r in results] == one_job
    # Each claim's record says which worker ran it, with that worker's machine and software.
    assert {r.environment["worker"] for r in results} <= workers
    assert all(r.environment["git_commit"] == environment.machine(Context("quick", 7, "cpu").device)["git_commit"]
               for r in results)


def test_a_cluster_without_the_resources_a_claim_needs_is_refused_naming_it(separate_cluster, tmp_path):
    address, _, _ = separate_cluster
    done = theorems(tmp_path, "check", "faultdemo.big", "faultdemo.steady", "--scheduler", address)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "faultdemo.big (MEMORY_GB=1000)" in done.stderr and "faultdemo.steady" not in done.stderr


def test_a_worker_whose_dependencies_differ_is_refused_naming_the_versions(separate_cluster, monkeypatch):
    address, _, _ = separate_cluster
    software = environment.software
    # The client's own record changed, the workers' not: the two differ in numpy's version.
    monkeypatch.setattr(environment, "software", lambda packages: {
        **software(packages), "packages": {**software(packages)["packages"], "numpy": "0.0.1"}})
    with pytest.raises(SchedulerError, match=r"worker tcp://127\.0\.0\.1:\d+ of .* differs from this process "
                                             r"\(numpy 0\.0\.1 here, .* there\)"):
        run_claims([resolve(IDS[0])], Context("quick", 7, "cpu"), scheduler=address)


def test_a_claim_no_worker_can_run_is_reported_after_a_bound(separate_cluster, monkeypatch):
    address, _, _ = separate_cluster
    # A claim that needs what no worker offers, past the check at the start (as when the only
    # worker offering it leaves): it waits in the scheduler's no-worker state, then is reported.
    monkeypatch.setattr(cluster.ClusterWorkers, "_needs", lambda self, claim: {"GPU": 1})
    monkeypatch.setattr(cluster.ClusterWorkers, "refuse_unmet", lambda self, claims, context: None)
    monkeypatch.setattr(cluster, "NO_WORKER_TIMEOUT_S", 1)
    started = time.monotonic()
    with pytest.raises(ClaimsCrashed) as crashed:
        run_claims([resolve(IDS[0])], Context("quick", 7, "cpu"), scheduler=address)
    assert time.monotonic() - started < 1 + 3 * cluster.WATCH_INTERVAL_S + 10
    [crash] = crashed.value.crashes
    assert crash["claims"] == [IDS[0]] and crash["reason"] == (
        f"no worker of {address} could run it for 1 s (the workers with what it needs left)")


@pytest.mark.parametrize("module, text, named", [
    ("extra.py", "CASES = 2\n", "faultdemo/extra.py only there"),
    ("__init__.py", FAULTS + "CASES = 2\n", "faultdemo/__init__.py edited")])
def test_a_worker_whose_software_differs_is_refused(module, text, named, separate_cluster, tmp_path):
    """A worker's package with an extra module, or an edited one: neither shows in a commit or a
    dirty flag (an untracked module; here the package is not even in git), the files do."""
    address, _, folder = separate_cluster
    changed = folder / "faultdemo" / module
    changed.write_text(text, encoding="utf-8")
    try:
        done = theorems(tmp_path, "check", "faultdemo.steady", "--scheduler", address)
    finally:
        fault_package(folder)
        (folder / "faultdemo" / "extra.py").unlink(missing_ok=True)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "differs from this process (" + named + ")" in done.stderr
    assert done.stderr.startswith("theorems: error: the worker tcp://127.0.0.1:")


def test_two_clients_at_once_give_each_the_evidence_of_one_job(separate_cluster, tmp_path):
    """Two runs of the same claims with different seeds on one cluster: neither cancels the
    other's chunks (their keys hold each run's id), and each gives the evidence of one job."""
    address, _, _ = separate_cluster
    claims = ["burkholz2024.lemma2_1.corrected"]  # the claim that crashed in the issue

    def evidence(seed: int, *more: str) -> list:
        done = subprocess.run([sys.executable, "-m", "theorems", "check", *claims, "--profile", "quick", "--seed",
                               str(seed), "--json", *more], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return [(claim["id"], claim["verdict"], claim["evidence"]) for claim in json.loads(done.stdout)]

    on_cluster = {}
    runs = [threading.Thread(target=lambda seed=seed: on_cluster.update({seed: evidence(seed, "--scheduler", address)}))
            for seed in (7, 8)]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    assert on_cluster == {seed: evidence(seed, "--jobs", "1") for seed in (7, 8)}


def fault_package(folder: Path) -> dict[str, str]:
    """Write the fault package into ``folder``; the environment a command line there runs with."""
    (folder / "faultdemo").mkdir(exist_ok=True)
    (folder / "faultdemo" / "__init__.py").write_text(FAULTS, encoding="utf-8")
    (folder / "markers").mkdir(exist_ok=True)
    variables = {name: value for name, value in os.environ.items() if not name.startswith(("PYTEST_", "THEOREMS_"))}
    return {**variables, "FAULTDEMO_MARKERS": str(folder / "markers")}


def command(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "theorems", *arguments, "--package", "faultdemo", "--profile", "quick"]


def theorems(folder: Path, *arguments: str) -> subprocess.CompletedProcess:
    """The command line in ``folder``, with the fault package."""
    return subprocess.run(command(*arguments), cwd=folder, env=fault_package(folder), capture_output=True, text=True,
                          timeout=300)


def test_a_worker_killed_mid_claim_changes_no_verdict(tmp_path):
    done = theorems(tmp_path, "report", "faultdemo.steady", "faultdemo.dies_once", "--scheduler", "local",
                    "--jobs", "2", "--out", "report")
    # Exit 1 and no other complaint than --package's discipline: the fault package's claims have no broken variant.
    assert done.returncode == 1 and done.stdout.strip().splitlines()[-1] == (
        "report: 2 claims breaking the discipline, marked in the report: faultdemo.steady, faultdemo.dies_once"), \
        done.stderr
    assert (tmp_path / "markers" / "dies_once").exists()  # it was killed once, then ran again
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert {c["id"]: c["verdict"] for c in report["claims"]} == {"faultdemo.steady": "supported",
                                                                  "faultdemo.dies_once": "supported"}
    again = theorems(tmp_path, "check", "faultdemo.dies_once", "--json")  # its evidence as one job gives it
    assert json.loads(again.stdout)[0]["evidence"] == next(c["evidence"] for c in report["claims"]
                                                           if c["id"] == "faultdemo.dies_once")


def test_claims_that_crash_are_reported_with_the_worker_and_the_reason_never_a_verdict(tmp_path):
    done = theorems(tmp_path, "report", "faultdemo.steady", "faultdemo.always_dies", "faultdemo.raises",
                    "--scheduler", "local", "--jobs", "2", "--out", "report")
    assert done.returncode == 3, done.stderr
    assert done.stderr.strip().splitlines()[-1] == ("theorems: 2 claims crashed, the report names them and why: "
                                                   "faultdemo.always_dies, faultdemo.raises")
    # Retried on a new worker each time, up to the local scheduler's allowed failures.
    attempts = (tmp_path / "markers" / "always_dies").read_text().count("attempt")
    assert attempts == cluster.LOCAL_ALLOWED_FAILURES + 1
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert [c["id"] for c in report["claims"]] == ["faultdemo.steady"]
    assert sorted(report["not_run"]) == ["faultdemo.always_dies", "faultdemo.raises"]
    crashes = {crash["claims"][0]: crash for crash in report["crashed"]}
    assert crashes["faultdemo.always_dies"]["worker"].startswith("tcp://127.0.0.1:")
    assert "its worker died while running it" in crashes["faultdemo.always_dies"]["reason"]
    assert crashes["faultdemo.raises"]["worker"].startswith("tcp://127.0.0.1:")
    assert "RuntimeError: a defect of the check" in crashes["faultdemo.raises"]["reason"]
    assert "Crashed on tcp://127.0.0.1:" in (tmp_path / "report" / "report.md").read_text()


def test_without_a_cluster_a_check_that_raises_is_reported_the_same_way(tmp_path):
    done = theorems(tmp_path, "report", "faultdemo.steady", "faultdemo.raises", "--out", "report")
    assert done.returncode == 3, done.stderr
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert [c["id"] for c in report["claims"]] == ["faultdemo.steady"] and report["not_run"] == ["faultdemo.raises"]
    [crash] = report["crashed"]
    assert crash["worker"].startswith("process ") and "RuntimeError: a defect of the check" in crash["reason"]


def test_sigterm_cancels_the_claims_writes_the_partial_report_and_leaves_no_worker(tmp_path):
    arguments = ("report", "faultdemo.steady", "faultdemo.slow", "--scheduler", "local", "--jobs", "2", "--out", "rep")
    run = subprocess.Popen(command(*arguments), cwd=tmp_path, env=fault_package(tmp_path), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    marker = tmp_path / "markers" / "slow"
    for _ in range(600):
        if marker.exists() and marker.read_text():
            break
        time.sleep(0.1)
    time.sleep(2)  # the steady claim has come back by now
    run.send_signal(signal.SIGTERM)
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == 128 + signal.SIGTERM, stderr
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert [c["id"] for c in report["claims"]] == ["faultdemo.steady"]
    assert report["not_run"] == ["faultdemo.slow"] and report["interrupted"]["signal"] == "SIGTERM"
    worker = int(marker.read_text())
    for _ in range(100):  # the worker that ran the slow claim is gone
        if not Path(f"/proc/{worker}").exists():
            break
        time.sleep(0.1)
    assert not Path(f"/proc/{worker}").exists()


def test_an_unreachable_scheduler_is_one_line_and_exit_2(tmp_path):
    done = theorems(tmp_path, "check", "faultdemo.steady", "--scheduler", "tcp://127.0.0.1:9")
    assert done.returncode == 2
    assert done.stderr.startswith("theorems: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("answer", [b"HTTP/1.0 400 Bad Request\r\n\r\n", b""])
def test_an_address_where_something_else_answers_is_not_a_dask_scheduler(answer, tmp_path):
    """A server that answers with other bytes (Dask read them as a frame's length and tried to
    allocate exabytes), or that accepts and says nothing: one line, exit 2, in bounded time."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted = []

    def serve():
        with server:
            while True:
                try:
                    connection, _ = server.accept()
                except OSError:
                    return
                accepted.append(connection)
                connection.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    try:
        done = theorems(tmp_path, "check", "faultdemo.steady", "--scheduler", address)
    finally:
        server.close()
        for connection in accepted:
            connection.close()
    assert done.returncode == 2
    assert done.stderr == f"theorems: error: {address} is not a Dask scheduler: something answers there, but not " \
                          f"with Dask's protocol within {cluster.CONNECT_TIMEOUT_S} s\n"


@pytest.mark.parametrize("scheduler", ["", "tcp://host 8786"])
def test_a_malformed_scheduler_is_bad_input(scheduler, capsys):
    from theorems.cli import main

    assert main(["check", IDS[0], "--scheduler", scheduler]) == 2
    assert "scheduler must be 'local' or a Dask scheduler address" in capsys.readouterr().err


def test_without_distributed_the_scheduler_option_says_how_to_install_it(monkeypatch, capsys):
    from theorems.cli import main

    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises ImportError
    monkeypatch.setenv("THEOREMS_SCHEDULER", "local")
    assert main(["check", IDS[2], "--profile", "quick"]) == 2
    assert capsys.readouterr().err == ("theorems: error: --scheduler needs Dask's distributed, which is not "
                                       "installed: pip install 'theorems[cluster]'\n")


def wait_for(path: Path, seconds: float = 120) -> str:
    """The text of ``path`` once a claim wrote it."""
    for _ in range(int(seconds * 10)):
        if path.exists() and path.read_text():
            return path.read_text()
        time.sleep(0.1)
    raise AssertionError(f"{path} was never written")


def assert_none_left(members: list[psutil.Process]) -> None:
    """No process of ``members`` (the command line, the scheduler, the workers) is left running."""
    assert not [member for member in members if member.is_running() and member.status() != psutil.STATUS_ZOMBIE]


def report_on(cluster_address: str, folder: Path, *ids: str) -> subprocess.Popen:
    """``theorems report IDS --scheduler ADDRESS`` of the fault package, into ``folder / "rep"``."""
    return subprocess.Popen(command("report", *ids, "--scheduler", cluster_address, "--out", "rep"), cwd=folder,
                            env=fault_package(folder), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_a_scheduler_lost_mid_run_ends_in_bounded_time_with_the_report_of_what_finished(tmp_path):
    env = fault_package(tmp_path)
    with dask_processes(tmp_path, 1, env=env) as (address, processes):
        run = report_on(address, tmp_path, "faultdemo.steady", "faultdemo.slow")
        wait_for(tmp_path / "markers" / "slow")  # steady came back before slow started (one group, one worker)
        processes[0].kill()
        killed = time.monotonic()
        members = family([run, *processes])
        _, stderr = run.communicate(timeout=cluster.RECONNECT_TIMEOUT_S + 60)
        waited = time.monotonic() - killed
    assert run.returncode == 5, stderr
    assert stderr.strip().splitlines()[-1] == (
        f"theorems: lost the Dask scheduler at {address}: no answer for {cluster.RECONNECT_TIMEOUT_S} s, the run "
        "stopped: the report holds the 1 claims that finished; 1 did not run")
    assert "Traceback" not in stderr
    assert cluster.RECONNECT_TIMEOUT_S <= waited < cluster.RECONNECT_TIMEOUT_S + 20
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert [c["id"] for c in report["claims"]] == ["faultdemo.steady"] and report["not_run"] == ["faultdemo.slow"]
    assert report["scheduler_lost"]["waited_s"] == cluster.RECONNECT_TIMEOUT_S
    assert_none_left(members)


@pytest.mark.slow
def test_a_scheduler_back_within_the_bound_gets_the_claims_it_lost_and_the_run_finishes(tmp_path):
    env = fault_package(tmp_path)
    with dask_processes(tmp_path, 1, env=env) as (address, processes):
        run = report_on(address, tmp_path, "faultdemo.steady", "faultdemo.naps")
        wait_for(tmp_path / "markers" / "naps")
        for member in family(processes):  # the scheduler and its worker gone, as when their machine reboots
            member.kill()
        (tmp_path / "markers" / "naps").unlink()
        members = family([run])
        # A new scheduler at the same address, with a new worker, well within RECONNECT_TIMEOUT_S.
        with dask_processes(tmp_path, 1, env=env, port=int(address.rsplit(":", 1)[1])) as (again, restarted):
            assert again == address
            members += family(restarted)
            stdout, stderr = run.communicate(timeout=cluster.RECONNECT_TIMEOUT_S + 120)
    # Exit 1 and no other complaint than --package's discipline: the fault package's claims have no broken variant.
    assert run.returncode == 1 and stdout.strip().splitlines()[-1] == (
        "report: 2 claims breaking the discipline, marked in the report: faultdemo.steady, faultdemo.naps"), stderr
    assert wait_for(tmp_path / "markers" / "naps")  # the claim the scheduler lost ran again, on the new worker
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    alone = json.loads(theorems(tmp_path, "check", "faultdemo.steady", "faultdemo.naps", "--json").stdout)
    assert {c["id"]: c["evidence"] for c in report["claims"]} == {c["id"]: c["evidence"] for c in alone}
    assert report["not_run"] == [] and "crashed" not in report
    assert_none_left(members)


def test_a_lost_scheduler_is_one_line_and_exit_5_for_every_command():
    from theorems.cli import EXIT_CODES, _failure

    lost = SchedulerLost("tcp://127.0.0.1:8786", cluster.RECONNECT_TIMEOUT_S)
    assert _failure(lost, None) == ("theorems: lost the Dask scheduler at tcp://127.0.0.1:8786: no answer for "
                                    f"{cluster.RECONNECT_TIMEOUT_S} s, the run stopped", 5)
    assert f"within\n     {cluster.RECONNECT_TIMEOUT_S} s;" in EXIT_CODES  # (the command line imports no cluster code)


def test_a_worker_restarted_by_its_memory_limit_is_reported_out_of_memory_and_the_run_goes_on(tmp_path):
    # One attempt allowed, so that the scheduler gives up after the second restart.
    env = {**fault_package(tmp_path), "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1"}
    with dask_processes(tmp_path, 1, "--memory-limit", "600MB", env=env) as (address, processes):
        run = report_on(address, tmp_path, "faultdemo.hogs", "faultdemo.steady")
        members = family([run, *processes])
        _, stderr = run.communicate(timeout=240)
    assert run.returncode == 3, stderr
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    # The module's next claim ran on the restarted worker, not waiting for the one that was gone.
    assert [c["id"] for c in report["claims"]] == ["faultdemo.steady"] and report["not_run"] == ["faultdemo.hogs"]
    [crash] = report["crashed"]
    assert crash["claims"] == ["faultdemo.hogs"]
    assert crash["reason"] == f"out of memory on worker {crash['worker']} (limit 600 MB)"
    assert_none_left(members)


def test_a_worker_stopped_and_continued_changes_no_verdict_nor_evidence(tmp_path):
    env = fault_package(tmp_path)
    with dask_processes(tmp_path, 1, env=env) as (address, processes):
        run = report_on(address, tmp_path, "faultdemo.naps", "faultdemo.steady")
        worker = int(wait_for(tmp_path / "markers" / "naps"))
        os.kill(worker, signal.SIGSTOP)
        time.sleep(8)  # heartbeats missed, but within the scheduler's worker-ttl
        os.kill(worker, signal.SIGCONT)
        members = family([run, *processes])
        stdout, stderr = run.communicate(timeout=120)
    # Exit 1 and no other complaint than --package's discipline: the fault package's claims have no broken variant.
    assert run.returncode == 1 and stdout.strip().splitlines()[-1] == (
        "report: 2 claims breaking the discipline, marked in the report: faultdemo.naps, faultdemo.steady"), stderr
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert {c["id"]: c["verdict"] for c in report["claims"]} == {"faultdemo.naps": "supported",
                                                                  "faultdemo.steady": "supported"}
    alone = json.loads(theorems(tmp_path, "check", "faultdemo.naps", "faultdemo.steady", "--json").stdout)
    assert [c["evidence"] for c in alone] == [c["evidence"] for c in report["claims"]]
    assert_none_left(members)
