"""take / put: flat gather and scatter(-add) over the row-major order of a tensor.

Also the backward of views that may overlap (as_strided, unfold: ops/views.py), which
scatter-ADD their gradient through flat storage indices.
"""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor
from .table import defop, dispatch, method

__all__ = ["take", "put"]


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
    return out


def _put_zeros(grad, index, self_shape):
    from .factories import zeros
    return put(zeros(self_shape, dtype=grad.dtype, device=grad.device), index, grad,
               accumulate=True)


# (``self`` saved as PyTorch's TakeBackward0 saves it: a version-checked input)
TAKE = defop("take", "TakeBackward0", _take_fwd, inputs=("self", "index"),
             self=lambda grad, self, index, self_shape: _put_zeros(grad, index, self_shape))
PUT = defop("put", "PutBackward0", _put_fwd, inputs=("self", "index", "source"),
            attrs=("accumulate",),
            self=lambda grad, index, accumulate: grad if accumulate else put(
                grad, index, 0.0 * grad.take(index), False),
            source=lambda grad, index, source: grad.take(index).reshape(
                tuple(source.shape) if isinstance(source, Tensor) else ()))


@method("take")
def take(self, index):
    return dispatch(TAKE, (self, index))


@method("put")
def put(self, index, source, accumulate=False):
    return dispatch(PUT, (self, index, source), (bool(accumulate),))
