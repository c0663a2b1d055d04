"""Random features of two frozen layers whose normalization parameters are trained.

A target layer W⁽ᵗ⁾ ∈ R^{c2×c0} is approximated by frozen W⁽¹⁾ ∈ R^{c1×c0}, W⁽²⁾ ∈ R^{c2×c1}
and trainable scales γ⁽¹⁾ ∈ R^{c1} (one per feature) and γ⁽²⁾ ∈ R^{c2} (one per output):
the effective weight is diag(γ⁽²⁾) W⁽²⁾ diag(γ⁽¹⁾) W⁽¹⁾. Its entry (i, j) is
γ⁽²⁾_i Σ_k m_{(ij)k} γ⁽¹⁾_k with the feature matrix m_{(ij)k} = w⁽²⁾_{ik} w⁽¹⁾_{kj}, row (i, j) at
index i·c0 + j (the row-major flattening of W⁽ᵗ⁾). M is the Khatri–Rao product W⁽²⁾ ⊙ W⁽¹⁾ᵀ.

Feature families: ID cond (M = I, one path per target entry), its minimal variant with
c2(c0 − 1) + 1 features (one feature shared by input 0), Ortho cond (M = U⁽²⁾ ⊗ U⁽¹⁾ᵀ) and the
standard random ones (He normal/uniform, orthogonal, sparse "ER norm"/"ER sign"). The torch
module ``FeatureLayer`` is the student as a layer of a user's network.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import flint
import numpy as np
import sympy
from sympy.matrices.expressions.matexpr import MatrixElement

from ..lazy import nn, torch
from . import exact, index_sums
from .khatri_rao import khatri_rao

FAMILIES = ("he_normal", "he_uniform", "orthogonal", "er_norm", "er_sign")


def _check_size(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{what} must be a positive integer, got {value!r}")
    return int(value)


def _check_layers(w1, w2) -> tuple[np.ndarray, np.ndarray]:
    w1, w2 = np.asarray(w1), np.asarray(w2)
    if w1.ndim != 2 or w2.ndim != 2:
        raise ValueError(f"W1 and W2 must be 2-D, got shapes {w1.shape} and {w2.shape}")
    if w2.shape[1] != w1.shape[0]:
        raise ValueError(f"W2 is {w2.shape[0]}×{w2.shape[1]} but W1 is {w1.shape[0]}×{w1.shape[1]}: "
                         "W2 needs one column per feature (row of W1)")
    if 0 in w1.shape or 0 in w2.shape:
        raise ValueError(f"empty layer: W1 {w1.shape}, W2 {w2.shape}")
    for name, w in (("W1", w1), ("W2", w2)):
        if w.dtype.kind == "f" and not np.all(np.isfinite(w)):
            raise ValueError(f"{name} has NaN or infinite entries")
    return w1, w2


def feature_matrix(w1, w2) -> np.ndarray:
    """M with m_{(ij)k} = w⁽²⁾_{ik} w⁽¹⁾_{kj}, shape (c0·c2) × c1, row (i, j) at i·c0 + j."""
    w1, w2 = _check_layers(w1, w2)
    return khatri_rao(w2, w1.T)


def effective_weight(w1, w2, gamma1, gamma2=None) -> np.ndarray:
    """diag(γ⁽²⁾) W⁽²⁾ diag(γ⁽¹⁾) W⁽¹⁾ (γ⁽²⁾ = 1 when omitted); object arrays stay exact."""
    w1, w2 = _check_layers(w1, w2)
    gamma1 = np.asarray(gamma1)
    if gamma1.shape != (w1.shape[0],):
        raise ValueError(f"γ1 must have one entry per feature ({w1.shape[0]}), got shape {gamma1.shape}")
    out = (w2 * gamma1[None, :]).dot(w1)
    if gamma2 is not None:
        gamma2 = np.asarray(gamma2)
        if gamma2.shape != (w2.shape[0],):
            raise ValueError(f"γ2 must have one entry per output ({w2.shape[0]}), got shape {gamma2.shape}")
        out = gamma2[:, None] * out
    return out


# --- proposed features -----------------------------------------------------------------


def id_cond_index(i: int, j: int, c0: int) -> int:
    """k_ij = i·c0 + j: the feature of target entry (i, j) (0-based row-major flattening)."""
    return i * c0 + j


def is_symbolic(*sizes) -> bool:
    """Whether sizes are sympy expressions (a construction evaluated at every size at once)."""
    return any(isinstance(size, sympy.Basic) for size in sizes)


def divide(k, size):
    """(⌊k / size⌋, k mod size): ``divmod`` for integers; for sympy expressions through Mod
    (``index_sums.quotient``), which ``index_sums.with_remainder_below`` reduces."""
    if is_symbolic(k, size):
        return index_sums.quotient(k, size), sympy.Mod(k, size)
    return divmod(k, size)


def indexed_matrix(rows, cols, entry) -> np.ndarray | sympy.FunctionMatrix:
    """The rows × cols matrix whose entry (r, c) is ``entry(r, c)``: one definition, evaluated two ways.
    At symbolic sizes a ``sympy.FunctionMatrix`` (``entry`` applied to nonnegative integer dummies), so
    that a check evaluates the construction itself at every size at once; at integer sizes a numpy
    array (``entry`` applied once to the broadcast index grids, so it is written with operations that
    act on sympy expressions and numpy arrays alike: ``divide``, ``indicator``, indexing)."""
    if is_symbolic(rows, cols):
        r, c = (sympy.Dummy(name, integer=True, nonnegative=True) for name in "rc")
        return sympy.FunctionMatrix(rows, cols, sympy.Lambda((r, c), entry(r, c)))
    rows, cols = _check_size(rows, "rows"), _check_size(cols, "cols")
    values = np.asarray(entry(np.arange(rows)[:, None], np.arange(cols)[None, :]))
    return np.broadcast_to(values, (rows, cols)).copy()


def indexable(matrix):
    """``matrix`` as the entry rules of ``indexed_matrix`` read it: a matrix expression of symbolic
    shape as itself, any other matrix as a numpy array (an explicit sympy matrix as an object array)."""
    if isinstance(matrix, sympy.MatrixExpr) and is_symbolic(*matrix.shape):
        return matrix
    return np.asarray(matrix)


def indexed_vector(length, entry) -> np.ndarray | sympy.FunctionMatrix:
    """The vector whose entry k is ``entry(k)``, as ``indexed_matrix``: at symbolic sizes a length × 1
    ``sympy.FunctionMatrix`` (entry k at [k, 0]), at integer sizes a 1-D numpy array."""
    column = indexed_matrix(length, 1, lambda k, _: entry(k))
    return column if is_symbolic(length) else column[:, 0]


def instantiated(matrix: sympy.FunctionMatrix, sizes: dict, factors: dict | None = None) -> np.ndarray:
    """A matrix of symbolic shape (``indexed_matrix``) at integer values of its size symbols (``sizes``), each
    entry of a matrix symbol named in ``factors`` replaced by that explicit matrix's entry: the object array
    of its entries, each computed from the entry formula itself. Compared with the same construction
    evaluated at integer sizes, it tells whether the object that runs is the one a proof at symbolic sizes
    reads."""
    factors = {name: np.asarray(value) for name, value in (factors or {}).items()}
    formula = matrix.lamda.expr.xreplace(sizes)
    indices = matrix.lamda.variables

    def entry(r: int, c: int):
        value = sympy.sympify(formula.xreplace(dict(zip(indices, (r, c), strict=True))))
        return value.xreplace({element: sympy.sympify(factors[element.parent.name][int(element.i), int(element.j)])
                               for element in value.atoms(MatrixElement)
                               if element.parent.name in factors})

    rows, cols = (int(sympy.sympify(size).xreplace(sizes)) for size in matrix.shape)
    return np.array([[entry(r, c) for c in range(cols)] for r in range(rows)], dtype=object)


def indicator(a, b):
    """[a = b]: a Kronecker delta for sympy expressions, a 0/1 int64 array for numpy index grids."""
    if is_symbolic(a, b):
        return sympy.KroneckerDelta(a, b)
    return (np.asarray(a) == np.asarray(b)).astype(np.int64)


def layers_from_links(c0, c2, c1, link) -> tuple:
    """The 0/1 layers whose feature k links input j to output i, (i, j) = link(k):
    w⁽¹⁾_{kj} = [j = link(k)[1]], w⁽²⁾_{ik} = [i = link(k)[0]] (``indexed_matrix``: int64 arrays at
    integer sizes, ``sympy.FunctionMatrix`` layers of symbolic shape with Kronecker-delta entries at
    symbolic sizes, both from this one definition)."""
    return (indexed_matrix(c1, c0, lambda k, j: indicator(j, link(k)[1])),
            indexed_matrix(c2, c1, lambda i, k: indicator(i, link(k)[0])))


def id_cond(c0, c2) -> tuple:
    """ID cond layers (Eq. 6): w⁽¹⁾_{kj} = w⁽²⁾_{ik} = 1 iff k = k_ij = i·c0 + j, i.e. feature k links
    input k mod c0 to output ⌊k / c0⌋; c1 = c0·c2, M = I. Symbolic sizes give symbolic layers
    (``layers_from_links``)."""
    return layers_from_links(c0, c2, c0 * c2, lambda k: divide(k, c0))


def id_cond_minimal(c0: int, c2: int) -> tuple[np.ndarray, np.ndarray]:
    """Minimal ID cond layers (Eq. 3): feature 0 is the shared k₁ (input 0 to every output),
    feature 1 + i·(c0 − 1) + (j − 1) is k_ij for j ≥ 1; c1 = c2(c0 − 1) + 1. The effective
    weight is w_ij = γ⁽²⁾_i γ⁽¹⁾_{k_ij} (j ≥ 1) and w_i0 = γ⁽²⁾_i γ⁽¹⁾_{k₁}."""
    c0, c2 = _check_size(c0, "c0"), _check_size(c2, "c2")
    c1 = c2 * (c0 - 1) + 1
    w1 = np.zeros((c1, c0), dtype=np.int64)
    w2 = np.zeros((c2, c1), dtype=np.int64)
    w1[0, 0] = 1
    w2[:, 0] = 1
    for i in range(c2):
        for j in range(1, c0):
            k = 1 + i * (c0 - 1) + (j - 1)
            w1[k, j] = 1
            w2[i, k] = 1
    return w1, w2


def ortho_cond_layers(u1, u2) -> tuple:
    """Layers whose features are m_{(ij)(qd)} = u⁽²⁾_{iq} u⁽¹⁾_{dj}, feature (q, d) at k = q·c0 + d:
    row k of W⁽¹⁾ is row k mod c0 of U⁽¹⁾ (W⁽¹⁾ = 1_{c2} ⊗ U⁽¹⁾), column k of W⁽²⁾ is column ⌊k / c0⌋ of
    U⁽²⁾ (W⁽²⁾ = U⁽²⁾ ⊗ 1ᵀ_{c0}); M = U⁽²⁾ ⊗ U⁽¹⁾ᵀ. One definition (``indexed_matrix``): square sympy
    matrix expressions of symbolic orders give ``sympy.FunctionMatrix`` layers, square arrays the
    same entries as arrays of their dtype."""
    u1, u2 = indexable(u1), indexable(u2)
    for name, u in (("U1", u1), ("U2", u2)):
        if len(u.shape) != 2 or u.shape[0] != u.shape[1] or 0 in u.shape:
            raise ValueError(f"{name} must be a non-empty square matrix, got shape {u.shape}")
    c0, c2 = u1.shape[0], u2.shape[0]
    return (indexed_matrix(c0 * c2, c0, lambda k, j: u1[divide(k, c0)[1], j]),
            indexed_matrix(c2, c0 * c2, lambda i, k: u2[i, divide(k, c0)[0]]))


def haar_orthogonal(rng: np.random.Generator, n: int) -> np.ndarray:
    """A Haar-distributed n×n orthogonal matrix (QR of a Gaussian with the signs of R's diagonal fixed)."""
    n = _check_size(n, "n")
    q, r = np.linalg.qr(rng.standard_normal((n, n)))
    return q * np.sign(np.diag(r))[None, :]


def semi_orthogonal(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    """Orthonormal rows (rows ≤ cols) or columns (rows ≥ cols), Haar: torch's orthogonal init."""
    rows, cols = _check_size(rows, "rows"), _check_size(cols, "cols")
    big = haar_orthogonal(rng, max(rows, cols))
    return big[:rows, :cols]


def cayley_orthogonal(skew) -> np.ndarray:
    """The rational orthogonal matrix (I − S)(I + S)⁻¹ of a skew-symmetric rational S, as an
    object array of Fractions (exact: I + S is invertible for real skew S)."""
    s = exact.fmpq_matrix(np.asarray(skew, dtype=object))
    if s.nrows() != s.ncols() or s.transpose() != -s:
        raise ValueError("S must be square and skew-symmetric")
    n = s.nrows()
    identity = flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])
    q = (identity - s) * (identity + s).inv()
    return exact.fmpq_matrix_to_fractions(q)


# --- standard random features ---------------------------------------------------------


def random_layer(family: str, rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    """A rows×cols weight matrix (fan-in = cols) of a standard family:

    - ``he_normal``: N(0, 2/fan_in); ``he_uniform``: U(±√(6/fan_in));
    - ``orthogonal``: Haar semi-orthogonal (orthonormal rows or columns);
    - ``er_norm`` / ``er_sign``: N(0, 1) or ±1 entries, each kept with probability 1/2.
    """
    rows, cols = _check_size(rows, "rows"), _check_size(cols, "cols")
    if family == "he_normal":
        return rng.standard_normal((rows, cols)) * np.sqrt(2.0 / cols)
    if family == "he_uniform":
        bound = np.sqrt(6.0 / cols)
        return rng.uniform(-bound, bound, (rows, cols))
    if family == "orthogonal":
        return semi_orthogonal(rng, rows, cols)
    if family == "er_norm":
        return rng.standard_normal((rows, cols)) * (rng.random((rows, cols)) < 0.5)
    if family == "er_sign":
        return rng.choice(np.array([-1.0, 1.0]), (rows, cols)) * (rng.random((rows, cols)) < 0.5)
    raise ValueError(f"unknown feature family {family!r}; choose one of {', '.join(FAMILIES)}")


def random_layers(family: str, rng: np.random.Generator, c0: int, c1: int, c2: int) -> tuple[np.ndarray, np.ndarray]:
    """Independent frozen layers W⁽¹⁾ (c1×c0) and W⁽²⁾ (c2×c1) of one family."""
    return random_layer(family, rng, c1, c0), random_layer(family, rng, c2, c1)


# --- conditioning -----------------------------------------------------------------------


def numerical_rank(singular_values: np.ndarray, shape: tuple[int, int]) -> int:
    """numpy's default rank tolerance: σ > σ_max · max(shape) · eps."""
    s = np.asarray(singular_values)
    if s.size == 0 or s[0] == 0:
        return 0
    return int(np.count_nonzero(s > s[0] * max(shape) * np.finfo(float).eps))


def singular_values(m) -> np.ndarray:
    """Singular values of a float64 matrix, decreasing. Through torch, whose LAPACK calls follow
    torch's thread setting (the runner uses one thread): on a loaded two-core machine numpy's
    multithreaded LAPACK was measured 30× slower on 256×128 matrices."""
    m = np.asarray(m, dtype=float)
    if m.ndim != 2 or 0 in m.shape:
        raise ValueError(f"expected a non-empty 2-D matrix, got shape {m.shape}")
    return torch.linalg.svdvals(torch.from_numpy(np.ascontiguousarray(m))).numpy()


def feature_singular_values(w1, w2, device: str = "cpu") -> np.ndarray:
    """Singular values of M = feature_matrix(w1, w2), decreasing, for c1 ≤ c0·c2, without forming M:
    MᵀM = (W⁽²⁾ᵀW⁽²⁾) ∘ (W⁽¹⁾W⁽¹⁾ᵀ) (Hadamard product of the Grams, the Khatri–Rao identity) is
    c1 × c1 where M is (c0·c2) × c1, so c0·c2 = 10⁴ costs one symmetric eigensolve of order c1.
    σ = √λ: a singular value near 0 is off by ~√(eps)·σ_max (λ's rounding), which no test of
    a spectral law at these sizes resolves. Runs in float64 on ``device`` through torch."""
    w1, w2 = (torch.as_tensor(np.asarray(w, dtype=float), device=device) for w in (w1, w2))
    if w1.ndim != 2 or w2.ndim != 2 or w2.shape[1] != w1.shape[0]:
        raise ValueError(f"expected W⁽¹⁾ c1×c0 and W⁽²⁾ c2×c1, got shapes {tuple(w1.shape)}, {tuple(w2.shape)}")
    if w1.shape[0] > w1.shape[1] * w2.shape[0]:
        raise ValueError(f"c1 = {w1.shape[0]} > c0·c2 = {w1.shape[1] * w2.shape[0]}: "
                         f"MᵀM is singular, use singular_values")
    gram = (w2.T @ w2).mul_(w1 @ w1.T)
    eigenvalues = torch.linalg.eigvalsh(gram).clamp_(min=0).sqrt_()
    return eigenvalues.flip(0).cpu().numpy()


def condition_number(m, rank: int | None = None) -> float:
    """κ(M) = largest / smallest nonzero singular value (nonzero: among the first ``rank``,
    numpy's tolerance when not given); inf for M = 0."""
    m = np.asarray(m, dtype=float)
    s = singular_values(m)
    r = numerical_rank(s, m.shape) if rank is None else rank
    return float(s[0] / s[r - 1]) if r > 0 else float("inf")


# --- exact least squares ---------------------------------------------------------------


def pinv_exact(m) -> flint.fmpq_mat:
    """The Moore–Penrose inverse over Q from a full-rank factorization M = C·R:
    M⁺ = Rᵀ (R Rᵀ)⁻¹ (Cᵀ C)⁻¹ Cᵀ, with C the pivot columns of M and R the nonzero rows of its rref."""
    a = exact.fmpq_matrix(m)
    rows, cols = a.nrows(), a.ncols()
    rref, rank = a.rref()
    if rank == 0:
        return flint.fmpq_mat(cols, rows)
    pivots = []
    for r in range(rank):
        pivots.append(next(c for c in range(cols) if rref[r, c] != 0))
    c_mat = flint.fmpq_mat(rows, rank, [a[i, p] for i in range(rows) for p in pivots])
    r_mat = flint.fmpq_mat(rank, cols, [rref[r, c] for r in range(rank) for c in range(cols)])
    return r_mat.transpose() * (r_mat * r_mat.transpose()).inv() * (c_mat.transpose() * c_mat).inv() * c_mat.transpose()


def nullspace_basis(a: flint.fmpq_mat) -> list[list[flint.fmpq]]:
    """A basis of {x : A x = 0} over Q, one vector per free column of rref(A)."""
    rref, rank = a.rref()
    cols = a.ncols()
    pivots = [next(c for c in range(cols) if rref[r, c] != 0) for r in range(rank)]
    basis = []
    for free in (c for c in range(cols) if c not in pivots):
        vector = [flint.fmpq(0)] * cols
        vector[free] = flint.fmpq(1)
        for r, pivot in enumerate(pivots):
            vector[pivot] = -rref[r, free]
        basis.append(vector)
    return basis


def least_squares_exact(m, v) -> tuple[flint.fmpq_mat, Fraction]:
    """γ = M⁺v and the residual ‖Mγ − v‖² over Q (the least-squares minimum)."""
    m_q = exact.fmpq_matrix(m)
    v = np.asarray(v).reshape(-1, 1)
    if v.shape[0] != m_q.nrows():
        raise ValueError(f"v has {v.shape[0]} entries, M has {m_q.nrows()} rows")
    v_q = exact.fmpq_matrix(v)
    gamma = pinv_exact(m) * v_q
    residual = m_q * gamma - v_q
    total = sum((residual[i, 0] ** 2 for i in range(residual.nrows())), flint.fmpq(0))
    return gamma, exact.fmpq_to_fraction(total)


# --- the student as a torch module ------------------------------------------------------


@cache
def _torch_modules():
    class FrozenLinear(nn.Module):
        """x ↦ W x with W a buffer (never trained, saved with the state)."""

        def __init__(self, weight):
            super().__init__()
            weight = torch.as_tensor(weight)
            if weight.ndim != 2 or not weight.is_floating_point():
                raise ValueError(f"weight must be a 2-D floating tensor, "
                                 f"got shape {tuple(weight.shape)}, dtype {weight.dtype}")
            self.register_buffer("weight", weight)

        def forward(self, x):
            return x @ self.weight.T

    class Scale(nn.Module):
        """x ↦ γ ∘ x, one trainable γ per channel (the affine scale of a normalization layer)."""

        def __init__(self, channels: int, dtype=torch.float64, init=None):
            super().__init__()
            value = torch.ones(channels, dtype=dtype) if init is None else torch.as_tensor(init, dtype=dtype).clone()
            if value.shape != (channels,):
                raise ValueError(f"scale must have shape ({channels},), got {tuple(value.shape)}")
            self.gamma = nn.Parameter(value)

        def forward(self, x):
            return x * self.gamma

    class FeatureLayer(nn.Module):
        """The student of Eq. (1) as a layer: frozen W⁽¹⁾, per-feature scale γ⁽¹⁾, frozen W⁽²⁾,
        per-output scale γ⁽²⁾ (trainable or fixed to 1)."""

        def __init__(self, w1, w2, gamma1=None, gamma2=None, train_gamma2: bool = True):
            super().__init__()
            w1_array, w2_array = _check_layers(np.asarray(w1), np.asarray(w2))
            dtype = torch.float64
            self.first = FrozenLinear(torch.as_tensor(w1_array, dtype=dtype))
            self.scale1 = Scale(w1_array.shape[0], dtype, gamma1)
            self.second = FrozenLinear(torch.as_tensor(w2_array, dtype=dtype))
            self.scale2 = Scale(w2_array.shape[0], dtype, gamma2)
            self.scale2.gamma.requires_grad_(train_gamma2)

        def forward(self, x):
            return self.scale2(self.second(self.scale1(self.first(x))))

        def effective_weight(self):
            return (self.scale2.gamma[:, None] * self.second.weight * self.scale1.gamma[None, :]) @ self.first.weight

    return FrozenLinear, Scale, FeatureLayer


def __getattr__(name: str):
    # torch is imported only when a module is asked for: the exact machinery needs no torch.
    if name in ("FrozenLinear", "Scale", "FeatureLayer"):
        return dict(zip(("FrozenLinear", "Scale", "FeatureLayer"), _torch_modules(), strict=True))[name]
    raise AttributeError(name)
