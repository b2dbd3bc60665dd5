"""Joining tensors: cat and stack.

Their inputs are variadic (a list of tensors), so their nodes are written by hand:
``CatBackward0`` narrows the gradient back into pieces, ``StackBackward0`` selects.
Mixed dtypes promote as PyTorch's cat does (every input counts as dimensioned: float32
with int64 gives float32), and each piece of the gradient goes back in its input's dtype.
"""
from __future__ import annotations

import operator

from .. import backend as B
from ..autograd.state import state as _st
from ..autograd.graph import Node
from ..autograd.saved_names import int64_as_shown
from ..tensor import Tensor, _wrap_dim
from .table import _edges, promoted_dtype
from .views import narrow, select

__all__ = ["cat", "concat", "concatenate", "stack"]


class CatBackward0(Node):
    # sizes: each input's size along dim, None for a legacy empty input (its gradient is a
    # new empty 1-D tensor, as PyTorch's cat_tensors_backward makes it)
    __slots__ = ("dim", "sizes", "dtypes", "dim_arg")

    @property
    def _saved_dim(self):
        """The dim as it was given (PyTorch saves the argument, not the wrapped dim)."""
        return int64_as_shown(self.dim_arg)

    def apply(self, grads):
        g = grads[0]
        out, off = [], 0
        for e, s in zip(self.next_functions, self.sizes):
            if s is None:
                out.append(g.new_zeros(0) if e[0] is not None else None)
                continue
            out.append(narrow(g, self.dim, off, s) if e[0] is not None else None)
            off += s
        return _in_input_dtypes(out, self.dtypes)

    def apply_arrays(self, grads):
        """``apply`` on bare arrays (Note [cat's and stack's backward on arrays])."""
        g = grads[0]
        if g is None or self.dtypes is not None or None in self.sizes:
            return Node.apply_arrays(self, grads)
        out, off = [], 0
        key = [_ALL] * g.ndim
        for e, s in zip(self.next_functions, self.sizes):
            if e[0] is not None:
                key[self.dim] = slice(off, off + s)
                out.append(g[tuple(key)])
            else:
                out.append(None)
            off += s
        return out

    def saved_items(self):
        return [("dim", self.dim)]


# Note [cat's and stack's backward on arrays]
# A speed trick: in a plain backward (Note [arrays in a plain backward], engine_plain.py)
# CatBackward0's pieces of the gradient are narrow()s and StackBackward0's select()s,
# each a view Tensor with its view metadata, unwrapped at once. On the bare array they
# are the same slices of it: the same arrays (shape, strides, memory), made directly.
# A gradient that goes back in another dtype (mixed-dtype inputs) takes ``apply``.
_ALL = slice(None)


class StackBackward0(Node):
    __slots__ = ("dim", "dtypes", "dim_arg")

    _saved_dim = CatBackward0._saved_dim

    def apply(self, grads):
        g = grads[0]
        return _in_input_dtypes([select(g, self.dim, i) if e[0] is not None else None
                                 for i, e in enumerate(self.next_functions)], self.dtypes)

    def apply_arrays(self, grads):
        """``apply`` on bare arrays (Note [cat's and stack's backward on arrays])."""
        g = grads[0]
        if g is None or self.dtypes is not None:
            return Node.apply_arrays(self, grads)
        key = [_ALL] * self.dim
        return [g[(*key, i)] if e[0] is not None else None
                for i, e in enumerate(self.next_functions)]

    saved_items = CatBackward0.saved_items


def _in_input_dtypes(grads, dtypes):
    """Each gradient in its input's dtype (``dtypes``: None when all inputs had the
    output's dtype), as PyTorch's validate_outputs casts them."""
    if dtypes is not None:
        grads = [g if g is None or g._data.dtype == d else g.to(d)
                 for g, d in zip(grads, dtypes)]
    return grads


def _promoted(tensors):
    """(the arrays cast to the promoted dtype, each input's dtype or None if all agree)."""
    dt = promoted_dtype(tensors, all_dimensioned=True)
    if all(t._data.dtype == dt for t in tensors):
        return [t._data for t in tensors], None
    return ([t._data if t._data.dtype == dt else t._data.astype(dt) for t in tensors],
            tuple(t._data.dtype for t in tensors))


def _seq_check(tensors, name):
    if isinstance(tensors, Tensor):   # PyTorch's argument-parser error
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of "
                        "Tensors, not Tensor (wrap it: [t], or use t.unbind())")
    if not len(tensors):   # PyTorch: cat's is a ValueError, the others' a RuntimeError
        if name == "cat":
            raise ValueError("cat(): expected a non-empty list of Tensors")
        raise RuntimeError(f"{name} expects a non-empty TensorList")
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


def _concatenate(xp, arrays, d):
    """``concatenate`` with PyTorch's layout for cat's result: row-major (whatever the
    inputs' strides: NumPy would follow a column-major input), or channels_last when every
    input is a channels_last 4-D tensor."""
    if arrays[0].ndim == 4 and all(B.is_channels_last(a) for a in arrays):
        to, back = (0, 2, 3, 1), (0, 3, 1, 2)
        return xp.transpose(xp.concatenate([xp.transpose(a, to) for a in arrays],
                                           axis=to.index(d)), back)
    data = xp.concatenate(arrays, axis=d)
    return data if data.flags.c_contiguous else xp.ascontiguousarray(data)


def _legacy_empty(t):
    """PyTorch's cat_should_skip_tensor: a 1-D tensor of size 0 (what an empty tensor was
    before tensors of any shape could be empty) joins the dtype promotion but not the
    shape checks, so ``cat([x, tensor([])])`` is ``x``."""
    return t.dim() == 1 and t._data.shape[0] == 0


def cat(tensors, dim=0):
    _seq_check(tensors, "cat")
    tensors = list(tensors)
    shaped = [t for t in tensors if not _legacy_empty(t)]
    if not shaped:   # all legacy empties: PyTorch wraps no dim (any dim is taken)
        xp = tensors[0]._device.xp
        arrays, dtypes = _promoted(tensors)
        return _finish_variadic(CatBackward0, xp.concatenate(arrays), tensors, dim=0,
                                dim_arg=operator.index(dim), sizes=(None,) * len(tensors),
                                dtypes=dtypes)
    ref = shaped[0]
    d = _wrap_dim(dim, ref.dim())
    for i, t in enumerate(tensors):
        if _legacy_empty(t):
            continue
        if t.dim() != ref.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.dim()} "
                               f"and {t.dim()}")
        for j, (a, b) in enumerate(zip(ref.shape, t.shape)):
            if j != d and a != b:   # (PyTorch's words: the first dim that differs)
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {a} "
                    f"but got size {b} for tensor number {i} in the list. (Shapes "
                    f"{list(ref.shape)} and {list(t.shape)}: only dim {d} may differ.)")
    xp = ref._device.xp
    arrays, dtypes = _promoted(tensors)
    legacy = [_legacy_empty(t) for t in tensors]
    data = _concatenate(xp, [a for a, skip in zip(arrays, legacy) if not skip], d)
    return _finish_variadic(CatBackward0, data, tensors, dim=d, dim_arg=operator.index(dim),
                            sizes=tuple(None if skip else t._data.shape[d]
                                        for t, skip in zip(tensors, legacy)), dtypes=dtypes)


def concat(tensors, dim=0):
    """``torch.concat``: the alias of ``cat`` (``CatBackward0``)."""
    return cat(tensors, dim)


def concatenate(tensors, dim=0):
    """``torch.concatenate``: the alias of ``cat`` (``CatBackward0``); NumPy's ``axis``
    is taken through the signature check as PyTorch's parser takes it."""
    return cat(tensors, dim)


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
    arrays, dtypes = _promoted(tensors)
    data = xp.stack(arrays, axis=d)
    if not (arrays[0].ndim == 4 and all(B.is_channels_last(a) for a in arrays)):
        data = B.row_major(data)   # (row-major unless channels_last, as PyTorch's stack)
    return _finish_variadic(StackBackward0, data, tensors, dim=d, dim_arg=operator.index(dim),
                            dtypes=dtypes)
