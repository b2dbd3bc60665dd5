"""``x[key] = value`` for a basic key follows PyTorch's ``copy_to`` step for step: a number
becomes a 0-d tensor of x's dtype (converted as ``fill_`` converts it, except that a
float16 takes it unchecked), then ``dst.copy_(src)`` when the shapes are equal,
``dst.fill_(src)`` for a 0-d host ``src`` (FillBackward3, two edges), else ``src`` viewed
without its leading 1-sized dims and expanded (ViewBackward0, ExpandBackward0) and copied.
Compared with torch: values, dtype, version bumps, the node and its edges (names), the
gradients of x and of the value, the error type and message."""
import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

KEYS = {
    "int": 0, "neg_int": -1, "row_slice": (slice(None), 1), "two_ints": (0, 1),
    "ellipsis": Ellipsis, "full_slice": slice(None), "step": slice(None, None, 2),
    "none": None, "ell_int": (Ellipsis, 0), "three_d_mixed": (1, slice(0, 2), 0),
    "int_none": (0, None), "empty_slice": slice(2, 2), "full_full": (slice(None), slice(None)),
}

NUMBERS = [5.0, -1, 2, True, -0.0, 1e40, float("nan"), 300, 2 ** 40, 0.1, -2.5]
DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "int8", "bool"]


def _base(lib, dtype, grad):
    data = np.arange(24, dtype=np.float64).reshape(2, 3, 4) - 7
    if grad:
        x = lib.tensor(data.tolist(), dtype=getattr(lib, dtype), requires_grad=True)
        return x, x * 1
    x = lib.tensor(data.tolist()).to(getattr(lib, dtype))
    return x, x.clone()


def _node(t):
    n = t.grad_fn
    if n is None:
        return None
    return (n.name().split("::")[-1],
            [None if f is None else f.name().split("::")[-1] for f, _ in n.next_functions])


def _run_number(lib, dtype, value, key, grad):
    try:
        x, y = _base(lib, dtype, grad)
        before = y._version
        y[key] = value
        out = [str(y.dtype).split(".")[-1], np.asarray(y.detach().tolist()).tolist(),
               y._version - before, _node(y)]
        if grad:
            (y * y).sum().backward()
            out.append(np.asarray(x.grad.tolist()).tolist())
        return out
    except Exception as e:   # noqa: BLE001 - the oracle's own error is compared
        return ["ERR", type(e).__name__, str(e).split(" (")[0][:70]]


def _same(a, b):
    # NaN == NaN for the comparison of nested lists
    return repr(a).replace("nan", "NaN") == repr(b).replace("nan", "NaN")


@pytest.mark.parametrize("key", list(KEYS), ids=list(KEYS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_number_into_a_tensor_without_grad(dtype, key):
    bad = []
    for value in NUMBERS:
        a = _run_number(vg, dtype, value, KEYS[key], False)
        b = _run_number(torch, dtype, value, KEYS[key], False)
        if not _same(a, b):
            bad.append((value, a, b))
    assert not bad, bad


@pytest.mark.parametrize("key", list(KEYS), ids=list(KEYS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_number_into_a_tensor_with_history(dtype, key):
    """The graph: CopySlices over CopyBackwards (a 0-d destination) or FillBackward3,
    each with a second, empty edge for the number's tensor; FillBackward3 itself for a
    key that selects the whole tensor (x[...] = 5, x[:] = 5)."""
    bad = []
    for value in (5.0, -1, True, 0.1, float("nan"), 1e40):
        a = _run_number(vg, dtype, value, KEYS[key], True)
        b = _run_number(torch, dtype, value, KEYS[key], True)
        if not _same(a, b):
            bad.append((value, a, b))
    assert not bad, bad


VALUES = {
    "0d": lambda lib, w: lib.tensor(5.0),
    "0d_grad": lambda lib, w: w * 1,
    "0d_f64": lambda lib, w: lib.tensor(5.0, dtype=lib.float64),
    "0d_int": lambda lib, w: lib.tensor(3),
    "one_element": lambda lib, w: lib.tensor([5.0]),
    "one_element_grad": lambda lib, w: (w * 1).reshape(1, 1),
    "row4": lambda lib, w: lib.tensor([5.0, 6.0, 7.0, 8.0]),
    "row4_grad": lambda lib, w: w * lib.arange(4.0),
    "lead_ones_grad": lambda lib, w: (w * lib.arange(4.0)).reshape(1, 1, 4),
    "col_grad": lambda lib, w: (w * lib.arange(3.0)).reshape(3, 1),
    "block_grad": lambda lib, w: (w * lib.arange(12.0)).reshape(3, 4),
    "too_big": lambda lib, w: lib.tensor([1.0, 2.0]),
}


def _run_tensor(lib, value, key):
    try:
        x = lib.tensor((np.arange(24.0).reshape(2, 3, 4) - 7).tolist(), requires_grad=True)
        w = lib.tensor(1.5, requires_grad=True)
        y = x * 1
        before = y._version
        y[key] = VALUES[value](lib, w)
        node = _node(y)
        (y * y).sum().backward()
        return [np.asarray(y.detach().tolist()).tolist(), y._version - before, node,
                np.asarray(x.grad.tolist()).tolist(), None if w.grad is None else w.grad.item()]
    except Exception as e:   # noqa: BLE001 - the oracle's own error is compared
        return ["ERR", type(e).__name__]


@pytest.mark.parametrize("key", list(KEYS), ids=list(KEYS))
@pytest.mark.parametrize("value", list(VALUES))
def test_tensor_value(value, key):
    a = _run_tensor(vg, value, KEYS[key])
    b = _run_tensor(torch, value, KEYS[key])
    if vg.get_default_device().type != "cpu" and a[0] != "ERR" and b[0] != "ERR":
        # the value is made on the device there: a 0-d one is then copied, not filled
        # from the host (torch on cuda does the same), so only the node may differ
        a[2] = b[2] = None
    assert _same(a, b), (a, b)


def test_graph_of_a_broadcast_value():
    """x[0] = v for v of shape (1, 1, 4) that requires grad: CopySlices → CopyBackwards'
    src edge is ExpandBackward0 → ViewBackward0 (the leading 1s dropped), as torch's."""
    for lib in (vg, torch):
        x = lib.zeros(2, 3, 4, requires_grad=True)
        w = lib.ones(1, 1, 4, requires_grad=True)
        y = x * 1
        y[0] = w * 2
        n = y.grad_fn
        assert n.name().split("::")[-1] == "CopySlices"
        src = n.next_functions[1][0]
        assert src.name() == "ExpandBackward0"
        assert src.next_functions[0][0].name() == "ViewBackward0"
        y.sum().backward()
        assert w.grad.tolist() == [[[6.0, 6.0, 6.0, 6.0]]]


def test_overflow_message_is_torchs():
    x = vg.zeros(3)
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without "
                                           "overflow"):
        x[0] = 1e40
    assert x._version == 0
    h = vg.zeros(3, dtype=vg.float16)
    h[1] = 1e40   # unchecked for float16, as torch: inf
    assert h.tolist() == [0.0, float("inf"), 0.0]
