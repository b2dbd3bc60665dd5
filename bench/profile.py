"""cProfile of viewgrad's hot paths: ``python -m bench.profile [chain|mlp|inplace] [-n N]``.

Prints, for the viewgrad side of a workload, the functions with the most *own* time
(tottime) as ``file:function`` with their share of the total, then the heaviest
cumulative entries inside viewgrad. cProfile's per-call overhead inflates small Python
functions relative to NumPy kernels, so read the shares as "where the interpreter goes",
and confirm a suspected fix with ``python -m bench --only ...``.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import threads  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _short(path, func, line=0):
    if path.startswith(ROOT):
        path = os.path.relpath(path, ROOT)
    elif "site-packages" in path:
        path = path.split("site-packages" + os.sep, 1)[1]
    elif path == "~":
        path = "builtin"
    else:
        path = os.path.basename(path)
    if func.startswith("<") and line:     # lambdas and comprehensions: say which one
        return f"{path}:{line}:{func}"
    return f"{path}:{func}"


def profile(fn, reps):
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(reps):
        fn()
    pr.disable()
    return pstats.Stats(pr)


def report(stats, top=20, out=sys.stdout):
    total = stats.total_tt
    rows = []
    for (path, line, func), (cc, nc, tt, ct, callers) in stats.stats.items():
        rows.append((tt, ct, nc, _short(path, func, line)))
    print(f"total {total:.3f} s (profiled)", file=out)
    print(f"{'own %':>6} {'cum %':>6} {'calls':>9}  function", file=out)
    for tt, ct, nc, name in sorted(rows, reverse=True)[:top]:
        print(f"{100 * tt / total:6.1f} {100 * ct / total:6.1f} {nc:9d}  {name}", file=out)
    print("\nheaviest cumulative inside viewgrad/:", file=out)
    vg_rows = [r for r in rows if r[3].startswith("viewgrad" + os.sep)]
    for tt, ct, nc, name in sorted(vg_rows, key=lambda r: -r[1])[:top]:
        print(f"{100 * tt / total:6.1f} {100 * ct / total:6.1f} {nc:9d}  {name}", file=out)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m bench.profile")
    p.add_argument("workload", choices=("chain", "mlp", "inplace"))
    p.add_argument("-n", type=int, default=None, help="repetitions")
    p.add_argument("--top", type=int, default=20)
    a = p.parse_args(argv)
    threads.pin_env(1)
    import viewgrad as vg
    from bench import workloads as W
    if a.workload == "chain":
        cfg = W.FULL["chain"]
        x, c = W._chain_inputs(cfg["width"])
        vx, vc = vg.tensor(x, requires_grad=True), vg.tensor(c)
        ops = W.chain_ops(cfg["n_ops"])
        fn, reps = (lambda: W.chain_autograd(vx, vc, ops)), a.n or 20
    elif a.workload == "mlp":
        cfg = W.FULL["mlp"]
        P, X, y = W.mlp_data(cfg)
        vP, vX, vy = W._vg_params(P), vg.tensor(X), vg.tensor(y)
        fn = lambda: W.mlp_step_autograd(vP, vX, vy, cfg["lr"], W.vg_linear,  # noqa: E731
                                         W.vg_cross_entropy, vg.no_grad)
        reps = a.n or 30
    else:
        cfg = W.FULL["inplace"]
        x, w = W.inplace_data(cfg)
        vx, vw = vg.tensor(x, requires_grad=True), vg.tensor(w, requires_grad=True)
        fn, reps = (lambda: W.inplace_autograd(vx, vw)), a.n or 3
    fn()  # warm caches
    report(profile(fn, reps), a.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
