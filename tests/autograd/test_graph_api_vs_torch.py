"""The graph API a PyTorch user walks, against PyTorch 2.13: ``next_functions`` entries are
always ``(node, nr)`` tuples, node names, strides of ``expand``, versions left alone by
batch_norm, the second backward through a saved scalar, hook order and hook rules,
``autograd.grad(materialize_grads=...)``, calling a node, gradcheck's input checks and the
repr of a tensor whose grad_fn cannot be regenerated."""
import pytest

import viewgrad as vg
from tests.helpers import assert_same_as_torch, outcome, short, error_wording


def _try(f):
    try:
        return ("ok", f())
    except (RuntimeError, TypeError) as e:
        return error_wording(e)


def _name(fn):
    return None if fn is None else short(fn.name())


def _walk(t):
    """torchviz-style walk: every edge unpacked as ``fn, nr`` (never a bare None)."""
    seen, out, stack = set(), [], [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        edges = []
        for fn, nr in node.next_functions:
            edges.append((_name(fn), nr))
            stack.append(fn)
        out.append((_name(node), edges))
    return sorted(out)


def _next_functions_shape(lib):
    x = lib.ones(2, 3, requires_grad=True)
    c = lib.ones(2, 3)
    y = (x * c + c).sum(1)
    parts = lib.cat([x, c]).split([1, 3])
    z = lib.stack([x[0], c[0]]).relu() * 2 + parts[1].sum()
    b = x.clone()
    b[0] = c[0]                      # CopySlices with a constant source
    return _walk(y), _walk(z), _walk(b)


def _names(lib):
    x = lib.ones(4, requires_grad=True)
    a = lib.randn(4, requires_grad=True)
    b = a.clone()
    b[:2].relu_()
    (g_view,) = lib.autograd.grad(b.sum(), a, create_graph=True)
    c = a.clone()
    c.relu_()
    (g,) = lib.autograd.grad(c.sum(), a, create_graph=True)
    return ([_name(t.grad_fn) for t in x.split([1, 3])], _name(x.split(2)[0].grad_fn),
            _name(x.chunk(2)[0].grad_fn), _name(x.split_with_sizes([3, 1])[1].grad_fn),
            _name(g_view.grad_fn), [(_name(f), n) for f, n in g_view.grad_fn.next_functions],
            _name(g.grad_fn), [(_name(f), n) for f, n in g.grad_fn.next_functions])


def _invalid_repr(lib):
    x = lib.ones(4, requires_grad=True)
    b = x.clone()
    u = b.unbind()
    b.mul_(2)
    text = repr(u[0])  # printing must not raise; the grad_fn part is PyTorch's
    return text[text.index("grad_fn="):].rstrip(")")


EXPANDS = [((3,), (2, 3)), ((3, 1), (2, 3, 4)), ((1, 3), (4, 2, 3)), ((2, 1), (3, 2, 1)),
           ((1,), (1, 1)), ((3,), (1, 3)), ((), (1,)), ((), (2, 1)), ((2, 1), (1, 1, 2, 5)),
           ((1,), (1, 1, 1))]


def _expand_strides(lib):
    out = [lib.ones(a).expand(*b).stride() for a, b in EXPANDS]
    out.append(lib.ones(2, 3).t().expand(1, 3, 2).stride())
    return out


def _batch_norm_versions(lib):
    bn = lib.nn.BatchNorm1d(3)
    before = (bn.running_mean._version, bn.running_var._version, bn.num_batches_tracked._version)
    bn(lib.randn(4, 3))
    return before, (bn.running_mean._version, bn.running_var._version,
                    bn.num_batches_tracked._version)


SECOND = {"x*2": lambda x: x * 2, "2*x": lambda x: 2 * x, "x/2": lambda x: x / 2,
          "mul(3.)": lambda x: x.mul(3.), "x+2": lambda x: x + 2, "x-2": lambda x: x - 2,
          "2/x": lambda x: 2 / x, "div(2)": lambda x: x.div(2), "neg": lambda x: -x,
          "add(x, alpha)": lambda x: x.add(x * x, alpha=2),
          "sub(x, alpha)": lambda x: x.sub(x.exp(), alpha=2)}


def _second_backward(lib):
    out = {}
    for k, f in SECOND.items():
        x = lib.ones(2, requires_grad=True)
        y = f(x).sum()
        y.backward()
        out[k] = _try(lambda: y.backward())
    return out


def _hook_order_on_accumulate_grad(lib):
    order = []
    x = lib.ones(2, requires_grad=True)
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    acc.register_prehook(lambda g: order.append("node_pre"))
    x.register_hook(lambda g: order.append("tensor_hook"))
    acc.register_hook(lambda gi, go: order.append("node_post"))
    x.register_post_accumulate_grad_hook(
        lambda t: order.append(("post_acc", t is x, t.grad.tolist())))
    y.sum().backward()
    return order


def _post_accumulate_hook_returns(lib):
    x = lib.ones(2, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: t * 2)
    return _try(lambda: (x * 2).sum().backward())


def _inputs_hooks(lib):
    out = []
    for how in ("backward", "grad"):
        order = []
        a = lib.ones(2, requires_grad=True)
        b = a * 2
        c = b * 3
        b.grad_fn.register_prehook(lambda g: order.append("b_prehook"))
        b.register_hook(lambda g: order.append("b_tensor_hook"))
        b.grad_fn.register_hook(lambda gi, go: order.append("b_posthook"))
        if how == "backward":
            c.sum().backward(inputs=[b])
            out.append((order, b.grad.tolist(), a.grad))
        else:
            out.append((order, lib.autograd.grad(c.sum(), [b])[0].tolist()))
    return out


def _multi_output_hook(lib):
    seen = []
    x = lib.ones(4, requires_grad=True)
    p, q = x.clone().split(2)
    p.register_hook(lambda g: seen.append(None if g is None else g.tolist()))
    q.sum().backward(retain_graph=True)
    (p.sum() + q.sum()).backward()
    return seen


def _materialize(lib):
    x, z = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    g = lib.autograd.grad((x * 2).sum(), [x, z], create_graph=True, materialize_grads=True)
    h = lib.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True)
    return [t.requires_grad for t in g], [t.requires_grad for t in h], g[1].tolist()


def _call_node(lib):
    x = lib.ones(2, requires_grad=True)
    y = x * x
    acc = y.grad_fn.next_functions[0][0]
    one = lib.ones(2)
    return (_try(lambda: y.grad_fn()), _try(lambda: y.grad_fn(one, one)),
            _try(lambda: [t.tolist() for t in y.grad_fn(one)]), _try(lambda: acc(one)),
            _try(lambda: acc()))


def _gradcheck_inputs(lib):
    seen = []

    def f(t):
        y = t * 2
        seen.append((lib.is_grad_enabled(), t.requires_grad, y.grad_fn is not None))
        return y

    ok = lib.autograd.gradcheck(f, (lib.ones(3, dtype=lib.float64, requires_grad=True),))
    expanded = lib.ones(1, dtype=lib.float64, requires_grad=True).expand(3)
    return ok, sorted(set(seen)), _try(lambda: lib.autograd.gradcheck(lambda t: t * 2,
                                                                        (expanded,)))


SCENARIOS = {f.__name__.lstrip("_"): f for f in (
    _next_functions_shape, _names, _invalid_repr, _expand_strides, _batch_norm_versions,
    _second_backward, _hook_order_on_accumulate_grad, _post_accumulate_hook_returns,
    _inputs_hooks, _multi_output_hook, _materialize, _call_node, _gradcheck_inputs)}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_graph_api_like_torch(name):
    assert_same_as_torch(SCENARIOS[name], wording_too=True)


def test_graph_api_checks_are_real():
    out = outcome(vg, _second_backward)[1]
    assert out["x*2"][1].startswith("Trying to backward through the graph a second time")
    assert out["x+2"] == ("ok", None)
    out = outcome(vg, _names)[1]
    assert out[4] == "CopySlices" and out[6] == "ThresholdBackwardBackward0"
    out = outcome(vg, _invalid_repr)[1]
    assert "grad_fn=<Invalid>" in out
    walk = outcome(vg, _next_functions_shape)[1]
    assert any((None, 0) in edges for _, edges in walk[0])


def test_sequence_numbers_are_torchs():
    """``grad_fn._sequence_nr()`` is a method, as in PyTorch; op nodes count up one by one
    in the order they are made (a leaf's AccumulateGrad, made on the way, takes no number)
    and AccumulateGrad's is UINT64_MAX."""
    from tests.helpers import torch_or_skip
    torch = torch_or_skip()

    def run(M):
        a = M.ones(2, requires_grad=True)
        b = M.ones(2, requires_grad=True)
        y = a * 2
        z = a * b           # b's AccumulateGrad is made here
        w = (y * 3).sum()
        c = M.ones(2, requires_grad=True)
        v = (w + c).exp()
        nodes = [y.grad_fn, z.grad_fn, w.grad_fn, w.grad_fn.next_functions[0][0], v.grad_fn]
        nrs = [n._sequence_nr() for n in nodes]
        acc = z.grad_fn.next_functions[1][0]._sequence_nr()
        return [n - nrs[0] for n in nrs], acc

    assert run(vg) == run(torch)
