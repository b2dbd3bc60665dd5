"""Max pooling records PyTorch's nodes with PyTorch's saved names: max_pool1d/2d as
MaxPool2DWithIndicesBackward0 (1d under a squeeze), max_pool3d as
MaxPool3DWithIndicesBackward0 (no longer a composite of views and a gather), saving the
input, the indices of the maxima as ``result1`` and the geometry as the call gave it
(``_saved_stride`` is () when none was given); adaptive max pooling saves self and
result1. Random shapes, geometries, ties and NaNs; values, gradients and every saved
attribute against torch."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors through .numpy()")


def _info(fn):
    out = {}
    for a in sorted(dir(fn)):
        if a.startswith("_saved_"):
            v = getattr(fn, a)
            out[a] = ("tensor", tuple(v.shape)) if hasattr(v, "shape") else v
    return fn.name(), out


def _run(M, kind, nd, x, args):
    F = M.nn.functional
    t = M.tensor(x, requires_grad=True)
    try:
        if kind == "adaptive":
            y = getattr(F, f"adaptive_max_pool{nd}d")(t, 2)
        else:
            y = getattr(F, f"max_pool{nd}d")(t, *args)
    except Exception as e:   # noqa: BLE001 - the outcome is compared
        return type(e).__name__
    info = _info(y.grad_fn)
    y.backward(M.tensor(np.arange(y.numel(), dtype=float).reshape(tuple(y.shape))))
    return y.detach().numpy(), t.grad.numpy(), info


@pytest.mark.parametrize("kind,nd", [("max", 1), ("max", 2), ("max", 3), ("adaptive", 2),
                                     ("adaptive", 3)])
def test_nodes_values_and_gradients_as_torch(kind, nd):
    torch = torch_or_skip()
    rng = np.random.default_rng(nd + (10 if kind == "adaptive" else 0))
    for _ in range(40):
        shape = ((1,) if rng.random() < 0.8 else ()) + (2,) + tuple(
            int(v) for v in rng.integers(2, 6, nd))
        x = np.round(rng.standard_normal(shape) * 2) / 2   # (ties)
        if rng.random() < 0.2:
            x.flat[0] = np.nan
        k = int(rng.integers(1, 3))
        args = (k, [None, 1, 2][int(rng.integers(0, 3))], int(rng.integers(0, k // 2 + 1)),
                int(rng.integers(1, 3)), bool(rng.random() < 0.3))
        ours, theirs = _run(vg, kind, nd, x, args), _run(torch, kind, nd, x, args)
        if isinstance(theirs, str):
            assert ours == theirs, (shape, args)
            continue
        assert np.array_equal(ours[0], theirs[0], equal_nan=True), (shape, args)
        assert np.array_equal(ours[1], theirs[1]), (shape, args)
        assert ours[2] == theirs[2], (shape, args)
