"""Khatri–Rao products as column blocks of residues (the modular LU engine's source)."""

import numpy as np

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
