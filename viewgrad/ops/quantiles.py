"""quantile and nanquantile, as PyTorch computes them: sort along the dim (NaN last), then
for each q the value at rank ``q * (n - 1)`` — between two neighbours by ``interpolation``
('linear' lerps them, 'lower'/'higher' take one, 'midpoint' their middle, 'nearest' the
rank rounded half to even). ``quantile`` gives NaN for a slice holding a NaN;
``nanquantile`` ranks among the slice's non-NaN values (NaN when there are none).

Built of differentiable ops in the order PyTorch's quantile_compute runs them (sort,
view, gather, lerp_ in place, squeeze_), so the gradient flows to the one or two values
each quantile reads and the graph is PyTorch's node for node (SortBackward0,
GatherBackward0, LerpBackward1, SqueezeBackward4 on top).
"""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor, _wrap_dim
from .table import method

__all__ = ["quantile", "nanquantile"]

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _qs(q, self, name):
    """q as a 1-D tensor of the input's dtype and device, and whether it was a scalar."""
    from .factories import tensor
    if isinstance(q, Tensor):
        if q.dim() > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q.dtype != self.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        vals = q.reshape(-1)
        if not bool(((vals >= 0) & (vals <= 1)).all()):
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        return vals.detach().to(self.device), q.dim() == 0
    q = float(q)
    if not 0.0 <= q <= 1.0:
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q:g}")
    return tensor([q], dtype=self.dtype, device=self.device), True


def _quantile(self, q, dim, keepdim, interpolation, ignore_nan, name):
    if self._data.dtype.kind != "f" or self._data.dtype.char == "e":   # (float16 too)
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in _MODES:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    qv, scalar_q = _qs(q, self, name)
    if self.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if dim is not None and self.dim() == 0:   # dim 0 or -1 of a 0-d tensor: all of it
        _wrap_dim(dim, 0)
        dim = None
    # PyTorch's quantile_compute, step for step, so that the graph is its graph: sort the
    # flattened input (or the dim moved last), view it with the quantiles' dim last...
    if dim is None:
        srt = self.flatten().sort().values
        out_shape = [1] * self.dim() if keepdim else []
    else:
        d = _wrap_dim(dim, self.dim())
        srt = (self if d == self.dim() - 1 else self.unsqueeze(-1).transpose(d, -1)).sort().values
        out_shape = list(self.shape)
        if keepdim:
            out_shape[d] = 1
        else:
            del out_shape[d]
    n = srt.shape[-1]
    srt = srt.view(out_shape + [n])
    # ... the ranks q * (n - 1) (NaN slices: the last; nanquantile: among the numbers) ...
    nan = srt.isnan()
    if ignore_nan:
        ranks = qv * (nan.logical_not_().sum(-1, True) - 1)
        ranks.masked_fill_(ranks < 0, 0)
    else:
        from .aliases import broadcast_tensors
        scaled, last = broadcast_tensors(qv * (n - 1), nan.any(-1, True))
        ranks = scaled.masked_fill(last, n - 1)
    if interpolation == "lower":
        ranks.floor_()
    elif interpolation == "higher":
        ranks.ceil_()
    elif interpolation == "nearest":
        ranks.round_()
    below = ranks.to(B.int64)
    values = srt.gather(-1, below)
    # ... the neighbour above lerped in, in place ...
    if interpolation in ("linear", "midpoint"):
        from .factories import full_like
        weights = full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        values.lerp_(srt.gather(-1, ranks.ceil_().to(B.int64)), weights)
    # ... and the quantiles' dim dropped (one q) or moved first, in place
    if scalar_q:
        return values.squeeze_(-1)
    return values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)


@method("quantile")
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """The ``q``-th quantiles of ``input`` along ``dim`` (all of it by default), as
    ``torch.quantile`` (see the module docstring); ``q`` a number or a 1-D tensor, whose
    quantiles come first in the result."""
    from .args import with_out
    return with_out(_quantile(input, q, dim, keepdim, interpolation, False, "quantile"),
                    out, "quantile")


@method("nanquantile")
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """``quantile`` ignoring NaN values, as ``torch.nanquantile``."""
    from .args import with_out
    # (its errors say "quantile()": PyTorch's nanquantile shares quantile's checks)
    return with_out(_quantile(input, q, dim, keepdim, interpolation, True, "quantile"),
                    out, "nanquantile")

