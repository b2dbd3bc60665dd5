"""Array-level backward kernels of the pointwise math rows (ops/fast.py's, for the rest).

Each kernel computes what its row's viewgrad formula computes, operation for operation
and in the same order (``grad * -sin(x)`` is a negation, then a product), on the arrays
of a plain backward: the formulas build a Tensor for every intermediate, which made a
program of ``sin`` or ``gelu`` three times slower to differentiate than one of ``tanh``.
A Python number in a formula is the cached 0-d operand of the gradient's dtype here
(``_number``), as viewgrad's ops make it (Note [cached scalar operands], backend/devices.py); a
comparison with a saved Python number is NumPy's, as the formula's ``self > 0`` is.

tests/ops/test_fast_kernels.py compares every kernel with its formula on the table's
samples, and tests/ops/test_fast_pointwise_bits.py bit for bit on float32 and float64
arrays with zeros, infinities, NaNs and the bounds of clamp and hardtanh.
"""
from __future__ import annotations

import math

from .. import backend as B
from .fast import _number, _ONES, _zeros_of as _zeros
from .pointwise import _sign_fwd, _sigmoid_fwd, _sigmoid_host
from .activations import _gelu_grad_fwd, _f32, _SELU_ALPHA, _SELU_SCALE
from .clamping import at_most, clamp_mask
from . import special
from .power import pow_number

__all__ = ["FAST_POINTWISE"]

_xp = B.xp_of
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _one(a):
    """The 0-d one of ``a``'s dtype (a formula's ``1 - x``)."""
    one = _ONES.get(a.dtype) if type(a) is B.HOST_ARRAY else None
    return one if one is not None else _number(a, 1.0)


def _rsqrt(x):
    return 1 / _xp(x).sqrt(x)   # rsqrt's forward (unary.py)


def _mask(cond, like):
    return cond.astype(like.dtype)   # the formulas' _float_mask: a bool tensor .to(dtype)


def _where0(mask, grad):
    return _xp(grad).where(mask, grad, _number(grad, 0.0))   # where(mask, grad, 0.0)


def _sigmoid(x):
    return _sigmoid_host(x) if type(x) is B.HOST_ARRAY else _sigmoid_fwd(x)


def _erf_grad(grad, self):
    return grad * _number(grad, _TWO_OVER_SQRT_PI) * _xp(self).exp(-(self * self))


def _silu(grad, self):
    s = _sigmoid(self)
    one = _one(self)
    return grad * s * (one + self * (one - s))


def _softplus(grad, self, beta, threshold):
    # (activations._softplus_bwd's: lin the mask of beta x > threshold, the sigmoid of
    # beta x elsewhere; the formula's where() chooses between two equal values)
    bx = self * _number(self, beta)
    lin = _mask(bx > threshold, grad)
    return grad * (lin + (_one(lin) - lin) * _sigmoid(bx))


def _elu(grad, self, alpha):
    # (activations._elu_bwd's: x <= 0 the exp branch, NaN the slope 1)
    xp = _xp(self)
    return xp.where(self <= 0, grad * (_number(grad, alpha)
                    * xp.exp(at_most(xp, self, xp.asarray(0, dtype=self.dtype)))), grad)


def _leaky(grad, self, negative_slope):
    return grad * (_mask(self > 0, grad) * _number(grad, 1 - negative_slope)
                   + _number(grad, negative_slope))


def _clamp(grad, self, min, max):
    return _where0(clamp_mask(self, min, max), grad)


def _split(grad, self, other, lose):
    """elementwise.py's ``_split``: grad where this input won, grad / 2 on ties, 0 where
    it lost."""
    xp = _xp(grad)
    return xp.where(self == other, grad / _number(grad, 2.0),
                    xp.where(lose, _number(grad, 0.0), grad))


def _pow(grad, self, exponent):
    if exponent == 0:
        return _zeros(grad)
    return grad * _number(grad, exponent) * pow_number(self, exponent - 1)   # (POW's forward)


FAST_POINTWISE = {
    "sin": dict(self=lambda grad, self: grad * _xp(self).cos(self)),
    "cos": dict(self=lambda grad, self: grad * -_xp(self).sin(self)),
    "tan": dict(self=lambda grad, result: grad * (_one(result) + result * result)),
    "asin": dict(self=lambda grad, self: grad * _rsqrt(_one(self) - self * self)),
    "acos": dict(self=lambda grad, self: -grad * _rsqrt(_one(self) - self * self)),
    "atan": dict(self=lambda grad, self: grad / (_one(self) + self * self)),
    "sinh": dict(self=lambda grad, self: grad * _xp(self).cosh(self)),
    "cosh": dict(self=lambda grad, self: grad * _xp(self).sinh(self)),
    "asinh": dict(self=lambda grad, self: grad * _rsqrt(self * self + _one(self))),
    "acosh": dict(self=lambda grad, self: grad * _rsqrt(self * self - _one(self))),
    "atanh": dict(self=lambda grad, self: grad / (_one(self) - self * self)),
    "exp2": dict(self=lambda grad, result: grad * result * _number(grad, _LN2)),
    "expm1": dict(self=lambda grad, result: grad * (result + _one(result))),
    "log2": dict(self=lambda grad, self: grad / (self * _number(self, _LN2))),
    "log10": dict(self=lambda grad, self: grad / (self * _number(self, _LN10))),
    "log1p": dict(self=lambda grad, self: grad / (self + _one(self))),
    "erf": dict(self=_erf_grad),
    "erfc": dict(self=lambda grad, self: _erf_grad(-grad, self)),
    "rsqrt": dict(self=lambda grad, result: _number(grad, -0.5) * grad * result * result
                  * result),
    "abs": dict(self=lambda grad, self: grad * _sign_fwd(self)),
    "pow": dict(self=_pow),
    "silu": dict(self=_silu),
    "softplus": dict(self=_softplus),
    "gelu": dict(self=lambda grad, self: _gelu_grad_fwd(grad, self)),
    "elu": dict(self=_elu),
    "selu": dict(self=lambda grad, self: _number(grad, _SELU_SCALE)
                 * _elu(grad, self, _SELU_ALPHA)),
    "leaky_relu": dict(self=_leaky),
    "hardtanh": dict(self=lambda grad, self, min_val, max_val:
                     _where0((self > min_val) & (self < max_val), grad)),
    "hardsigmoid": dict(self=lambda grad, self: _where0(
        (self > _number(self, -3.0)) & (self < _number(self, 3.0)),
        grad * _number(grad, _f32(1.0 / 6.0)))),
    "clamp": dict(self=_clamp),
    "clamp_min": dict(self=lambda grad, self, min: _where0(self >= min, grad)),
    "clamp_max": dict(self=lambda grad, self, max: _where0(self <= max, grad)),
    # (buffer unused, taken so that it is version-checked as the formula's)
    "log_sigmoid": dict(self=lambda grad, self, buffer: grad * _sigmoid(-self)),
    "maximum": dict(self=lambda grad, self, other: _split(grad, self, other, self < other),
                    other=lambda grad, self, other: _split(grad, self, other, self > other)),
    "minimum": dict(self=lambda grad, self, other: _split(grad, self, other, self > other),
                    other=lambda grad, self, other: _split(grad, self, other, self < other)),
    "sign": dict(self=_zeros),
    "floor": dict(self=_zeros),
    "ceil": dict(self=_zeros),
    "trunc": dict(self=_zeros),
    "round": dict(self=_zeros),
    "frac": dict(self=lambda grad: grad),
}

del special   # (imported so that erf's row exists before its kernel is installed)
