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
        assert np.array_equal(v.detach().numpy(), (z if kind == "result" else c).detach().numpy())
        if kind == "input":
            assert v is c   # an input is saved as the Tensor itself
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
