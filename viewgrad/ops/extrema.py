"""Running and paired extrema: cummax / cummin (CummaxBackward0 / CumminBackward0, named
tuples ``(values, indices)``), aminmax (one ``AminmaxBackward0`` node for both of its
outputs, a named tuple ``(min, max)``), and the running soft maximum logcumsumexp
(``LogcumsumexpBackward0``), as PyTorch's.

cummax's values are *selected* by its indices (``values[i] = x[indices[i]]``), so its
backward sends each gradient back to the position its value came from, adding where one
position fed several outputs (a scatter_add: PyTorch's cummaxmin_backward). A NaN, once
met, is the running extremum from then on; ties take the latest position.
"""
from __future__ import annotations

from .. import backend as B
from .. import return_types as RT
from ..autograd.saved_names import show_given
from ..tensor import Tensor, _wrap_dim
from .reduce import _amax_bwd, _zeros_scatter_add
from .sorting import _take
from .stats import _multi, _red_dims
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .table import defop, dispatch, method

__all__ = ["cummax", "cummin", "aminmax", "logcumsumexp"]


def _scatter_add_back(grad, indices, self, dim):
    # (self saved, not only its shape, as PyTorch's cummaxmin_backward takes it: modifying
    # the input in place before backward is refused there, so here too)
    shape = tuple(self.shape)
    return grad if not shape else _zeros_scatter_add(grad, indices, shape, dim)


CUMMAX = defop("cummax", "CummaxBackward0", _take, inputs=("self", "indices"), attrs=("dim",),
               self=_scatter_add_back)
CUMMIN = defop("cummin", "CumminBackward0", _take, inputs=("self", "indices"), attrs=("dim",),
               self=_scatter_add_back)


def _running_indices(a, dim, larger):
    """Index of the running max (min) along ``dim``: a step along the dim at a time,
    vectorised over the other dims (PyTorch's rule: NaN wins; ties move to the later)."""
    xp = B.xp_of(a)
    a = xp.moveaxis(a, dim, 0)
    idx = xp.zeros(a.shape, dtype=B.int64)
    if a.shape[0]:
        best = a[0]
        cur = xp.zeros(a.shape[1:], dtype=B.int64)
        for i in range(1, a.shape[0]):
            x = a[i]
            better = x >= best if larger else x <= best
            if a.dtype.kind in "fc":
                better = xp.isnan(x) | (~xp.isnan(best) & better)
            best = xp.where(better, x, best)
            cur = xp.where(better, i, cur)
            idx[i] = cur
    return xp.ascontiguousarray(xp.moveaxis(idx, 0, dim))   # (row-major, as PyTorch's)


def _cum_ext(self, dim, op, out_type):
    d = _wrap_dim(dim, self.dim())
    a = self._data
    idx = _running_indices(a, d, op is CUMMAX) if a.ndim else self._device.xp.zeros(
        (), dtype=B.int64)
    ind = Tensor._make(idx, self._device)
    return show_given(out_type((dispatch(op, (self, ind), (d,)), ind)), "dim", dim, d)


@method("cummax")
def cummax(self, dim):
    """The running maximum along ``dim`` and where it was found, as ``torch.cummax``: a
    named tuple ``(values, indices)``; the values record ``CummaxBackward0``, whose
    gradient goes back (summed) to the positions the values came from."""
    _refuse(_CX["cummax"], self)   # Note [inputs PyTorch refuses]
    return _cum_ext(self, dim, CUMMAX, RT.cummax)


@method("cummin")
def cummin(self, dim):
    """The running minimum along ``dim`` and where it was found, as ``torch.cummin``: a
    named tuple ``(values, indices)``; the values record ``CumminBackward0``."""
    _refuse(_CX["cummin"], self)
    return _cum_ext(self, dim, CUMMIN, RT.cummin)


def _aminmax_bwd(grads, self, lo, hi, dim, keepdim):
    # each output as amin / amax: shared evenly by the entries equal to it (the saved
    # outputs, as PyTorch's _saved_min and _saved_max; dim as given, as PyTorch saves it)
    dim = _red_dims(dim, self.dim())
    out = None
    for g, ext in zip(grads, (lo, hi)):
        if g is None:
            continue
        part = _amax_bwd(g, self, ext.detach(), dim, keepdim)
        out = part if out is None else out + part
    return out


AMINMAX = defop("aminmax", "AminmaxBackward0", None, multi_output=("min", "max"),
                attrs=("dim", "keepdim"),
                self=lambda grad, self, min, max, dim, keepdim:   # noqa: A002 - PyTorch's names
                _aminmax_bwd(grad, self, min, max, dim, keepdim))


@method("aminmax")
def aminmax(input, *, dim=None, keepdim=False):
    """The minimum and the maximum (of everything, or along ``dim``) in one call, as
    ``torch.aminmax``: a named tuple ``(min, max)`` whose two outputs come from ONE node,
    ``AminmaxBackward0`` (each shares its gradient among the entries equal to it, as
    ``amin``/``amax`` do)."""
    _refuse(_CX["aminmax"], input)   # Note [inputs PyTorch refuses]
    dims = _red_dims(dim, input.dim())
    if dim is None and input.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    for d in dims:   # (PyTorch's message for a dim has no parentheses)
        if input.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    a = input._data
    xp = input._device.xp
    lo = xp.asarray(a.min(axis=dims, keepdims=keepdim))
    hi = xp.asarray(a.max(axis=dims, keepdims=keepdim))
    return show_given(RT.aminmax(_multi(AMINMAX, input, (lo, hi), (dim, bool(keepdim)))), "dim",
                      dim, dim)   # (kept as given; shown as PyTorch reads an int64)


# -- logcumsumexp: log(cumsum(exp(x))) without overflow ----------------------------------------
# Forward: a running logaddexp along the dim (one slice at a time: a shift by the global
# maximum would underflow a prefix far below it to -inf). Backward, PyTorch's formula in log
# space: grad_i = sum over j >= i of g_j exp(x_i - out_j), split into the positive and the
# negative parts of g, each a reversed logcumsumexp (so it is differentiable again). A part
# with no term stands at the dtype's lowest finite number, not -inf: -inf would make the
# second derivative wrong (exp(-inf - -inf) is NaN, and its gradient garbage).
def _logcumsumexp_fwd(self, dim):
    xp = B.xp_of(self)
    if self.ndim == 0 or self.size == 0:
        return self.copy()
    out = xp.moveaxis(self.copy(), dim, 0)
    for i in range(1, out.shape[0]):
        out[i] = xp.logaddexp(out[i - 1], out[i])
    return xp.ascontiguousarray(xp.moveaxis(out, 0, dim))


def _logcumsumexp_bwd(grad, self, result, dim):
    if self.dim() == 0:
        return grad
    from .pointwise import where

    def reversed_lcse(t):
        return logcumsumexp(t.flip(dim), dim).flip(dim)
    lowest = B.finfo_fields(grad.dtype)["min"]
    pos = where(grad > 0, grad.log(), lowest)
    neg = where(grad < 0, (-grad).log(), lowest)
    return ((self + reversed_lcse(pos - result)).exp()
            - (self + reversed_lcse(neg - result)).exp())


LOGCUMSUMEXP = defop("logcumsumexp", "LogcumsumexpBackward0", _logcumsumexp_fwd,
                     attrs=("dim",), self=_logcumsumexp_bwd)


@method("logcumsumexp")
def logcumsumexp(input, dim):
    """``log(cumsum(exp(x), dim))`` computed without overflow, as ``torch.logcumsumexp``
    (node ``LogcumsumexpBackward0``)."""
    _refuse(_CX["logcumsumexp"], input)   # Note [inputs PyTorch refuses]
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(f"logcumsumexp(): Expected floating point type for result tensor, "
                           f"but got: {B.dtype_name(input.dtype)}")
    d = _wrap_dim(dim, input.dim())
    return show_given(dispatch(LOGCUMSUMEXP, (input,), (d,)), "dim", dim, d)
