"""Shared by the distribution tests: build the same distribution in torch and viewgrad
from one set of NumPy parameters, run the same calls, and compare values, dtypes,
shapes, errors, and first- and second-order gradients."""
import re

import numpy as np

import viewgrad as vg

_DT = {"f32": ("float32", 2e-4, 1e-5), "f64": ("float64", 1e-6, 1e-9)}


def make(lib, arr, dtype, grad):
    """A tensor of ``lib`` from ``arr`` (``dtype`` 'f32', 'f64' or 'i64')."""
    name = {"f32": "float32", "f64": "float64", "i64": "int64"}[dtype]
    t = lib.tensor(arr, dtype=getattr(lib, name))
    return t.requires_grad_(True) if grad else t


def host(t):
    t = t.detach()
    return t.numpy(force=True) if type(t).__module__.startswith("torch") else t.numpy()


def same_error(a, b):
    """PyTorch's error ``a`` and viewgrad's ``b`` as (type name, message): the same type and
    words; the package's name (torch./viewgrad.) and line wrapping aside, and viewgrad may
    append its own hint after PyTorch's message."""
    norm = lambda s: re.sub(r"\s+", "", s.replace("viewgrad.", "torch."))
    return a[0] == b[0] and norm(b[1]).startswith(norm(a[1]))


def close(got, want):
    """None when viewgrad's array ``got`` matches torch's ``want``, else what differs."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"{got.dtype}{got.shape} vs {want.dtype}{want.shape}"
    if got.dtype == bool or np.issubdtype(got.dtype, np.integer):
        return None if np.array_equal(got, want) else f"{got} vs {want}"
    _, rtol, atol = _DT["f64" if got.dtype == np.float64 else "f32"]
    if not np.array_equal(np.isnan(got), np.isnan(want)):
        return f"nan pattern: {got} vs {want}"
    g, w = got[~np.isnan(got)], want[~np.isnan(want)]
    if not np.array_equal(np.isinf(g), np.isinf(w)) or not np.array_equal(g[np.isinf(g)],
                                                                        w[np.isinf(w)]):
        return f"inf pattern: {got} vs {want}"
    g, w = g[~np.isinf(g)], w[~np.isinf(w)]
    scale = np.maximum(np.abs(w), 1.0) if got.dtype == np.float32 else np.abs(w)
    bad = np.abs(g - w) > atol + rtol * scale
    return f"{g[bad]} vs {w[bad]}" if bad.any() else None


def _grads(lib, y, params, seed, dtype):
    """d(sum(y w))/dparams and d(sum(grads w2))/dparams, w random, non-finite y masked."""
    grad = lib.autograd.grad
    yn = host(y)
    w = make(lib, np.random.RandomState(seed).randn(*yn.shape) * np.isfinite(yn), dtype,
             False)
    g1 = grad((y * w).sum(), params, allow_unused=True, create_graph=True)
    tot = None
    for j, g in enumerate(g1):
        if g is None or not g.requires_grad:
            continue
        gn = host(g)
        w2 = np.random.RandomState(seed + j + 1).randn(*gn.shape) * np.isfinite(gn)
        term = (g * make(lib, w2, dtype, False)).sum()
        tot = term if tot is None else tot + term
    g2 = [None] * len(params) if tot is None else grad(tot, params, allow_unused=True,
                                                      retain_graph=True)
    return [None if g is None else host(g) for g in g1], \
        [None if g is None else host(g) for g in g2]


def run(lib, build, params, calls, dtype, seed):
    """{call name: (value, dtype name, grads1, grads2) or ('error', type, message)}."""
    ts = {}
    for k, (arr, kind, grad) in params.items():
        ts[k] = arr if isinstance(arr, float) else make(lib, arr, "i64" if kind == "i" else
                                                        dtype, grad)
    try:
        d = build(lib, ts)
    except Exception as e:   # noqa: BLE001 - the error itself is compared
        return ("error", type(e).__name__, str(e))
    out = {}
    diff = [t for k, t in ts.items() if not isinstance(t, float) and t.requires_grad]
    for name, call in calls.items():
        try:
            y = call(d, lib, ts)
        except Exception as e:   # noqa: BLE001
            out[name] = ("error", type(e).__name__, str(e))
            continue
        entry = (host(y), str(y.dtype).split(".")[-1])
        if y.requires_grad and diff and y.is_floating_point():
            entry += _grads(lib, y, diff, seed, dtype)
        out[name] = entry
    return out


def compare(build, params, calls, dtype, seed):
    """Differences between torch and viewgrad (an empty list when they agree)."""
    import torch
    want = run(torch, build, params, calls, dtype, seed)
    got = run(vg, build, params, calls, dtype, seed)
    if isinstance(want, tuple) or isinstance(got, tuple):
        ok = isinstance(want, tuple) and isinstance(got, tuple) and same_error(want[1:],
                                                                               got[1:])
        return [] if ok else [("constructor", want, got)]
    fails = []
    for name in calls:
        w, g = want[name], got[name]
        if isinstance(w[0], str) or isinstance(g[0], str):   # ("error", type, message)
            if not (isinstance(w[0], str) and isinstance(g[0], str)
                    and same_error(w[1:], g[1:])):
                fails.append((name, str(w)[:300], str(g)[:300]))
            continue
        if w[1] != g[1] or len(w) != len(g):
            fails.append((name, "dtype or differentiability", w[1], g[1], len(w), len(g)))
            continue
        m = close(g[0], w[0])
        if m:
            fails.append((name, "value", m))
        for order in (2, 3):
            for gw, gg in zip(w[order:order + 1][0] if len(w) > order else [],
                              g[order:order + 1][0] if len(g) > order else []):
                if gw is None or gg is None:
                    z = gw if gg is None else gg
                    if z is not None and np.any(z != 0):
                        fails.append((name, f"grad order {order - 1}: None vs nonzero"))
                    continue
                m = close(gg, gw)
                if m:
                    fails.append((name, f"grad order {order - 1}", m))
    return fails
