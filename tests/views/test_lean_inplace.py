"""Note [lean in-place] (autograd/inplace_lean.py): ``add_``/``sub_``/``mul_``/``div_``
take a lean path when nothing can be refused. It must build exactly what the teaching
path (``apply_inplace``) builds: the same graph (node names, edges, the order of sequence
numbers, saved values and their versions, CopySlices geometry), values, versions,
gradients, and the same errors at the same step — checked on the random programs of
views and in-place ops, and on hand-written cases, run both ways."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import viewgrad as vg
import viewgrad.ops.inplace as inplace_ops
from viewgrad.autograd.graph import SavedTensor
from viewgrad.autograd.inplace_lean import set_lean_inplace

from ..helpers import both_ways as _both_ways, graph_order
from .programs import draw_program, run

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def _value(v):
    if isinstance(v, SavedTensor):
        t = v.tensor if v.tensor is not None else None
        data = v.data if v.data is not None else t._data
        return ("saved", v.saved_version, v.is_output, _host(data).tolist())
    if isinstance(v, vg.Tensor):
        return ("tensor", _host(v._data).tolist())
    return ("value", repr(v))


def _host(a):
    return np.asarray(a.get() if hasattr(a, "get") else a)


def signature(roots):
    """Everything observable about the graph under ``roots`` (grad_fns), as plain data:
    nodes in DFS order with their names, edges (as node indices), the rank of their
    sequence numbers, what they saved, and CopySlices' geometry and wrapped node."""
    order, index = graph_order(roots)
    seqs = sorted(n._seq_nr for n in order)
    out = []
    for n in order:
        entry = [n.name(), seqs.index(n._seq_nr),
                 [(index.get(id(e[0])), e[1]) for e in n.next_functions]]
        if n.name() == "torch::autograd::CopySlices":
            entry += [index.get(id(n.fn)), n.view_sizes, n.view_strides, n.view_offset,
                      n.base_sizes, n.base_strides, n.base_offset, n.row_major]
        items = n.saved_items() if hasattr(n, "saved_items") else []
        entry.append([(k, _value(v)) for k, v in items])
        entry.append(getattr(n, "_shapes", None))   # (a broadcast operand's shape)
        out.append(entry)
    return out


def both_ways(program_fn):
    return _both_ways(set_lean_inplace, program_fn)


def _row_loop(scalar_first):
    x = vg.arange(12.0).reshape(3, 4).requires_grad_()
    w = vg.linspace(0.5, 1.5, 4).requires_grad_()
    b = x.clone()
    views = []
    for i in range(3):
        r = b[i]
        if i == 1:
            r.retain_grad()          # retain_grad follows the view: the general rebase
        if scalar_first:
            r.add_(0.5)
            r.mul_(w)
        else:
            r.mul_(w)
            r.add_(0.5)
            r.sub_(w)
            r.div_(2.0)
        views.append(r)
    h = b * 1
    h.mul_(3)          # a plain non-leaf, not a view
    h.sub_(w)
    h.div_(w)
    roots = [b.grad_fn, h.grad_fn] + [v.grad_fn for v in views]
    sig = signature(roots)
    (b.sum() + h.sum() + views[1].sum()).backward()
    return (sig, [v._version for v in views], x.grad.tolist(), w.grad.tolist(),
            None if views[1].grad is None else views[1].grad.tolist())


@pytest.mark.parametrize("replay", [False, True])
@pytest.mark.parametrize("scalar_first", [False, True])
def test_row_loop_builds_the_same_graph_both_ways(scalar_first, replay):
    prev = vg.autograd.is_view_replay_enabled()
    vg.autograd.set_view_replay(replay)
    try:
        lean, teaching = both_ways(lambda: _row_loop(scalar_first))
    finally:
        vg.autograd.set_view_replay(prev)
    assert lean == teaching


def test_the_row_loop_takes_the_lean_path(monkeypatch):
    calls = []
    real = inplace_ops.apply_inplace

    def counting(*args, **kwargs):
        calls.append(args[0].name)
        return real(*args, **kwargs)

    monkeypatch.setattr(inplace_ops, "apply_inplace", counting)
    x = vg.randn(4, 3, requires_grad=True)
    w = vg.randn(3, requires_grad=True)
    b = x.clone()
    for i in range(4):
        b[i].mul_(w).add_(0.5)
    assert calls == []                  # every op took the lean path
    b[0].mul_(b[1])                     # same storage: the teaching path decides
    x2 = vg.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x2.mul_(2)                       # a leaf: the teaching path raises
    assert calls == ["mul", "mul"]


def _slice_loop():
    """Slices of rows written with operands broadcast to them (a row, a column, a 0-d
    tensor, a number), and one that would have to grow the slice (refused)."""
    x = vg.arange(24.0).reshape(6, 4).requires_grad_()
    w = vg.linspace(0.5, 1.5, 4).requires_grad_()
    c = vg.tensor([[2.0], [3.0]], requires_grad=True)
    s = vg.tensor(1.25, requires_grad=True)
    b = x.clone()
    for i in range(0, 6, 2):
        r = b[i:i + 2]
        r.mul_(w)
        r.add_(c)
        r.narrow(0, 0, 1).sub_(s)
        r.div_(2.0)
    err = None
    try:
        b[0].add_(vg.ones(2, 4))
    except RuntimeError as e:
        err = str(e)
    sig = signature([b.grad_fn])
    b.sum().backward()
    return sig, err, x.grad.tolist(), w.grad.tolist(), c.grad.tolist(), s.grad.tolist()


def test_broadcast_operands_build_the_same_graph_both_ways(monkeypatch):
    lean, teaching = both_ways(_slice_loop)
    assert lean == teaching and lean[1] is not None
    calls = []
    real = inplace_ops.apply_inplace
    monkeypatch.setattr(inplace_ops, "apply_inplace",
                        lambda *a, **k: calls.append(a[0].name) or real(*a, **k))
    _slice_loop()
    # the full path: div_ on a slice gone stale (its narrow was written: the view's grad_fn
    # is regenerated there) and the operand that would grow b[0]; the rest is lean
    assert calls == ["div", "div", "div", "add"]


def test_lean_refusals_are_the_teaching_paths():
    def prog():
        x = vg.randn(3, 3, requires_grad=True)
        out = []
        for f in (lambda: x.add_(1), lambda: x[0].mul_(2),
                  lambda: x.clone().expand(2, 3, 3).mul_(2)):
            try:
                f()
                out.append(None)
            except RuntimeError as e:
                out.append(str(e))
        return out
    lean, teaching = both_ways(prog)
    assert lean == teaching and all(lean)


def test_blame_points_at_the_same_line_both_ways():
    def prog():
        x = vg.randn(3, requires_grad=True)
        w = vg.randn(3, requires_grad=True)
        b = x.clone()
        y = b * w          # saves b
        b.mul_(2)          # the lean path bumps b's version
        try:
            y.sum().backward()
        except RuntimeError as e:
            return str(e)
    lean, teaching = both_ways(prog)
    assert lean == teaching and "modified by mul_ at" in lean


@pytest.mark.once
@settings(max_examples=150, **SETTINGS)
@given(st.data())
def test_random_programs_build_the_same_graph_both_ways(data):
    program, leaf_values, _ = draw_program(data, st, vg)

    def go():
        at = [0]
        try:
            leaves = [vg.tensor(v, dtype=vg.float64, requires_grad=True) for v in leaf_values]
            loss, live = run(vg, program, leaves, at)
            sig = signature([loss.grad_fn])
            versions = [t._version for t in live]
            names = [None if t.grad_fn is None else t.grad_fn.name() for t in live]
            loss.backward()
            grads = [None if l.grad is None else l.grad.tolist() for l in leaves]
            return ("ok", sig, versions, names, grads)
        except Exception as e:  # noqa: BLE001 - what and where it raised is the result
            return ("error", at[0], type(e).__name__, str(e))

    lean, teaching = both_ways(go)
    assert lean == teaching, program


def test_the_row_loop_leaves_no_reference_cycles():
    """Memory stays flat under gc.disable(): nothing the lean path builds (CopySlices holds
    the view's chain, not its ViewInfo, which holds the base) makes a cycle."""
    import gc
    x = vg.randn(8, 4, requires_grad=True)
    w = vg.randn(4, requires_grad=True)
    gc.collect()
    gc.disable()
    try:
        for _ in range(20):
            b = x.clone()
            for i in range(8):
                b[i].mul_(w).add_(0.5)
            b.sum().backward()
        found = gc.collect()
    finally:
        gc.enable()
    assert found == 0
