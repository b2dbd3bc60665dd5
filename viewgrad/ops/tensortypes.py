"""The legacy typed constructors (``FloatTensor``, ``LongTensor``, ``DoubleTensor``...) and
``Tensor.type()``, as PyTorch still has them.

``vg.FloatTensor(2, 3)`` is a 2x3 float32 tensor, ``vg.LongTensor([1, 2])`` an int64 one,
and ``isinstance(x, vg.FloatTensor)`` asks for x's dtype. ``x.type()`` names the type in
PyTorch's words (``'torch.FloatTensor'``, so scripts comparing the string keep working);
``x.type(vg.DoubleTensor)``, ``x.type('torch.DoubleTensor')`` or ``x.type(vg.float64)``
convert. New code should prefer ``vg.tensor(data, dtype=...)`` and ``x.to(dtype)``.
"""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor
from .table import method

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor",
           "CharTensor", "ByteTensor", "BoolTensor"]


class _TypedMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype


def _typed(name, dtype):
    def __new__(cls, *args, device=None, requires_grad=False):
        return Tensor(*args, dtype=dtype, device=device, requires_grad=requires_grad)

    doc = (f"``vg.{name}(*sizes)`` or ``vg.{name}(data)``: a {B.dtype_name(dtype)} tensor, "
           f"as ``torch.{name}`` (sizes give zeros here; PyTorch leaves them "
           f"uninitialised). ``isinstance(x, vg.{name})`` is True when x's dtype is "
           f"{B.dtype_name(dtype)}.")
    return _TypedMeta(name, (), {"__new__": __new__, "dtype": dtype, "__doc__": doc})


FloatTensor = _typed("FloatTensor", B.float32)
DoubleTensor = _typed("DoubleTensor", B.float64)
HalfTensor = _typed("HalfTensor", B.float16)
LongTensor = _typed("LongTensor", B.int64)
IntTensor = _typed("IntTensor", B.int32)
CharTensor = _typed("CharTensor", B.int8)
ByteTensor = _typed("ByteTensor", B.uint8)
BoolTensor = _typed("BoolTensor", B.bool_)

_BY_NAME = {t.__name__: t for t in (FloatTensor, DoubleTensor, HalfTensor, LongTensor,
                                    IntTensor, CharTensor, ByteTensor, BoolTensor)}
_BY_DTYPE = {t.dtype: t.__name__ for t in _BY_NAME.values()}


@method("type")
def type_(self, dtype=None, non_blocking=False, **kwargs):
    """Without arguments: the type's name as PyTorch writes it (``'torch.FloatTensor'``,
    ``'torch.cuda.LongTensor'`` on a GPU). With a type (``vg.DoubleTensor``,
    ``'torch.DoubleTensor'``) or a dtype: the tensor converted to it (itself when it already
    has it), as ``torch.Tensor.type``."""
    if dtype is None:
        prefix = "torch.cuda." if self.device.type == "cuda" else "torch."
        return prefix + _BY_DTYPE.get(self.dtype, B.dtype_name(self.dtype))
    if isinstance(dtype, str):
        name = dtype.rsplit(".", 1)[-1]
        if name not in _BY_NAME:
            raise ValueError(f"invalid type: '{dtype}' (use e.g. 'torch.FloatTensor' or a "
                             "dtype)")
        dtype = _BY_NAME[name].dtype
    elif isinstance(dtype, _TypedMeta):
        dtype = dtype.dtype
    elif not B.is_dtype_like(dtype):
        raise TypeError("dtype must be a type, str, or dtype object")
    return self.to(dtype)


@method("byte")
def byte(self):
    """``x.to(uint8)``, as ``torch.Tensor.byte``."""
    return self.to(B.uint8)


@method("char")
def char(self):
    """``x.to(int8)``, as ``torch.Tensor.char``."""
    return self.to(B.int8)


@method("short")
def short(self):
    """``x.to(int16)``, as ``torch.Tensor.short``."""
    return self.to(B.int16)
