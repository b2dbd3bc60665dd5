"""Mantissas, powers of two and norm caps: ``frexp``, ``ldexp`` (and ``ldexp_``),
``renorm`` (and ``renorm_``), as PyTorch defines them.

* ``frexp(x)`` splits each float into ``mantissa * 2**exponent`` with ``0.5 <= |mantissa|
  < 1`` (0, inf and NaN keep themselves with exponent 0): a ``return_types.frexp`` of a
  mantissa like ``x`` and an int32 exponent. Only the mantissa is differentiable
  (``FrexpBackward0``: ``grad / 2**exponent``).
* ``ldexp(x, e)`` is ``x * 2**e`` (``LdexpBackward0``), the result a float even for
  integer inputs (the default dtype), as PyTorch promotes it.
* ``renorm(x, p, dim, maxnorm)`` rescales each slice along ``dim`` whose p-norm is above
  ``maxnorm`` to norm ``maxnorm`` (``RenormBackward0``).
"""
from __future__ import annotations

import math

from .. import backend as B
from ..autograd.saved_names import show_given
from ..tensor import Tensor, _wrap_dim
from .args import torch_type_name
from .signatures import TENSOR, _function, _method
from .table import apply_inplace, defop, dispatch, method, promoted_dtype
from .vector_norms import _vnorm_bwd, _vnorm_fwd

__all__ = ["frexp", "ldexp", "renorm"]

_LN2 = math.log(2.0)


# -- frexp ---------------------------------------------------------------------------------

def _frexp_fwd(self, exponent):
    return B.xp_of(self).frexp(self)[0]


# The exponent is computed first and passed in as a non-differentiable input (saved, no
# edge): the node has one edge, for self, as PyTorch's FrexpBackward0, whose formula reads
# the exponent output. Torch divides by exponent.exp2() (a float32 for the int32 exponent);
# the node casts the gradient back to self's dtype.
FREXP = defop("frexp", "FrexpBackward0", _frexp_fwd, inputs=("self", "exponent"),
              self=lambda grad, exponent: grad / exponent.exp2())


@method("frexp")
def frexp(self):
    """Each element as ``mantissa * 2**exponent`` with ``0.5 <= |mantissa| < 1``: a
    ``return_types.frexp(mantissa, exponent)``, the mantissa with ``self``'s float dtype,
    the exponent int32 (``torch.frexp``). Only the mantissa has a gradient
    (``FrexpBackward0``: ``grad / 2**exponent``); floats only."""
    if self._data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    from .. import return_types
    xp = self._device.xp
    exponent = Tensor._make(xp.asarray(xp.frexp(self._data)[1]).astype(B.int32),
                            self._device)
    return return_types.frexp((dispatch(FREXP, (self, exponent)), exponent))


# -- ldexp ---------------------------------------------------------------------------------

def _ldexp_fwd(self, other, dtype):
    xp = B.xp_of(self, other)
    # computed in the result's dtype: the power of two, then the product (a power of two
    # is exact, so this is x * 2**e rounded once)
    return xp.asarray(self, dtype=dtype) * xp.exp2(xp.asarray(other, dtype=dtype))


LDEXP = defop("ldexp", "LdexpBackward0", _ldexp_fwd, inputs=("self", "other"),
              attrs=("dtype",), broadcast=True,
              self=lambda grad, other: grad * (2.0 ** other),
              other=lambda grad, result: grad * result * _LN2)


def _ldexp_dtype(self, other):
    rt = promoted_dtype([self, other])
    # integers and bools give the default float, as PyTorch's ldexp
    return B.default_float() if rt.kind in "biu" else rt


def ldexp(self, other):
    """``self * 2**other`` (``torch.ldexp``), ``other`` a tensor: the result has the
    promoted dtype of the two, a float (the default dtype for integers). Autograd records
    ``LdexpBackward0`` (``grad * 2**other`` for self, ``grad * result * ln 2`` for
    other)."""
    return dispatch(LDEXP, (self, other), (_ldexp_dtype(self, other),))


def ldexp_(self, other):
    """In-place ``ldexp`` (``torch.Tensor.ldexp_``): ``self`` must be able to hold the
    float result (an integer tensor is refused); through the in-place choke point."""
    rt = _ldexp_dtype(self, other)
    if self._data.dtype.kind in "biu":   # the result is always a float
        raise RuntimeError(f"ldexp can't be cast to the desired output type "
                           f"{torch_type_name(self.dtype)}")
    return apply_inplace(LDEXP, self, (other,), (rt,), name="ldexp_")


# -- renorm --------------------------------------------------------------------------------

def _reduce_dims(ndim, dim):
    return tuple(i for i in range(ndim) if i != dim)


def _renorm_fwd(self, p, dim, maxnorm):
    xp = B.xp_of(self)
    # float16's norm in float32 (PyTorch's accumulate type), the factor rounded back
    acc = self.astype(B.float32) if self.dtype == B.float16 else self
    norm = _vnorm_fwd(acc, p, _reduce_dims(self.ndim, dim), True)
    factor = xp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(self.dtype)
    return B.row_major(self * factor)


def _renorm_bwd(grad, self, p, dim, maxnorm):
    # PyTorch's renorm_backward: where a slice was rescaled, the derivative of
    # self * maxnorm / (norm + 1e-7); elsewhere the gradient passes through
    from .pointwise import where
    from .vector_norms import vector_norm
    dims = _reduce_dims(self.dim(), dim)
    norm = vector_norm(self, p, dims, keepdim=True)
    nb = _vnorm_bwd((self * grad).sum(dims, keepdim=True), self, norm, p, dims, True)
    inv = (norm + 1e-7).reciprocal()
    return where(norm > maxnorm, inv * maxnorm * grad - (inv * inv * maxnorm) * nb, grad)


RENORM = defop("renorm", "RenormBackward0", _renorm_fwd, attrs=("p", "dim", "maxnorm"),
               self=_renorm_bwd)


def _fmt(v):
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def _renorm_args(self, p, dim, maxnorm):
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {_fmt(maxnorm)}")
    if self.dim() < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {self.dim()} "
                           f"dimensions")
    d = _wrap_dim(dim, self.dim())
    if self._data.dtype.kind != "f":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {torch_type_name(self.dtype)}")
    return p, d, maxnorm   # kept as given: the node's _saved_p reads 2, as PyTorch's


@method("renorm")
def renorm(self, p, dim, maxnorm):
    """A copy of ``self`` whose slices along ``dim`` (``self.select(dim, i)``) with a
    ``p``-norm above ``maxnorm`` are scaled down to norm ``maxnorm`` (by ``maxnorm /
    (norm + 1e-7)``, as ``torch.renorm``); the others are kept. Autograd records
    ``RenormBackward0``."""
    p, d, maxnorm = _renorm_args(self, p, dim, maxnorm)
    return show_given(dispatch(RENORM, (self,), (p, d, maxnorm)), "dim", dim, d)


@method("renorm_")
def renorm_(self, p, dim, maxnorm):
    """In-place ``renorm`` (``torch.Tensor.renorm_``), through the in-place choke point."""
    p, d, maxnorm = _renorm_args(self, p, dim, maxnorm)
    return apply_inplace(RENORM, self, (), (p, d, maxnorm), name="renorm_")


# PyTorch's parser: ``other`` must be a tensor (ldexp has no Scalar overload)
_LD = (("other", TENSOR),)
method("ldexp")(_method(ldexp, "ldexp", _LD))
method("ldexp_")(_method(ldexp_, "ldexp_", _LD))
ldexp = _function(ldexp, "ldexp", _LD)   # vg.ldexp
