"""The interleaved timer.

Why interleaved: this machine has 2 cores shared with other work, so its speed drifts
from second to second. Timing engine A for a minute and then engine B compares two
different machines. Instead every *round* times each engine once (in a rotating order,
so no engine always runs first after a gc), and the ratio viewgrad/other is taken inside
each round, where both saw the same load; we report the median of those per-round ratios
as well as each engine's median time.

Each sample runs the engine's callable ``number`` times (calibrated once so a sample
lasts at least ``min_time``) with the garbage collector off, like ``timeit``, or on with
``COLLECTOR["on"]`` (what ``python -m bench`` sets, unless ``--no-gc``); a
``gc.collect()`` precedes every sample so no engine pays for another's garbage (unless
``--no-collect``: ``COLLECTOR["collect"]``).
"""
from __future__ import annotations

import gc
import math
import statistics
import time

__all__ = ["Engine", "measure", "fmt_time"]


class Engine:
    """One contender in a measurement: ``fn()`` does one unit of work; ``units`` says how
    many counted things (ops, nodes, rows, steps) one call does, so times are per unit."""

    __slots__ = ("name", "fn", "units")

    def __init__(self, name, fn, units=1):
        self.name = name
        self.fn = fn
        self.units = units


# Whether samples run with the cyclic collector on: a program does not switch it off, and
# a graph of many GC-tracked objects pays for its collections (issue 19 measured its
# targets so; its growth target is about them). ``python -m bench`` turns it on (its
# ``--no-gc`` leaves it off, as timeit does); the harness alone leaves it off.
# ``collect``: a ``gc.collect()`` before every sample (the default), so no engine pays for
# another's garbage; ``python -m bench --no-collect`` leaves the heap as a program's is,
# collections falling where they fall (a harness that never collects measures so).
COLLECTOR = {"on": False, "collect": True}


def _sample(fn, number):
    if COLLECTOR["collect"]:
        gc.collect()
    if not COLLECTOR["on"]:
        gc.disable()
    try:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        t1 = time.perf_counter()
    finally:
        gc.enable()
    return (t1 - t0) / number


def measure(engines, rounds, ratios=(), min_time=0.05, warmup=1, log=None):
    """Time ``engines`` (list of Engine) for ``rounds`` interleaved rounds.

    ``ratios``: pairs (a, b) of engine names; for each, the per-round ratio of per-unit
    times a/b is recorded. A pair of pairs ((a, b), (c, d)) records the per-round ratio of
    ratios (a/b)/(c/d), keyed "(a/b)/(c/d)" (growth of a/b from one size to another, with
    both ratios taken in the same round). Returns a plain dict (JSON-ready)::

        {"engines": {name: {"units", "number", "per_call_s": [...], "median_per_unit_s",
                            "min_per_unit_s"}},
         "ratios": {"a/b": {"per_round": [...], "median": m, "min": .., "max": ..}}}
    """
    numbers = {}
    for e in engines:
        for _ in range(warmup):
            e.fn()
        t = _sample(e.fn, 1)
        numbers[e.name] = max(1, math.ceil(min_time / max(t, 1e-9)))
    samples = {e.name: [] for e in engines}
    for r in range(rounds):
        k = r % len(engines)
        for e in engines[k:] + engines[:k]:
            samples[e.name].append(_sample(e.fn, numbers[e.name]))
        if log:
            log(f"    round {r + 1}/{rounds}: " + "  ".join(
                f"{e.name}={fmt_time(samples[e.name][-1] / e.units)}" for e in engines))
    out = {"engines": {}, "ratios": {}}
    units = {e.name: e.units for e in engines}
    for e in engines:
        per_unit = [s / e.units for s in samples[e.name]]
        out["engines"][e.name] = {
            "units": e.units, "number": numbers[e.name], "per_call_s": samples[e.name],
            "median_per_unit_s": statistics.median(per_unit), "min_per_unit_s": min(per_unit)}
    def per_round_ratio(a, b):
        return [(sa / units[a]) / (sb / units[b]) for sa, sb in zip(samples[a], samples[b])]

    for a, b in ratios:
        if isinstance(a, tuple):
            if any(n not in samples for n in a + b):
                continue
            key = f"({a[0]}/{a[1]})/({b[0]}/{b[1]})"
            per_round = [x / y for x, y in zip(per_round_ratio(*a), per_round_ratio(*b))]
        elif a not in samples or b not in samples:
            continue
        else:
            key = f"{a}/{b}"
            per_round = per_round_ratio(a, b)
        out["ratios"][key] = {"per_round": per_round,
                                     "median": statistics.median(per_round),
                                     "min": min(per_round), "max": max(per_round)}
    return out


def fmt_time(s):
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.2f} µs"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.3f} s"
