"""GPU section of the benchmarks (issue 8): MLP and CNN training steps on cuda vs cpu.

    PYTHONPATH=. python bench/gpu_bench.py [--quick] [--rounds 7] [--json out.json]
    PYTHONPATH=. python bench/gpu_bench.py --vs strict --quick   # exercise the code path
                                                                 # without a GPU

It runs only when CuPy and a GPU are usable; elsewhere it prints why and exits 0. The
same viewgrad code runs on both devices — only the device given to the factories changes
(DESIGN §10) — so the numbers compare numpy against CuPy under one autograd engine.

For the main runner (bench/run.py) this module exposes:

  * ``gpu_reason()``            None when cuda works here, else why not (a skip reason);
  * ``mlp_step(device, ...)``   set up once, return ``step()``: one MLP training step
                                (linear/ReLU x2, linear, cross-entropy, backward, SGD);
  * ``cnn_step(device, ...)``   the same for a small CNN (conv3x3-ReLU x2, global mean,
                                linear, cross-entropy, SGD); needs ``viewgrad.nn``;
  * ``CONFIGS`` / ``QUICK``     workload sizes; ``run(...)`` the whole comparison as a
                                JSON-ready dict.

Every ``step()`` ends with ``synchronize(device)``: CuPy launches kernels asynchronously, so
a step is only finished (and fairly timed) once the device has drained its queue.
Timings are interleaved round by round (cpu, then the device) so that both see the same
machine load, and the median per-round ratio cpu/device is the speed-up.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

if __package__ in (None, ""):          # `python bench/gpu_bench.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import viewgrad as vg  # noqa: E402
from viewgrad import backend as B  # noqa: E402
from viewgrad.ops import nnops  # noqa: E402

__all__ = ["gpu_reason", "synchronize", "mlp_step", "cnn_step", "run", "CONFIGS", "QUICK"]

CONFIGS = {
    "mlp": {"batch": 512, "sizes": (784, 1024, 1024, 10), "lr": 1e-3},
    "cnn": {"batch": 64, "hw": 32, "chans": (3, 32, 64), "classes": 10, "lr": 1e-3},
}
QUICK = {
    "mlp": {"batch": 32, "sizes": (64, 32, 32, 10), "lr": 1e-3},
    "cnn": {"batch": 4, "hw": 8, "chans": (3, 4, 8), "classes": 5, "lr": 1e-3},
}


def gpu_reason():
    """None when device 'cuda' (CuPy + a GPU) is usable here, else the reason it is not."""
    return B.cuda_unavailable_reason()


def synchronize(device):
    """Wait for the device's queued work (a no-op on host devices)."""
    B.synchronize(device)


def _params(shapes, device, seed):
    vg.manual_seed(seed)
    out = []
    for shape in shapes:
        fan_in = 1
        for s in shape[1:]:
            fan_in *= s
        w = vg.randn(*shape, device=device) * (2.0 / max(fan_in, 1)) ** 0.5
        out.append(w.detach().requires_grad_())
    return out


def _sgd(params, lr):
    with vg.no_grad():
        for p in params:
            p.sub_(p.grad * lr)
            p.grad = None


def mlp_step(device="cpu", batch=256, sizes=(784, 512, 512, 10), lr=1e-3, seed=0):
    """Set up an MLP once on ``device``; return ``step()`` -> loss (a 0-d tensor)."""
    shapes = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        shapes += [(b, a), (b,)]
    params = _params(shapes, device, seed)
    vg.manual_seed(seed + 1)
    x = vg.randn(batch, sizes[0], device=device)
    y = vg.randint(0, sizes[-1], (batch,), device=device)

    def step():
        h = x
        n = len(params) // 2
        for i in range(n):
            h = nnops.linear(h, params[2 * i], params[2 * i + 1])
            if i < n - 1:
                h = h.relu()
        loss = nnops.cross_entropy(h, y)
        loss.backward()
        _sgd(params, lr)
        synchronize(device)
        return loss
    return step


def _conv2d():
    try:
        from viewgrad.nn.functional import conv2d
        return conv2d, None
    except ImportError as e:
        return None, f"viewgrad.nn.functional.conv2d is not available ({e})"


def cnn_step(device="cpu", batch=32, hw=16, chans=(3, 32, 64), classes=10, lr=1e-3, seed=0):
    """Set up a small CNN once on ``device``; return ``step()`` -> loss. Raises
    RuntimeError when ``viewgrad.nn`` (conv2d) is not there."""
    conv2d, why = _conv2d()
    if conv2d is None:
        raise RuntimeError(why)
    cin, c1, c2 = chans
    params = _params([(c1, cin, 3, 3), (c1,), (c2, c1, 3, 3), (c2,), (classes, c2),
                      (classes,)], device, seed)
    vg.manual_seed(seed + 1)
    x = vg.randn(batch, cin, hw, hw, device=device)
    y = vg.randint(0, classes, (batch,), device=device)

    def step():
        w1, b1, w2, b2, w3, b3 = params
        h = conv2d(x, w1, b1, padding=1).relu()
        h = conv2d(h, w2, b2, padding=1).relu()
        h = h.mean((2, 3))
        loss = nnops.cross_entropy(nnops.linear(h, w3, b3), y)
        loss.backward()
        _sgd(params, lr)
        synchronize(device)
        return loss
    return step


def _time(fn, number):
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number


def _compare(name, make, cfg, devices, rounds, number, log):
    steps = {}
    for d in devices:
        steps[d] = make(d, **cfg)
    losses = {d: float(steps[d]().item()) for d in devices}    # warm-up (and a check)
    times = {d: [] for d in devices}
    ratios = []
    for r in range(rounds):
        for d in devices:
            times[d].append(_time(steps[d], number))
        ratios.append(times[devices[0]][-1] / times[devices[1]][-1])
        if log:
            log(f"  {name} round {r + 1}/{rounds}: " + ", ".join(
                f"{d} {times[d][-1] * 1e3:.2f} ms" for d in devices))
    return {
        "config": {k: list(v) if isinstance(v, tuple) else v for k, v in cfg.items()},
        "first_loss": losses,
        "median_step_s": {d: statistics.median(times[d]) for d in devices},
        "median_ratio": statistics.median(ratios),
        "note": f"median per-round ratio {devices[0]} time / {devices[1]} time "
                "(>1: the device is faster)",
    }


def run(quick=False, rounds=None, number=None, vs="cuda", only=("mlp", "cnn"), log=print):
    """Time MLP and CNN steps on cpu and on ``vs`` (cuda; 'strict' to test the code path).
    Returns a JSON-ready dict; ``{"skipped": reason}`` when ``vs`` is not usable here."""
    why = gpu_reason() if vs == "cuda" else None
    if why is None:
        try:
            B.device(vs)
        except RuntimeError as e:
            why = str(e)
    if why is not None:
        return {"skipped": f"no {vs} device: {why}"}
    cfgs = QUICK if quick else CONFIGS
    rounds = rounds or (3 if quick else 7)
    number = number or (1 if quick else 3)
    out = {"devices": ["cpu", vs], "rounds": rounds, "steps_per_sample": number,
           "workloads": {}}
    makers = {"mlp": mlp_step, "cnn": cnn_step}
    for name in only:
        try:
            res = _compare(name, makers[name], cfgs[name], ["cpu", vs], rounds, number, log)
        except RuntimeError as e:
            res = {"skipped": str(e)}
        if "median_ratio" in res:
            res[f"speedup_{vs}_vs_cpu"] = res.pop("median_ratio")
        out["workloads"][name] = res
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description="MLP and CNN training steps: cuda vs cpu")
    p.add_argument("--quick", action="store_true", help="tiny sizes, 3 rounds")
    p.add_argument("--rounds", type=int, default=None)
    p.add_argument("--number", type=int, default=None, help="steps per timed sample")
    p.add_argument("--vs", default="cuda", help="device to compare with cpu (default cuda;"
                   " 'strict' runs the code path without a GPU, its timings mean nothing)")
    p.add_argument("--only", default="mlp,cnn")
    p.add_argument("--json", default=None, help="write the results here")
    a = p.parse_args(argv)
    res = run(a.quick, a.rounds, a.number, a.vs, tuple(a.only.split(",")))
    if "skipped" in res:
        print(f"GPU benchmark skipped: {res['skipped']}")
    else:
        for name, r in res["workloads"].items():
            if "skipped" in r:
                print(f"{name}: skipped ({r['skipped']})")
                continue
            ms = ", ".join(f"{d} {t * 1e3:.2f} ms" for d, t in r["median_step_s"].items())
            print(f"{name}: {ms}; {a.vs} speed-up x{r[f'speedup_{a.vs}_vs_cpu']:.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
