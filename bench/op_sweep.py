"""Common ops of a user's own small model, one at a time, against PyTorch eager.

Each case is a chain of ``--n`` calls of one op (or a short idiom: ``y.view(8, 4).view(4,
8)``) on a float32 (4, 8) tensor, forward and a backward through all of it, the way a
user's code calls it. viewgrad and torch run in one process, one thread, alternating,
``--rounds`` rounds; the ratio viewgrad / torch is taken inside each round and the median
reported (bench/README.md, "How it measures"). The targets of issue 19 are elsewhere
(``python -m bench``); this sweep shows how the ops around them fare, and is how the
fifteenth and sixteenth passes found the slow ones.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONPATH=. .venv/bin/python -m bench.op_sweep

Without torch it prints viewgrad's times alone.
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse    # noqa: E402
import gc          # noqa: E402
import time        # noqa: E402

import numpy as np  # noqa: E402

import viewgrad as vg  # noqa: E402

# name -> f(lib, F, y): one step of the chain (lib: viewgrad or torch; F: its functional)
CASES = {
    "y.view(8, 4).view(4, 8)": lambda L, F, y: y.view(8, 4).view(4, 8),
    "y.reshape(32).reshape(4, 8)": lambda L, F, y: y.reshape(32).reshape(4, 8),
    "y.transpose(0, 1) twice": lambda L, F, y: y.transpose(0, 1).transpose(0, 1),
    "y.unsqueeze(0).squeeze(0)": lambda L, F, y: y.unsqueeze(0).squeeze(0),
    "y.t().t()": lambda L, F, y: y.t().t(),
    "y.sum(1, keepdim=True) * 0.1 + y": lambda L, F, y: y.sum(1, keepdim=True) * 0.1 + y,
    "y - y.mean(-1, keepdim=True)": lambda L, F, y: y - y.mean(-1, keepdim=True),
    "y.softmax(-1)": lambda L, F, y: y.softmax(-1),
    "F.log_softmax(y, 1)": lambda L, F, y: F.log_softmax(y, 1),
    "F.leaky_relu(y, 0.1)": lambda L, F, y: F.leaky_relu(y, 0.1),
    "y.clamp(-1, 1)": lambda L, F, y: y.clamp(-1, 1),
    "F.silu(y)": lambda L, F, y: F.silu(y),
    "F.gelu(y)": lambda L, F, y: F.gelu(y),
    "y.sin()": lambda L, F, y: y.sin(),
    "y * y * 0.5": lambda L, F, y: y * y * 0.5,
    "y + y.sin()": lambda L, F, y: (y + y.sin()) * 0.5,
    "(y @ y.t()) @ y * 0.1": lambda L, F, y: (y @ y.t()) @ y * 0.1,
    "cat([y[:, :4], y[:, 4:]], 1)": lambda L, F, y: L.cat([y[:, :4], y[:, 4:]], 1),
    "y[:, ::1]": lambda L, F, y: y[:, ::1],
}


def _chain(L, F, f, x, n):
    y = x
    for _ in range(n):
        y = f(L, F, y)
    y.sum().backward()


def _time(fn, min_s=0.05):
    reps, t = 0, 0.0
    start = time.perf_counter()
    while t < min_s:
        fn()
        reps += 1
        t = time.perf_counter() - start
    return t / reps


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=50, help="calls per chain (default 50)")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    ap.add_argument("--only", default="", help="cases whose name contains this text")
    args = ap.parse_args(argv)
    try:
        import torch
        torch.set_num_threads(1)
        import torch.nn.functional as TF
    except ImportError:
        torch = TF = None
    VF = vg.nn.functional
    data = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32) * 0.5
    print(f"{'case':36s} {'viewgrad':>10s} {'torch':>10s} {'ratio':>7s}   (µs per call, "
          f"fwd + bwd; {args.n} calls a chain)")
    gc.collect()
    gc.disable()
    try:
        for name, f in CASES.items():
            if args.only not in name:
                continue
            vx = vg.tensor(data, requires_grad=True)
            tx = None if torch is None else torch.tensor(data, requires_grad=True)
            A, B, R = [], [], []
            for r in range(args.rounds):
                a = _time(lambda: _chain(vg, VF, f, vx, args.n)) / args.n * 1e6
                A.append(a)
                if tx is not None:
                    b = _time(lambda: _chain(torch, TF, f, tx, args.n)) / args.n * 1e6
                    B.append(b)
                    R.append(a / b)
            ta = f"{np.median(B):10.1f}" if B else f"{'-':>10s}"
            ra = f"{np.median(R):7.2f}" if R else f"{'-':>7s}"
            print(f"{name:36s} {np.median(A):10.1f} {ta} {ra}")
    finally:
        gc.enable()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
