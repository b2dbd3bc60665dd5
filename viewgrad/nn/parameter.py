"""``Parameter``: a Tensor that a Module registers as one of its parameters; ``Buffer``: one
it registers as a buffer.

Like ``torch.nn.Parameter``, it is a Tensor subclass, a leaf that requires grad by default,
and it shares storage AND version counter with the tensor it was made from (it is an alias
of ``data.detach()``): an optimizer's in-place update of the parameter moves the version
every view and alias of it sees.
"""
from __future__ import annotations

from ..tensor import LEAN_CLASSES, Tensor

__all__ = ["Parameter", "Buffer"]


class Parameter(Tensor):
    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ..ops.factories import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, not {type(data).__name__} "
                            "(make one with viewgrad.tensor(...) first)")
        src = data.detach()
        p = Tensor._make(src._data, src._device)
        p.__class__ = cls  # same slots layout, so the class can be swapped safely
        p._storage = src._storage
        p._version_counter = src._version_counter
        p._is_param = True
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass  # everything is done in __new__ (Tensor.__init__ would rebuild the fields)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()


LEAN_CLASSES.add(Parameter)   # Note [the classes the lean paths take] (tensor.py)


class _BufferMeta(type):
    # (a Buffer is a plain Tensor marked as one, as in PyTorch: isinstance asks the mark)
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(metaclass=_BufferMeta):
    """``torch.nn.Buffer``: ``module.name = Buffer(t)`` registers ``t`` (detached, its
    requires_grad kept) as the module's buffer ``name``; ``persistent=False`` keeps it out
    of the state dict. The object is the Tensor itself, marked (``_is_buffer``)."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from ..ops.factories import empty
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


# (the placeholders of lazy modules, served as torch.nn.parameter's: nn/uninitialized.py)
from .uninitialized import (UninitializedBuffer, UninitializedParameter,  # noqa: E402
                            UninitializedTensorMixin, is_lazy)

__all__ += ["UninitializedParameter", "UninitializedBuffer", "UninitializedTensorMixin",
            "is_lazy"]
