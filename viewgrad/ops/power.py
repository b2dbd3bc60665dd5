"""``pow`` (``**``, ``torch.pow``, ``Tensor.pow``, ``__rpow__``) and ``square``: the three
table rows of a power (PowBackward0: a tensor to a number; PowBackward1: a tensor to a
tensor; PowBackward2: a number to a tensor), their formulas with PyTorch's masks at
``x == 0``, and PyTorch's checks for integer, bool and float16 powers. (In-place
``pow_`` is in ops/inplace.py; ``float_power`` in ops/elementwise.py.)
"""
from __future__ import annotations

import math

from .. import backend as B
from ..tensor import Tensor
from .operands import EXPONENT, F_EXPONENT, function_form, method_form, operand as _operand
from .pointwise import FUNCTIONS, _bshape_err, _check_number
from .table import defop, dispatch, method, zeros_grad
from .where import where

__all__ = ["pow", "rpow", "square", "POW", "POW_T", "POW_S"]

_xp = B.xp_of
_F16 = B.float16


def _pow_self(grad, self, exponent):
    # PyTorch's pow_backward_self: where the exponent is 0 the gradient is 0 (not 0 * inf
    # = nan at self == 0).
    if isinstance(exponent, (int, float)):
        if exponent == 0:
            return zeros_grad(grad)
        return grad * exponent * self.pow(exponent - 1)
    return where(exponent == 0, 0.0, grad * (exponent * self.pow(exponent - 1)))


def _pow_exponent(grad, self, exponent, result):
    # d/de x**e = x**e * log(x); PyTorch's pow_backward_exponent masks x == 0 with e >= 0
    # to 0 instead of nan (0 * -inf); with e < 0 it is inf * -inf = -inf.
    if isinstance(self, Tensor):
        return grad * where((self == 0) & (exponent >= 0), 0.0, result * self.log())
    g = result * _log_scalar(self)
    if self == 0:
        g = where(exponent >= 0, 0.0, g)
    return grad * g


def _log_scalar(x):
    return math.log(x) if x > 0 else -math.inf if x == 0 else math.nan


def _c_power(self, exponent):
    """``self ** exponent`` elementwise as C's pow. NumPy's power loop takes sqrt where
    the exponent is 0.5 through a stride-0 operand (a 0-d tensor, an expanded one): NaN
    at -inf where pow, and PyTorch's tensor ** tensor, give inf. Such an exponent is laid
    out in full first."""
    xp = _xp(self, exponent)
    e = exponent
    if getattr(e, "dtype", None) is not None and e.dtype.kind == "f" and (e == 0.5).any():
        shape = xp.broadcast_shapes(xp.shape(self), e.shape)
        flat = (-1,) if shape else (1,)
        e = xp.ascontiguousarray(xp.broadcast_to(e, shape)).reshape(flat)
        if hasattr(self, "shape"):
            self = xp.ascontiguousarray(xp.broadcast_to(self, shape)).reshape(flat)
        return xp.power(self, e).reshape(shape)
    return xp.power(self, exponent)


def _pow_fwd(self, exponent):
    try:
        return _c_power(self, exponent)
    except ValueError:   # NumPy: "Integers to negative integer powers are not allowed"
        return _int_pow(self, exponent)


def _int_pow(base, exponent):
    """Integer ``base ** exponent`` with negative exponents as PyTorch computes them (C's
    integer division of 1 by base**-e): 1 for base 1, ±1 for base -1, 0 for any other
    base. (A negative Python-int exponent is refused before: ``pow`` below.)"""
    xp = _xp(base, exponent)
    neg = exponent < 0
    r = base ** xp.where(neg, 0, exponent)   # a broadcasting error surfaces here
    inv = xp.where(base == 1, 1, xp.where(base == -1, 1 - 2 * (exponent & 1), 0))
    return xp.where(neg, inv, r).astype(r.dtype, copy=False)


# Note [pow's special exponents]
# PyTorch's pow by a number takes a few exponents as other kernels (its optimised
# pow_tensor_scalar): 2 as x*x, 3 as x*x*x, -1 as 1/x, -2 as 1/(x*x), 0.5 as sqrt and -0.5
# as 1/sqrt. NumPy's ``**`` does the same for 2, -1 and 0.5; for 3, -2 and -0.5 it calls
# pow, whose one rounding gives other last bits than PyTorch's two (a third of the floats),
# and x ** -0.5 is +inf at -0 and 0 at -inf where PyTorch's 1/sqrt gives -inf and NaN. So
# those three are computed PyTorch's way, forward and in PowBackward0's x ** (e - 1).

def pow_number(self, exponent):
    """``self ** exponent`` for a Python number, on arrays, as PyTorch's pow computes it
    (Note [pow's special exponents])."""
    if getattr(self, "dtype", None) is not None and self.dtype.kind == "f":
        if exponent == 3:
            return self * self * self
        if exponent == -2:
            return 1 / (self * self)
        if exponent == -0.5:
            return 1 / _xp(self).sqrt(self)
    return self ** exponent


POW = defop("pow", "PowBackward0", pow_number,
            inputs=("self",), attrs=("exponent",), self=_pow_self)
POW_T = defop("pow_tensor", "PowBackward1", _pow_fwd,
              promote=True, inputs=("self", "exponent"), broadcast=True,
              self=_pow_self, exponent=_pow_exponent)
POW_S = defop("pow_scalar_base", "PowBackward2", _pow_fwd,
              promote=True, inputs=("self", "exponent"),
              exponent=_pow_exponent)


@method("__pow__")
def pow(self, exponent):
    """``self ** exponent``, as ``torch.pow``; NotImplemented for an exponent PyTorch
    does not take (Note [operators answer NotImplemented])."""
    exponent = _operand(exponent, self)
    if exponent is NotImplemented:
        return exponent
    if not isinstance(self, Tensor):
        if isinstance(self, bool) and exponent._data.dtype.kind == "b":   # (as __rpow__)
            raise NotImplementedError('"pow" not implemented for \'Bool\'')
        return dispatch(POW_S, (self, exponent))
    d = self._data.dtype
    if d.kind != "f" or d == _F16:   # integers, bools, float16: PyTorch's checks
        if d.kind == "b" and (isinstance(exponent, bool) or isinstance(
                exponent, Tensor) and exponent._data.dtype.kind == "b"):
            if isinstance(exponent, Tensor):
                raise NotImplementedError('"pow" not implemented for \'Bool\'')
            return self.clone() if exponent else self | True  # x**True is x, x**False is 1
        if isinstance(exponent, float) and d.kind in "iub":
            self = self.to(B.default_float())  # an integer tensor to a float power
        elif type(exponent) is int and d.kind in "iub":
            if exponent < 0:
                raise RuntimeError("Integers to negative integer powers are not allowed.")
            if d.kind == "b":
                self = self.to(B.int64)   # bool ** 2 is int64 (PyTorch's result type)
        if type(exponent) in (int, float):
            _check_number(exponent, self._data.dtype)
    if isinstance(exponent, Tensor):
        try:
            return dispatch(POW_T, (self, exponent))
        except ValueError:
            raise _bshape_err("pow", self, exponent) from None
    return dispatch(POW, (self,), (exponent,))


@method("__rpow__")
def rpow(self, other):
    other = _operand(other)   # (as radd)
    if other is NotImplemented:
        return other
    if isinstance(other, Tensor):
        return pow(other, self)
    if isinstance(other, bool) and self._data.dtype.kind == "b":
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    return dispatch(POW_S, (other, self))


method("pow")(method_form(pow, "pow", EXPONENT, "exponent"))


@method("square")
def square(self):
    return pow(self, 2)


FUNCTIONS["pow"] = function_form(pow, "pow", F_EXPONENT, "exponent")   # (viewgrad.pow)
