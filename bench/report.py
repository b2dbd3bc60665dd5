"""Markdown tables from a results JSON: ``python -m bench.report [bench/results.json]``.

Used to write bench/README.md from a run without copying numbers by hand.
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


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    path = argv[0] if argv else os.path.join(ROOT, "bench", "results.json")
    with open(path) as f:
        print(tables(json.load(f)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
