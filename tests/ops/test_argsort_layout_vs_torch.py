"""``argsort`` lays its indices out as ``sort`` does (like the input: a transposed input
gives transposed indices), as PyTorch's argsort, which is sort's indices."""
import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares strides with torch CPU tensors")


@pytest.mark.parametrize("shape,perm,dim", [((4, 1, 3), (2, 1, 0), 0), ((3, 4), (1, 0), 1),
                                            ((2, 3, 4), (2, 0, 1), -1), ((2, 3, 4), (1, 2, 0), 0)])
def test_argsort_strides(shape, perm, dim):
    a = np.random.default_rng(0).standard_normal(shape)
    got = []
    for M in (torch, vg):
        x = M.tensor(a).permute(*perm)
        r = x.argsort(dim)
        got.append((tuple(r.stride()), r.tolist(), tuple(x.sort(dim)[1].stride())))
    assert got[0] == got[1]
