"""relu and threshold at the edges PyTorch defines: NaN stays NaN and its gradient passes
(``threshold_backward`` is ``self <= threshold ? 0 : grad``), -0. stays -0. (relu is
``clamp_min``: x unless x < 0), the zeros of the gradient are +0., and the nodes are
PyTorch's (ReluBackward0, ThresholdBackward0, ThresholdBackward1) — through every path:
the teaching formula (create_graph), the array kernel, ReluBackward0 writing into an
unshared gradient (Note [relu's backward in place]), the in-place forms."""
import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

NAN = float("nan")
VALUES = [[NAN, -1.0, 2.0, 0.5, 0.0, -0.0], [3.0, -2.0, -0.5, 1.5, 0.0, 0.25],
          [-0.0, -0.0, 1e-30, -1e-30, NAN, -3.0]]
CASES = {
    "method": lambda lib, y: y.relu(),
    "function": lambda lib, y: lib.relu(y),
    "F.relu": lambda lib, y: lib.nn.functional.relu(y),
    "F.relu_inplace": lambda lib, y: lib.nn.functional.relu(y, inplace=True),
    "module": lambda lib, y: lib.nn.ReLU()(y),
    "threshold": lambda lib, y: lib.nn.functional.threshold(y, 0.5, 3.0),
    "threshold_neg": lambda lib, y: lib.nn.functional.threshold(y, 0.0, -1.0),
    "threshold_": lambda lib, y: lib.nn.functional.threshold_(y, 0.5, 3.0),
    "threshold_inplace": lambda lib, y: lib.nn.functional.threshold(y, -0.5, 2.0,
                                                                    inplace=True),
    "Threshold": lambda lib, y: lib.nn.Threshold(0.25, -2.0)(y),
}


def _bits(t):
    a = np.asarray(t.tolist(), dtype=np.float64)
    if t.device.type == "cuda":
        # a GPU's NaN has its own payload (0x7fffffff in float32, in PyTorch's CUDA kernels
        # as in CuPy's): compared there as NaN with its sign, the other bits exactly
        a = np.where(np.isnan(a), np.copysign(np.nan, a), a)
    return a.tobytes(), np.signbit(a).tolist()


def _run(lib, name, values, dtype, create_graph):
    dt = getattr(lib, dtype)
    x = lib.tensor(values, dtype=dt, requires_grad=True)
    w = lib.tensor([-1.0, 2.0, -3.0, 4.0, -5.0, 6.0], dtype=dt)
    y = CASES[name](lib, x * 1.0)
    (g,) = (torch if lib is torch else vg).autograd.grad((y * w).sum(), x,
                                                         create_graph=create_graph)
    return (y.grad_fn.name(), str(y.dtype).split(".")[-1], _bits(y), _bits(g),
            g.grad_fn is not None)


@pytest.mark.parametrize("create_graph", [False, True], ids=["plain", "create_graph"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("values", VALUES, ids=["nan", "mixed", "zeros"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_relu_and_threshold_as_torch(name, values, dtype, create_graph):
    assert _run(vg, name, values, dtype, create_graph) == \
        _run(torch, name, values, dtype, create_graph)


def test_relu_in_a_layer_as_torch():
    """An MLP's relu gets an unshared fresh gradient (grad @ W): the in-place backward."""
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((5, 4)).astype(np.float32)
    xs[0, 0] = np.nan
    ws = rng.standard_normal((3, 4)).astype(np.float32)
    out = []
    for lib in (vg, torch):
        x = lib.tensor(xs, requires_grad=True)
        w = lib.tensor(ws, requires_grad=True)
        h = lib.nn.functional.linear(x, w).relu()
        (h @ lib.tensor(ws)).sum().backward()
        out.append([np.asarray(t.tolist()) for t in (x.grad, w.grad, h)])
    for a, b in zip(*out):   # (the products round differently: BLAS against MKL)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)
        assert (np.isnan(a) == np.isnan(b)).all()
