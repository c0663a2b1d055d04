"""Unit tests of burkholz2024 Sec. 2.1 helpers."""

import numpy as np
import torch

from theorems.papers.burkholz2024 import sec2_1_composition as comp


def test_correlate_matches_torch_conv1d_and_conv2d():
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 7)), rng.standard_normal((3, 2, 3))
    for padding, torch_padding in (("valid", 0), ("same", "same"), ("full", 2)):
        ours = comp.correlate(x.astype(object), w.astype(object), padding).astype(float)
        theirs = torch.nn.functional.conv1d(torch.from_numpy(x)[None], torch.from_numpy(w),
                                            padding=torch_padding)[0].numpy()
        assert np.allclose(ours, theirs)
    x2, w2 = rng.standard_normal((1, 5, 4)), rng.standard_normal((2, 1, 3, 3))
    ours = comp.correlate(x2.astype(object), w2.astype(object), "same").astype(float)
    theirs = torch.nn.functional.conv2d(torch.from_numpy(x2)[None], torch.from_numpy(w2), padding="same")[0].numpy()
    assert np.allclose(ours, theirs)


def test_composite_filter_sizes():
    first, second = np.ones((2, 1, 2, 1), dtype=object), np.ones((1, 2, 3, 3), dtype=object)
    assert comp.composite_filter(second, first, lambda a, b: a + b - 1).shape == (1, 1, 4, 3)


def test_general_identity_is_refuted_by_the_off_by_one_size():
    from theorems.engine.context import Context
    from theorems.engine.verdicts import Verdict
    ctx = Context("quick", 0, "cpu")
    assert comp.general_identity(lambda a, b: a + b - 1).run(ctx).verdict is Verdict.CERTIFIED
    assert comp.general_identity(lambda a, b: a + b).run(ctx).verdict is Verdict.REFUTED
