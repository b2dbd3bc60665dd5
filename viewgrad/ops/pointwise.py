"""Pointwise ops: arithmetic with broadcasting (and reflected forms), pow, abs, sqrt, exp,
log, tanh, sigmoid, relu. (``where`` is in ops/where.py, clamp in ops/clamping.py, the
elementwise comparisons in ops/compare.py; what an operand may be, in ops/operands.py.)

Each differentiable op is one ``defop`` row: forward on arrays, backward formula per input
in viewgrad ops, node name as in PyTorch. What a formula names is what gets saved: exp,
tanh, sigmoid, relu and sqrt save their RESULT (so modifying the output in place breaks
backward), mul saves the OTHER operand only when it requires grad.
"""
from __future__ import annotations

from .. import backend as B
from ..blas import add_scaled   # Note [alpha as one fused multiply-add]
from .args import checked_scalar
from .kernel_refusals import ERR_NEG_BOOL, REFUSALS as _CX, refuse as _refuse
from ..tensor import Tensor
from .operands import (OTHER, check_alpha, function_form, method_form,
                       operand as _operand)
from . import nn_fast as _nnf
from .lean import unary as _unary, with_number as _with_number   # Note [lean ops]
from .lean import with_constant as _with_constant
from .lean import operator_method as _operator_method, unary_method as _unary_method
from .table import (HALF_OPMATH, METHODS, apply_inplace, defop, dispatch, method,
                    promoted_dtype, zeros_grad)

__all__ = ["add", "sub", "mul", "div", "neg", "pow", "abs", "sqrt", "exp", "log", "tanh",
           "sigmoid", "relu", "where", "sign", "reciprocal", "rsub", "square"]


def _bshape_err(op, a, b):
    """PyTorch's broadcasting error (infer_size) for operands ``a`` and ``b`` (a number
    has no dims): ``table.broadcast_error`` of their shapes."""
    return B.broadcast_error(op, getattr(a, "shape", ()), getattr(b, "shape", ()))


_sc = B.scalar_operand  # Note [cached scalar operands] (backend/devices.py)


def _add_fwd(self, other):
    return self + (_sc(self, other) if type(other) is float else other)


def _sub_fwd(self, other):
    return self - (_sc(self, other) if type(other) is float else other)


def _mul_fwd(self, other):
    return self * (_sc(self, other) if type(other) is float else other)


ADD = defop("add", "AddBackward0", lambda self, other: self + other,
            promote=True, inputs=("self", "other"), broadcast=True,
            self=lambda grad: grad, other=lambda grad: grad)
# PyTorch wraps a Python scalar into a 0-d tensor: `x + 1` is AddBackward0 too.
ADD_SCALAR = defop("add_scalar", "AddBackward0", _add_fwd,
                   promote=True, inputs=("self", "other"), self=lambda grad: grad,
                   edge_for_every_input=True)
# ``add(other, alpha=a)`` / ``sub``: one node that keeps alpha as an attribute (not a saved
# tensor), as PyTorch's AddBackward0 does; other * alpha as its own op would record a
# MulBackward0 whose saved scalar is freed by backward. The forward rounds once, as
# PyTorch's does: Note [alpha as one fused multiply-add] (blas.py).


def _number_as_0d(self, other, alpha):
    """``x.add(2.5, alpha=a)`` on a float32/float64 tensor: PyTorch wraps the number as a
    0-d tensor (its AddBackward0 saves alpha) and rounds ``x + a * 2.5`` once; a bool or
    complex number, or another dtype, keeps ``other * alpha`` (PyTorch's promotion of a
    wrapped number differs from a 0-d tensor's there)."""
    return (type(self) is Tensor and type(other) in (int, float) and type(alpha) in (int, float)
            and self._data.dtype.char in "fd")


def _as_0d(self, number):
    return Tensor._make(self._device.xp.asarray(number, dtype=self._data.dtype), self._device)


def _add_alpha_fwd(self, other, alpha):
    r = add_scaled(self, other, alpha)
    return self + other * alpha if r is None else r


def _sub_alpha_fwd(self, other, alpha):
    r = add_scaled(self, other, -alpha)
    return self - other * alpha if r is None else r


ADD_ALPHA = defop("add_alpha", "AddBackward0", _add_alpha_fwd,
                  promote=True, inputs=("self", "other"), attrs=("alpha",), broadcast=True,
                  self=lambda grad: grad, other=lambda grad, alpha: grad * alpha)
SUB_ALPHA = defop("sub_alpha", "SubBackward0", _sub_alpha_fwd,
                  promote=True, inputs=("self", "other"), attrs=("alpha",), broadcast=True,
                  self=lambda grad: grad, other=lambda grad, alpha: grad * -alpha)
SUB = defop("sub", "SubBackward0", _sub_fwd,
            promote=True, inputs=("self", "other"), broadcast=True,
            self=lambda grad: grad, other=lambda grad: -grad)
RSUB = defop("rsub", "RsubBackward1", lambda self, other: other - self,
             promote=True, inputs=("self", "other"), self=lambda grad: -grad)
# Without alpha, PyTorch's AddBackward0, SubBackward0 and RsubBackward1 still save alpha,
# 1, readable as ``grad_fn._saved_alpha`` (a value, kept after backward)
for _op in (ADD, ADD_SCALAR, SUB, RSUB):
    _op.node_cls._saved_alpha = property(lambda self: 1)
del _op
MUL = defop("mul", "MulBackward0", _mul_fwd,
            promote=True, inputs=("self", "other"), broadcast=True,
            self=lambda grad, other: grad * other,
            other=lambda grad, self: grad * self)
DIV = defop("div", "DivBackward0", lambda self, other: self / other,
            promote=True, inputs=("self", "other"), broadcast=True,
            self=lambda grad, other: grad / other,
            # PyTorch's -grad * ((self / other) / other): other² would underflow (1e-200)
            other=lambda grad, self, other: -grad * ((self / other) / other))
# Note [a Scalar inside PyTorch's own composites]
# From Python, ``x * 0.5`` and ``x + 1e-6`` wrap the number as a 0-d tensor: MulBackward0,
# AddBackward0. Inside PyTorch's C++ composites (cross_entropy's label smoothing,
# pairwise_distance's eps) the number is a Scalar: ``mul.Scalar`` (MulBackward1, saving
# ``other`` as a number) and ``add.Scalar`` (AddBackward1, saving nothing). The same
# arithmetic; the composites here use these rows so their graphs read as PyTorch's.
MUL_SCALAR = defop("mul_scalar", "MulBackward1", _mul_fwd, attrs=("other",),
                   self=lambda grad, other: mul_scalar(grad, other))
ADD_SCALAR_OP = defop("add_scalar_op", "AddBackward1", _add_fwd, attrs=("other",),
                      self=lambda grad: grad)
SUB_SCALAR_OP = defop("sub_scalar_op", "SubBackward1", _sub_fwd, attrs=("other",),
                      self=lambda grad: grad)
DIV_SCALAR_OP = defop("div_scalar_op", "DivBackward1", lambda self, other: self / other,
                      attrs=("other",), self=lambda grad, other: div_scalar(grad, other))


def _integral(t, number, true_division=False):
    """An integer or bool ``t`` in the dtype PyTorch's ``<op>.Scalar`` computes it in with
    ``number`` (an int tensor with 1e-6: the default float; NumPy would take float64), and
    the number as that dtype takes it; a float ``t`` is returned as it is."""
    rt = promoted_dtype((t, number))
    if true_division and rt.kind in "iub":
        rt = B.default_float()
    return t.to(rt) if rt != t._data.dtype else t, (float(number) if rt.kind == "f"
                                                     else number)


def mul_scalar(t, number):
    """``t * number`` recorded as PyTorch's ``mul.Scalar`` (MulBackward1)."""
    if t._data.dtype.kind in "iub":
        t, number = _integral(t, number)
        return dispatch(MUL_SCALAR, (t,), (number,))
    return dispatch(MUL_SCALAR, (t,), (float(number),))


def add_scalar(t, number):
    """``t + number`` recorded as PyTorch's ``add.Scalar`` (AddBackward1)."""
    if t._data.dtype.kind in "iub":
        t, number = _integral(t, number)
        return dispatch(ADD_SCALAR_OP, (t,), (number,))
    return dispatch(ADD_SCALAR_OP, (t,), (float(number),))


def add_scalar_(t, number):
    """``t.add_(number)`` as PyTorch's C++ writes it (``add_.Scalar``: AddBackward1 in
    place, rms_norm's ``+ eps``)."""
    return apply_inplace(ADD_SCALAR_OP, t, (), (float(number),), name="add_")


def sub_scalar(t, number):
    """``t - number`` recorded as PyTorch's ``sub.Scalar`` (SubBackward1)."""
    if t._data.dtype.kind in "iub":
        t, number = _integral(t, number)
        return dispatch(SUB_SCALAR_OP, (t,), (number,))
    return dispatch(SUB_SCALAR_OP, (t,), (float(number),))


def div_scalar(t, number):
    """``t / number`` recorded as PyTorch's ``div.Scalar`` (DivBackward1, saving
    ``other``: the number, as given)."""
    if t._data.dtype.kind in "iub":
        t, _ = _integral(t, number, true_division=True)
    return dispatch(DIV_SCALAR_OP, (t,), (number,))


def scalar_sub(number, t):
    """``number - t`` as PyTorch's C++ writes it (``empty_like(t).fill_(number).sub_(t)``):
    an in-place SubBackward0 on a fresh tensor, whose first edge is empty."""
    from .factories import full_like
    return full_like(t, number).sub_(t)


HALF_OPMATH.update((MUL, DIV))   # Note [float16 with a number] (table.py)
NEG = defop("neg", "NegBackward0", lambda self: -self, self=lambda grad: -grad)
RECIPROCAL = defop("reciprocal", "ReciprocalBackward0", lambda self: 1 / self,
                   self=lambda grad, result: -grad * result * result)


_xp = B.xp_of
_HOST_ARRAY = B.HOST_ARRAY
_greater, _less, _subtract = (B.host_ufunc(n) for n in ("greater", "less", "subtract"))
_F32, _F64 = B.float32, B.float64
_ZERO32, _ZERO64 = _nnf._ZERO[_F32], _nnf._ZERO[_F64]   # (read-only 0-d zeros)


def _sign_fwd(self):
    # PyTorch's (0 < x) - (x < 0): sign(NaN) is 0 and sign(-0.) is +0. (NumPy's sign gives
    # NaN and -0.); for integers the same numbers as NumPy's
    kind = self.dtype.kind
    if kind == "f":
        if type(self) is _HOST_ARRAY and self.ndim:
            # a host float32/float64 array: the same comparisons with the cached zero
            # (comparing with the Python 0 converts it every call) and one subtraction
            # of the two masks as the dtype (1 - 0, 0 - 1, 0 - 0: the same numbers)
            dt = self.dtype
            z = _ZERO32 if dt is _F32 else _ZERO64 if dt is _F64 else None
            if z is not None:
                return _subtract(_greater(self, z), _less(self, z), dtype=dt)
        return ((self > 0).astype(self.dtype) - (self < 0).astype(self.dtype))
    if kind == "b":
        return self.copy()   # a bool's sign is itself (PyTorch); NumPy has no bool sign
    return _xp(self).sign(self)


SIGN = defop("sign", "SignBackward0", _sign_fwd,
             self=zeros_grad)  # not grad * 0: inf * 0 is NaN
# torch.sgn: the sign of a real tensor, recorded as PyTorch records it, SgnBackward0,
# which saves self and the result (its complex formula needs them; for real ones the
# gradient is zeros, as sign's)
SGN = defop("sgn", "SgnBackward0", _sign_fwd,
            self=lambda grad, self, result: zeros_grad(grad))
ABS = defop("abs", "AbsBackward0", lambda self: _xp(self).abs(self),
            self=lambda grad, self: grad * self.sign())
SQRT = defop("sqrt", "SqrtBackward0", lambda self: _xp(self).sqrt(self),
             self=lambda grad, result: grad / (2 * result))
EXP = defop("exp", "ExpBackward0", lambda self: _xp(self).exp(self),
            self=lambda grad, result: grad * result)
LOG = defop("log", "LogBackward0", lambda self: _xp(self).log(self),
            self=lambda grad, self: grad / self)
TANH = defop("tanh", "TanhBackward0", lambda self: _xp(self).tanh(self),
             self=lambda grad, result: grad * (1 - result * result))
# the forwards above that are a NumPy ufunc on host arrays (Note [host ufuncs], table.py)
for _op, _ufunc in ((ABS, "absolute"), (SQRT, "sqrt"), (EXP, "exp"), (LOG, "log"),
                    (TANH, "tanh"), (NEG, "negative")):
    _op.host = B.host_ufunc(_ufunc)


def _sigmoid_fwd(x):
    xp = _xp(x)
    # Stable for any x (tanh saturates, exp(-x) would overflow): sigmoid(x) =
    # (1 + tanh(x/2)) / 2, with one temporary, the rest in place.
    half = _sc(x, 0.5)
    y = xp.tanh(x * half)
    y *= half
    y += half
    return y if y.dtype == x.dtype else y.astype(x.dtype)


SIGMOID = defop("sigmoid", "SigmoidBackward0", _sigmoid_fwd,
                self=lambda grad, result: grad * result * (1 - result))


_multiply, _tanh, _add = (B.host_ufunc(n) for n in ("multiply", "tanh", "add"))
_HALF = {}   # dtype -> the cached 0-d 0.5 (Note [cached scalar operands])
for _a in (B.HOST_ARRAY((0,), "float32"), B.HOST_ARRAY((0,), "float64")):
    _HALF[_a.dtype] = _sc(_a, 0.5)
_HALF32, _HALF64 = _HALF[_F32], _HALF[_F64]


def _sigmoid_host(x):
    """``_sigmoid_fwd`` on a float32/float64 host array, the same four ufuncs in the same
    order (the same bits), their Python around them left out (Note [host ufuncs])."""
    dt = x.dtype   # Note [dtypes by identity] (ops/lean.py): the builtin objects first
    half = _HALF32 if dt is _F32 else _HALF64 if dt is _F64 else _HALF.get(dt)
    if half is None or not x.ndim:   # (a 0-d product is a NumPy scalar: no out= for it)
        return _sigmoid_fwd(x)
    y = _multiply(x, half)
    _tanh(y, y)
    _multiply(y, half, y)
    _add(y, half, y)
    return y


SIGMOID.host = _sigmoid_host


def _relu_fwd(x):
    # PyTorch's clamp_min: x unless x < 0 — so -0. stays -0. and NaN stays NaN (not
    # x * (x > 0): that gives -0. for negative x, where PyTorch prints 0.)
    if type(x) is B.HOST_ARRAY:
        return _relu_host(x)   # Note [relu on host arrays]
    return _relu_max(x)


def _relu_max(x):
    xp = _xp(x)
    return xp.where(x < 0, xp.asarray(0, dtype=x.dtype), x)


_relu_host = _nnf.relu_host(_relu_max)


def _threshold_backward_fwd(grad, self, threshold):
    # PyTorch's ``self <= threshold ? 0 : grad``: where self is NaN the gradient passes
    xp = _xp(grad)
    return xp.where(self <= threshold, xp.zeros((), dtype=grad.dtype), grad)


# relu's backward is itself an op (as in PyTorch's derivatives.yaml), so double backward
# through relu records ThresholdBackwardBackward0 with an edge to relu's result
THRESHOLD_BACKWARD = defop(
    "threshold_backward", "ThresholdBackwardBackward0", _threshold_backward_fwd,
    inputs=("grad_output", "self"), attrs=("threshold",),
    grad_output=lambda grad, self, threshold: dispatch(THRESHOLD_BACKWARD, (grad, self),
                                                       (threshold,)),
    self=zeros_grad)
RELU = defop("relu", "ReluBackward0", _relu_fwd, cls=_nnf.ReluNode,  # Note [relu's backward in place]
             self=lambda grad, result: dispatch(THRESHOLD_BACKWARD, (grad, result), (0,)))
RELU.host = _relu_host   # Note [relu on host arrays]


# -- the public functions -----------------------------------------------------------------

def _coerce(x, like):
    """Turn array-likes (lists, numpy arrays) into tensors on like's device; a NumPy scalar
    is the Python number it holds (``B.python_scalar``: PyTorch's weak-scalar rule)."""
    if type(x) is Tensor or type(x) is float or type(x) is int or type(x) is bool:
        return x
    x = B.python_scalar(x)
    if isinstance(x, (Tensor, int, float, bool)):
        return x
    from .factories import tensor
    return tensor(x, device=like.device if isinstance(like, Tensor) else None)


@method("__add__")
def add(self, other, alpha=1):
    """``self + alpha * other`` (broadcast), as ``torch.add``; NotImplemented for an
    operand PyTorch does not take (Note [operators answer NotImplemented], operands.py)."""
    if type(other) is float and alpha == 1 and alpha is not True and type(self) is Tensor:
        return _with_number(ADD_SCALAR, self, other)   # dispatch(ADD_SCALAR...): Note [lean ops]
    if type(other) is not Tensor:
        other = _operand(other, self)
        if other is NotImplemented:
            return other
    if alpha != 1 or alpha is True:   # (True == 1: torch checks a bool alpha)
        check_alpha("add", alpha)
        if isinstance(self, Tensor):
            alpha = _checked_alpha(self, other, alpha)
        if isinstance(self, Tensor) and isinstance(other, Tensor):
            try:
                return dispatch(ADD_ALPHA, (self, other), (alpha,))
            except ValueError:
                raise _bshape_err("add", self, other) from None
        if _number_as_0d(self, other, alpha):   # as torch: ADD_ALPHA, one rounding, alpha saved
            return dispatch(ADD_ALPHA, (self, _as_0d(self, other)), (alpha,))
        bool_result = promoted_dtype((self, other)).kind == "b"
        other = other * alpha
        if bool_result:   # bool + 2 * False stays bool (PyTorch computes in the result dtype)
            other = bool(other)
    if not isinstance(other, Tensor):
        return dispatch(ADD_SCALAR, (self, other))
    if not isinstance(self, Tensor):
        return dispatch(ADD_SCALAR, (other, self))
    try:
        return dispatch(ADD, (self, other))
    except ValueError:
        raise _bshape_err("add", self, other) from None


@method("__radd__")
def radd(self, other):
    # ndarray + x: refused, as PyTorch's reflected operators refuse it (x + ndarray is
    # computed: operands.operand)
    other = _operand(other)
    return other if other is NotImplemented else add(self, other)


method("add")(method_form(add, "add"))


def _check_bool_sub(a, b):
    """PyTorch refuses `-` on bools (NumPy raises a TypeError for two, and quietly
    promotes one)."""
    na = isinstance(a, bool) or (isinstance(a, Tensor) and a._data.dtype.kind == "b")
    nb = isinstance(b, bool) or (isinstance(b, Tensor) and b._data.dtype.kind == "b")
    if na and nb:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if na or nb:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")


@method("__sub__")
def sub(self, other, alpha=1):
    """``self - alpha * other`` (broadcast), as ``torch.sub``; NotImplemented for an
    operand PyTorch does not take (Note [operators answer NotImplemented])."""
    if type(other) is not Tensor and type(other) is not float:
        other = _operand(other, self)
        if other is NotImplemented:
            return other
    if alpha != 1 or alpha is True:   # (True == 1: torch checks a bool alpha)
        check_alpha("sub", alpha)
        _check_bool_sub(self, other)   # torch's sub_check comes before its alpha_check
        if isinstance(self, Tensor):
            alpha = _checked_alpha(self, other, alpha)
        if isinstance(self, Tensor) and isinstance(other, Tensor):
            try:
                return dispatch(SUB_ALPHA, (self, other), (alpha,))
            except ValueError:
                raise _bshape_err("sub", self, other) from None
        if _number_as_0d(self, other, alpha):   # as torch: SUB_ALPHA, one rounding, alpha saved
            return dispatch(SUB_ALPHA, (self, _as_0d(self, other)), (alpha,))
        other = other * alpha
    if type(other) is not float or type(self) is not Tensor or self._data.dtype.kind == "b":
        _check_bool_sub(self, other)
    elif type(other) is float:
        return _with_number(SUB, self, other)   # dispatch(SUB, ...): Note [lean ops]
    try:
        return dispatch(SUB, (self, other))
    except ValueError:
        raise _bshape_err("sub", self, other) from None


@method("__rsub__")
def rsub(self, other):
    other = _operand(other)   # (as radd)
    if other is NotImplemented:
        return other
    _check_bool_sub(other, self)
    if isinstance(other, Tensor):
        return sub(other, self)
    return dispatch(RSUB, (self, other))


method("sub")(method_form(sub, "sub"))


@method("__mul__")
def mul(self, other):
    """``self * other`` (broadcast), as ``torch.mul``; NotImplemented for an operand
    PyTorch does not take (Note [operators answer NotImplemented])."""
    if type(other) is float:
        return _with_number(MUL, self, other)   # dispatch(MUL, ...): Note [lean ops]
    if type(other) is Tensor and type(self) is Tensor:
        out = _with_constant(MUL, self, other)   # dispatch(MUL, ...): Note [lean ops]
        if out is not None:
            return out
    other = _operand(other, self)
    if other is NotImplemented:
        return other
    try:
        return dispatch(MUL, (self, other))
    except ValueError:
        raise _bshape_err("mul", self, other) from None


@method("__rmul__")
def rmul(self, other):
    other = _operand(other)   # (as radd)
    return other if other is NotImplemented else mul(self, other)


method("mul")(method_form(mul, "mul"))
method("multiply")(method_form(mul, "multiply", OTHER))


@method("__truediv__")
def div(self, other, *, rounding_mode=None):
    """``self / other`` (broadcast), as ``torch.div``; NotImplemented for an operand
    PyTorch does not take (Note [operators answer NotImplemented])."""
    if type(other) is not Tensor and type(other) is not float:
        other = _operand(other, self)
        if other is NotImplemented:
            return other
    if rounding_mode is not None:   # 'trunc' / 'floor': DivBackward2 (ops/elementwise.py)
        from .elementwise import div_rounding
        return div_rounding(self, other, rounding_mode)
    if type(other) is float and type(self) is Tensor and self._data.dtype.kind == "f":
        return _with_number(DIV, self, other)   # dispatch(DIV, ...): Note [lean ops]
    if not isinstance(self, Tensor):   # viewgrad.div(2.5, x): the number as a 0-d tensor
        return _div_number_by(self, other)
    if self._data.dtype.kind in "iub" and (
            not isinstance(other, Tensor) or other._data.dtype.kind in "iub"):
        self = self.to(B.default_float())  # true division of integers gives floats (PyTorch)
    try:
        return dispatch(DIV, (self, other))
    except ValueError:
        raise _bshape_err("div", self, other) from None


method("div")(method_form(div, "div"))
method("divide")(method_form(div, "divide", ("Tensor other", "Tensor other, *, str rounding_mode",
                                             "Number other",
                                             "Number other, *, str rounding_mode")))
method("true_divide")(method_form(div, "true_divide", OTHER))


def scalar_first(number, t):
    """A Python number as the first operand of ``t``'s op (``2.5 % t``, ``2 // t``,
    ``div(5, t, rounding_mode='floor')``, ``bitwise_and(-4, t)``): a 0-d tensor of the
    pair's result dtype, which promotes as PyTorch's wrapped number does (a float tensor's
    own dtype, so a float64 ``t`` keeps the number's double; a 0-d uint8 ``t`` with -4 is
    uint8, the number wrapped)."""
    if t._data.dtype.kind == "f" or isinstance(number, Tensor):
        return number if isinstance(number, Tensor) else t.new_tensor(number)
    rt = promoted_dtype((number, t))
    if type(number) is int and rt.kind in "iu":
        number = B.wrap_int_scalar(number, rt)   # Note [wrapped integer scalars]
    return t.new_tensor(number, dtype=rt)


def _div_number_by(number, other):
    """``viewgrad.div(2.5, x)``: PyTorch wraps the number in a 0-d tensor of the result's
    dtype (x's floating dtype, the default float for an integer x) and records
    DivBackward0."""
    dtype = promoted_dtype((number, other))
    if dtype.kind not in "fc":
        dtype = B.default_float()
    if other._data.dtype != dtype:
        other = other.to(dtype)
    dev = other._device
    return dispatch(DIV, (Tensor._make(dev.xp.asarray(number, dtype=dtype), dev), other))


@method("__rtruediv__")
def rdiv(self, other):
    # PyTorch's ``Tensor.__rtruediv__`` is ``self.reciprocal() * other``, for a tensor
    # other too (so int64 tensor .__rtruediv__(float16 tensor) is float32); unlike the
    # other reflected operators it takes an ndarray too, as PyTorch's does
    other = _operand(other, self)
    if other is NotImplemented:
        return other
    return mul(reciprocal(self), other)


@method("reciprocal")
def reciprocal(self):
    if self._data.dtype.kind in "iub":
        self = self.to(B.default_float())  # 1 / integers gives the default float dtype (PyTorch)
    return dispatch(RECIPROCAL, (self,))


@method("neg", "__neg__", "negative")
def neg(self):
    if self._data.dtype.kind == "b":
        raise RuntimeError(ERR_NEG_BOOL)
    return _unary(NEG, self)   # dispatch(NEG, (self,)): Note [lean ops]




@method("__pos__")
def pos(self):
    return self


def _check_number(exponent, dtype):
    """PyTorch converts a number (a power's exponent, a clamp bound) to an integer or
    float16 tensor's dtype with its overflow check (``uint8_tensor ** 256``,
    ``float16_tensor ** 70000.0`` are refused)."""
    if dtype.kind in "iuf":
        number_as(exponent, dtype)


def number_as(value, dtype):
    """The Python number ``value`` as PyTorch converts it to ``dtype`` for an op (alpha,
    value=, a clamp bound, a filled value): its checked conversion (an unsigned dtype
    takes negatives down to -max, which wrap: -1 is 255 for uint8; a float truncates
    toward zero for an integer dtype), or its overflow error."""
    v, ok = checked_scalar(value, dtype)
    if not ok:
        from .inplace import _C_TYPE
        name = _C_TYPE.get(B.dtype_name(dtype), B.dtype_name(dtype))
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return v


def _checked_alpha(self, other, alpha):
    """add/sub's ``alpha`` checked against the result dtype as PyTorch's alpha_check does,
    and converted: an int for integer results, a bool for bool ones (a bool tensor's
    ``a + alpha * b`` is ``a or (alpha and b)``)."""
    rt = promoted_dtype((self, other))
    if isinstance(alpha, bool) and rt.kind != "b":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and rt.kind in "iub":
        raise RuntimeError("For integral input tensors, argument alpha must not be a "
                           "floating point number.")
    if isinstance(alpha, complex) and rt.kind != "c":
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a "
                           "complex number.")
    if rt.kind == "b":
        return bool(alpha)
    return number_as(alpha, rt) if rt.kind in "iu" else alpha


# ``viewgrad.add(input, other)`` & co.: the ops above as functions, with PyTorch's words
# for an operand they do not take (Note [operators answer NotImplemented], operands.py)
FUNCTIONS = {"add": function_form(add, "add"), "sub": function_form(sub, "sub"),
             "mul": function_form(mul, "mul"), "div": function_form(div, "div")}


@method("abs", "__abs__")
def abs(self):
    _refuse(_CX["abs"], self)   # (bool: Note [inputs PyTorch refuses])
    return _unary(ABS, self)   # dispatch(ABS, (self,)): Note [lean ops]


@method("sign")
def sign(self):
    _refuse(_CX["sign"], self)   # Note [inputs PyTorch refuses]
    if self._data.dtype.kind == "b":
        return self.clone()   # a bool's sign is itself (PyTorch); NumPy has no bool sign
    return dispatch(SIGN, (self,))


@method("sqrt")
def sqrt(self):
    if self._data.dtype.kind in "iub":
        self = self.to(B.default_float())  # integers give the default float dtype (PyTorch)
    return _unary(SQRT, self)   # dispatch(SQRT, (self,)): Note [lean ops]


@method("exp")
def exp(self):
    if self._data.dtype.kind in "iub":
        self = self.to(B.default_float())  # integers give the default float dtype (PyTorch)
    return _unary(EXP, self)   # dispatch(EXP, (self,)): Note [lean ops]


@method("log")
def log(self):
    if self._data.dtype.kind in "iub":
        self = self.to(B.default_float())  # integers give the default float dtype (PyTorch)
    return _unary(LOG, self)   # dispatch(LOG, (self,)): Note [lean ops]


@method("tanh")
def tanh(self):
    if self._data.dtype.kind in "iub":
        self = self.to(B.default_float())  # integers give the default float dtype (PyTorch)
    return _unary(TANH, self)   # dispatch(TANH, (self,)): Note [lean ops]


@method("sigmoid")
def sigmoid(self):
    if self._data.dtype.kind in "iub":
        self = self.to(B.default_float())  # integers give the default float dtype (PyTorch)
    return _unary(SIGMOID, self)   # dispatch(SIGMOID, (self,)): Note [lean ops]


@method("relu")
def relu(self):
    if self._data.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    _refuse(_CX["clamp"], self)   # (relu is a clamp: Note [inputs PyTorch refuses])
    return _unary(RELU, self)   # dispatch(RELU, (self,)): Note [lean ops]


# Note [lean methods] (lean.py): the methods of the commonest calls, with their lean case
# in their own body (the functions above stay the methods' teaching path)
# — one function, as ``vg.exp`` *is* ``Tensor.exp`` (one docstring: _docs.py)
exp = METHODS["exp"] = _unary_method(EXP, exp)
log = METHODS["log"] = _unary_method(LOG, log)
tanh = METHODS["tanh"] = _unary_method(TANH, tanh)
sigmoid = METHODS["sigmoid"] = _unary_method(SIGMOID, sigmoid)
relu = METHODS["relu"] = _unary_method(RELU, relu)
sqrt = METHODS["sqrt"] = _unary_method(SQRT, sqrt)
abs = METHODS["abs"] = METHODS["__abs__"] = _unary_method(ABS, abs)   # (bool: abs's refusal)
METHODS["__mul__"] = _operator_method(MUL, mul, tensors=MUL)
METHODS["__sub__"] = _operator_method(SUB, sub, tensors=SUB)
METHODS["__add__"] = _operator_method(ADD_SCALAR, add, tensors=ADD)
METHODS["__truediv__"] = _operator_method(DIV, METHODS["__truediv__"], tensors=DIV)


# where (its row, the function and the method) lives in ops/where.py and the elementwise
# comparisons in ops/compare.py; imported here for the formulas above that use them and
# for the modules that import them from here
from .where import WHERE, where  # noqa: E402,F401
# pow, its rows and its method live in ops/power.py; imported here for the modules that
# import them from here
from .power import POW, POW_S, POW_T, pow, rpow, square  # noqa: E402,F401
