"""quantile and nanquantile, as PyTorch computes them: sort along the dim (NaN last), then
for each q the value at rank ``q * (n - 1)`` — between two neighbours by ``interpolation``
('linear' lerps them, 'lower'/'higher' take one, 'midpoint' their middle, 'nearest' the
rank rounded half to even). ``quantile`` gives NaN for a slice holding a NaN;
``nanquantile`` ranks among the slice's non-NaN values (NaN when there are none).

Built of differentiable ops (sort, gather, lerp), so the gradient flows to the one or two
values each quantile reads, as in PyTorch's graph (SortBackward0, GatherBackward0,
LerpBackward1).
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
    x = self.reshape(-1) if dim is None else self
    d = 0 if dim is None else _wrap_dim(dim, self.dim())
    srt = x.sort(dim=d).values
    n = x.shape[d]
    nan = x.isnan()
    # ranks per slice, kept along d: (1..., 1, 1...) shaped like the reduced slices
    if ignore_nan:
        count = (~nan).sum(d, keepdim=True).to(self.dtype)
    else:
        count = nan.any(d, keepdim=True).to(self.dtype) * 0 + n
    outs = []
    for i in range(qv.shape[0]):
        qi = qv[i]
        rank = qi * (count - 1)
        # a slice with a NaN (quantile) or with no number (nanquantile): the last, NaN
        last = nan.any(d, keepdim=True) if not ignore_nan else (count == 0)
        rank = rank.masked_fill(last, n - 1)
        if interpolation == "nearest":
            rank = rank.round()
        lo = rank.floor()
        hi = rank.ceil()
        v_lo = srt.gather(d, lo.to(B.int64))
        v_hi = srt.gather(d, hi.to(B.int64))
        if interpolation in ("lower", "nearest"):
            v = v_lo
        elif interpolation == "higher":
            v = v_hi
        elif interpolation == "midpoint":
            v = v_lo.lerp(v_hi, 0.5)
        else:
            v = v_lo.lerp(v_hi, rank - lo)
        if dim is None:
            v = v.reshape((1,) * self.dim()) if keepdim else v.reshape(())
        elif not keepdim:
            v = v.squeeze(d)
        outs.append(v)
    if scalar_q:
        return outs[0]
    from .joining import stack
    return stack(outs, 0)


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

