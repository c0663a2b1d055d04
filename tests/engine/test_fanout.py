"""One check's chunks: slicing, and stopping at a chunk's result outside a cluster (inside one,
tests/engine/test_checks.py runs sweeps as cluster tasks)."""

import pytest

from theorems.engine.fanout import chunks_of, map_chunks


def test_chunks_of_slices_in_order_with_a_shorter_last_chunk():
    assert chunks_of(list(range(7)), 3) == [[0, 1, 2], [3, 4, 5], [6]]
    assert chunks_of([], 3) == []
    with pytest.raises(ValueError, match="at least one item"):
        chunks_of([1], 0)


def test_map_chunks_stops_after_the_first_result_that_says_so():
    ran = []

    def total(chunk):
        ran.append(chunk)
        return sum(chunk)

    chunks = chunks_of(list(range(10)), 2)
    assert map_chunks(total, chunks) == [1, 5, 9, 13, 17]
    ran.clear()
    assert map_chunks(total, chunks, stop=lambda result: result > 4) == [1, 5]
    assert ran == [[0, 1], [2, 3]]  # nothing runs past the stop


def test_on_a_cluster_chunks_that_do_not_pickle_run_in_the_claims_own_task(monkeypatch):
    distributed = pytest.importorskip("distributed")
    import flint

    from theorems.engine import fanout

    monkeypatch.setattr(fanout, "WORTHWHILE_S", 0)  # every chunk worth a task, however quick

    def where(chunk):
        return int(chunk[0].det()), str(distributed.get_worker().get_current_task())

    def claim():  # its chunks hold python-flint matrices, which do not pickle
        return map_chunks(where, [[flint.fmpq_mat(2, 2, [k, 1, 0, 1])] for k in range(4)])

    with (distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0")
          as cluster, distributed.Client(cluster) as client):
        results = client.submit(claim, pure=False).result()
    assert [det for det, _ in results] == [0, 1, 2, 3]
    assert len({task for _, task in results}) == 1


def test_on_a_cluster_chunk_keys_name_the_claims_task_and_so_its_run(monkeypatch):
    distributed = pytest.importorskip("distributed")
    from theorems.engine import fanout

    monkeypatch.setattr(fanout, "WORTHWHILE_S", 0)

    def where(chunk):
        return str(distributed.get_worker().get_current_task())

    with (distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0")
          as cluster, distributed.Client(cluster) as client):
        tasks = client.submit(map_chunks, where, [[k] for k in range(4)], key="theorems-run1-paper.claim").result()
    assert tasks[0] == "theorems-run1-paper.claim"  # the first chunk runs in the claim's own task
    assert all(task.startswith("theorems-run1-paper.claim-chunks-") for task in tasks[1:])


def test_a_client_that_releases_its_chunks_never_cancels_another_clients_same_chunks():
    """Two runs scatter the same chunk (the same claim, seed and sizes); one cancels it at once
    (its sweep stopped), the other's task must still finish. With keys derived from the content
    both held one key, and the other run's task failed ("lost dependencies") in most rounds."""
    distributed = pytest.importorskip("distributed")
    import cloudpickle

    from theorems.engine.fanout import submit_chunks

    payloads = [cloudpickle.dumps((len, b"chunk" * 200))]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") \
            as cluster, distributed.Client(cluster) as keeper, distributed.Client(cluster) as canceller:
        for round_ in range(10):
            kept = submit_chunks(keeper, payloads, f"theorems-keeper-claim{round_}")
            cancelled = submit_chunks(canceller, payloads, f"theorems-canceller-claim{round_}")
            canceller.cancel(cancelled)
            assert [future.result(timeout=30)[0] for future in kept] == [1000]
