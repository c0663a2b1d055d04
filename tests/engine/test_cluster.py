"""Claims as tasks of a Dask cluster (``--scheduler``): the verdicts and evidence of one job,
on a LocalCluster and on a scheduler and two workers started as separate processes; each
claim's record from the worker that ran it; and the faults: a worker killed mid-claim (the
claim is retried), one that always dies and a check that raises (reported as crashed, with
the worker and the reason), a cluster without the resources a claim needs, a worker whose
software differs (a dependency, an edited or an extra module), two clients at once, an
unreachable scheduler, an address where something else answers, and no ``distributed``
installed."""

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
from theorems.errors import SchedulerError

distributed = pytest.importorskip("distributed")

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


claim("steady", steady)
claim("dies_once", dies_once)
claim("always_dies", always_dies)
claim("raises", raises)
claim("big", steady, memory_gb_at={"quick": 1000})
claim("slow", slow)
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


@pytest.fixture(scope="module")
def separate_cluster(tmp_path_factory):
    """A scheduler and two single-threaded workers, each its own process, on 127.0.0.1, in a
    folder that holds the fault package (the workers import it from there, as a client does
    from its own folder)."""
    folder = tmp_path_factory.mktemp("cluster")
    fault_package(folder)
    scheduler_file = folder / "scheduler.json"
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    worker = [sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file", str(scheduler_file),
              "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": folder}
    processes = [subprocess.Popen([*dask, "--scheduler-file", str(scheduler_file), "--host", "127.0.0.1",
                                   "--port", "0", "--no-dashboard"], **quiet)]
    try:
        for _ in range(300):
            if scheduler_file.exists() and scheduler_file.read_text().strip():
                break
            time.sleep(0.1)
        processes += [subprocess.Popen(worker, **quiet) for _ in range(2)]
        address = json.loads(scheduler_file.read_text())["address"]
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
            workers = set(client.scheduler_info()["workers"])
        yield address, workers, folder
    finally:
        for process in processes:
            process.kill()
            process.wait()


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
    assert done.returncode == 0, done.stderr
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
