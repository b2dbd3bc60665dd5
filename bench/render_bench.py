"""Benchmark: a 2,000-node autograd graph to SVG (DESIGN §8, issue 5: "about a second").

    PYTHONPATH=. python bench/render_bench.py [--nodes N] [--renderer dot|graphviz-pure]

``render_workload(nodes, renderer)`` builds a graph of about ``nodes`` nodes (a chain of
small MLP-like blocks sharing weights, so it is a DAG with fan-in, not a list), snapshots
it, draws all of it (no collapsing) and renders SVG; it returns the timings of each stage.
Timings live here, never in tests.
"""
from __future__ import annotations

import argparse
import resource
import time


def build_graph(nodes=2000):
    import viewgrad as vg
    vg.manual_seed(0)
    w = vg.randn(4, 4, requires_grad=True)
    bias = vg.randn(4, requires_grad=True)
    h = vg.randn(2, 4)
    # each block: mm, add, tanh, mul -> 4 nodes (+ shared leaves)
    for _ in range(max(1, (nodes - 2) // 4)):
        h = (h.mm(w) + bias).tanh() * 0.5
    return h


def render_workload(nodes=2000, renderer=None):
    """Build, snapshot, draw and render a ~``nodes``-node graph; return stage timings (s)."""
    from viewgrad.render.dot import draw
    from viewgrad.render.svg import find_renderer, render_source
    from viewgrad.trace import snapshot
    t0 = time.perf_counter()
    out = build_graph(nodes)
    t1 = time.perf_counter()
    snap = snapshot(out, namespace={"out": out}, max_nodes=nodes + 100)
    t2 = time.perf_counter()
    source = draw(snap, max_nodes=None).source
    t3 = time.perf_counter()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    svg = render_source(source, renderer)
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t4 = time.perf_counter()
    return {"renderer": find_renderer(renderer)[0], "nodes": len(snap.nodes),
            "build_s": t1 - t0, "snapshot_s": t2 - t1, "draw_s": t3 - t2,
            "render_s": t4 - t3, "total_s": t4 - t1, "svg_bytes": len(svg),
            # CPU time of the renderer process: on a busy shared machine wall time lies
            "render_cpu_s": (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nodes", type=int, default=2000)
    p.add_argument("--renderer", default=None)
    p.add_argument("--repeat", type=int, default=3)
    ns = p.parse_args(argv)
    best = None
    for _ in range(ns.repeat):
        r = render_workload(ns.nodes, ns.renderer)
        if best is None or r["total_s"] < best["total_s"]:
            best = r
    print(f"{best['nodes']} nodes with {best['renderer']}: snapshot {best['snapshot_s']:.3f}s, "
          f"draw {best['draw_s']:.3f}s, render {best['render_s']:.3f}s "
          f"(renderer CPU {best['render_cpu_s']:.3f}s), "
          f"total {best['total_s']:.3f}s (best of {ns.repeat}; {best['svg_bytes']} bytes of "
          "SVG)")


if __name__ == "__main__":
    main()
