"""The array kernels of ops/fast.py agree with the viewgrad formulas of the table: the same
gradients with create_graph=False (kernels) and create_graph=True (formulas)."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.ops.fast import FAST

from .samples import SAMPLES
from .test_gradcheck_sweep import _make, _seed


def _cases():
    for name in sorted(FAST):
        for i, case in enumerate(SAMPLES[name]):
            yield pytest.param(name, case[0], case[1], id=f"{name}-{i}")


@pytest.mark.parametrize("name,fn,specs", list(_cases()))
def test_fast_kernel_matches_formula(name, fn, specs):
    rng = np.random.default_rng(_seed(name))
    inputs = [_make(s, rng) for s in specs]
    out = fn(*inputs)
    v = vg.tensor(rng.standard_normal(tuple(out.shape)), dtype=out.dtype)
    fast = vg.autograd.grad(out, inputs, v, retain_graph=True, allow_unused=True)
    slow = vg.autograd.grad(out, inputs, v, create_graph=True, allow_unused=True)
    for a, b in zip(fast, slow):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.shape == b.shape and a.dtype == b.dtype
            np.testing.assert_allclose(a.cpu().numpy(), b.detach().cpu().numpy(), rtol=1e-12,
                                       atol=1e-12)
