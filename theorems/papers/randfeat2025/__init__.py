"""randfeat2025: "Random Features for Normalization Layers" (an anonymous submission to ICLR
2026, withdrawn; OpenReview).

Shared notation (``theorems.maths.features``): target W⁽ᵗ⁾ ∈ R^{c2×c0}, frozen W⁽¹⁾ ∈ R^{c1×c0},
W⁽²⁾ ∈ R^{c2×c1}, feature matrix m_{(ij)k} = w⁽²⁾_{ik} w⁽¹⁾_{kj} with row (i, j) at i·c0 + j
(0-based; the paper's k_ij = (i − 1)c0 + j, 1-based).
"""

from theorems.engine.papers import Paper, register_paper

register_paper(Paper(
    id="randfeat2025",
    title="Random Features for Normalization Layers",
    authors=("Anonymous",),
    venue="ICLR 2026 submission (withdrawn), OpenReview",
    year=2025,
    link="https://openreview.net/forum?id=E361DSJEyT",
    note="under double-blind review: the authors are not named",
))
