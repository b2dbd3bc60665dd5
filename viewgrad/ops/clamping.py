"""Clamping with tensor bounds and the one-sided clamps: ``clamp(x, min_t, max_t)``
(``ClampBackward0``), ``clamp_min`` / ``clamp_max`` (``ClampMinBackward0/1``,
``ClampMaxBackward0/1``) — rows of the derivatives table with PyTorch's names.

A bound that is a tensor gets a gradient too: where the input was clipped to it. Where
min > max PyTorch returns max, and the gradient goes to max.
"""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor
from . import pointwise as P
from .table import apply_inplace, defop, dispatch, method

__all__ = ["clamp_tensor", "clamp_min", "clamp_max", "clamp_min_", "clamp_max_", "clip_"]

_xp = B.xp_of
_where = P.where


def _clamp_t_fwd(self, min, max):
    xp = _xp(self)
    out = self
    if min is not None:
        out = xp.maximum(out, min)
    if max is not None:
        out = xp.minimum(out, max)
    return out if out is not self else self.copy()


def _clamp_t_self(grad, self, min, max):
    keep = None
    if min is not None:
        keep = self >= min
    if max is not None:
        keep = self <= max if keep is None else keep & (self <= max)
    return _where(keep, grad, 0.0)


def _clamp_t_min(grad, self, min, max):
    below = self < min
    if max is not None:
        below = below & (min < max)
    return _where(below, grad, 0.0)


def _clamp_t_max(grad, self, min, max):
    above = self > max
    if min is not None:
        above = above | (max < min)
    return _where(above, grad, 0.0)


CLAMP_T = defop("clamp_tensor", "ClampBackward0", _clamp_t_fwd, promote=True,
                inputs=("self", "min", "max"), broadcast=True, self=_clamp_t_self,
                min=_clamp_t_min, max=_clamp_t_max)


def clamp_tensor(input, min, max):
    """``clamp`` where a bound is a tensor (called by ``pointwise.clamp``)."""
    if not all(b is None or isinstance(b, Tensor) for b in (min, max)):
        kinds = ", ".join(type(b).__name__ for b in (min, max))
        raise TypeError(f"clamp(): min and max must both be tensors or both be numbers "
                        f"(got {kinds}); make the number a tensor with torch.tensor(...)")
    try:
        return dispatch(CLAMP_T, (input, min, max))
    except ValueError:
        raise P._bshape_err("clamp", input, min if min is not None else max) from None


# -- clamp_min / clamp_max ----------------------------------------------------------------

CLAMP_MIN = defop("clamp_min", "ClampMinBackward0", lambda self, min: _xp(self).maximum(
    self, _xp(self).asarray(min, dtype=self.dtype)), attrs=("min",),
    self=lambda grad, self, min: _where(self >= min, grad, 0.0))
CLAMP_MAX = defop("clamp_max", "ClampMaxBackward0", lambda self, max: _xp(self).minimum(
    self, _xp(self).asarray(max, dtype=self.dtype)), attrs=("max",),
    self=lambda grad, self, max: _where(self <= max, grad, 0.0))
CLAMP_MIN_T = defop("clamp_min_tensor", "ClampMinBackward1", lambda self, min: _xp(
    self).maximum(self, min), promote=True, inputs=("self", "min"), broadcast=True,
    self=lambda grad, self, min: _where(self >= min, grad, 0.0),
    min=lambda grad, self, min: _where(self < min, grad, 0.0))
CLAMP_MAX_T = defop("clamp_max_tensor", "ClampMaxBackward1", lambda self, max: _xp(
    self).minimum(self, max), promote=True, inputs=("self", "max"), broadcast=True,
    self=lambda grad, self, max: _where(self <= max, grad, 0.0),
    max=lambda grad, self, max: _where(self > max, grad, 0.0))


def _one_sided(name, row, row_t, bound, doc):
    def fn(input, bound_value, *, out=None):
        from .args import with_out
        b = P._coerce(bound_value, input)
        if isinstance(b, Tensor):
            try:
                r = dispatch(row_t, (input, b))
            except ValueError:
                raise P._bshape_err(name, input, b) from None
        else:
            if input._data.dtype.kind in "iub" and isinstance(b, float):
                input = input.to(B.default_float())   # clamp_min(int tensor, 1.5): float
            r = dispatch(row, (input,), (b,))
        return with_out(r, out, name)

    def fn_(self, bound_value):
        b = P._coerce(bound_value, self)
        if isinstance(b, Tensor):
            return apply_inplace(row_t, self, (b,), name=name + "_")
        return apply_inplace(row, self, (), (b,), name=name + "_")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = f"In-place ``{name}`` (``torch.Tensor.{name}_``)."
    method(name)(fn)
    method(name + "_")(fn_)
    return fn, fn_


clamp_min, clamp_min_ = _one_sided("clamp_min", CLAMP_MIN, CLAMP_MIN_T, "min", """Raise
    every value below ``min`` (a number or a tensor) to it, as ``torch.clamp_min`` (=
    ``clamp(x, min=...)``, but its own node: ``ClampMinBackward0``, or
    ``ClampMinBackward1`` for a tensor bound, which also gets the gradient where it won).""")
clamp_max, clamp_max_ = _one_sided("clamp_max", CLAMP_MAX, CLAMP_MAX_T, "max", """Lower
    every value above ``max`` to it, as ``torch.clamp_max`` (``ClampMaxBackward0`` /
    ``ClampMaxBackward1``).""")


def clip_(input, min=None, max=None):
    """``torch.clip_`` / ``torch.clamp_``: clamp ``input`` in place (``input.clamp_``)."""
    return input.clamp_(min, max)
