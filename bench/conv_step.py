"""Benchmark: one training step of a small conv net (conv-bn-relu-pool x2, linear) in
viewgrad — forward, cross-entropy, backward, Adam step — timed phase by phase.

    PYTHONPATH=. python bench/conv_step.py [--batch 32] [--size 16] [--repeat 20]
                                           [--device cpu|cuda] [--threads N] [--torch]

``conv_step_workload(...)`` builds the model, data and optimizer once and returns a
zero-argument ``step()`` that runs one training step (for the shared bench runner to time).
``--torch`` also times the same network in PyTorch (if installed) for scale.
``--threads N`` caps the BLAS threads (numpy's and torch's) before numpy is imported: on a
busy machine a multithreaded BLAS waits for cores and small matrix products get 10-20x
slower, so pin it to compare numbers. Numbers and
the machine they were taken on go in bench/README_conv.md; nothing here is a test.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


def _early_threads(argv):
    """--threads must act before numpy (imported by viewgrad) starts its BLAS."""
    for i, a in enumerate(argv):
        n = a.split("=", 1)[1] if a.startswith("--threads=") else (
            argv[i + 1] if a == "--threads" and i + 1 < len(argv) else None)
        if n is not None:
            for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
                os.environ[var] = n


if __name__ == "__main__":
    _early_threads(sys.argv[1:])

import viewgrad as vg  # noqa: E402
from viewgrad import nn, optim  # noqa: E402


def make_model(channels=(8, 16), size=16, classes=10):
    c1, c2 = channels
    return nn.Sequential(
        nn.Conv2d(1, c1, 3, padding=1), nn.BatchNorm2d(c1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(c1, c2, 3, padding=1), nn.BatchNorm2d(c2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(c2 * (size // 4) ** 2, classes))


def conv_step_workload(batch=32, size=16, channels=(8, 16), device="cpu", dtype="float32",
                       seed=0):
    """Set up once; return ``step()``: one full training step on a fixed random batch.
    ``step.phases()`` runs one step and returns seconds spent in (forward, backward,
    optimizer)."""
    vg.manual_seed(seed)
    model = make_model(channels, size).to(device).to(dtype)
    x = vg.randn(batch, 1, size, size, device=device, dtype=dtype)
    y = vg.randint(0, 10, (batch,), device=device)
    opt = optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    def phases():
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        opt.step()
        _sync(device)
        t3 = time.perf_counter()
        return t1 - t0, t2 - t1, t3 - t2

    step.phases = phases
    step.name = f"conv_step[batch={batch},size={size},channels={channels},{device}]"
    step.items = batch
    return step


def _sync(device):
    if str(device).startswith("cuda"):
        import cupy
        cupy.cuda.Device().synchronize()


def torch_step_workload(batch=32, size=16, channels=(8, 16), seed=0, threads=None):
    """The same network and step in PyTorch (CPU), for scale."""
    import torch
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    tnn = torch.nn
    c1, c2 = channels
    model = tnn.Sequential(
        tnn.Conv2d(1, c1, 3, padding=1), tnn.BatchNorm2d(c1), tnn.ReLU(), tnn.MaxPool2d(2),
        tnn.Conv2d(c1, c2, 3, padding=1), tnn.BatchNorm2d(c2), tnn.ReLU(), tnn.MaxPool2d(2),
        tnn.Flatten(), tnn.Linear(c2 * (size // 4) ** 2, 10))
    x, y = torch.randn(batch, 1, size, size), torch.randint(0, 10, (batch,))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = tnn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def _time(fn, repeat, warmup=3):
    """Wall-clock seconds per call, and this process's CPU seconds per call (the second is
    what to compare on a shared machine: other jobs' load stretches wall time, not it)."""
    for _ in range(warmup):
        fn()
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - t0)
    return wall, cpu


def main(argv=None):
    ap = argparse.ArgumentParser(description="time one conv-net training step")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--size", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=None,
                    help="BLAS threads for numpy and torch (default: their own choice)")
    ap.add_argument("--torch", action="store_true", help="also time PyTorch (CPU)")
    args = ap.parse_args(argv)
    print(f"BLAS threads: {os.environ.get('OPENBLAS_NUM_THREADS', 'default')}; "
          f"viewgrad {vg.__version__}")
    step = conv_step_workload(args.batch, args.size, device=args.device)
    ts, cs = _time(lambda: (step(), _sync(args.device)), args.repeat)
    med, cmed = statistics.median(ts), statistics.median(cs)
    print(f"{step.name}: median {med * 1e3:.1f} ms/step wall (min {min(ts) * 1e3:.1f}, "
          f"max {max(ts) * 1e3:.1f}), {cmed * 1e3:.1f} ms/step CPU, over {args.repeat} "
          f"steps; {args.batch / med:.0f} images/s")
    ph = [step.phases() for _ in range(args.repeat)]
    f, b, o = (statistics.median(p[i] for p in ph) * 1e3 for i in range(3))
    print(f"  phases (median ms): forward+loss {f:.1f}, backward {b:.1f}, optimizer {o:.1f}")
    if args.torch:
        try:
            tstep = torch_step_workload(args.batch, args.size, threads=args.threads)
        except ImportError:
            print("  torch not installed: no comparison")
        else:
            tts, tcs = _time(tstep, args.repeat)
            tmed, tcmed = statistics.median(tts), statistics.median(tcs)
            print(f"  torch (CPU) same step: median {tmed * 1e3:.2f} ms/step wall, "
                  f"{tcmed * 1e3:.2f} ms/step CPU (viewgrad takes {cmed / tcmed:.1f}x the CPU "
                  "time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
