"""More elementwise math with PyTorch's derivatives: maximum/minimum and fmax/fmin (how the
gradient is shared on ties), copysign, xlogy, logaddexp/logaddexp2, heaviside, nextafter,
float_power, sinc, deg2rad/rad2deg, nan_to_num and ``div(rounding_mode=)`` — each a row
of the derivatives table with PyTorch's node name (``clamp`` with tensor bounds:
ops/clamping.py).

Note [ties in maximum]: where ``self == other`` PyTorch's ``maximum``/``minimum`` give
each input HALF the gradient (the subgradient in the middle), while ``fmax``/``fmin`` give
it all to ``self``, and to the non-NaN operand where the other one is NaN (fmax ignores
NaN, maximum propagates it).

Integer inputs of ops whose result is real (xlogy, copysign, sinc, deg2rad) are first
cast to the default float dtype, as PyTorch does; ``logaddexp`` and ``nextafter`` refuse
them with PyTorch's "not implemented for 'Long'".
"""
from __future__ import annotations

import functools
import math

from .. import backend as B
from ..tensor import Tensor
from . import clamping as C
from . import pointwise as P
from .args import check_result_cast, float_input, torch_type_name, with_out
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .operands import function_form, need_tensor
from .table import (METHODS, apply_inplace, defop, dispatch, method, promoted_arrays,
                    promoted_dtype)

__all__ = ["maximum", "minimum", "fmax", "fmin", "copysign", "xlogy", "logaddexp",
           "logaddexp2", "heaviside", "nextafter", "float_power", "sinc", "deg2rad",
           "rad2deg", "nan_to_num", "nan_to_num_", "true_divide", "divide", "clip",
           "torch_type_name", "xlogy_", "sinc_", "deg2rad_", "rad2deg_"]

_xp = B.xp_of
_where = P.where

def _binary(op, a, b, name):
    try:
        return dispatch(op, (a, b))
    except ValueError:
        raise P._bshape_err(name, a, b) from None


def _floats(name, *xs):
    """Cast the tensors to the default float dtype when their result type is integral
    (torch.xlogy of two int tensors is float32)."""
    rt = promoted_arrays(list(xs))
    kinds = [a.dtype.kind for a, x in zip(rt, xs) if isinstance(x, Tensor)]
    if kinds and kinds[0] in "iub":
        return tuple(float_input(x) if isinstance(x, Tensor) else float(x) for x in xs)
    return xs


def _refuse_ints(name, *xs):
    arrays = promoted_arrays(list(xs))
    for a, x in zip(arrays, xs):
        if isinstance(x, Tensor) and a.dtype.kind in "iub":
            raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                      f"'{torch_type_name(a.dtype)}' (convert the inputs "
                                      "with .float() first)")


def _zeros(grad, shape):
    return grad.new_zeros(shape)


# -- maximum / minimum / fmax / fmin (Note [ties in maximum]) ----------------------------

def _split(grad, self, other, lose):
    """grad where this input won, grad / 2 on ties, 0 where it lost."""
    return _where(self == other, grad / 2, _where(lose, 0.0, grad))


MAXIMUM = defop("maximum", "MaximumBackward0", lambda self, other: _xp(self).maximum(
    self, other), promote=True, inputs=("self", "other"), broadcast=True,
    self=lambda grad, self, other: _split(grad, self, other, self < other),
    other=lambda grad, self, other: _split(grad, self, other, self > other))
MINIMUM = defop("minimum", "MinimumBackward0", lambda self, other: _xp(self).minimum(
    self, other), promote=True, inputs=("self", "other"), broadcast=True,
    self=lambda grad, self, other: _split(grad, self, other, self > other),
    other=lambda grad, self, other: _split(grad, self, other, self < other))


def _wins(self, other, ge):
    # fmax: self gets the gradient where self >= other, or where other is NaN
    return (self >= other if ge else self <= other) | other.isnan()


FMAX = defop("fmax", "FmaxBackward0", lambda self, other: _xp(self).fmax(self, other),
             promote=True, inputs=("self", "other"), broadcast=True,
             self=lambda grad, self, other: _where(_wins(self, other, True), grad, 0.0),
             other=lambda grad, self, other: _where(_wins(self, other, True), 0.0, grad))
FMIN = defop("fmin", "FminBackward0", lambda self, other: _xp(self).fmin(self, other),
             promote=True, inputs=("self", "other"), broadcast=True,
             self=lambda grad, self, other: _where(_wins(self, other, False), grad, 0.0),
             other=lambda grad, self, other: _where(_wins(self, other, False), 0.0, grad))


def _extremum(op, name, doc):
    def fn(input, other, *, out=None):
        need_tensor(name, other, 2, "other")
        _refuse(_CX[name], input, other)   # Note [inputs PyTorch refuses]
        return with_out(_binary(op, input, other, name), out, name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    method(name)(fn)
    return fn


maximum = _extremum(MAXIMUM, "maximum", """The elementwise larger of two tensors (broadcast),
    as ``torch.maximum``; NaN in either input gives NaN (``fmax`` ignores NaN). Backward
    (``MaximumBackward0``): the gradient goes to the larger input, half to each on ties
    (Note [ties in maximum]). Compare ``max(dim)``, a reduction.""")
minimum = _extremum(MINIMUM, "minimum", """The elementwise smaller of two tensors, as
    ``torch.minimum``; NaN propagates. Backward (``MinimumBackward0``): to the smaller
    input, half to each on ties.""")
fmax = _extremum(FMAX, "fmax", """The elementwise larger of two tensors ignoring NaN (the
    other value is taken), as ``torch.fmax``. Backward (``FmaxBackward0``): all of the
    gradient to ``input`` on ties (unlike ``maximum``, which halves it).""")
fmin = _extremum(FMIN, "fmin", """The elementwise smaller of two tensors ignoring NaN, as
    ``torch.fmin``. Backward (``FminBackward0``): all of it to ``input`` on ties.""")


# -- copysign, xlogy ------------------------------------------------------------------------

def _copysign_self(grad, self, result):
    # d/dx copysign(x, s) = copysign(x, s) / x, taken as 0 at x == 0 (PyTorch's choice):
    # PyTorch divides everywhere and masks the quotient, so its double backward at x == 0
    # is NaN; computing 0/0 there too gives the same (never a silent 0)
    return grad * _where(self == 0, 0.0, result / self)


COPYSIGN = defop("copysign", "CopysignBackward0", lambda self, other: _xp(self).copysign(
    self, other), promote=True, inputs=("self", "other"), broadcast=True,
    # (other's gradient is zeros of its size, kept hidden: PyTorch's node keeps only
    # other's size and type too, shown as no _saved_ name; Note [hidden saved values])
    self=_copysign_self, other=lambda grad, _other_shape: _zeros(grad, _other_shape))
COPYSIGN_S = defop("copysign_scalar", "CopysignBackward1", lambda self, other: _xp(
    self).copysign(self, other), attrs=("other",), self=_copysign_self)


@method("copysign")
def copysign(input, other, *, out=None):
    """``|input|`` with the sign of ``other`` (a tensor or a number; -0.0 counts as
    negative), as ``torch.copysign``; integer inputs give the default float dtype.
    Backward: grad·copysign(x, s)/x for input, 0 at input == 0 (``CopysignBackward0``;
    ``CopysignBackward1`` for a number ``other``); none for ``other``."""
    _refuse(_CX["copysign"], input, other)   # Note [inputs PyTorch refuses]
    other = P._coerce(other, input)
    if isinstance(other, Tensor):
        a, b = _floats("copysign", input, other)
        return with_out(_binary(COPYSIGN, a, b, "copysign"), out, "copysign")
    return with_out(dispatch(COPYSIGN_S, (float_input(input),), (float(other),)), out,
                    "copysign")


@method("copysign_")
def copysign_(self, other):
    """In-place ``copysign`` (``torch.Tensor.copysign_``)."""
    _refuse(_CX["copysign"], self, other)
    other = P._coerce(other, self)
    if self._data.dtype.kind in "iub":   # copysign's result is floating: never fits
        rt = promoted_dtype((self, other))
        check_result_cast(rt if rt.kind == "f" else B.default_float(), self._data.dtype)
    if isinstance(other, Tensor):
        return apply_inplace(COPYSIGN, self, (other,), name="copysign_")
    return apply_inplace(COPYSIGN_S, self, (), (float(other),), name="copysign_")


def _xlogy_fwd(self, other):
    xp = _xp(self, other)
    if not B.is_array(other):
        other = xp.asarray(other, dtype=self.dtype)
    if not B.is_array(self):
        self = xp.asarray(self, dtype=other.dtype)
    pos = other > 0
    # log(y): -inf at 0, NaN below (computed without numpy's divide/invalid warnings)
    logy = xp.where(pos, xp.log(xp.where(pos, other, 1)),
                    xp.where(other == 0, -math.inf, math.nan))
    out = self * xp.where(self == 0, 0, logy)     # 0 where x == 0, even for y == 0
    dt = B.result_type(self.dtype, other.dtype)
    return xp.where(xp.isnan(other), math.nan, out).astype(dt, copy=False)


def _xlogy_self(grad, self, other):
    # PyTorch's xlogy(grad, other), 0 where self == 0 and other <= 0: at self == 0 the
    # gradient is grad * log(other) (the one-sided limit), not 0
    g = xlogy(grad, other)
    if isinstance(self, Tensor) or isinstance(other, Tensor):
        return P.where((self == 0) & (other <= 0), 0.0, g)
    return g


XLOGY = defop("xlogy", "XlogyBackward0", _xlogy_fwd, promote=True,
              inputs=("self", "other"), broadcast=True, self=_xlogy_self,
              other=lambda grad, self, other: grad * self / other)
XLOGY_S1 = defop("xlogy_scalar_self", "XlogyBackward1", lambda other, self: _xlogy_fwd(
    self, other), inputs=("other",),
    attrs=("self",), other=lambda grad, self, other: grad * self / other)
XLOGY_S2 = defop("xlogy_scalar_other", "XlogyBackward2", _xlogy_fwd, attrs=("other",),
                 self=_xlogy_self)


@method("xlogy")
def xlogy(input, other, *, out=None):
    """``input * log(other)``, but 0 where ``input == 0`` (unless other is NaN), as
    ``torch.xlogy`` / ``torch.special.xlogy``: the entropy term ``p log p`` without NaN at
    p = 0. Either argument may be a number. Backward: grad·xlogy(input != 0, other) for
    input, grad·input/other for other (``XlogyBackward0``; 1 and 2 for a number self /
    other)."""
    _refuse(_CX["xlogy"], input, other)   # Note [inputs PyTorch refuses]
    if not isinstance(input, Tensor):
        need_tensor("xlogy", other, 2, "other")
        (o,) = _floats("xlogy", other)
        return with_out(dispatch(XLOGY_S1, (o,), (float(input),)), out, "xlogy")
    other = P._coerce(other, input)
    if not isinstance(other, Tensor):
        return with_out(dispatch(XLOGY_S2, (float_input(input),), (float(other),)), out,
                        "xlogy")
    a, b = _floats("xlogy", input, other)
    return with_out(_binary(XLOGY, a, b, "xlogy"), out, "xlogy")


@method("xlogy_")
def xlogy_(self, other):
    """In-place ``xlogy`` (``torch.Tensor.xlogy_``)."""
    _refuse(_CX["xlogy"], self, other)
    other = P._coerce(other, self)
    if self._data.dtype.kind in "iub":   # xlogy's result is floating: never fits
        rt = promoted_dtype((self, other))
        check_result_cast(rt if rt.kind == "f" else B.default_float(), self._data.dtype)
    if isinstance(other, Tensor):
        return apply_inplace(XLOGY, self, (other,), name="xlogy_")
    return apply_inplace(XLOGY_S2, self, (), (float(other),), name="xlogy_")


# -- logaddexp, logaddexp2 ------------------------------------------------------------------

LOGADDEXP = defop("logaddexp", "LogaddexpBackward0", lambda self, other: _xp(self).logaddexp(
    self, other), promote=True, inputs=("self", "other"), broadcast=True,
    self=lambda grad, self, other: grad / (1 + (other - self).exp()),
    other=lambda grad, self, other: grad / (1 + (self - other).exp()))
LOGADDEXP2 = defop("logaddexp2", "Logaddexp2Backward0", lambda self, other: _xp(
    self).logaddexp2(self, other), promote=True, inputs=("self", "other"), broadcast=True,
    self=lambda grad, self, other: grad / (1 + 2 ** (other - self)),
    other=lambda grad, self, other: grad / (1 + 2 ** (self - other)))


def _logadd(op, name, doc):
    def fn(input, other, *, out=None):
        need_tensor(name, other, 2, "other")
        _refuse(_CX[name], input, other)   # Note [inputs PyTorch refuses]
        _refuse_ints(name, input, other)
        return with_out(_binary(op, input, other, name), out, name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    method(name)(fn)
    return fn


logaddexp = _logadd(LOGADDEXP, "logaddexp", """``log(exp(input) + exp(other))`` computed
    without overflow, as ``torch.logaddexp`` (float tensors only). Backward
    (``LogaddexpBackward0``): grad / (1 + exp(other - input)) and symmetrically.""")
logaddexp2 = _logadd(LOGADDEXP2, "logaddexp2", """``log2(2**input + 2**other)`` without
    overflow, as ``torch.logaddexp2``. Backward (``Logaddexp2Backward0``):
    grad / (1 + 2**(other - input)) and symmetrically.""")


# -- heaviside, nextafter (values with no useful derivative) ---------------------------------

def _no_derivative(name):
    def formula(grad):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return formula


def _heaviside_fwd(self, values):
    xp = _xp(self)
    step = (self > 0).astype(self.dtype)
    return xp.where(self == 0, values, step).astype(self.dtype, copy=False)


HEAVISIDE = defop("heaviside", "NotImplemented", _heaviside_fwd, inputs=("self", "values"),
                  broadcast=True, self=_no_derivative("heaviside"),
                  values=_no_derivative("heaviside"))


@method("heaviside")
def heaviside(input, values, *, out=None):
    """The step function: 0 where input < 0, 1 where input > 0 and ``values`` where input
    == 0, as ``torch.heaviside`` (``values`` must be a tensor of input's dtype). Like
    PyTorch it has no derivative: its node is ``NotImplemented`` and backward through it
    raises."""
    need_tensor("heaviside", values, 2, "values")
    _refuse(_CX["heaviside"], input, values)   # Note [inputs PyTorch refuses]
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different "
                           "dtypes.")
    return with_out(_binary(HEAVISIDE, input, values, "heaviside"), out, "heaviside")


@method("heaviside_")
def heaviside_(self, values):
    """In-place ``heaviside`` (``torch.Tensor.heaviside_``)."""
    heaviside(self, values)          # the same checks
    return apply_inplace(HEAVISIDE, self, (values,), name="heaviside_")


NEXTAFTER = defop("nextafter", "NextafterBackward0", lambda self, other: _xp(
    self).nextafter(self, other), promote=True, inputs=("self", "other"), broadcast=True,
    self=lambda grad, self, other: _where(self != other, grad, 0.0),
    other=lambda grad, other_shape: _zeros(grad, other_shape))


@method("nextafter")
def nextafter(input, other, *, out=None):
    """The next floating-point value after ``input`` towards ``other``, as
    ``torch.nextafter`` (float tensors only): ``nextafter(x, inf) - x`` is one ulp.
    Backward (``NextafterBackward0``): grad for input (0 where input == other), none for
    other."""
    need_tensor("nextafter", other, 2, "other")
    _refuse(_CX["nextafter"], input, other)   # Note [inputs PyTorch refuses]
    _refuse_ints("nextafter", input, other)
    return with_out(_binary(NEXTAFTER, input, other, "nextafter"), out, "nextafter")


@method("nextafter_")
def nextafter_(self, other):
    """In-place ``nextafter`` (``torch.Tensor.nextafter_``)."""
    if isinstance(other, Tensor):   # PyTorch's order: the cast first, then the kernel
        check_result_cast(promoted_dtype((self, other)), self._data.dtype)
    r = nextafter(self, other)           # the same checks
    check_result_cast(r._data.dtype, self._data.dtype)
    return apply_inplace(NEXTAFTER, self, (other,), name="nextafter_")


# -- float_power, sinc, deg2rad / rad2deg ----------------------------------------------------

@method("float_power_")
def float_power_(self, exponent):
    """In-place ``float_power`` (``torch.Tensor.float_power_``): self must already be
    float64, as in PyTorch."""
    if self.dtype != B.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{torch_type_name(self.dtype)} but the operation's result "
                           "requires dtype Double")
    return self.pow_(exponent.to(B.float64) if isinstance(exponent, Tensor) else exponent)


@method("float_power")
def float_power(input, exponent, *, out=None):
    """``input ** exponent`` computed in float64 whatever the inputs' dtypes, as
    ``torch.float_power``: it is ``pow`` on the inputs cast to float64, so its node is
    ``PowBackward0`` (number exponent), ``PowBackward1`` (tensor exponent) or
    ``PowBackward2`` (number base)."""
    f64 = B.float64
    if _complex(input) or _complex(exponent):   # (in complex128, as PyTorch's)
        f64 = B.complex128
    if not isinstance(input, Tensor):
        return with_out(P.pow(input if isinstance(input, complex) else float(input),
                              exponent.to(f64)), out, "float_power")
    exponent = P._coerce(exponent, input)
    e = exponent.to(f64) if isinstance(exponent, Tensor) else (
        exponent if isinstance(exponent, complex) else float(exponent))
    return with_out(P.pow(input.to(f64), e), out, "float_power")


def _complex(x):
    return isinstance(x, complex) or (isinstance(x, Tensor) and x._data.dtype.kind == "c")


def _sinc_fwd(self):
    # half precision is computed in float32 and rounded once, as PyTorch's CPU kernel
    # does (NumPy's float16 sinc rounds pi*x first: sinc(2) came out -3e-4, not 0)
    x = self.astype("float32") if self.dtype == "float16" else self
    # sin(pi x) / (pi x), and 1 at 0: PyTorch's kernel (and NumPy's sinc, whose own
    # frame would let sinc(inf)'s "invalid value" warning escape Note [floating-point
    # warnings]: the ufuncs are called from here instead)
    xp = _xp(self)
    y = x * math.pi
    return xp.where(x == 0, 1, xp.sin(y) / y).astype(self.dtype, copy=False)


def _sinc_bwd(grad, self):
    # d/dx sin(pi x)/(pi x) = (pi x cos(pi x) - sin(pi x)) / (pi x²), PyTorch's
    # sinc_backward operation for operation: (grad * numerator) / (x * x * pi), and 0
    # where that denominator is 0 — at x == 0 and wherever x² underflows (x = 1e-310).
    # The masked entries are computed (0/0) and then replaced, as PyTorch's ``where``
    # does: so a double backward there is NaN, as PyTorch's, not a silent 0 (the true
    # second derivative at 0 is -pi²/3).
    den = self * self * math.pi
    px = self * math.pi
    return _where(den == 0, 0.0, grad * (px * px.cos() - px.sin()) / den)


SINC = defop("sinc", "SincBackward0", _sinc_fwd, self=_sinc_bwd)
_D2R = math.pi / 180
_R2D = 180 / math.pi
DEG2RAD = defop("deg2rad", "Deg2RadBackward0", lambda self: self * _D2R,
                self=lambda grad: grad * _D2R)
RAD2DEG = defop("rad2deg", "Rad2DegBackward0", lambda self: self * _R2D,
                self=lambda grad: grad * _R2D)


def _unary(op, name, doc):
    refusal = _CX.get(name)   # Note [inputs PyTorch refuses]

    def fn(input, *, out=None):
        if refusal is not None:
            _refuse(refusal, input)
        return with_out(dispatch(op, (float_input(input),)), out, name)

    def fn_(self):
        if refusal is not None:
            _refuse(refusal, self)
        if self._data.dtype.kind in "iub":   # a floating result never fits (PyTorch's words)
            check_result_cast(B.default_float(), self._data.dtype)
        return apply_inplace(op, self, name=name + "_")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = f"In-place ``{name}`` (``torch.Tensor.{name}_``)."
    method(name)(fn)
    method(name + "_")(fn_)
    return fn


sinc = _unary(SINC, "sinc", """The normalized sinc ``sin(pi x) / (pi x)``, 1 at x == 0, as
    ``torch.sinc`` (integer inputs give the default float dtype). Backward
    (``SincBackward0``): grad·(pi x cos(pi x) - sin(pi x)) / (pi x²), 0 at x == 0.""")
deg2rad = _unary(DEG2RAD, "deg2rad", """Degrees to radians (x·pi/180), as
    ``torch.deg2rad``. Backward (``Deg2RadBackward0``): grad·pi/180.""")
rad2deg = _unary(RAD2DEG, "rad2deg", """Radians to degrees (x·180/pi), as
    ``torch.rad2deg``. Backward (``Rad2DegBackward0``): grad·180/pi.""")


# -- nan_to_num -------------------------------------------------------------------------------

def _nan_to_num_fwd(self, nan, posinf, neginf):
    # (written into empty_like(self), as PyTorch's: the input's layout, a size-1 dim's too)
    if self.dtype.kind != "f":
        return B.layout_like(self.copy(), self)
    return B.layout_like(_xp(self).nan_to_num(self, nan=nan, posinf=posinf, neginf=neginf),
                         self)


NAN_TO_NUM = defop("nan_to_num", "NanToNumBackward0", _nan_to_num_fwd,
                   attrs=("nan", "posinf", "neginf"),
                   self=lambda grad, self: grad * self.isfinite())


@method("nan_to_num")
def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """Replace NaN by ``nan`` (0), +inf by ``posinf`` (the dtype's largest value) and -inf
    by ``neginf`` (its lowest), as ``torch.nan_to_num``; integer tensors are copied.
    Backward (``NanToNumBackward0``): grad where the input was finite, 0 elsewhere."""
    return with_out(dispatch(NAN_TO_NUM, (input,), _replacements(nan, posinf, neginf)), out,
                    "nan_to_num")


def _replacements(nan, posinf, neginf):
    """The three numbers as floats (``nan=None`` is 0, as PyTorch reads it; a 0-d tensor
    gives its value); posinf/neginf None stay None (the dtype's extremes)."""
    return (0.0 if nan is None else float(nan), None if posinf is None else float(posinf),
            None if neginf is None else float(neginf))


@method("nan_to_num_")
def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    """In-place ``nan_to_num`` (``torch.Tensor.nan_to_num_``)."""
    return apply_inplace(NAN_TO_NUM, self, (), _replacements(nan, posinf, neginf),
                         name="nan_to_num_")


# -- div with rounding_mode -------------------------------------------------------------------

def _div_mode_fwd(self, other, rounding_mode):
    # both arrays, already promoted to the result dtype (div_rounding makes a number 0-d)
    xp = _xp(self, other)
    if self.dtype.kind in "iub":
        # (an empty result divides nothing: PyTorch's kernel never runs)
        if self.size and bool((other == 0).any()):
            raise RuntimeError("ZeroDivisionError (integer division by zero; use a float "
                               "tensor to get inf instead)")
        q = xp.floor_divide(self, other)
        if rounding_mode == "trunc":   # floor rounds negative quotients away from zero
            q = q + ((xp.remainder(self, other) != 0) & ((self < 0) != (other < 0)))
        return q
    nz = other != 0
    safe = xp.where(nz, other, 1).astype(other.dtype)
    q = xp.floor_divide(self, safe) if rounding_mode == "floor" else xp.trunc(self / safe)
    if not bool(nz.all()):
        # x / 0: inf with the signs' product, NaN for 0 / 0 and NaN / 0 (without numpy's
        # warnings)
        inf = xp.where(xp.signbit(self) != xp.signbit(other), -math.inf, math.inf)
        q = xp.where(nz, q, xp.where((self == 0) | (self != self), math.nan, inf))
    return q.astype(self.dtype, copy=False)


DIV_MODE = defop("div_mode", "DivBackward2", _div_mode_fwd, promote=True,
                 inputs=("self", "other"), attrs=("rounding_mode",), broadcast=True,
                 self=lambda grad, self_shape: _zeros(grad, self_shape),
                 other=lambda grad, other_shape: _zeros(grad, other_shape))


def div_rounding_(self, other, rounding_mode):
    """``self.div_(other, rounding_mode=...)`` (called by ``inplace.div_``)."""
    div_rounding(self.detach(), other, rounding_mode)   # the same checks
    other = P._coerce(other, self)
    if not isinstance(other, Tensor):
        other = self.new_tensor(other).squeeze()
    return apply_inplace(DIV_MODE, self, (other,), (rounding_mode,), name="div_")


def div_rounding(input, other, rounding_mode):
    """``div(input, other, rounding_mode=...)`` (called by ``pointwise.div``)."""
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or "
                           f"'floor' but found '{rounding_mode}'")
    if not isinstance(input, Tensor) and isinstance(other, Tensor):   # div(5, t, ...)
        input = P.scalar_first(input, other)
    other = P._coerce(other, input)
    bools = [x._data.dtype.kind == "b" if isinstance(x, Tensor) else isinstance(x, bool)
             for x in (input, other)]
    if all(bools):
        raise NotImplementedError(f"\"div_{rounding_mode}_cpu\" not implemented for 'Bool'")
    if not isinstance(other, Tensor):   # the number as PyTorch's wrapped number promotes
        other = P.scalar_first(other, input)
    try:
        return dispatch(DIV_MODE, (input, other), (rounding_mode,))
    except ValueError:
        raise P._bshape_err("div", input, other) from None


@functools.partial(function_form, name="true_divide", overloads=(
    "Tensor dividend, Tensor divisor, *, Tensor out = None", "Tensor input, Number other"))
def true_divide(input, other, *, out=None):
    """``input / other``, always true division (integers give floats), as
    ``torch.true_divide`` — the same as ``div`` without ``rounding_mode``."""
    return with_out(P.div(input, other), out, "true_divide")


@functools.partial(function_form, name="divide", overloads=(
    "Tensor input, Tensor other, *, Tensor out = None",
    "Tensor input, Tensor other, *, str rounding_mode, Tensor out = None",
    "Tensor input, Number other", "Tensor input, Number other, *, str rounding_mode"))
def divide(input, other, *, rounding_mode=None, out=None):
    """``torch.divide``: the alias of ``div`` (true division, or ``rounding_mode='trunc'``
    / ``'floor'``)."""
    return with_out(P.div(input, other, rounding_mode=rounding_mode), out, "divide")


clip = C.clamp
sinc_ = METHODS["sinc_"]
deg2rad_ = METHODS["deg2rad_"]
rad2deg_ = METHODS["rad2deg_"]
