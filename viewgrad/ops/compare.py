"""Comparisons: elementwise (``<``, ``<=``, ``>``, ``>=``, ``==``, ``!=`` and lt/le/gt/ge/eq/ne,
isnan) and whole-tensor (isclose, allclose, equal, count_nonzero, all, any) — as PyTorch's,
with its argument checks and messages. None of them is differentiable (they record no
graph): their results are booleans or counts.
"""
from __future__ import annotations

from .. import backend as B
from ..autograd.recording import _device_of
from ..tensor import Tensor, _unique_dims, _wrap_dim
from .args import torch_type_name
from .operands import OTHER, method_form, need_tensor, operand as _operand
from .pointwise import _bshape_err
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .table import method, promoted_arrays

__all__ = ["isclose", "allclose", "equal", "count_nonzero", "all", "any", "isnan"]

_F32 = B.float32

_make = Tensor._make


def _reduce_dims(dim, ndim):
    """None: everything; an int or a sequence: those dims (an empty sequence: none, as
    PyTorch's all/any/count_nonzero); a 0-d tensor accepts dim 0 / -1."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = _unique_dims([_wrap_dim(int(d), ndim) for d in dims])
    return () if ndim == 0 else tuple(sorted(dims))


@method("isclose")
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (a bool tensor,
    broadcasting), as ``torch.isclose``; infinities are close to themselves, NaN only with
    ``equal_nan=True``. Both tensors must have the same dtype (PyTorch's rule: cast one
    with ``.to(other.dtype)`` first)."""
    need_tensor("isclose", other)
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"{torch_type_name(input.dtype)} did not match "
                           f"{torch_type_name(other.dtype)}: cast one with .to(other.dtype)")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    dev = _device_of((input, other))
    a, b = input._data, other._data
    try:
        if a.dtype.kind == "b":
            out = a == b
        else:
            out = dev.xp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    except ValueError:
        raise _bshape_err("isclose", input, other) from None
    return _make(dev.xp.asarray(out), dev)


@method("allclose")
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element of ``input`` is close to ``other`` (``isclose(...).all()``,
    a Python bool), as ``torch.allclose``: same dtype required, shapes broadcast."""
    need_tensor("allclose", other)
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


@method("equal")
def equal(input, other):
    """True when both tensors have the same shape and the same values (a Python bool), as
    ``torch.equal``: NaN is never equal to NaN; values compare across dtypes."""
    need_tensor("equal", other)
    dev = _device_of((input, other))
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(dev.xp.asarray(input._data == other._data).all())


@method("count_nonzero")
def count_nonzero(input, dim=None):
    """How many elements are non-zero (over ``dim``: an int or a tuple; all by default),
    an int64 tensor, as ``torch.count_nonzero``. NaN counts as non-zero. An empty
    ``dim`` counts over every dim (PyTorch's sum convention, unlike all/any's)."""
    empty = isinstance(dim, (tuple, list)) and not dim
    dims = None if empty else _reduce_dims(dim, input.dim())
    xp = input._device.xp
    n = (input._data != 0).sum(axis=dims)
    return _make(B.fresh_row_major(xp.asarray(n).astype(B.int64, copy=False)), input._device)


def _logical(name, input, dim, keepdim):
    dims = _reduce_dims(dim, input.dim())
    a = input._data
    xp = input._device.xp
    flags = a if a.dtype.kind == "b" else a != 0
    out = xp.asarray(getattr(flags, name)(axis=dims, keepdims=bool(keepdim)))
    # PyTorch keeps uint8 for uint8 inputs (the legacy "byte mask" dtype); else bool
    return _make(B.fresh_row_major(out.astype(B.uint8) if a.dtype == B.uint8 else out),
                 input._device)


@method("all")
def all(input, dim=None, keepdim=False):
    """True where every element (over ``dim``: an int or a tuple; all by default) is
    non-zero, as ``torch.all``: a bool tensor (uint8 for a uint8 input). An empty input
    is all True."""
    return _logical("all", input, dim, keepdim)


@method("any")
def any(input, dim=None, keepdim=False):
    """True where some element (over ``dim``: an int or a tuple; all by default) is
    non-zero, as ``torch.any``: a bool tensor (uint8 for a uint8 input). An empty input
    has none: False."""
    return _logical("any", input, dim, keepdim)


# -- elementwise comparisons (not differentiable: they build no graph) -----------------------

def _cmp(name, f):
    refusal = _CX.get(name)   # (<, <=, >, >=: Note [inputs PyTorch refuses])

    def op(self, other):
        if type(other) is not Tensor:
            other = _operand(other, self)   # Note [operators answer NotImplemented]
            if other is NotImplemented:
                return other
        dev = _device_of((self, other))   # mixing devices: the same error as every op
        # PyTorch compares in the promoted dtype: int64 with 2.5 in float32, uint8 with -1
        # as 255 (Note [wrapped integer scalars] in backend/dtypes.py), float32 with a 0-d float64
        # tensor in float32
        sd = self._data
        if isinstance(other, Tensor):
            od = other._data
            if od.dtype is not sd.dtype and od.dtype != sd.dtype:
                sd, od = promoted_arrays((self, other))
        else:
            od = other
            if sd.dtype is not _F32 and sd.dtype.kind != "f":
                if type(od) is int and sd.dtype.kind in "iu":
                    od = B.wrap_int_scalar(od, sd.dtype)   # the tensor's dtype is the result's
                else:
                    sd, od = promoted_arrays((self, other))
        if refusal is not None:
            _refuse(refusal, sd, od)
        try:
            r = f(sd, od)
        except ValueError:
            raise _bshape_err(name, self, other) from None
        if type(r) is B.HOST_ARRAY and r.ndim > 1:   # Note [an elementwise result's layout]
            r = B.iterator_layout(r, (self._data, other._data if isinstance(other, Tensor)
                                      else None), sd.dtype)
        return Tensor._make(r, dev)
    op.__name__ = name
    return op


for _n, _dn, _f in [
        ("lt", "__lt__", lambda a, b: a < b), ("le", "__le__", lambda a, b: a <= b),
        ("gt", "__gt__", lambda a, b: a > b), ("ge", "__ge__", lambda a, b: a >= b),
        ("eq", "__eq__", lambda a, b: a == b), ("ne", "__ne__", lambda a, b: a != b)]:
    _op = _cmp(_n, _f)
    method(_dn)(_op)
    method(_n)(method_form(_op, _n, OTHER))
# logical_* and bitwise_* (& | ^ ~) live in ops/logic.py


@method("isnan")
def isnan(self):
    return Tensor._make(self._device.xp.isnan(self._data), self._device)
