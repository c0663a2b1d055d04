"""burkholz2024, Sec. 2.1: composing two stride-1 convolutions gives one convolution whose
filter has dimension (k1,1 + k2,1 − 1) × (k1,2 + k2,2 − 1).

Checked symbolically (sympy, generic filters and inputs) in 1-D and 2-D for valid padding
(no padding) and full zero padding (k − 1 zeros on each side), and for 'same' zero padding
when the first filter is 1×1 (the paper's choice k1 = 1). With 'same' padding and two filters
wider than one the composition differs at the border (the intermediate map was cropped), so
"suitably padded" has to mean valid or full padding there; a broken variant shows it.
"""

from __future__ import annotations

import numpy as np
import sympy

from ...engine.checks import symbolic_identity
from ...engine.context import Context
from ...engine.registry import Broken, Check, Claim, register, takes
from ...engine.verdicts import Outcome, Verdict
from ...maths import construction as cm
from ...maths.khatri_rao import symbols_matrix


def correlate(x: np.ndarray, w: np.ndarray, padding: str) -> np.ndarray:
    """Stride-1 multi-channel cross-correlation (torch's convolution) on object arrays:
    x is c_in × spatial…, w is c_out × c_in × kernel…; padding 'valid', 'full' or 'same'."""
    kernel = w.shape[2:]
    if padding == "full":
        pads = [(k - 1, k - 1) for k in kernel]
    elif padding == "same":
        pads = [((k - 1) // 2, k - 1 - (k - 1) // 2) for k in kernel]
    else:
        pads = [(0, 0) for _ in kernel]
    x = np.pad(x, [(0, 0)] + pads, constant_values=0)
    out_shape = tuple(n - k + 1 for n, k in zip(x.shape[1:], kernel, strict=True))
    out = np.zeros((w.shape[0],) + out_shape, dtype=object)
    for position in np.ndindex(*out_shape):
        window = x[(slice(None),) + tuple(slice(p, p + k) for p, k in zip(position, kernel, strict=True))]
        out[(slice(None),) + position] = np.tensordot(w, window,
                                                      axes=(list(range(1, w.ndim)), list(range(window.ndim))))
    return out


def composite_filter(second: np.ndarray, first: np.ndarray, size_rule) -> np.ndarray:
    """The effective filter of first-then-second with spatial size from ``size_rule(k1, k2)``
    (the paper's rule is k1 + k2 − 1)."""
    combined = cm.compose_filters(second, first)
    size = tuple(size_rule(a, b) for a, b in zip(first.shape[2:], second.shape[2:], strict=True))
    natural = combined.shape[2:]
    if size != natural:  # a wrong size rule: crop or zero-pad the filter to the claimed size
        out = np.zeros(combined.shape[:2] + size, dtype=object)
        region = tuple(slice(0, min(a, b)) for a, b in zip(size, natural, strict=True))
        out[(slice(None), slice(None)) + region] = combined[(slice(None), slice(None)) + region]
        combined = out
    return combined


CASES = [  # (input spatial shape, k1, k2, channels c0, c1, c2, padding)
    ((5,), (2,), (3,), 1, 2, 1, "valid"),
    ((4,), (2,), (2,), 2, 1, 1, "full"),
    ((5,), (1,), (3,), 1, 2, 2, "same"),
    ((4, 4), (2, 1), (2, 2), 1, 1, 1, "valid"),
    ((3, 3), (2, 2), (1, 2), 1, 2, 1, "full"),
    ((4, 4), (1, 1), (3, 3), 1, 2, 1, "same"),
    ((5,), (3,), (3,), 1, 1, 1, "same"),
]


def paper_rule(k1, k2):
    """Sec. 2.1: dim(k1, k2) = k1 + k2 − 1 per axis."""
    return k1 + k2 - 1


def one_too_many(k1, k2):
    return k1 + k2


def suitable_padding(padding: str, k1, k2) -> bool:
    """'Suitably padded': valid or full zero padding, 'same' only with a 1×1 first filter."""
    return padding in ("valid", "full") or all(k == 1 for k in k1)


def any_zero_padding(padding: str, k1, k2) -> bool:
    """A broken reading: every zero padding, 'same' with wide filters included."""
    return True


def composition_check(size_rule, admits) -> Check:
    """The listed cases that ``admits(padding, k1, k2)`` lets in, each expanded symbolically."""
    def build(case):
        shape, k1, k2, c0, c1, c2, padding = case
        x = symbols_matrix("x", c0, int(np.prod(shape))).reshape((c0,) + shape)
        first = symbols_matrix("a", c1, c0 * int(np.prod(k1))).reshape((c1, c0) + k1)
        second = symbols_matrix("b", c2, c1 * int(np.prod(k2))).reshape((c2, c1) + k2)
        two_layers = correlate(correlate(x, first, padding), second, padding)
        one_layer = correlate(x, composite_filter(second, first, size_rule), padding)
        return sympy.Matrix(two_layers.reshape(c2, -1)), sympy.Matrix(one_layer.reshape(one_layer.shape[0], -1))

    return symbolic_identity("two convolutions = one with the composite filter",
                             lambda ctx: [case for case in CASES if admits(case[6], case[1], case[2])], build,
                             scope="1-D and 2-D, k ≤ 3, c ≤ 2, inputs ≤ 5, valid, full and 'same' (k1 = 1) padding",
                             describe_case=lambda c: f"input {c[0]}, k1 {c[1]}, k2 {c[2]}, channels {c[3:6]}, "
                                                     f"{c[6]} padding", part="listed cases")


def general_identity(size_rule) -> Check:
    """The identity for every k1, k2 and input length N (sympy, symbolic sizes), 1-D, one channel,
    valid padding: the two layers give z_n = Σ_{p<k2} Σ_{q<k1} b_p a_q x_{n+p+q} on N − k1 − k2 + 2
    positions; one layer with c_t = Σ_{p<k2} b_p a_{t−p} gives Σ_{t<K} c_t x_{n+t} on N − K + 1,
    K = size_rule(k1, k2). The coefficient of b_p a_q x_{n+s} is δ(s, p+q) on the left and
    Σ_{t<K} δ(s, t) δ(q, t − p) on the right; with p = k2 − 1 − u, q = k1 − 1 − v (u, v ≥ 0 span
    the index ranges) the difference simplifies to 0."""

    def run(ctx: Context) -> Outcome:
        k1, k2, n = sympy.symbols("k1 k2 N", integer=True, positive=True)
        p, q, s, t, u, v = sympy.symbols("p q s t u v", integer=True, nonnegative=True)
        size = size_rule(k1, k2)
        lengths = (n - k1 - k2 + 2, n - size + 1)
        right = sympy.Sum(sympy.KroneckerDelta(s, t) * sympy.KroneckerDelta(q, t - p), (t, 0, size - 1)).doit()
        difference = sympy.simplify((right - sympy.KroneckerDelta(s, p + q)).subs({p: k2 - 1 - u, q: k1 - 1 - v}))
        evidence = {"output_lengths": [str(x) for x in lengths], "coefficient_difference": str(difference)}
        if sympy.simplify(lengths[0] - lengths[1]) != 0 or difference != 0:
            return Outcome(Verdict.REFUTED, f"composite of size {size}: output lengths {lengths[0]} and {lengths[1]}, "
                                            f"coefficient difference {difference}", evidence,
                           counterexample=evidence)
        return Outcome(Verdict.CERTIFIED, "equal output lengths and coefficients for symbolic k1, k2, N", evidence,
                       certificate={"method": "sympy Sum/KroneckerDelta with symbolic sizes, simplified to 0"},
                       scope="every k1, k2, N (1-D, one channel, valid padding)")

    return Check("composite filter identity for symbolic k1, k2", "certificate", run, part="symbolic sizes")


register(Claim(
    id="burkholz2024.composition",
    source="Sec. 2.1 (definition of dim(k1, k2))",
    hypotheses=("stride 1", "zero padding: valid or full; 'same' when the first filter is 1×1", "1-D and 2-D filters"),
    subject={"size_rule": paper_rule, "padding": suitable_padding},
    checks=(takes("size_rule", "padding", build=composition_check), takes("size_rule", build=general_identity)),
    broken=(Broken("composite filter of dimension k1 + k2 (off by one)", replaces={"size_rule": one_too_many},
                   refuted_by="the first case (1-D, k1 = 2, k2 = 3, valid padding): the output shapes differ; "
                              "symbolically, lengths N − k1 − k2 + 2 and N − k1 − k2 + 1"),
            Broken("'suitably padded' read as any zero padding ('same' with both filters wider than one)",
                   replaces={"padding": any_zero_padding},
                   refuted_by="the listed case input length 5, k1 = k2 = 3, 'same' padding: the border outputs differ "
                              "(cropped intermediate)"),),
    notes="Torch's convolution is a cross-correlation; the composite filter of correlations is the full convolution of "
          "the filters, of size k1 + k2 − 1 per axis, exactly as printed. The identity is exact for valid and full "
          "zero padding; with 'same' padding only when one filter is 1×1 (the paper's construction k1 = 1). The "
          "machine checks every k1, k2, N symbolically for one channel, 1-D, valid padding, and the listed cases "
          "(channels, 2-D, full and 'same' padding) concretely.",
    general_argument="The rest of the hypotheses reduce to the symbolic case: channels enter through the sum over "
                     "hidden channels, linear on both sides; a 2-D coefficient is the product of one such delta per "
                     "axis; full padding is valid padding of the input padded by k1 + k2 − 2 (the k2 − 1 zeros padded "
                     "to the intermediate map are exactly its values on windows of zeros); 'same' padding with a 1×1 "
                     "first filter is a channel mixing before the second filter.",
))
