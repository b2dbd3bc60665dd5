"""dtypes: the names PyTorch users write (``"float32"``, ``float``, ``"long"``), PyTorch's
type promotion (Note [type promotion]), the default float dtype, Python and NumPy scalars
as operands, casts as PyTorch casts, the integer wrap-around of Note [wrapped integer
scalars], and the facts ``finfo``/``iinfo`` report. dtypes are NumPy dtype objects on every
device (CuPy uses NumPy's dtypes)."""
from __future__ import annotations

import numpy as np

_ndarray = np.ndarray

__all__ = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8",
           "bool_", "complex64", "complex128", "to_dtype", "is_dtype_like", "dtype_name",
           "python_scalar",
           "is_numpy_scalar", "cast", "dtype_limits", "wrap_int_scalar", "is_floating",
           "result_type", "promote_types", "default_float", "set_default_float",
           "finfo_fields", "iinfo_fields", "torch_result_type", "can_cast",
           "default_float_for", "sequence_dtype"]


# dtypes are numpy dtype objects on every device (cupy uses numpy's dtypes).
float32 = np.dtype("float32")
float64 = np.dtype("float64")
float16 = np.dtype("float16")
int64 = np.dtype("int64")
int32 = np.dtype("int32")
int16 = np.dtype("int16")
int8 = np.dtype("int8")
uint8 = np.dtype("uint8")
bool_ = np.dtype("bool")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")


_DTYPE_ALIASES = {
    "float32": float32, "float": float32, "float64": float64, "double": float64,
    "float16": float16, "half": float16, "int64": int64, "long": int64, "int32": int32,
    "int": int32, "int16": int16, "short": int16, "int8": int8, "uint8": uint8, "bool": bool_,
    "complex64": complex64, "cfloat": complex64, "complex128": complex128,
    "cdouble": complex128,
}


def to_dtype(d):
    """Accept a numpy dtype, a string or a Python type; return a numpy dtype."""
    if d is None:
        return None
    if isinstance(d, np.dtype):
        return d
    if isinstance(d, str):
        try:
            return _DTYPE_ALIASES[d]
        except KeyError:
            raise TypeError(f"unknown dtype {d!r}; use one of {sorted(_DTYPE_ALIASES)}") from None
    if d is float:   # (Python's float is a double: torch.float64, whatever the default)
        return float64
    if d is int:
        return int64
    if d is bool:
        return bool_
    return np.dtype(d)


def is_dtype_like(d) -> bool:
    """Whether ``d`` names a dtype as ``to``/``type`` take one: a dtype, a NumPy scalar
    type, or float/int/bool/complex."""
    return (isinstance(d, np.dtype) or d in (float, int, bool, complex)
            or (isinstance(d, type) and issubclass(d, np.generic)))


def dtype_name(d) -> str:
    return np.dtype(d).name


def python_scalar(x):
    """A NumPy scalar (``np.float64(2.5)``, ``np.int32(3)``) as an operand: the Python
    number it holds; anything else unchanged. PyTorch takes a NumPy scalar operand as a Python number — a
    weak scalar that keeps the tensor's dtype — where NumPy's own rules would make
    ``float32 * np.float64`` a float64."""
    if isinstance(x, np.generic):
        # (a NumPy bool PyTorch reads as the float 1.0 or 0.0: np.True_ - t is 1.0 - t)
        return float(x) if isinstance(x, np.bool_) else x.item()
    return x


def is_numpy_scalar(x) -> bool:
    """``np.float64(2.5)`` and friends: ``tensor()`` keeps their dtype, as PyTorch does."""
    return isinstance(x, np.generic)


def cast(a, dtype):
    """``a.astype(dtype)`` as PyTorch casts: silently. NaN, inf and out-of-range floats cast
    to integers as C does (numpy warns "invalid value encountered in cast"; PyTorch not).
    On a GPU a float goes to uint8 through int64, as PyTorch's CUDA kernels do
    (-1.7 -> 255 there and on the CPU), where CuPy's own cast would saturate (-1.7 -> 0)."""
    with np.errstate(invalid="ignore", over="ignore"):
        if type(a) is not _ndarray and a.dtype.kind == "f" and np.dtype(dtype) == np.uint8:
            return a.astype(np.int64).astype(np.uint8)
        return a.astype(dtype)


def dtype_limits(d) -> tuple:
    """(lowest, highest) finite value of a numeric dtype ``d`` (PyTorch's scalar overflow
    check in fill_)."""
    d = np.dtype(d)
    if d.kind == "f":
        info = np.finfo(d)
        return float(info.min), float(info.max)
    info = np.iinfo(d)
    return int(info.min), int(info.max)


# Note [wrapped integer scalars]: PyTorch casts a Python int operand to the op's integer
# computation dtype as C does, wrapping around: ``uint8_tensor + -1`` adds 255 (mod 256),
# ``uint8_tensor < -1`` compares with 255 (True everywhere), ``int32_tensor + 2**40`` adds 0.
# NumPy refuses an out-of-range Python int (OverflowError) or compares mathematically, so
# integer paths pass their Python ints through ``wrap_int_scalar`` first. Only ints beyond
# 64 bits are refused, with PyTorch's words. Float paths never get here.
_INT_RANGES: dict = {}


def wrap_int_scalar(v, dtype):
    """The Python int ``v`` as the integer dtype ``dtype`` holds it after C's wrap-around
    cast (Note [wrapped integer scalars]); ``v`` itself when it fits."""
    r = _INT_RANGES.get(dtype)
    if r is None:
        info = np.iinfo(dtype)
        r = _INT_RANGES[dtype] = (int(info.min), int(info.max), int(info.bits))
    lo, hi, bits = r
    if lo <= v <= hi:
        return v
    if not -(1 << 63) <= v < (1 << 64):
        raise OverflowError("int too big to convert")
    v &= (1 << bits) - 1
    return v - (1 << bits) if lo < 0 and v > hi else v


def is_floating(d) -> bool:
    return np.dtype(d).kind == "f"


def result_type(*dts):
    return np.result_type(*dts)


# Note [type promotion]: PyTorch's rules, not NumPy's. Categories bool < integer < floating
# < complex. Operands come in three tiers: dimensioned tensors, 0-d tensors, Python
# scalars. The result's category is the highest category present; its dtype comes from the
# highest tier that has an operand of that category (a Python float only picks the
# default float dtype). So float32 * int64 tensor -> float32 (NumPy: float64), int64
# tensor * 2.5 -> float32 (NumPy: float64), float32 * float64 0-d tensor -> float32.
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def promote_types(a, b):
    """``torch.promote_types``: the higher category wins as is; within one category the
    wider type (uint8 with int8 gives int16, as in NumPy)."""
    a, b = np.dtype(a), np.dtype(b)
    ca, cb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ca != cb:
        if ca == 3 or cb == 3:  # complex with float: keep the float's precision
            c, f = (a, b) if ca == 3 else (b, a)
            return np.promote_types(c, f) if f.kind == "f" else c
        return a if ca > cb else b
    return np.promote_types(a, b)


# The default float dtype (``torch.set_default_dtype``): what Python floats become and what
# factories make without dtype=. Only float32 and float64 are allowed, as in PyTorch.
_default_float = [float32]


def default_float() -> np.dtype:
    """The default float dtype (float32 unless ``set_default_float`` changed it)."""
    return _default_float[0]


def set_default_float(d) -> None:
    d = to_dtype(d)
    if d not in (float32, float64):
        raise TypeError("only floating-point types are supported as the default type "
                        f"(got {d}; use float32 or float64)")
    _default_float[0] = d


def finfo_fields(d) -> dict:
    """bits, eps, max, min, tiny (= smallest_normal) and resolution of a float dtype."""
    f = np.finfo(to_dtype(d))
    return {"bits": int(f.bits), "eps": float(f.eps), "max": float(f.max),
            "min": float(f.min), "tiny": float(f.tiny), "smallest_normal": float(f.tiny),
            "resolution": float(str(f.resolution))}   # 1e-06, not float32(1e-06)


def iinfo_fields(d) -> dict:
    """bits, max and min of an integer (or bool) dtype."""
    d = to_dtype(d)
    if d == bool_:
        return {"bits": 8, "max": 1, "min": 0}
    f = np.iinfo(d)
    return {"bits": int(f.bits), "max": int(f.max), "min": int(f.min)}


def _scalar_dtype(v):
    if isinstance(v, bool):
        return bool_
    if isinstance(v, int):
        return int64
    if isinstance(v, float):
        return _default_float[0]
    return np.dtype("complex64")


def _fold(dtypes):
    r = None
    for d in dtypes:
        r = d if r is None else promote_types(r, d)
    return r


def _combine(higher, lower):
    """PyTorch's combine_categories: ``higher`` is the higher-priority tier's result."""
    if higher is None:
        return lower
    if lower is None or higher.kind == "c":
        return higher
    if lower.kind == "c":
        return np.promote_types(higher, lower) if higher.kind == "f" else lower
    if higher.kind == "f":
        return higher
    if higher.kind == "b" or lower.kind == "f":
        return promote_types(higher, lower)
    return higher


def torch_result_type(dim_dtypes, zero_dim_dtypes, scalars):
    """``torch.result_type`` over dimensioned tensors' dtypes, 0-d tensors' dtypes and
    Python scalars (see Note [type promotion])."""
    wrapped = _fold([_scalar_dtype(v) for v in scalars])
    return _combine(_fold(dim_dtypes), _combine(_fold(zero_dim_dtypes), wrapped))


def can_cast(frm, to) -> bool:
    return np.can_cast(frm, to, casting="same_kind")


def sequence_dtype(data):
    """The dtype PyTorch infers for nested lists that hold a NumPy scalar (``[1.0,
    np.float64(0.1)]`` is float64, ``[np.int32(1), np.int32(2)]`` int32): each element's
    own type (a NumPy scalar its dtype, a Python float the default dtype, an int int64, a
    bool bool, a complex the default complex), promoted across the elements as
    ``promote_types`` does. None when no NumPy scalar is among them (``default_float_for``
    answers those), or when something else is."""
    types = _leaf_types(data, set())
    found = [np.dtype(t) for t in types if issubclass(t, np.generic)]
    if not found or any(d.kind not in "biufc" for d in found):
        return None   # (no NumPy scalar, or one of no number: the usual path, its errors)
    for t in types:
        if t in (bool, int, float, complex):
            found.append(default_float_for(t(0) if t is not bool else False))
        elif not issubclass(t, np.generic):
            return None
    dt = found[0]
    for d in found[1:]:
        dt = promote_types(dt, d)
    return dt


def _leaf_types(data, out):
    """The types of the leaves of nested lists/tuples, into the set ``out`` (each level's
    types gathered by ``map``, in C: the elements' dtypes follow from their types)."""
    types = set(map(type, data))
    if list in types or tuple in types:
        for x in data:
            if type(x) is list or type(x) is tuple:
                _leaf_types(x, out)
        types -= {list, tuple}
    out |= types
    return out


def default_float_for(value) -> np.dtype:
    """dtype a Python value gets as a tensor (float32 default, like PyTorch)."""
    a = np.asarray(value)
    if a.dtype.kind == "f":
        return _default_float[0]
    if a.dtype.kind == "b":
        return bool_
    if a.dtype.kind in "iu":
        return int64
    if a.dtype.kind == "c":   # the default complex dtype goes with the default float
        return np.dtype("complex64" if _default_float[0] == np.float32 else "complex128")
    if a.dtype.kind == "O" and a.size:
        # Python ints past 64 bits among numbers (NumPy keeps them as objects): PyTorch
        # infers from the kinds of the numbers, and a float among them makes the ints
        # floats; an int alone is int64 (and the conversion then says it overflows)
        items = a.ravel().tolist()
        if all(type(x) in (bool, int, float, complex) for x in items):
            kinds = {type(x) for x in items}
            return default_float_for(complex(0) if complex in kinds else 0.0 if float in kinds
                                     else 0 if int in kinds else False)
    return a.dtype
