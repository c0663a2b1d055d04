"""Khatri–Rao products as column blocks of residues (the modular LU engine's source)."""

import numpy as np
import pytest
import scipy.linalg
import sympy

from theorems.maths import exact, modular_lu
from theorems.maths.khatri_rao import KhatriRaoColumns, khatri_rao


def test_residue_columns_are_the_products_residues_in_any_block():
    rng = np.random.default_rng(0)
    left, right = exact.random_points(rng, (3, 12)), exact.random_points(rng, (4, 12))
    source, p = KhatriRaoColumns(left, right), modular_lu.PRIMES[2]
    assert source.shape == (12, 12) and np.array_equal(source.integers(), khatri_rao(left, right))
    blocks = [source.residue_columns(p, start, min(start + 5, 12)) for start in range(0, 12, 5)]
    residues = np.hstack(blocks)
    assert np.array_equal(np.mod(residues, p), np.mod(khatri_rao(left.astype(object), right.astype(object)), p))
    assert np.all(np.abs(residues) <= modular_lu.residue_bound(p))
    assert blocks[0].flags.f_contiguous  # column-major, as the engine's matrix


def test_the_product_is_scipys_order_on_floats_and_exact_on_every_dtype_scipy_deprecates():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))
    assert np.array_equal(khatri_rao(a, b), scipy.linalg.khatri_rao(a, b))
    big = np.array([[2**70, -3], [1, 5]], dtype=object)  # Python ints past int64: exact products
    assert khatri_rao(big, big)[0, 0] == 2**140 and khatri_rao(big, big).dtype == object
    x, y = sympy.symbols("x y")
    assert khatri_rao(np.array([[x, 1]], dtype=object), np.array([[y], [2]], dtype=object).T)[0, 0] == x * y
    masks = np.array([[True, False], [True, True]])
    assert np.array_equal(khatri_rao(masks, masks), khatri_rao(masks.astype(int), masks.astype(int)).astype(bool))


def test_factors_with_different_column_counts_are_refused():
    with pytest.raises(ValueError, match="as many columns"):
        khatri_rao(np.ones((2, 3)), np.ones((2, 4)))
