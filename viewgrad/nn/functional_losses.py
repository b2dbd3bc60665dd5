"""The margin, embedding and likelihood losses of ``torch.nn.functional`` (re-exported by
``viewgrad.nn.functional``): ``margin_ranking_loss``, ``hinge_embedding_loss``,
``soft_margin_loss``, ``multilabel_soft_margin_loss``, ``cosine_embedding_loss``,
``triplet_margin_loss``, ``poisson_nll_loss``, ``gaussian_nll_loss``,
``multi_margin_loss``, ``multilabel_margin_loss``.

Most are written as PyTorch defines them, out of differentiable ops (``clamp_min``, ``where``,
``logsigmoid``...), then reduced by ``reduction`` ('mean', 'sum' or 'none'; the legacy
``size_average``/``reduce`` arguments are translated as PyTorch does).
"""
from __future__ import annotations

import math

from ..ops import factories as Fa
from ..autograd.grad_mode import no_grad
from ..ops.activations import logsigmoid
from ..ops.args import check_no_requires_grad, torch_type_name
from ..ops.losses import multi_margin_loss as _multi_margin_loss
from ..ops.losses import multilabel_margin_loss as _multilabel_margin_loss
from ..ops.losses import soft_margin_loss as _soft_margin_loss
from ..ops.pointwise import add_scalar, scalar_sub, sub_scalar, where
from ..tensor import Tensor
from .functional_more import _reduce, pairwise_distance

__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
           "multilabel_soft_margin_loss", "cosine_embedding_loss", "triplet_margin_loss",
           "poisson_nll_loss", "gaussian_nll_loss", "multi_margin_loss",
           "multilabel_margin_loss"]


def _legacy(size_average, reduce, reduction):
    """PyTorch's deprecated ``size_average``/``reduce`` arguments as a ``reduction``."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``: target 1 wants input1 ranked
    higher, -1 lower."""
    if not (input1.dim() == input2.dim() == target.dim()):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same "
                           f"dimension but got sizes: input1: {tuple(input1.shape)}, input2: "
                           f"{tuple(input2.shape)}, target: {tuple(target.shape)} ")
    # (ATen's arithmetic: a Scalar margin, clamped in place; Note [a Scalar inside
    # PyTorch's own composites])
    loss = add_scalar(-target * (input1 - input2), margin).clamp_min_(0)
    return _reduce(loss, _legacy(size_average, reduce, reduction), "margin_ranking_loss")


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """``x`` where target is 1, ``max(0, margin - x)`` where it is -1 (x: a distance)."""
    zero = Fa.zeros((), dtype=input.dtype, device=input.device)
    loss = where(target != 1, scalar_sub(margin, input).clamp_min_(0), zero) + \
        where(target != -1, input, zero)
    return _reduce(loss, _legacy(size_average, reduce, reduction), "hinge_embedding_loss")


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-target * input))`` (a smooth hinge for ±1 targets): one
    ``SoftMarginLossBackward0`` node (ops/losses.py)."""
    return _soft_margin_loss(input, target, _legacy(size_average, reduce, reduction))


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Binary cross-entropy with logits per class, averaged over the C classes of each
    sample (input and target (N, C), target 0/1)."""
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(dim=input.dim() - 1) / input.shape[-1]
    return _reduce(loss, _legacy(size_average, reduce, reduction),
                   "multilabel_soft_margin_loss")


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """``1 - cos(x1, x2)`` where target is 1, ``max(0, cos(x1, x2) - margin)`` where -1."""
    dim = input1.dim() - 1
    eps = 1e-12    # PyTorch's EPSILON inside the squared magnitudes
    prod = (input1 * input2).sum(dim)
    mag1 = add_scalar((input1 * input1).sum(dim), eps)
    mag2 = add_scalar((input2 * input2).sum(dim), eps)
    cos = prod / (mag1 * mag2).sqrt()
    zero = Fa.zeros((), dtype=cos.dtype, device=cos.device)
    loss = where(target == 1, scalar_sub(1, cos), zero) + where(
        target == -1, sub_scalar(cos, margin).clamp_min_(0), zero)
    return _reduce(loss, _legacy(size_average, reduce, reduction), "cosine_embedding_loss")


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``max(0, d(a, p) - d(a, n) + margin)`` with d the p-norm distance; ``swap`` uses
    the smaller of d(a, n) and d(p, n)."""
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if not (dims[0] == dims[1] == dims[2]):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {dims[0]}D, "
                           f"positive {dims[1]}D, and negative {dims[2]}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_swap = pairwise_distance(positive, negative, p, eps)
        d_neg = where(d_swap < d_neg, d_swap, d_neg)
    loss = (add_scalar(d_pos, margin) - d_neg).clamp_min(0)
    return _reduce(loss, _legacy(size_average, reduce, reduction), "triplet_margin_loss")


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Negative log-likelihood of ``target`` under Poisson(rate): ``exp(input) - target *
    input`` with ``log_input`` (input = log rate), else ``input - target * log(input +
    eps)``; ``full`` adds Stirling's approximation of log(target!) where target > 1."""
    reduction = _legacy(size_average, reduce, reduction)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        t = target
        safe = where(t > 1, t, Fa.ones((), dtype=t.dtype, device=t.device))
        stirling = safe * safe.log() - safe + 0.5 * (2 * math.pi * safe).log()
        loss = loss + where(t > 1, stirling, Fa.zeros((), dtype=t.dtype, device=t.device))
    return _reduce(loss, reduction, "poisson_nll_loss")


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log-likelihood of ``target`` under N(input, var): ``0.5 * (log var +
    (input - target)^2 / var)`` (+ 0.5 log 2π with ``full``). ``var`` may have one value
    per sample (last dim 1 or missing) or be a float; it is clamped at ``eps`` without
    changing its gradient, as PyTorch."""
    if not isinstance(var, Tensor):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * Fa.ones_like(input)   # (PyTorch's: an integer input's var is float)
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    # PyTorch clamps a clone in place under no_grad: the value is clamped, the gradient
    # still flows as if it were not
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction, "gaussian_nll_loss")


def _rows(input, target):
    """(input as (N, C), target as (N...), whether it was one sample)."""
    if input.dim() == 1:
        return input.unsqueeze(0), target.reshape(1, *target.shape) if target.dim() else \
            target.reshape(1), True
    return input, target, False


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """The multi-class hinge: per sample, ``sum over i != y of max(0, margin - x[y] +
    x[i])^p / C`` (times ``weight[y]``), as ``torch.nn.functional.multi_margin_loss``.
    One ``MultiMarginLossBackward0`` node, as PyTorch's (ops/losses.py); like PyTorch's,
    it has no second derivative."""
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    check_no_requires_grad(weight, "weight", "multi_margin_loss")
    if input.dim() > 2 or input.dim() == 0:
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")
    x, t, one = _rows(input, target)
    n, c = x.shape
    if t.dim() != 1 or t.shape[0] != n:
        raise RuntimeError(f"inconsistent target size, expected {n} but got "
                           f"{list(target.shape)}")
    tv = t.tolist()
    if any(not 0 <= v < c for v in tv):
        raise RuntimeError("target out of range")
    if weight is not None and (weight.dim() != 1 or weight.numel() != c):
        raise RuntimeError(f"inconsistent weight size, expected {c} but got "
                           f"{list(weight.shape)}")
    return _multi_margin_loss(input, target, p, margin, weight,
                              _legacy(size_average, reduce, reduction))


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The multi-label hinge: each sample's target lists its classes up to the first -1;
    ``sum over listed classes j and other classes i of max(0, 1 - (x[j] - x[i])) / C``, as
    ``torch.nn.functional.multilabel_margin_loss``. One ``MultilabelMarginLossBackward0``
    node, as PyTorch's (ops/losses.py); like PyTorch's, it has no second derivative."""
    if not isinstance(target, Tensor):
        raise TypeError("multilabel_margin_loss(): argument 'target' (position 2) must be "
                        f"Tensor, not {type(target).__name__}")
    reduction = _legacy(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    shape = list(input.shape)
    # (a 0-d input is one score: one class, as in PyTorch)
    if input.dim() > 2 or (input.dim() >= 1 and shape[-1] == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {shape}")
    c = shape[-1] if shape else 1
    ok = (target.dim() <= 1 and target.numel() == c) if input.dim() < 2 else (
        target.dim() == 2 and list(target.shape) == shape)
    if not ok:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of "
                           f"size: {shape}")
    # every entry is checked, those after a row's first -1 too (PyTorch's check)
    if target.numel() and bool(((target < -1) | (target >= c)).any()):
        raise RuntimeError("argument #2 'target' is out of range")
    if input._data.dtype.char not in "fd":
        raise NotImplementedError('"multilabel_margin_loss_forward_out_frame" not '
                                  f"implemented for '{torch_type_name(input.dtype)}'")
    if target._data.dtype.kind != "i" or target._data.dtype.itemsize != 8:
        raise RuntimeError("expected scalar type Long but found "
                           f"{torch_type_name(target.dtype)}")
    return _multilabel_margin_loss(input, target, reduction)
