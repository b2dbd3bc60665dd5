"""Unary ops on 0-d tensors (a loss, a scalar parameter), forward and backward, against
PyTorch: NumPy answers a 0-d computation with a scalar, not an array, and a host fast
path that writes ``out=`` into it fails (``x.sigmoid()`` on a 0-d tensor raised NumPy's
"return arrays must be of ArrayType" before this test)."""
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

METHODS = ["exp", "log", "tanh", "sigmoid", "relu", "sqrt", "abs", "neg", "sin", "cos",
           "reciprocal", "square", "sign", "log1p", "expm1", "rsqrt", "erf", "atan", "asinh",
           "sinh", "cosh", "floor", "round", "trunc", "frac", "exp2", "log2", "log10",
           "sinc", "logit", "erfinv"]
FUNCTIONAL = ["softplus", "hardtanh", "elu", "silu", "gelu", "mish", "hardswish", "selu",
              "celu", "softsign", "tanhshrink", "logsigmoid", "relu6", "leaky_relu",
              "hardsigmoid"]


def _run(lib, name, dtype, functional, through_op):
    x = lib.tensor(0.3, dtype=getattr(lib, dtype), requires_grad=True)
    y = x * 1 if through_op else x   # a result with a history: the lean paths' case
    z = getattr(lib.nn.functional, name)(y) if functional else getattr(y, name)()
    z.backward()
    return round(z.item(), 5), round(x.grad.item(), 5), tuple(z.shape), str(z.dtype)[-7:]


@pytest.mark.parametrize("through_op", [True, False], ids=["result", "leaf"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", METHODS + FUNCTIONAL)
def test_unary_on_a_0d_tensor_as_torch(name, dtype, through_op):
    functional = name in FUNCTIONAL
    assert _run(vg, name, dtype, functional, through_op) == \
        _run(torch, name, dtype, functional, through_op)
