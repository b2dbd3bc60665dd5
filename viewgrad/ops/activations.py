"""Activation functions with their own rows in the derivatives table, named as PyTorch
names their nodes: leaky_relu (LeakyReluBackward0), elu and selu (EluBackward0), celu
(CeluBackward0), gelu (GeluBackward0, whose exact backward is itself an op,
GeluBackwardBackward0, so that double backward works as in PyTorch; the tanh
approximation is a row of its own), softplus (SoftplusBackward0), silu (SiluBackward0),
mish (MishBackward0), hardtanh (HardtanhBackward0), hardsigmoid (HardsigmoidBackward0),
hardswish (HardswishBackward0), log_sigmoid (LogSigmoidBackward0) and glu (GluBackward0).

What PyTorch itself builds from pieces (relu6 is hardtanh; softsign, tanhshrink and
softmin are composites) is composed the same way in ``viewgrad/nn/functional.py``, so
every graph shows the nodes PyTorch's graph shows.
"""
from __future__ import annotations

import math
import struct

from ..autograd.saved_names import show_given
from ..autograd.state import state as _st
from .. import backend as B
from . import pointwise as _P
from . import special
from ..tensor import Tensor
from .args import torch_type_name
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .lean import unary as _lean_unary   # Note [lean ops]
from .table import apply_inplace, defop, dispatch, method

__all__ = ["leaky_relu", "elu", "gelu", "softplus", "silu", "hardtanh", "selu", "celu",
           "mish", "hardsigmoid", "hardswish", "logsigmoid", "glu", "leaky_relu_", "elu_",
           "hardtanh_", "selu_", "celu_", "threshold", "hardshrink", "softshrink"]

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
    # minimum(0, x): NumPy answers its second operand on a tie, so -0. stays -0. and
    # expm1(-0.) is -0. — PyTorch's elu(-0.) (its x <= 0 branch); NaN stays NaN
    neg = alpha * xp.expm1(xp.minimum(_zero_like(self), self))
    return xp.where(self > 0, self, neg).astype(self.dtype, copy=False)


def _elu_bwd(grad, self, alpha):
    # PyTorch's elu_backward: x <= 0 takes the exp branch, anything else (NaN too) the
    # slope 1; its double backward masks x < 0 (elu_double_backward), so the exp's
    # argument stops at 0 and x = 0 has no second derivative
    return grad * _where(self <= 0, alpha * _where(self < 0, self, 0.0).exp(), 1.0)


def _zero_like(a):
    return _xp(a).zeros((), dtype=a.dtype)


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
    bx = self * beta
    lin = _float_mask(bx > threshold, grad)
    # PyTorch's double backward masks bx < threshold (softplus_double_backward): at
    # bx == threshold the sigmoid's value is used with no derivative (a NaN keeps its)
    soft = _where((bx < threshold) | (bx != bx), bx, bx.detach()).sigmoid()
    return grad * (lin + (1 - lin) * soft)


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


# grad inside (min, max), +0. outside (``grad * mask`` gave -0. for a negative grad); a NaN
# input gets 0, as PyTorch's float64 kernel (its float32 one lets the gradient pass)
HARDTANH = defop("hardtanh", "HardtanhBackward0", _hardtanh_fwd, attrs=("min_val", "max_val"),
                 self=lambda grad, self, min_val, max_val: _where(
                     (self > min_val) & (self < max_val), grad, 0.0))


def _check(input, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    if input._data.dtype.kind != "f":   # PyTorch's refusal, in its words (Note [inputs
        _refuse(_CX[name], input)        # PyTorch refuses], kernel_refusals.py)
    return input


def _run(op, input, attrs, name, inplace):
    """``op`` on ``input``; with ``inplace`` through the in-place choke point
    (``apply_inplace``: checks, write into ``input``, version bump, rebase), as
    ``F.<name>(x, inplace=True)`` writes into ``x`` in PyTorch."""
    _check(input, name)
    if inplace:
        return apply_inplace(_IN_PLACE.get(name, op), input, (), attrs, name=name + "_")
    if not attrs and op.host is not None:
        return _lean_unary(op, input)   # dispatch(op, (input,)): Note [lean ops]
    return dispatch(op, (input,), attrs)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``x`` where positive, ``negative_slope * x`` elsewhere (as torch's leaky_relu)."""
    return _run(LEAKY_RELU, input, (float(negative_slope),), "leaky_relu", inplace)


def elu(input, alpha=1.0, inplace=False):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere (as torch's elu)."""
    return _run(ELU, input, (float(alpha),), "elu", inplace)


def gelu(input, approximate="none"):
    """``x * Φ(x)`` (Φ: the standard normal CDF, via erf), as torch's gelu; with
    ``approximate='tanh'`` the tanh formula (the same GeluBackward0 node as PyTorch's)."""
    _check(input, "gelu")
    if approximate == "tanh":
        return dispatch(GELU_TANH, (input,))
    if approximate != "none":
        raise RuntimeError(f"approximate argument must be either none or tanh. (Got "
                           f"{approximate!r}.)")
    return _lean_unary(GELU, input)   # dispatch(GELU, (input,)): Note [lean ops]


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta x)) / beta``, linear where ``beta x > threshold`` (as torch)."""
    return dispatch(SOFTPLUS, (_check(input, "softplus"),), (float(beta), float(threshold)))


def silu(input, inplace=False):
    """``x * sigmoid(x)`` (swish), as torch's silu."""
    return _run(SILU, input, (), "silu", inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``clamp(x, min_val, max_val)`` with zero gradient outside, as torch's hardtanh."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if isinstance(input, Tensor) and input._data.dtype.kind in "iu":
        # an integer tensor is clamped to the bounds as its dtype holds them (PyTorch's
        # hardtanh of int64 is int64); no gradient: integers have none
        lo, hi = int(min_val), int(max_val)
        return input.clamp_(lo, hi) if inplace else input.clamp(lo, hi)
    return _run(HARDTANH, input, (float(min_val), float(max_val)), "hardtanh", inplace)


# -- the rest of PyTorch's one-node activations -----------------------------------------------
# Forward kernels on arrays; backward formulas in differentiable ops (double backward).

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_GELU_K = math.sqrt(2.0 / math.pi)


def _f32(v):
    """``v`` rounded to float32: constants PyTorch's kernels write as float literals."""
    return struct.unpack("f", struct.pack("f", v))[0]


def _cast(x, like):
    return x.astype(like.dtype, copy=False)


def _where(cond, a, b):
    return _P.where(cond, a, b)


SELU = defop("selu", "EluBackward0",
             lambda self: _cast(_SELU_SCALE * _elu_fwd(self, _SELU_ALPHA), self),
             self=lambda grad, self: _SELU_SCALE * _elu_bwd(grad, self, _SELU_ALPHA))
# PyTorch's EluBackward0 (elu and selu: one kernel) also shows its scale and input scale,
# and selu's alpha, as the doubles its kernel takes
ELU.node_cls._saved_scale = ELU.node_cls._saved_input_scale = property(lambda self: 1)
SELU.node_cls._saved_alpha = property(lambda self: 1.6732632423543772)
SELU.node_cls._saved_scale = property(lambda self: 1.0507009873554805)
SELU.node_cls._saved_input_scale = property(lambda self: 1)


def _celu_fwd(self, alpha):
    xp = _xp(self)
    # (minimum(0, x): -0. stays -0., as in _elu_fwd)
    return _cast(xp.where(self > 0, self, xp.minimum(0, alpha * xp.expm1(
        xp.minimum(_zero_like(self), self) / alpha))), self)


def _celu_bwd(grad, self, alpha):
    # PyTorch's formula takes 1 / alpha with alpha rounded to float32 (alpha.toFloat()):
    # the same rounding here keeps float64 gradients PyTorch's to the last bits
    inv = 1.0 / _f32(alpha)
    # (1.0, not 1 + 0 * self: at x = +inf that is NaN, where PyTorch's gradient is grad)
    # (x <= 0 the exp branch, NaN the slope 1; x < 0 for the second derivative: _elu_bwd)
    return grad * _where(self <= 0, alpha * inv * (_where(self < 0, self, 0.0) * inv).exp(),
                         1.0)


CELU = defop("celu", "CeluBackward0", _celu_fwd, attrs=("alpha",), self=_celu_bwd)


# -- the in-place forms: PyTorch's elu_ / selu_ / celu_ / leaky_relu_ nodes (the *Backward1
# rows) save the RESULT, since their input is overwritten; the formulas read it back.

def _leaky_result_bwd(grad, result, negative_slope):
    if negative_slope < 0:
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which "
            "is not supported. This is caused by calling in-place forward function with a "
            "negative slope, please call out-of-place version instead.")
    return grad * (_float_mask(result > 0, grad) * (1 - negative_slope) + negative_slope)


def _elu_result_bwd(grad, result, alpha, scale=1.0, input_scale=1.0):
    # result > 0: scale; else d/dx (alpha scale (exp(x input_scale) - 1)) read off the
    # result: input_scale (result + alpha scale)
    # (NaN: scale, as PyTorch; not scale + 0 * result: NaN at +inf. The double backward
    # masks result < 0, as elu_double_backward: the result stops at 0 there)
    return grad * _where(result <= 0, (_where(result < 0, result, 0.0) + alpha * scale)
                         * input_scale, scale)


LEAKY_RELU_ = defop("leaky_relu_", "LeakyReluBackward1", _leaky_fwd,
                    attrs=("negative_slope",), self=_leaky_result_bwd)
ELU_ = defop("elu_", "EluBackward1", _elu_fwd, attrs=("alpha",),
             self=lambda grad, result, alpha: _elu_result_bwd(grad, result, alpha))
SELU_ = defop("selu_", "EluBackward1", SELU.forward,
              self=lambda grad, result: _elu_result_bwd(grad, result, _SELU_ALPHA,
                                                        _SELU_SCALE))
CELU_ = defop("celu_", "CeluBackward1", _celu_fwd, attrs=("alpha",),
              self=lambda grad, result, alpha: _elu_result_bwd(grad, result, alpha, 1.0,
                                                               1.0 / _f32(alpha)))


# threshold: ``value`` where x <= threshold, x elsewhere — a NaN is not <= anything, so it
# stays NaN and its gradient passes (PyTorch's ``x <= threshold ? value : x``). The in-place
# form's node (ThresholdBackward1) reads the input as it was (apply_inplace saves it first).
def _threshold_fwd(self, threshold, value):
    xp = _xp(self)
    return xp.where(self <= threshold, xp.asarray(value, dtype=self.dtype), self)


def _threshold_bwd(grad, self, threshold):
    return dispatch(_P.THRESHOLD_BACKWARD, (grad, self), (threshold,))


THRESHOLD = defop("threshold", "ThresholdBackward0", _threshold_fwd,
                  attrs=("threshold", "value"), self=_threshold_bwd)
THRESHOLD_ = defop("threshold_", "ThresholdBackward1", _threshold_fwd,
                   attrs=("threshold", "value"), self=_threshold_bwd)
_IN_PLACE = {"leaky_relu": LEAKY_RELU_, "elu": ELU_, "selu": SELU_, "celu": CELU_,
             "threshold": THRESHOLD_}


def threshold(input, threshold, value, inplace=False):
    """``value`` where ``x <= threshold``, ``x`` elsewhere (as torch's threshold)."""
    return _run(THRESHOLD, input, (threshold, value), "threshold", inplace)


def _gelu_tanh_fwd(self):
    xp = _xp(self)
    return _cast(0.5 * self * (1 + xp.tanh(_GELU_K * (self + 0.044715 * self ** 3))), self)


def _gelu_tanh_bwd(grad, self):
    inner = _GELU_K * (self + 0.044715 * self ** 3)
    t = inner.tanh()
    d_inner = _GELU_K * (1 + 3 * 0.044715 * self * self)
    return grad * (0.5 * (1 + t) + 0.5 * self * (1 - t * t) * d_inner)


GELU_TANH = defop("gelu_tanh", "GeluBackward0", _gelu_tanh_fwd, self=_gelu_tanh_bwd)
GELU.node_cls._saved_approximate = property(lambda self: "none")   # (PyTorch's one node
GELU_TANH.node_cls._saved_approximate = property(lambda self: "tanh")   # shows which)


def _mish_fwd(self):
    xp = _xp(self)
    return _cast(self * xp.tanh(xp.logaddexp(0, self)), self)


def _mish_bwd(grad, self):
    from .activations import softplus as _sp
    t = _sp(self).tanh()
    return grad * (t + self * self.sigmoid() * (1 - t * t))


MISH = defop("mish", "MishBackward0", _mish_fwd, self=_mish_bwd)


def _hardsigmoid_fwd(self):
    return _cast(_xp(self).clip(self / 6 + 0.5, 0, 1), self)


# PyTorch's hardsigmoid_backward: grad / 6 strictly inside (-3, 3), 0 elsewhere (a where,
# not grad * mask: an infinite gradient outside gives 0, not NaN)
HARDSIGMOID = defop("hardsigmoid", "HardsigmoidBackward0", _hardsigmoid_fwd,
                    self=lambda grad, self: _where((self > -3) & (self < 3),
                                                   grad * _f32(1.0 / 6.0), 0.0))


def _hardswish_fwd(self):
    return _cast(self * _xp(self).clip(self + 3, 0, 6) / 6, self)


def _hardswish_bwd(grad, self):
    # PyTorch's hardswish_backward: 0 at and below -3, grad * (x/3 + 1/2) strictly inside,
    # grad at and above 3 (at x = -3 the gradient is 0 and at x = 3 it is grad: the
    # one-sided derivatives PyTorch picks); wheres, so an infinite grad gives no NaN
    # (its blend order: a NaN input is in neither outer branch and gets the middle's NaN)
    return _where(self <= -3, 0.0, _where(self >= 3, grad, grad * (self / 3 + 0.5)))


HARDSWISH = defop("hardswish", "HardswishBackward0", _hardswish_fwd, self=_hardswish_bwd)


def _logsigmoid_fwd(self, buffer):
    return _cast(-_xp(self).logaddexp(0, -self), self)


# PyTorch's log_sigmoid_forward returns a second output, ``buffer`` (exp(-|x|) on a CPU),
# which its node saves beside self: a tensor without history, an attribute here (made
# by ``logsigmoid`` when a node will save it). The formula does not read it.
LOGSIGMOID = defop("log_sigmoid", "LogSigmoidBackward0", _logsigmoid_fwd, attrs=("buffer",),
                   self=lambda grad, self, buffer: grad * (-self).sigmoid())


def _glu_fwd(self, dim):
    xp = _xp(self)
    a, b = xp.split(self, 2, axis=dim)
    return _cast(a / (1 + xp.exp(-b)), self)


def _glu_bwd(grad, self, dim):
    from .joining import cat
    a, b = self.chunk(2, dim)
    s = b.sigmoid()
    return cat([grad * s, grad * a * s * (1 - s)], dim)


GLU = defop("glu", "GluBackward0", _glu_fwd, attrs=("dim",), self=_glu_bwd)


def selu(input, inplace=False):
    """``scale * elu(x, alpha)`` with the self-normalising constants (PyTorch's node is
    EluBackward0 too)."""
    return _run(SELU, input, (), "selu", inplace)


def celu(input, alpha=1.0, inplace=False):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``, as torch's celu."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _run(CELU, input, (float(alpha),), "celu", inplace)


def mish(input, inplace=False):
    """``x * tanh(softplus(x))``, as torch's mish."""
    return _run(MISH, input, (), "mish", inplace)


def hardsigmoid(input, inplace=False):
    """``relu6(x + 3) / 6``: 0 below -3, 1 above 3, linear between (torch's hardsigmoid)."""
    return _run(HARDSIGMOID, input, (), "hardsigmoid", inplace)


def hardswish(input, inplace=False):
    """``x * relu6(x + 3) / 6``, as torch's hardswish."""
    return _run(HARDSWISH, input, (), "hardswish", inplace)


# PyTorch's functional in-place spellings: F.elu_(x) is F.elu(x, inplace=True)
def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def selu_(input):
    return selu(input, inplace=True)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def logsigmoid(input):
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large |x| (torch's logsigmoid)."""
    x = _check(input, "log_sigmoid_forward")
    buffer = None
    if _st.grad_enabled and not _st.inference and x.requires_grad:
        d = x._data
        buffer = Tensor._make(_xp(d).exp(-_xp(d).abs(d)), x._device)
    return dispatch(LOGSIGMOID, (x,), (buffer,))


def glu(input, dim=-1):
    """Gated linear unit: the first half of ``dim`` times the sigmoid of the second half
    (torch's glu)."""
    if isinstance(input, Tensor) and input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if isinstance(input, Tensor) and input.shape[dim % input.dim()] % 2:   # (PyTorch's order:
        d = dim % input.dim()                                                # the shape first)
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{input.shape[d]}")
    _check(input, "glu")
    d = dim % input.dim()
    return show_given(dispatch(GLU, (input,), (d,)), "dim", dim, d)   # (Note [dims as given])


# hardshrink / softshrink: 0 inside [-lambd, lambd] (a NaN is not inside: it stays NaN),
# the input (hardshrink) or the input moved towards 0 by lambd (softshrink) outside; the
# gradient passes outside only (a NaN's is 0, as PyTorch's shrink_backward gives it)
def _inside(self, lambd):
    return (self >= -lambd) & (self <= lambd)


def _shrink_bwd(grad, self, lambd):
    return _where((self > lambd) | (self < -lambd), grad, 0.0)


HARDSHRINK = defop("hardshrink", "HardshrinkBackward0",
                   lambda self, lambd: _xp(self).where(_inside(self, lambd), 0, self).astype(
                       self.dtype, copy=False), attrs=("lambd",), self=_shrink_bwd)
SOFTSHRINK = defop("softshrink", "SoftshrinkBackward0",
                   lambda self, lambd: _xp(self).where(
                       _inside(self, lambd), 0, _xp(self).where(
                           self > lambd, self - lambd, self + lambd)).astype(self.dtype,
                                                                             copy=False),
                   attrs=("lambd",), self=_shrink_bwd)


@method("hardshrink")
def hardshrink(input, lambd=0.5):
    """0 where ``|x| <= lambd``, ``x`` elsewhere (``torch.nn.functional.hardshrink``)."""
    return dispatch(HARDSHRINK, (_check(input, "hardshrink"),), (float(lambd),))


def softshrink(input, lambd=0.5):
    """0 where ``|x| <= lambd``, ``x - lambd * sign(x)`` elsewhere
    (``torch.nn.functional.softshrink``); ``lambd`` must not be negative."""
    _check(input, "softshrink")
    if lambd < 0:
        big = B.finfo_fields(input.dtype)["max"]
        raise RuntimeError(f"lambda must be in range [0, {big:g}] for input dtype "
                           f"{torch_type_name(input.dtype)}, but found {lambd:g}")
    return dispatch(SOFTSHRINK, (input,), (float(lambd),))


# the activations without arguments run their forward as their host function too (Note
# [host ufuncs], table.py: on a host array it is what dispatch would call), so that
# ``F.silu(y)`` takes lean.unary (Note [lean ops])
for _op in (GELU, SILU, MISH, HARDSIGMOID, HARDSWISH):   # (log_sigmoid: it takes a buffer)
    _op.host = _op.forward
