"""take / put: flat gather and scatter(-add) over the row-major order of a tensor; and
take_along_dim, the gather that broadcasts (or takes flat).

Also the backward of views that may overlap (as_strided, unfold: ops/views.py), which
scatter-ADD their gradient through flat storage indices.
"""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor, _wrap_dim
from .args import torch_type_name, with_out
from .table import apply_inplace, defop, dispatch, method

__all__ = ["take", "put", "put_", "take_along_dim"]


def _take_fwd(self, index):
    return self.reshape(-1)[index]


def _put_fwd(self, index, source, accumulate):
    out = self.copy()
    flat = out.reshape(-1)
    src = source.reshape(-1) if hasattr(source, "reshape") else source
    if accumulate:
        B.add_at(flat, index.reshape(-1), src)
    else:
        flat[index.reshape(-1)] = src
    return B.layout_like(out, self)   # (self's layout, as PyTorch's clone keeps it)


def _put_zeros(grad, index, self_shape):
    from .factories import zeros
    return put(zeros(self_shape, dtype=grad.dtype, device=grad.device), index, grad,
               accumulate=True)


# (``self`` saved as PyTorch's TakeBackward0 saves it: a version-checked input)
TAKE = defop("take", "TakeBackward0", _take_fwd, inputs=("self", "index"),
             self=lambda grad, self, index, _self_shape: _put_zeros(grad, index, _self_shape))
PUT = defop("put", "PutBackward0", _put_fwd, inputs=("self", "index", "source"),
            attrs=("accumulate",),
            self=lambda grad, index, accumulate: grad if accumulate else put(
                grad, index, 0.0 * grad.take(index), False),
            source=lambda grad, index, source: grad.take(index).reshape(
                tuple(source.shape) if isinstance(source, Tensor) else ()))


def _in_range(self, index):
    """PyTorch's refusal of a flat index outside ``self`` (negative ones count from the
    end)."""
    n = self.numel()
    if index.numel():
        dev = index._device
        lo, hi = (int(dev.to_host(index._data.min())), int(dev.to_host(index._data.max())))
        bad = hi if hi >= n else (lo if lo < -n else None)
        if bad is not None:
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                             "elements.")


def _put_checks(self, index, source):
    if isinstance(source, Tensor) and source.dtype != self.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {torch_type_name(self._data.dtype)} and "
                           f"source.dtype = {torch_type_name(source._data.dtype)}")
    _in_range(self, index)


def _overlap(t, o):
    """Whether tensor ``o`` shares any byte of memory with ``t`` (by the byte ranges their
    strides span over one storage)."""
    if not isinstance(o, Tensor) or o._storage is not t._storage or not (t.numel() and
                                                                       o.numel()):
        return False

    def span(x):
        d = x._data
        lo = hi = x.data_ptr()
        for n, s in zip(d.shape, d.strides):
            if s < 0:
                lo += (n - 1) * s
            else:
                hi += (n - 1) * s
        return lo, hi + d.itemsize
    a, b = span(t), span(o)
    return a[0] < b[1] and b[0] < a[1]


def _long_index(name, index):
    """PyTorch's refusal of an index tensor that is not int64 (NumPy's words would say
    'arrays used as indices must be of integer type')."""
    if isinstance(index, Tensor) and index._data.dtype != B.int64:
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got "
                           f"{torch_type_name(index._data.dtype)}")


@method("take")
def take(self, index):
    _long_index("take", index)
    _in_range(self, index)
    return dispatch(TAKE, (self, index))


@method("put")
def put(self, index, source, accumulate=False):
    _long_index("put_", index)   # (PyTorch's put is put_ on a clone: its words)
    _put_checks(self, index, source)
    return dispatch(PUT, (self, index, source), (bool(accumulate),))


@method("put_")
def put_(self, index, source, accumulate=False):
    """In place ``put``: ``self.view(-1)[index] = source`` (``+=`` with ``accumulate``),
    as ``torch.Tensor.put_``."""
    _long_index("put_", index)
    _put_checks(self, index, source)
    for o in (index, source):   # PyTorch's assert_no_overlap: not even the same memory
        if _overlap(self, o):
            raise RuntimeError("unsupported operation: some elements of the input tensor and "
                               "the written-to tensor refer to a single memory location. "
                               "Please clone() the tensor before performing the operation.")
    return apply_inplace(PUT, self, (index, source), (bool(accumulate),), name="put_")


@method("take_along_dim")
def take_along_dim(input, indices, dim=None, *, out=None):
    """``torch.take_along_dim``: along ``dim``, the values at ``indices`` (a gather whose
    operands broadcast against each other elsewhere, as the argsort/argmax of a dim
    gives them); without ``dim``, ``take`` over the flattened input. GatherBackward0
    over ExpandBackward0 (or ViewBackward0), as PyTorch records it."""
    if not isinstance(indices, Tensor):
        raise TypeError("take_along_dim(): argument 'indices' (position 2) must be Tensor, "
                        f"not {type(indices).__name__}")
    if indices._data.dtype != B.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{torch_type_name(indices._data.dtype)}")
    if dim is None:
        return with_out(input.view(-1).gather(0, indices.view(-1)), out, "take_along_dim")
    if input.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.dim()} dimensions for input, "
                           f"and {indices.dim()} dimensions for indices")
    d = _wrap_dim(dim, input.dim())
    n = input.shape[d] if input.dim() else 1
    if n and indices.numel():
        lo, hi = int(indices._data.min()), int(indices._data.max())
        if lo < 0 or hi >= n:   # PyTorch's take_along_dim takes every position modulo
            indices = indices.remainder(n)   # the size (-1 is the last; so is 2n - 1)
    sizes = list(input.shape)
    sizes[d] = indices.shape[d]
    shape = list(B.broadcast_shapes(tuple(sizes), tuple(indices.shape)))
    idx = indices.broadcast_to(shape)
    shape[d] = input.shape[d]
    return with_out(input.broadcast_to(shape).gather(d, idx), out, "take_along_dim")
