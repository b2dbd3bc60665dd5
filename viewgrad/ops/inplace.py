"""In-place ops: add_, sub_, mul_, div_, pow_, neg_, exp_, log_, tanh_, sigmoid_, relu_,
clamp_, sqrt_, abs_, zero_, fill_, copy_, masked_fill_, ``__setitem__``, ``+=`` and friends.

Each is the out-of-place op's table row run through THE choke point,
``table.apply_inplace`` (checks → compute → bump → rebase history → tell the tracer).
``x.mul_(y)`` therefore gets exactly the node ``x * y`` would get (MulBackward0), with its
first edge on x's old history — or, when x is a view, wrapped in a CopySlices on the base.
"""
from __future__ import annotations

import numbers
import threading
import warnings

from .. import backend as B
from .. import blas as _blas
from ..autograd.inplace_lean import lean_binary_
from ..autograd.state import state as _st
from ..tensor import LEAN_CLASSES as _LEAN, Tensor
from . import clamping as C
from . import pointwise as P
from .args import check_result_cast, checked_scalar, torch_type_name
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .indexing import (INDEX_PUT, index_tensors, normalize_key, split_integers, _basic_steps,
                       torch_key, legacy_masks)
from .operands import EXPONENT, OTHER, check_alpha, method_form, operand, operator_form, refusal
from .table import (_LOW, apply_inplace, defop, dispatch, method, promoted_dtype, sum_to,
                    zeros_grad)

__all__ = ["copy_", "fill_", "zero_", "masked_fill_", "masked_fill", "setitem", "index_put"]

_HOST = B.HOST_ARRAY
_add, _subtract = B.host_ufunc("add"), B.host_ufunc("subtract")
_multiply = B.host_ufunc("multiply")


def _other(x, self, name, overloads=None, arg="other"):
    """``x`` as the operand of in-place op ``name``; PyTorch's TypeError when it does not
    take it (``x.add_("a")``). The operators (``x += "a"``) ask first and answer
    NotImplemented (Note [operators answer NotImplemented], operands.py)."""
    r = operand(x)
    if r is NotImplemented:
        raise refusal(name, x, overloads, arg)
    return r


def _half_inplace(op, name, self, other):
    """mul_/div_ of a float16 self: with a Python float, computed in float32 and rounded
    once (Note [float16 with a number] in table.py); the node is the row's, as always."""
    if type(other) is not float:
        return apply_inplace(op, self, (other,), name=name)
    return apply_inplace(op, self, (other,), name=name, compute=lambda a, b: op.forward(
        a.astype(B.float32), b).astype(a.dtype))


def _integer_inplace(f, name, self, other):
    """``self.<name>(other)`` for an integer or bool self: the out-of-place op ``f`` (with
    all of PyTorch's promotion, wrapping and refusals), then PyTorch's in-place rule that
    its result type casts into self's dtype (``int64 += 2.5`` and ``bool += 2`` are
    refused; ``int8 += int64 tensor`` wraps), then the write. Integer tensors have no
    gradient, so the write records no node."""
    r = f(self, other)
    check_result_cast(r.dtype, self._data.dtype)
    return apply_inplace(COPY, self, (r,), (r.dtype,), name=name)


# Note [an update with alpha, under no_grad]
# A speed trick, fenced off here: an optimizer's step is ``p.sub_(g, alpha=lr)`` (or
# ``add_``) under no_grad, with ``p`` and ``g`` host float tensors of one dtype, shape and
# device, in different memory. For that call apply_inplace's checks all pass and record
# nothing (the stride-0 and partial-overlap checks, the devices, no node in no_grad), and
# the row's forward computes ``p - lr * g`` with one rounding (Note [alpha as one fused
# multiply-add], blas.py) and writes it into p. ``_update_`` makes the same one-rounding
# update in p's memory, in one pass (BLAS axpy), with the same version bump (blame mark
# included) and without the calls between. Every other call takes the teaching path:
# grad mode on, inference mode, a tracer's in-place observer, integers, broadcasting, a
# Tensor or non-float alpha, shared memory, p and g in different layouts. Without axpy in
# NumPy's BLAS, the update is the two-rounding formula the forward then falls back on,
# with the product in a scratch buffer (the Note below). set_fast_update(False) turns it
# off; tests/ops/test_nn_fast_paths.py compares both ways.

_fast_update = [True]


def set_fast_update(enabled: bool) -> bool:
    """Turn Note [an update with alpha, under no_grad] on or off; returns the previous
    setting."""
    prev = _fast_update[0]
    _fast_update[0] = bool(enabled)
    return prev


def _update_(self, other, alpha, ufunc, name, sign):
    """``self.<name>(other, alpha=alpha)`` for the common optimizer call, or None."""
    st = _st
    if (st.grad_enabled or st.inference or st.inplace_observer is not None
            or (type(self) is not Tensor and type(self) not in _LEAN)   # (a Parameter)
            or type(other) is not Tensor or type(alpha) is not float
            or not _fast_update[0]):
        return None
    d = self._data
    o = other._data
    vc = self._vc
    if (type(d) is not _HOST or type(o) is not _HOST or vc is None or vc.inference
            or self._device is not other._device):
        return None
    if _blas.AXPY is not None:
        # (axpy refuses two dtypes, an integer dtype, two shapes and a layout it does not
        # take, and memory shared with other: then the forward's one rounding)
        if not _blas.axpy_dense(d, sign * alpha, o):
            return None
    elif (d.dtype != o.dtype or d.dtype.char not in "fd" or d.shape != o.shape
          or 0 in d.strides or self._storage is other._storage):
        return None
    else:
        ufunc(d, _scaled(o, alpha), out=d)
    # (the user's line: user_frame, bump, this, sub_/add_, their caller)
    vc.bump(name, 4)
    return self


# Note [a scratch buffer for the scaled update]
# Where NumPy's BLAS has no axpy (blas.py), ``p.sub_(g, alpha=lr)`` needs ``g * lr``
# somewhere before the subtraction (writing it into g would change the user's
# ``p.grad``). A fresh temporary for every parameter, every step, is what
# made a training loop page-fault: allocated last, on top of the heap, and freed at
# once, it leaves a free block above the trim threshold, so glibc returns the memory to
# the system after each update and the next step's gradients fault it back in, page by
# page (the MLP benchmark's step in a process that had allocated anything after its
# parameters: 1,520 page faults and 15.8 ms a step, against 0 faults and 11.5 ms). So the
# product goes into one buffer per thread, kept and reused: the same multiply into it
# (the same bits), no allocation. Only for products of 64 KiB to 64 MiB: below, malloc's
# own reuse is cheaper than slicing a buffer; above, the buffer would hold too much
# memory. tests/ops/test_nn_fast_paths.py checks the bits, the buffer's reuse and its
# bound; bench/README.md has the measurement.

_SCRATCH = threading.local()   # .buf: this thread's bytes for the products
_SCRATCH_MIN = 1 << 16
_SCRATCH_MAX = 1 << 26


def _scaled(o, alpha):
    """``o * alpha`` (Python float ``alpha``), in this thread's scratch buffer when the
    product is 64 KiB to 64 MiB (Note [a scratch buffer for the scaled update])."""
    n = o.nbytes
    if n < _SCRATCH_MIN or n > _SCRATCH_MAX:
        return o * alpha
    buf = getattr(_SCRATCH, "buf", None)
    if buf is None or buf.nbytes < n:
        buf = _SCRATCH.buf = B.cpu.xp.empty(n, B.cpu.xp.uint8)
    return _multiply(o, alpha, buf[:n].view(o.dtype).reshape(o.shape))


@method("add_")
def add_(self, other, alpha=1):
    if alpha != 1:   # Note [an update with alpha, under no_grad]
        done = _update_(self, other, alpha, _add, "add_", 1.0)
        if done is not None:
            return done
        check_alpha("add_", alpha)
    if type(other) is not Tensor and type(other) is not float:
        other = _other(other, self, "add_")
    if (alpha != 1 or alpha is True) and self._data.dtype.kind not in "iub":
        alpha = P._checked_alpha(self, other, alpha)
    if alpha == 1:   # Note [lean in-place] (autograd/inplace_lean.py)
        done = lean_binary_(P.ADD if type(other) is Tensor else P.ADD_SCALAR, self, other,
                            "add_")
        if done is not None:
            return done
    if self._data.dtype.kind in "iub":
        return _integer_inplace(lambda s, o: P.add(s, o, alpha=alpha), "add_", self, other)
    if alpha != 1:
        if isinstance(other, Tensor):
            return apply_inplace(P.ADD_ALPHA, self, (other,), (alpha,), name="add_")
        other = other * alpha
    op = P.ADD if isinstance(other, Tensor) else P.ADD_SCALAR
    return apply_inplace(op, self, (other,), name="add_")


@method("sub_")
def sub_(self, other, alpha=1):
    if alpha != 1:   # Note [an update with alpha, under no_grad]
        done = _update_(self, other, alpha, _subtract, "sub_", -1.0)
        if done is not None:
            return done
        check_alpha("sub_", alpha)
    other = _other(other, self, "sub_")
    if ((alpha != 1 or alpha is True) and self._data.dtype.kind not in "iub"
            and type(other) is not bool):   # (a bool other: sub's own refusal, below)
        alpha = P._checked_alpha(self, other, alpha)
    if self._data.dtype.kind in "iub" or type(other) is bool or (
            isinstance(other, Tensor) and other._data.dtype.kind == "b"):
        P._check_bool_sub(self, other)   # PyTorch's words for a bool operand
        if self._data.dtype.kind in "iub":
            return _integer_inplace(lambda s, o: P.sub(s, o, alpha=alpha), "sub_", self,
                                    other)
    if alpha != 1:
        if isinstance(other, Tensor):
            return apply_inplace(P.SUB_ALPHA, self, (other,), (alpha,), name="sub_")
        other = other * alpha
    done = lean_binary_(P.SUB, self, other, "sub_")   # Note [lean in-place]
    return done if done is not None else apply_inplace(P.SUB, self, (other,), name="sub_")


@method("mul_")
def mul_(self, other):
    if type(other) is not Tensor and type(other) is not float:
        other = _other(other, self, "mul_")
    done = lean_binary_(P.MUL, self, other, "mul_")   # Note [lean in-place]
    if done is not None:
        return done
    if self._data.dtype.char in _LOW:   # integers, bools, float16
        if self._data.dtype.kind in "iub":
            return _integer_inplace(P.mul, "mul_", self, other)
        return _half_inplace(P.MUL, "mul_", self, other)
    return apply_inplace(P.MUL, self, (other,), name="mul_")


@method("div_")
def div_(self, other, *, rounding_mode=None):
    other = _other(other, self, "div_")
    if rounding_mode is not None:   # DivBackward2 (ops/elementwise.py)
        from .elementwise import div_rounding_
        return div_rounding_(self, other, rounding_mode)
    done = lean_binary_(P.DIV, self, other, "div_")   # Note [lean in-place]
    if done is not None:
        return done
    if self._data.dtype.char in _LOW:   # integers, bools, float16
        if self._data.dtype.kind in "iub":   # refused: true division gives floats
            return _integer_inplace(P.div, "div_", self, other)
        return _half_inplace(P.DIV, "div_", self, other)
    return apply_inplace(P.DIV, self, (other,), name="div_")


@method("pow_")
def pow_(self, exponent):
    exponent = _other(exponent, self, "pow_", EXPONENT, "exponent")
    d = self._data.dtype
    if d.kind in "iub":
        return _integer_inplace(P.pow, "pow_", self, exponent)
    if d == B.float16 and type(exponent) in (int, float):
        P._check_number(exponent, d)   # float16 ** 70000.0 is refused, as in PyTorch
    if isinstance(exponent, Tensor):
        return apply_inplace(P.POW_T, self, (exponent,), name="pow_")
    return apply_inplace(P.POW, self, (), (exponent,), name="pow_")


# the operators (``x += y``) and the aliases of the in-place methods
for _f, _name in ((add_, "__iadd__"), (sub_, "__isub__"), (mul_, "__imul__"),
                  (div_, "__itruediv__"), (pow_, "__ipow__")):
    method(_name)(operator_form(_f))
for _f, _name, _sigs in (
        (sub_, "subtract_", ("Tensor other, *, Number alpha = 1", "Number other, Number alpha = 1")),
        (mul_, "multiply_", OTHER), (div_, "true_divide_", OTHER),
        (div_, "divide_", ("Tensor other", "Tensor other, *, str rounding_mode", "Number other",
                           "Number other, *, str rounding_mode"))):
    method(_name)(method_form(_f, _name, _sigs))


def _unary_(op, name):
    refusal = _CX.get(name)   # Note [inputs PyTorch refuses]

    def f(self):
        if refusal is not None:
            _refuse(refusal, self)
        if name == "sigmoid_" and self._data.dtype.kind in "iub":   # a float never fits
            check_result_cast(B.default_float(), self._data.dtype)
        return apply_inplace(op, self, name=name)
    f.__name__ = name
    return f


for _op, _name in [(P.NEG, "neg_"), (P.EXP, "exp_"), (P.LOG, "log_"), (P.TANH, "tanh_"),
                   (P.SIGMOID, "sigmoid_"), (P.RELU, "relu_"), (P.SQRT, "sqrt_"),
                   (P.ABS, "abs_"), (P.RECIPROCAL, "reciprocal_")]:
    method(_name)(_unary_(_op, _name))


@method("clamp_", "clip_")
def clamp_(self, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    _refuse(_CX["clamp"], self, min, max)   # Note [inputs PyTorch refuses]
    tensors, min, max = C.tensor_bounds("clamp_", self, min, max)
    if tensors:   # ClampBackward0, written into self: its dtype must hold the result
        check_result_cast(promoted_dtype((self, min, max)), self._data.dtype)
        return apply_inplace(C.CLAMP_T, self, (min, max), name="clamp_")
    _, min, max = C.number_bounds(self, min, max, True)
    return apply_inplace(C.CLAMP, self, (), (min, max), name="clamp_")


def _cast_like(src, self):
    # copy_ and fill_(tensor) cast to self's dtype as PyTorch does: floats to ints
    # truncate, anything non-zero to bool is True (the write itself then only broadcasts)
    return src if src.dtype == self.dtype else B.cast(src, self.dtype)


# zeros_like, not self * 0: NaN * 0 is NaN (zero_ must clear uninitialised memory)
ZERO = defop("zero", "ZeroBackward0", lambda self: B.xp_of(self).zeros_like(self),
             self=zeros_grad)
FILL = defop("fill", "FillBackward2", lambda self, value: B.exact_fill_value(self, value),
             attrs=("value",),
             self=zeros_grad)
FILL_T = defop("fill_tensor", "FillBackward3", lambda self, value: _cast_like(value, self),
               inputs=("self", "value"), self=zeros_grad,
               value=lambda grad: grad.sum())


def _copy_fwd(self, src, src_dtype):
    return _cast_like(src, self)


# Like PyTorch, copy_ saves only src's shape and dtype, never src itself: `b.copy_(b)` and
# copying from a view of the destination are fine at backward.
# (shown as no attribute: PyTorch's CopyBackwards shows none; Note [hidden saved values])
COPY = defop("copy", "CopyBackwards", _copy_fwd, inputs=("self", "src"),
             attrs=("_src_dtype",), self=zeros_grad,
             src=lambda grad, _src_shape, _src_dtype: sum_to(grad, _src_shape).to(_src_dtype))


def _copy_into(target, src, opname):
    return apply_inplace(COPY, target, (src,), (src.dtype,), name=opname)


@method("zero_")
def zero_(self):
    return apply_inplace(ZERO, self, name="zero_")


def _fill_value(value, dtype, opname="fill_"):
    """fill_(number): the number as dtype holds it, or PyTorch's overflow error."""
    if not isinstance(value, numbers.Number) and not _is_numpy_bool(value):
        raise TypeError(f"fill_(): argument 'value' must be Number, not {_type_name(value)}")
    v, ok = checked_scalar(value, dtype)
    if not ok:
        name = _C_TYPE.get(B.dtype_name(dtype), B.dtype_name(dtype))
        raise RuntimeError(f"value cannot be converted to type {name} without overflow "
                           f"({opname}({value!r}) on a {B.dtype_name(dtype)} tensor: use a value "
                           "in its range, or convert the tensor first, e.g. x = x.double())")
    return v


# c10's names for the dtypes, as PyTorch's fill_ spells them in its overflow message
_C_TYPE = {"float16": "c10::Half", "float32": "float", "float64": "double", "int8": "int8_t",
           "uint8": "uint8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t"}


@method("fill_")
def fill_(self, value):
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.dim()} dimensions.")
        return apply_inplace(FILL_T, self, (value,), name="fill_")
    value = _fill_value(value, self._data.dtype)
    return apply_inplace(FILL, self, (), (value,), name="fill_")


def _type_name(x):
    t = type(x)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _is_numpy_bool(x):
    return type(x).__module__ == "numpy" and type(x).__name__ in ("bool", "bool_")


def _number_src(value, self):
    """copy_(number): PyTorch wraps the number into a 0-d tensor of its own precision
    (a float is a double), so it casts exactly as a tensor would; anything else is refused."""
    if isinstance(value, complex):
        warnings.warn("Casting complex values to real discards the imaginary part",
                      UserWarning, stacklevel=3)
        value = value.real
    if isinstance(value, bool) or _is_numpy_bool(value):
        dtype = B.bool_
    elif isinstance(value, numbers.Integral):
        dtype = B.int64
    elif isinstance(value, numbers.Real):
        dtype = B.float64
    else:
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not "
                        f"{_type_name(value)} (wrap data first: x.copy_(viewgrad.tensor(data)))")
    from .factories import tensor
    return tensor(value, dtype=dtype, device=self.device)


@method("copy_")
def copy_(self, src, non_blocking=False):
    if not isinstance(src, Tensor):
        src = _number_src(src, self)
    if src._device is not self._device:
        src = src.to(self._device)
    try:
        shape = B.broadcast_shapes(tuple(src.shape), tuple(self.shape))
    except ValueError:
        raise P._bshape_err("copy_", self, src) from None
    if shape != tuple(self.shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(shape)} (copy_ writes into self's shape: src must "
                           "broadcast to it; index or reduce src first)")
    if src.requires_grad and not B.is_floating(self._data.dtype):
        src = src.detach()  # an integer/bool result holds no gradient: nothing to record
    return _copy_into(self, src, "copy_")


def _masked_fill_fwd(self, mask, value):
    return B.row_major(B.xp_of(self).where(mask, value, self))


MASKED_FILL = defop("masked_fill", "MaskedFillBackward0", _masked_fill_fwd,
                    inputs=("self", "mask"), attrs=("value",), broadcast=True,
                    self=lambda grad, mask: grad.masked_fill(mask, 0.0))
MASKED_FILL_T = defop("masked_fill_tensor", "MaskedFillBackward1",
                      lambda self, mask, value: _masked_fill_fwd(self, mask, value),
                      inputs=("self", "mask", "value"),
                      # (a mask larger than self broadcasts it: its gradient sums back)
                      self=lambda grad, mask, self_shape: sum_to(grad.masked_fill(mask, 0.0),
                                                                 self_shape),
                      value=lambda grad, mask: P.where(mask, grad, 0.0).sum())


def _check_mask(mask):
    if not isinstance(mask, Tensor) or mask._data.dtype.kind != "b":
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{getattr(mask, 'dtype', type(mask).__name__)}")


@method("masked_fill_")
def masked_fill_(self, mask, value):
    _check_mask(mask)
    _check_fill_value(value)
    if isinstance(value, Tensor):
        return apply_inplace(MASKED_FILL_T, self, (mask, value), name="masked_fill_")
    if self._data.dtype.kind in "iu":   # -1 is 255 for uint8, 300 is refused, as torch
        value = P.number_as(value, self._data.dtype)
    return apply_inplace(MASKED_FILL, self, (mask,), (value,), name="masked_fill_")


def _check_fill_value(value):
    """PyTorch's masked_fill takes a number or a 0-d tensor as the value, in its words."""
    if isinstance(value, Tensor) and value.dim():
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.dim()} dimension(s).")


@method("masked_fill")
def masked_fill(self, mask, value):
    _check_mask(mask)
    if tuple(mask.shape) != tuple(self.shape):   # (PyTorch broadcasts the mask first)
        B.checked_broadcast("masked_fill", tuple(mask.shape), tuple(self.shape))
    _check_fill_value(value)
    if isinstance(value, Tensor):
        return dispatch(MASKED_FILL_T, (self, mask, value))
    if self._data.dtype.kind in "iu":   # -1 is 255 for uint8, 300 is refused, as torch
        value = P.number_as(value, self._data.dtype)
    return dispatch(MASKED_FILL, (self, mask), (value,))


@method("__setitem__")
def setitem(self, key, value):
    """``x[key] = value``: a basic key writes through a view (PyTorch's ``copy_to`` on it,
    hence a CopySlices on the base); an advanced key is index_put_."""
    byte_fill = _byte_fill(key, value)
    key = torch_key(key)   # (Note [a key as PyTorch reads it], indexing.py)
    if type(key) is int:
        key = (key,)
    kind, k = normalize_key(self, key)
    if byte_fill:   # (after the mask's shape is checked, as PyTorch)
        _refuse_byte_fill()
    if kind in ("basic", "single-slice"):
        # Like PyTorch's setitem, full slices are skipped: x[:] = v copies into x itself.
        target = _basic_steps(self, k if kind == "basic" else (k,), alias_self=False)
        if isinstance(value, Tensor):
            # NB: `x[i] += v` ends with x[i] = <the view it modified>: PyTorch copies it
            # again (a second version bump), and so do we.
            on_host = value._device.type == "cpu"   # (asked before it moves)
            if value._device is not self._device:
                value = value.to(self._device)
            _copy_to(target, value, on_host)
            return
        v = P._coerce(value, self)
        if isinstance(v, Tensor):
            _copy_to(target, v, v._device.type == "cpu")
            return
        # a number is a 0-d tensor of self's dtype first (PyTorch's scalarToTensor, which
        # converts it as fill_ does: -1 is 255 for uint8, 1e40 overflows a float32; but a
        # float16 takes it unchecked: inf)
        dtype = self._data.dtype
        if dtype.char == "e" and isinstance(v, numbers.Real):
            with B.cpu.xp.errstate(over="ignore"):
                h = B.cpu.xp.array(float(v), dtype)
        else:
            h = B.cpu.xp.array(_fill_value(v, dtype, "__setitem__"), dtype)
        _copy_to(target, Tensor._make(self._device.from_host(h), self._device), True)
        return
    steps = split_integers(key) if isinstance(key, tuple) else None
    if steps is not None:
        # the integers as a view, the rest index_put_ into it, as PyTorch (Note [integers
        # beside advanced indices], indexing.py)
        return setitem(_basic_steps(self, steps[0], alias_self=False), steps[1], value)
    if not isinstance(value, Tensor):
        value = P._coerce(value, self)
        if not isinstance(value, Tensor) and self._data.dtype.kind in "iu":
            value = P.number_as(value, self._data.dtype)
    _check_put_dtype(self, key, value)
    apply_inplace(INDEX_PUT, self, (value,), (k, False, index_tensors(key)), name="__setitem__")


def _byte_fill(key, value):
    """True for ``x[uint8_mask] = number`` (or a one-element value): PyTorch puts one
    element through a lone mask as masked_fill_, which refuses a uint8 mask — though
    indexing with one is only deprecated."""
    if not (not isinstance(value, Tensor) or value.numel() == 1):
        return False
    items = tuple(key) if isinstance(key, (tuple, list)) else (key,)
    arrays = [k for k in items if isinstance(k, (Tensor, list, bool)) or B.is_array(k)]
    # (0-d integer tensors are selects, not index tensors)
    arrays = [k for k in arrays if isinstance(k, (list, bool)) or k.ndim
              or _index_dtype(k).kind == "b" or _index_dtype(k) == "uint8"]
    return len(arrays) == 1 and not isinstance(arrays[0], (list, bool)) and \
        arrays[0].ndim > 0 and _index_dtype(arrays[0]) == "uint8"


def _index_dtype(k):
    return k._data.dtype if isinstance(k, Tensor) else k.dtype


def _refuse_byte_fill():
    raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                       "unsigned char")


def _check_put_dtype(self, key, value):
    """PyTorch's index_put refuses a value Tensor of another dtype — except one element
    put through a single bool mask, which PyTorch runs as masked_fill_ (a cast)."""
    if not isinstance(value, Tensor) or value._data.dtype == self._data.dtype:
        return
    only = key[0] if isinstance(key, tuple) and len(key) == 1 else key
    if isinstance(only, Tensor) and only._data.dtype.kind == "b" and value.numel() == 1:
        return
    raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                       f"{torch_type_name(self._data.dtype)} for the destination and "
                       f"{torch_type_name(value._data.dtype)} for the source.")


def _copy_to(dst, src, on_host):
    """PyTorch's ``copy_to(dst, src)``, the last step of ``x[key] = value`` for a basic
    key: ``dst.copy_(src)`` when the shapes are equal; ``dst.fill_(src)`` for a 0-d
    ``src`` that came from the host (``on_host``: PyTorch makes a number's 0-d tensor on
    the cpu even for a cuda ``dst``, and fill_ takes it from there); else ``src`` viewed
    without its leading 1-sized dims, expanded to ``dst``'s shape, copied. So the graph
    is PyTorch's: CopyBackwards, FillBackward3 (with an edge for the value),
    ViewBackward0 and ExpandBackward0 on a value that requires grad."""
    shape = dst._data.shape
    if src._data.shape == shape:
        return _copy_into(dst, src, "__setitem__")
    if src._data.ndim == 0 and on_host:
        return apply_inplace(FILL_T, dst, (src,), name="__setitem__")
    sizes = src._data.shape
    lead = 0
    while lead < len(sizes) and sizes[lead] == 1:
        lead += 1
    src = src.view(sizes[lead:])
    if src._data.shape != shape:
        src = src.expand(shape)
    return _copy_into(dst, src, "__setitem__")


@method("index_put_")
def index_put_(self, indices, values, accumulate=False):
    if not accumulate and _byte_fill(tuple(indices), values):
        _refuse_byte_fill()
    indices = legacy_masks(indices)
    _check_put_dtype(self, tuple(indices), values)
    kind, k = normalize_key(self, tuple(indices))
    return apply_inplace(INDEX_PUT, self, (values,), (k, bool(accumulate),
                                                      index_tensors(tuple(indices))),
                         name="index_put_")


@method("index_put")
def index_put(self, indices, values, accumulate=False):
    """``index_put_`` on a copy (``torch.index_put``): one IndexPutBackward0, whose edges
    go to ``self``'s history and ``values``'."""
    if not accumulate and _byte_fill(tuple(indices), values):
        _refuse_byte_fill()
    indices = legacy_masks(indices)
    _check_put_dtype(self, tuple(indices), values)
    kind, k = normalize_key(self, tuple(indices))
    return dispatch(INDEX_PUT, (self, values), (k, bool(accumulate),
                                                index_tensors(tuple(indices))))
