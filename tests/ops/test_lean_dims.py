"""Note [lean dim ops] (ops/lean_dims.py): softmax, log_softmax, sum and mean over one int
dim, run in one body, are the teaching path's. Each program runs twice, lean and with the
lean path off (``set_lean_dims(False)``), and everything observable is compared: the
result's bits, shape, strides and dtype, the nodes and their saved values (dims shown as
given), the gradients, and the errors word for word."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.ops import lean_dims

from ..helpers import both_ways, graph_nodes, raised, saved_values

F = vg.nn.functional


def _both_ways(run):
    """run() with the trick on, then off."""
    return both_ways(lean_dims.set_lean_dims, run)


def _describe(v):
    if not isinstance(v, vg.Tensor):
        return ("not a tensor", repr(v))
    d = v.detach().cpu().numpy()
    nodes = [(n.name(), sorted((k, repr(s)) for k, s in saved_values(n)))
             for n in graph_nodes(v)]
    return (d.dtype.str, d.shape, d.tobytes(), v.stride(), v.requires_grad, v.is_leaf, nodes)


def _data(shape, dtype, kind):
    rng = np.random.default_rng(7)
    a = rng.standard_normal(shape) * 3
    if kind == "special" and a.size >= 4:
        a.flat[:4] = [np.inf, -np.inf, np.nan, -0.0]
    if kind == "large" and a.size:
        a.flat[0] = 1e30
    return vg.tensor(a, dtype=dtype)


INPUTS = {   # (a leaf) -> the tensor the op is taken of
    "result": lambda x: x * 1.0,
    "leaf": lambda x: x,
    "view": lambda x: (x * 1.0).t() if x.dim() == 2 else (x * 1.0)[1:],
    "transposed_leaf": lambda x: x.t() if x.dim() == 2 else x,
}
CALLS = {
    "softmax_last": lambda y: y.softmax(-1),
    "softmax_0": lambda y: y.softmax(0),
    "softmax_F": lambda y: F.softmax(y, dim=1 if y.dim() > 1 else 0),
    "softmax_F_implicit": lambda y: F.softmax(y),
    "softmax_out_of_range": lambda y: y.softmax(2),
    "softmax_dtype": lambda y: y.softmax(-1, dtype=vg.float64),
    "softmax_float_dim": lambda y: y.softmax(1.0),
    "log_softmax_last": lambda y: y.log_softmax(-1),
    "log_softmax_0": lambda y: y.log_softmax(0),
    "log_softmax_F": lambda y: F.log_softmax(y, -1),
    "sum_1": lambda y: y.sum(1 if y.dim() > 1 else 0),
    "sum_neg_keepdim": lambda y: y.sum(-1, keepdim=True),
    "sum_0_keepdim_pos": lambda y: y.sum(0, True),
    "sum_keepdim_int": lambda y: y.sum(0, keepdim=1),
    "sum_tuple": lambda y: y.sum((0,)),
    "sum_out_of_range": lambda y: y.sum(3),
    "sum_numpy_int": lambda y: y.sum(np.int64(0)),
    "sum_dtype": lambda y: y.sum(0, dtype=vg.float64),
    "mean_1": lambda y: y.mean(1 if y.dim() > 1 else 0),
    "mean_neg_keepdim": lambda y: y.mean(-1, keepdim=True),
    "mean_0": lambda y: y.mean(0),
    "mean_dim_kw": lambda y: y.mean(dim=-1),
    "vg_sum": lambda y: vg.sum(y, -1),
    "vg_mean": lambda y: vg.mean(y, 0, True),
}
SHAPES = {"2d": (3, 4), "1d": (5,), "3d": (2, 3, 4), "unit": (1, 4), "empty": (0, 4),
          "zero_d": ()}


def _run(shape, dtype, kind, make, call):
    x = _data(SHAPES[shape], dtype, kind).requires_grad_()
    try:
        y = CALLS[call](INPUTS[make](x))
    except Exception as e:   # noqa: BLE001 - compared word for word
        return ("raised", type(e).__name__, str(e))
    out = [_describe(y)]
    if y.requires_grad:
        g = vg.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)),
                      dtype=y.dtype)
        out.append(raised(lambda: y.backward(g)))
        out.append(None if x.grad is None else x.grad.cpu().numpy().tobytes())
    return out


@pytest.mark.parametrize("dtype", [vg.float32, vg.float64])
@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_dim_op_is_the_teaching_paths(shape, call, dtype):
    for make in sorted(INPUTS):
        lean, slow = _both_ways(lambda: _run(shape, dtype, "normal", make, call))
        assert lean == slow, make


@pytest.mark.parametrize("kind", ["special", "large"])
@pytest.mark.parametrize("call", ["softmax_last", "log_softmax_0", "sum_1", "mean_neg_keepdim"])
def test_infinities_nans_and_large_values_are_the_teaching_paths(call, kind):
    for dtype in (vg.float32, vg.float64):
        lean, slow = _both_ways(lambda: _run("2d", dtype, kind, "result", call))
        assert lean == slow


def test_an_int_tensor_and_modes_are_the_teaching_paths():
    def run():
        out = []
        x = vg.arange(12).reshape(3, 4)
        out.append(_describe(x.sum(1)))
        out.append(raised(lambda: x.mean(1)))
        y = vg.randn(3, 4, generator=vg.Generator().manual_seed(1), requires_grad=True)
        with vg.no_grad():
            out.append(_describe(y.softmax(-1)))
        with vg.inference_mode():
            out.append(_describe(y.sum(-1)))
        with vg.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
            z = (y * 1.0).log_softmax(1)
            z.sum().backward()
            out.append(y.grad.cpu().numpy().tobytes())
        return out
    lean, slow = _both_ways(run)
    assert lean == slow


@pytest.mark.host_only("Note [lean dim ops] is for host arrays")
def test_the_lean_dim_ops_are_taken(monkeypatch):
    from viewgrad.ops import nnops, reduce
    seen = []
    for mod in (nnops, reduce):
        real = mod.dispatch
        monkeypatch.setattr(mod, "dispatch",
                            lambda op, *a, real=real: seen.append(op.name) or real(op, *a))
    y = vg.randn(3, 4, requires_grad=True) * 1.0
    y.softmax(-1), F.log_softmax(y, 1), y.sum(0), y.mean(-1, keepdim=True), y.t().sum(1)
    assert seen == []
    y.sum(0, dtype=vg.float64), y.mean((0, 1)), y.softmax(-1, dtype=vg.float64)
    assert seen == ["sum_dim_cast", "mean_dim", "softmax"]


def test_the_profiler_sees_every_dim_op():
    x = vg.randn(3, 4, requires_grad=True)
    with vg.autograd.profiler.profile() as prof:
        ((x * 1.0).softmax(-1).sum(0) + (x * 1.0).mean(1).sum()).sum().backward()
    rows = {r.key: r.count for r in prof.key_averages()}
    assert rows.get("softmax") == 1 and rows.get("sum_dim") == 1, rows
    assert rows.get("mean_dim") == 1 and rows.get("SoftmaxBackward0") == 1, rows


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, dim", [((4, 5), 1), ((4, 5), 0), ((2, 3, 4), -1), ((6,), 0),
                                        ((3, 4), -2)])
def test_softmax_backward_on_host_arrays_is_the_formula_bit_for_bit(shape, dim, dtype):
    """Note [softmax's backward on host arrays] (ops/fast.py) against the formulas as
    written, on values with infinities, NaNs, zeros of both signs and a transposed grad."""
    from viewgrad.ops import fast
    rng = np.random.default_rng(3)
    for trial in range(4):
        x = (rng.standard_normal(shape) * 4).astype(dtype)
        g = (rng.standard_normal(shape) * 2).astype(dtype)
        if trial == 1:
            g.flat[:3] = [np.inf, np.nan, -0.0]
        if trial == 2:
            x.flat[:2] = [-np.inf, 0.0]
        if trial == 3 and g.ndim == 2:
            g = np.ascontiguousarray(g.T).T   # (column-major memory)
        e = np.exp(x - x.max(axis=dim, keepdims=True))
        sm = e / e.sum(axis=dim, keepdims=True)
        lsm = np.log(sm)
        with np.errstate(all="ignore"):
            want_sm = (g - (g * sm).sum(axis=dim, keepdims=True)) * sm
            want_lsm = g - np.exp(lsm) * g.sum(axis=dim, keepdims=True)
            got_sm = fast._softmax_grad(g, sm, dim % len(shape))
            got_lsm = fast._log_softmax_grad(g, lsm, dim % len(shape))
        assert got_sm.dtype == want_sm.dtype and got_sm.tobytes() == want_sm.tobytes()
        assert got_lsm.dtype == want_lsm.dtype and got_lsm.tobytes() == want_lsm.tobytes()


@pytest.mark.parametrize("gshape, shape", [((4, 1), (4, 8)), ((1, 8), (4, 8)),
                                           ((2, 1, 3), (2, 5, 3)), ((1, 1), (3, 4)),
                                           ((3,), (3,)), ((2, 1, 1), (2, 0, 4)), ((), (2, 3))])
def test_a_gradient_broadcast_in_one_call_is_broadcast_to(gshape, shape):
    """Note [a 0-d gradient broadcast in one call] (ops/fast.py): the same read-only view
    as ``np.broadcast_to`` (shape, strides, values, memory), and its error for sizes that
    do not broadcast."""
    from viewgrad.ops import fast
    g = np.random.default_rng(0).standard_normal(gshape).astype(np.float32)
    a, b = fast._expand(g, shape), np.broadcast_to(g, shape)
    assert (a.shape, a.strides, a.tobytes(), a.flags.writeable, np.shares_memory(a, g)) == (
        b.shape, b.strides, b.tobytes(), b.flags.writeable, np.shares_memory(b, g))
    with pytest.raises(ValueError) as ours:
        fast._expand(np.ones((4, 2), np.float32), (4, 8))
    with pytest.raises(ValueError) as numpys:
        np.broadcast_to(np.ones((4, 2), np.float32), (4, 8))
    assert str(ours.value) == str(numpys.value)
