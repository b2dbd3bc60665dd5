"""How a graph's representation decides issue 19's growth target once the garbage collector
runs: ``python -m bench.chain_floor [--rounds N]``.

With the collector on (as in a program, and as issue 19 measured), every collection walks
every tracked object that is alive, so a graph costs more per node the larger it is
(bench/README.md, twenty-seventh pass). Three deliberately minimal engines (written for this
measurement only, not for use) run the benchmark's tiny-op chain (``bench.workloads``:
y*1.01, y-1.65, tanh, y*c, sigmoid, exp; forward, then backward by hand from the last
node), each keeping its graph differently:

* ``objects``: a node object per op, its edges in tuples ``((parent, 0),)`` and a
  version-counter object per saved result, as viewgrad keeps its graph today (about 3.5
  tracked objects per node);
* ``slots``: a node object per op, its parent in a slot (1 tracked object per node);
* ``tape``: no object per node: the ops, their saved arrays and their parents in a few
  lists (their elements are NumPy arrays and ints, which the collector does not track),
  a result knowing its tape and its index, as a graph kept as arrays would.

Each is timed at 1,000 and 100,000 nodes beside the hand-written NumPy chain (no graph),
with the collector on, rounds interleaved; printed: per-node times and the growth of each
engine's per-node cost relative to NumPy's (issue 19's target: <= 1.2).
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import gc        # noqa: E402
import time      # noqa: E402

import numpy as np  # noqa: E402

from bench.workloads import _chain_inputs, chain_numpy, chain_ops  # noqa: E402

__all__ = ["ENGINES", "main", "run"]

_S101, _S165 = np.float32(1.01), np.float32(1.65)


def _forward_kernel(op, y, c):
    if op == "muls":
        return y * _S101
    if op == "adds":
        return y - _S165
    if op == "tanh":
        return np.tanh(y)
    if op == "mulc":
        return y * c
    if op == "sigmoid":
        return 1 / (1 + np.exp(-y))
    return np.exp(y)


def _backward_kernel(op, g, s, c):
    if op == "muls":
        return g * _S101
    if op == "adds":
        return g
    if op == "tanh":
        return g * (1 - s * s)
    if op == "mulc":
        return g * c
    if op == "sigmoid":
        return g * (s * (1 - s))
    return g * s


_SAVES = {"tanh", "sigmoid", "exp"}


# -- objects: viewgrad's shape today ---------------------------------------------------

class _Counter:
    __slots__ = ("version",)


class _Node:
    __slots__ = ("op", "next_functions", "saved", "counter")


class _Leaf:
    __slots__ = ("next_functions",)


def _objects(x, c, ops):
    fn = _Leaf()
    fn.next_functions = ()
    y = x
    for op in ops:
        y = _forward_kernel(op, y, c)
        node = _Node()
        node.op = op
        node.next_functions = ((fn, 0),)
        if op in _SAVES:
            node.saved = y
            node.counter = vc = _Counter()
            vc.version = 0
        else:
            node.saved = node.counter = None
        fn = node
    g = np.ones_like(y)
    while type(fn) is _Node:
        if fn.counter is not None and fn.counter.version:
            raise RuntimeError("modified by an inplace operation")
        g = _backward_kernel(fn.op, g, fn.saved, c)
        fn = fn.next_functions[0][0]
    return g


# -- slots: one object per node ----------------------------------------------------------

class _SlotNode:
    __slots__ = ("op", "parent", "saved", "version")


def _slots(x, c, ops):
    fn = None
    y = x
    for op in ops:
        y = _forward_kernel(op, y, c)
        node = _SlotNode()
        node.op = op
        node.parent = fn
        node.saved = y if op in _SAVES else None
        node.version = 0
        fn = node
    g = np.ones_like(y)
    while fn is not None:
        if fn.version:
            raise RuntimeError("modified by an inplace operation")
        g = _backward_kernel(fn.op, g, fn.saved, c)
        fn = fn.parent
    return g


# -- tape: no object per node --------------------------------------------------------------

def _tape(x, c, ops):
    kinds, saved, parents = [], [], []
    last = -1
    y = x
    for op in ops:
        y = _forward_kernel(op, y, c)
        kinds.append(op)
        saved.append(y if op in _SAVES else None)
        parents.append(last)
        last = len(kinds) - 1
    g = np.ones_like(y)
    i = last
    while i >= 0:
        g = _backward_kernel(kinds[i], g, saved[i], c)
        i = parents[i]
    return g


ENGINES = {"objects": _objects, "slots": _slots, "tape": _tape}


def run(sizes=(1_000, 100_000), rounds=5, log=None):
    """{(engine, n): median seconds per node}, NumPy's chain as engine "numpy"."""
    x, c = _chain_inputs(8)
    engines = dict(ENGINES, numpy=chain_numpy)
    times = {}
    clock = time.perf_counter
    for r in range(rounds):
        for n in sizes:
            ops = chain_ops(n)
            reps = max(1, 100_000 // n)
            names = list(engines)
            k = r % len(names)
            for name in names[k:] + names[:k]:
                gc.collect()   # (the collector stays on while timing)
                t0 = clock()
                for _ in range(reps):
                    engines[name](x, c, ops)
                times.setdefault((name, n), []).append((clock() - t0) / reps / n)
        if log:
            log(f"round {r + 1}/{rounds}")
    return {k: float(np.median(v)) for k, v in times.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--small", action="store_true", help="100 and 2,000 nodes (a smoke run)")
    ap.add_argument("--with-torch", action="store_true",
                    help="import torch first, as `python -m bench` does: its objects are "
                         "walked by every full collection too")
    args = ap.parse_args(argv)
    if args.with_torch:
        import torch  # noqa: F401
    print(f"{len(gc.get_objects()):,} tracked objects before the runs", flush=True)
    sizes = (100, 2_000) if args.small else (1_000, 100_000)
    med = run(sizes, args.rounds)
    lo, hi = sizes
    np_growth = med[("numpy", hi)] / med[("numpy", lo)]
    for name in list(ENGINES) + ["numpy"]:
        growth = med[(name, hi)] / med[(name, lo)]
        print(f"{name:8s} {med[(name, lo)] * 1e6:7.3f} us/node at {lo:,}  "
              f"{med[(name, hi)] * 1e6:7.3f} at {hi:,}  growth {growth:.3f}  "
              f"relative to NumPy's {growth / np_growth:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
