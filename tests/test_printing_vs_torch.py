"""``repr(tensor)`` as PyTorch prints it, character for character: columns padded to the
widest shown element (signs, ``nan``, bools, the summary ``...``), PyTorch's choice of
whole / fixed / scientific notation, summaries of big tensors, dtype= and grad_fn=
suffixes. PyTorch is the oracle (skipped, saying why, when it is not installed)."""
import pytest

import viewgrad as vg

from .helpers import torch_or_skip

pytestmark = pytest.mark.once   # host-side formatting

NAN, INF = float("nan"), float("inf")
CASES = [
    "m.tensor([0.0003, -0.0004])", "m.tensor([1., -10.])", "m.tensor([0.001, 2.])",
    "m.tensor([1, -10])", "m.tensor([True, False])", "m.tensor([NAN, 1.5, -2.])",
    "m.tensor([1e9, 1.])", "m.tensor([1e-5, 1.])", "m.tensor([1000., 1.])",
    "m.tensor([2000., 1.])", "m.tensor([0., 0.])", "m.tensor([INF, -1.])",
    "m.tensor([-INF, NAN])", "m.tensor(3.5)", "m.tensor(-2)", "m.tensor([1e-9, 0.])",
    "m.tensor([1.123456789, 100000.5])", "m.tensor([[1.5, -200.25], [3., 4.]])",
    "m.arange(2000.).view(2, 1000) - 500", "m.arange(3000.).view(1000, 3)",
    "m.arange(3000).view(3, 1000) - 7", "m.tensor([1.5, 2.25]) * 1e-6",
    "m.tensor([[True, False]])", "m.zeros(2, 0)", "m.tensor([1.5], dtype=m.float64)",
    "m.tensor([1, 2], dtype=m.int32)", "m.ones(2, requires_grad=True) * -3",
    "m.tensor([[0.1234567, -12.5]]).t()", "m.linspace(-1, 1, 7)", "m.arange(5000)",
    "m.arange(24.).view(2, 3, 4) / 7", "m.tensor([-1e-7, 3e5])", "m.tensor([NAN, 1.])",
    "m.tensor([0., -0.])", "m.tensor([0., INF])", "m.arange(-3000, 3000) * 1.5",
    "m.zeros(3, 2000)[:, :1500]",
    # empty: size unless 1-D, any non-default dtype (no elements to tell it by)
    "m.zeros(0)", "m.zeros(0, dtype=m.int64)", "m.zeros(0, 3, dtype=m.int64)",
    "m.zeros(0, dtype=m.bool)", "m.zeros(0, dtype=m.float64)",
    "m.zeros(0, 3, requires_grad=True).sum(0)",
]


@pytest.mark.parametrize("expr", CASES)
def test_repr_is_pytorchs(expr):
    torch = torch_or_skip()
    theirs = repr(eval(expr, {"m": torch, "NAN": NAN, "INF": INF}))
    ours = repr(eval(expr, {"m": vg, "NAN": NAN, "INF": INF}))
    assert ours.replace("viewgrad.", "torch.") == theirs


def test_the_default_complex_dtype_is_not_spelled_out():
    """complex64 goes with the default float32, as in torch: no ``dtype=`` in its repr."""
    torch = torch_or_skip()
    for data in ([1 + 2j, 3.5], [[1j]], 2 + 0j):
        assert ("dtype=" in repr(vg.tensor(data))) == ("dtype=" in repr(torch.tensor(data)))
        assert str(vg.tensor(data).dtype) == str(torch.tensor(data).dtype)[6:]


@pytest.mark.parametrize("rows, dtype", [(2, "float32"), (1, "float32"), (1, "float64"),
                                         (3, "float64")])
def test_suffixes_wrap_past_the_line_width_as_torch(rows, dtype):
    """PyTorch's _add_suffixes: a suffix that would take the last line past the line width
    goes on a line of its own, indented under the values."""
    torch = torch_or_skip()
    data = [[1.5, 0.0, -0.5, 0.0, 0.0, 2.0, 123456.5, 7.25]] * rows
    out = []
    for L in (vg, torch):
        x = L.tensor(data, dtype=getattr(L, dtype), requires_grad=True)
        out.append(repr(x * 1).replace("torch.", "viewgrad."))
    assert out[0] == out[1]


@pytest.mark.parametrize("data", [[1 + 2j, 3 - 1j], [1.5 + 1j, 2j], [1e20 + 1j, 1j], [1 - 20j, 3 + 1j],
                                  [0j], [complex("nan"), 1 + 1j], [1.25 - 0.5j, -3.125 + 1e-5j],
                                  1.5 + 2j])
def test_complex_tensors_print_as_torch(data):
    # the real and imaginary parts formatted and padded each as a float tensor of them
    _torch = torch_or_skip()
    for dt in ("complex64", "complex128"):
        want = repr(_torch.tensor(data, dtype=getattr(_torch, dt)))
        got = repr(vg.tensor(data, dtype=getattr(vg, dt))).replace("viewgrad.", "torch.")
        assert got == want
