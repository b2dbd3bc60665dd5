"""group_norm as PyTorch records it: one ``NativeGroupNormBackward0`` node with three
edges (input, weight, bias — ``(None, 0)`` for an absent one), which saves the input and
the weight (so either, modified in place before backward, is refused, as there), the
mean and rstd of each group (``_saved_result1``, ``_saved_result2``) and the sizes N, C,
HxW, group and eps. The forward normalises each group of C / group channels
of each sample, over those channels and every spatial position, with the biased
variance, then scales and shifts per channel. The backward formulas are written with
differentiable ops (double backward works); with x̂ = (x - mean) · rstd per group, and
ĝ = grad · weight per channel, over the group's elements D:

    d input  = rstd · (ĝ - mean_D(ĝ) - x̂ · mean_D(ĝ · x̂))
    d weight = sum over N and the spatial dims of grad · x̂
    d bias   = sum over N and the spatial dims of grad
"""
from __future__ import annotations

import math

from .. import backend as B
from .table import defop, dispatch_stats

__all__ = ["native_group_norm"]

_xp = B.xp_of


def _param_shape(ndim, c):
    return (1, c) + (1,) * (ndim - 2)


def _gn_fwd(input, weight, bias, N, C, HxW, group, eps):
    xp = _xp(input)
    g = input.reshape(N, group, -1)
    mean = B.array_mean(g, -1, True)   # (Note [warnings from NumPy's own Python])
    centered = g - mean
    var = B.array_mean(centered * centered, -1, True)
    std = xp.sqrt(var + eps)
    out = (centered / std).reshape(input.shape)
    if weight is not None:
        out = out * weight.reshape(_param_shape(input.ndim, C))
    if bias is not None:
        out = out + bias.reshape(_param_shape(input.ndim, C))
    # (with the mean and rstd per (sample, group): Note [statistics saved as PyTorch
    # saves them], table.py)
    dt = input.dtype
    return (out.astype(dt, copy=False), mean.reshape(N, group).astype(dt),
            (1 / std).reshape(N, group).astype(dt))


def _grouped(input, N, group, eps):
    """(x̂ grouped as (N, group, D), rstd per group) of ``input``."""
    g = input.reshape(N, group, -1)
    mean = g.mean(-1, keepdim=True)
    centered = g - mean
    rstd = ((centered * centered).mean(-1, keepdim=True) + eps).rsqrt()
    return centered * rstd, rstd


def _outer_dims(t):
    return (0,) + tuple(range(2, t.dim()))


def _gn_input(grad, input, weight, N, C, HxW, group, eps, result1, result2):
    x_hat, rstd = _grouped(input, N, group, eps)
    g = grad * weight.reshape(_param_shape(grad.dim(), C)) if weight is not None else grad
    g = g.reshape(N, group, -1)
    dx = rstd * (g - g.mean(-1, keepdim=True) - x_hat * (g * x_hat).mean(-1, keepdim=True))
    return dx.reshape(tuple(input.shape))


def _gn_weight(grad, input, weight, N, C, HxW, group, eps, result1, result2):
    x_hat, _ = _grouped(input, N, group, eps)
    return (grad * x_hat.reshape(tuple(input.shape))).sum(_outer_dims(grad))


GROUP_NORM = defop("native_group_norm", "NativeGroupNormBackward0", _gn_fwd,
                   inputs=("input", "weight", "bias"),
                   attrs=("N", "C", "HxW", "group", "eps", "result1", "result2"),
                   # (every formula takes input, weight and the saved statistics, as
                   # PyTorch's one formula for the three does: whichever needs a
                   # gradient, they are saved; the formulas recompute the statistics from
                   # the input, so that double backward differentiates through them)
                   input=_gn_input, weight=_gn_weight,
                   bias=lambda grad, input, weight, result1, result2: grad.sum(
                       _outer_dims(grad)),
                   edge_for_every_input=True)


def native_group_norm(input, weight, bias, num_groups, eps):
    """One ``NativeGroupNormBackward0`` node (arguments checked by ``F.group_norm``)."""
    n, c = input.shape[0], input.shape[1]
    return dispatch_stats(GROUP_NORM, (input, weight, bias),
                    (n, c, math.prod(input.shape[2:]), num_groups, float(eps)))
