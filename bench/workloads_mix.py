"""A tiny-op chain of other elementwise ops: rows that save their input (sin, atan,
silu, gelu, log1p), two operands that both need a gradient (``y * y.cos()``,
``y + y.sin()``), next to the products and sums of the issue-19 chain — timed per op
against torch's same code.

Not one of issue 19's targets (its chain is ``workloads.CHAIN_OPS``); it is here to show
that the lean calls and steps are not the six ops of that chain alone (Note [lean ops],
viewgrad/ops/lean.py; Note [lean apply], viewgrad/autograd/apply_lean.py; the kernels of
viewgrad/ops/fast_pointwise.py). The cycle keeps values and gradients of order one over
any length (checked: the gradient is compared with torch's, and must not vanish).
"""
from __future__ import annotations

import numpy as np

import viewgrad as vg

from .harness import Engine
from .workloads import MAXABS, Spec, _chain_inputs, _maxabs, _rel, _torch_skip

__all__ = ["MIX_OPS", "build_chain_mix", "check_chain_mix", "mix_autograd"]

MIX_OPS = ("sin", "mulc", "silu", "subs", "atan", "residual", "product", "gelu", "mulc",
           "log1p_sq", "adds")


def mix_ops(n):
    return [MIX_OPS[i % len(MIX_OPS)] for i in range(n)]


def mix_autograd(lib, x, c, ops):
    """Forward + backward of the mixed chain in ``lib`` (viewgrad or torch)."""
    F = lib.nn.functional
    x.grad = None
    y = x
    for op in ops:
        if op == "sin":
            y = y.sin()
        elif op == "mulc":
            y = y * c
        elif op == "silu":
            y = F.silu(y)
        elif op == "subs":
            y = y - 0.3
        elif op == "atan":
            y = y.atan()
        elif op == "residual":
            y = y + y.sin()
        elif op == "product":
            y = y * y.cos()
        elif op == "gelu":
            y = F.gelu(y)
        elif op == "adds":
            y = y + 0.6
        else:
            y = (y * y).log1p()
    y.sum().backward()
    return x.grad


def build_chain_mix(cfg, ctx):
    x, c = _chain_inputs(cfg["width"])
    ops = mix_ops(cfg["n_ops"])
    n = cfg["n_ops"]
    vx, vc = vg.tensor(x, requires_grad=True), vg.tensor(c)
    engs = [Engine("viewgrad", lambda: mix_autograd(vg, vx, vc, ops), n)]
    t = ctx.torch
    if t is not None:
        tx, tc = t.tensor(x, requires_grad=True), t.tensor(c)
        engs.append(Engine("torch", lambda: mix_autograd(t, tx, tc, ops), n))
    return Spec(engs, [("viewgrad", "torch")], targets=[], skipped=_torch_skip(ctx),
                unit="op", note=f"{n} ops of {MIX_OPS} on float32[{cfg['width']}], forward "
                                "+ backward, time per op; no target (issue 19's chain is "
                                "the six ops of `chain`)")


def check_chain_mix(cfg, ctx):
    x, c = _chain_inputs(cfg["width"], seed=5)
    ops = mix_ops(cfg["n_ops"])
    gv = mix_autograd(vg, vg.tensor(x, requires_grad=True), vg.tensor(c), ops).numpy()
    out = {"gradient vanished": float(not np.abs(gv).max() > 1e-3)}
    t = ctx.torch
    if t is not None:
        gt = mix_autograd(t, t.tensor(x, requires_grad=True), t.tensor(c), ops).numpy()
        out["viewgrad-torch"] = _rel(gv, gt)
        out[MAXABS] = _maxabs(gv, gt)
    return out
