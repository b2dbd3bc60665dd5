"""How many objects the cyclic garbage collector tracks per node of a live graph:
``python -m bench.tracked [--small]``.

Issue 19's growth target is about them: with the collector on (a program does not switch
it off), every collection walks every tracked object, and a graph of N nodes with k
tracked objects each makes the per-node cost of a long chain grow with N (the issue's
estimate: 0.5-0.65 us per live tracked object per node at 100,000 nodes; ``python -m
bench`` times the targets with the collector on). For each graph below, built and alive
(before its backward), this counts the tracked objects that were not there before it, per
node (the chain), per row (the view + in-place loop) or per step (the MLP), and names the
commonest types.
"""
from __future__ import annotations

import argparse
import collections
import gc

import viewgrad as vg

from bench import workloads as W

__all__ = ["count", "main"]


def count(build, per):
    """(tracked objects per unit, Counter of their types) that ``build()`` leaves alive
    (its result held), ``per`` units."""
    build()   # (first-time caches, interned names: not the graph's)
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        before = collections.Counter(type(o).__name__ for o in gc.get_objects())
        keep = build()
        # twice: a collection stops tracking a tuple whose items are all untracked, and
        # one pass may look at a tuple before it has untracked the tuples inside it
        gc.collect()
        gc.collect()
        after = collections.Counter(type(o).__name__ for o in gc.get_objects())
    finally:
        if was:
            gc.enable()
    del keep
    new = after - before
    return sum(new.values()) / per, new


def _chain(n):
    x, c = W._chain_inputs(8)
    vx, vc = vg.tensor(x, requires_grad=True), vg.tensor(c)
    ops = W.chain_ops(n)
    return lambda: W.chain_forward(vx, vc, ops)


def _rows(n, width):
    x, w = W.inplace_data({"rows": n, "width": width})
    vx, vw = vg.tensor(x, requires_grad=True), vg.tensor(w, requires_grad=True)
    return lambda: W.inplace_forward(vx, vw)


def _mlp(cfg):
    P, X, y = W.mlp_data(cfg)
    vP, vX, vy = [vg.tensor(p, requires_grad=True) for p in P], vg.tensor(X), vg.tensor(y)

    def build():
        W1, b1, W2, b2, W3, b3 = vP
        h = W.vg_linear(vX, W1, b1).relu()
        h = W.vg_linear(h, W2, b2).relu()
        return W.vg_cross_entropy(W.vg_linear(h, W3, b3), vy)
    return build


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--small", action="store_true", help="small graphs (a smoke run)")
    args = ap.parse_args(argv)
    n, rows = (60, 8) if args.small else (1200, 256)
    cases = [("chain", "node", _chain(n), n), ("inplace", "row", _rows(rows, 8 if args.small
                                                                      else 256), rows),
             ("mlp", "step", _mlp(W.QUICK["mlp"] if args.small else W.FULL["mlp"]), 1)]
    for name, unit, build, per in cases:
        k, types = count(build, per)
        top = ", ".join(f"{t} {c / per:.2f}" for t, c in types.most_common(6))
        print(f"{name:8s} {k:7.2f} tracked objects per {unit}   ({top})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
