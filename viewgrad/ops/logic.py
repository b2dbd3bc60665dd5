"""Predicates, logic and bits: isinf/isfinite/isposinf/isneginf/signbit, logical_and/or/
xor/not and bitwise_and/or/xor/not (with the operators ``& | ^ ~`` and their in-place
forms). None of them is differentiable: like PyTorch's, their results are bool or integer
tensors that never require grad.

Note [logical vs bitwise]: ``logical_*`` look at truth (nonzero) and always give bool, for
any dtype; ``bitwise_*`` (and the operators) work on the bits of integer and bool tensors,
keep the promoted integer dtype, and refuse floats as PyTorch does ("bitwise_and_cpu" not
implemented for 'Float'). So ``~mask`` on a bool tensor is logical not, ``~5`` is -6.
"""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor
from . import inplace as I
from . import pointwise as P
from .args import check_result_cast, with_out
from .args import torch_type_name
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .operands import need_tensor
from .table import _device_of, apply_inplace, method, promoted_arrays, promoted_dtype

__all__ = ["isinf", "isfinite", "isposinf", "isneginf", "signbit", "logical_and",
           "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
           "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift"]

_make = Tensor._make


def _pred(name, on_float, on_int, doc):
    refusal = _CX.get(name)   # Note [inputs PyTorch refuses]

    def fn(input, *, out=None):
        if refusal is not None:
            _refuse(refusal, input)
        d = input._data
        xp = input._device.xp
        r = on_float(xp, d) if d.dtype.kind in "fc" else on_int(xp, d)
        return with_out(_make(xp.asarray(r), input._device), out, name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    method(name)(fn)
    return fn


def _none(xp, d):
    return xp.zeros(d.shape, dtype=B.bool_)


isinf = _pred("isinf", lambda xp, d: xp.isinf(d), _none, """True where the value is +inf
    or -inf, as ``torch.isinf`` (integer tensors: all False).""")
isposinf = _pred("isposinf", lambda xp, d: d == float("inf"), _none, """True where the
    value is +inf, as ``torch.isposinf``.""")
isneginf = _pred("isneginf", lambda xp, d: d == float("-inf"), _none, """True where the
    value is -inf, as ``torch.isneginf``.""")
isfinite = _pred("isfinite", lambda xp, d: xp.isfinite(d),
                 lambda xp, d: xp.ones(d.shape, dtype=B.bool_), """True where the value is
    neither inf nor NaN, as ``torch.isfinite`` (integer tensors: all True).""")
signbit = _pred("signbit", lambda xp, d: xp.signbit(d), lambda xp, d: d < 0, """True where
    the sign bit is set, as ``torch.signbit``: negative values and -0.0.""")


# -- logical (Note [logical vs bitwise]) ------------------------------------------------------

def _truth(x, xp):
    return x if x.dtype.kind == "b" else x != 0


def _logical(name, f, doc):
    def fn(input, other, *, out=None):
        need_tensor(name, other)
        dev = _device_of((input, other))
        xp = dev.xp
        try:
            r = f(_truth(input._data, xp), _truth(other._data, xp))
        except ValueError:
            raise P._bshape_err(name, input, other) from None
        if type(r) is B.HOST_ARRAY and r.ndim > 1:   # Note [an elementwise result's layout]
            r = B.iterator_layout(r, (input._data, other._data),
                                  promoted_dtype((input, other)))
        return with_out(_make(xp.asarray(r), dev), out, name)

    def fn_(self, other):
        return _assign(self, fn(self, other), name + "_")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = f"In-place ``{name}`` (``torch.Tensor.{name}_``): self keeps its dtype."
    method(name)(fn)
    method(name + "_")(fn_)
    return fn


def _assign(self, value, name):
    """Write a non-differentiable result into self (through the in-place choke point, so
    the version counter and the graph see it): self's history becomes a copy of a
    constant, as ``x //= y`` does."""
    return apply_inplace(I.COPY, self, (value.to(self.dtype),), (self.dtype,), name=name)


logical_and = _logical("logical_and", lambda a, b: a & b, """True where both inputs are
    nonzero (any dtypes, broadcast), as ``torch.logical_and``; always bool. Compare ``&``,
    which is bitwise on integers (Note [logical vs bitwise]).""")
logical_or = _logical("logical_or", lambda a, b: a | b, """True where either input is
    nonzero, as ``torch.logical_or``; always bool.""")
logical_xor = _logical("logical_xor", lambda a, b: a ^ b, """True where exactly one input
    is nonzero, as ``torch.logical_xor``; always bool.""")


@method("logical_not")
def logical_not(input, *, out=None):
    """True where the input is zero (False), as ``torch.logical_not``; always bool. For a
    bool mask it is ``~mask``; for integers ``~`` flips bits instead."""
    d = input._data
    return with_out(_make(~d if d.dtype.kind == "b" else d == 0, input._device), out,
                    "logical_not")


@method("logical_not_")
def logical_not_(self):
    """In-place ``logical_not`` (``torch.Tensor.logical_not_``): self keeps its dtype."""
    return _assign(self, logical_not(self), "logical_not_")


# -- bitwise ---------------------------------------------------------------------------------

def _refuse_float(name, dtype):
    if dtype.kind not in "iub":
        raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                  f"'{torch_type_name(dtype)}' (bitwise ops work on "
                                  "integer and bool tensors; use logical_* for truth)")


def _bitwise(name, f, ops, doc, kernel=None):
    """``kernel``: the shifts' name in PyTorch's messages ("lshift"); shifts refuse bool."""
    def fn(input, other, *, out=None):
        if not isinstance(input, Tensor):   # 3 << t: the number as a 0-d tensor
            input = _scalar_tensor(input, other)
        other = P._coerce(other, input)   # a float number: refused as 'Float' below
        dev = _device_of((input, other))
        a, b = promoted_arrays([input, other])
        _refuse_float(kernel or name, a.dtype)
        if kernel is not None and a.dtype.kind == "b":
            raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'Bool\'')
        try:
            r = f(a, b)
        except ValueError:
            raise P._bshape_err(name, input, other) from None
        r = dev.xp.asarray(r).astype(a.dtype, copy=False)
        if type(r) is B.HOST_ARRAY and r.ndim > 1:   # Note [an elementwise result's layout]
            r = B.iterator_layout(r, (input._data, other._data if isinstance(other, Tensor)
                                      else None), a.dtype)
        return with_out(_make(r, dev), out, name)

    def fn_(self, other):
        other = P._coerce(other, self)
        # first, as PyTorch: int8 &= int64 is fine, bool &= 2 and int &= 2.5 are not
        check_result_cast(promoted_dtype((self, other)), self._data.dtype)
        return _assign(self, fn(self, other), name + "_")
    def rfn(self, other):       # other <op> self, e.g. 3 << t
        return fn(_scalar_tensor(other, self), self)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = f"In-place ``{name}`` (``torch.Tensor.{name}_``, ``{ops[2]}``)."
    method(name, ops[0])(fn)
    method(ops[1])(rfn)
    method(name + "_", ops[2])(fn_)
    return fn


def _scalar_tensor(v, like):
    """A Python number as a 0-d tensor that promotes as PyTorch's wrapped number
    (``pointwise.scalar_first``); beside another number, of its own dtype."""
    if isinstance(v, Tensor):
        return v
    if isinstance(like, Tensor):
        return P.scalar_first(v, like)
    from .factories import tensor
    return tensor(v)


bitwise_and = _bitwise("bitwise_and", lambda a, b: a & b, ("__and__", "__rand__", "__iand__"),
                       """Bitwise AND of integer or bool tensors (a number works too), as
    ``torch.bitwise_and`` and ``a & b``; on bool tensors it is logical and. Floats are
    refused (Note [logical vs bitwise]).""")
bitwise_or = _bitwise("bitwise_or", lambda a, b: a | b, ("__or__", "__ror__", "__ior__"),
                      """Bitwise OR, as ``torch.bitwise_or`` and ``a | b``.""")
bitwise_xor = _bitwise("bitwise_xor", lambda a, b: a ^ b, ("__xor__", "__rxor__", "__ixor__"),
                       """Bitwise XOR, as ``torch.bitwise_xor`` and ``a ^ b``.""")


bitwise_left_shift = _bitwise(
    "bitwise_left_shift", lambda a, b: a << b, ("__lshift__", "__rlshift__", "__ilshift__"),
    """Shift the bits of integers left (``x << n`` is x·2ⁿ), as
    ``torch.bitwise_left_shift`` and ``<<``; bool tensors are refused.""", "lshift")
bitwise_right_shift = _bitwise(
    "bitwise_right_shift", lambda a, b: a >> b, ("__rshift__", "__rrshift__", "__irshift__"),
    """Shift the bits of integers right (arithmetic: ``-8 >> 1 == -4``), as
    ``torch.bitwise_right_shift`` and ``>>``; bool tensors are refused.""", "rshift")


@method("bitwise_not")
def bitwise_not(input, *, out=None):
    """Flip every bit of an integer tensor (``~5 == -6``), logical not of a bool tensor, as
    ``torch.bitwise_not`` and ``~x``. Floats are refused."""
    _refuse_float("bitwise_not", input._data.dtype)
    return with_out(_make(~input._data, input._device), out, "bitwise_not")


@method("__invert__")
def _invert(self):
    if self._data.dtype.kind not in "iub":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type"
                        " tensors")
    return bitwise_not(self)


@method("bitwise_not_")
def bitwise_not_(self):
    """In-place ``bitwise_not`` (``torch.Tensor.bitwise_not_``)."""
    return _assign(self, bitwise_not(self), "bitwise_not_")
