"""Activation functions with their own rows in the derivatives table, named as PyTorch
names their nodes: leaky_relu (LeakyReluBackward0), elu (EluBackward0), gelu
(GeluBackward0, whose backward is itself an op, GeluBackwardBackward0, so that double
backward works as in PyTorch), softplus (SoftplusBackward0), silu (SiluBackward0),
hardtanh (HardtanhBackward0).

The rest of the family (relu6, mish, logsigmoid, softsign, hardswish...) are composites of
these in ``viewgrad/nn/functional.py``: their graphs show the pieces.
"""
from __future__ import annotations

import math

from .. import backend as B
from . import special
from .table import defop, dispatch

__all__ = ["leaky_relu", "elu", "gelu", "softplus", "silu", "hardtanh"]

_xp = B.xp_of
_SQRT_HALF = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _float_mask(cond, like):
    return cond.to(like.dtype)


def _leaky_fwd(self, negative_slope):
    return _xp(self).where(self > 0, self, self * negative_slope).astype(self.dtype,
                                                                          copy=False)


LEAKY_RELU = defop("leaky_relu", "LeakyReluBackward0", _leaky_fwd, attrs=("negative_slope",),
                   self=lambda grad, self, negative_slope: grad * (
                       _float_mask(self > 0, grad) * (1 - negative_slope) + negative_slope))


def _elu_fwd(self, alpha):
    xp = _xp(self)
    neg = alpha * xp.expm1(xp.minimum(self, 0))
    return xp.where(self > 0, self, neg).astype(self.dtype, copy=False)


def _elu_bwd(grad, self, alpha):
    pos = _float_mask(self > 0, grad)
    return grad * (pos + (1 - pos) * alpha * self.clamp(max=0).exp())


ELU = defop("elu", "EluBackward0", _elu_fwd, attrs=("alpha",), self=_elu_bwd)


def _gelu_fwd(self):
    return (0.5 * self * (1 + special.erf(self * _SQRT_HALF))).astype(self.dtype, copy=False)


def _gelu_grad_fwd(grad, self):
    # d/dx x·Φ(x) = Φ(x) + x·φ(x)
    xp = _xp(self)
    cdf = 0.5 * (1 + special.erf(self * _SQRT_HALF))
    pdf = _INV_SQRT_2PI * xp.exp(-0.5 * self * self)
    return (grad * (cdf + self * pdf)).astype(self.dtype, copy=False)


def _gelu_second(ggrad, grad, self):
    # d/dx [Φ(x) + x·φ(x)] = φ(x)·(2 - x²)
    pdf = (self * self * -0.5).exp() * _INV_SQRT_2PI
    return ggrad * grad * pdf * (2 - self * self)


GELU_BACKWARD = defop("gelu_backward", "GeluBackwardBackward0", _gelu_grad_fwd,
                      inputs=("grad", "self"),
                      grad=lambda ggrad, self: gelu_backward(ggrad, self),
                      self=_gelu_second)
GELU = defop("gelu", "GeluBackward0", _gelu_fwd,
             self=lambda grad, self: gelu_backward(grad, self))


def gelu_backward(grad, self):
    """The gradient of gelu at ``self`` times ``grad`` (an op: double backward works)."""
    return dispatch(GELU_BACKWARD, (grad, self))


def _softplus_fwd(self, beta, threshold):
    xp = _xp(self)
    bx = self * beta
    soft = xp.logaddexp(0, bx) / beta
    return xp.where(bx > threshold, self, soft).astype(self.dtype, copy=False)


def _softplus_bwd(grad, self, beta, threshold):
    lin = _float_mask(self * beta > threshold, grad)
    return grad * (lin + (1 - lin) * (self * beta).sigmoid())


SOFTPLUS = defop("softplus", "SoftplusBackward0", _softplus_fwd, attrs=("beta", "threshold"),
                 self=_softplus_bwd)


def _silu_fwd(self):
    xp = _xp(self)
    return (self / (1 + xp.exp(-self))).astype(self.dtype, copy=False)


def _silu_bwd(grad, self):
    s = self.sigmoid()
    return grad * s * (1 + self * (1 - s))


SILU = defop("silu", "SiluBackward0", _silu_fwd, self=_silu_bwd)


def _hardtanh_fwd(self, min_val, max_val):
    return _xp(self).clip(self, min_val, max_val).astype(self.dtype, copy=False)


HARDTANH = defop("hardtanh", "HardtanhBackward0", _hardtanh_fwd, attrs=("min_val", "max_val"),
                 self=lambda grad, self, min_val, max_val: grad * _float_mask(
                     (self > min_val) & (self < max_val), grad))


def _check(input, name):
    from ..tensor import Tensor
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f'"{name}" not implemented for \'{B.dtype_name(input.dtype)}\'')
    return input


def leaky_relu(input, negative_slope=0.01):
    """``x`` where positive, ``negative_slope * x`` elsewhere (as torch's leaky_relu)."""
    return dispatch(LEAKY_RELU, (_check(input, "leaky_relu"),), (float(negative_slope),))


def elu(input, alpha=1.0):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere (as torch's elu)."""
    return dispatch(ELU, (_check(input, "elu"),), (float(alpha),))


def gelu(input, approximate="none"):
    """``x * Φ(x)`` (Φ: the standard normal CDF, via erf), as torch's gelu; with
    ``approximate='tanh'`` the tanh formula, built from viewgrad ops (its graph shows them)."""
    _check(input, "gelu")
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        return 0.5 * input * (1 + (k * (input + 0.044715 * input ** 3)).tanh())
    if approximate != "none":
        raise RuntimeError(f"approximate argument must be either none or tanh, got "
                           f"{approximate!r}")
    return dispatch(GELU, (input,))


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta x)) / beta``, linear where ``beta x > threshold`` (as torch)."""
    return dispatch(SOFTPLUS, (_check(input, "softplus"),), (float(beta), float(threshold)))


def silu(input):
    """``x * sigmoid(x)`` (swish), as torch's silu."""
    return dispatch(SILU, (_check(input, "silu"),))


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """``clamp(x, min_val, max_val)`` with zero gradient outside, as torch's hardtanh."""
    return dispatch(HARDTANH, (_check(input, "hardtanh"),), (float(min_val), float(max_val)))
