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
