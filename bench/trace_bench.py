"""Benchmark: the cost of tracing in-place ops (and that tracing off costs nothing).

    PYTHONPATH=. python bench/trace_bench.py [--ops N]

A loop of N in-place ops on a view (each adds a CopySlices to a growing history), timed
with tracing off and on. Traced, each op takes two snapshots of up to
``snapshot.EVENT_MAX_NODES`` nodes (nearest the tensors), so the cost per op is bounded
even as the history grows.
"""
import argparse
import time


def loop(n):
    import viewgrad as vg
    a = vg.tensor([1.0] * 16, requires_grad=True)
    b = a.clone()
    v = b[:4]
    for _ in range(n):
        v.mul_(1.0001)
    return b


def trace_workload(n=500):
    import viewgrad as vg
    t = time.perf_counter()
    loop(n)
    off = time.perf_counter() - t
    with vg.trace() as tr:
        t = time.perf_counter()
        loop(n)
        on = time.perf_counter() - t
    return {"ops": n, "off_s": off, "traced_s": on, "events": len(tr.events)}


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ops", type=int, default=500)
    r = trace_workload(p.parse_args().ops)
    print(f"{r['ops']} in-place ops on a view: off {r['off_s'] * 1e3:.0f} ms, traced "
          f"{r['traced_s'] * 1e3:.0f} ms ({r['traced_s'] / r['ops'] * 1e3:.1f} ms per "
          f"event, {r['events']} events)")
