"""Hypothesis strategies for the inputs the papers' hypotheses allow.

``matrices`` draws every kind of matrix a "for all matrices" claim must survive: small
integers (exact, shrink well), sparse, rank-deficient, structured (identity, permutation,
triangular, all-ones, block indicators), Gaussian, uniform, heavy-tailed and extreme
scales. The kind is drawn first, so shrinking moves towards small integer matrices, the
easiest counterexamples to read.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from . import exact

EXACT_KINDS = ("integer", "sparse", "rank_deficient", "structured")
FLOAT_KINDS = ("gaussian", "uniform", "heavy_tailed", "extreme_scale")
MATRIX_KINDS = EXACT_KINDS + FLOAT_KINDS
STRUCTURES = ("identity", "permutation", "ones", "diagonal", "upper_triangular", "block_indicator")


def _sizes(value: int | st.SearchStrategy[int]) -> st.SearchStrategy[int]:
    return value if isinstance(value, st.SearchStrategy) else st.just(value)


def structured_matrix(structure: str, rows: int, cols: int, rng: np.random.Generator) -> np.ndarray:
    """Integer matrices with the patterns that break naive proofs."""
    if structure == "identity":
        return np.eye(rows, cols, dtype=np.int64)
    if structure == "permutation":
        out = np.zeros((rows, cols), dtype=np.int64)
        k = min(rows, cols)
        out[rng.permutation(rows)[:k], rng.permutation(cols)[:k]] = 1
        return out
    if structure == "ones":
        return np.ones((rows, cols), dtype=np.int64)
    if structure == "diagonal":
        out = np.zeros((rows, cols), dtype=np.int64)
        k = min(rows, cols)
        out[np.arange(k), np.arange(k)] = rng.integers(1, 4, size=k) * rng.choice([-1, 1], size=k)
        return out
    if structure == "upper_triangular":
        return np.triu(rng.integers(-3, 4, size=(rows, cols))).astype(np.int64)
    if structure == "block_indicator":
        # Row i is 1 on the i-th block of columns: the witness shape of giannou2023 Lemma 6.
        width = max(1, cols // rows)
        out = np.zeros((rows, cols), dtype=np.int64)
        for i in range(rows):
            out[i, i * width : (i + 1) * width] = 1
        return out
    raise ValueError(f"unknown structure {structure!r}")


@st.composite
def matrices(draw, rows, cols, kinds: tuple[str, ...] = MATRIX_KINDS, bound: int = 3) -> np.ndarray:
    """A rows×cols matrix of a drawn kind (integer kinds as int64, float kinds as float64)."""
    r, c = draw(_sizes(rows)), draw(_sizes(cols))
    kind = draw(st.sampled_from(kinds))
    entries = st.integers(-bound, bound)
    if kind == "integer":
        return draw(hnp.arrays(np.int64, (r, c), elements=entries))
    if kind == "sparse":
        return draw(hnp.arrays(np.int64, (r, c), elements=entries, fill=st.just(0)))
    if kind == "rank_deficient":
        k = draw(st.integers(0, max(0, min(r, c) - 1)))
        u = draw(hnp.arrays(np.int64, (r, k), elements=entries))
        v = draw(hnp.arrays(np.int64, (k, c), elements=entries))
        return u @ v
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "structured":
        return structured_matrix(draw(st.sampled_from(STRUCTURES)), r, c, rng)
    if kind == "gaussian":
        return rng.standard_normal((r, c))
    if kind == "uniform":
        return rng.uniform(-1.0, 1.0, (r, c))
    if kind == "heavy_tailed":
        return rng.standard_cauchy((r, c))
    if kind == "extreme_scale":
        return rng.standard_normal((r, c)) * 10.0 ** draw(st.integers(-150, 150))
    raise ValueError(f"unknown matrix kind {kind!r}")


def classify_matrix(a: np.ndarray) -> str:
    """A coarse label for coverage tallies, computed from the matrix itself."""
    a = np.asarray(a)
    number = "int" if a.dtype.kind in "iub" else "float"
    if a.size == 0:
        return f"{number}/empty"
    rank = exact.rank_exact(a)
    fullness = "full-rank" if rank == min(a.shape) else "rank-deficient"
    density = "sparse" if np.count_nonzero(a) <= a.size // 2 else "dense"
    shape = "square" if a.shape[0] == a.shape[1] else ("wide" if a.shape[0] < a.shape[1] else "tall")
    return f"{number}/{fullness}/{density}/{shape}"
