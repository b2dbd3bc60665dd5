"""Note [dependencies counted late] (autograd/engine.py): the plain backward runs a chain
from the root with no dependency counts and counts only what the first branching node
reaches. Random graphs whose chain prefix ends in every way it can (a branch, a node with
several outputs, a hook, a leaf, two roots) and multi-grad hooks (which ask which nodes the
backward will run, prefix nodes included) against torch 2.13; and lean calls on 0-d
tensors, whose results must be arrays like every tensor's."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.ops.lean import set_lean_ops
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors through .numpy()")

STEPS = ("muls", "tanh", "exp", "mulc", "adds", "branch", "split", "unbind", "twice",
         "hook", "multi")


def _graph(M, steps, x, c, calls):
    y = x * 1.0
    seen = [x]
    for i, s in enumerate(steps):
        if s == "muls":
            y = y * 1.01
        elif s == "tanh":
            y = y.tanh()
        elif s == "exp":
            y = (y * 0.1).exp()
        elif s == "mulc":
            y = y * c
        elif s == "adds":
            y = y - 0.5
        elif s == "branch":
            y = y * y.sigmoid()
        elif s == "split":   # a node with several outputs, one of them used
            part = y.split(2)[i % 2]
            y = M.cat([part, part * 2.0])
        elif s == "unbind":   # every output used: the node gathers them in its buffer
            y = M.stack(list(y.unbind(0))[::-1]) * 1.0
        elif s == "twice":   # two edges to one node
            y = y + y
        elif s == "hook":
            y.register_hook(lambda g, i=i: (calls.append(("hook", i)), g * 1.5)[1])
        else:   # a multi-grad hook over this tensor, an earlier one and one outside
            outside = x * 3.0
            mode = ("all", "any")[i % 2]
            ts = (seen[-1], y, outside)

            def fn(g, i=i, mode=mode):
                if mode == "all":
                    calls.append(("multi", i, [None if t is None else
                                               np.round(float(t.sum()), 6) for t in g]))
                else:
                    calls.append(("any", i, np.round(float(g.sum()), 6)))
            M.autograd.graph.register_multi_grad_hook(ts, fn, mode=mode)
        seen.append(y)
    return y


def _run(M, steps, x0, c0, roots):
    x = M.tensor(x0, requires_grad=True)
    c = M.tensor(c0)
    calls = []
    y = _graph(M, steps, x, c, calls)
    if roots == 2:   # two outputs: the root has two edges
        M.autograd.backward([y.sum(), (y * 2.0).tanh().sum()])
    else:
        y.sum().backward()
    return x.grad.numpy().copy(), calls


@pytest.mark.parametrize("seed", range(4))
def test_random_graphs_with_multi_grad_hooks(seed):
    torch = torch_or_skip()
    rng = np.random.default_rng(100 + seed)
    for trial in range(80):
        n = int(rng.integers(1, 9))
        steps = [STEPS[i] for i in rng.integers(0, len(STEPS), n)]
        x0, c0 = rng.standard_normal(4), rng.standard_normal(4)
        roots = 1 + (trial % 3 == 0)
        g, calls = _run(vg, steps, x0, c0, roots)
        tg, tcalls = _run(torch, steps, x0, c0, roots)
        np.testing.assert_allclose(g, tg, rtol=1e-12, atol=1e-12, err_msg=str(steps))
        assert len(calls) == len(tcalls), (steps, calls, tcalls)
        for a, b in zip(calls, tcalls):
            assert a[:2] == b[:2], (steps, calls, tcalls)
            if len(a) > 2:
                np.testing.assert_allclose(np.array(a[2], dtype=float),
                                           np.array(b[2], dtype=float),
                                           rtol=1e-5, atol=1e-5, err_msg=str(steps))


def test_a_hook_on_a_chain_sees_which_nodes_run():
    """A multi-grad hook fires from the middle of a chain whose first half has run with no
    counts: the earlier tensors' nodes are part of this backward, as in torch."""
    torch = torch_or_skip()

    def run(M):
        x = M.tensor([0.5, -1.0, 2.0], requires_grad=True)
        a = x * 2.0
        b = a.tanh()
        c = b * 3.0
        d = c.exp()
        e = d * 0.5
        got = []
        M.autograd.graph.register_multi_grad_hook(
            (a, c, e, x * 5.0), lambda gs: got.append([g is None for g in gs]))
        e.sum().backward()
        return got
    assert run(vg) == run(torch) == [[False, False, False, True]]


@pytest.mark.parametrize("expr", ["b * 1.01", "b - 1.5", "b + 2.0", "b / 4.0",
                                  "vg.mul(b, 1.01)", "vg.sub(b, 1.5)", "vg.add(b, 2.0)",
                                  "vg.div(b, 4.0)", "b * vg.tensor(3.0)", "b.tanh()",
                                  "b.exp()", "b.sigmoid()"])
def test_lean_calls_on_zero_dim_tensors_give_arrays(expr):
    """``y * 1.01`` on a 0-d tensor with a history: a NumPy operation on 0-d arrays
    answers a NumPy scalar, which a Tensor must never hold (in-place ops, views and
    ``.numpy()`` need an array)."""
    def run():
        a = vg.tensor(2.0, requires_grad=True)
        out = eval(expr, {"vg": vg, "b": a * 1.0})
        kind = type(out._data)
        w = out.view(1) * 3.0   # a view of it
        z = out * 1.0   # (a lean call's result too) changed in place
        z.add_(1.0)
        (w.sum() + z).backward()
        return kind, z.detach().numpy(), a.grad.numpy()

    kind, value, grad = run()
    assert kind is np.ndarray
    prev = set_lean_ops(False)   # the teaching path's answer (Note [lean ops])
    try:
        _, ref_value, ref_grad = run()
    finally:
        set_lean_ops(prev)
    np.testing.assert_allclose(value, ref_value)
    np.testing.assert_allclose(grad, ref_grad)


@pytest.mark.parametrize("case", ["not scalar", "no history"])
def test_the_plain_entry_leaves_every_error_to_the_general_path(case):
    """Note [plain backward loop]: ``loss.backward()`` takes the plain entry only when it
    can; what it cannot take raises torch's error from the general path."""
    torch = torch_or_skip()

    def run(M):
        if case == "not scalar":
            z = M.tensor([1.0, 2.0], requires_grad=True) * 2
        else:
            z = M.tensor(1.0)
        with pytest.raises(RuntimeError) as e:
            z.backward()
        return str(e.value)
    ours, theirs = run(vg), run(torch)
    key = {"not scalar": "grad can be implicitly created only for scalar outputs",
           "no history": "does not require grad and does not have a grad_fn"}[case]
    assert key in ours and key in theirs
