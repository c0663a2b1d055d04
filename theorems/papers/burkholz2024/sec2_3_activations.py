"""burkholz2024, Sec. 2.3, Thm 2.4 and App. A.4: a nonlinear activation after the first source
layer, evaluated in an approximately linear region, still approximates the target within ε.

Checked as printed: for ReLU, LeakyReLU, tanh and sigmoid, the stated parameters (γ, b, m, c)
are tested against the stated condition |φ(γx + b) − (mγx + mb + c)| < εγm/Q2 on [−Q1, Q1]
(in mpmath interval arithmetic at the endpoints, where the deviation of tanh and sigmoid from
their tangent is largest), and the resulting sup-norm error of the proof's source against the
target is measured on random networks (corners of [−1, 1]^{c0} and random points).

Finding: for tanh and sigmoid the printed γ = min{(3ε/Q2)^{1/2}, 1/Q1} (resp. 12ε) omits a
factor Q1³: |tanh(γx) − γx| ≤ (γQ1)³/3 < εγ/Q2 needs γ² < 3ε/(Q2·Q1³). For Q1 > 1 the
condition fails and the sup-norm error exceeds ε.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
from hypothesis import strategies as st

from ...engine.checks import property_search
from ...engine.context import Context
from ...engine.registry import Broken, Check, Claim, Erratum, register, takes
from ...engine.verdicts import Outcome, Verdict
from ...maths import construction as cm
from ...maths.exact import fraction_array
from .sec2_1_composition import correlate

ACTIVATIONS = ("relu", "leaky_relu", "tanh", "sigmoid")
# The conjuncts: the activation's condition (and the error it gives), and exactness at the border of convolutions.
ACTIVATION_PART = "activation condition"
LEAK = 0.1
EPSILONS = (0.1, 0.01, 0.001)
Q1S = (0.5, 1.0, 2.0, 4.0)
Q2S = (0.5, 1.0, 4.0)


def phi(name: str, x: np.ndarray) -> np.ndarray:
    if name == "relu":
        return np.maximum(x, 0)
    if name == "leaky_relu":
        return np.maximum(x, 0) - LEAK * np.maximum(-x, 0)
    if name == "tanh":
        return np.tanh(x)
    return (np.tanh(x / 2) + 1) / 2


def interval_tanh(z):
    """tanh on an mpmath interval, as 1 − 2/(e^{2z} + 1) (monotone, so the enclosure is tight)."""
    return 1 - 2 / (mpmath.iv.exp(2 * z) + 1)


def printed_choice(name: str, eps: float, q1: float, q2: float):
    """(γ, b, m, c) as printed after Thm 2.4."""
    if name in ("relu", "leaky_relu"):
        return 1.0, q1, 1.0, 0.0
    if name == "tanh":
        return min(math.sqrt(3 * eps / q2), 1 / q1), 0.0, 1.0, 0.0
    return min(math.sqrt(12 * eps / q2), 1 / q1), 0.0, 0.25, 0.5


def corrected_choice(name: str, eps: float, q1: float, q2: float):
    """The same with the factor Q1³ the cubic bound needs."""
    if name in ("relu", "leaky_relu"):
        return 1.0, q1, 1.0, 0.0
    if name == "tanh":
        return min(math.sqrt(3 * eps / (q2 * q1 ** 3)), 1 / q1), 0.0, 1.0, 0.0
    return min(math.sqrt(12 * eps / (q2 * q1 ** 3)), 1 / q1), 0.0, 0.25, 0.5


def shiftless_choice(name, eps, q1, q2):
    """A near miss: ReLU-type activations without the shift b = Q1."""
    gamma, _, m, c = printed_choice(name, eps, q1, q2)
    return gamma, 0.0, m, c


def q1_squared(name, eps, q1, q2):
    """A near miss of the corrected choice: Q1² where the cubic bound needs Q1³."""
    if name in ("tanh", "sigmoid"):
        return corrected_choice(name, eps * q1, q1, q2)
    return corrected_choice(name, eps, q1, q2)


def deviation_interval(name: str, gamma, b, m, c, x):
    """|φ(γx + b) − (mγx + mb + c)| as an mpmath interval (piecewise-linear activations in
    exact rational arithmetic through intervals of width zero)."""
    mpmath.iv.dps = 40
    g, bb, mm, cc, xx = (mpmath.iv.mpf(str(v)) for v in (gamma, b, m, c, x))
    z = g * xx + bb
    if name == "relu":
        value = z if z.a >= 0 else (mpmath.iv.mpf(0) if z.b <= 0 else None)
    elif name == "leaky_relu":
        value = z if z.a >= 0 else (LEAK * z if z.b <= 0 else None)
    elif name == "tanh":
        value = interval_tanh(z)
    else:
        value = (interval_tanh(z / 2) + 1) / 2
    return abs(value - (mm * g * xx + mm * bb + cc))


def condition_check(choice) -> Check:
    """Decide the stated condition on the grid ε × Q1 × Q2 for each activation at x = ±Q1 (the
    deviation of every listed φ from its chord is largest there), rigorously with intervals."""

    def run(ctx: Context) -> Outcome:
        checked = 0
        for name in ACTIVATIONS:
            for eps in EPSILONS:
                for q1 in Q1S:
                    for q2 in Q2S:
                        gamma, b, m, c = choice(name, eps, q1, q2)
                        bound = (mpmath.iv.mpf(str(eps)) * mpmath.iv.mpf(str(gamma)) * mpmath.iv.mpf(str(m))
                                 / mpmath.iv.mpf(str(q2)))
                        for x in (-q1, q1):
                            deviation = deviation_interval(name, gamma, b, m, c, x)
                            if deviation.a >= bound.b:
                                case = {"activation": name, "epsilon": eps, "Q1": q1, "Q2": q2, "gamma": gamma, "b": b,
                                        "m": m, "c": c, "x": x, "deviation_lower": str(deviation.a),
                                        "bound_upper": str(bound.b)}
                                return Outcome(Verdict.REFUTED,
                                               f"{name}, ε = {eps}, Q1 = {q1}, Q2 = {q2}: "
                                               f"deviation ≥ {float(deviation.a):.3g} at x = {x} "
                                               f"but εγm/Q2 = {float(bound.b):.3g}", {"checked": checked},
                                               counterexample=case)
                            checked += 1
        return Outcome(Verdict.CERTIFIED,
                       f"condition holds at both endpoints for {checked} (activation, ε, Q1, Q2, x) cases",
                       {"epsilons": EPSILONS, "Q1": Q1S, "Q2": Q2S},
                       certificate={"method": "mpmath interval arithmetic (40 digits) at x = ±Q1; the deviation of "
                                              "tanh and sigmoid from the chord grows with |x| and ReLU/LeakyReLU are "
                                              "exact on the shifted range"},
                       scope="ε ∈ {0.1, 0.01, 0.001}, Q1 ∈ {0.5, 1, 2, 4}, Q2 ∈ {0.5, 1, 4}")

    return Check("stated approximation condition on the (ε, Q1, Q2) grid", "certificate", run, part=ACTIVATION_PART)


def random_network(rng: np.random.Generator):
    """A fully connected instance of Lemma 2.1 (c0 = 2, c1 = 3, c2 = 2, minimum width), its
    normalization from the exact construction, and its Q1, Q2."""
    c0, c2 = 2, 2
    c1 = cm.burkholz_width(c2, c0)
    scale = rng.choice([0.5, 1.0, 3.0])
    first = rng.standard_normal((c1, c0)) * scale
    second = rng.standard_normal((c2, c1))
    target = rng.standard_normal((c2, c0)) * scale
    gamma1, gamma2 = cm.solve_two_layer(target[:, :, None],
                                        cm.composite_coefficients(second[:, :, None], first[:, :, None]))
    q1 = float(np.max(np.abs(gamma1) * np.abs(first).sum(axis=1)))
    q2 = float(np.max(np.abs(gamma2) * np.abs(second).sum(axis=1)))
    return first, second, target, gamma1, gamma2, q1, q2


def sup_error(name, choice, eps, network, points) -> float:
    """max |S̃(x) − C(x)| for the proof's normalization of S̃: γ̃⁽¹⁾ = γγ⁽¹⁾, β̃⁽¹⁾ = b,
    γ̃⁽²⁾ = γ⁽²⁾/(mγ), β̃⁽²⁾ = −γ̃⁽²⁾ W2 (mb + c)·1 (target bias 0)."""
    first, second, target, gamma1, gamma2, q1, q2 = network
    gamma, b, m, c = choice(name, eps, q1, q2)
    hidden = phi(name, gamma * gamma1 * (points @ first.T) + b)
    out_gamma = gamma2 / (m * gamma)
    shift = -out_gamma * (second @ np.full(first.shape[0], m * b + c))
    source = out_gamma * (hidden @ second.T) + shift
    return float(np.abs(source - points @ target.T).max())


def sup_error_check(choice, pinned) -> Check:
    def prop(example) -> str | None:
        name, eps, seed = example
        rng = np.random.default_rng(seed)
        network = random_network(rng)
        corners = np.array(np.meshgrid([-1.0, 1.0], [-1.0, 1.0])).reshape(2, -1).T
        points = np.vstack([corners, rng.uniform(-1, 1, (64, 2))])
        error = sup_error(name, choice, eps, network, points)
        # float64 rounding is ≤ 1e-12 here; a failure has to clear ε by more than that
        if error > eps + 1e-9:
            return f"{name}, ε = {eps}, Q1 = {network[5]:.3g}, Q2 = {network[6]:.3g}: sup-norm error {error:.4g} > ε"
        return None

    return property_search("sup-norm error of the proof's source",
                           st.tuples(st.sampled_from(ACTIVATIONS), st.sampled_from(EPSILONS), st.integers(0, 2**20)),
                           prop, space="FC c0 = 2, c1 = 3, c2 = 2 (minimum width), Gaussian layers scaled by 0.5, 1, 3",
                           classify=lambda e: e[0], pinned=pinned, examples=lambda ctx: ctx.by_profile(20, 60, 400),
                           names=("activation", "ε", "seed"), part=ACTIVATION_PART)


# (input spatial shape, k1, k2, c0, c1, c2) of the convolutional instances of the border check: the
# paper's choice k1 = 1 (k2 = kt), and a 2-D one; a 1×1 second filter never meets the padding.
BORDER_INSTANCES = [((5,), (1,), (3,), 1, 2, 1), ((4,), (2,), (2,), 2, 2, 2), ((3, 3), (1, 1), (2, 2), 1, 2, 1)]


def exact_phi(name: str, z):
    """ReLU and LeakyReLU on exact rationals (object arrays of Fractions)."""
    positive = np.vectorize(lambda v: max(v, Fraction(0)), otypes=[object])(z)
    return positive if name == "relu" else positive - Fraction(LEAK) * np.vectorize(
        lambda v: max(-v, Fraction(0)), otypes=[object])(z)


def border_error(instance, name: str, padding: str, rng: np.random.Generator):
    """max |S̃(x) − S(x)| over the output positions, exactly: S the linear source (identity
    activation, = the target by Lemma 2.1), S̃ the proof's ReLU-type source γ̃⁽¹⁾ = γ⁽¹⁾, β̃⁽¹⁾ = b = Q1,
    γ̃⁽²⁾ = γ⁽²⁾, β̃⁽²⁾ = −γ⁽²⁾ Σ_{J,p} w⁽²⁾_{iJp}·(mb + c), both layers with the same ``padding``.
    Returns (error, output position of the largest error)."""
    shape, k1, k2, c0, c1, c2 = instance
    first = fraction_array(rng.integers(-5, 6, (c1, c0) + k1))
    second = fraction_array(rng.integers(-5, 6, (c2, c1) + k2))
    gamma1, gamma2 = (fraction_array(rng.integers(1, 6, n)) for n in (c1, c2))
    x = fraction_array(rng.integers(-8, 9, (c0,) + shape)) / 8  # in [−1, 1]
    scaled_first = gamma1.reshape((-1,) + (1,) * (first.ndim - 1)) * first
    hidden = correlate(x, scaled_first, padding)
    q1 = max(abs(g) * sum(abs(w) for w in row.ravel()) for g, row in zip(gamma1, first, strict=True))
    gamma, b, m, c = (Fraction(v) for v in printed_choice(name, 0.01, float(q1), 1.0))
    assert b == q1 or name not in ("relu", "leaky_relu")
    out_scale = gamma2.reshape((-1,) + (1,) * len(shape))
    linear = out_scale * correlate(hidden, second, padding)
    shift = np.array([-(m * b + c) * sum(second[i].ravel()) for i in range(c2)], dtype=object)
    shifted = out_scale / (m * gamma) * correlate(exact_phi(name, gamma * hidden + q1), second, padding)
    difference = np.abs(shifted + shift.reshape((-1,) + (1,) * len(shape)) * out_scale / (m * gamma) - linear)
    worst = np.unravel_index(int(np.argmax(difference.astype(float))), difference.shape)
    return difference[worst], worst


def border_check(paddings) -> Check:
    """ReLU and LeakyReLU are exact with b = Q1 (Sec. 2.3) in convolutions only if the shifted
    hidden map meets no zero padding: decided exactly on pinned instances."""

    def run(ctx: Context) -> Outcome:
        checked = []
        for padding in paddings:
            for index, instance in enumerate(BORDER_INSTANCES):
                for name in ("relu", "leaky_relu"):
                    error, where = border_error(instance, name, padding, ctx.rng("border", index, name))
                    case = {"padding": padding, "activation": name, "input": list(instance[0]), "k1": list(instance[1]),
                            "k2": list(instance[2]), "channels": list(instance[3:]), "error": str(error),
                            "output_position": [int(i) for i in where]}
                    if error != 0:
                        return Outcome(Verdict.REFUTED,
                                       f"{name}, {padding} padding, k2 = {instance[2]}: the source differs from "
                                       f"the linear source (the target by Lemma 2.1) by {float(error):.4g} at output "
                                       f"position {case['output_position']} "
                                       "(the shift b = Q1 meets the padded zeros of the second convolution)",
                                       {"checked": checked}, counterexample=case)
                    checked.append(case)
        return Outcome(Verdict.CERTIFIED,
                       f"source = target exactly at every output position for {len(checked)} (padding, instance, "
                       "activation) cases", {"checked": checked},
                       certificate={"method": "exact rational arithmetic (Fractions), ReLU/LeakyReLU exact"},
                       scope="the pinned instances: 1-D k2 ≤ 3 and 2-D 2×2, c ≤ 2")

    return Check("ReLU construction at the border of convolutions", "certificate", run, part="convolution border")


def thm24_checks():
    return (takes("choice", build=condition_check),
            takes("choice", build=lambda choice: sup_error_check(choice, PINNED)),
            takes("paddings", build=border_check))


# seed 18 draws Q1 ≈ 5.2: the printed tanh choice misses ε by a factor 36 there, Q1² by 1.5
PINNED = [("tanh", 0.01, 18), ("relu", 0.01, 1)]

register(Claim(
    id="burkholz2024.thm2_4",
    source="Sec. 2.3, Thm 2.4, the parameter choices after it, App. A.4",
    hypotheses=("S meets Lemma 2.1; first source layer followed by φ",
                "Q1 = max_J |γ⁽¹⁾_J| Σ|w⁽¹⁾|, Q2 = max_i |γ⁽²⁾_i| Σ|w⁽²⁾|",
                "inputs in [−1, 1]^{c0}, 'suitably padded with zeros' (Sec. 2.1)",
                "the printed (γ, b, m, c) for ReLU, LeakyReLU, tanh, sigmoid"),
    subject={"choice": printed_choice, "paddings": ("same", "full")},
    checks=thm24_checks(),
    broken=(Broken("ReLU without the shift b = Q1", replaces={"choice": shiftless_choice},
                   refuted_by="ReLU, ε = 0.1, Q1 = 0.5, Q2 = 0.5, x = −Q1 on the grid; the pinned ReLU network "
                              "(ε = 0.01, seed 1)"),
            Broken("full zero padding alone", replaces={"paddings": ("full",)},
                   refuted_by="ReLU, full padding, input length 5, k1 = 1, k2 = 3: the border outputs miss "
                              "γ⁽²⁾Q1·Σ(padded taps of W2)"),),
    notes="The implication of Thm 2.4 holds (error ≤ Q2/(γm)·εγm/Q2 = ε in the fully connected case), and "
          "ReLU/LeakyReLU are exact. The printed tanh and sigmoid parameters do not satisfy the condition when Q1 > 1 "
          "(minimal grid case: tanh, ε = 0.1, Q1 = 2, Q2 = 0.5 or any with Q1 = 2 and the first branch of the min "
          "active). In zero-padded convolutions the ReLU/LeakyReLU choice b = Q1 is not exact either: the shifted "
          "hidden map h + Q1 is padded with zeros, not with Q1, so at the border W2 ∗ pad(Q1·1) differs from the "
          "compensating Q1·ΣW2 by Q1 times the padded taps; the output there is off by γ⁽²⁾Q1·Σ(padded taps of W2), "
          "whatever ε (decided exactly on pinned instances, 'same' and 'full' padding; exact with valid padding or "
          "k2 = 1). The same holds for any φ with mb + c ≠ 0 (sigmoid); tanh (b = c = 0) is unaffected.",
    erratum=Erratum("as-printed",
                    "the tanh and sigmoid choices γ = min{(3ε/Q2)^{1/2}, 1/Q1} (12ε for sigmoid) miss a factor Q1³: "
                    "the condition needs γ² < 3ε/(Q2Q1³); with Q1 > 1 the resulting error exceeds ε. In zero-padded "
                    "convolutions the ReLU/LeakyReLU shift b = Q1 leaves a border error γ⁽²⁾Q1·Σ(padded taps of W2); "
                    "valid padding (or k2 = 1) repairs it. The implication holds for fully connected layers.",
                    corrected=("burkholz2024.thm2_4.corrected",)),
    depends_on=("burkholz2024.lemma2_1",),
))

register(Claim(
    id="burkholz2024.thm2_4.corrected",
    variant_of="burkholz2024.thm2_4",
    label="Thm 2.4, choices with Q1³",
    statement="With γ = min{(3ε/(Q2Q1³))^{1/2}, 1/Q1} for tanh and min{(12ε/(Q2Q1³))^{1/2}, 1/Q1} for sigmoid (ReLU "
              "and LeakyReLU as printed), the condition of Thm 2.4 holds and the source is within ε of the target "
              "in sup norm; for convolutions, when the second source convolution has valid padding (or k2 = 1).",
    source="Thm 2.4 with the corrected constants",
    hypotheses=("as Thm 2.4", "convolutions: valid padding in the second source layer (or k2 = 1)"),
    subject={"choice": corrected_choice, "paddings": ("valid",)},
    checks=thm24_checks(),
    broken=(Broken("Q1² instead of Q1³ in the tanh/sigmoid choice", replaces={"choice": q1_squared},
                   refuted_by="tanh with Q1 = 2 on the (ε, Q1, Q2) grid; the pinned tanh network "
                              "(ε = 0.01, seed 18, Q1 ≈ 5.2)"),
            Broken("zero ('same') padding in both source layers", replaces={"paddings": ("same",)},
                   refuted_by="ReLU, 'same' padding, input length 5, k1 = 1, k2 = 3 (the paper's k1 = 1): the first "
                              "and last outputs miss γ⁽²⁾Q1·(the padded tap of W2)"),),
    notes="|tanh z − z| < |z|³/3 and |σ(z) − z/4 − 1/2| < |z|³/48 for z ≠ 0 give the corrected constants. Where φ is "
          "exactly affine on the range (ReLU, LeakyReLU with b = Q1), S̃ − S = γ⁽²⁾ ⊙ (W2 ∗ pad((mb + c)·1) − (mb + c)"
          "·ΣW2), zero at every output exactly when no tap of W2 meets padding: valid padding or k2 = 1. The border "
          "check decides pinned 1-D and 2-D instances exactly; the sigmoid (mb + c = 1/2) border is argued, not "
          "checked.",
))
