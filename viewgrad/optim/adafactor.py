"""Adafactor (Shazeer & Stern), PyTorch's variant, step for step.

The second moment of a matrix's gradient is kept factored: a row mean and a column mean
of g² (two running averages the size of one row and one column), whose outer product
over the rows' mean estimates it; a vector keeps its full running average. The step
size is relative (the parameter's RMS, at least ``eps[1]``, times ``min(lr, 1/√t)``),
the update is clipped to an RMS of ``d``, and the running averages' weight
``1 - β2_t = t^beta2_decay`` starts at 1. ``lr`` scales the decoupled weight decay too.
Each formula in the order of PyTorch's single-tensor implementation (``lerp_``, the
norms read as Python numbers), so the parameters follow PyTorch's bit for bit.
"""
from __future__ import annotations

from .. import backend as B
from ..ops.factories import zeros_like
from . import Optimizer, _next_step

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adafactor: factored second moments, relative step sizes, update clipping (the
    algorithm of ``torch.optim.Adafactor``)."""

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize))

    def _update(self, p, grad, group, state):
        if p._data.dtype.kind == "c":
            raise RuntimeError("Adafactor does not support complex parameters")
        t = _next_step(state)   # (first: PyTorch's state holds "step" first)
        if len(state) == 1:   # a matrix's factors keep its other dims, the last two reduced
            if grad.dim() > 1:
                state["row_var"] = grad.new_zeros(tuple(grad.shape[:-1]) + (1,))
                state["col_var"] = grad.new_zeros(tuple(grad.shape[:-2]) + (1, grad.shape[-1]))
            else:
                state["variance"] = zeros_like(grad)
        g = -grad if group["maximize"] else grad
        lr, eps1, eps2 = group["lr"], group["eps"][0], group["eps"][1]
        if eps1 is None:
            eps1 = B.finfo_fields(p._data.dtype)["eps"]
        weight = t ** group["beta2_decay"]   # 1 - β2_t
        rho = min(lr, 1 / (t ** 0.5))
        alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho
        if group["weight_decay"] != 0:
            p.mul_(1 - lr * group["weight_decay"])
        if g.dim() > 1:
            from ..linalg import vector_norm
            row_var, col_var = state["row_var"], state["col_var"]
            row_var.lerp_(vector_norm(g, dim=-1, keepdim=True).square_().div_(g.shape[-1]),
                          weight)
            col_var.lerp_(vector_norm(g, dim=-2, keepdim=True).square_().div_(g.shape[-2]),
                          weight)
            estimate = row_var @ col_var
            estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            state["variance"].lerp_(g * g, weight)
            estimate = state["variance"].clone()
        update = estimate.clamp_(min=eps1 * eps1).rsqrt_()
        update.mul_(g)
        denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * group["d"]))
        p.add_(update, alpha=-alpha / denom)
