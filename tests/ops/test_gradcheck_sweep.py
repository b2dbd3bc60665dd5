"""ONE sweep over every row of the derivatives table: gradcheck and gradgradcheck
(float64, central differences) on each sample. An op added to the table without samples
makes ``test_every_op_has_samples`` fail, so no operator can be added untested."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.ops.table import OPS

from .samples import SAMPLES

HAND_WRITTEN = {"cat", "stack", "block_diag"}


def _make(spec, rng):
    kind, shape = spec if isinstance(spec, tuple) and spec and isinstance(spec[0], str) \
        else ("any", spec)
    a = rng.standard_normal(shape)
    if kind == "pos":
        a = np.abs(a) + 0.5
    elif kind == "away":
        a = np.where(np.abs(a) < 0.2, np.sign(a + 1e-9) * 0.3 + a, a)
    return vg.tensor(a, dtype=vg.float64, requires_grad=True)


def _cases():
    for name in sorted(set(OPS) | HAND_WRITTEN):
        for i, case in enumerate(SAMPLES.get(name, [])):
            fn, specs = case[:2]
            opts = case[2] if len(case) > 2 else {}
            yield pytest.param(name, fn, specs, opts, id=f"{name}-{i}")


def test_every_op_has_samples():
    missing = sorted(n for n in OPS if n not in SAMPLES)
    assert not missing, f"ops in the derivatives table without gradcheck samples: {missing}"


def _seed(name):
    return sum(map(ord, name))  # stable across runs (hash() is salted)


@pytest.mark.parametrize("name,fn,specs,opts", list(_cases()))
def test_gradcheck(name, fn, specs, opts):
    rng = np.random.default_rng(_seed(name))
    inputs = [_make(s, rng) for s in specs]
    assert vg.autograd.gradcheck(fn, inputs, **opts)


@pytest.mark.parametrize("name,fn,specs,opts", list(_cases()))
def test_gradgradcheck(name, fn, specs, opts):
    rng = np.random.default_rng(_seed(name) + 1)
    inputs = [_make(s, rng) for s in specs]
    vg.manual_seed(_seed(name))
    assert vg.autograd.gradgradcheck(fn, inputs, **opts)
