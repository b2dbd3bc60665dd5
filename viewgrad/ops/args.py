"""Argument handling shared by op signatures: ``out=``, integer inputs of float ops, and
numbers stored into a dtype (PyTorch's checked conversion).

PyTorch's ``torch.sin(torch.tensor([1, 2]))`` is a float32 tensor: ops whose result is
mathematically real take integer (and bool) inputs as the default float dtype. And most
functions take ``out=``, a tensor the result is written into.
"""
from __future__ import annotations

import math
import numbers
import warnings

from .. import backend as B
from ..autograd.grad_mode import no_grad
from ..autograd.state import state as _st

__all__ = ["float_input", "with_out", "checked_scalar", "torch_type_name",
           "check_result_cast", "check_mixed_dtypes", "check_no_requires_grad"]

# dtype -> the name PyTorch's C++ messages give it ("Float did not match Double")
_TORCH_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half",
                     "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                     "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
                     "complex128": "ComplexDouble"}


def torch_type_name(dtype) -> str:
    """The ScalarType name PyTorch's error messages use for ``dtype`` (Float, Long...)."""
    return _named(_TORCH_TYPE_NAMES, dtype)


def _named(names, dtype):
    name = B.dtype_name(dtype)
    return names.get(name, name)


# PyTorch's C++ spelling of the dtypes, as some of its kernels' messages print them
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


def cpp_type_name(dtype) -> str:
    """The C++ type name of ``dtype`` ("float", "long int") in PyTorch's kernel messages."""
    return _named(_CPP_NAMES, dtype)


_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def check_mixed_dtypes(input, *params):
    """PyTorch's normalisation kernels take parameters (weight, bias, running statistics)
    of the input's dtype only (a float16 input may have float32 ones); anything else is
    refused in its words, where viewgrad would have promoted."""
    dts = {p._data.dtype for p in params if p is not None}
    it = input._data.dtype
    if not dts or dts == {it} or (it == B.float16 and dts == {B.float32}):
        return
    if it == B.float32:
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def check_no_requires_grad(t, arg, fname):
    """PyTorch's refusal of a tensor argument that its function has no derivative for
    (a loss's class ``weight``, ``pos_weight``) when it requires grad, in grad mode: the
    gradient would silently never arrive. ``fname`` is the function PyTorch names."""
    if t is not None and _st.grad_enabled and getattr(t, "requires_grad", False):
        raise RuntimeError(f"The function '{fname}' is not differentiable with respect to "
                           f"argument '{arg}'. This input cannot have requires_grad True.")


def check_result_cast(result_dtype, dtype) -> None:
    """PyTorch's ``canCast`` for an in-place op's (or ``out=``'s) result: a higher category
    never goes into a lower one (float into an integer tensor, an integer into a bool
    one); within a category anything goes (int64 into int32 wraps)."""
    if _CATEGORY[result_dtype.kind] > _CATEGORY[dtype.kind]:
        raise RuntimeError(f"result type {torch_type_name(result_dtype)} can't be cast to "
                           f"the desired output type {torch_type_name(dtype)}")


def float_input(x):
    """``x`` itself when it is floating point or complex, else ``x`` converted to the default
    float dtype (a complex tensor stays complex: PyTorch computes sin of one in complex)."""
    return x if x._data.dtype.kind in "fc" else x.to(B.default_float())


def with_out(result, out, name):
    """Return ``result``, or write it into ``out`` and return ``out`` (PyTorch's ``out=``).

    Like PyTorch, ``out=`` does not record a graph: when an input requires grad it is an
    error (call the function without ``out=`` and assign the result instead)."""
    if out is None:
        return result
    results = result if isinstance(result, tuple) else (result,)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    if len(outs) != len(results):
        raise TypeError(f"{name}(): out= expects {len(results)} tensor(s), got {len(outs)}")
    if _st.grad_enabled and any(t.requires_grad for t in results + tuple(outs)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires "
                           "grad. Call it without out= and assign the result instead.")
    for r, o in zip(results, outs):   # (all checked before anything is written)
        check_result_cast(r._data.dtype, o._data.dtype)
    with no_grad():
        for r, o in zip(results, outs):
            if tuple(o.shape) != tuple(r.shape):
                # PyTorch resizes out (an empty one silently, as ``t.resize_(0)`` invites)
                if o.numel():
                    warnings.warn(
                        f"An output with one or more elements was resized since it had shape "
                        f"{list(o.shape)}, which does not match the required output shape "
                        f"{list(r.shape)}. This behavior is deprecated, and in a future "
                        "PyTorch release outputs will not be resized unless they have zero "
                        "elements. You can explicitly reuse an out tensor t by resizing it, "
                        "inplace, to zero elements with t.resize_(0).", UserWarning,
                        stacklevel=3)
                from .resize import resize_storage
                resize_storage(o, tuple(r.shape))   # (one bump: the write's)
            o.copy_(r)
    if hasattr(result, "_fields"):   # (values, indices): the outs as the named tuple
        return type(result)(outs)
    return out


def checked_scalar(value, dtype):
    """``(v, ok)``: the Python number ``value`` as ``dtype`` stores it, and whether it fits
    (PyTorch's checked conversion, used by ``fill_`` and ``tensor()``): NaN, inf or a float
    out of range never fit an integer dtype (a float in range truncates toward zero); an
    unsigned dtype takes ints down to -max (they wrap, as in C); a finite float too large
    for a float dtype does not fit (inf and NaN do); a complex fits a real dtype only with
    no imaginary part. bool takes anything (non-zero is True)."""
    if hasattr(value, "item") and not isinstance(value, (bool, int, float, complex)):
        value = value.item()  # a numpy scalar: its Python number
    if dtype.kind == "b":
        return bool(value), True
    if not isinstance(value, numbers.Number):
        return value, False
    if dtype.kind == "c":   # any number fits a complex dtype
        return complex(value), True
    ok = not (isinstance(value, complex) and value.imag != 0)
    if isinstance(value, complex):
        value = value.real
    lo, hi = B.dtype_limits(dtype)
    if dtype.kind == "f":
        return value, ok and not (math.isfinite(value) and not lo <= value <= hi)
    if isinstance(value, float):
        ok = ok and math.isfinite(value) and lo <= value <= hi
        return (int(value) if ok else value), ok
    ok = ok and (-hi if lo == 0 else lo) <= value <= hi
    return (value % (hi + 1) if ok and value < 0 and lo == 0 else value), ok
