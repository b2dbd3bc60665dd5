"""Joining tensors: cat and stack.

Their inputs are variadic (a list of tensors), so their nodes are written by hand:
``CatBackward0`` narrows the gradient back into pieces, ``StackBackward0`` selects.
"""
from __future__ import annotations

from ..autograd.state import state as _st
from ..autograd.graph import Node
from ..tensor import Tensor, _wrap_dim
from .table import _edges
from .views import narrow, select

__all__ = ["cat", "stack"]


class CatBackward0(Node):
    __slots__ = ("dim", "sizes")

    def apply(self, grads):
        g = grads[0]
        out, off = [], 0
        for e, s in zip(self.next_functions, self.sizes):
            out.append(narrow(g, self.dim, off, s) if e[0] is not None else None)
            off += s
        return out

    def saved_items(self):
        return [("dim", self.dim)]


class StackBackward0(Node):
    __slots__ = ("dim",)

    def apply(self, grads):
        g = grads[0]
        return [select(g, self.dim, i) if e[0] is not None else None
                for i, e in enumerate(self.next_functions)]

    def saved_items(self):
        return [("dim", self.dim)]


def _seq_check(tensors, name):
    if isinstance(tensors, Tensor) or not len(tensors):
        raise RuntimeError(f"{name}(): expected a non-empty list of Tensors")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): expected a list of Tensors, got {type(t).__name__}")
    devs = {t.device.type for t in tensors}
    if len(devs) > 1:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least "
                           f"two devices, {' and '.join(sorted(devs))}!")


def _finish_variadic(node_cls, data, tensors, **fields):
    out = Tensor._make(data, tensors[0]._device)
    if _st.grad_enabled:
        edges = _edges(tuple(tensors))
        if edges is not None:
            node = node_cls(edges)
            for k, v in fields.items():
                setattr(node, k, v)
            out._grad_fn = node
    return out


def cat(tensors, dim=0):
    _seq_check(tensors, "cat")
    tensors = list(tensors)
    ref = tensors[0]
    d = _wrap_dim(dim, ref.dim())
    for i, t in enumerate(tensors):
        if t.dim() != ref.dim() or any(a != b for j, (a, b) in enumerate(
                zip(t.shape, ref.shape)) if j != d):
            raise RuntimeError(
                f"Sizes of tensors must match except in dimension {d}. Expected size "
                f"{list(ref.shape)} but got size {list(t.shape)} for tensor number {i} in the "
                "list.")
    xp = ref._device.xp
    data = xp.concatenate([t._data for t in tensors], axis=d)
    return _finish_variadic(CatBackward0, data, tensors, dim=d,
                            sizes=tuple(t._data.shape[d] for t in tensors))


def stack(tensors, dim=0):
    _seq_check(tensors, "stack")
    tensors = list(tensors)
    ref = tensors[0]
    for i, t in enumerate(tensors):
        if tuple(t.shape) != tuple(ref.shape):
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(ref.shape)} at entry 0 and {list(t.shape)} at entry {i}")
    d = _wrap_dim(dim, ref.dim() + 1)
    xp = ref._device.xp
    data = xp.stack([t._data for t in tensors], axis=d)
    return _finish_variadic(StackBackward0, data, tensors, dim=d)
