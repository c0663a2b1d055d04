"""Khatri–Rao products and the exact products they are built from.

A ⊙ B is the column-wise Kronecker product, in ``scipy.linalg.khatri_rao``'s order: column j of
A ⊙ B is A[:, j] ⊗ B[:, j], so row i·m + k is row i of A times row k of B. It works on
float, integer, sympy and Python-int object arrays alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy

from . import exact, modular_lu

# Bytes per entry of an N×N Khatri–Rao matrix held as int64 while its exact certificate runs:
# the matrix and the modular LU engine's one float64 copy with its working blocks (measured:
# 16–18.3 at 2304², the first run in a process the higher). ``KhatriRaoColumns`` needs no
# int64 copy: the engine alone, at most 1.25 × 8.
CERTIFICATE_BYTES_PER_ENTRY = 20


def khatri_rao(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A ⊙ B, in ``scipy.linalg.khatri_rao``'s order, by numpy broadcasting: every entry is one
    product, so float, integer, bool (logical AND), sympy and Python-int object arrays are
    multiplied exactly as their dtype multiplies. scipy's own function deprecates bool arrays
    (1.14) and object arrays (1.18), the exact ones the suite needs most."""
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[1]:
        raise ValueError(f"A ⊙ B needs two matrices with as many columns, got shapes {a.shape} and {b.shape}")
    return (a[:, None, :] * b[None, :, :]).reshape(a.shape[0] * b.shape[0], a.shape[1])


@dataclass(frozen=True)
class KhatriRaoColumns:
    """A ⊙ B of integer matrices as ``modular_lu.IntegerColumns``: a column block's residues
    are the Khatri–Rao product of the residues of A's and B's columns (products of two
    residues are below 2^40, exact in float64), so the product is never held whole."""

    left: np.ndarray
    right: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return self.left.shape[0] * self.right.shape[0], self.left.shape[1]

    def residue_columns(self, p: int, start: int, stop: int) -> np.ndarray:
        # Row j of the transpose is A[:, j] ⊗ B[:, j]: built so, the block is column-major, as the
        # engine's matrix is, and is copied into it contiguously.
        left, right = (np.ascontiguousarray(modular_lu.centred_residues(f[:, start:stop], p).T)
                       for f in (self.left, self.right))
        transposed = (left[:, :, None] * right[:, None, :]).reshape(stop - start, -1)
        return modular_lu.reduce(transposed, p).T

    def integers(self) -> np.ndarray:
        return khatri_rao(self.left, self.right)


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
