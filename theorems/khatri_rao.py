"""giannou2023, Appendix A–C: Kronecker and Khatri–Rao algebra, and the full-rank lemmas
behind tuning only the normalization layers.

Source: shared/seeds/000_ee8c9d7a0007ea49.txt (App. A "Linear Algebra", App. B, App. C).
Conventions (CLAIMS.md): ``vec`` is row-major; A ⊙ B is ``scipy.linalg.khatri_rao``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from . import exact
from .checks import property_search
from .registry import Broken, Claim, register
from .strategies import classify_matrix, matrices

SOURCE = "shared/seeds/000_ee8c9d7a0007ea49.txt"


# --- Theorem 5: Kronecker rank and mixed products -------------------------------------


def kron_rank_statement(combine_ranks):
    """rank(A ⊗ B) == combine_ranks(rank A, rank B), decided exactly over Q."""

    def prop(pair):
        a, b = pair
        lhs = exact.rank_exact(np.kron(a, b).astype(a.dtype))
        rhs = combine_ranks(exact.rank_exact(a), exact.rank_exact(b))
        return None if lhs == rhs else f"rank(A⊗B) = {lhs}, predicted {rhs}"

    return prop


_small = st.integers(1, 4)
kron_pairs = st.tuples(matrices(_small, _small, kinds=("integer", "sparse", "rank_deficient", "structured")),
                       matrices(_small, _small, kinds=("integer", "sparse", "rank_deficient", "structured")))

register(
    Claim(
        id="giannou2023.thm5",
        source=f"{SOURCE}, App. A.2, Theorem 5",
        hypotheses=("A, B any real matrices (part 1); A_k, B_k conformable for the products (part 2)",),
        checks=(
            property_search(
                "kron rank (exact search)",
                kron_pairs,
                kron_rank_statement(lambda ra, rb: ra * rb),
                space="integer, sparse, rank-deficient and structured A, B up to 4×4, ranks over Q",
                classify=lambda pair: [f"A {classify_matrix(pair[0])}", f"B {classify_matrix(pair[1])}"],
                part="rank",
            ),
        ),
        broken=(
            Broken("rank(A⊗B) = rank A + rank B", (
                property_search(
                    "kron rank (exact search)",
                    kron_pairs,
                    kron_rank_statement(lambda ra, rb: ra + rb),
                    space="as the claim",
                    part="rank",
                ),
            )),
        ),
    )
)
