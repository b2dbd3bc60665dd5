"""Random chains of the ops the lean calls and steps take (Note [lean methods], Note
[chain run], Note [saved values in the node]) with what interrupts a chain put anywhere:
tensor hooks, retain_grad, node pre/post hooks, a referenced intermediate, a branch,
autograd.grad and backward(inputs=) on intermediates, a second backward through a
retained graph. Gradients, retained gradients and the order the node hooks ran in are
torch 2.13's."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors through .numpy()")

OPS = ("muls", "adds", "tanh", "mulc", "sigmoid", "exp", "relu", "div", "log", "branch",
       "sin", "cos", "silu", "atan", "product", "divc")


def _chain(M, ops, x, c, marks, log):
    y = x * 1.0
    out = []
    for i, op in enumerate(ops):
        if op == "muls":
            y = y * 1.01
        elif op == "adds":
            y = y - 1.65
        elif op == "tanh":
            y = y.tanh()
        elif op == "mulc":
            y = y * c
        elif op == "sigmoid":
            y = y.sigmoid()
        elif op == "exp":
            y = (y * 0.1).exp()
        elif op == "relu":
            y = y.relu()
        elif op == "div":
            y = y / 3.0
        elif op == "log":
            y = (y * y + 1.0).log()
        elif op == "sin":
            y = y.sin()
        elif op == "cos":
            y = M.cos(y) + 0.5
        elif op == "silu":
            y = M.nn.functional.silu(y)
        elif op == "atan":
            y = y.atan()
        elif op == "product":
            y = y * (y * 0.5).sin()
        elif op == "divc":
            y = y / (c * c + 1.0)   # (a constant of y's shape, never near 0)
        else:
            y = y * y.tanh() + y
        m = marks[i]
        if m == 1:
            y.retain_grad()
            out.append(y)
        elif m == 2:
            y.register_hook(lambda g: g * 2.0)
        elif m == 3:
            out.append(y)   # referenced: its node is still some tensor's grad_fn
        elif m == 4:
            y.grad_fn.register_prehook(lambda go, i=i: (log.append(("pre", i)),
                                                        (go[0] * 2.0,))[1])
        elif m == 5:
            y.grad_fn.register_hook(lambda gi, go, i=i: (log.append(("post", i)), tuple(
                None if g is None else g * 0.5 for g in gi))[1])
        elif m == 6:
            out.append(y * 1.0)   # a branch off the chain, kept
    return y, out


def _run(M, ops, marks, x0, c0, dtype, mode):
    x = M.tensor(x0, dtype=getattr(M, dtype), requires_grad=True)
    c = M.tensor(c0, dtype=getattr(M, dtype))
    log = []
    y, kept = _chain(M, ops, x, c, marks, log)
    L = y.sum()
    if mode == "grad":
        gs = M.autograd.grad(L, kept + [x], allow_unused=True)
        return [None if g is None else g.detach().numpy().copy() for g in gs], log
    if mode == "inputs":
        L.backward(inputs=kept + [x])
    else:   # twice through a retained graph
        L.backward(retain_graph=True)
        L.backward()
    got = [x.grad.detach().numpy().copy()]
    got += [None if t.grad is None else t.grad.detach().numpy().copy()
            for t in kept if t.retains_grad or mode == "inputs"]
    return got, log


@pytest.mark.parametrize("seed", range(6))
def test_random_chains_with_hooks_and_captures(seed):
    torch = torch_or_skip()
    rng = np.random.default_rng(seed)
    for trial in range(60):
        n = int(rng.integers(1, 10))
        ops = [OPS[i] for i in rng.integers(0, len(OPS), n)]
        marks = [int(m) for m in rng.integers(0, 7, n) * (rng.random(n) < 0.4)]
        x0, c0 = rng.standard_normal(5), rng.standard_normal(5)
        dtype = ("float32", "float64")[trial % 2]
        tol = 1e-5 if dtype == "float32" else 1e-12
        for mode in ("backward", "grad", "inputs"):
            ours, log = _run(vg, ops, marks, x0, c0, dtype, mode)
            theirs, tlog = _run(torch, ops, marks, x0, c0, dtype, mode)
            assert log == tlog, (ops, marks, mode)
            assert len(ours) == len(theirs), (ops, marks, mode)
            for a, b in zip(ours, theirs):
                assert (a is None) == (b is None), (ops, marks, mode)
                if a is not None:
                    np.testing.assert_allclose(a, b, rtol=tol, atol=tol,
                                               err_msg=str((ops, marks, mode)))
