"""Unary pointwise math: trigonometric and hyperbolic functions and their inverses, the
exp/log variants, the error function family, rounding, rsqrt, frac, logit — each a row of
the derivatives table with PyTorch's node name and formula, a function ``vg.sin(x)``, a
method ``x.sin()`` and the in-place ``x.sin_()`` (through the in-place choke point).

Integer inputs of ops with real results become float32 first (``torch.sin`` of an
integer tensor is float32); rounding ops keep integer tensors as they are. What a formula
names is what gets saved, as in PyTorch: ``tan``, ``exp2``, ``expm1`` and ``rsqrt`` save
their RESULT, the others their input.
"""
from __future__ import annotations

import math

from .. import backend as B
from . import special
from .args import float_input, with_out
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from ..autograd.nodes import OpDef
from .lean import unary_method
from .table import METHODS, apply_inplace, defop, dispatch, method, zeros_grad

__all__ = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
           "atanh", "exp2", "expm1", "log2", "log10", "log1p", "erf", "erfc", "erfinv",
           "floor", "ceil", "round", "trunc", "frac", "rsqrt", "logit", "fix"]

_xp = B.xp_of
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)


def _unary(name, node, forward, formula, what, derivative, floating=True):
    """Declare the row ``name`` and make its function, method and in-place method."""
    op = defop(name, node, forward, self=formula)
    refusal = _CX.get(name)   # Note [inputs PyTorch refuses]

    def fn(input, *, out=None):
        if refusal is not None:
            _refuse(refusal, input)
        x = float_input(input) if floating else input
        return with_out(dispatch(op, (x,)), out, name)

    def fn_(self):
        if refusal is not None:
            _refuse(refusal, self)
        return apply_inplace(op, self, name=name + "_")

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{what}, elementwise: ``vg.{name}(x)`` or ``x.{name}()``, as "
                  f"``torch.{name}``{' (integer inputs give float32)' if floating else ''}."
                  f"\n\n    Backward (node ``{node}``): {derivative}. ``out=`` as in "
                  "PyTorch.")
    ufunc = getattr(forward, "ufunc", None)
    if ufunc is not None and floating:
        # a NumPy ufunc (Note [host ufuncs], table.py): the function and method take the
        # lean call (Note [lean methods], lean.py), ``fn`` is their teaching path
        op.host = B.host_ufunc(ufunc)
        fn = unary_method(op, fn, out=True)
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = (f"In-place ``{name}``: ``x.{name}_()`` overwrites x, as "
                   f"``torch.Tensor.{name}_``; recorded as ``{node}`` on x's history.")
    method(name)(fn)
    method(name + "_")(fn_)
    return fn


def _np(fname):
    forward = lambda self: getattr(_xp(self), fname)(self)  # noqa: E731
    forward.ufunc = fname   # (what _unary gives the row as its host ufunc)
    return forward


_zero_grad = zeros_grad   # (table.py: zeros, not grad * 0)


def _keep_int(fname):
    """Rounding on arrays; integer arrays are already whole (numpy would make floats)."""
    def fwd(self):
        if self.dtype.kind in "iub":
            return self.copy()
        return getattr(_xp(self), fname)(self)
    return fwd


sin = _unary("sin", "SinBackward0", _np("sin"), lambda grad, self: grad * self.cos(),
             "Sine", "grad * cos(x)")
cos = _unary("cos", "CosBackward0", _np("cos"), lambda grad, self: grad * -self.sin(),
             "Cosine", "grad * -sin(x)")
tan = _unary("tan", "TanBackward0", _np("tan"),
             lambda grad, result: grad * (1 + result * result),
             "Tangent", "grad * (1 + tan(x)²), from the saved result")
asin = _unary("asin", "AsinBackward0", _np("arcsin"),
              lambda grad, self: grad * (1 - self * self).rsqrt(),
              "Arcsine (inverse sine; torch.arcsin too)", "grad / sqrt(1 - x²)")
acos = _unary("acos", "AcosBackward0", _np("arccos"),
              lambda grad, self: -grad * (1 - self * self).rsqrt(),
              "Arccosine (torch.arccos too)", "-grad / sqrt(1 - x²)")
atan = _unary("atan", "AtanBackward0", _np("arctan"),
              lambda grad, self: grad / (1 + self * self),
              "Arctangent (torch.arctan too)", "grad / (1 + x²)")
sinh = _unary("sinh", "SinhBackward0", _np("sinh"), lambda grad, self: grad * self.cosh(),
              "Hyperbolic sine", "grad * cosh(x)")
cosh = _unary("cosh", "CoshBackward0", _np("cosh"), lambda grad, self: grad * self.sinh(),
              "Hyperbolic cosine", "grad * sinh(x)")
asinh = _unary("asinh", "AsinhBackward0", _np("arcsinh"),
               lambda grad, self: grad * (self * self + 1).rsqrt(),
               "Inverse hyperbolic sine (torch.arcsinh too)", "grad / sqrt(x² + 1)")
acosh = _unary("acosh", "AcoshBackward0", _np("arccosh"),
               lambda grad, self: grad * (self * self - 1).rsqrt(),
               "Inverse hyperbolic cosine (torch.arccosh too)", "grad / sqrt(x² - 1)")
atanh = _unary("atanh", "AtanhBackward0", _np("arctanh"),
               lambda grad, self: grad / (1 - self * self),
               "Inverse hyperbolic tangent (torch.arctanh too)", "grad / (1 - x²)")


# PyTorch records the in-place asinh_, acosh_ and atanh_ as AsinhBackward1 (...) nodes
# whose backward refuses: "the derivative for 'inplace version of asinh' is not
# implemented". The same nodes here (OpDefs of their own, not rows of the derivatives
# table: nothing to gradcheck); the functions and out-of-place methods differentiate.
def _inplace_refused(name, forward):
    def refuse(grad):
        raise NotImplementedError(f"the derivative for 'inplace version of {name}' is not "
                                  "implemented.")
    op = OpDef(name + "_", name.capitalize() + "Backward1", forward, ("self",), (),
               {"self": refuse}, False, False, False, None, None)

    def fn_(self):
        return apply_inplace(op, self, name=name + "_")
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = (f"In-place ``{name}`` (``torch.Tensor.{name}_``): recorded as PyTorch "
                   f"records it, ``{op.node_name}``, whose backward refuses.")
    method(name + "_", "arc" + name[1:] + "_")(fn_)


for _name, _fname in (("asinh", "arcsinh"), ("acosh", "arccosh"), ("atanh", "arctanh")):
    _inplace_refused(_name, _np(_fname))

exp2 = _unary("exp2", "Exp2Backward0", _np("exp2"),
              lambda grad, result: grad * result * _LN2,
              "2 to the power x", "grad * 2**x * ln 2, from the saved result")
expm1 = _unary("expm1", "Expm1Backward0", _np("expm1"),
               lambda grad, result: grad * (result + 1),
               "exp(x) - 1, accurate for small x", "grad * (expm1(x) + 1), from the result")
log2 = _unary("log2", "Log2Backward0", _np("log2"),
              lambda grad, self: grad / (self * _LN2), "Base-2 logarithm", "grad / (x ln 2)")
log10 = _unary("log10", "Log10Backward0", _np("log10"),
               lambda grad, self: grad / (self * _LN10), "Base-10 logarithm",
               "grad / (x ln 10)")
log1p = _unary("log1p", "Log1PBackward0", _np("log1p"),
               lambda grad, self: grad / (self + 1), "log(1 + x), accurate for small x",
               "grad / (1 + x)")
erf = _unary("erf", "ErfBackward0", special.erf,
             lambda grad, self: grad * _TWO_OVER_SQRT_PI * (-(self * self)).exp(),
             "The error function (torch.special.erf too)", "grad * 2/sqrt(pi) * exp(-x²)")
erfc = _unary("erfc", "ErfcBackward0", special.erfc,
              lambda grad, self: -grad * _TWO_OVER_SQRT_PI * (-(self * self)).exp(),
              "The complementary error function 1 - erf(x)", "-grad * 2/sqrt(pi) * exp(-x²)")
erfinv = _unary("erfinv", "ErfinvBackward0", special.erfinv,
                lambda grad, self: grad * _HALF_SQRT_PI * erfinv(self).square().exp(),
                "The inverse error function, on (-1, 1)",
                "grad * sqrt(pi)/2 * exp(erfinv(x)²), recomputed from the saved input")
floor = _unary("floor", "FloorBackward0", _keep_int("floor"), _zero_grad,
               "The largest whole number <= x", "zeros (a step function)", floating=False)
ceil = _unary("ceil", "CeilBackward0", _keep_int("ceil"), _zero_grad,
              "The smallest whole number >= x", "zeros (a step function)", floating=False)
trunc = _unary("trunc", "TruncBackward0", _keep_int("trunc"), _zero_grad,
               "x rounded toward zero (torch.fix too)", "zeros (a step function)",
               floating=False)
frac = _unary("frac", "FracBackward0", lambda self: self - _xp(self).trunc(self),
              lambda grad: grad, "The fractional part x - trunc(x)", "grad")
rsqrt = _unary("rsqrt", "RsqrtBackward0", lambda self: 1 / _xp(self).sqrt(self),
               lambda grad, result: -0.5 * grad * result * result * result,
               "1 / sqrt(x)", "-grad * rsqrt(x)³ / 2, from the saved result")
method("fix")(trunc)
method("arcsin")(asin)
method("arccos")(acos)
method("arctan")(atan)
method("arcsinh")(asinh)
method("arccosh")(acosh)
method("arctanh")(atanh)
fix = trunc
for _alias, _name in (("fix_", "trunc_"), ("arcsin_", "asin_"), ("arccos_", "acos_"),
                      ("arctan_", "atan_")):
    method(_alias)(METHODS[_name])   # (the same in-place op under PyTorch's other name)


# -- round(decimals=) and logit(eps=): rows with an argument --------------------------------

def _round_fwd(self, decimals):
    if self.dtype.kind in "iub":
        return self.copy()
    # halves to even, as PyTorch: round(0.5) == 0, round(2.5) == 2. With decimals, PyTorch's
    # formula in the tensor's own dtype (numpy's too; CuPy's differs in the last place:
    # -2.675 in float32 is -2.68 in PyTorch, -2.67 in CuPy's round)
    xp = _xp(self)
    if not decimals:
        return xp.rint(self)
    if decimals > 0:
        ten = 10.0 ** decimals
        return xp.rint(self * ten) / ten
    ten = 10.0 ** -decimals
    return xp.rint(self / ten) * ten


ROUND = defop("round", "RoundBackward0", _round_fwd, attrs=("decimals",),
              self=_zero_grad)
ROUND_DEC = defop("round_decimals", "RoundBackward1", _round_fwd, attrs=("decimals",),
                  self=_zero_grad)


@method("round")
def round(input, *, decimals=0, out=None):
    """Round to the nearest whole number (or to ``decimals`` decimal places), halves to
    even, as ``torch.round``: ``vg.round(x)``, ``x.round(decimals=2)``. Integer tensors
    stay as they are. Backward: zeros (``RoundBackward0``; ``RoundBackward1`` with
    decimals)."""
    _refuse(_CX["round_decimals" if decimals else "round"], input)
    op = ROUND_DEC if decimals else ROUND
    return with_out(dispatch(op, (input,), (int(decimals),)), out, "round")


@method("round_")
def round_(self, *, decimals=0):
    """In-place ``round`` (``torch.Tensor.round_``)."""
    _refuse(_CX["round_decimals" if decimals else "round"], self)
    op = ROUND_DEC if decimals else ROUND
    return apply_inplace(op, self, (), (int(decimals),), name="round_")


def _logit_fwd(self, eps):
    xp = _xp(self)
    if eps is not None:
        self = xp.clip(self, eps, 1 - eps)
    return xp.log(self / (1 - self))


def _logit_bwd(grad, self, eps):
    from .pointwise import where
    g = grad / (self * (1 - self))
    if eps is None:   # outside [0, 1] logit is NaN, and so is its gradient (PyTorch's)
        return where((self < 0) | (self > 1), math.nan, g)
    return where((self < eps) | (self > 1 - eps), 0.0, g)


LOGIT = defop("logit", "LogitBackward0", _logit_fwd, attrs=("eps",), self=_logit_bwd)


@method("logit")
def logit(input, eps=None, *, out=None):
    """The log-odds log(x / (1 - x)), inverse of sigmoid, as ``torch.logit``. With ``eps``
    the input is first clamped to [eps, 1 - eps] (and the gradient is zero outside).
    Backward (node ``LogitBackward0``): grad / (x (1 - x))."""
    _refuse(_CX["logit"], input)   # Note [inputs PyTorch refuses]
    x = float_input(input)
    return with_out(dispatch(LOGIT, (x,), (eps,)), out, "logit")


@method("logit_")
def logit_(self, eps=None):
    """In-place ``logit`` (``torch.Tensor.logit_``)."""
    _refuse(_CX["logit"], self)
    return apply_inplace(LOGIT, self, (), (eps,), name="logit_")
