"""ID cond / minimal ID cond / Ortho cond engines against oracles."""

import itertools

import numpy as np
import sympy

from theorems.maths import features
from theorems.papers.randfeat2025 import sec3_features as sf


def test_id_cond_map_is_proved_at_symbolic_sizes_and_broken_maps_are_not():
    assert all(sf.symbolic_links(features.id_cond).values())
    for broken in (sf.column_major_id_cond, sf.duplicated_first_feature):
        assert not all(sf.symbolic_links(broken).values())


def test_id_cond_failure_finds_the_broken_maps_at_their_pinned_sizes():
    for c0, c2 in [(1, 1), (2, 3), (3, 2)]:
        assert sf.id_cond_failure(features.id_cond, c0, c2) is None
    assert sf.id_cond_failure(sf.column_major_id_cond, 1, 2) is None  # the readings agree with one input
    assert "M[1, 1] = 0" in sf.id_cond_failure(sf.column_major_id_cond, 2, 2)
    assert "c1 = 2 features" in sf.id_cond_failure(sf.duplicated_first_feature, 1, 1)


def test_symbolic_layers_are_the_integer_layers_at_each_size():
    c0, c2 = sympy.symbols("c0 c2", integer=True, positive=True)
    w1, w2 = features.id_cond(c0, c2)
    for a, b in [(2, 3), (3, 2)]:
        numeric = features.id_cond(a, b)
        concrete = (sympy.Matrix(w.subs({c0: a, c2: b}).as_explicit()) for w in (w1, w2))
        assert all(sympy.Matrix(n) == m for n, m in zip(numeric, concrete, strict=True))


def test_reachability_matches_groebner_on_all_small_targets():
    for entries in itertools.product((0, 1, 2), repeat=4):
        target = np.array(entries).reshape(2, 2)
        reachable, _ = sf.reachable(features.id_cond_minimal, target)
        assert reachable != sf.groebner_unreachable(features.id_cond_minimal, target), target
        assert reachable == sf.zero_free_first_column(target)


def test_antidiagonal_is_the_printed_counterexample():
    assert sf.hypothesis_property(features.id_cond_minimal, sf.every_target)(sf.ANTIDIAGONAL) is not None
    assert sf.characterization_property(features.id_cond_minimal, sf.zero_free_first_column)(sf.ANTIDIAGONAL) is None


def test_pinned_targets_past_the_sweep_refute_each_wrong_characterization():
    genuine = sf.characterization_property(features.id_cond_minimal, sf.zero_free_first_column)
    assert all(genuine(target) is None for target in sf.BEYOND_PINNED)
    for layers, reachable_iff in ((features.id_cond_minimal, sf.nonzero_first_column),
                                  (features.id_cond_minimal, sf.every_nonzero_row_has_first_entry),
                                  (sf.last_input_shared, sf.zero_free_first_column)):
        prop = sf.characterization_property(layers, reachable_iff)
        assert any(prop(target) is not None for target in sf.BEYOND_PINNED)


def test_ortho_cond_construction_is_a_kronecker_product_at_symbolic_orders():
    assert sf.kronecker_entries(features.ortho_cond_layers)
    assert not sf.kronecker_entries(sf.interleaved_ortho_layers)
    rng = np.random.default_rng(0)
    assert sf.orthocond_failure(features.ortho_cond_layers, rng, 2, 3) is None
    assert sf.orthocond_failure(sf.interleaved_ortho_layers, rng, 2, 2) is not None


def test_ortho_cond_at_integer_orders_is_its_symbolic_evaluation_and_a_two_faced_one_is_not():
    assert sf.integer_orders_failure(features.ortho_cond_layers, 2, 3) is None
    assert sf.integer_orders_failure(sf.two_faced_ortho_layers, 8, 8) is None
    found = sf.integer_orders_failure(sf.two_faced_ortho_layers, 11, 11)
    assert found["layer"] == "W2" and not found["MtM_is_I"]
    # symbolically the two-faced construction is the genuine one: only the integer orders can tell
    assert sf.kronecker_entries(sf.two_faced_ortho_layers)


def test_the_id_cond_map_at_integer_sizes_is_its_symbolic_evaluation_and_a_two_faced_one_is_not():
    assert sf.untied_size(features.id_cond) is None
    assert sf.untied_size(sf.two_faced_id_cond) == (11, 11)
    steps = sf.symbolic_links(sf.two_faced_id_cond)
    assert [name for name, proved in steps.items() if not proved] == [list(steps)[-1]]
    assert "M is not I" in sf.id_cond_failure(sf.two_faced_id_cond, 11, 11)
