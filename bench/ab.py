"""Two versions of viewgrad's functions in one process, step by step: an A/B that runs of
two checkouts, one after the other, cannot resolve.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONPATH=. .venv/bin/python -m bench.ab \\
        --old /tmp/old viewgrad.ops.nn_fast:lean_linear [module:function ...] [--workload mlp]

Why: issue 19's MLP ratio moves from one process to the next (six runs of ``python -m
bench --only mlp`` on one checkout gave 1.033 to 1.054: where the allocator puts the arrays
changes what the caches do), and most changes one tries are worth less than that. Here each named function is taken twice: as this checkout has it (new) and as the same
module's source in the ``--old`` checkout defines it (old; the file is compiled in a copy
of this module's namespace, so the old function's globals are this module's own names).
Steps of the workload then alternate between the two, each paired with a step of the
reference (NumPy for ``mlp``; torch, or NumPy without it, for ``chain`` and ``inplace``),
in one process: the same arrays at the same addresses for both. It prints the median and
mean of the per-pair ratios for old and new, and new's median minus old's.

Without ``--old`` both arms run this checkout's functions: a null A/B, which shows the
tool's own noise: on the MLP step here, new - old within ±0.3% in five of six runs of 300
pairs, and 0.7% once (bench/README.md, twenty-seventh pass): repeat a run before trusting a
difference smaller than 1%.

What is swapped is what is looked up by name when called: ``module:function`` sets the
module's attribute, ``module:Class.method`` the class's. A function another module imported
by name (``from .x import f``) is bound there: name that module's attribute too. A function
that was called once at import time to build something (a closure, a table) is not rebuilt.
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse    # noqa: E402
import gc          # noqa: E402
import importlib   # noqa: E402
import statistics  # noqa: E402
import time        # noqa: E402

import numpy as np  # noqa: E402

from bench import workloads as W  # noqa: E402

__all__ = ["main", "old_functions", "run"]


def _target(name):
    """(holder, attribute) for ``module:function`` or ``module:Class.method``."""
    if ":" not in name:
        raise SystemExit(f"bench.ab: {name!r}: name a function as module:function or "
                         "module:Class.method")
    modname, attr = name.split(":", 1)
    holder = importlib.import_module(modname)
    *owners, attr = attr.split(".")
    for o in owners:
        holder = getattr(holder, o)
    if not hasattr(holder, attr):
        raise SystemExit(f"bench.ab: {modname} has no {'.'.join(owners + [attr])}")
    return holder, attr


def old_functions(names, old_root):
    """{name: (holder, attribute, old, new)}: each named function as this checkout has it
    (new) and as the same module's source under ``old_root`` defines it (old); with
    ``old_root`` None, old is new."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = {}
    for name in names:
        holder, attr = _target(name)
        new = holder.__dict__[attr] if isinstance(holder, type) else getattr(holder, attr)
        old = new
        if old_root is not None:
            mod = importlib.import_module(name.split(":", 1)[0])
            path = os.path.join(os.path.abspath(old_root), os.path.relpath(mod.__file__, here))
            if not os.path.exists(path):
                raise SystemExit(f"bench.ab: no {path} in the old checkout")
            ns = dict(mod.__dict__)
            with open(path, encoding="utf-8") as f:
                exec(compile(f.read(), path, "exec"), ns)   # noqa: S102 - our own source
            found = ns
            for o in name.split(":", 1)[1].split(".")[:-1]:
                found = found[o].__dict__ if isinstance(found, dict) else getattr(found, o)
            if attr not in found:
                raise SystemExit(f"bench.ab: the old checkout's {path} defines no {attr}")
            old = found[attr]
        out[name] = (holder, attr, old, new)
    return out


def _workload(name, small):
    """(viewgrad step, reference step, the reference's name): the benchmark's own engines
    (bench/workloads.py) for that workload, in its quick or full sizes."""
    from bench.run import Ctx, _load_torch
    ctx = Ctx()
    _load_torch(ctx, "1", False)
    cfg = (W.QUICK if small else W.FULL)[name]
    if name == "mlp":
        engines = W._mlp_engines(cfg, ctx)
    elif name == "chain":
        engines = W._chain_engines(ctx, cfg["n_ops"], cfg["width"])
    else:
        engines = W.build_inplace(cfg, ctx).engines
    by_name = {e.name: e.fn for e in engines}
    ref = "numpy" if name == "mlp" or ctx.torch is None else "torch"
    return by_name["viewgrad"], by_name[ref], ref


def run(swaps, workload="mlp", steps=300, small=False):
    """Alternate the old and new functions over ``steps`` pairs of steps; returns
    {"old": [ratios], "new": [ratios], "reference": name}."""
    step, ref, ref_name = _workload(workload, small)

    def use(which):
        for holder, attr, old, new in swaps.values():
            setattr(holder, attr, old if which == "old" else new)

    clock = time.perf_counter

    def timed(f):
        t0 = clock()
        f()
        return clock() - t0

    ratios = {"old": [], "new": []}
    try:
        for which in ("old", "new"):   # warm both ways
            use(which)
            for _ in range(3):
                step()
                ref()
        gc.collect()
        gc.disable()
        try:
            for i in range(steps):
                for which in (("old", "new") if i % 2 else ("new", "old")):
                    use(which)
                    if (i // 2) % 2:
                        a, b = timed(step), timed(ref)
                    else:
                        b, a = timed(ref), timed(step)
                    ratios[which].append(a / b)
        finally:
            gc.enable()
    finally:
        use("new")
    ratios["reference"] = ref_name
    return ratios


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("functions", nargs="+", help="module:function or module:Class.method")
    ap.add_argument("--old", help="the other checkout's root (default: none, a null A/B)")
    ap.add_argument("--workload", choices=("mlp", "chain", "inplace"), default="mlp")
    ap.add_argument("--steps", type=int, default=300, help="pairs of steps per arm")
    ap.add_argument("--small", action="store_true", help="the quick sizes (a smoke run)")
    args = ap.parse_args(argv)
    swaps = old_functions(args.functions, args.old)
    r = run(swaps, args.workload, args.steps, args.small)
    ref = r["reference"]
    med = {}
    for which in ("old", "new"):
        v = r[which]
        med[which] = statistics.median(v)
        print(f"{which}  viewgrad/{ref}  median {med[which]:.4f}  mean {np.mean(v):.4f}  "
              f"({len(v)} pairs)")
    print(f"new - old  {med['new'] - med['old']:+.4f}"
          + ("   (null A/B: both arms this checkout)" if args.old is None else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
