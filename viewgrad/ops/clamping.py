"""Clamping: ``clamp(x, min, max)`` with numbers (``ClampBackward1``) or tensors
(``ClampBackward0``), ``clamp_min`` / ``clamp_max`` (``ClampMinBackward0/1``,
``ClampMaxBackward0/1``) — rows of the derivatives table with PyTorch's names.

A bound that is a tensor gets a gradient too: where the input was clipped to it. Where
min > max PyTorch returns max, and the gradient goes to max.
"""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor
from . import pointwise as P
from .args import check_result_cast, cpp_type_name, torch_type_name
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .operands import invalid_combination
from .table import _LOW, apply_inplace, defop, dispatch, method, promoted_dtype

__all__ = ["clamp", "clamp_tensor", "tensor_bounds", "clamp_min", "clamp_max", "clamp_min_",
           "clamp_max_", "clip_"]

_xp = B.xp_of
_where = P.where
_C_NAMES = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}   # PyTorch's dtype categories


# -- clamp(x, min, max) with numbers: ClampBackward1 ------------------------------------------

def at_least(xp, a, bound):
    """max(a, bound) as PyTorch's clamp takes it: ``a`` unless it is below the bound (so
    clamp(-0., min=0.) is -0.), NaN from either side. One formula on every device: a
    GPU's max would give +0. there."""
    return xp.where((a < bound) | (bound != bound), bound, a)


def at_most(xp, a, bound):
    """min(a, bound), the same way."""
    return xp.where((a > bound) | (bound != bound), bound, a)


def _between(xp, x, lo, hi):
    """x clamped to [lo, hi] (either None: no bound), max last: where lo > hi, hi."""
    out = x
    if lo is not None:
        out = at_least(xp, out, lo)
    if hi is not None:
        out = at_most(xp, out, hi)
    return out if out is not x else x.copy()


def _clamp_fwd(x, min, max):
    xp = _xp(x)
    lo = None if min is None else xp.asarray(min, dtype=x.dtype)
    hi = None if max is None else xp.asarray(max, dtype=x.dtype)
    if min == min and max == max:   # (None == None) — no NaN bound: at_least's test,
        out = x                     # its NaN half left out, the same answers
        if lo is not None:
            out = xp.where(x < lo, lo, out)
        if hi is not None:
            out = xp.where(out > hi, hi, out)
        return out if out is not x else x.copy()
    return _between(xp, x, lo, hi)


def clamp_mask(self, min, max):
    """Where clamp's input was inside its bounds (a Tensor's, or an array's: the plain
    backward's kernel takes it too, ops/fast_pointwise.py)."""
    mask = None
    if min is not None:
        mask = self >= min
    if max is not None:
        m2 = self <= max
        mask = m2 if mask is None else mask & m2
    return mask


def _clamp_bwd(grad, self, min, max):
    # PyTorch's where(mask, grad, 0): zeros are +0. (grad * mask gives -0. for a negative
    # grad), and a NaN input gets 0
    return _where(clamp_mask(self, min, max), grad, 0.0)


CLAMP = defop("clamp", "ClampBackward1", _clamp_fwd, attrs=("min", "max"), self=_clamp_bwd)


def tensor_bounds(name, self, min, max):
    """``(True, min, max)`` when clamp's bounds are tensors (or None: ClampBackward0's
    overload), ``(False, min, max)`` with numbers. A tensor beside a number: PyTorch's
    parser takes a 0-d tensor that needs no gradient as a Number (the numbers' overload,
    ClampBackward1); any other mix it refuses."""
    if not (isinstance(min, Tensor) or isinstance(max, Tensor)):
        return False, min, max
    if all(b is None or isinstance(b, Tensor) for b in (min, max)):
        return True, min, max
    if not all(not isinstance(b, Tensor) or (b.dim() == 0 and not b.requires_grad)
               for b in (min, max)):
        raise TypeError(invalid_combination(name, (self, min, max)))
    return False, *(b.item() if isinstance(b, Tensor) else b for b in (min, max))


@method("clamp", "clip")
def clamp(self, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    _refuse(_CX["clamp"], self, min, max)   # Note [inputs PyTorch refuses]
    tensors, min, max = tensor_bounds("clamp", self, min, max)
    if tensors:
        return clamp_tensor(self, min, max)   # ClampBackward0
    self, min, max = number_bounds(self, min, max, False)
    return dispatch(CLAMP, (self,), (min, max))


def number_bounds(self, min, max, inplace):
    """clamp's number bounds of an integer, bool or float16 tensor, PyTorch's way: the
    result dtype is the promoted one (bool with -2 is int64, int with 1.5 is float32),
    which an in-place clamp_ must be able to write into self; bool by bool is refused;
    each bound is converted with PyTorch's overflow check (an unsigned dtype's negative
    wraps: uint8 with -1 clamps at 255). Returns (self, min, max) to clamp."""
    dt = self._data.dtype
    if dt.char not in _LOW:
        return self, min, max
    rt = promoted_dtype((self, min, max))
    if inplace and _C_NAMES[rt.kind] > _C_NAMES[dt.kind]:   # PyTorch names self's C type
        raise RuntimeError(f"result type {torch_type_name(rt)} can't be cast to the "
                           f"desired output type {cpp_type_name(dt)}")
    if rt.kind == "b":
        kernel = "clamp" if min is not None and max is not None else \
            "clamp_min" if min is not None else "clamp_max"
        raise NotImplementedError(f"\"{kernel}_scalar_cpu\" not implemented for 'Bool'")
    if rt != dt:
        self = self.to(rt)
    if rt.kind in "iu" or rt == B.float16:
        min, max = (None if b is None else P.number_as(b, rt) for b in (min, max))
    return self, min, max


# -- clamp(x, min_t, max_t) with tensors: ClampBackward0 -------------------------------------


def _clamp_t_fwd(self, min, max):
    return _between(_xp(self), self, min, max)


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
    """``clamp`` where a bound is a tensor (called by ``clamp``)."""
    try:
        return dispatch(CLAMP_T, (input, min, max))
    except ValueError:
        raise P._bshape_err("clamp", input, min if min is not None else max) from None


# -- clamp_min / clamp_max ----------------------------------------------------------------

CLAMP_MIN = defop("clamp_min", "ClampMinBackward0", lambda self, min: at_least(
    _xp(self), self, _xp(self).asarray(min, dtype=self.dtype)), attrs=("min",),
    self=lambda grad, self, min: _where(self >= min, grad, 0.0))
CLAMP_MAX = defop("clamp_max", "ClampMaxBackward0", lambda self, max: at_most(
    _xp(self), self, _xp(self).asarray(max, dtype=self.dtype)), attrs=("max",),
    self=lambda grad, self, max: _where(self <= max, grad, 0.0))
CLAMP_MIN_T = defop("clamp_min_tensor", "ClampMinBackward1", lambda self, min: at_least(
    _xp(self, min), self, min), promote=True, inputs=("self", "min"), broadcast=True,
    self=lambda grad, self, min: _where(self >= min, grad, 0.0),
    min=lambda grad, self, min: _where(self < min, grad, 0.0))
CLAMP_MAX_T = defop("clamp_max_tensor", "ClampMaxBackward1", lambda self, max: at_most(
    _xp(self, max), self, max), promote=True, inputs=("self", "max"), broadcast=True,
    self=lambda grad, self, max: _where(self <= max, grad, 0.0),
    max=lambda grad, self, max: _where(self > max, grad, 0.0))




def _one_sided(name, row, row_t, bound, doc):
    def number(t, b, inplace):
        """clamp's number_bounds for this side alone (clamp_min: min)."""
        t, lo, hi = number_bounds(t, b, None, inplace) if bound == "min" else \
            number_bounds(t, None, b, inplace)
        return t, (lo if bound == "min" else hi)

    def fn(input, bound_value, *, out=None):
        from .args import with_out
        _refuse(_CX["clamp"], input, bound_value)   # Note [inputs PyTorch refuses]
        b = P._coerce(bound_value, input)
        if isinstance(b, Tensor):
            try:
                r = dispatch(row_t, (input, b))
            except ValueError:
                raise P._bshape_err(name, input, b) from None
        else:
            if input._data.dtype.char in _LOW:   # integers, bools, float16
                input, b = number(input, b, False)
            r = dispatch(row, (input,), (b,))
        return with_out(r, out, name)

    def fn_(self, bound_value):
        _refuse(_CX["clamp"], self, bound_value)
        b = P._coerce(bound_value, self)
        if self._data.dtype.char in _LOW:   # integers, bools, float16: PyTorch's checks
            rt = promoted_dtype((self, b))
            if isinstance(b, Tensor) or _C_NAMES[rt.kind] <= _C_NAMES[self._data.dtype.kind]:
                check_result_cast(rt, self._data.dtype)
            else:   # with a number PyTorch names self's C type ("long int")
                raise RuntimeError(f"result type {torch_type_name(rt)} can't be cast to the "
                                   f"desired output type {cpp_type_name(self._data.dtype)}")
            if isinstance(b, Tensor):
                if rt.kind in "iu" and b._data.dtype != rt:
                    b = b.to(rt)   # uint8 with a 0-d int64 -2 compares with 254
            else:
                _, b = number(self, b, True)
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
