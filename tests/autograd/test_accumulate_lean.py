"""Note [the first gradient of a step, kept] (autograd/accumulate.py): AccumulateGrad's
short way for a leaf's first gradient of a plain backward does what ``accumulate`` does.
Each program runs both ways (``set_lean_accumulate(False)``) and every leaf's ``.grad``
is compared — bits, strides, whether it shares memory with another leaf's ``.grad`` or
with the user's tensors — with each AccumulateGrad's ``last_action``."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.autograd import accumulate


def _leaves(dtype):
    rng = np.random.default_rng(1)
    a = vg.tensor(rng.standard_normal((3, 4)), dtype=dtype, requires_grad=True)
    b = vg.tensor(rng.standard_normal((3, 4)), dtype=dtype, requires_grad=True)
    w = vg.tensor(rng.standard_normal((4, 4)), dtype=dtype, requires_grad=True)
    c = vg.tensor(rng.standard_normal(4), dtype=dtype, requires_grad=True)
    return a, b, w, c


PROGRAMS = {
    "linear": lambda a, b, w, c: vg.nn.functional.linear(a, w, c).sum(),
    "mm": lambda a, b, w, c: (a @ w.t()).relu().sum(),
    "shared_add": lambda a, b, w, c: (a + b).sum(),           # one gradient, two leaves
    "mul": lambda a, b, w, c: (a * b).sum(),
    "broadcast": lambda a, b, w, c: (a * c).sum(),            # an expanded (read-only) grad
    "expand": lambda a, b, w, c: c.expand(3, 4).sum(),
    "transposed_leaf": lambda a, b, w, c: (a.t() * 2.0).sum(),
    "cast": lambda a, b, w, c: (a.float() * b.float()).sum(),
    "existing": lambda a, b, w, c: _with_grad(a, (a * b).sum()),
    "leaf_hook": lambda a, b, w, c: _hooked(a, (a * b).sum()),
    "post_acc_hook": lambda a, b, w, c: _post_hooked(a, (a * b).sum()),
    "view_of_leaf": lambda a, b, w, c: (a[1:] * 3.0).sum() + (b * 2.0).sum(),
}


def _with_grad(a, loss):
    a.grad = vg.ones_like(a)
    return loss


def _hooked(a, loss):
    a.register_hook(lambda g: g * 2.0)
    return loss


def _post_hooked(a, loss):
    a.register_post_accumulate_grad_hook(lambda p: None)
    return loss


def _run(lean, name, dtype):
    prev = accumulate.set_lean_accumulate(lean)
    try:
        leaves = _leaves(dtype)
        loss = PROGRAMS[name](*leaves)
        accs = [accumulate.grad_accumulator(t) for t in leaves]
        loss.backward()
        out = []
        for i, (t, acc) in enumerate(zip(leaves, accs)):
            g = t.grad
            if g is None:
                out.append(None)
                continue
            arr = g.detach().cpu().numpy()
            shares = [j for j, u in enumerate(leaves) if j != i and u.grad is not None
                      and np.shares_memory(arr, u.grad.detach().cpu().numpy())]
            out.append((arr.dtype.str, arr.shape, arr.tobytes(), g.stride(), shares,
                        g._version, g.grad_fn is None, acc.last_action))
        return out
    finally:
        accumulate.set_lean_accumulate(prev)


@pytest.mark.parametrize("dtype", [vg.float32, vg.float64])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_lean_accumulate_is_accumulate(name, dtype):
    assert _run(True, name, dtype) == _run(False, name, dtype)


@pytest.mark.host_only("Note [the first gradient of a step, kept] is for host arrays")
def test_lean_accumulate_keeps_the_very_array(monkeypatch):
    seen = []
    real = accumulate.AccumulateGrad._accumulate_from
    monkeypatch.setattr(accumulate.AccumulateGrad, "_accumulate_from",
                        lambda self, *a: seen.append(1) or real(self, *a))
    a, b, w, c = _leaves(vg.float32)
    vg.nn.functional.linear(a, w, c).relu().sum().backward()
    assert seen == [] and all(t.grad is not None for t in (a, w, c))
    (a * b).sum().backward()   # a.grad exists now: the teaching path accumulates (b: kept)
    assert len(seen) == 1 and b.grad is not None
