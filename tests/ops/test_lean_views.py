"""Note [lean views] (ops/lean_views.py): ``y.view(...)`` and ``y.reshape(...)`` made in one
body are the views the checked methods make. Each program runs twice, lean and with the
lean path off (``set_lean_views(False)``), and everything observable is compared: the
data, shape, strides and dtype; leaf, requires_grad, the base and the version counter
shared with it; the nodes and their saved values; what an in-place write through the view
does to the graph and the gradients; the errors, word for word."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.ops import lean_views

from ..helpers import both_ways, graph_nodes, raised, saved_values


def _both_ways(run):
    """run() with the trick on, then off."""
    return both_ways(lean_views.set_lean_views, run)


def _describe(v, x):
    """What a user can see of view ``v`` of ``x``."""
    if not isinstance(v, vg.Tensor):
        return ("not a tensor", repr(v))
    d = v.detach().cpu().numpy()
    nodes = [(n.name(), sorted((k, repr(s)) for k, s in saved_values(n)))
             for n in graph_nodes(v)]
    return (d.dtype.str, d.shape, d.tobytes(), v.stride(), v.is_leaf, v.requires_grad,
            v._base is x or (x._base is not None and v._base is x._base),
            raised(lambda: v._version) or v._version == x._version, v.is_inference(),
            v.is_contiguous(), nodes)


def _run_program(make_x, call):
    """``call(x)``, described; then an in-place write through the view, the base's version
    and the gradient that reaches the leaf (or the errors)."""
    leaf = x = make_x()
    try:
        v = call(x)
    except Exception as e:   # noqa: BLE001 - compared word for word
        return ("raised", type(e).__name__, str(e))
    out = [_describe(v, x)]
    if isinstance(v, vg.Tensor) and v.is_floating_point() and not v.is_inference():
        out.append(raised(lambda: v.mul_(2.0)))
        out.append((x._version, v._version))
        out.append([n.name() for n in graph_nodes(v)])
        root = leaf if leaf.requires_grad else None
        if root is not None and root.is_leaf:
            out.append(raised(lambda: (v * v).sum().backward()))
            out.append(None if root.grad is None else root.grad.cpu().numpy().tobytes())
    return out


def _leaf(shape=(2, 3), dtype=vg.float32, rg=True):
    return lambda: vg.tensor(np.arange(np.prod(shape), dtype=np.float64).reshape(shape) - 2.5,
                             dtype=dtype, requires_grad=rg)


TENSORS = {
    "leaf": _leaf(),
    "leaf64": _leaf(dtype=vg.float64),
    "no_grad_leaf": _leaf(rg=False),
    "int": lambda: vg.arange(6).reshape(2, 3),
    "one": _leaf((1,)),
    "zero_d": lambda: vg.tensor(1.5, requires_grad=True),
    "empty": _leaf((0, 3)),
    "parameter": lambda: vg.nn.Parameter(vg.ones(2, 3)),
}
NONLEAF = {   # (a leaf, then the tensor the view is taken of)
    "result": lambda x: x * 1.0,
    "view_of_result": lambda x: (x * 1.0)[1:],
    "transposed": lambda x: (x * 1.0).t() if x.dim() == 2 else x * 1.0,
    "under_no_grad": lambda x: _in(vg.no_grad, lambda: x * 1.0),
}
CALLS = {
    "view_flat": lambda y: y.view(-1),
    "view_6": lambda y: y.view(6),
    "view_3_m1": lambda y: y.view(3, -1),
    "view_tuple": lambda y: y.view((3, 2)),
    "view_units": lambda y: y.view(1, 6, 1),
    "view_empty_tuple": lambda y: y.view(()),
    "view_0_m1": lambda y: y.view(0, -1),
    "view_bad_size": lambda y: y.view(4),
    "view_two_free": lambda y: y.view(-1, -1),
    "view_minus_2": lambda y: y.view(-2, 3),
    "view_float": lambda y: y.view(2.0, 3),
    "view_bool": lambda y: y.view(True, 6),
    "view_numpy_int": lambda y: y.view(np.int64(6)),
    "view_list": lambda y: y.view([3, 2]),
    "view_size_kw": lambda y: y.view(size=(3, 2)),
    "view_nothing": lambda y: y.view(),
    "reshape_flat": lambda y: y.reshape(-1),
    "reshape_3_2": lambda y: y.reshape(3, 2),
    "reshape_tuple": lambda y: y.reshape((6, 1)),
    "reshape_shape_kw": lambda y: y.reshape(shape=(6,)),
    "reshape_bad": lambda y: y.reshape(5),
    "reshape_flatten_like": lambda y: y.reshape(y.shape[0], -1) if y.dim() else y.reshape(1),
    "flatten": lambda y: y.flatten(),
    "flatten_1": lambda y: y.unsqueeze(0).flatten(1),
    "flatten_fn": lambda y: vg.flatten(y, 0, -1),
    "unsqueeze_0": lambda y: y.unsqueeze(0),
    "unsqueeze_last": lambda y: y.unsqueeze(-1),
    "unsqueeze_1": lambda y: y.unsqueeze(1),
    "unsqueeze_out_of_range": lambda y: y.unsqueeze(4),
    "unsqueeze_float": lambda y: y.unsqueeze(1.0),
    "unsqueeze_kw": lambda y: y.unsqueeze(dim=0),
    "unsqueeze_numpy_int": lambda y: y.unsqueeze(np.int64(-1)),
    "squeeze": lambda y: y.unsqueeze(1).squeeze(),
    "squeeze_none": lambda y: y.squeeze(),
    "squeeze_0": lambda y: y.unsqueeze(0).squeeze(0),
    "squeeze_last": lambda y: y.unsqueeze(-1).squeeze(-1),
    "squeeze_not_one": lambda y: y.squeeze(0),
    "squeeze_out_of_range": lambda y: y.squeeze(3),
    "squeeze_tuple": lambda y: y.unsqueeze(0).squeeze((0, -1)),
    "squeeze_kw": lambda y: y.squeeze(dim=0),
    "transpose_01": lambda y: y.transpose(0, 1),
    "transpose_negative": lambda y: y.transpose(-1, -2),
    "transpose_same": lambda y: y.transpose(1, 1),
    "transpose_out_of_range": lambda y: y.transpose(0, 2),
    "transpose_zero_d": lambda y: y.transpose(0, -1),
    "transpose_kw": lambda y: y.transpose(dim0=0, dim1=-1),
    "swapaxes": lambda y: y.swapaxes(-1, 0),
    "swapdims_bool": lambda y: y.swapdims(True, 0),
    "mT": lambda y: y.mT,
    "t": lambda y: y.t(),
    "t_of_t": lambda y: y.t().t(),
    "t_args": lambda y: y.t(0),
    "t_3d": lambda y: y.unsqueeze(0).t(),
}


def _in(ctx, fn):
    with ctx():
        return fn()


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("tensor", sorted(TENSORS))
def test_a_view_of_a_leaf_is_the_checked_methods(tensor, call):
    lean, slow = _both_ways(lambda: _run_program(TENSORS[tensor], CALLS[call]))
    assert lean == slow


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("kind", sorted(NONLEAF))
def test_a_view_of_a_result_is_the_checked_methods(kind, call):
    def run():
        x = _leaf()()
        return _run_program(lambda: x, lambda x: CALLS[call](NONLEAF[kind](x)))
    lean, slow = _both_ways(run)
    assert lean == slow


@pytest.mark.parametrize("replay", [False, True])
@pytest.mark.parametrize("call", ["view_flat", "view_3_m1", "view_tuple", "reshape_3_2",
                                  "unsqueeze_last", "transpose_negative", "t",
                                  "squeeze_last"])
def test_a_view_regenerated_after_its_base_changed_is_the_checked_methods(call, replay):
    """The base written in place after the view was made: the view's grad_fn is made
    again, by as_strided or by replaying the view (what the view recorded for it); then
    a write through the view (CopySlices), replayed or not."""
    def run():
        prev = vg.autograd.set_view_replay(replay)
        try:
            x = _leaf()()
            y = x * 1.0
            v = CALLS[call](y)
            y.mul_(3.0)
            nodes = [n.name() for n in graph_nodes(v)]
            (v * v).sum().backward()
            g = x.grad.cpu().numpy().tobytes()
            x.grad = None
            y = x * 1.0
            w = CALLS[call](y)
            w.mul_(w.detach() + 1.0)   # through the view: CopySlices on y
            nodes += [n.name() for n in graph_nodes(y)]
            (y * y).sum().backward()
            return nodes, g, x.grad.cpu().numpy().tobytes()
        finally:
            vg.autograd.set_view_replay(prev)
    lean, slow = _both_ways(run)
    assert lean == slow


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
@pytest.mark.parametrize("call", ["view_flat", "view_3_m1", "reshape_3_2"])
def test_a_view_in_a_mode_is_the_checked_methods(mode, call):
    def run():
        x = _leaf()()
        with getattr(vg, mode)():
            v = CALLS[call](x * 1.0 if mode == "inference_mode" else x)
            out = _describe(v, v._base if v._base is not None else v)
        return out, raised(lambda: v.mul_(2.0)), raised(lambda: (v * 1.0).sum().backward())
    lean, slow = _both_ways(run)
    assert lean == slow


@pytest.mark.host_only("Note [lean views] is for host arrays")
def test_the_lean_view_is_taken_and_hands_the_rest_on(monkeypatch):
    from viewgrad.ops import views
    seen = []
    real = views.dispatch_view
    monkeypatch.setattr(views, "dispatch_view",
                        lambda *a, **k: seen.append(a[0].name) or real(*a, **k))
    x = vg.randn(2, 3, requires_grad=True)
    y = x * 1.0
    y.view(-1), y.reshape(3, 2), y.view((6,)), x.view(6)
    assert seen == []
    y.unsqueeze(-1), y.transpose(0, -1), y.t(), y.swapdims(1, 0), y.t().unsqueeze(0)
    y.unsqueeze(0).squeeze(0), y.squeeze(), y.squeeze(-1)
    assert seen == []
    # (the transposed reshape copies: _unsafe_view, no view)
    y.t().reshape(6), y.view(size=(6,)), y.view(np.int64(6)), y.unsqueeze(dim=0)
    assert seen == ["view", "view", "unsqueeze"]


def test_the_profiler_sees_the_view_forward():
    x = vg.randn(2, 3, requires_grad=True)
    with vg.autograd.profiler.profile() as prof:
        (x * 1.0).view(-1).sum().backward()
    rows = {r.key: r.count for r in prof.key_averages()}
    assert rows.get("view") == 1 and rows.get("ViewBackward0") == 1, rows
