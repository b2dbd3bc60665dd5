"""The workloads of issues 9 and 19, each as viewgrad, hand-written NumPy and PyTorch code for the
SAME math.

Every workload has

* ``build_NAME(cfg, ctx)`` -> a ``Spec``: the engines to time (harness.Engine), the ratios
  to take per round, and the targets of issue 9 that those ratios are judged against;
* ``check_NAME(cfg, ctx)`` -> a dict of the largest differences between engines (the smoke
  test asserts them small; no timing is ever asserted).

The NumPy versions are the floor for any NumPy engine: forward and backward written by
hand, no graph, no dispatch, in-place where that is what a person tuning NumPy would write.
The viewgrad side only uses the public API (``vg.*``, Tensor methods, ``vg.ops.nnops``);
parts built concurrently by other engineers (``viewgrad.nn.functional.conv2d``,
``vg.trace``, ``bench/render_bench.py``) are imported when present, and the engine is
skipped with the reason printed otherwise.
"""
from __future__ import annotations

import gc
import importlib
import time
import tracemalloc

import numpy as np

import viewgrad as vg
from viewgrad.ops.nnops import cross_entropy as vg_cross_entropy
from viewgrad.ops.nnops import linear as vg_linear

from .harness import Engine

# --------------------------------------------------------------------------------------
# sizes
# --------------------------------------------------------------------------------------

FULL = {
    "chain": {"n_ops": 200, "width": 8},
    "chain_mix": {"n_ops": 200, "width": 8},
    "scaling": {"sizes": (1_000, 10_000, 100_000), "width": 8},
    "mlp": {"batch": 256, "sizes": (784, 512, 512, 10), "lr": 1e-3},
    "mlp_modules": {"batch": 256, "sizes": (784, 512, 512, 10), "lr": 1e-3},
    "cnn": {"batch": 32, "hw": 28, "chans": (8, 16, 16), "classes": 10, "lr": 1e-3},
    "inplace": {"rows": 256, "width": 256},
    "trace": {"n_ops": 1000, "width": 8, "rows": 64, "unrelated": 10_000},
    "render": {"nodes": 2000, "timeout_s": 120},
    "memory": {"steps": 1000, "window": 100, "warmup": 4000, "batch": 64, "sizes": (64, 64, 64, 10)},
}
QUICK = {
    "chain": {"n_ops": 60, "width": 8},
    "chain_mix": {"n_ops": 60, "width": 8},
    "scaling": {"sizes": (100, 1_000, 3_000), "width": 8},
    "mlp": {"batch": 32, "sizes": (64, 32, 32, 10), "lr": 1e-3},
    "mlp_modules": {"batch": 32, "sizes": (64, 32, 32, 10), "lr": 1e-3},
    "cnn": {"batch": 4, "hw": 6, "chans": (3, 4, 8), "classes": 5, "lr": 1e-3},
    "inplace": {"rows": 16, "width": 8},
    "trace": {"n_ops": 60, "width": 8, "rows": 8, "unrelated": 500},
    "render": {"nodes": 200, "timeout_s": 10},
    "memory": {"steps": 200, "window": 50, "warmup": 500, "batch": 16, "sizes": (16, 16, 16, 4)},
}


class Spec:
    """What the runner needs to time one workload."""

    def __init__(self, engines=(), ratios=(), targets=(), skipped=None, unit="call",
                 note="", extra=None):
        self.engines = list(engines)      # [harness.Engine]
        self.ratios = list(ratios)        # [(a, b)] engine names
        self.targets = list(targets)      # [(label, "a/b", threshold)]: met if median <= thr
        self.skipped = dict(skipped or {})  # engine -> reason
        self.unit = unit
        self.note = note
        self.extra = dict(extra or {})


# --------------------------------------------------------------------------------------
# (1) the tiny-op chain, and (2) graph-size scaling on the same chain
# --------------------------------------------------------------------------------------
# Six elementwise ops in turn: y*1.01, y-1.65, tanh, y*c, sigmoid, exp. The forward is
# bounded over any length (exp of a sigmoid lies in (1, e)); the constants put the map's
# fixed point where its slope is about 0.92, so the gradient shrinks only ~0.92x per
# 6 ops instead of underflowing to zero (a vanishing gradient would make the correctness
# check vacuous). What each op saves follows PyTorch: y*s, y+s and y*c (c a constant)
# save nothing; tanh, sigmoid and exp save their result.
CHAIN_OPS = ("muls", "adds", "tanh", "mulc", "sigmoid", "exp")


def chain_ops(n):
    return [CHAIN_OPS[i % len(CHAIN_OPS)] for i in range(n)]


def _chain_inputs(width, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(width).astype(np.float32)
    c = (2.19 + 0.02 * rng.random(width)).astype(np.float32)
    return x, c


def chain_autograd(x, c, ops):
    """Forward + backward of the chain for any torch-like engine (viewgrad or torch)."""
    x.grad = None
    chain_forward(x, c, ops).sum().backward()
    return x.grad


def chain_forward(x, c, ops):
    """The chain's forward for any torch-like engine: its last result."""
    y = x
    for op in ops:
        if op == "muls":
            y = y * 1.01
        elif op == "adds":
            y = y - 1.65
        elif op == "tanh":
            y = y.tanh()
        elif op == "mulc":
            y = y * c
        elif op == "sigmoid":
            y = y.sigmoid()
        else:
            y = y.exp()
    return y


def chain_numpy(x, c, ops):
    """The same forward + backward by hand: keep what each op's derivative needs."""
    saved = []
    y = x
    for op in ops:
        if op == "muls":
            y = y * np.float32(1.01)
            saved.append(None)
        elif op == "adds":
            y = y - np.float32(1.65)
            saved.append(None)
        elif op == "tanh":
            y = np.tanh(y)
            saved.append(y)
        elif op == "mulc":
            y = y * c
            saved.append(None)
        elif op == "sigmoid":
            y = 1 / (1 + np.exp(-y))
            saved.append(y)
        else:
            y = np.exp(y)
            saved.append(y)
    g = np.ones_like(y)
    for op, s in zip(reversed(ops), reversed(saved)):
        if op == "muls":
            g = g * np.float32(1.01)
        elif op == "adds":
            pass
        elif op == "tanh":
            g = g * (1 - s * s)
        elif op == "mulc":
            g = g * c
        elif op == "sigmoid":
            g = g * (s * (1 - s))
        else:
            g = g * s
    return g


def _chain_engines(ctx, n, width, suffix=""):
    x, c = _chain_inputs(width)
    ops = chain_ops(n)
    engs = []
    vx = vg.tensor(x, requires_grad=True)
    vc = vg.tensor(c)
    engs.append(Engine("viewgrad" + suffix, lambda: chain_autograd(vx, vc, ops), n))
    engs.append(Engine("numpy" + suffix, lambda: chain_numpy(x, c, ops), n))
    torch = ctx.torch
    if torch is not None:
        tx = torch.tensor(x, requires_grad=True)
        tc = torch.tensor(c)
        engs.append(Engine("torch" + suffix, lambda: chain_autograd(tx, tc, ops), n))
    return engs


def build_chain(cfg, ctx):
    engs = _chain_engines(ctx, cfg["n_ops"], cfg["width"])
    return Spec(engs, [("viewgrad", "numpy"), ("viewgrad", "torch")],
                targets=[("tiny-op chain: viewgrad <= 0.5x torch per op", "viewgrad/torch",
                          0.5)],
                skipped=_torch_skip(ctx), unit="op",
                note=f"{cfg['n_ops']} ops of {CHAIN_OPS} on float32[{cfg['width']}], "
                     "forward + backward, time per op")


def check_chain(cfg, ctx):
    x, c = _chain_inputs(cfg["width"], seed=1)
    ops = chain_ops(cfg["n_ops"])
    ref = chain_numpy(x, c, ops)
    gv = chain_autograd(vg.tensor(x, requires_grad=True), vg.tensor(c), ops).numpy()
    out = {"viewgrad-numpy": _rel(gv, ref)}
    if ctx.torch is not None:
        t = ctx.torch
        gt = chain_autograd(t.tensor(x, requires_grad=True), t.tensor(c), ops).numpy()
        out["torch-numpy"] = _rel(gt, ref)
        out[MAXABS] = _maxabs(gv, gt)
    return out


def build_scaling(cfg, ctx):
    sizes = cfg["sizes"]
    engs = []
    for n in sizes:
        # NumPy keeps the same saved arrays in a list: its per-node cost also moves with
        # size (allocator, caches), so growth is judged relative to it (issue 19)
        engs += _chain_engines(ctx, n, cfg["width"], suffix=f"@{n:g}")
    lo, hi = f"@{sizes[0]:g}", f"@{sizes[-1]:g}"
    ratios = [(f"viewgrad@{n:g}", f"viewgrad{lo}") for n in sizes[1:]]
    ratios += [(f"torch@{n:g}", f"torch{lo}") for n in sizes[1:]]
    ratios += [(f"numpy@{n:g}", f"numpy{lo}") for n in sizes[1:]]
    ratios += [(f"viewgrad@{n:g}", f"torch@{n:g}") for n in sizes]
    ratios += [(f"viewgrad@{n:g}", f"numpy@{n:g}") for n in sizes]
    ratios += [((f"viewgrad@{n:g}", f"numpy@{n:g}"), (f"viewgrad{lo}", f"numpy{lo}"))
               for n in sizes[1:]]
    ratios += [((f"torch@{n:g}", f"numpy@{n:g}"), (f"torch{lo}", f"numpy{lo}"))
               for n in sizes[1:]]
    growth = f"(viewgrad{hi}/numpy{hi})/(viewgrad{lo}/numpy{lo})"
    return Spec(engs, ratios,
                targets=[(f"graph scaling: viewgrad's per-node cost relative to NumPy at "
                          f"{sizes[-1]:g} nodes <= 1.2x that at {sizes[0]:g}", growth, 1.2)],
                skipped=_torch_skip(ctx), unit="node",
                note="the tiny-op chain with N nodes, forward + backward (+ freeing the "
                     "graph), time per node")


def check_scaling(cfg, ctx):
    # Correctness of the chain at the largest quick size (deep graph: no recursion).
    return check_chain({"n_ops": cfg["sizes"][-1], "width": cfg["width"]}, ctx)


# --------------------------------------------------------------------------------------
# (3) MLP training step
# --------------------------------------------------------------------------------------

def mlp_data(cfg, seed=0):
    rng = np.random.default_rng(seed)
    sizes = cfg["sizes"]
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params.append((rng.standard_normal((fan_out, fan_in)) * np.sqrt(2 / fan_in))
                      .astype(np.float32))
        params.append((rng.standard_normal(fan_out) * 0.01).astype(np.float32))
    X = rng.standard_normal((cfg["batch"], sizes[0])).astype(np.float32)
    y = rng.integers(0, sizes[-1], cfg["batch"]).astype(np.int64)
    return params, X, y


def _np_ce_forward_backward(z, y):
    """Cross-entropy (mean) of logits z (modified in place) and its gradient."""
    n = z.shape[0]
    z -= z.max(1, keepdims=True)
    e = np.exp(z)
    s = e.sum(1, keepdims=True)
    ar = np.arange(n)
    loss = float(np.log(s[:, 0]).mean() - z[ar, y].mean())
    e /= s
    e[ar, y] -= 1
    e /= n
    return loss, e


def mlp_step_numpy(P, X, y, lr, update=True):
    """784-512-512-10 ReLU MLP: forward, cross-entropy, backward, SGD — by hand."""
    W1, b1, W2, b2, W3, b3 = P
    h1 = X @ W1.T
    h1 += b1
    np.maximum(h1, 0, out=h1)
    h2 = h1 @ W2.T
    h2 += b2
    np.maximum(h2, 0, out=h2)
    z = h2 @ W3.T
    z += b3
    loss, dz = _np_ce_forward_backward(z, y)
    gW3 = dz.T @ h2
    gb3 = dz.sum(0)
    dh2 = dz @ W3
    dh2 *= h2 > 0
    gW2 = dh2.T @ h1
    gb2 = dh2.sum(0)
    dh1 = dh2 @ W2
    dh1 *= h1 > 0
    gW1 = dh1.T @ X            # X needs no gradient: no dX
    gb1 = dh1.sum(0)
    grads = (gW1, gb1, gW2, gb2, gW3, gb3)
    if update:
        for p, g in zip(P, grads):
            g *= lr
            p -= g
    return loss, grads


def mlp_step_autograd(P, X, y, lr, linear, cross_entropy, no_grad, update=True):
    """The same step through an autograd engine (viewgrad or torch)."""
    W1, b1, W2, b2, W3, b3 = P
    h = linear(X, W1, b1).relu()
    h = linear(h, W2, b2).relu()
    z = linear(h, W3, b3)
    loss = cross_entropy(z, y)
    loss.backward()
    if update:
        with no_grad():
            for p in P:
                p.sub_(p.grad, alpha=lr)
        for p in P:
            p.grad = None
    return loss


def _vg_params(P):
    return [vg.tensor(p.copy(), requires_grad=True) for p in P]


def _mlp_engines(cfg, ctx):
    P, X, y = mlp_data(cfg)
    lr = cfg["lr"]
    engs = []
    vP, vX, vy = _vg_params(P), vg.tensor(X), vg.tensor(y)
    engs.append(Engine("viewgrad", lambda: mlp_step_autograd(
        vP, vX, vy, lr, vg_linear, vg_cross_entropy, vg.no_grad)))
    nP = [p.copy() for p in P]
    engs.append(Engine("numpy", lambda: mlp_step_numpy(nP, X, y, lr)))
    t = ctx.torch
    if t is not None:
        F = t.nn.functional
        tP = [t.tensor(p.copy(), requires_grad=True) for p in P]
        tX, ty = t.tensor(X), t.tensor(y)
        engs.append(Engine("torch", lambda: mlp_step_autograd(
            tP, tX, ty, lr, F.linear, F.cross_entropy, t.no_grad)))
    return engs


def build_mlp(cfg, ctx):
    s = "-".join(map(str, cfg["sizes"]))
    return Spec(_mlp_engines(cfg, ctx), [("viewgrad", "numpy"), ("viewgrad", "torch"),
                                         ("torch", "numpy")],
                targets=[("MLP step: viewgrad <= 1.03x NumPy", "viewgrad/numpy", 1.03)],
                skipped=_torch_skip(ctx), unit="step",
                note=f"batch {cfg['batch']}, {s}, ReLU, cross-entropy, SGD, float32")


def check_mlp(cfg, ctx):
    P, X, y = mlp_data(cfg, seed=2)
    loss_n, g_n = mlp_step_numpy([p.copy() for p in P], X, y, 0.0, update=False)
    vP = _vg_params(P)
    loss_v = mlp_step_autograd(vP, vg.tensor(X), vg.tensor(y), 0.0, vg_linear,
                               vg_cross_entropy, vg.no_grad, update=False)
    out = {"viewgrad-numpy loss": _rel(loss_v.item(), loss_n),
           "viewgrad-numpy grads": max(_rel(p.grad.numpy(), g) for p, g in zip(vP, g_n))}
    t = ctx.torch
    if t is not None:
        F = t.nn.functional
        tP = [t.tensor(p.copy(), requires_grad=True) for p in P]
        loss_t = mlp_step_autograd(tP, t.tensor(X), t.tensor(y), 0.0, F.linear,
                                   F.cross_entropy, t.no_grad, update=False)
        out["torch-numpy loss"] = _rel(loss_t.item(), loss_n)
        out["torch-numpy grads"] = max(_rel(p.grad.numpy(), g) for p, g in zip(tP, g_n))
        out[MAXABS] = max(_maxabs(p.grad.numpy(), q.grad.numpy()) for p, q in zip(vP, tP))
    return out


# --------------------------------------------------------------------------------------
# (4) small CNN training step: conv3x3 -> ReLU -> conv3x3 -> ReLU -> global mean -> linear -> CE
# --------------------------------------------------------------------------------------

def cnn_data(cfg, seed=0):
    rng = np.random.default_rng(seed)
    cin, c1, c2 = cfg["chans"]
    k = cfg["classes"]

    def w(*shape, fan_in):
        return (rng.standard_normal(shape) * np.sqrt(2 / fan_in)).astype(np.float32)

    P = [w(c1, cin, 3, 3, fan_in=9 * cin), (rng.standard_normal(c1) * 0.01).astype(np.float32),
         w(c2, c1, 3, 3, fan_in=9 * c1), (rng.standard_normal(c2) * 0.01).astype(np.float32),
         w(k, c2, fan_in=c2), (rng.standard_normal(k) * 0.01).astype(np.float32)]
    X = rng.standard_normal((cfg["batch"], cin, cfg["hw"], cfg["hw"])).astype(np.float32)
    y = rng.integers(0, k, cfg["batch"]).astype(np.int64)
    return P, X, y


def im2col_nhwc(x):
    """(N, H, W, C) -> (N*H*W, 9*C) columns for a 3x3 conv with padding 1, ordered
    (kh, kw, c) so each of the 9 copies is a contiguous channels-last slab."""
    n, h, w, c = x.shape
    xp = np.zeros((n, h + 2, w + 2, c), x.dtype)
    xp[:, 1:-1, 1:-1] = x
    cols = np.empty((n, h, w, 3, 3, c), x.dtype)
    for i in range(3):
        for j in range(3):
            cols[:, :, :, i, j, :] = xp[:, i:i + h, j:j + w, :]
    return cols.reshape(n * h * w, 9 * c)


def col2im_nhwc(dcols, n, h, w, c):
    """Adjoint of im2col_nhwc: scatter-add the 9 shifted slabs back, drop the padding."""
    d = dcols.reshape(n, h, w, 3, 3, c)
    dxp = np.zeros((n, h + 2, w + 2, c), dcols.dtype)
    for i in range(3):
        for j in range(3):
            dxp[:, i:i + h, j:j + w, :] += d[:, :, :, i, j, :]
    return dxp[:, 1:-1, 1:-1, :]


def conv3x3_input_grad(dout, weight, n, h, w):
    """dX of a 3x3 conv (padding 1), channels-last: one (N*H*W, Cout) @ (Cout, Cin) GEMM
    per kernel position, each added into a shifted window of the padded gradient. Same
    result as col2im(dout @ Wm) but every add reads a contiguous block (~1.8x faster here
    than the strided col2im)."""
    cin = weight.shape[1]
    wk = np.ascontiguousarray(weight.transpose(2, 3, 0, 1)).reshape(9, -1, cin)
    dxp = np.zeros((n, h + 2, w + 2, cin), dout.dtype)
    for k in range(9):
        i, j = divmod(k, 3)
        dxp[:, i:i + h, j:j + w, :] += (dout @ wk[k]).reshape(n, h, w, cin)
    return dxp[:, 1:-1, 1:-1, :]


def cnn_step_numpy(P, Xnhwc, y, lr, update=True):
    """The CNN step by hand, channels-last: a 3x3 conv is im2col + one GEMM whose output
    (N*H*W, Cout) already IS the NHWC activation, so no transposes on the way.
    Weights stay in PyTorch's (Cout, Cin, 3, 3) layout (a tiny per-step transpose)."""
    W1, b1, W2, b2, W3, b3 = P
    n, h, w, cin = Xnhwc.shape
    c1, c2 = W1.shape[0], W2.shape[0]
    cols1 = im2col_nhwc(Xnhwc)
    W1m = W1.transpose(0, 2, 3, 1).reshape(c1, 9 * cin)
    a1 = cols1 @ W1m.T
    a1 += b1
    np.maximum(a1, 0, out=a1)                       # (NHW, C1)
    cols2 = im2col_nhwc(a1.reshape(n, h, w, c1))
    W2m = W2.transpose(0, 2, 3, 1).reshape(c2, 9 * c1)
    h2 = cols2 @ W2m.T
    h2 += b2
    np.maximum(h2, 0, out=h2)                       # (NHW, C2)
    m = h2.reshape(n, h * w, c2).mean(1)            # global mean: (N, C2)
    z = m @ W3.T
    z += b3
    loss, dz = _np_ce_forward_backward(z, y)
    gW3 = dz.T @ m
    gb3 = dz.sum(0)
    dm = dz @ W3
    dm /= h * w
    # a generic conv backward gets a full dout; materialise it (no algebraic shortcut)
    dh2 = np.broadcast_to(dm[:, None, :], (n, h * w, c2)).reshape(n * h * w, c2)
    dh2 = dh2 * (h2 > 0)
    gb2 = dh2.sum(0)
    gW2 = (dh2.T @ cols2).reshape(c2, 3, 3, c1).transpose(0, 3, 1, 2)
    da1 = conv3x3_input_grad(dh2, W2, n, h, w).reshape(n * h * w, c1)
    da1 *= a1 > 0
    gb1 = da1.sum(0)
    gW1 = (da1.T @ cols1).reshape(c1, 3, 3, cin).transpose(0, 3, 1, 2)   # no dX
    grads = (gW1, gb1, gW2, gb2, gW3, gb3)
    if update:
        for p, g in zip(P, grads):
            p -= lr * g
    return loss, grads


def cnn_step_autograd(P, X, y, lr, conv2d, linear, cross_entropy, no_grad, update=True):
    W1, b1, W2, b2, W3, b3 = P
    h = conv2d(X, W1, b1, padding=1).relu()
    h = conv2d(h, W2, b2, padding=1).relu()
    z = linear(h.mean((2, 3)), W3, b3)
    loss = cross_entropy(z, y)
    loss.backward()
    if update:
        with no_grad():
            for p in P:
                p.sub_(p.grad, alpha=lr)
        for p in P:
            p.grad = None
    return loss


def vg_conv2d():
    """viewgrad's conv2d, or (None, reason) while the nn branch has not landed."""
    try:
        mod = importlib.import_module("viewgrad.nn.functional")
        return mod.conv2d, None
    except (ImportError, AttributeError) as e:
        return None, f"viewgrad.nn.functional.conv2d not importable yet ({e})"


def build_cnn(cfg, ctx):
    P, X, y = cnn_data(cfg)
    lr = cfg["lr"]
    engs, skipped = [], _torch_skip(ctx)
    conv, why = vg_conv2d()
    if conv is not None:
        vP, vX, vy = _vg_params(P), vg.tensor(X), vg.tensor(y)
        engs.append(Engine("viewgrad", lambda: cnn_step_autograd(
            vP, vX, vy, lr, conv, vg_linear, vg_cross_entropy, vg.no_grad)))
    else:
        skipped["viewgrad"] = why
    nP = [p.copy() for p in P]
    Xn = np.ascontiguousarray(X.transpose(0, 2, 3, 1))   # data stored channels-last: free
    engs.append(Engine("numpy", lambda: cnn_step_numpy(nP, Xn, y, lr)))
    t = ctx.torch
    if t is not None:
        F = t.nn.functional
        tP = [t.tensor(p.copy(), requires_grad=True) for p in P]
        tX, ty = t.tensor(X), t.tensor(y)
        engs.append(Engine("torch", lambda: cnn_step_autograd(
            tP, tX, ty, lr, F.conv2d, F.linear, F.cross_entropy, t.no_grad)))
    cin, c1, c2 = cfg["chans"]
    return Spec(engs, [("viewgrad", "numpy"), ("viewgrad", "torch"), ("torch", "numpy")],
                targets=[("CNN step: viewgrad <= 1.05x NumPy im2col", "viewgrad/numpy",
                          1.05)],
                skipped=skipped, unit="step",
                note=f"batch {cfg['batch']}, {cin}x{cfg['hw']}x{cfg['hw']}, conv3x3 {cin}->{c1}"
                     f" (pad 1), ReLU, conv3x3 {c1}->{c2}, ReLU, global mean, linear "
                     f"{c2}->{cfg['classes']}, cross-entropy, SGD, float32")


def check_cnn(cfg, ctx):
    P, X, y = cnn_data(cfg, seed=3)
    Xn = np.ascontiguousarray(X.transpose(0, 2, 3, 1))
    loss_n, g_n = cnn_step_numpy([p.copy() for p in P], Xn, y, 0.0, update=False)
    out = {}
    conv, why = vg_conv2d()
    if conv is not None:
        vP = _vg_params(P)
        loss_v = cnn_step_autograd(vP, vg.tensor(X), vg.tensor(y), 0.0, conv, vg_linear,
                                   vg_cross_entropy, vg.no_grad, update=False)
        out["viewgrad-numpy loss"] = _rel(loss_v.item(), loss_n)
        out["viewgrad-numpy grads"] = max(_rel(p.grad.numpy(), g) for p, g in zip(vP, g_n))
    else:
        out["skipped viewgrad"] = why
    t = ctx.torch
    if t is not None:
        F = t.nn.functional
        tP = [t.tensor(p.copy(), requires_grad=True) for p in P]
        loss_t = cnn_step_autograd(tP, t.tensor(X), t.tensor(y), 0.0, F.conv2d, F.linear,
                                   F.cross_entropy, t.no_grad, update=False)
        out["torch-numpy loss"] = _rel(loss_t.item(), loss_n)
        out["torch-numpy grads"] = max(_rel(p.grad.numpy(), g) for p, g in zip(tP, g_n))
        if conv is not None:
            out[MAXABS] = max(_maxabs(p.grad.numpy(), q.grad.numpy()) for p, q in zip(vP, tP))
    return out


# --------------------------------------------------------------------------------------
# (5) view + in-place heavy loop
# --------------------------------------------------------------------------------------
# b = x.clone(); for every row i: b[i].mul_(w); b[i].add_(0.5); b.sum().backward().
# Each row view's in-place op turns b's history into a CopySlices; backward runs through
# 2*rows CopySlices. mul_ by a w that requires grad must save the row's old value (a clone).

def inplace_data(cfg, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((cfg["rows"], cfg["width"])).astype(np.float32)
    w = (0.5 + rng.random(cfg["width"])).astype(np.float32)
    return x, w


def inplace_autograd(x, w):
    x.grad = None
    w.grad = None
    inplace_forward(x, w).sum().backward()
    return x.grad, w.grad


def inplace_forward(x, w):
    """The row loop's forward for any torch-like engine: the clone, rewritten row by row."""
    b = x.clone()
    for i in range(b.shape[0]):
        r = b[i]
        r.mul_(w)
        r.add_(0.5)
    return b


def inplace_numpy(x, w):
    b = x.copy()
    old = np.empty_like(b)
    for i in range(b.shape[0]):          # the same per-row work, by hand
        r = b[i]
        old[i] = r
        r *= w
        r += np.float32(0.5)
    g = np.ones_like(b)
    gw = np.zeros_like(w)
    for i in range(b.shape[0] - 1, -1, -1):
        gw += g[i] * old[i]
        g[i] *= w
    return g, gw


def build_inplace(cfg, ctx):
    x, w = inplace_data(cfg)
    rows = cfg["rows"]
    vx, vw = vg.tensor(x, requires_grad=True), vg.tensor(w, requires_grad=True)
    engs = [Engine("viewgrad", lambda: inplace_autograd(vx, vw), rows),
            Engine("numpy", lambda: inplace_numpy(x, w), rows)]
    t = ctx.torch
    if t is not None:
        tx, tw = t.tensor(x, requires_grad=True), t.tensor(w, requires_grad=True)
        engs.append(Engine("torch", lambda: inplace_autograd(tx, tw), rows))
    return Spec(engs, [("viewgrad", "torch"), ("viewgrad", "numpy")],
                targets=[("view + in-place loop: viewgrad <= 0.5x torch", "viewgrad/torch",
                          0.5)],
                skipped=_torch_skip(ctx), unit="row",
                note=f"{rows} row views of a float32[{rows},{cfg['width']}] clone, each "
                     "mul_(w) and add_(0.5) in place, backward through the CopySlices; "
                     "time per row")


def check_inplace(cfg, ctx):
    x, w = inplace_data(cfg, seed=4)
    gx, gw = inplace_numpy(x, w)
    vx, vw = inplace_autograd(vg.tensor(x, requires_grad=True), vg.tensor(w, requires_grad=True))
    out = {"viewgrad-numpy": max(_rel(vx.numpy(), gx), _rel(vw.numpy(), gw))}
    t = ctx.torch
    if t is not None:
        tx, tw = inplace_autograd(t.tensor(x, requires_grad=True),
                                  t.tensor(w, requires_grad=True))
        out["torch-numpy"] = max(_rel(tx.numpy(), gx), _rel(tw.numpy(), gw))
        out[MAXABS] = max(_maxabs(vx.numpy(), tx.numpy()), _maxabs(vw.numpy(), tw.numpy()))
    return out


# --------------------------------------------------------------------------------------
# (6) tracing on vs off; rendering a 2,000-node graph
# --------------------------------------------------------------------------------------

def vg_trace():
    f = getattr(vg, "trace", None)
    if f is None or not callable(f):
        return None, "vg.trace() not available yet (tracer branch not merged)"
    return f, None


def _hook_check_cost(reps=300_000):
    """Seconds per ``state.<slot> is not None`` check (a per-thread attribute load of
    ``autograd.state`` and a compare): what one hook slot costs while tracing is off.
    Conservative: the loop's own overhead is NOT subtracted (a subtraction of two noisy
    timings can come out as 0 on a loaded machine), so this is an upper bound."""
    from viewgrad.autograd.state import state
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps):
            if state.inplace_observer is not None:
                pass
        best = min(best, (time.perf_counter() - t0) / reps)
    return best


def count_hook_checks(fn):
    """How many times ``fn()`` reads a hook slot (``*_observer``) of autograd.state.

    The slots are read inline by the core, so their cost cannot be switched off to time a
    hook-free baseline; instead we count the reads exactly (by giving the state object a
    counting class for the duration) and multiply by the cost of one read."""
    from viewgrad.autograd.state import state, AutogradState
    counts = {}

    class Counting(AutogradState):
        def __getattribute__(self, name):
            if name.endswith("_observer"):
                counts[name] = counts.get(name, 0) + 1
            return super().__getattribute__(name)

    state.__class__ = Counting
    try:
        fn()
    finally:
        state.__class__ = AutogradState
    return counts


def build_trace(cfg, ctx):
    n, width, rows = cfg["n_ops"], cfg["width"], cfg["rows"]
    x, c = _chain_inputs(width)
    ops = chain_ops(n)
    vx, vc = vg.tensor(x, requires_grad=True), vg.tensor(c)
    chain = lambda: chain_autograd(vx, vc, ops)  # noqa: E731
    ix, iw = inplace_data({"rows": rows, "width": width})
    tix, tiw = vg.tensor(ix, requires_grad=True), vg.tensor(iw, requires_grad=True)
    inplace = lambda: inplace_autograd(tix, tiw)  # noqa: E731
    engs = [Engine("off", chain, n), Engine("inplace_off", inplace, 2 * rows)]
    # tracing off costs exactly the hook-slot reads: count them, time one read
    chain_reads = count_hook_checks(chain)
    inplace_reads = count_hook_checks(inplace)
    extra = {"hook_check_s": _hook_check_cost(),
             "hook_reads_chain": chain_reads, "hook_reads_per_op_chain":
                 sum(chain_reads.values()) / n,
             "hook_reads_inplace": inplace_reads, "hook_reads_per_op_inplace":
                 sum(inplace_reads.values()) / (2 * rows)}
    tr, why = vg_trace()
    skipped = {}
    if tr is None:
        for k in ("on", "inplace_on", "inplace_on_unrelated"):
            skipped[k] = why
        return Spec(engs, [], targets=[], skipped=skipped, unit="op",
                    note="tracing on vs off on the tiny-op chain", extra=extra)

    def traced_chain():
        with tr():
            chain()
    engs.append(Engine("on", traced_chain, n))

    def inplace_traced():
        with tr():
            inplace()
    engs.append(Engine("inplace_on", inplace_traced, 2 * rows))
    ux = vg.tensor(x, requires_grad=True)
    keep = [ux]

    def inplace_traced_unrelated():
        # an unrelated graph of cfg['unrelated'] nodes stays alive during the trace: the
        # snapshots must cover only the mutated tensor's graph, so the cost must not move
        if len(keep) == 1:
            y = ux
            for op in chain_ops(cfg["unrelated"]):
                y = y * 1.01 if op != "tanh" else y.tanh()
            keep.append(y)
        with tr():
            inplace()
    engs.append(Engine("inplace_on_unrelated", inplace_traced_unrelated, 2 * rows))
    return Spec(engs, [("on", "off"), ("inplace_on", "inplace_off"),
                       ("inplace_on_unrelated", "inplace_on")],
                targets=[("tracing on: snapshot cost independent of unrelated graphs "
                          "(<= 1.10x)", "inplace_on_unrelated/inplace_on", 1.10)],
                skipped=skipped, unit="op",
                note=f"chain of {n} ops traced or not; in-place loop of {rows} rows "
                     f"({2 * rows} in-place ops) traced or not, and traced while an "
                     f"unrelated {cfg['unrelated']}-node graph is alive; time per op",
                extra=extra)


def check_trace(cfg, ctx):
    tr, why = vg_trace()
    if tr is None:
        return {"skipped": why}
    from viewgrad.autograd.state import state
    x, c = _chain_inputs(cfg["width"], seed=5)
    ops = chain_ops(cfg["n_ops"])
    ref = chain_numpy(x, c, ops)
    with tr():
        g = chain_autograd(vg.tensor(x, requires_grad=True), vg.tensor(c), ops)
    assert state.inplace_observer is None and state.backward_observer is None, \
        "trace() left a hook installed"
    return {"traced viewgrad-numpy": _rel(g.numpy(), ref)}


def render_workload_fn():
    """bench/render_bench.py:render_workload(nodes, renderer) from the renderer's engineer,
    if present: it builds a ~nodes-node graph, snapshots, draws and renders it to SVG and
    returns the seconds of each stage."""
    try:
        mod = importlib.import_module("bench.render_bench")
        return mod.render_workload, None
    except (ImportError, AttributeError) as e:
        return None, f"bench/render_bench.py:render_workload not available yet ({e})"


_RENDER_CHILD = """
import json, sys
from bench.render_bench import render_workload
print(json.dumps(render_workload(int(sys.argv[1]))))
"""


def render_run(cfg, repeats):
    """Median stage timings of ``repeats`` renders, each in a child process with a time
    limit (cfg['timeout_s']): layout by the dot binary can take minutes on a big graph and
    the quick mode must stay under a minute. Renders run one after another: a render takes
    seconds and has nothing to be interleaved with."""
    import json
    import os
    import signal
    import statistics
    import subprocess
    import sys
    rw, why = render_workload_fn()
    if rw is None:
        return {"skipped": why}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    runs = []
    for _ in range(repeats):
        # own session, so that a timeout ends the child AND the dot process it started
        p = subprocess.Popen([sys.executable, "-c", _RENDER_CHILD, str(cfg["nodes"])],
                             cwd=root, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            stdout, stderr = p.communicate(timeout=cfg["timeout_s"])
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return {"runs": runs, "timed_out": True, "nodes": cfg["nodes"],
                    "error": f"render of {cfg['nodes']} nodes did not finish in "
                             f"{cfg['timeout_s']} s"}
        if p.returncode != 0:
            return {"runs": runs, "error": stderr.strip().splitlines()[-1:]}
        runs.append(json.loads(stdout.strip().splitlines()[-1]))
    out = {"runs": runs, "repeats": repeats}
    for k, v in runs[0].items():
        if k.endswith("_s"):
            out["median_" + k] = statistics.median(r[k] for r in runs)
        else:
            out[k] = v
    return out


def check_render(cfg, ctx):
    rw, why = render_workload_fn()
    if rw is None:
        return {"skipped": why}
    r = render_run(cfg, 1)
    if r.get("timed_out"):
        return {"skipped": r["error"]}       # slowness is reported by the bench, not tested
    assert "error" not in r, r["error"]
    return {}


# --------------------------------------------------------------------------------------
# (7) memory: a training loop's peak stays flat with gc disabled
# --------------------------------------------------------------------------------------

def memory_run(cfg, log=None):
    """Train a small MLP (with a view + in-place op in its forward, so CopySlices nodes are
    in every graph) for cfg['steps'] steps under ``gc.disable()`` and tracemalloc; report
    the peak traced memory of the first and last ``window`` steps. Anything kept alive by a
    reference cycle (node -> saved output -> node) would pile up, since gc never runs."""
    P, X, y = mlp_data(cfg, seed=6)
    vP, vX, vy = _vg_params(P), vg.tensor(X), vg.tensor(y)
    W1, b1, W2, b2, W3, b3 = vP
    lr, steps, win = 1e-3, cfg["steps"], cfg["window"]

    def step():
        h = vg_linear(vX, W1, b1).relu()
        h = h.clone()
        h[:, : h.shape[1] // 2].mul_(0.5)   # a view modified in place: CopySlices
        h = vg_linear(h, W2, b2).tanh()
        loss = vg_cross_entropy(vg_linear(h, W3, b3), vy)
        loss.backward()
        with vg.no_grad():
            for p in vP:
                p.sub_(p.grad, alpha=lr)
        for p in vP:
            p.grad = None
        return loss

    gc.collect()
    gc.disable()
    # Warm-up, gc already off: CPython keeps freed tuples/floats/frames on free lists
    # (up to 2,000 tuples of each size) and tracemalloc counts those as live, so without it
    # the first steps look smaller than the later ones while the lists fill. Objects made
    # before tracemalloc starts are not traced; a real leak still shows in the loop below.
    # The step's list of freed 2-tuples fills slowly (the nll kernel's index tuple, about
    # one in two steps: 1,000 steps of warm-up left it filling, ~50 B a step, which
    # stopped after ~2,000 steps; twenty-eighth pass), hence 4,000.
    for _ in range(cfg["warmup"]):
        step()
    # preallocated before tracing: appending to lists would itself grow ~80 B/step
    peaks = np.zeros(steps, np.int64)
    currents = np.zeros(steps, np.int64)
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    t0 = time.perf_counter()
    try:
        for i in range(steps):
            tracemalloc.reset_peak()
            step()
            currents[i], peaks[i] = tracemalloc.get_traced_memory()
        elapsed = time.perf_counter() - t0
        # objects only the cycle collector could free (count them before gc.enable(): the
        # next allocation would otherwise trigger an automatic collection first)
        cyclic = gc.collect()
    finally:
        gc.enable()
        if not was_tracing:
            tracemalloc.stop()
    first, last = int(peaks[:win].max()), int(peaks[-win:].max())
    res = {"steps": steps, "window": win, "warmup_steps": cfg["warmup"], "first_window_peak_bytes": first,
           "last_window_peak_bytes": last, "ratio_last_first": last / first,
           "current_after_first_window_bytes": int(currents[win - 1]),
           "current_at_end_bytes": int(currents[-1]),
           "growth_per_step_bytes": float(currents[-1] - currents[win - 1]) / max(1, steps - win),
           "gc_unreachable_after_loop": cyclic, "elapsed_s": elapsed,
           # a one-off jump (a cache or table growing once) vs steady growth
           "largest_jump_bytes": int(np.diff(currents).max()) if steps > 1 else 0,
           "largest_jump_at_step": int(np.diff(currents).argmax()) + 2 if steps > 1 else 0,
           "growth_second_half_per_step_bytes":
               float(currents[-1] - currents[steps // 2 - 1]) / max(1, steps - steps // 2)}
    return res


# --------------------------------------------------------------------------------------

def _rel(a, b):
    """Largest |a-b| relative to max(|b|) (scalar-safe)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-12))


# The gradient check against torch that the benchmark reports: the largest absolute
# difference between viewgrad's and torch's gradients (float32, same inputs).
MAXABS = "viewgrad-torch grads max|Δ|"


def _maxabs(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b))) if a.size else 0.0


def _torch_skip(ctx):
    return {} if ctx.torch is not None else {"torch": ctx.torch_reason}


BUILDERS = {"chain": build_chain, "scaling": build_scaling, "mlp": build_mlp,
            "cnn": build_cnn, "inplace": build_inplace, "trace": build_trace}
CHECKS = {"chain": check_chain, "scaling": check_scaling, "mlp": check_mlp,
          "cnn": check_cnn, "inplace": check_inplace, "trace": check_trace,
          "render": check_render}
ORDER = ("chain", "chain_mix", "scaling", "mlp", "mlp_modules", "cnn", "inplace", "trace",
         "render", "memory")


def _register_modules_workload():
    # bench/workloads_modules.py and workloads_mix.py build on this module's helpers:
    # registered once they exist (an import at the top would be circular)
    from .workloads_modules import build_mlp_modules, check_mlp_modules
    from .workloads_mix import build_chain_mix, check_chain_mix
    BUILDERS["mlp_modules"] = build_mlp_modules
    CHECKS["mlp_modules"] = check_mlp_modules
    BUILDERS["chain_mix"] = build_chain_mix
    CHECKS["chain_mix"] = check_chain_mix


_register_modules_workload()
