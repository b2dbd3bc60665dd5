"""Binary and ternary pointwise math with broadcasting: atan2, hypot, fmod, remainder
(``%``), floor_divide (``//``), lerp, addcmul, addcdiv — rows of the derivatives table
with PyTorch's node names, each with its function, method and in-place method.

As in PyTorch, a Python number as the second operand is a different row from a tensor
(``FmodBackward0`` vs ``FmodBackward1``): a number has no gradient. ``floor_divide`` has
no derivative in PyTorch either; here its result simply does not require grad.
"""
from __future__ import annotations

from types import SimpleNamespace

from .. import backend as B
from ..blas import add_scaled, fma_float32   # Note [alpha as one fused multiply-add]
from ..tensor import Tensor
from . import inplace as I
from . import pointwise as P
from .args import check_result_cast, cpp_type_name, float_input, torch_type_name, with_out
from .operands import invalid_combination, need_tensor
from .pointwise import scalar_first as _scalar_first
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .table import (_device_of, apply_inplace, defop, dispatch, method, promoted_arrays,
                    promoted_dtype)

__all__ = ["atan2", "arctan2", "hypot", "fmod", "remainder", "floor_divide", "lerp",
           "addcmul", "addcdiv"]

_xp = B.xp_of


def _binary(op, self, other, name):
    try:
        return dispatch(op, (self, other))
    except ValueError:
        raise P._bshape_err(name, self, other) from None


def _sq(x):
    return x * x


def _atan2_recip(self, other):
    # PyTorch's 1 / (x² + y²), 0 where that sum is 0 (at the origin, or where it underflows):
    # there the gradient is 0, not 0 * inf = NaN
    d = _sq(self) + _sq(other)
    return P.where(d == 0, 0.0, d.reciprocal())


ATAN2 = defop("atan2", "Atan2Backward0", lambda self, other: _xp(self, other).arctan2(
    self, other), inputs=("self", "other"), broadcast=True, promote=True,
    self=lambda grad, self, other: grad * other * _atan2_recip(self, other),
    other=lambda grad, self, other: grad * -self * _atan2_recip(self, other))
HYPOT = defop("hypot", "HypotBackward0", lambda self, other: _xp(self, other).hypot(
    self, other), inputs=("self", "other"), broadcast=True, promote=True,
    self=lambda grad, self, result: grad * self / result,
    other=lambda grad, other, result: grad * other / result)
FMOD = defop("fmod", "FmodBackward1", lambda self, other: _xp(self, other).fmod(self, other),
             inputs=("self", "other"), broadcast=True, promote=True, self=lambda grad: grad,
             other=lambda grad, self, other: -grad * P.div(self, other, rounding_mode="trunc"))
FMOD_S = defop("fmod_scalar", "FmodBackward0", lambda self, other: _xp(self).fmod(
    self, other), attrs=("other",), self=lambda grad: grad)
REMAINDER = defop("remainder", "RemainderBackward1", lambda self, other: _xp(
    self, other).remainder(self, other), inputs=("self", "other"), broadcast=True,
    promote=True, self=lambda grad: grad,
    other=lambda grad, self, other: -grad * P.div(self, other, rounding_mode="floor"))
REMAINDER_S = defop("remainder_scalar", "RemainderBackward0", lambda self, other: _xp(
    self).remainder(self, other), attrs=("other",), self=lambda grad: grad)


def _need_tensor(name, input, other):
    need_tensor(name, input, 1, "input")
    need_tensor(name, other)


def _not_float_pair(input, other):
    """Whether ``input`` and ``other`` need more than a float row: a number, or integer or
    bool tensors (PyTorch's promotion; a float input with an integer tensor is the row's
    promotion). Float tensors pay one dtype look-up."""
    try:
        return type(other) is not Tensor or input._data.dtype.kind != "f"
    except AttributeError:   # input is no tensor
        return True


@method("atan2", "arctan2")
def atan2(input, other, *, out=None):
    """The angle of the point (other, input): arctan(input / other) in the right quadrant,
    as ``torch.atan2``. Backward (``Atan2Backward0``): grad·other/(input²+other²) and
    -grad·input/(input²+other²). Integer or bool inputs: the promoted dtype when it is
    floating (int64 with float16 gives float16), else the default float dtype."""
    _refuse(_CX["atan2"], input, other)   # Note [inputs PyTorch refuses]
    if _not_float_pair(input, other):
        _need_tensor("atan2", input, other)
        if promoted_dtype((input, other)).kind != "f":
            input, other = float_input(input), float_input(other)
    return with_out(_binary(ATAN2, input, other, "atan2"), out, "atan2")


arctan2 = atan2


@method("hypot")
def hypot(input, other, *, out=None):
    """sqrt(input² + other²) without overflow, as ``torch.hypot``. Backward
    (``HypotBackward0``): grad·input/result and grad·other/result. As in PyTorch, two
    tensors only, and their promoted dtype must be floating (integers are refused)."""
    if _not_float_pair(input, other):
        _need_tensor("hypot", input, other)
        rt = promoted_dtype((input, other))
        if rt.kind != "f":
            raise NotImplementedError(
                f"\"hypot_cpu\" not implemented for '{torch_type_name(rt)}'")
    return with_out(_binary(HYPOT, input, other, "hypot"), out, "hypot")


# PyTorch's whole message for an integer division or modulo by zero (floats give inf/NaN)
ERR_ZERO_DIV = "ZeroDivisionError"


def _integer_division(kernel, input, other):
    """The checks of an integer (or bool) ``input`` / ``other`` for floor_divide,
    remainder and fmod, PyTorch's: bool is refused (``"div_floor_cpu" not implemented for
    'Bool'``), an integer division by zero raises; returns ``(input, other)`` with a Python
    ``other`` wrapped into the promoted dtype (Note [wrapped integer scalars] in
    backend/dtypes.py) and ``input`` cast to it (a Python ``other`` is no row input, so dispatch
    cannot promote it)."""
    rt = promoted_dtype((input, other))
    if rt.kind == "b":
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for 'Bool'")
    if rt.kind in "iu":
        if isinstance(other, Tensor):
            od = other._data
            zero = bool((od.astype(rt, copy=False) == 0).any())
        else:
            other = B.wrap_int_scalar(int(other), rt)
            zero = other == 0
        # (an empty result divides nothing: PyTorch's kernel never runs)
        if zero and input._data.size and (not isinstance(other, Tensor) or other._data.size):
            raise RuntimeError(ERR_ZERO_DIV)
    if not isinstance(other, Tensor) and input._data.dtype != rt:
        input = input.to(rt)   # int64 tensor % 2.5 is float32, bool % 2 is int64
    return input, other


def _scalar_or_tensor(name, row, row_s, input, other, out):
    _refuse(_CX[name], input, other)   # Note [inputs PyTorch refuses]
    other = P._coerce(other, input)
    if input._data.dtype.kind != "f":   # a float input keeps its category: no checks
        input, other = _integer_division(name, input, other)
    if isinstance(other, Tensor):
        r = _binary(row, input, other, name)
    else:
        r = dispatch(row_s, (input,), (other,))
    return with_out(r, out, name)


@method("fmod")
def fmod(input, other, *, out=None):
    """The C-style remainder of input / other: it has the sign of ``input`` (``fmod(-7, 2)
    == -1``), as ``torch.fmod``. Compare ``remainder``. Backward: grad for input
    (``FmodBackward0`` for a number ``other``), -grad·trunc(input/other) for a tensor
    other (``FmodBackward1``)."""
    return _scalar_or_tensor("fmod", FMOD, FMOD_S, input, other, out)


@method("remainder", "__mod__")
def remainder(input, other, *, out=None):
    """Python's modulus ``input % other``: the result has the sign of ``other``
    (``remainder(-7, 2) == 1``), as ``torch.remainder``. Compare ``fmod``. Backward:
    grad for input, -grad·floor(input/other) for a tensor other
    (``RemainderBackward0`` / ``RemainderBackward1``)."""
    if not isinstance(input, Tensor) and isinstance(other, Tensor):   # remainder(5, t)
        input = _scalar_first(input, other)
    return _scalar_or_tensor("remainder", REMAINDER, REMAINDER_S, input, other, out)


@method("__rmod__")
def _rmod(self, other):
    return remainder(_scalar_first(other, self), self)


@method("floor_divide", "__floordiv__")
def floor_divide(input, other, *, out=None):
    """``input // other``: the quotient rounded down (floor), as ``torch.floor_divide``
    and Python's ``//``. Integer tensors stay integer (a division by zero raises, as in
    PyTorch); the result dtype is PyTorch's promotion (int64 // 2.5 is float32). Like
    PyTorch it has no derivative: the result does not require grad (use ``(a /
    b).floor()`` to make that explicit)."""
    if not isinstance(input, Tensor) and isinstance(other, Tensor):   # floor_divide(5, t)
        input = _scalar_first(input, other)
    _refuse(_CX["floor_divide"], input, other)   # Note [inputs PyTorch refuses]
    other = P._coerce(other, input)
    if input._data.dtype.kind != "f":   # a float input keeps its category: no checks
        input, other = _integer_division("div_floor", input, other)
    dev = _device_of((input, other))
    try:
        ind, od = promoted_arrays((input, other))
        if type(od) is float and ind.dtype == B.float16:   # Note [float16 with a number]
            data = _xp(ind).floor_divide(ind.astype(B.float32), od).astype(ind.dtype)
        else:
            data = _xp(ind, od).floor_divide(ind, od)
    except ValueError:
        raise P._bshape_err("floor_divide", input, other) from None
    return with_out(Tensor._make(dev.xp.asarray(data), dev), out, "floor_divide")


@method("__rfloordiv__")
def _rfloordiv(self, other):
    return floor_divide(_scalar_first(other, self), self)


# -- lerp, addcmul, addcdiv ----------------------------------------------------------------

def _lerp_fwd(self, end, weight):
    r = _lerp_values(self, end, weight)
    if type(r) is B.HOST_ARRAY:   # PyTorch's TensorIterator of (self, end[, weight]), a
        # number weight not one of them: Note [an elementwise result's layout] (layouts.py)
        ops = (self, end, weight) if B.is_array(weight) else (self, end)
        return B.iterator_layout(r, [a if B.is_array(a) else None for a in ops])
    return B.layout_like(r, self)


def _lerp_values(self, end, weight):
    # PyTorch's two branches: self + w (end - self) for |w| < 0.5, else end - (end - self)
    # (1 - w) — exact at w = 1, and NaN for an infinite end at w >= 0.5, as in PyTorch
    # — with a number weight, as PyTorch's vector loop computes them: one rounding of
    # fma(w, end - self, self), or fma(w - 1, end - self, end) with w - 1 in self's dtype
    # (Note [alpha as one fused multiply-add], blas.py)
    xp = _xp(self, end)
    if not B.is_array(weight):
        d = end - self
        if abs(weight) < 0.5:
            r = add_scaled(self, d, weight)
            return self + weight * d if r is None else r
        r = None
        if type(d) is B.HOST_ARRAY and d.dtype.char in "fd":
            r = add_scaled(end, d, float(d.dtype.type(weight) - d.dtype.type(1)))
        return end - d * (1 - weight) if r is None else r
    small = xp.abs(weight) < 0.5
    d = end - self
    r = fma_float32(xp.where(small, weight, weight - 1), d, xp.where(small, self, end))
    if r is not None:   # float32: the vector loop's one fma, per element
        return r
    return xp.where(small, self + weight * d, end - d * (1 - weight))


LERP = defop("lerp", "LerpBackward0", _lerp_fwd,
             inputs=("self", "end"), attrs=("weight",), broadcast=True,
             self=lambda grad, weight: grad * (1 - weight),
             end=lambda grad, weight: grad * weight)
LERP_T = defop("lerp_tensor", "LerpBackward1", _lerp_fwd,
               inputs=("self", "end", "weight"), broadcast=True,
               self=lambda grad, weight: grad * (1 - weight),
               end=lambda grad, weight: grad * weight,
               weight=lambda grad, self, end: grad * (end - self))
def _addcmul_fwd(self, tensor1, tensor2, value):
    # PyTorch's vector loop: fma(value * tensor1, tensor2, self), one rounding of the sum;
    # exact for float32 (blas.fma_float32), ``self + value * t1 * t2`` otherwise
    r = fma_float32(value * tensor1, tensor2, self) if type(value) in (int, float) else None
    return self + value * tensor1 * tensor2 if r is None else r


ADDCMUL = defop("addcmul", "AddcmulBackward0", _addcmul_fwd,
                inputs=("self", "tensor1", "tensor2"), attrs=("value",), broadcast=True,
                self=lambda grad: grad,
                tensor1=lambda grad, tensor2, value: grad * tensor2 * value,
                tensor2=lambda grad, tensor1, value: grad * tensor1 * value)
ADDCDIV = defop("addcdiv", "AddcdivBackward0",
                lambda self, tensor1, tensor2, value: self + value * tensor1 / tensor2,
                inputs=("self", "tensor1", "tensor2"), attrs=("value",), broadcast=True,
                self=lambda grad: grad,
                tensor1=lambda grad, tensor2, value: grad * value / tensor2,
                tensor2=lambda grad, tensor1, tensor2, value:
                -grad * value * tensor1 / (tensor2 * tensor2))
ADDCMUL.follows_first = ADDCDIV.follows_first = True   # (elementwise: TensorIterator's layout)
# the three tensors computed in their common dtype (a 0-d one of a higher category counts
# as in PyTorch's result_type): an int64 self with float32 tensors is float32, not float64
ADDCMUL.promote = ADDCDIV.promote = True


def _refuse_bool_result(name, *tensors):
    """PyTorch's kernel refusal where the three tensors' common dtype is bool (a bool
    tensor among float ones is computed as float)."""
    rt = promoted_dtype(tensors)
    if rt.kind == "b":
        _refuse(_CX[name], SimpleNamespace(dtype=rt))


def _lerp_args(input, end, weight):
    if end.dtype != input.dtype:
        raise RuntimeError(f"expected dtype {cpp_type_name(input.dtype)} for `end` but got "
                           f"dtype {cpp_type_name(end.dtype)}")
    weight = P._coerce(weight, input)
    if isinstance(weight, Tensor):
        if weight.dtype != input.dtype:
            if weight.dim():   # PyTorch's check; a 0-d weight is taken as a CPU scalar
                raise RuntimeError(f"expected dtype {cpp_type_name(input.dtype)} for "
                                   f"`weight` but got dtype {cpp_type_name(weight.dtype)}")
            weight = weight.to(input.dtype)   # (read in input's dtype, as that scalar is)
        return LERP_T, (input, end, weight), ()
    return LERP, (input, end), (float(weight),)


@method("lerp")
def lerp(input, end, weight, *, out=None):
    """Linear interpolation ``input + weight * (end - input)``, as ``torch.lerp``; weight
    is a number (``LerpBackward0``) or a tensor (``LerpBackward1``, which also gets the
    gradient grad·(end - input))."""
    if not isinstance(input, Tensor):   # (the function form; PyTorch's parser's words)
        raise TypeError("\n".join([invalid_combination("lerp", (input, end, weight)),
                                   " * (Tensor input, Tensor end, Tensor weight, *, Tensor "
                                   "out = None)",
                                   " * (Tensor input, Tensor end, Number weight, *, Tensor "
                                   "out = None)"]))
    _refuse(_CX["lerp_tensor" if isinstance(weight, Tensor) else "lerp_scalar"], input)
    op, ins, attrs = _lerp_args(input, end, weight)
    try:
        return with_out(dispatch(op, ins, attrs), out, "lerp")
    except ValueError:
        raise P._bshape_err("lerp", input, end) from None


@method("lerp_")
def lerp_(self, end, weight):
    """In-place ``lerp`` (``torch.Tensor.lerp_``), e.g. an exponential moving average
    ``avg.lerp_(x, 0.1)``."""
    _refuse(_CX["lerp_tensor" if isinstance(weight, Tensor) else "lerp_scalar"], self)
    op, ins, attrs = _lerp_args(self, end, weight)
    return apply_inplace(op, self, ins[1:], attrs, name="lerp_")


@method("addcmul")
def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """``input + value * tensor1 * tensor2`` in one op, as ``torch.addcmul`` (optimizers
    use it). Backward (``AddcmulBackward0``): grad, grad·tensor2·value, grad·tensor1·value."""
    need_tensor("addcmul", input, pos=1, arg="input")
    _refuse_bool_result("addcmul", input, tensor1, tensor2)   # (Note [inputs PyTorch refuses])
    if input._data.dtype.kind in "iu":   # value converted to the dtype, as PyTorch
        rt = promoted_dtype((input, tensor1, tensor2))
        if rt.kind in "iu":
            value = P.number_as(value, rt)
    return with_out(dispatch(ADDCMUL, (input, tensor1, tensor2), (value,)), out, "addcmul")


@method("addcmul_")
def addcmul_(self, tensor1, tensor2, *, value=1):
    """In-place ``addcmul`` (``torch.Tensor.addcmul_``)."""
    _refuse_bool_result("addcmul", self, tensor1, tensor2)
    return apply_inplace(ADDCMUL, self, (tensor1, tensor2), (value,), name="addcmul_")


def _no_integer_addcdiv(tensor1, tensor2):
    """PyTorch's refusal of an integer division inside addcdiv, in its words."""
    if all(isinstance(t, Tensor) and t._data.dtype.kind in "iub" for t in (tensor1, tensor2)):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic "
            "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
            "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.")


@method("addcdiv")
def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """``input + value * tensor1 / tensor2`` in one op, as ``torch.addcdiv`` (Adam's step).
    Backward (``AddcdivBackward0``): grad, grad·value/tensor2,
    -grad·value·tensor1/tensor2²."""
    need_tensor("addcdiv", input, pos=1, arg="input")
    _no_integer_addcdiv(tensor1, tensor2)
    return with_out(dispatch(ADDCDIV, (input, tensor1, tensor2), (value,)), out, "addcdiv")


@method("addcdiv_")
def addcdiv_(self, tensor1, tensor2, *, value=1):
    """In-place ``addcdiv`` (``torch.Tensor.addcdiv_``)."""
    _no_integer_addcdiv(tensor1, tensor2)
    return apply_inplace(ADDCDIV, self, (tensor1, tensor2), (value,), name="addcdiv_")


# -- the in-place forms of the binary ops -------------------------------------------------

@method("atan2_", "arctan2_")
def atan2_(self, other):
    """In-place ``atan2`` (``torch.Tensor.atan2_``)."""
    _real_inplace("atan2_", self, other)
    return apply_inplace(ATAN2, self, (other,), name="atan2_")


def _real_inplace(name, self, other):
    """atan2_/hypot_: a tensor ``other``, and a floating result that fits self's dtype."""
    if name == "atan2_":
        _refuse(_CX["atan2"], self, other)   # Note [inputs PyTorch refuses]
    if type(other) is not Tensor or self._data.dtype.kind != "f":
        if not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not "
                            f"{type(other).__name__}")
        rt = promoted_dtype((self, other))
        if name == "hypot_":   # no integer kernel; atan2 takes integers as float
            check_result_cast(rt, self._data.dtype)
            if rt.kind != "f":
                raise NotImplementedError(
                    f"\"hypot_cpu\" not implemented for '{torch_type_name(rt)}'")
        check_result_cast(rt if rt.kind == "f" else B.default_float(), self._data.dtype)


@method("hypot_")
def hypot_(self, other):
    """In-place ``hypot`` (``torch.Tensor.hypot_``)."""
    _real_inplace("hypot_", self, other)
    return apply_inplace(HYPOT, self, (other,), name="hypot_")


def _inplace_integer_operand(kernel, self, other):
    """``other`` for ``self.<kernel>_(other)`` with an integer or bool self or other,
    PyTorch's checks in its order: the result type must cast into self's dtype, bool is
    refused, an integer division by zero raises; a number wraps into the result dtype and
    a tensor is cast to it (uint8 self with a 0-d int64 -2 computes with 254, as torch)."""
    rt = promoted_dtype((self, other))
    check_result_cast(rt, self._data.dtype)
    _, other = _integer_division(kernel, self, other)
    if isinstance(other, Tensor) and rt.kind in "iu" and other._data.dtype != rt:
        other = other.to(rt)
    return other


def _mod_(name, row, row_s):
    def f(self, other):
        _refuse(_CX[name[:-1]], self, other)   # Note [inputs PyTorch refuses]
        other = P._coerce(other, self)
        if self._data.dtype.kind != "f" or (isinstance(other, Tensor)
                                            and other._data.dtype.kind != "f"):
            other = _inplace_integer_operand(name[:-1], self, other)
        if isinstance(other, Tensor):
            return apply_inplace(row, self, (other,), name=name)
        return apply_inplace(row_s, self, (), (other,), name=name)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"In-place ``{name[:-1]}`` (``torch.Tensor.{name}``)."
    return f


fmod_ = method("fmod_")(_mod_("fmod_", FMOD, FMOD_S))
remainder_ = method("remainder_", "__imod__")(_mod_("remainder_", REMAINDER, REMAINDER_S))


@method("floor_divide_", "__ifloordiv__")
def floor_divide_(self, other):
    """In-place ``floor_divide`` (``x //= y``). The quotient has no derivative, so x's
    history becomes a copy of a constant (``CopyBackwards``): no gradient flows back."""
    other = P._coerce(other, self)
    check_result_cast(promoted_dtype((self, other)), self._data.dtype)   # int //= 2.5
    q = floor_divide(self, other)
    return apply_inplace(I.COPY, self, (q,), (q.dtype,), name="floor_divide_")


@method("sign_")
def sign_(self):
    """In-place ``sign`` (``torch.Tensor.sign_``)."""
    _refuse(_CX["sign"], self)   # Note [inputs PyTorch refuses]
    return apply_inplace(P.SIGN, self, name="sign_")


@method("square_")
def square_(self):
    """In-place ``square``: ``x.square_()`` is ``x.pow_(2)`` (``PowBackward0``)."""
    if self._data.dtype.kind == "b":   # bool ** 2 is int64: it never fits (PyTorch's words)
        check_result_cast(B.int64, self._data.dtype)
    return apply_inplace(P.POW, self, (), (2,), name="square_")
