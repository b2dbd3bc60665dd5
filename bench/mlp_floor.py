"""The floor of issue 19's MLP target: how close to hand-written NumPy can *any* autograd
in Python get on that step?

A deliberately minimal engine, written for this one measurement (not for use): a Python
object per node with ``__slots__``, ``(node, nr)`` edges, sequence numbers and a ready
heap, version checks on what is saved, AccumulateGrad stealing an unshared gradient, a
transposed-weight node as ``F.linear``'s graph has. No hooks, no views, no dtype or
device checks, no blame marks, no SavedTensor objects, cross-entropy's gradient made in
its forward. It runs the benchmark's MLP step (batch 256, 784-512-512-10, ReLU,
cross-entropy, SGD) alternating with ``bench.workloads.mlp_step_numpy``, and prints the
two medians and their ratio, per phase with ``--phases``.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONPATH=. .venv/bin/python -m bench.mlp_floor

Its result is in bench/README.md (eleventh and twelfth passes): the engine's own Python
around the same kernels is the whole difference.
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse    # noqa: E402
import gc          # noqa: E402
import heapq       # noqa: E402
import itertools   # noqa: E402
import sys         # noqa: E402
import time        # noqa: E402
import weakref     # noqa: E402

import numpy as np  # noqa: E402

from bench.workloads import _np_ce_forward_backward, mlp_data, mlp_step_numpy  # noqa: E402

_seq = itertools.count()


class Counter:
    __slots__ = ("v",)

    def __init__(self):
        self.v = 0


class T:
    __slots__ = ("data", "fn", "grad", "rg", "vc", "acc")

    def __init__(self, data, fn=None, rg=False):
        self.data, self.fn, self.grad, self.rg = data, fn, None, rg
        self.vc, self.acc = Counter(), None


class Node:
    __slots__ = ("next", "seq", "saved", "__weakref__")


class Acc(Node):
    __slots__ = ("var",)

    def __init__(self, var):
        self.var, self.next, self.seq = var, (), 1 << 64

    def apply(self, g):
        a = g[0]
        if self.var.grad is None and sys.getrefcount(a) <= 3 and a.flags.c_contiguous:
            self.var.grad = T(a)   # stolen
        else:
            self.var.grad = T(self.var.grad.data + a)
        return ()


class TNode(Node):
    __slots__ = ()

    def apply(self, g):
        return (g[0].T,)


class Addmm(Node):
    __slots__ = ()

    def apply(self, g):
        g = g[0]
        x, xv, xvc, w, wv, wvc = self.saved
        if xvc.v != xv or wvc.v != wv:
            raise RuntimeError("modified by an inplace operation")
        return (g.sum(0), g @ w.T if self.next[1] is not None else None, (g.T @ x).T)


class Relu(Node):
    __slots__ = ()

    def apply(self, g):
        g = g[0]
        r, rv, rvc = self.saved
        if rvc.v != rv:
            raise RuntimeError("modified by an inplace operation")
        np.multiply(g, r > 0, out=g)
        return (g,)


class CE(Node):
    __slots__ = ()

    def apply(self, g):
        return (self.saved * g[0],)


def edge(t):
    if t.fn is not None:
        return (t.fn, 0)
    if not t.rg:
        return None
    a = t.acc() if t.acc is not None else None
    if a is None:
        a = Acc(t)
        t.acc = weakref.ref(a)
    return (a, 0)


def linear(x, w, b):
    wt = T(w.data.T)
    ew = edge(w)
    if ew is not None:
        tn = TNode()
        tn.next, tn.seq = (ew,), next(_seq)
        wt.fn, ew = tn, (tn, 0)
    out = x.data @ wt.data
    out += b.data
    n = Addmm()
    n.next, n.seq = (edge(b), edge(x), ew), next(_seq)
    n.saved = (x.data, x.vc.v, x.vc, wt.data, wt.vc.v, wt.vc)
    return T(out, n, True)


def relu(x):
    r = np.maximum(x.data, 0)
    n = Relu()
    n.next, n.seq = (edge(x),), next(_seq)
    o = T(r, n, True)
    n.saved = (r, 0, o.vc)
    return o


def cross_entropy(z, y):
    loss, dz = _np_ce_forward_backward(z.data.copy(), y)
    n = CE()
    n.next, n.seq, n.saved = (edge(z),), next(_seq), dz
    return T(np.array(loss, np.float32), n, True)


def backward(loss):
    root = loss.fn
    deps, stack, seen = {}, [root], {root}
    while stack:
        for e in stack.pop().next:
            if e is not None:
                f = e[0]
                deps[f] = deps.get(f, 0) + 1
                if f not in seen:
                    seen.add(f)
                    stack.append(f)
    heap, buffers = [(-root.seq, root, [np.ones((), np.float32)])], {}
    while heap:
        _, node, ins = heapq.heappop(heap)
        outs = node.apply(ins)
        node.saved = ins = None
        for e, g in zip(node.next, outs):
            if e is None:
                continue
            f = e[0]
            buf = buffers.get(f)
            if buf is None:
                buffers[f] = [g]
            else:
                buf[0] = buf[0] + g
            g = None
            deps[f] -= 1
            if deps[f] == 0:
                heapq.heappush(heap, (-f.seq, f, buffers.pop(f)))
        outs = None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=300, help="steps of each (alternating)")
    ap.add_argument("--phases", action="store_true", help="time each phase of the step")
    args = ap.parse_args(argv)
    cfg = {"sizes": (784, 512, 512, 10), "batch": 256, "lr": 1e-3}
    P, X, y = mlp_data(cfg)
    fP, fX, nP = [T(p.copy(), rg=True) for p in P], T(X), [p.copy() for p in P]
    W1n, b1n, W2n, b2n, W3n, b3n = nP
    lr = cfg["lr"]
    clock = time.perf_counter

    def floor_step():
        W1, b1, W2, b2, W3, b3 = fP
        t = [clock()]
        h = linear(fX, W1, b1)
        t.append(clock())
        h = relu(h)
        h = linear(h, W2, b2)
        h = relu(h)
        z = linear(h, W3, b3)
        loss = cross_entropy(z, y)
        t.append(clock())
        backward(loss)
        t.append(clock())
        for p in fP:   # the hand-written update, so only the graph's cost differs
            g = p.grad.data
            g *= lr
            p.data -= g
            p.vc.v += 1
        for p in fP:
            p.grad = None
        t.append(clock())
        return np.diff(t)

    def numpy_step():
        t0 = clock()
        mlp_step_numpy(nP, X, y, lr)
        return clock() - t0

    for _ in range(5):
        floor_step()
        numpy_step()
    A, B = [], []
    gc.collect()
    gc.disable()
    try:
        for r in range(args.steps):
            if r % 2:
                A.append(floor_step())
                B.append(numpy_step())
            else:
                B.append(numpy_step())
                A.append(floor_step())
    finally:
        gc.enable()
    A, B = np.array(A), np.array(B)
    total = A.sum(1)
    print(f"floor {np.median(total) * 1e3:.3f} ms   numpy {np.median(B) * 1e3:.3f} ms   "
          f"median ratio {np.median(total / B):.4f}   ({args.steps} steps each, alternating)")
    if args.phases:
        for name, col in zip(("first linear", "rest of forward", "backward", "update"),
                             np.median(A, 0) * 1e3):
            print(f"  {name:16s} {col:.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
