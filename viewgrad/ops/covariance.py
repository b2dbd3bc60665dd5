"""Covariance and integration, composed as PyTorch composes them (so the nodes match):
``cov`` (``SqueezeBackward0`` over a division of an ``mm``), ``corrcoef`` (a ``clip`` of
the normalised covariance), ``trapezoid`` / ``trapz`` and ``cumulative_trapezoid``
(the trapezoid rule along a dim, with a spacing ``dx`` or sample points ``x``).
"""
from __future__ import annotations

import warnings

from .. import backend as B
from ..tensor import Tensor, _wrap_dim
from .linalg import mm
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .views import narrow

__all__ = ["cov", "corrcoef", "trapezoid", "trapz", "cumulative_trapezoid"]


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in
    the columns; a 1-D input is one variable), as ``torch.cov``: with Bessel's
    ``correction`` (1) and optional integer frequency weights ``fweights`` and
    observation weights ``aweights``."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got "
                           f"an input with {input.dim()} dimensions")
    if input._data.dtype.kind == "b":
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if input.dim() < 2 else input
    if x.dtype.kind in "iub":
        x = x.to(B.default_float())
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        w_sum = float(n_obs)
        norm = w_sum - correction
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if aweights is not None and correction:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
        else:
            norm = w_sum - correction
    if (float(norm) if isinstance(norm, Tensor) else norm) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm = norm.clamp_min(0) if isinstance(norm, Tensor) else 0.0
    xc = x - avg.unsqueeze(1)
    c = mm(xc, (xc if w is None else xc * w).t().conj_physical())   # (Xᴴ for complex)
    return (c / norm).squeeze()


def corrcoef(input):
    """Pearson's correlation coefficients of the rows of ``input``, as
    ``torch.corrcoef``: the covariance divided by the standard deviations, clipped to
    [-1, 1] (``ClampBackward1``)."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    std = c.diagonal().sqrt()
    c = c / std.view(-1, 1)
    c = c / std.view(1, -1)
    if c._data.dtype.kind == "c":   # (PyTorch clips the real and imaginary parts each;
        d = c._data                 # no gradient: Note [no complex gradients])
        xp = B.xp_of(d)
        return Tensor._make(xp.clip(d.real, -1, 1) + 1j * xp.clip(d.imag, -1, 1), c._device)
    return c.clip(-1, 1)


def _dx_of(y, x, dim):
    """The spacing between samples along ``dim``: diff of ``x`` shaped to broadcast."""
    if x.dim() == 1:
        d = x[1:] - x[:-1]
        shape = [1] * y.dim()
        shape[dim] = d.shape[0]
        return d.view(*shape)
    k = x.shape[dim]
    return narrow(x, dim, 1, k - 1) - narrow(x, dim, 0, k - 1)


def _pair_sums(y, dim):
    k = y.shape[dim]
    return narrow(y, dim, 1, k - 1) + narrow(y, dim, 0, k - 1)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of ``y`` along ``dim`` by the trapezoid rule, as
    ``torch.trapezoid`` (and ``torch.trapz``): samples ``dx`` apart (1 by default), or at
    the points ``x`` (1-D, or shaped like ``y``)."""
    _refuse(_CX["trapezoid"], y)   # (bool: Note [inputs PyTorch refuses])
    d = _wrap_dim(dim, y.dim())
    if x is not None and dx is not None:
        raise RuntimeError("trapezoid: received both x and dx; pass only one of them")
    if y.shape[d] == 0:
        return y.sum(d)
    if x is None:
        step = 1.0 if dx is None else dx
        return (y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * step
    return (_dx_of(y, x, d) * _pair_sums(y, d)).sum(d) / 2.0


def trapz(y, x=None, *, dx=None, dim=-1):
    """``torch.trapz``: the old name of ``trapezoid``."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid-rule integral of ``y`` along ``dim`` (one value fewer than
    samples), as ``torch.cumulative_trapezoid`` (``CumsumBackward0``)."""
    _refuse(_CX["cumulative_trapezoid"], y)   # (bool: Note [inputs PyTorch refuses])
    d = _wrap_dim(dim, y.dim())
    if x is None:
        step = 1.0 if dx is None else dx
        return ((step / 2.0) * _pair_sums(y, d)).cumsum(d)
    return (_dx_of(y, x, d) / 2.0 * _pair_sums(y, d)).cumsum(d)
