"""Note [saved values in the node] (autograd/graph.py): a lean call keeps its one saved
value in the node's slots, and ``_saved`` builds the SavedTensors the first time anything
reads it. Everything observable is what ``record`` saves: the values and their identity,
hooks on a saved tensor, the version checks and their messages, releasing, blame."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.autograd.graph import SavedTensor, _InNode
from viewgrad.ops import lean

pytestmark = pytest.mark.host_only("the lean calls are for host arrays (Note [lean ops])")


def _y():
    x = vg.tensor(np.linspace(-1.0, 1.5, 5), requires_grad=True)
    return x, x * 1.0   # a history: the lean calls take y


@pytest.mark.parametrize("make, name, kind", [
    (lambda y, c: y.tanh(), "result", "result"),
    (lambda y, c: y.exp(), "result", "result"),
    (lambda y, c: y.sigmoid(), "result", "result"),
    (lambda y, c: y.relu(), "result", "result"),
    (lambda y, c: y * 1.5, "other", "number"),
    (lambda y, c: y * c, "other", "input"),
    (lambda y, c: y.sin(), "self", "history"),
    (lambda y, c: vg.cos(y), "self", "history"),
    (lambda y, c: y.log1p(), "self", "history"),
])
def test_the_value_waits_in_the_node_until_read(make, name, kind):
    x, y = _y()
    c = vg.full((5,), 2.0, dtype=vg.float64)
    z = make(y, c)
    fn = z.grad_fn
    assert type(fn._sdict) is _InNode and fn._sdict.kind == kind
    raw = getattr(fn, "_raw_saved_" + name) if kind != "number" else None
    v = getattr(fn, "_saved_" + name)
    assert type(fn._sdict) is dict   # built on the first read, and kept
    if kind == "number":
        assert v == 1.5
    else:
        assert isinstance(raw, SavedTensor)
        assert getattr(fn, "_raw_saved_" + name) is raw
        assert raw.saved_version == (0 if kind == "result" else c._version)
        want = {"result": z, "input": c, "history": y}[kind]
        assert np.array_equal(v.detach().numpy(), want.detach().numpy())
        assert raw.had_grad_fn == (kind == "history")
        if kind != "result":
            assert v is want   # an input is saved as the Tensor itself
    z.sum().backward()
    assert fn._sdict is None and fn._sv is None   # released: the array goes too


def test_a_step_reads_the_slots_and_gives_the_teaching_gradient():
    def grads(lean_way):
        prev = lean.set_lean_ops(lean_way)
        try:
            x, y = _y()
            c = vg.full((5,), 0.5, dtype=vg.float64)
            ((y * 1.01 - 1.65).tanh() * c).sigmoid().exp().sum().backward()
            return x.grad.numpy()
        finally:
            lean.set_lean_ops(prev)
    assert np.array_equal(grads(True), grads(False))


def test_hooks_on_a_saved_result_run():
    x, y = _y()
    z = y.tanh()
    seen = []
    z.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: seen.append(1) or t)
    z.sum().backward()
    assert seen == [1]
    ref = (1 - np.tanh(np.linspace(-1.0, 1.5, 5)) ** 2)
    assert np.allclose(x.grad.numpy(), ref)


def test_a_result_modified_in_place_is_refused_in_pytorchs_words():
    x, y = _y()
    z = y.exp()
    z.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation.*"
                       r"output 0 of Exp, is at version 1; expected version 0.*\n"
                       r"saved by ExpBackward0 at test_saved_in_node.py:\d+ \(z = y.exp\(\)\)"):
        z.sum().backward()


def test_a_constant_modified_in_place_is_refused():
    x, y = _y()
    c = vg.full((5,), 2.0, dtype=vg.float64)
    z = y * c
    c.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation.*"
                       r"is at version 1; expected version 0"):
        z.sum().backward()


def test_a_second_backward_needs_retain_graph():
    x, y = _y()
    z = (y * 1.5).tanh()
    z.sum().backward(retain_graph=True)
    z.sum().backward()
    assert np.allclose(x.grad.numpy(), 2 * 1.5 * (1 - np.tanh(1.5 * np.linspace(-1, 1.5, 5)) ** 2))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        z.sum().backward()


@pytest.mark.parametrize("blame", [True, False])
def test_the_blame_mark_is_the_users_line_or_none(blame):
    prev = vg.autograd.is_blame_enabled() if hasattr(vg.autograd, "is_blame_enabled") else True
    from viewgrad.autograd import blame as B
    B.set_blame(blame)
    try:
        x, y = _y()
        z = y.tanh()   # this line
        where = z.grad_fn._raw_saved_result.where
    finally:
        B.set_blame(prev)
    if not blame:
        assert where is None
    else:
        assert where[0] == "TanhBackward0"
        assert "this line" in B.fmt_where(where[1])


def test_double_backward_through_lean_nodes():
    x, y = _y()
    z = (y * 1.5).tanh().sum()
    (g,) = vg.autograd.grad(z, x, create_graph=True)
    (gg,) = vg.autograd.grad(g.sum(), x)
    t = np.tanh(1.5 * np.linspace(-1.0, 1.5, 5))
    assert np.allclose(gg.numpy(), 1.5 * 1.5 * (-2 * t * (1 - t * t)))


def test_a_leaf_input_is_saved_in_the_node_without_a_history():
    x = vg.tensor(np.linspace(-1.0, 1.5, 5), requires_grad=True)
    z = x.sin()
    assert z.grad_fn._sdict.kind == "input"
    raw = z.grad_fn._raw_saved_self
    assert raw.had_grad_fn is False and z.grad_fn._saved_self is x
    z.sum().backward()
    assert np.allclose(x.grad.numpy(), np.cos(np.linspace(-1.0, 1.5, 5)))


@pytest.mark.parametrize("lean_way", [True, False])
def test_a_saved_input_detached_in_place_is_refused_both_ways(lean_way):
    prev = lean.set_lean_ops(lean_way)
    try:
        x, y = _y()
        z = y.cos()
        y.detach_()
        with pytest.raises(RuntimeError, match="detach"):
            z.sum().backward()
    finally:
        lean.set_lean_ops(prev)


@pytest.mark.parametrize("lean_way", [True, False])
def test_a_saved_input_modified_in_place_is_refused_both_ways(lean_way):
    prev = lean.set_lean_ops(lean_way)
    try:
        x, y = _y()
        z = y.atan()
        y.mul_(2)
        with pytest.raises(RuntimeError, match=r"output 0 of Mul.*is at version 1; expected "
                           r"version 0.*\nsaved by AtanBackward0 at test_saved_in_node.py"):
            z.sum().backward()
    finally:
        lean.set_lean_ops(prev)


def test_an_inference_tensor_is_refused_as_before():
    with vg.inference_mode():
        y = vg.ones(3)
    x = vg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        (y * x).sin()   # (y * x: no inference tensor; its own saving is checked)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        (x * y)
