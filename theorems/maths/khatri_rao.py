"""Khatri–Rao products and the exact products they are built from.

A ⊙ B is the column-wise Kronecker product of ``scipy.linalg.khatri_rao``: column j of
A ⊙ B is A[:, j] ⊗ B[:, j], so row i·m + k is row i of A times row k of B. It works on
float, integer, sympy and Python-int object arrays alike.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import sympy

from . import exact

# Bytes per entry of an N×N Khatri–Rao matrix while its exact certificate runs: the int64
# matrix (and scipy's int64 intermediate of the same size), its float64 residues and the
# modular LU engine's working copies.
CERTIFICATE_BYTES_PER_ENTRY = 32


def khatri_rao(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A ⊙ B. Boolean factors are multiplied as 0/1 integers (the product of two 0/1
    columns is their logical AND): scipy deprecates ``khatri_rao`` on bool arrays."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == bool or b.dtype == bool:
        return scipy.linalg.khatri_rao(a.astype(np.uint8), b.astype(np.uint8)).astype(bool)
    return scipy.linalg.khatri_rao(a, b)


def symbols_matrix(name: str, rows: int, cols: int) -> np.ndarray:
    """A rows×cols object array of independent sympy symbols (the generic matrix)."""
    return np.array(sympy.symbols(f"{name}_0:{rows * cols}"), dtype=object).reshape(rows, cols)


def _is_integer(a: np.ndarray) -> bool:
    return a.dtype.kind in "iu" or (a.dtype == object and all(isinstance(x, int) for x in a.flat))


def exact_matmul(*factors: np.ndarray) -> np.ndarray:
    """Product of integer or symbolic matrices without int64 overflow: integers through
    flint's fmpz_mat (fast, exact), symbols through object arithmetic."""
    if all(_is_integer(f) for f in factors):
        product = exact.fmpz_matrix(factors[0])
        for factor in factors[1:]:
            product = product * exact.fmpz_matrix(factor)
        return np.array([int(x) for x in product.entries()], dtype=object).reshape(product.nrows(), product.ncols())
    out = factors[0].astype(object)
    for factor in factors[1:]:
        out = out.dot(factor.astype(object))
    return out
