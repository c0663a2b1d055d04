"""Index identities at symbolic sizes: Kronecker-delta sums whose range conditions sympy leaves open.

An identity between c2 × c0 matrices for every size is an identity between index expressions
with the sizes as symbols. A free index i ∈ [0, c2) is written with its slack r = c2 − 1 − i,
so that c2 = i + 1 + r: i and r range over all nonnegative integers exactly when (c2, i) ranges
over every size and every index in range. A statement proved for all nonnegative integer
values of the symbols therefore holds for every size.

sympy evaluates Σ_{k=lo}^{hi} δ(k, a) f(k) to Piecewise((f(a), lo ≤ a ≤ hi), (0, True)), but it
leaves the condition open when a is a product of symbols (a flat index i·c0 + j). ``index_sum``
settles such conditions with the plainest sufficient test: hi − a, expanded, is a polynomial in
nonnegative integer symbols whose coefficients are all nonnegative. A condition the test cannot
prove stays open, so an unproved identity never reads as proved.

Flat indices are split with ``quotient`` and ``sympy.Mod``; ``with_remainder_below`` states the
range of a remainder and reduces them by polynomial division. ``independent_index_sum`` sums a polynomial in
the entries of a vector over independent indices, as power sums of the vector.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy
from sympy.core.relational import Relational


def nonnegative_integers(names: str) -> tuple[sympy.Symbol, ...]:
    """Index and slack symbols: nonnegative integers."""
    return sympy.symbols(names, integer=True, nonnegative=True, seq=True)


def proved_nonnegative(expression) -> bool:
    """expression ≥ 0 for every nonnegative integer value of its symbols, proved by its expansion
    having no negative coefficient (False means unproved, not false)."""
    expression = sympy.expand(sympy.sympify(expression))
    symbols = sorted(expression.free_symbols, key=str)
    if not all(s.is_integer and s.is_nonnegative for s in symbols):
        return False
    if not symbols:
        return bool(expression >= 0)
    return all(coefficient >= 0 for coefficient in sympy.Poly(expression, *symbols).coeffs())


def proved_positive(expression) -> bool:
    """expression ≥ 1 (so > 0 for an integer-valued polynomial with integer coefficients), proved
    as ``proved_nonnegative(expression − 1)``."""
    return proved_nonnegative(sympy.sympify(expression) - 1)


def _settle(relation: Relational):
    """True when the inequality is proved; the relation itself (open) otherwise."""
    if relation.rel_op in ("<=", ">=", "<", ">"):
        larger, smaller = relation.gts, relation.lts
        gap = larger - smaller - (1 if relation.rel_op in ("<", ">") else 0)
        if proved_nonnegative(gap):
            return sympy.true
    return relation


def decide_ranges(expression):
    """``expression`` with every inequality that ``proved_nonnegative`` proves replaced by True."""
    return expression.replace(lambda e: isinstance(e, Relational), _settle)


def index_sum(term, *limits):
    """Σ term over ``limits`` (sympy's ``Sum(term, *limits).doit()``, Kronecker deltas eliminated),
    one limit at a time from the innermost, with the range conditions of each step decided."""
    for limit in limits:
        term = decide_ranges(sympy.Sum(term, limit).doit())
    return term


def quotient(index, size):
    """⌊index / size⌋, written through Mod so that sympy simplifies it with Mod."""
    return (index - sympy.Mod(index, size)) / size


def with_remainder_below(expr, size, remainder):
    """``expr`` under the hypothesis 0 ≤ remainder < size: every Mod(q·size + remainder, size) whose
    q is an integer polynomial becomes ``remainder``, so each ``quotient`` of such an index becomes
    q. The reduction is done here, by polynomial division in ``size``, rather than left to sympy's
    own simplification of Mod, which differs between releases; any other Mod stays, visibly."""
    def reduced(mod: sympy.Mod):
        argument, modulus = mod.args
        if modulus != size:
            return mod
        multiple, rest = sympy.div(sympy.expand(argument - remainder), size, size)
        return remainder if rest == 0 and multiple.is_integer else mod

    return expr.replace(lambda e: isinstance(e, sympy.Mod), reduced)


def independent_index_sum(expr: sympy.Expr, variables: Sequence[sympy.Symbol], size: sympy.Symbol,
                          vector: str) -> sympy.Expr:
    """Σ over independent indices i_1, …, i_r ∈ {1, …, size} of a polynomial in x_{i_1}, …, x_{i_r}
    (``variables`` stand for these entries of a vector x named ``vector``), for a symbolic size.
    The sum of a product over independent indices is the product of the sums, so each monomial
    Π_t x_{i_t}^{a_t} sums to Π_t Σ_i x_i^{a_t}; the power sums stay symbols, and Σ_i x_i⁰ = size."""
    poly = sympy.Poly(sympy.expand(expr), *variables)
    return sympy.expand(sum((coefficient * sympy.prod([power_sum(vector, a, size) for a in powers])
                             for powers, coefficient in poly.terms()), sympy.Integer(0)))


def power_sum(vector: str, power: int, size: sympy.Symbol) -> sympy.Expr:
    """Σ_i x_i^power as a symbol (``size`` itself for power 0)."""
    return size if power == 0 else sympy.Symbol(f"Σ{vector}^{power}")
