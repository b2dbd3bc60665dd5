"""Covariance and integration, composed as PyTorch composes them (so the nodes match):
``cov`` (``SqueezeBackward0`` over a division of an ``mm``), ``corrcoef`` (a ``clip`` of
the normalised covariance), ``trapezoid`` / ``trapz`` and ``cumulative_trapezoid``
(the trapezoid rule along a dim, with a spacing ``dx`` or sample points ``x``).
"""
from __future__ import annotations

import warnings

from .. import backend as B
from ..tensor import Tensor, _wrap_dim
from .args import torch_type_name
from .linalg import mm
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .views import narrow

__all__ = ["cov", "corrcoef", "trapezoid", "trapz", "cumulative_trapezoid"]


def _check_weights(w, name, n_obs):
    """PyTorch's checks of cov's weights, in its order and words: at most 1-D, integers
    (fweights) or floats (aweights), one per observation, none negative."""
    if w.dim() > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {w.dim()} dimensions")
    kind = w._data.dtype.kind
    if (kind not in "iu") if name == "fweights" else (kind != "f"):
        what = "integral" if name == "fweights" else "floating point"
        raise RuntimeError(f"cov(): expected {name} to have {what} dtype but got {name} with "
                           f"{torch_type_name(w._data.dtype)} dtype")
    if w.numel() != n_obs:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {w.numel()} != {n_obs}")
    if n_obs and not bool((w.min() >= 0).item()):   # (a NaN weight fails it too)
        raise RuntimeError(f"cov(): {name} cannot be negative")


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
        _check_weights(fweights, "fweights", n_obs)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", n_obs)
        w = aweights if w is None else w * aweights
    if w is not None and not bool((w.sum() != 0).item()):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
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
    k = max(x.shape[dim] - 1, 0)   # (an empty dim stays empty, as in _pair_sums)
    return narrow(x, dim, min(1, x.shape[dim]), k) - narrow(x, dim, 0, k)


def _pair_sums(y, dim):
    k = max(y.shape[dim] - 1, 0)   # (an empty dim stays empty: PyTorch's slices)
    return narrow(y, dim, min(1, y.shape[dim]), k) + narrow(y, dim, 0, k)


def _check_not_0d(y, dim, cumulative):
    # PyTorch's trapezoid takes no 0-d y (its own check, not the usual dim 0 / -1 of a
    # 0-d tensor); cumulative_trapezoid fails in its slice
    if y.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor." if cumulative else
                         f"Dimension specified as {dim} but tensor has no dimensions")


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of ``y`` along ``dim`` by the trapezoid rule, as
    ``torch.trapezoid`` (and ``torch.trapz``): samples ``dx`` apart (1 by default), or at
    the points ``x`` (1-D, or shaped like ``y``)."""
    _refuse(_CX["trapezoid"], y)   # (bool: Note [inputs PyTorch refuses])
    _check_not_0d(y, dim, False)
    d = _wrap_dim(dim, y.dim())
    if x is not None and dx is not None:
        raise RuntimeError("trapezoid: received both x and dx; pass only one of them")
    if y.shape[d] == 0:   # PyTorch's zeros of y's dtype, outside the graph
        return y.new_zeros(tuple(y.shape[:d]) + tuple(y.shape[d + 1:]))
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
    _check_not_0d(y, dim, True)
    d = _wrap_dim(dim, y.dim())
    if x is None:
        step = 1.0 if dx is None else dx
        return ((step / 2.0) * _pair_sums(y, d)).cumsum(d)
    return (_dx_of(y, x, d) / 2.0 * _pair_sums(y, d)).cumsum(d)
