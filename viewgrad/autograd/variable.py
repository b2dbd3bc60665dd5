"""``autograd.Variable``: the pre-0.4 PyTorch wrapper, kept for old tutorials.

Since PyTorch 0.4 a Variable *is* a Tensor: ``Variable(t, requires_grad=True)`` returns a
new leaf tensor sharing ``t``'s memory (as ``t.detach().requires_grad_()``), and
``isinstance(x, Variable)`` is True for every tensor. viewgrad does the same, so code
written that way runs unchanged; new code should just use tensors.
"""
from __future__ import annotations

import warnings

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        from ..tensor import Tensor  # tensor.py imports autograd: Tensor is read at call time
        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """Deprecated wrapper, as ``torch.autograd.Variable``: ``Variable(t)`` is a new leaf
    tensor sharing ``t``'s data (not ``t``'s history: like ``t.detach()``), requiring grad
    when ``requires_grad=True``. ``volatile`` is ignored with a warning (use
    ``vg.no_grad()``). Every tensor is an instance of Variable."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        from ..tensor import Tensor
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "viewgrad.no_grad():` instead.", UserWarning, stacklevel=2)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got "
                            f"{type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out
