"""The benchmark runner of issue 9: ``python -m bench`` (or ``python bench/run.py``).

Times viewgrad against hand-written NumPy (the same math, no graph) and, when installed,
PyTorch CPU eager, in ONE process, engines interleaved round by round (bench/harness.py),
with BLAS and torch pinned to one thread. Prints each engine's median time per unit and the
median of the per-round ratios viewgrad/NumPy and viewgrad/torch, judges each target of
issue 9 (met / missed, by how much), and writes everything to a JSON file.

After the 1-thread run it re-runs the BLAS-heavy workloads (MLP, CNN) in a subprocess with
the default thread settings, reported separately (``default_threads`` in the JSON).

    python -m bench                     # everything (several minutes)
    python -m bench --quick             # small sizes, 3 rounds: < 60 s (smoke test)
    python -m bench --only mlp,cnn --rounds 15 --json /tmp/r.json

Workloads: chain, scaling, mlp, cnn, inplace, trace, render, memory.

Why numpy is not imported at module level: OpenBLAS reads OPENBLAS_NUM_THREADS when it is
loaded, so ``main`` sets the thread variables first and imports the workloads after.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

if __package__ in (None, ""):          # `python bench/run.py`: make `bench` importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import threads  # noqa: E402  (stdlib only)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_JSON = os.path.join(ROOT, "bench", "results.json")
DEFAULT_THREAD_WORKLOADS = ("mlp", "cnn")


class Ctx:
    torch = None
    torch_reason = "torch not installed"


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="small sizes and few rounds (< 60 s); no default-threads pass")
    p.add_argument("--only", default="",
                   help="comma-separated workloads: chain,scaling,mlp,cnn,inplace,trace,"
                        "render,memory")
    p.add_argument("--rounds", type=int, default=None,
                   help="interleaved rounds per workload (default 21, quick 3)")
    p.add_argument("--json", default=DEFAULT_JSON, help="where to write the results")
    p.add_argument("--threads", choices=("1", "default"), default="1",
                   help="1: pin BLAS/OpenMP/torch to one thread (default); default: leave "
                        "the libraries' own thread settings")
    p.add_argument("--no-default-threads", action="store_true",
                   help="skip the separate default-threads pass")
    p.add_argument("--min-time", type=float, default=None,
                   help="seconds per sample (calibrates repetitions; default 0.1, quick "
                        "0.005)")
    p.add_argument("--no-torch", action="store_true", help="do not time PyTorch")
    p.add_argument("-q", "--quiet", action="store_true", help="no per-round lines")
    p.add_argument("--no-gc", dest="gc", action="store_false",
                   help="switch the cyclic garbage collector off while timing, as timeit "
                        "does (default: on, as in a program and in issue 19's figures)")
    p.add_argument("--no-collect", dest="collect", action="store_false",
                   help="no gc.collect() before each sample: collections fall where they "
                        "fall, as in a program (default: a collected heap per sample)")
    return p.parse_args(argv)


def _setup_threads(mode):
    """Pin (or not) before numpy/torch load. Returns a note on how it was done."""
    if mode == "default":
        return "default (library settings)"
    if threads.pin_env(1):
        return "1 (OMP/OPENBLAS/MKL_NUM_THREADS=1 before numpy import, torch.set_num_threads(1))"
    ok = threads.set_blas_threads(1)    # numpy came first (e.g. imported by a test)
    return ("1 (numpy was already imported: OpenBLAS set through its C API)" if ok else
            "UNPINNED (numpy already imported and OpenBLAS API not found)")


def _load_torch(ctx, mode, no_torch):
    if no_torch:
        ctx.torch_reason = "--no-torch"
        return
    try:
        import torch
    except ImportError as e:
        ctx.torch_reason = f"torch not installed ({e})"
        return
    if mode == "1":
        torch.set_num_threads(1)
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:        # already set/used in this process
            pass
    ctx.torch = torch


def machine_info():
    cpu = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    return {"cpu": cpu or platform.processor(), "cores": os.cpu_count(),
            "python": sys.version.split()[0], "platform": platform.platform(),
            "loadavg_at_start": load}


def _fmt_ratio(r):
    return f"{r['median']:.3f}x  (rounds: min {r['min']:.3f}, max {r['max']:.3f})"


def _print_measurement(name, spec, res):
    from bench.harness import fmt_time
    print(f"  {spec.note}")
    for eng, why in spec.skipped.items():
        print(f"  SKIPPED {eng}: {why}")
    for eng, r in res["engines"].items():
        print(f"  {eng:>22}: median {fmt_time(r['median_per_unit_s']):>10} per {spec.unit}"
              f"   (best {fmt_time(r['min_per_unit_s'])}, x{r['number']} per sample)")
    for key, r in res["ratios"].items():
        print(f"  {key:>40} = {_fmt_ratio(r)}")


def judge(label, value, threshold):
    """met if value <= threshold; by how much it is missed or met, in percent."""
    if value is None:
        return {"target": label, "value": None, "threshold": threshold, "status": "skipped"}
    return {"target": label, "value": value, "threshold": threshold,
            "status": "met" if value <= threshold else "missed",
            # margin in percent of the threshold (a 0 threshold: the raw excess)
            "margin_pct": (value / threshold - 1) * 100 if threshold else value}


def _print_judgement(j):
    if j["status"] == "skipped":
        print(f"  TARGET {j['target']}: SKIPPED ({j.get('why', '')})")
    else:
        print(f"  TARGET {j['target']}: {j['value']:.3f} vs {j['threshold']:g} -> "
              f"{j['status'].upper()} ({j['margin_pct']:+.0f}%)")


def run_workload(name, cfg, ctx, rounds, min_time, log):
    from bench import workloads as W
    from bench.harness import measure
    t0 = time.perf_counter()
    out = {"config": cfg, "rounds": rounds}
    judgements = []
    if name == "memory":
        res = W.memory_run(cfg)
        cold = W.memory_run(dict(cfg, warmup=0))
        out.update(res)
        out["no_warmup"] = cold
        print(f"  {cfg['steps']} training steps (MLP {'-'.join(map(str, cfg['sizes']))}, "
              f"batch {cfg['batch']}, a view + in-place op in the forward, SGD with sub_), "
              "gc disabled throughout, tracemalloc")
        for tag, r in (("after a %d-step warm-up" % cfg["warmup"], res),
                       ("from a cold start (CPython free lists still filling)", cold)):
            print(f"  {tag}:")
            print(f"    peak of steps 1-{r['window']}: {r['first_window_peak_bytes'] / 1e3:.1f} kB;"
                  f" of the last {r['window']}: {r['last_window_peak_bytes'] / 1e3:.1f} kB "
                  f"(x{r['ratio_last_first']:.4f})")
            print(f"    live memory after step {r['window']}: "
                  f"{r['current_after_first_window_bytes'] / 1e3:.1f} kB; at the end: "
                  f"{r['current_at_end_bytes'] / 1e3:.1f} kB "
                  f"({r['growth_per_step_bytes']:+.2f} B/step); unreachable objects found by "
                  f"gc.collect() after the loop (reference cycles): "
                  f"{r['gc_unreachable_after_loop']}")
            print(f"    largest one-step rise of live memory: {r['largest_jump_bytes'] / 1e3:.1f} kB "
                  f"at step {r['largest_jump_at_step']}; growth over the second half: "
                  f"{r['growth_second_half_per_step_bytes']:+.2f} B/step")
        judgements.append(judge(f"memory: last-{cfg['window']}-step peak <= 1.01x first-{cfg['window']}-step peak "
                                "(gc disabled, after warm-up)", res["ratio_last_first"], 1.01))
        judgements.append(judge("memory: no reference cycles (objects gc.collect() finds "
                                "after the loop)", res["gc_unreachable_after_loop"], 0))
    elif name == "render":
        res = W.render_run(cfg, repeats=min(rounds, 3))
        out.update(res)
        if "skipped" in res:
            print(f"  SKIPPED render: {res['skipped']}")
        elif "error" in res:
            print(f"  render FAILED: {res['error']}")
        else:
            print(f"  {res['nodes']} graph nodes, renderer {res.get('renderer')}, median of "
                  f"{res['repeats']}: snapshot {res['median_snapshot_s']:.3f} s, draw "
                  f"{res['median_draw_s']:.3f} s, SVG render {res['median_render_s']:.3f} s, "
                  f"total {res['median_total_s']:.3f} s ({res.get('svg_bytes')} bytes)")
    else:
        spec = W.BUILDERS[name](cfg, ctx)
        out["note"] = spec.note
        out["unit"] = spec.unit
        out["skipped"] = spec.skipped
        out["extra"] = spec.extra
        if spec.engines:
            res = measure(spec.engines, rounds, spec.ratios, min_time=min_time, log=log)
            out.update(res)
            _print_measurement(name, spec, res)
        else:
            out.update({"engines": {}, "ratios": {}})
            for eng, why in spec.skipped.items():
                print(f"  SKIPPED {eng}: {why}")
        for label, key, thr in spec.targets:
            r = out["ratios"].get(key)
            j = judge(label, r["median"] if r else None, thr)
            if r is None:
                j["why"] = "; ".join(f"{k}: {v}" for k, v in spec.skipped.items()) or "n/a"
            judgements.append(j)
        if name == "trace":
            judgements.append(_trace_off_judgement(out))
    if name in W.CHECKS and name not in ("trace", "render"):
        # correctness at the measured sizes: viewgrad vs NumPy vs torch (max |Δ| of grads)
        out["check"] = W.CHECKS[name](cfg, ctx)
        print("  check: " + ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k}: {v}"
                                      for k, v in out["check"].items()))
    for j in judgements:
        _print_judgement(j)
    out["targets"] = judgements
    out["elapsed_s"] = time.perf_counter() - t0
    return out


def _trace_off_judgement(out):
    """Tracing off = hook-slot reads per op x cost of one read, over the op's cost."""
    ex = out["extra"]
    off = out["engines"].get("off")
    label = "tracing off: <= 3% cost on the tiny-op chain (hook reads x read cost / op cost)"
    if not off:
        return {"target": label, "value": None, "threshold": 1.03, "status": "skipped",
                "why": "no 'off' measurement"}
    frac = ex["hook_reads_per_op_chain"] * ex["hook_check_s"] / off["median_per_unit_s"]
    print(f"  hook-slot reads per op: chain {ex['hook_reads_per_op_chain']:.2f} "
          f"{ex['hook_reads_chain']}, in-place loop {ex['hook_reads_per_op_inplace']:.2f}; "
          f"one read costs {ex['hook_check_s'] * 1e9:.0f} ns -> tracing off adds "
          f"{frac * 100:.3f}% per op")
    ex["tracing_off_cost_fraction"] = frac
    return judge(label, 1 + frac, 1.03)


def run_default_threads(args, workloads):
    """Re-run the BLAS-heavy workloads in a subprocess with the libraries' default threads
    (a fresh process: OpenBLAS' thread count is fixed at load time)."""
    todo = [w for w in workloads if w in DEFAULT_THREAD_WORKLOADS]
    if not todo:
        return None
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    cmd = [sys.executable, "-m", "bench", "--threads", "default", "--no-default-threads",
           "--only", ",".join(todo), "--json", path]
    cmd += ["--rounds", str(max(5, (args.rounds or 21) // 2))]
    if args.quiet:
        cmd.append("--quiet")
    if not args.gc:
        cmd.append("--no-gc")
    if not args.collect:
        cmd.append("--no-collect")
    print(f"\n=== default-threads pass: {' '.join(cmd[1:])}", flush=True)
    env = threads.unpinned_env()
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    rc = subprocess.call(cmd, cwd=ROOT, env=env)
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        data = {"error": f"default-threads subprocess failed (rc={rc})"}
    finally:
        os.unlink(path)
    return data


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    thread_note = _setup_threads(args.threads)
    import numpy as np
    from bench import workloads as W
    ctx = Ctx()
    _load_torch(ctx, args.threads, args.no_torch)
    from bench import harness
    harness.COLLECTOR["on"] = args.gc
    harness.COLLECTOR["collect"] = args.collect

    sizes = W.QUICK if args.quick else W.FULL
    rounds = args.rounds or (3 if args.quick else 21)
    min_time = args.min_time if args.min_time is not None else (0.005 if args.quick else 0.1)
    names = [s.strip() for s in args.only.split(",") if s.strip()] or list(W.ORDER)
    for n in names:
        if n not in W.ORDER:
            print(f"unknown workload {n!r}; choose from {', '.join(W.ORDER)}", file=sys.stderr)
            return 2

    results = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_info(), "threads": thread_note, "mode": args.threads,
        "gc_on_while_timing": args.gc,
        "gc_collect_before_samples": args.collect,
        "quick": args.quick, "rounds": rounds, "min_time_s": min_time,
        "numpy": np.__version__, "blas": threads.blas_info(),
        "torch": threads.torch_info(ctx.torch) if ctx.torch is not None else ctx.torch_reason,
        "workloads": {},
    }
    b = results["blas"]
    print(f"viewgrad bench  {results['date_utc']}  {results['machine']['cpu']} "
          f"x{results['machine']['cores']}  load {results['machine']['loadavg_at_start']}")
    print(f"threads: {thread_note}")
    print(f"numpy {np.__version__}, BLAS {b.get('blas')} kernel {b.get('corename')} "
          f"threads {b.get('num_threads')}; torch: "
          f"{results['torch'] if isinstance(results['torch'], str) else results['torch']}")
    print(f"rounds {rounds}, >= {min_time}s per sample\n")
    log = None if args.quiet else (lambda s: print(s, flush=True))
    for name in names:
        print(f"=== {name}", flush=True)
        try:
            r = rounds
            if name == "scaling" and not args.rounds and not args.quick:
                r = 7        # one round at 1e5 nodes takes seconds per engine
            results["workloads"][name] = run_workload(name, sizes[name], ctx, r,
                                                      min_time, log)
        except Exception as e:  # report and go on: one broken workload must not hide the rest
            import traceback
            traceback.print_exc()
            results["workloads"][name] = {"error": repr(e)}
            print(f"  ERROR in {name}: {e!r}")
        print(flush=True)

    if args.threads == "1" and not args.quick and not args.no_default_threads:
        results["default_threads"] = run_default_threads(args, names)

    print(f"=== summary (median of per-round ratios; threads: {args.threads})")
    for name, w in results["workloads"].items():
        for j in w.get("targets", []):
            _print_judgement(j)
    dt = results.get("default_threads")
    if dt:
        print("=== summary, default threads (separate process)")
        for name, w in dt.get("workloads", {}).items():
            for j in w.get("targets", []):
                _print_judgement(j)
    results["machine"]["loadavg_at_end"] = os.getloadavg()
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
