"""``linspace`` computes its points as PyTorch's CPU kernel does (the ends cast to the
dtype, the step rounded to it, the first half counted up from ``start`` and the second
half down from ``end``), so the values are PyTorch's to the last bit: ``linspace(-1, 1,
7)[3]`` is -2.9802e-08 in float32, as in PyTorch, not 0."""
import numpy as np
import pytest

import viewgrad as vg

from ..helpers import torch_or_skip

ARGS = [(0, 1, 5), (-3.3, 7.1, 11), (-1, 1, 7), (-np.pi, np.pi, 2000), (5, 5, 1),
        (0, 1, 2), (1, -1, 9), (0, 10, 4), (-2.5, 3.5, 100), (0, 1, 0)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("args", ARGS)
def test_linspace_is_pytorchs_to_the_bit(args, dtype):
    torch = torch_or_skip()
    theirs = torch.linspace(*args, dtype=getattr(torch, dtype)).numpy()
    ours = vg.linspace(*args, dtype=getattr(vg, dtype)).cpu().numpy()
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)
