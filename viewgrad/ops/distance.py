"""Pairwise distances: ``cdist`` and ``pdist`` — as PyTorch computes and records them.

``pdist`` is one ``PdistBackward0`` node (saved: self, p, result), whose gradient is
PyTorch's ``_pdist_backward`` kernel; that kernel has no derivative, so a double backward
records ``PdistBackwardBackward0`` and refuses when reached, as PyTorch does.

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
from .table import OpDef, defop, dispatch

__all__ = ["cdist", "pdist"]

_xp = B.xp_of


def _pnorm_fwd(x1, x2, p):
    return _pnorm_last(_xp(x1, x2), _xp(x1, x2).abs(x1[..., :, None, :] - x2[..., None, :, :]),
                       p, x1.dtype)


def _pnorm_last(xp, d, p, dtype):
    """The p-norm of ``d`` (absolute differences) over its last dim."""
    if p == 0:
        return (d != 0).sum(-1).astype(dtype)
    if p == 1:
        return d.sum(-1)
    if p == 2:
        return xp.sqrt((d * d).sum(-1))
    if math.isinf(p):
        return d.max(-1) if d.shape[-1] else xp.zeros(d.shape[:-1], dtype=dtype)
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
              # (the shapes from x1 and x2, saved anyway: PyTorch's node saves no sizes)
              x1=lambda grad, x1, x2, p, result: _zeros_if_none(
                  _pnorm_grad(grad, x1, x2, p, result, True), tuple(x1.shape), grad),
              x2=lambda grad, x1, x2, p, result: _zeros_if_none(
                  _pnorm_grad(grad, x1, x2, p, result, False), tuple(x2.shape), grad))


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


# -- pdist ------------------------------------------------------------------------------------

def _pairs(xp, n):
    """The row pairs (i < j) in pdist's order: (0, 1), (0, 2), ..., (1, 2), ..."""
    i, j = B.cpu.xp.triu_indices(n, 1)
    return xp.asarray(i), xp.asarray(j)


def _pdist_fwd(self, p):
    xp = _xp(self)
    i, j = _pairs(xp, self.shape[0])
    return _pnorm_last(xp, xp.abs(self[i] - self[j]), p, self.dtype)


def _pdist_backward(grad, self, result, p):
    """PyTorch's ``_pdist_backward`` kernel on arrays: each pair's gradient, added to its
    first row and taken from its second (the same per-pair terms as cdist's)."""
    xp = _xp(self)
    out = xp.zeros(self.shape, dtype=self.dtype)
    if p == 0 or not result.shape[0]:
        return out
    i, j = _pairs(xp, self.shape[0])
    diff = self[i] - self[j]
    dist = result[:, None]
    # (0/0 where a pair coincides, 0 ** negative below p = 1: computed quietly, masked)
    if p == 1:
        t = xp.sign(diff)
    elif math.isinf(p):
        t = xp.sign(diff) * (xp.abs(diff) == dist)
    elif p == 2:
        t = B.quietly(lambda: xp.where(dist != 0, diff / dist, 0))
    else:
        t = B.quietly(lambda: xp.where(
            (dist != 0) & ((diff != 0) | (p >= 1)),
            xp.sign(diff) * xp.abs(diff) ** (p - 1) / dist ** (p - 1), 0))
    g = grad[:, None] * t.astype(self.dtype, copy=False)
    B.add_at(out, i, g)
    B.add_at(out, j, -g)
    return out


def _no_pdist_double_backward(*_):
    raise NotImplementedError("the derivative for '_pdist_backward' is not implemented.")


# PyTorch's _pdist_backward has no derivative: its node records the three inputs' edges
# and refuses when a double backward reaches it (a row outside the table: no gradcheck
# sample can pass through it, as for multi_margin_loss_backward in losses.py)
PDIST_BACKWARD = OpDef("_pdist_backward", "PdistBackwardBackward0", _pdist_backward,
                       ("grad", "self", "result"), ("p",),
                       {"grad": _no_pdist_double_backward, "self": _no_pdist_double_backward,
                        "result": _no_pdist_double_backward},
                       False, False, False, None, None)
PDIST = defop("_pdist_forward", "PdistBackward0", _pdist_fwd, attrs=("p",),
              self=lambda grad, self, p, result: dispatch(PDIST_BACKWARD, (grad, self, result),
                                                          (p,)))


def pdist(input, p=2):
    """The ``p``-norm distances between the rows of an (N, M) input, the upper triangle
    of their distance matrix as a vector of N(N-1)/2, as ``torch.nn.functional.pdist``:
    one ``PdistBackward0`` node."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    _refuse(_CX["pdist"], input)   # (Note [inputs PyTorch refuses])
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return dispatch(PDIST, (input,), (float(p),))
