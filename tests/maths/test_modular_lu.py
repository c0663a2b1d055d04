"""The float64 modular LU engine against flint's nmod_mat, the reference.

Small leaves (monkeypatched) make small Hypothesis matrices go through every branch of the
recursions: panels, triangular solves, Schur updates, row swaps, non-pivot columns."""

import flint
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from theorems.maths import modular_lu as ml
from theorems.maths.strategies import EXACT_KINDS, matrices

P = ml.PRIME
HALF = (P - 1) // 2


def flint_matrix(a, p=P):
    a = np.asarray(a)
    return flint.nmod_mat(a.shape[0], a.shape[1], [int(x) % p for x in a.ravel().tolist()], p)


@pytest.fixture
def tiny_leaves(monkeypatch):
    monkeypatch.setattr(ml, "LEAF_COLUMNS", 2)
    monkeypatch.setattr(ml, "LEAF_SOLVE", 2)
    monkeypatch.setattr(ml, "BLOCK_ENTRIES", 7)  # row exchanges and the build in many column chunks


def assert_matches_flint(a, p=P):
    reference = flint_matrix(a, p)
    result = ml.factor(a, p)
    assert result.rank == reference.rank()
    assert len(result.pivot_rows) == len(result.pivot_columns) == result.rank
    if result.rank:  # the certificate: this minor is nonzero modulo p
        assert flint_matrix(np.asarray(a)[np.ix_(result.pivot_rows, result.pivot_columns)], p).det() != 0
    if a.shape[0] == a.shape[1]:
        assert result.det == int(reference.det())


def adversarial(draw, rows, cols):
    """Entries at ±(p−1)/2, ±(p−1), multiples of p, zero blocks and pivots that vanish only mod p."""
    a = np.array(draw(st.lists(st.sampled_from([0, 1, -1, HALF, -HALF, P - 1, 1 - P, P, -P, 2 * P + 1, 2**62 - 1]),
                               min_size=rows * cols, max_size=rows * cols)), dtype=np.int64).reshape(rows, cols)
    if draw(st.booleans()) and rows > 1 and cols > 1:  # a zero block
        a[: rows // 2, : cols // 2] = 0
    if draw(st.booleans()):  # the leading pivot is p: nonzero over Z, zero mod p
        a[0, 0] = P
    return a


shapes = st.tuples(st.integers(1, 12), st.integers(1, 12))


@st.composite
def exact_inputs(draw):
    rows, cols = draw(shapes)
    kind = draw(st.sampled_from(("exact kinds", "adversarial", "low rank", "huge")))
    if kind == "exact kinds":
        return draw(matrices(st.just(rows), st.just(cols), kinds=EXACT_KINDS))
    if kind == "adversarial":
        return adversarial(draw, rows, cols)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if kind == "low rank":  # rank deficient over Z, with entries large modulo p
        r = draw(st.integers(0, min(rows, cols)))
        left = rng.integers(-HALF, HALF, (rows, r), dtype=np.int64).astype(object)
        return left @ rng.integers(-3, 4, (r, cols)).astype(object)
    return rng.integers(-(2**62), 2**62, (rows, cols), dtype=np.int64)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])  # leaves stay patched
@given(exact_inputs())
def test_factor_matches_flint(tiny_leaves, a):
    assert_matches_flint(a)


@given(exact_inputs())
def test_factor_matches_flint_with_default_leaves(a):
    assert_matches_flint(a)


def test_square_structured_families(tiny_leaves):
    n = 24
    rng = np.random.default_rng(0)
    permutation = np.eye(n, dtype=np.int64)[rng.permutation(n)]
    cases = {
        "permutation": permutation,  # leading minors vanish: every column needs a row exchange
        "anti-diagonal": np.fliplr(np.eye(n, dtype=np.int64)),
        "p on the diagonal": np.eye(n, dtype=np.int64) * P + np.triu(np.ones((n, n), dtype=np.int64), 1),
        "repeated row": np.vstack([rng.integers(-5, 6, (n - 1, n)), np.zeros((1, n), dtype=np.int64)]),
        "zero": np.zeros((n, n), dtype=np.int64),
        "Vandermonde mod p": np.array([[pow(x, k, P) for k in range(n)] for x in range(1, n + 1)], dtype=np.int64),
    }
    cases["repeated row"][-1] = cases["repeated row"][0]
    for a in cases.values():
        assert_matches_flint(a)


def test_larger_than_one_leaf_against_flint():
    rng = np.random.default_rng(1)
    full = rng.integers(0, 2**62, (300, 300), dtype=np.int64)
    assert_matches_flint(full)
    deficient = rng.integers(-HALF, HALF, (300, 150)) @ rng.integers(-2, 3, (150, 310))
    assert_matches_flint(deficient)


def test_primes_keep_products_exact():
    for p in ml.PRIMES:
        assert flint.fmpz(p).is_prime() and p < 2**20
        bound = ml.residue_bound(p)
        assert ml.max_inner(p) * bound**2 + bound < 2**53 <= (ml.max_inner(p) + 1) * bound**2 + bound
    assert ml.max_inner(ml.PRIME) == 2**15 - 1


def test_reduce_is_exact_and_centred_near_the_float_limit():
    x = np.array([2.0**53 - 1, -(2.0**53) + 1, 0.0, P, -P, HALF, HALF + 1, 12345.0 * P + HALF])
    expected = [int(v) % P for v in x]
    reduced = ml.reduce(x.copy(), P)
    assert [int(v) % P for v in reduced] == expected
    assert np.all(np.abs(reduced) <= ml.residue_bound(P))


def test_centred_residues_of_every_integer_dtype():
    values = [0, 1, -1, P, -P, 2**62 - 1, -(2**62), 2**63 - 1, -(2**63)]
    for array in (np.array(values, dtype=np.int64), np.array(values, dtype=object)):
        residues = ml.centred_residues(array.reshape(1, -1), P)[0]
        assert [int(r) % P for r in residues] == [v % P for v in values]
    large_prime = ml._primes_below(1 << 26, 1)[0]  # too large for the float split: integer remainders
    residues = ml.centred_residues(np.array([values], dtype=np.int64), large_prime)[0]
    assert [int(r) % large_prime for r in residues] == [v % large_prime for v in values]
    assert ml.centred_residues(np.array([[True, False]]), P).tolist() == [[1.0, 0.0]]
    assert ml.centred_residues(np.array([[2**64 - 1]], dtype=np.uint64), P)[0, 0] % P == (2**64 - 1) % P


def test_meta_a_float_budget_one_bit_too_wide_is_caught(monkeypatch, tiny_leaves):
    """A near-miss in the arithmetic: sizing products for 2^54 instead of float64's 2^53 (one
    bit too many). On the adversarial L·Lᵀ below (unit pivots, every product (p−1)²/4 and of
    one sign) the engine then accepts a size whose sums round, and the comparison with flint
    catches it; with the true budget it refuses the size instead of answering wrongly. Leaves
    of two columns let an entry accumulate products from every recursion level before it is
    reduced, the most the lazy reduction allows."""
    p = ml._primes_below(1 << 26, 1)[0]  # max_inner(p) = 8 with the true budget
    c = (p - 1) // 2
    n = 16
    lower = np.tril(np.full((n, n), c, dtype=object), -1) + np.eye(n, dtype=np.int64).astype(object)
    a = (lower @ lower.T) % p  # det = 1
    assert int(flint_matrix(a, p).det()) == 1
    with pytest.raises(ValueError, match="smaller prime"):
        ml.factor(a, p)
    assert ml.det_mod(a[:8, :8], p) == 1
    monkeypatch.setattr(ml, "FLOAT_EXACT", 1 << 54)
    assert ml.det_mod(a, p) != int(flint_matrix(a, p).det())


@pytest.mark.parametrize(
    "bad, message",
    [(np.ones(3, dtype=int), "2-D"), (np.ones((2, 2)), "integer"), (np.ones((2, 3), dtype=int), "non-square")],
)
def test_clear_errors(bad, message):
    with pytest.raises(ValueError, match=message):
        ml.det_mod(bad)


def test_bad_primes():
    with pytest.raises(ValueError, match="not an odd prime"):
        ml.factor(np.eye(2, dtype=int), 2**20)
    with pytest.raises(ValueError, match="too large"):
        ml.factor(np.eye(2, dtype=int), (1 << 61) - 1)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(exact_inputs())
def test_the_torch_path_that_cuda_runs_matches_flint(tiny_leaves, a):
    """On CUDA the working matrix is a torch tensor: leaves go to the host and back, products
    stay on the device. A torch tensor on the CPU runs that same code."""
    import torch

    p = P
    reference = flint_matrix(a, p)
    work = torch.from_numpy(ml.residue_matrix(ml.columns_of(a), p))
    result = ml.factor_residues(work, p)
    assert result.rank == reference.rank()
    if a.shape[0] == a.shape[1]:
        assert result.det == int(reference.det())


def test_the_factorization_holds_one_copy_of_the_matrix():
    """Peak resident memory above the footprint within 1.25 × 8n²: one float64 copy, built
    column block by column block from the points, factored in place. The first run in a
    process also pays BLAS's and the allocator's one-time state (about 10 MiB, measured)."""
    from theorems.engine import resources
    from theorems.maths.exact import random_points
    from theorems.maths.khatri_rao import KhatriRaoColumns

    n, rng = 2304, np.random.default_rng(4)  # 48² rows: a Khatri–Rao product of 48 × 2304 factors
    source = KhatriRaoColumns(random_points(rng, (48, n)), random_points(rng, (48, n)))
    peaks = []
    for _ in range(2):
        with resources.peak_memory() as usage:
            assert ml.det_mod(source) != 0  # its value against flint: the tests above
        peaks.append(usage["peak_bytes"])
    if peaks[0] is None:
        pytest.skip("this kernel cannot reset the resident high-water mark")
    assert peaks[0] <= 1.25 * 8 * n * n + 16 * 2**20
    assert peaks[1] <= 1.25 * 8 * n * n
