"""The core losses under PyTorch's full signatures (``torch.nn.functional``'s positional
order, the deprecated ``size_average``/``reduce`` and the per-element ``weight`` of
``mse_loss``/``l1_loss``/``huber_loss``).

The losses themselves live in ``viewgrad/ops`` (``nnops``, ``losses``) and
``functional_more``, with short signatures the library calls internally
(``mse_loss(input, target, reduction)``). A user's code written for PyTorch calls them as
PyTorch does — ``F.cross_entropy(x, y, w, None, -100)`` passes ``size_average`` third —
so ``viewgrad.nn.functional`` exports these wrappers, which translate and call the short
forms by keyword.
"""
from __future__ import annotations

from ..ops import losses as _L, nnops as _N
from ..tensor import Tensor
from . import functional_more as _M
from .functional_losses import _legacy

__all__ = ["mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss", "nll_loss", "cross_entropy",
           "binary_cross_entropy", "binary_cross_entropy_with_logits"]


def _weighted(loss, weight, reduction, input, mean_over_weights=True):
    """PyTorch's weighted elementwise losses: ``loss * weight``, then summed, or divided by
    the weights' sum (huber divides by the element count: its ``mean()``)."""
    if not isinstance(weight, Tensor) or tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    w = loss * weight
    if reduction == "none":
        return w
    if reduction == "sum":
        return w.sum()
    if reduction == "mean":
        return w.sum() / weight.sum() if mean_over_weights else w.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error, as ``torch.nn.functional.mse_loss`` (``weight``: per element)."""
    reduction = _legacy(size_average, reduce, reduction)
    if weight is None:
        return _N.mse_loss(input, target, reduction=reduction)
    return _weighted(_N.mse_loss(input, target, reduction="none"), weight, reduction, input)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error, as ``torch.nn.functional.l1_loss`` (``weight``: per element)."""
    reduction = _legacy(size_average, reduce, reduction)
    if weight is None:
        return _M.l1_loss(input, target, reduction=reduction)
    return _weighted(_M.l1_loss(input, target, reduction="none"), weight, reduction, input)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Huber loss, as ``torch.nn.functional.huber_loss`` (``weight``: per element)."""
    if weight is None:
        return _L.huber_loss(input, target, reduction=reduction, delta=delta)
    return _weighted(_L.huber_loss(input, target, reduction="none", delta=delta), weight,
                     reduction, input, mean_over_weights=False)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    return _L.smooth_l1_loss(input, target, reduction=_legacy(size_average, reduce, reduction),
                             beta=beta)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    return _N.nll_loss(input, target, weight=weight, ignore_index=ignore_index,
                       reduction=_legacy(size_average, reduce, reduction))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    return _N.cross_entropy(input, target, weight=weight, ignore_index=ignore_index,
                            reduction=_legacy(size_average, reduce, reduction),
                            label_smoothing=label_smoothing)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    return _L.binary_cross_entropy(input, target, weight=weight,
                                   reduction=_legacy(size_average, reduce, reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    return _L.binary_cross_entropy_with_logits(
        input, target, weight=weight, reduction=_legacy(size_average, reduce, reduction),
        pos_weight=pos_weight)


for _f, _short in ((mse_loss, _N.mse_loss), (l1_loss, _M.l1_loss), (huber_loss, _L.huber_loss),
                   (smooth_l1_loss, _L.smooth_l1_loss), (nll_loss, _N.nll_loss),
                   (cross_entropy, _N.cross_entropy),
                   (binary_cross_entropy, _L.binary_cross_entropy),
                   (binary_cross_entropy_with_logits, _L.binary_cross_entropy_with_logits)):
    if _f.__doc__ is None:
        _f.__doc__ = _short.__doc__
