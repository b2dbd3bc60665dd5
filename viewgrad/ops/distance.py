"""Pairwise distances: ``cdist`` — as PyTorch computes it.

Note [cdist's two paths]: for p = 2 with more than 25 rows on either side (or
``compute_mode='use_mm_for_euclid_dist'``) PyTorch does not subtract every pair: it uses
|x - y|² = |x|² + |y|² - 2 x·y as ONE matrix product, clamps at 0 and takes the square
root (node ``EuclideanDistBackward0`` under a view). It is faster and slightly less
accurate for nearby points; viewgrad takes the same path with the same arithmetic, so
the numbers agree with PyTorch's. Otherwise the pairs' differences are reduced with the
p-norm (node ``CdistBackward0``).
"""
from __future__ import annotations

import math

from .. import backend as B
from ..tensor import Tensor
from .args import cpp_type_name, torch_type_name
from .pointwise import where
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .table import defop, dispatch

__all__ = ["cdist"]

_xp = B.xp_of


def _pnorm_fwd(x1, x2, p):
    xp = _xp(x1, x2)
    d = xp.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return (d != 0).sum(-1).astype(x1.dtype)
    if p == 1:
        return d.sum(-1)
    if p == 2:
        return xp.sqrt((d * d).sum(-1))
    if math.isinf(p):
        return d.max(-1) if d.shape[-1] else xp.zeros(d.shape[:-1], dtype=x1.dtype)
    return (d ** p).sum(-1) ** (1.0 / p)


def _pnorm_grad(grad, x1, x2, p, result, first):
    """d cdist / d x1 (``first``) or d x2, in viewgrad ops (so double backward works)."""
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)          # (..., P, R, M)
    if p == 0:
        return None
    dist = result.unsqueeze(-1)
    if p == 1:
        t = diff.sign()
    elif math.isinf(p):
        t = diff.sign() * (diff.abs() == dist)
    else:
        nz = dist != 0
        safe = where(nz, dist, 1.0)
        if p == 2:
            t = diff / safe
        else:
            ad = diff.abs()
            if p < 1:   # |0|^(p-1) is inf: those pairs give 0, as in PyTorch
                ad = where(diff == 0, 1.0, ad)
            t = diff.sign() * ad.pow(p - 1) / safe.pow(p - 1)
        t = where(nz, t, 0.0)
    g = grad.unsqueeze(-1) * t
    return g.sum(-2) if first else -g.sum(-3)


def _zeros_if_none(g, like_shape, grad):
    return grad.new_zeros(like_shape) if g is None else g


CDIST = defop("cdist", "CdistBackward0", _pnorm_fwd, inputs=("x1", "x2"), attrs=("p",),
              broadcast=True,
              x1=lambda grad, x1, x2, p, result, x1_shape: _zeros_if_none(
                  _pnorm_grad(grad, x1, x2, p, result, True), x1_shape, grad),
              x2=lambda grad, x1, x2, p, result, x2_shape: _zeros_if_none(
                  _pnorm_grad(grad, x1, x2, p, result, False), x2_shape, grad))


def _euclid_fwd(x1, x2):
    # Note [cdist's two paths]: PyTorch's arithmetic, term for term
    xp = _xp(x1, x2)
    n1 = (x1 * x1).sum(-1, keepdims=True)
    n2 = (x2 * x2).sum(-1, keepdims=True)
    one1 = xp.ones(n1.shape, dtype=x1.dtype)
    one2 = xp.ones(n2.shape, dtype=x2.dtype)
    a = xp.concatenate([-2 * x1, n1, one1], axis=-1)
    b = xp.concatenate([x2, one2, n2], axis=-1)
    r = a @ xp.swapaxes(b, -1, -2)
    return xp.sqrt(xp.maximum(r, 0))


def _euclid_ratio(grad, result):
    return where(result == 0, 0.0, grad / where(result == 0, 1.0, result))


EUCLID = defop("_euclidean_dist", "EuclideanDistBackward0", _euclid_fwd,
               inputs=("x1", "x2"), broadcast=True,
               x1=lambda grad, x1, x2, result: _euclid_x1(_euclid_ratio(grad, result), x1,
                                                          x2),
               x2=lambda grad, x1, x2, result: _euclid_x1(
                   _euclid_ratio(grad, result).transpose(-1, -2), x2, x1))


def _euclid_x1(ratio, x1, x2):
    return x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The distance between every row of ``x1`` (…, P, M) and every row of ``x2``
    (…, R, M): a (…, P, R) tensor, as ``torch.cdist`` (p-norm: 2 Euclidean, 1 Manhattan,
    inf Chebyshev, 0 Hamming-like). For p = 2 and more than 25 rows it takes PyTorch's
    matrix-product path (Note [cdist's two paths]). Backward: ``CdistBackward0`` (or
    ``EuclideanDistBackward0`` on that path)."""
    _refuse(_CX["cdist"], x1, x2)   # (float16: Note [inputs PyTorch refuses])
    for name, x in (("X1", x1), ("X2", x2)):
        if not isinstance(x, Tensor):
            raise TypeError(f"cdist(): argument '{name.lower()}' must be Tensor, not "
                            f"{type(x).__name__}")
        if x.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: "
                               f"{x.dim()}D")
        if x.dtype.kind != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{torch_type_name(x.dtype)}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    modes = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
             "donot_use_mm_for_euclid_dist", None)
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    P, R = x1.shape[-2], x2.shape[-2]
    mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode in (None, "use_mm_for_euclid_dist_if_necessary") and (P > 25 or R > 25)))
    d1, d2 = x1._data.dtype, x2._data.dtype
    if d1 != d2:   # no promotion: the words of the kernel each path reaches
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{cpp_type_name(d1)} != {cpp_type_name(d2)}" if mm else
                           f"expected scalar type {torch_type_name(d1)} but found "
                           f"{torch_type_name(d2)}")
    if mm:
        r = dispatch(EUCLID, (x1, x2))
        return r.view(*r.shape)
    return dispatch(CDIST, (x1, x2), (float(p),))
