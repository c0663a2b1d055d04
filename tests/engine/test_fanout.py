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
