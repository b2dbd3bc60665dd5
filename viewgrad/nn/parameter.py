"""``Parameter``: a Tensor that a Module registers as one of its parameters.

Like ``torch.nn.Parameter``, it is a Tensor subclass, a leaf that requires grad by default,
and it shares storage AND version counter with the tensor it was made from (it is an alias
of ``data.detach()``): an optimizer's in-place update of the parameter moves the version
every view and alias of it sees.
"""
from __future__ import annotations

from ..tensor import LEAN_CLASSES, Tensor

__all__ = ["Parameter"]


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
