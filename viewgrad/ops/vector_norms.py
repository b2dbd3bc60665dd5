"""Vector and matrix norms: ``linalg.vector_norm`` (one row of the derivatives table,
``LinalgVectorNormBackward0``), ``linalg.matrix_norm``, ``linalg.norm`` and
``Tensor.norm`` / ``vg.norm`` composed from it as PyTorch composes them, so the node names
match: the Frobenius norm is a vector 2-norm over two dims (``LinalgVectorNormBackward0``),
the matrix 1/inf norms are an ``amax`` (``AmaxBackward0``) of vector 1-norms.

At a zero vector the norm has no derivative; PyTorch (and viewgrad) returns the
subgradient 0 there, never NaN. The 0-"norm" (the count of non-zeros) has no gradient:
its node returns none (``x.grad`` stays ``None``), as in PyTorch.

The spectral and nuclear norms (``ord=2, -2, 'nuc'`` on matrices) are the largest /
smallest / sum of the singular values (``linalg.svdvals``, ops/linalg_decomp.py):
``AmaxBackward0`` / ``AminBackward0`` / ``SumBackward1`` over ``LinalgSvdBackward0``, as
PyTorch records them.
"""
from __future__ import annotations

import math
import numbers

from .. import backend as B
from ..tensor import Tensor, _unique_dims, _wrap_dim
from .args import torch_type_name
from ..autograd.saved_names import show_as, show_given
from .reduce import _restore, amax, amin, given_dims
from .table import defop, dispatch, fresh_results, method

__all__ = ["vector_norm", "matrix_norm", "linalg_norm", "norm"]

_xp = B.xp_of


def _fmt(ord):
    """An order as PyTorch's messages print it (inf, -1, 0.5)."""
    if isinstance(ord, float) and ord.is_integer():
        return str(int(ord))
    return str(ord)


def _vnorm_fwd(self, ord, dim, keepdim):
    xp = _xp(self)
    a = xp.abs(self)
    if ord == math.inf:
        out = a.max(axis=dim, keepdims=keepdim)
    elif ord == -math.inf:
        out = a.min(axis=dim, keepdims=keepdim)
    elif ord == 0:
        out = (a != 0).sum(axis=dim, keepdims=keepdim).astype(self.dtype)
    elif ord == 1:
        out = a.sum(axis=dim, keepdims=keepdim)
    elif ord == 2:
        out = xp.sqrt((a * a).sum(axis=dim, keepdims=keepdim))
    else:
        with xp.errstate(divide="ignore") if hasattr(xp, "errstate") else _nothing():
            out = (a ** ord).sum(axis=dim, keepdims=keepdim) ** (1.0 / ord)
    return xp.asarray(out)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _vnorm_bwd(grad, self, result, ord, dim, keepdim):
    # PyTorch's linalg_vector_norm_backward, in viewgrad ops (so it is differentiable)
    if ord == 0:
        return None                              # a count: no gradient
    shape = tuple(self.shape)
    grad = _restore(grad, shape, dim, keepdim)
    norm = _restore(result, shape, dim, keepdim)
    if ord == 1:
        return self.sign() * grad
    if ord == 2:   # PyTorch's formula: 0/0 masked to 0, so its derivative there is NaN
        return grad * (self / norm).masked_fill(norm == 0, 0.0)
    # Where the norm is 0 the whole slice is 0 and so is ``self``'s factor below: dividing
    # by 1 there instead of 0 gives the subgradient 0 without computing (and warning
    # about) 0/0, and keeps the formula differentiable.
    safe = norm.masked_fill(norm == 0, 1.0)
    if math.isinf(ord):
        a = self.abs()
        mask = ((a == norm) | (a != a)).to(grad.dtype)
        return self.sign() * mask * grad / mask.sum(dim or None, keepdim=True)
    if ord < 1:   # |x|^(ord-1) is infinite at x = 0: masked to 0 after the power, as
        # PyTorch's formula does (so its derivative there is NaN, as PyTorch's)
        scaled = self.sign() * self.abs().pow(ord - 1).masked_fill(self == 0, 0.0)
        return scaled * grad * norm.pow(1 - ord)
    scaled = self.sign() * self.abs().pow(ord - 1) if ord < 2 else \
        self * self.abs().pow(ord - 2)
    return scaled * grad / safe.pow(ord - 1)


VECTOR_NORM = defop("linalg_vector_norm", "LinalgVectorNormBackward0", _vnorm_fwd,
                    attrs=("ord", "dim", "keepdim"), self=_vnorm_bwd)
# ``at::norm(x, p, dim, keepdim)`` as PyTorch's own C++ composites call it
# (pairwise_distance): NormBackward1, the same norm and formula, saved as p, dim, keepdim
NORM_DIM = defop("norm_dim", "NormBackward1",
                 lambda self, p, dim, keepdim: _vnorm_fwd(self, p, dim, keepdim),
                 attrs=("p", "dim", "keepdim"),
                 self=lambda grad, self, result, p, dim, keepdim: _vnorm_bwd(
                     grad, self, result, p, dim, keepdim))
fresh_results(VECTOR_NORM, NORM_DIM)   # (row-major results, as PyTorch's)


def _norm_dims(dim, ndim):
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    dims = _unique_dims([_wrap_dim(int(d), ndim) for d in dim])
    if ndim == 0:
        return ()
    return tuple(sorted(dims)) if dims else tuple(range(ndim))


def _check_float(x, who, dtype=None):
    """PyTorch's checks of a norm's input and ``dtype=``, in its order: the input must be
    floating point or complex (``x.float()`` first: a dtype= does not make an integer
    tensor acceptable), then the dtype too, of the same kind, and no narrower."""
    if x._data.dtype.kind not in "fc":
        raise RuntimeError(f"{who}: Expected a floating point or complex tensor as input. "
                           f"Got {torch_type_name(x.dtype)}")
    if dtype is None:
        return
    dt = B.to_dtype(dtype)
    if dt.kind not in "fc":
        raise RuntimeError(f"{who}: dtype should be floating point or complex, but got "
                           f"{torch_type_name(dt)}")
    real = x._data.dtype.kind == "f"
    if (dt.kind == "f") != real:
        raise RuntimeError(f"{who}: dtype should be {'real' if real else 'complex'} for "
                           f"{'real' if real else 'complex'} inputs, but got "
                           f"{torch_type_name(dt)}")
    if B.promote_types(x._data.dtype, dt) != dt:
        raise RuntimeError(f"{who}: the dtype of the input ({torch_type_name(x.dtype)}) "
                           "should be convertible without narrowing to the specified dtype "
                           f"({torch_type_name(dt)})")


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The vector ``ord``-norm of ``x`` over ``dim`` (all of its entries by default, as one
    long vector), as ``torch.linalg.vector_norm``: ``sum(|x|^ord)^(1/ord)``; ``inf`` is the
    largest ``|x|``, ``-inf`` the smallest, ``0`` the count of non-zeros. Records
    ``LinalgVectorNormBackward0``; at a zero vector its gradient is 0 (a subgradient), as
    in PyTorch. ``dtype=`` casts the input first."""
    if not isinstance(ord, numbers.Real):   # (a bool is a Number there: True is 1)
        raise TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, "
                        f"not {type(ord).__name__}")
    if out is not None:
        raise TypeError("linalg.vector_norm(): out= is not provided by viewgrad (assign the "
                        "result instead)")
    _check_float(x, "linalg.vector_norm", dtype)
    if dtype is not None:
        x = x.to(dtype)
    given_ord, ord = ord, float(ord)
    dims = _norm_dims(dim, x.dim())
    if x.numel() == 0 and (ord < 0 or ord == math.inf):
        if dim is None:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_fmt(ord)} norm on an "
                               "empty tensor because the operation does not have an identity")
        for d in dims:
            if x.shape[d] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {_fmt(ord)} norm on "
                                   f"the dimension {d}because this dimension is empty and the "
                                   "operation does not have an identity")
    out = dispatch(VECTOR_NORM, (x,), (ord, dims, bool(keepdim)))
    if dim is None:   # (PyTorch keeps the arguments as given: Note [dims as given])
        show_as(out, "dim", None)
    if type(given_ord) is int:
        show_as(out, "ord", given_ord)
    return show_given(out, "dim", given_dims(dim), dims)


_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """The matrix norm of ``A`` (or of each matrix in a batch: the two ``dim``), as
    ``torch.linalg.matrix_norm``: ``'fro'`` (the default: the vector 2-norm of the
    entries, ``LinalgVectorNormBackward0``), ``1`` / ``-1`` (the largest / smallest column
    sum of ``|A|``) and ``inf`` / ``-inf`` (rows), recorded as PyTorch records them
    (``AmaxBackward0`` / ``AminBackward0`` over vector 1-norms), ``2`` / ``-2`` (the
    largest / smallest singular value) and ``'nuc'`` (their sum)."""
    if ord not in _MATRIX_ORDS or isinstance(ord, bool):
        raise RuntimeError(f"linalg.matrix_norm: Order {_fmt(ord)} not supported.")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(str(d) for d in dims))
    d0, d1 = (_wrap_dim(int(d), A.dim()) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    _check_float(A, "linalg.matrix_norm", dtype)
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim, out=out)
    if ord in ("nuc", 2, -2):
        from .linalg_decomp import svdvals   # (imports this module: a cycle at load time)
        s = svdvals(A.movedim((d0, d1), (-2, -1)))
        r = s.sum(-1) if ord == "nuc" else _max_min(s, -1, ord > 0, False)
        if keepdim:
            r = r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
        return r
    # 1 / -1: sum over rows (d0), then the max / min over columns; inf: the other way
    first, second = (d0, d1) if abs(ord) == 1 else (d1, d0)
    sums = vector_norm(A, 1, first, keepdim, out=out)
    if not keepdim and second > first:
        second -= 1
    return _max_min(sums, second, ord > 0, keepdim)


def _max_min(t, dim, largest, keepdim):
    """amax (amin) over ``dim``: a norm's largest part over nothing is 0, as PyTorch gives
    it (a fresh zero, no history); the smallest over nothing is amin's refusal."""
    if largest and t.shape[dim] == 0:
        shape = list(t.shape)
        if keepdim:
            shape[dim] = 1
        else:
            del shape[dim]
        return t.new_zeros(tuple(shape)).detach()
    return (amax if largest else amin)(t, dim, keepdim)


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """A vector or matrix norm, as ``torch.linalg.norm``: with ``dim`` an int (or
    ``A`` 1-D) a vector norm (``vector_norm``), with two dims (or ``A`` 2-D and ``ord``
    given) a matrix norm (``matrix_norm``); with neither, the 2-norm of all entries."""
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 1:
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype,
                               out=out)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype,
                               out=out)
        raise RuntimeError("linalg.norm: If dim is specified, it must be of length 1 or 2. "
                           f"Got {list(dims)}")
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype, out=out)
    if A.dim() not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must "
                           f"be 1D or 2D. Got {A.dim()}D.")
    if A.dim() == 1:
        if isinstance(ord, str):
            raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                               "dimensions.")
        return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)
    return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)


@method("norm")
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """The ``p``-norm of ``input`` over ``dim`` (all entries by default), as
    ``torch.norm`` / ``Tensor.norm``: a number ``p`` or ``'fro'`` is a vector norm
    (``LinalgVectorNormBackward0``, what PyTorch records too); ``'nuc'`` is the
    nuclear matrix norm (the sum of the singular values). PyTorch recommends
    ``torch.linalg.vector_norm`` / ``matrix_norm`` for new code; both are in
    ``vg.linalg``."""
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return vector_norm(input, 2, dim, keepdim, dtype=dtype)
        return matrix_norm(input, p, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    return vector_norm(input, 2 if p is None else p, dim, keepdim, dtype=dtype)
