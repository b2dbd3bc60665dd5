"""Markdown tables from a results JSON: ``python -m bench.report [bench/results.json]``.

Used to write bench/README.md from a run without copying numbers by hand.
``python -m bench.report --compare BEFORE.json AFTER.json`` prints issue 19's five targets
side by side (median and min–max of the paired per-round ratios, and the gradient check).
"""
from __future__ import annotations

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _t(s):
    if s is None:
        return "—"
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def _ratio(w, key):
    r = w.get("ratios", {}).get(key)
    return "—" if r is None else f"{r['median']:.2f}× ({r['min']:.2f}–{r['max']:.2f})"


def tables(d):
    out = []
    m = d["machine"]
    b = d["blas"]
    tor = d["torch"] if isinstance(d["torch"], dict) else {"version": d["torch"]}
    out.append(f"- date (UTC): {d['date_utc']}; machine: {m['cpu']}, {m['cores']} cores; "
               f"load average at start {tuple(round(x, 2) for x in m['loadavg_at_start'])}, "
               f"at end {tuple(round(x, 2) for x in m.get('loadavg_at_end', ()))}")
    out.append(f"- threads: {d['threads']}; numpy {d['numpy']} with {b.get('blas')} "
               f"`{b.get('config')}`, kernel **{b.get('corename')}**, "
               f"{b.get('num_threads')} thread(s); torch {tor.get('version')} "
               f"({tor.get('num_threads')} thread(s))")
    out.append(f"- {d['rounds']} interleaved rounds per workload unless noted, ≥ "
               f"{d['min_time_s']} s per sample; ratios are medians of per-round ratios "
               "(min–max over rounds in brackets)")
    out.append("")
    out.append("| workload | unit | viewgrad | NumPy | torch | viewgrad/NumPy | "
               "viewgrad/torch |")
    out.append("|---|---|---|---|---|---|---|")
    for name in ("chain", "mlp", "cnn", "inplace"):
        w = d["workloads"].get(name)
        if not w or "engines" not in w:
            continue
        e = w["engines"]

        def med(k):
            return _t(e[k]["median_per_unit_s"]) if k in e else "skipped"
        out.append(f"| {name} | {w.get('unit')} | {med('viewgrad')} | {med('numpy')} | "
                   f"{med('torch')} | {_ratio(w, 'viewgrad/numpy')} | "
                   f"{_ratio(w, 'viewgrad/torch')} |")
    w = d["workloads"].get("scaling")
    if w and "engines" in w:
        out.append("")
        out.append(f"Graph scaling ({w.get('rounds')} rounds), time per node:")
        out.append("")
        out.append("| nodes | viewgrad | torch | viewgrad/torch |")
        out.append("|---|---|---|---|")
        for n in w["config"]["sizes"]:
            k = f"@{n:g}"
            e = w["engines"]
            out.append(f"| {n:,} | {_t(e.get('viewgrad' + k, {}).get('median_per_unit_s'))} | "
                       f"{_t(e.get('torch' + k, {}).get('median_per_unit_s'))} | "
                       f"{_ratio(w, f'viewgrad{k}/torch{k}')} |")
    w = d["workloads"].get("trace")
    if w and "engines" in w:
        out.append("")
        out.append("Tracing, time per op:")
        out.append("")
        out.append("| case | median | ratio |")
        out.append("|---|---|---|")
        pairs = {"on": "on/off", "inplace_on": "inplace_on/inplace_off",
                 "inplace_on_unrelated": "inplace_on_unrelated/inplace_on"}
        for k, v in w["engines"].items():
            out.append(f"| {k} | {_t(v['median_per_unit_s'])} | "
                       f"{_ratio(w, pairs[k]) if k in pairs else ''} |")
    out.append("")
    out.append("Targets:")
    out.append("")
    out.append("| target | value | status |")
    out.append("|---|---|---|")
    for name, w in d["workloads"].items():
        for j in w.get("targets", []):
            if j["status"] == "skipped":
                out.append(f"| {j['target']} | — | skipped: {j.get('why', '')} |")
            else:
                out.append(f"| {j['target']} | {j['value']:.3f} | **{j['status']}** "
                           f"({j['margin_pct']:+.0f}%) |")
    dt = d.get("default_threads")
    if dt and "workloads" in dt:
        out.append("")
        out.append(f"Default threads (separate process; {dt['threads']}; BLAS "
                   f"{dt['blas'].get('num_threads')} threads, torch "
                   f"{dt['torch'].get('num_threads') if isinstance(dt['torch'], dict) else '—'}):")
        out.append("")
        out.append("| workload | viewgrad | NumPy | torch | viewgrad/NumPy | viewgrad/torch |")
        out.append("|---|---|---|---|---|---|")
        for name, w in dt["workloads"].items():
            if "engines" not in w:
                continue
            e = w["engines"]

            def med(k):
                return _t(e[k]["median_per_unit_s"]) if k in e else "skipped"
            out.append(f"| {name} | {med('viewgrad')} | {med('numpy')} | {med('torch')} | "
                       f"{_ratio(w, 'viewgrad/numpy')} | {_ratio(w, 'viewgrad/torch')} |")
    return "\n".join(out)


# issue 19's targets: (label, workload, ratio key, threshold); each met when <= threshold
ISSUE19 = [
    ("tiny-op chain, fwd+bwd per op (200 ops), viewgrad/torch", "chain", "viewgrad/torch", 0.5),
    ("MLP step 256×784-512-512-10, viewgrad/NumPy", "mlp", "viewgrad/numpy", 1.03),
    ("small CNN step x(32,8,28,28), viewgrad/NumPy", "cnn", "viewgrad/numpy", 1.05),
    ("view + in-place loop (256×256), viewgrad/torch", "inplace", "viewgrad/torch", 0.5),
    ("per-node cost growth 1e3 → 1e5 nodes, relative to NumPy", "scaling",
     "(viewgrad@100000/numpy@100000)/(viewgrad@1000/numpy@1000)", 1.2),
]


def compare(before, after):
    """Markdown table: each issue-19 target before and after, and the torch grad check."""
    out = ["| workload | target | before | after | met after? | grads vs torch max\\|Δ\\| (after) |",
           "|---|---|---|---|---|---|"]
    for label, name, key, thr in ISSUE19:
        cells = []
        for d in (before, after):
            r = d["workloads"].get(name, {}).get("ratios", {}).get(key)
            cells.append(r)
        a = cells[1]
        met = "—" if a is None else ("**met**" if a["median"] <= thr else "**missed**")
        chk = after["workloads"].get(name, {}).get("check", {}).get(
            "viewgrad-torch grads max|Δ|")
        out.append(f"| {label} | ≤ {thr:g}× | "
                   + " | ".join("—" if r is None else
                                f"{r['median']:.2f}× ({r['min']:.2f}–{r['max']:.2f})"
                                for r in cells)
                   + f" | {met} | {'—' if chk is None else f'{chk:.2g}'} |")
    return "\n".join(out)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--compare"]:
        with open(argv[1]) as f, open(argv[2]) as g:
            print(compare(json.load(f), json.load(g)))
        return 0
    path = argv[0] if argv else os.path.join(ROOT, "bench", "results.json")
    with open(path) as f:
        print(tables(json.load(f)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
