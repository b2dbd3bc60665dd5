"""The MLP step in a user script's heap layout, with and without the update's scratch buffer.

``python -m bench.heap_layout [on|off]`` (one process per setting: the layout is the
point). NumPy's copies of the parameters are allocated after viewgrad's, as a script that
builds anything after its model does; viewgrad's step and the hand-written NumPy step are
timed in turns (1 thread), and the minor page faults per step are counted. ``off`` turns
Note [a scratch buffer for the scaled update] (viewgrad/ops/inplace.py) off: each
``p.sub_(g, alpha=lr)`` then makes a fresh temporary, which is what made glibc trim the
heap after every update (bench/README.md, sixth pass).
"""
from __future__ import annotations

import gc
import os
import resource
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import threads  # noqa: E402

if not threads.pin_env(1):   # 1 thread: before numpy is imported, else through the library
    threads.set_blas_threads(1)
import viewgrad as vg  # noqa: E402
from viewgrad.ops import inplace  # noqa: E402
from bench.workloads import (FULL, _vg_params, mlp_data, mlp_step_autograd,  # noqa: E402
                             mlp_step_numpy, vg_cross_entropy, vg_linear)


def _faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _time(f, n):
    for _ in range(3):
        f()
    a, t0 = _faults(), time.perf_counter()
    for _ in range(n):
        f()
    return (time.perf_counter() - t0) / n * 1e3, (_faults() - a) / n


def main(argv=None):
    setting = (argv or sys.argv[1:] or ["on"])[0]
    if setting == "off":
        inplace._SCRATCH_MIN = 1 << 62
    P, X, y = mlp_data(FULL["mlp"])
    vP, vX, vy = _vg_params(P), vg.tensor(X), vg.tensor(y)
    nP = [p.copy() for p in P]   # allocated after viewgrad's parameters
    step_vg = lambda: mlp_step_autograd(vP, vX, vy, 1e-3, vg_linear,  # noqa: E731
                                        vg_cross_entropy, vg.no_grad)
    step_np = lambda: mlp_step_numpy(nP, X, y, 1e-3)  # noqa: E731
    gc.collect()
    gc.disable()
    ratios = []
    for _ in range(5):
        (tv, fv), (tn, fn) = _time(step_vg, 15), _time(step_np, 15)
        ratios.append(tv / tn)
    print(f"scratch {setting}: viewgrad {tv:.2f} ms ({fv:.0f} page faults a step), NumPy "
          f"{tn:.2f} ms ({fn:.0f}); viewgrad/NumPy per round "
          + " ".join(f"{r:.3f}" for r in ratios) + f", median {sorted(ratios)[2]:.3f}")


if __name__ == "__main__":
    main()
