"""randfeat2025: "Random Features for Normalization Layers" (anonymous submission)
(shared/seeds/003_d946e123a5fc1780.txt).

Shared notation (``theorems.maths.features``): target W⁽ᵗ⁾ ∈ R^{c2×c0}, frozen W⁽¹⁾ ∈ R^{c1×c0},
W⁽²⁾ ∈ R^{c2×c1}, feature matrix m_{(ij)k} = w⁽²⁾_{ik} w⁽¹⁾_{kj} with row (i, j) at i·c0 + j
(0-based; the paper's k_ij = (i − 1)c0 + j, 1-based).
"""

SOURCE = "shared/seeds/003_d946e123a5fc1780.txt"
