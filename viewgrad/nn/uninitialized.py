"""``UninitializedParameter`` and ``UninitializedBuffer``: the placeholders a lazy module
(``nn.LazyLinear``, ``nn.LazyConv2d``, ...: ``nn/lazy.py``) holds until its first forward
tells it the shapes. Served as ``torch.nn.parameter.UninitializedParameter`` (re-exported by
``nn/parameter.py``) with ``is_lazy``.

A placeholder is a Parameter (or a buffer Tensor) over an empty array, that refuses to be
used, with PyTorch's errors: ``.shape`` is a RuntimeError (the words say it usually comes
from ``load_state_dict``), any op a ValueError "Attempted to use an uninitialized parameter
in <the op>". What it allows is what PyTorch's allow-list does: its dtype, device,
``requires_grad``, ``size()``, ``copy_``, the conversions (``to``, ``float``, ``double``,
``cpu``, ...) and ``materialize(shape)``, which gives it an array of that shape and turns
it, the same object, into a plain Parameter (or Tensor): so a module and anything holding
the object see the real parameter afterwards.
"""
from __future__ import annotations

import inspect
import sys
import types

from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor
from .parameter import Parameter

__all__ = ["UninitializedTensorMixin", "UninitializedParameter", "UninitializedBuffer",
           "is_lazy"]

# The array slot of Tensor, reached past the guarding ``_data`` property below (the
# placeholder's own methods need the empty array; every op reading ``_data`` must not).
_RAW = Tensor.__dict__["_data"]

_SHAPE_ERROR = ("Can't access the shape of an uninitialized parameter or buffer. This error "
                "usually happens in `load_state_dict` when trying to load an uninitialized "
                "parameter into an initialized one. Call `forward` to initialize the "
                "parameters before accessing their attributes.")


def _use_error(cls, what):
    """PyTorch's ValueError for an op on a placeholder (it says "parameter" for a buffer
    too, as PyTorch's does)."""
    return ValueError(
        f"Attempted to use an uninitialized parameter in {what}. This error happens when you "
        "are using a `LazyModule` or explicitly manipulating "
        f"`torch.nn.parameter.{cls.__name__}` objects. When using LazyModules Call `forward` "
        "with a dummy batch to initialize the parameters before calling torch functions")


def _method_text(name):
    return f"<method '{name}' of 'viewgrad.Tensor' objects>"


def _in_viewgrad(frame):
    mod = frame.f_globals.get("__name__", "")
    return mod == "viewgrad" or mod.startswith("viewgrad.")


def _entry_point(frame):
    """The op a user called that reached a placeholder, from ``frame`` (the one that
    touched it) outwards: the outermost viewgrad function on the stack. PyTorch's
    ``__torch_function__`` sees the call at the API boundary; viewgrad's ops are Python all
    the way down, and one op calls others (``matmul`` asks ``dim()``), so the name that
    means something to the user is the one called from outside viewgrad."""
    entry = None
    while frame is not None and _in_viewgrad(frame):
        if frame.f_globals.get("__name__") != __name__:
            entry = frame
        frame = frame.f_back
    if entry is None:
        return None
    code = entry.f_code
    fn = entry.f_globals.get(code.co_name)
    if getattr(fn, "__code__", None) is code:
        return repr(fn)
    # (a generated wrapper, as the checked-signature functions: their op's name is held)
    name = entry.f_locals.get("name") if "name" in code.co_freevars else None
    if isinstance(name, str):
        return f"<function {name}>"
    return f"<function {getattr(code, 'co_qualname', code.co_name)}>"


def is_lazy(param) -> bool:
    """Whether ``param`` is an ``UninitializedParameter`` or ``UninitializedBuffer``."""
    return isinstance(param, UninitializedTensorMixin)


def _placeholder(cls, requires_grad, device, dtype):
    """A new ``cls`` over an empty array of ``dtype`` on ``device``."""
    from ..ops.factories import empty
    t = empty(0, dtype=dtype, device=device)
    p = Tensor._make(_RAW.__get__(t), t._device)
    if requires_grad:   # (set while a plain tensor: the placeholder's requires_grad_ refuses)
        p.requires_grad_(True)
    p.__class__ = cls   # (the same slots: only the class changes, as Parameter does)
    return p


class UninitializedTensorMixin:
    """What the two placeholders share: the guard on their data, the allowed methods and
    ``materialize``."""

    __slots__ = ()
    cls_to_become = None   # the class the object becomes on materialize

    # -- the guard: every op reads ``_data``; the placeholder refuses it ---------------------
    @property
    def _data(self):
        raise _use_error(type(self), _entry_point(sys._getframe(1)) or "a viewgrad op")

    @_data.setter
    def _data(self, value):
        _RAW.__set__(self, value)

    @property
    def _storage(self):   # (Tensor's reads _data, which would refuse)
        s = self._storage_
        return _RAW.__get__(self) if s is None else s

    @_storage.setter
    def _storage(self, value):
        self._storage_ = None if value is _RAW.__get__(self) else value

    def _stand_in(self):
        """A plain tensor over the empty array, for the methods PyTorch allows."""
        return Tensor._make(_RAW.__get__(self), self._device)

    # -- what PyTorch allows ---------------------------------------------------------------
    @property
    def shape(self):
        raise RuntimeError(_SHAPE_ERROR)

    @property
    def dtype(self):
        return _RAW.__get__(self).dtype

    @property
    def ndim(self):
        return _RAW.__get__(self).ndim

    @property
    def data(self):
        return self._stand_in()

    def size(self, dim=None):
        """The placeholder's size: ``Size([0])`` (PyTorch allows asking it)."""
        return Tensor.size(self._stand_in(), dim)

    def is_floating_point(self):
        """Whether the dtype the parameter will have is floating point."""
        return _RAW.__get__(self).dtype.kind == "f"

    def is_complex(self):
        """Whether the dtype the parameter will have is complex."""
        return _RAW.__get__(self).dtype.kind == "c"

    def get_device(self):
        """-1 on the cpu, the device's index otherwise."""
        return Tensor.get_device(self._stand_in())

    def __hash__(self):
        return id(self)

    def copy_(self, src, non_blocking=False):
        """PyTorch lets ``copy_`` through to the (empty) data: a leaf that requires grad is
        refused in grad mode, and any non-empty ``src`` does not fit."""
        if self.requires_grad and is_grad_enabled():
            raise RuntimeError("a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        Tensor.copy_(self._stand_in(), src, non_blocking)
        return self

    def _converted(self, name, args, kwargs):
        out = getattr(Tensor, name)(self._stand_in(), *args, **kwargs)
        if _RAW.__get__(out) is _RAW.__get__(self):
            return self
        return self._reconverted(out)

    def to(self, *args, **kwargs):
        """``Tensor.to`` of the placeholder (Parameter: a plain empty tensor, as
        PyTorch's; buffer: a placeholder of the new dtype/device)."""
        return self._converted("to", args, kwargs)

    def float(self):
        """The placeholder as float32 (see ``to``)."""
        return self._converted("float", (), {})

    def double(self):
        """The placeholder as float64 (see ``to``)."""
        return self._converted("double", (), {})

    def half(self):
        """The placeholder as float16 (see ``to``)."""
        return self._converted("half", (), {})

    def long(self):
        """The placeholder as int64 (see ``to``)."""
        return self._converted("long", (), {})

    def int(self):
        """The placeholder as int32 (see ``to``)."""
        return self._converted("int", (), {})

    def char(self):
        """The placeholder as int8 (see ``to``)."""
        return self._converted("char", (), {})

    def short(self):
        """The placeholder as int16 (see ``to``)."""
        return self._converted("short", (), {})

    def cpu(self):
        """The placeholder on the cpu (see ``to``)."""
        return self._converted("cpu", (), {})

    def cuda(self, device=None):
        """The placeholder on the gpu (see ``to``)."""
        return self._converted("cuda", (), {})

    # -- refused with words of their own ---------------------------------------------------
    def requires_grad_(self, requires_grad=True):
        raise _use_error(type(self), _method_text("requires_grad_"))

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call "
                           "`forward` to initialize the parameters before calling "
                           "`module.share_memory()`.")

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    # -- becoming real ------------------------------------------------------------------------
    def materialize(self, shape, device=None, dtype=None):
        """Give the placeholder an array of ``shape`` (on its device, of its dtype, unless
        given) and make this very object a ``cls_to_become`` (Parameter or Tensor). The
        values are zeros, not PyTorch's uninitialised memory (a lazy module's
        ``reset_parameters`` writes them next; zeros keep a traced before-picture the same
        from run to run)."""
        from ..ops.factories import zeros
        raw = _RAW.__get__(self)
        fresh = zeros(tuple(shape), dtype=raw.dtype if dtype is None else dtype,
                      device=self._device if device is None else device)
        _RAW.__set__(self, _RAW.__get__(fresh))
        self._storage_ = fresh._storage_
        self._device = fresh._device
        self.__class__ = self.cls_to_become

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        new = self._like(self._device, _RAW.__get__(self).dtype)
        memo[id(self)] = new
        return new


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (a lazy module's, until its first forward):
    ``UninitializedParameter(requires_grad=True, device=None, dtype=None)``. Only its
    dtype, device and ``requires_grad`` can be read; ``materialize(shape)`` makes it a
    Parameter."""

    __slots__ = ()
    cls_to_become = Parameter

    def __init__(self, *args, **kwargs):
        pass   # everything is done in __new__

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        p = _placeholder(cls, requires_grad, device, dtype)
        p._is_param = True
        return p

    def _like(self, device, dtype):
        return type(self)(self.requires_grad, device, dtype)

    def _reconverted(self, out):
        # (PyTorch's Parameter turns its torch functions off, so a conversion gives a plain
        # tensor; Module.to puts that array back into the placeholder)
        return out


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (a lazy norm layer's running statistics):
    ``UninitializedBuffer(requires_grad=False, device=None, dtype=None, persistent=True)``;
    ``materialize(shape)`` makes it a plain Tensor."""

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        b = _placeholder(cls, requires_grad, device, dtype)
        b.persistent = persistent
        b._is_buffer = True   # (so isinstance(b, nn.Buffer), and a Module registers it)
        return b

    def __init__(self, *args, **kwargs):
        pass   # everything is done in __new__ (Tensor.__init__ would rebuild the fields)

    def _like(self, device, dtype):
        return type(self)(self.requires_grad, device, dtype, getattr(self, "persistent", True))

    def _reconverted(self, out):
        # (a converted buffer stays a placeholder, as PyTorch's subclass-preserving ops do)
        return self._like(out._device, out.dtype)


# Every other Tensor method refuses a placeholder by name, as PyTorch's __torch_function__
# does (its message names the op); the operators are named as PyTorch names them.
_OPERATORS = {"__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub",
              "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_",
              "__truediv__": "div", "__itruediv__": "div_", "__matmul__": "matmul",
              "__neg__": "neg", "__rsub__": "__rsub__", "__rtruediv__": "__rtruediv__",
              "__rmatmul__": "__rmatmul__", "__pow__": "pow", "__rpow__": "__rpow__",
              "__floordiv__": "__floordiv__", "__mod__": "__mod__", "__abs__": "abs",
              "__getitem__": "__getitem__", "__setitem__": "__setitem__",
              "__len__": "__len__", "__iter__": "__iter__", "__bool__": "__bool__",
              "__eq__": "__eq__", "__ne__": "__ne__", "__lt__": "__lt__", "__le__": "__le__",
              "__gt__": "__gt__", "__ge__": "__ge__", "__float__": "__float__",
              "__int__": "__int__", "__index__": "__index__", "__format__": "__format__",
              "__and__": "__and__", "__or__": "__or__", "__xor__": "__xor__",
              "__invert__": "__invert__", "__array__": "__array__"}


def _refusing(shown):
    def refuse(self, *args, **kwargs):
        # (called by another op, that op is what the user asked for: _entry_point)
        caller = sys._getframe(1)
        where = _entry_point(caller) if _in_viewgrad(caller) else None
        raise _use_error(type(self), where or _method_text(shown))
    refuse.__name__ = shown
    refuse.__doc__ = f"Refused on a placeholder (PyTorch's ValueError naming {shown!r})."
    return refuse


def _guard_methods():
    own = set(vars(UninitializedTensorMixin))
    names = [n for n in dir(Tensor) if not n.startswith("_") and n not in own]
    for name in names:
        if isinstance(inspect.getattr_static(Tensor, name), types.FunctionType):
            setattr(UninitializedTensorMixin, name, _refusing(name))
    for name, shown in _OPERATORS.items():
        if name not in own and hasattr(Tensor, name):
            setattr(UninitializedTensorMixin, name, _refusing(shown))


_guard_methods()
