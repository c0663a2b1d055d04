"""The machinery behind giannou2023.def8 and giannou2023.lemma9: mask generators keep their
promises, the exact decision of "det polynomial nonzero" is right both ways, and the
symbolic expansion is built correctly."""

import numpy as np
import pytest
import sympy
from scipy import sparse
from scipy.sparse.csgraph import maximum_bipartite_matching

from theorems.engine.context import Context
from theorems.engine.verdicts import Verdict
from theorems.maths import exact
from theorems.maths.boolean_determinant import (
    detbool,
    detbool_recursive,
    frobenius_konig_block,
    has_unique_perfect_matching,
    perfect_matchings,
    permanent_term_counts,
)
from theorems.maths.khatri_rao import khatri_rao
from theorems.papers.giannou2023.app_d_sparse_inverse import (
    A_MASK,
    B_MASK,
    B_ROWS,
    COLUMN,
    DEF8_PINNED,
    DEFINITION_8,
    LEMMA9_PINNED,
    ONE_ABOVE_SIZE_ONE,
    P_WEIGHTS,
    PAIR_KINDS,
    Q_WEIGHTS,
    ROW,
    SHORT_ROW_RANGE,
    SIZE,
    FirstColumnRecursion,
    _disagreement,
    _verified_detbool,
    all_masks,
    anti_identity,
    batch_detbool,
    bernoulli_mask,
    decide_det_polynomial,
    def8_induction,
    def8_search,
    detbool_value,
    expanded_determinant,
    first_column_values,
    ignoring_last_row,
    induction_step,
    lemma9_statement,
    mask_pair,
    matching_expansion,
    minor_row_of_row,
    no_zero_line,
    nonsingular_over_q,
    one_above_size_one,
    pinned_large_masks,
    reversed_pair,
    row_of_minor_row,
    row_scaled_entry,
    signed_expansion,
    sparsified_entry,
    sparsified_product_sampler,
    square_mask,
    symbolic_product,
    unique_matching_pair,
    unsigned_expansion,
)


def matching_size(mask):
    return int((maximum_bipartite_matching(sparse.csr_array(mask.astype(bool)), perm_type="row") >= 0).sum())


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_square_mask_kinds_keep_their_promises(n, seed):
    rng = np.random.default_rng(seed)
    density = rng.random()
    assert has_unique_perfect_matching(square_mask("unique_matching", n, rng, density))
    missing = square_mask("one_missing", n, rng, density)
    assert detbool(missing) == 0 and matching_size(missing) == n - 1
    assert detbool(square_mask("hidden_block", n, rng, density)) == 0
    assert square_mask("bernoulli", n, rng, 0.0).sum() == 0


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("d", [1, 2, 3])
def test_mask_pair_kinds_keep_their_promises(d, seed):
    rng = np.random.default_rng(seed)
    density = rng.random()
    for kind in PAIR_KINDS[1:]:
        a, b = mask_pair(kind, d, rng, density)
        assert a.shape == b.shape == (d, d * d) and a.dtype == b.dtype == bool
    a, b = mask_pair("unique_matching", d, rng, density)
    assert has_unique_perfect_matching(khatri_rao(a, b))
    a, b = mask_pair("one_missing", d, rng, density)
    assert detbool(khatri_rao(a, b)) == 0 and matching_size(khatri_rao(a, b)) == d * d - 1
    a, b = mask_pair("witness", d, rng, 0.0)
    assert (khatri_rao(a, b) == np.eye(d * d)).all()


def test_unknown_kinds_are_rejected():
    with pytest.raises(ValueError, match="kind"):
        square_mask("dense", 3, np.random.default_rng(0), 0.5)
    with pytest.raises(ValueError, match="kind"):
        mask_pair("dense", 2, np.random.default_rng(0), 0.5)


def test_hadamard_form_of_the_sparsified_product():
    # The exhaustive check evaluates (P⊙Q)∘(A⊙B) in place of (P∘A)⊙(Q∘B) (Theorem 6).
    rng = np.random.default_rng(1)
    for _ in range(20):
        a, b = rng.random((3, 9)) < 0.5, rng.random((3, 9)) < 0.5
        p, q = exact.random_points(rng, (3, 9)), exact.random_points(rng, (3, 9))
        assert (khatri_rao(p * a, q * b) == khatri_rao(p, q) * khatri_rao(a, b)).all()


def test_all_masks_lists_each_matrix_once():
    masks = all_masks(2, 3)
    assert masks.shape == (64, 2, 3)
    assert len({m.tobytes() for m in masks}) == 64


def test_decision_on_both_sides():
    rng = np.random.default_rng(2)
    a, b = mask_pair("witness", 2, rng, 0.0)
    nonzero, how = decide_det_polynomial(sparsified_product_sampler(a, b, rng), khatri_rao(a, b))
    assert nonzero and "modulo p" in how
    a[0, 0] = False  # kills column 0 of A⊙B
    nonzero, how = decide_det_polynomial(sparsified_product_sampler(a, b, rng), khatri_rao(a, b))
    assert not nonzero and "zero block" in how


def test_decision_falls_back_to_schwartz_zippel():
    # A pattern with a perfect matching, but a sampler that only ever returns zeros: the
    # decision must not trust the pattern and must report the probabilistic zero.
    nonzero, how = decide_det_polynomial(lambda: np.zeros((2, 2), dtype=np.int64), np.eye(2, dtype=bool))
    assert not nonzero and "false-zero probability" in how
    values = iter([np.zeros((2, 2), dtype=np.int64), np.eye(2, dtype=np.int64)])
    nonzero, how = decide_det_polynomial(lambda: next(values), np.eye(2, dtype=bool))
    assert nonzero and "later" in how


def test_lemma9_statement_separates_detbool_from_ordinary_singularity():
    ones = mask_pair("ones", 2, np.random.default_rng(0), 1.0)
    example = ("ones", *ones, 7)
    assert lemma9_statement(DEFINITION_8, submatrix=False)(example) is None
    reason = lemma9_statement(nonsingular_over_q, submatrix=False)(example)
    assert "nonzero" in reason and "prediction is 0" in reason
    assert lemma9_statement(nonsingular_over_q, submatrix=True)((*example, [0, 1], [0, 1])) is not None
    for pinned in LEMMA9_PINNED:  # past the sweep, at d = 3: each refutes one broken DetBool
        assert lemma9_statement(DEFINITION_8, submatrix=False)(pinned) is None
    assert lemma9_statement(nonsingular_over_q, submatrix=False)(LEMMA9_PINNED[0]) is not None
    assert lemma9_statement(SHORT_ROW_RANGE, submatrix=False)(LEMMA9_PINNED[1]) is not None


@pytest.mark.parametrize("d", [1, 2, 3])
def test_reversed_pair_is_the_reversed_identity(d):
    assert (khatri_rao(*reversed_pair(d)) == anti_identity(d * d)).all()


def test_broken_detbools_are_broken():
    assert ignoring_last_row(detbool)(np.zeros((1, 1), dtype=bool)) == 1
    hall = np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]], dtype=bool)
    assert no_zero_line(hall) == 1 and detbool(hall) == 0
    assert _disagreement("no zero line", no_zero_line(hall), 0) is not None
    assert _disagreement("detbool", detbool(hall), 0) is None
    assert "not in" in _disagreement("two", 2, 0)
    assert one_above_size_one(detbool)(np.zeros((2, 2), dtype=bool)) == 1
    assert one_above_size_one(detbool)(np.zeros((1, 1), dtype=bool)) == 0


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_definition_8_as_data_is_the_printed_recursion(n):
    # The recursion object, evaluated on a batch, against the literal recursion and the permanent.
    masks = all_masks(n, n)
    values = first_column_values(DEFINITION_8, masks)
    assert values.tolist() == [detbool_recursive(m) for m in masks]
    assert (values == (permanent_term_counts(masks) > 0)).all()
    sampled = slice(None, None, max(1, len(masks) // 50))
    assert [detbool_value(DEFINITION_8, m) for m in masks[sampled]] == values[sampled].tolist()


@pytest.mark.parametrize("n", [5, 7, 9])
def test_definition_8_bottom_up_equals_the_literal_recursion_past_the_sweep(n):
    # Every row set of every size is filled level by level; one mask at a time as the searches call it.
    rng = np.random.default_rng(n)
    masks = rng.random((60, n, n)) < rng.random((60, 1, 1))
    masks[:10] = anti_identity(n)  # the only perfect matching uses the last row of column 0
    assert first_column_values(DEFINITION_8, masks).tolist() == [detbool_recursive(m) for m in masks]
    assert [detbool_value(DEFINITION_8, m) for m in masks[::6]] == [detbool(m) for m in masks[::6]]


def test_audit_mutant_is_one_for_every_n_from_two():
    # The audit's mutant: Definition 8 at n = 1, 1 above; the induction's combine table catches it.
    assert first_column_values(ONE_ABOVE_SIZE_ONE, all_masks(1, 1)).tolist() == [0, 1]
    for n in (2, 3):
        assert (first_column_values(ONE_ABOVE_SIZE_ONE, all_masks(n, n)) == 1).all()
    lhs, rhs = induction_step(ONE_ABOVE_SIZE_ONE)("combine")
    assert lhs != rhs
    for case in ("base", "term", "combine", "classes", "relabelling"):
        lhs, rhs = induction_step(DEFINITION_8)(case)
        assert (sympy.Matrix(lhs) - sympy.Matrix(rhs)).applyfunc(sympy.expand).is_zero_matrix


def test_short_row_range_misses_the_reversed_identity_and_has_n_minus_1_classes():
    assert detbool_value(SHORT_ROW_RANGE, anti_identity(5)) == 0 and detbool_value(DEFINITION_8, anti_identity(5)) == 1
    lhs, rhs = induction_step(SHORT_ROW_RANGE)("classes")
    assert sympy.simplify(lhs[0] - rhs[0]) == -1


def test_a_row_range_past_the_last_row_is_rejected():
    past = FirstColumnRecursion("rows 0, …, n", lambda b: b, lambda n: n, lambda b, v: b * v, sympy.Max, 0)
    with pytest.raises(ValueError, match="does not exist"):
        detbool_value(past, np.ones((2, 2), dtype=bool))


# An evaluation that differs from Definition 8 only past n = 9 (where Lemma 9 once switched to another DetBool): the
# last row of the expansion dropped for n ≥ 10. Not a declared variant of def8, since its exhaustive check (n ≤ 4)
# rightly certifies it there; the induction and the search's pinned 12×12 mask refute it.
LAST_ROW_DROPPED_PAST_9 = FirstColumnRecursion(
    "max over rows 0, …, n − 1, the last row dropped past n = 9", lambda b: b,
    lambda n: sympy.Piecewise((n - 1, n <= 9), (n - 2, True)), lambda b, v: b * v, sympy.Max, 0)


def test_an_evaluation_that_differs_past_nine_is_refuted_by_the_induction_and_at_twelve():
    for n in (5, 9):
        masks = np.random.default_rng(n).random((40, n, n)) < 0.5
        assert (first_column_values(LAST_ROW_DROPPED_PAST_9, masks) == first_column_values(DEFINITION_8, masks)).all()
    lhs, rhs = induction_step(LAST_ROW_DROPPED_PAST_9)("classes")
    assert sympy.expand(lhs[0] - rhs[0]).subs(SIZE, 10) == -1
    context = Context("quick", 0, "cpu")
    induction = def8_induction(LAST_ROW_DROPPED_PAST_9).run(context)
    assert induction.verdict is Verdict.REFUTED and "classes" in induction.summary
    search = def8_search(LAST_ROW_DROPPED_PAST_9).run(context)
    assert search.verdict is Verdict.REFUTED and len(search.counterexample["configuration"]["mask"]) == 12


def test_rules_that_branch_on_the_size_in_python_get_no_all_sizes_certificate():
    gated = FirstColumnRecursion("gated", lambda b: b, lambda n: n - 1 if n <= 9 else n - 2, lambda b, v: b * v,
                                 sympy.Max, 0)
    outcome = def8_induction(gated).run(Context("quick", 0, "cpu"))
    assert outcome.verdict is Verdict.INCONCLUSIVE and "symbolic arguments" in outcome.summary


def test_def8_pinned_masks_have_verified_values():
    assert [_verified_detbool(mask) for _, mask in DEF8_PINNED] == [0, 0, 1, 1]


def test_batch_detbool_agrees_with_one_at_a_time():
    masks = all_masks(2, 2)
    assert batch_detbool(DEFINITION_8, masks) == batch_detbool(lambda m: detbool_value(DEFINITION_8, m), masks)


def test_symbolic_product_matches_scipy_at_a_point():
    rng = np.random.default_rng(3)
    a, b = mask_pair("bernoulli", 2, rng, 0.6)
    symbolic = symbolic_product(sparsified_entry, a, b)
    p, q = rng.integers(1, 9, (2, 4)), rng.integers(1, 9, (2, 4))
    values = {sympy.Symbol(f"p_{j}_{c}"): int(p[j, c]) for j in range(2) for c in range(4)}
    values |= {sympy.Symbol(f"q_{l}_{c}"): int(q[l, c]) for l in range(2) for c in range(4)}
    assert np.array(symbolic.subs(values), dtype=np.int64).tolist() == khatri_rao(p * a, q * b).tolist()


def test_matching_expansion_counts_monomials_and_matchings():
    rng = np.random.default_rng(4)
    a, b = mask_pair("unique_matching", 2, rng, 0.8)
    rows = cols = list(range(4))
    (det, det_terms), (expansion, matchings) = matching_expansion(sparsified_entry, signed_expansion)(
        ("u", a, b, rows, cols))
    assert sympy.expand(det - expansion) == 0
    assert det_terms == matchings == len(perfect_matchings(khatri_rao(a, b))) == 1
    ones = mask_pair("ones", 2, rng, 1.0)
    (det, det_terms), (unsigned, matchings) = matching_expansion(sparsified_entry, unsigned_expansion)(
        ("ones", *ones, rows, cols))
    assert det_terms == matchings == 24 and sympy.expand(det - unsigned) != 0
    (det, det_terms), (_, matchings) = matching_expansion(row_scaled_entry, signed_expansion)(
        ("ones", *ones, [0, 1], [0, 1]))
    assert det == 0 and det_terms == 0 and matchings == 2


def test_zero_block_of_a_killed_column_is_the_whole_column():
    mask = np.ones((4, 4), dtype=bool)
    mask[:, 2] = False
    rows, cols = frobenius_konig_block(mask)
    assert 2 in cols and len(rows) + len(cols) > 4


@pytest.mark.parametrize("n", [4, 16])
def test_pinned_large_masks_have_a_verified_zero_boolean_determinant(n):
    for _, mask in pinned_large_masks(n):
        assert _verified_detbool(mask) == 0 and detbool(mask) == 0


def test_large_masks_reach_8192_and_are_capped_by_memory(monkeypatch):
    from theorems.engine import resources
    from theorems.engine.context import Context
    from theorems.papers.giannou2023 import app_d_sparse_inverse as si

    assert si.def8_large_sizes(Context("thorough", 0, "cpu")) == (64, 256, 1024, 4096)
    assert si.def8_large_sizes(Context("large", 0, "cpu"))[-1] == 8192
    monkeypatch.setattr(resources, "available_memory_bytes", lambda device: si.MASK_BYTES_PER_ENTRY * 8192**2)
    with resources.measured("cpu") as usage:
        assert si.def8_large_sizes(Context("large", 0, "cpu", "giannou2023.def8.matching", "large masks"))[-1] == 4096
    assert usage["capped"][0]["used"] == 4096


@pytest.mark.parametrize("n", [2, 3, 5])
def test_minor_relabelling_is_numpys_row_deletion(n):
    # The induction's symbolic relabelling, at concrete sizes, against the minor numpy builds.
    rows = np.arange(n)
    for i in range(n):
        kept = np.delete(rows, i)
        assert [int(row_of_minor_row(s, i)) for s in range(n - 1)] == kept.tolist()
        assert [int(minor_row_of_row(r, i)) for r in kept] == list(range(n - 1))


@pytest.mark.parametrize(("m", "k"), [(2, 2), (3, 3), (2, 3)])
def test_symbolic_entry_is_the_khatri_rao_convention(m, k):
    # The general argument's entry (r, c), at concrete r, c, k, is khatri_rao(P∘A, Q∘B)[r, c].
    rng = np.random.default_rng(m * 10 + k)
    columns = m * k
    a, b = rng.random((m, columns)) < 0.7, rng.random((k, columns)) < 0.7
    p, q = rng.integers(1, 50, (m, columns)), rng.integers(1, 50, (k, columns))
    product = khatri_rao(p * a, q * b)
    for r in range(m * k):
        for c in range(columns):
            entry = sparsified_entry(ROW, COLUMN).subs({ROW: r, COLUMN: c, B_ROWS: k})
            value = entry.replace(lambda e: isinstance(e, sympy.Indexed), lambda e: int(
                {P_WEIGHTS: p, Q_WEIGHTS: q, A_MASK: a, B_MASK: b}[e.base][tuple(int(i) for i in e.indices)]))
            assert int(value) == product[r, c]


def test_row_scaled_weights_break_lemma9_at_d_2():
    # The broken variant's concrete counterexample: all-ones masks, one weight per row of A and of B.
    p, q = sympy.symbols("p0:2"), sympy.symbols("q0:2")
    matrix = sympy.Matrix(4, 4, lambda r, c: row_scaled_entry(ROW, COLUMN).subs({ROW: r, COLUMN: c, B_ROWS: 2})
                          .replace(lambda e: isinstance(e, sympy.Indexed) and e.base in (A_MASK, B_MASK), lambda e: 1)
                          .replace(lambda e: isinstance(e, sympy.Indexed),
                                   lambda e: (p if e.base == P_WEIGHTS else q)[int(e.indices[0])]))
    assert matrix.det() == 0 and detbool(np.ones((4, 4), dtype=bool)) == 1


@pytest.mark.parametrize("n", [1, 5, 64, 65, 200])
@pytest.mark.parametrize("above_diagonal", [False, True])
def test_bernoulli_mask_is_one_draw_of_the_whole_matrix(n, above_diagonal):
    rng, replay = np.random.default_rng(n), np.random.default_rng(n)
    mask = bernoulli_mask(rng, n, 0.3, above_diagonal)
    expected = replay.random((n, n)) < 0.3
    assert (mask == (np.triu(expected, k=1) if above_diagonal else expected)).all()
    assert rng.random() == replay.random()  # the stream continues where one draw would leave it


def test_expanded_determinant_is_berkowitz_expanded_with_its_monomial_count():
    ones = mask_pair("ones", 3, np.random.default_rng(0), 1.0)
    matrix = symbolic_product(sparsified_entry, *ones).extract([0, 2, 4, 8], [1, 2, 5, 7])
    determinant, monomials = expanded_determinant(matrix)
    assert sympy.expand(determinant - matrix.det(method="berkowitz")) == 0
    assert monomials == len(sympy.Add.make_args(determinant)) == 24
    assert expanded_determinant(sympy.Matrix([[2, 1], [1, 1]])) == (1, 1)
    assert expanded_determinant(sympy.zeros(2, 2)) == (0, 0)


@pytest.mark.parametrize("d", [2, 3, 4])
def test_unique_matching_pair_keeps_each_addition_that_keeps_the_matching_unique(d):
    # Replays the draws and decides each addition afresh on the whole A ⊙ B.
    for seed in range(10):
        a, b, rows_of_columns = unique_matching_pair(d, np.random.default_rng(seed), 0.7)
        replay = np.random.default_rng(seed)
        columns = replay.permutation(d * d)
        assert (columns == rows_of_columns).all()
        expected = {True: np.zeros((d, d * d), dtype=bool), False: np.zeros((d, d * d), dtype=bool)}
        expected[True][columns // d, np.arange(d * d)] = expected[False][columns % d, np.arange(d * d)] = True
        for _ in range(int(0.7 * 2 * d * d * d)):
            target = expected[bool(replay.random() < 0.5)]
            i, c = replay.integers(d), replay.integers(d * d)
            kept = target[i, c]
            target[i, c] = True
            target[i, c] = kept or has_unique_perfect_matching(khatri_rao(expected[True], expected[False]))
        assert (a == expected[True]).all() and (b == expected[False]).all()
