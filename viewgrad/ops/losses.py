"""Loss functions that are one node in PyTorch, so one node here: binary cross-entropy
(``BinaryCrossEntropyBackward0``), binary cross-entropy with logits
(``BinaryCrossEntropyWithLogitsBackward0``), smooth L1 (``SmoothL1LossBackward0``),
Huber (``HuberLossBackward0``), soft margin, multi margin and multilabel margin — what
``print(loss.grad_fn)`` shows in PyTorch's own autograd tutorial. Each row's forward
computes the elementwise loss and its reduction; its backward formulas are written with
differentiable ops, so double backward works (a gradient penalty through
``bce_with_logits``), except where PyTorch has none (the two margin losses over classes:
a refusing NotImplemented node, as there). As in PyTorch, ``weight`` and
``pos_weight`` are not inputs of the node: no gradient reaches them.
"""
from __future__ import annotations

from .. import backend as B
from ..autograd.nodes import OpDef
from .args import check_no_requires_grad, torch_type_name
from .nnops import _reduction
from .table import RefusingNode, defop, dispatch, dispatch_stats, refusing
from ..tensor import Tensor

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "smooth_l1_loss",
           "huber_loss", "multilabel_margin_loss"]

_xp = B.xp_of


def _reduced(xp, loss, reduction):
    if reduction == "mean":
        return xp.asarray(loss.mean()).astype(loss.dtype, copy=False)
    if reduction == "sum":
        return xp.asarray(loss.sum()).astype(loss.dtype, copy=False)
    return loss


def _per_element(grad, like, reduction):
    """The incoming gradient spread over the elements the reduction summed."""
    if reduction == "mean":
        return grad / like.numel()
    return grad


def _same_size(input, target, fn):
    if tuple(input.shape) != tuple(target.shape):
        # (the sizes as PyTorch prints them: viewgrad.Size([...]), its torch.Size([...]))
        raise ValueError(f"Target size ({target.shape!r}) must be the same as input "
                         f"size ({input.shape!r})" if fn.endswith("logits") else
                         f"Using a target size ({target.shape!r}) that is different to "
                         f"the input size ({input.shape!r}) is deprecated. Please "
                         f"ensure they have the same size.")


# -- binary cross-entropy on probabilities ------------------------------------------------

def _bce_fwd(self, target, weight, reduction):
    xp = _xp(self)
    loss = -(target * xp.maximum(xp.log(self), -100)
             + (1 - target) * xp.maximum(xp.log1p(-self), -100))
    if weight is not None:
        loss = loss * weight._data
    return _reduced(xp, loss.astype(self.dtype, copy=False), reduction)


def _bce_self(grad, self, target, weight, reduction):
    # d/dx = (x - t) / (x (1 - x)), the denominator kept above 1e-12 as PyTorch does
    g = _per_element(grad, self, reduction) * (self - target) / \
        ((1 - self) * self).clamp(min=1e-12)
    return g * weight if weight is not None else g


def _bce_target(grad, self, target, weight, reduction):
    g = _per_element(grad, self, reduction) * \
        ((1 - self).log().clamp(min=-100) - self.log().clamp(min=-100))
    return g * weight if weight is not None else g


BCE = defop("binary_cross_entropy", "BinaryCrossEntropyBackward0", _bce_fwd,
            inputs=("self", "target"), attrs=("weight", "reduction"),
            self=_bce_self, target=_bce_target)


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """``-w (t log x + (1 - t) log(1 - x))``, each log clamped at -100 as in PyTorch (a
    probability of exactly 0 or 1 gives a finite loss); one ``BinaryCrossEntropyBackward0``
    node, as ``torch.nn.functional.binary_cross_entropy``."""
    _same_size(input, target, "binary_cross_entropy")
    if isinstance(target, Tensor) and target._data.dtype != input._data.dtype:
        # (its kernel's TensorIterator asks every operand for the input's dtype)
        raise RuntimeError(f"Found dtype {torch_type_name(target.dtype)} but expected "
                           f"{torch_type_name(input.dtype)}")
    check_no_requires_grad(weight, "weight", "binary_cross_entropy")
    if bool(((input < 0) | (input > 1)).any()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if bool(((target < 0) | (target > 1)).any()):   # (PyTorch refuses it: no silent loss)
        raise RuntimeError("all elements of target should be between 0 and 1")
    return dispatch(BCE, (input, target), (_weight(weight, input), _reduction(reduction)))


def _weight(weight, input):
    """``weight`` broadcast to the input's shape (a constant of the node, not an input)."""
    if weight is None:
        return None
    return weight.detach().expand(*input.shape)


# -- binary cross-entropy on logits -------------------------------------------------------

def _bcel_fwd(self, target, weight, pos_weight, reduction):
    xp = _xp(self)
    softplus_neg = xp.log1p(xp.exp(-xp.abs(self))) + xp.maximum(-self, 0)
    lw = 1 if pos_weight is None else 1 + (pos_weight._data - 1) * target
    loss = (1 - target) * self + lw * softplus_neg
    if weight is not None:
        loss = loss * weight._data
    # PyTorch builds the loss in place on ``1 - target`` (``(1 - t).mul_(x).sub_(...)``),
    # so the result has the target's dtype, whatever the input's
    return _reduced(xp, loss.astype(target.dtype, copy=False), reduction)


def _bcel_self(grad, self, target, weight, pos_weight, reduction):
    # d/dx [(1 - t) x + lw softplus(-x)] = (1 - t) - lw (1 - sigmoid(x))
    if pos_weight is None:
        g = self.sigmoid() - target
    else:
        lw = 1 + (pos_weight - 1) * target
        g = (1 - target) - lw * (1 - self.sigmoid())
    g = _per_element(grad, self, reduction) * g
    return g * weight if weight is not None else g


def _bcel_target(grad, self, target, weight, pos_weight, reduction):
    if pos_weight is None:
        g = -self
    else:   # d/dt = -x + (pos_weight - 1) softplus(-x)
        g = -self + (pos_weight - 1) * ((-self.abs()).exp().log1p() + (-self).clamp(min=0))
    g = _per_element(grad, self, reduction) * g
    return g * weight if weight is not None else g


BCE_LOGITS = defop("binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0",
                   _bcel_fwd, inputs=("self", "target"),
                   attrs=("weight", "pos_weight", "reduction"),
                   self=_bcel_self, target=_bcel_target)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",
                                     pos_weight=None):
    """Sigmoid + binary cross-entropy in one stable formula,
    ``(1 - t) x + (1 + (pos_weight - 1) t) (log(1 + exp(-|x|)) + max(-x, 0))`` (times
    ``weight``); one ``BinaryCrossEntropyWithLogitsBackward0`` node, as
    ``torch.nn.functional.binary_cross_entropy_with_logits``."""
    _same_size(input, target, "binary_cross_entropy_with_logits")
    check_no_requires_grad(weight, "weight", "binary_cross_entropy_with_logits")
    check_no_requires_grad(pos_weight, "pos_weight", "binary_cross_entropy_with_logits")
    pw = None if pos_weight is None else pos_weight.detach().expand(*input.shape)
    if isinstance(target, Tensor) and target._data.dtype.kind != "f" \
            and isinstance(input, Tensor) and input._data.dtype.kind == "f":
        # (the in-place ``(1 - target).mul_(input)`` of PyTorch's kernel, refused)
        raise RuntimeError(f"result type {torch_type_name(input._data.dtype)} can't be cast "
                           f"to the desired output type {torch_type_name(target._data.dtype)}")
    return dispatch(BCE_LOGITS, (input, target),
                    (_weight(weight, input), pw, _reduction(reduction)))


# -- smooth L1 and Huber ------------------------------------------------------------------

def _piecewise_fwd(quadratic_scale, linear_scale):
    """Forward of a loss that is quadratic for |d| < cut and linear beyond."""
    def fwd(self, target, cut, reduction):
        xp = _xp(self)
        d = xp.abs(self - target)
        loss = xp.where(d < cut, 0.5 * d * d * quadratic_scale(cut),
                        linear_scale(cut) * (d - 0.5 * cut))
        return _reduced(xp, loss.astype(self.dtype, copy=False), reduction)
    return fwd


def _piecewise_grad(grad, self, target, cut, quadratic, linear, reduction):
    """d/dx of a loss quadratic (``quadratic`` · d²/2) for |d| < cut, linear beyond."""
    from .pointwise import where
    d = self - target
    # PyTorch's branches: -linear below -cut, +linear above cut, the quadratic part between
    # (and for a NaN difference, which is in neither outer branch: NaN)
    g = where(d < -cut, -linear, where(d > cut, linear, d * quadratic))
    return _per_element(grad, self, reduction) * g


def _sl1_self(grad, self, target, beta, reduction):
    return _piecewise_grad(grad, self, target, beta, 1.0 / beta, 1.0, reduction)


def _huber_self(grad, self, target, delta, reduction):
    return _piecewise_grad(grad, self, target, delta, 1.0, delta, reduction)


SMOOTH_L1 = defop("smooth_l1_loss", "SmoothL1LossBackward0",
                  _piecewise_fwd(lambda beta: 1.0 / beta, lambda _: 1.0),
                  inputs=("self", "target"), attrs=("beta", "reduction"), self=_sl1_self,
                  target=lambda grad, self, target, beta, reduction: -_sl1_self(
                      grad, self, target, beta, reduction))

HUBER = defop("huber_loss", "HuberLossBackward0",
              _piecewise_fwd(lambda _: 1.0, lambda delta: delta),
              inputs=("self", "target"), attrs=("delta", "reduction"), self=_huber_self,
              target=lambda grad, self, target, delta, reduction: -_huber_self(
                  grad, self, target, delta, reduction))


def _soft_margin_fwd(self, target, reduction):
    xp = _xp(self)
    # PyTorch's formula, log1p(exp(-t x)): an overflowing exp is an infinite loss there
    loss = xp.log1p(xp.exp(-target * self))
    return _reduced(xp, loss.astype(self.dtype, copy=False), reduction)


def _soft_margin_self(grad, self, target, reduction):
    """PyTorch's soft_margin_loss_backward, ``-t z / (1 + z)`` with z = exp(-t x), in ops
    (its own gradient is then double backward's)."""
    z = (-target * self).exp()
    return _per_element(grad, self, reduction) * (-target * z / (z + 1))


SOFT_MARGIN = defop("soft_margin_loss", "SoftMarginLossBackward0", _soft_margin_fwd,
                    inputs=("self", "target"), attrs=("reduction",), self=_soft_margin_self)


def soft_margin_loss(input, target, reduction="mean"):
    """``log(1 + exp(-target * input))`` (a smooth hinge for ±1 targets); one
    ``SoftMarginLossBackward0`` node, which saves input and target, as
    ``torch.nn.functional.soft_margin_loss`` (the target gets no gradient: refused when
    it requires one, as there)."""
    check_no_requires_grad(target, "target", "soft_margin_loss")
    B.checked_broadcast("soft_margin_loss", tuple(input.shape), tuple(target.shape))
    return dispatch(SOFT_MARGIN, (input, target), (_reduction(reduction),))


def _check_target(input, target):
    if tuple(input.shape) != tuple(target.shape):
        import warnings
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({input.shape}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", stacklevel=3)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    """``0.5 d² / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (d = x - t); one
    ``SmoothL1LossBackward0`` node, as ``torch.nn.functional.smooth_l1_loss``."""
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _check_target(input, target)
    if beta == 0:   # PyTorch falls back to l1_loss: |d| and its reduction, no node of its own
        d = (input - target).abs()
        return {"mean": d.mean, "sum": d.sum}.get(_reduction(reduction), lambda: d)()
    input, target = _broadcast(input, target)
    return dispatch(SMOOTH_L1, (input, target), (float(beta), _reduction(reduction)))


def huber_loss(input, target, reduction="mean", delta=1.0):
    """``0.5 d²`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``; one
    ``HuberLossBackward0`` node, as ``torch.nn.functional.huber_loss``."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _check_target(input, target)
    input, target = _broadcast(input, target)
    return dispatch(HUBER, (input, target), (float(delta), _reduction(reduction)))


def _broadcast(input, target):
    if tuple(input.shape) == tuple(target.shape):
        return input, target
    shape = B.checked_broadcast("loss", tuple(input.shape), tuple(target.shape))
    return input.expand(*shape), target.expand(*shape)


# -- multi_margin_loss ---------------------------------------------------------------------
# One MultiMarginLossBackward0 node, as PyTorch's, saving the input, the target and the
# class weights. Its gradient is PyTorch's multi_margin_loss_backward, computed on arrays
# and recorded (under create_graph) as PyTorch records it: a node named NotImplemented
# whose backward refuses, for PyTorch has no second derivative of this loss.

def _mm_terms(xp, x, t, p, margin, w):
    """The per-element hinge terms of (N, C) scores ``x`` and targets ``t`` (N,): 0 at
    the target's own column; and the mask of the active ones."""
    n = x.shape[0]
    rows = xp.arange(n)
    z = margin - x[rows, t][:, None] + x
    active = z > 0
    active[rows, t] = False
    h = xp.where(active, z if p == 1 else z * z, 0)
    if w is not None:
        h = h * w[t][:, None]
    return h, active, z


def _mm_rows(self, target):
    x = self if self.ndim == 2 else self.reshape(1, -1)
    return x, target.reshape(-1)


def _mm_fwd(self, target, p, margin, weight, reduction):
    xp = B.xp_of(self)
    x, t = _mm_rows(self, target)
    w = None if weight is None else weight._data
    h, _, _ = _mm_terms(xp, x, t, p, margin, w)
    loss = h.sum(axis=1) / x.shape[1]
    if self.ndim == 1:
        loss = loss.reshape(())
    return _reduced(xp, loss.astype(self.dtype, copy=False), reduction)


def _mm_bwd_fwd(grad, self, target, p, margin, weight, reduction):
    """PyTorch's multi_margin_loss_backward on arrays."""
    xp = B.xp_of(self)
    x, t = _mm_rows(self, target)
    n, c = x.shape
    w = None if weight is None else weight._data
    _, active, z = _mm_terms(xp, x, t, p, margin, None)
    g = grad.reshape(-1, 1) if reduction == "none" else grad.reshape(1, 1)
    g = g / (n * c if reduction == "mean" else c)
    h = xp.where(active, g if p == 1 else 2 * g * z, 0)
    if w is not None:
        h = h * w[t][:, None]
    out = h.copy()
    out[xp.arange(n), t] -= h.sum(axis=1)
    return out.reshape(self.shape).astype(self.dtype, copy=False)


def _mm_no_second(grad):
    raise RuntimeError("derivative for aten::multi_margin_loss_backward is not implemented")


MULTI_MARGIN_BACKWARD = OpDef("multi_margin_loss_backward", "NotImplemented", _mm_bwd_fwd,
                              ("grad_output", "self", "target"),
                              ("p", "margin", "weight", "reduction"),
                              {"grad_output": _mm_no_second, "self": _mm_no_second},
                              False, False, False, None, None, RefusingNode)
MULTI_MARGIN = defop("multi_margin_loss", "MultiMarginLossBackward0", _mm_fwd,
                     inputs=("self", "target"), attrs=("p", "margin", "weight", "reduction"),
                     self=lambda grad, self, target, p, margin, weight, reduction: refusing(
                         MULTI_MARGIN_BACKWARD, (grad, self, target),
                         (p, margin, weight, reduction)))


def multi_margin_loss(input, target, p, margin, weight, reduction):
    """One ``MultiMarginLossBackward0`` node (arguments checked by the caller)."""
    return dispatch(MULTI_MARGIN, (input, target), (p, float(margin), weight,
                                                    _reduction(reduction)))


# -- multilabel_margin_loss ----------------------------------------------------------------
# One MultilabelMarginLossBackward0 node, as PyTorch's multilabel_margin_loss_forward
# records: its second output, ``is_target`` (1 where a class is one of the sample's
# targets), is not differentiable and is saved beside the input, the target and the
# reduction (Note [statistics saved as PyTorch saves them], ops/table.py). Its gradient is
# PyTorch's multilabel_margin_loss_backward on arrays, recorded under create_graph as a
# refusing NotImplemented node: PyTorch has no second derivative of this loss either.

def _mlm_rows(xp, self, target):
    """(N, C) scores, (N, C) listing counts (a class listed twice is a target twice: its
    hinge terms count once per listing, as PyTorch's kernel walks the list) and is_target."""
    x = self if self.ndim == 2 else self.reshape(1, -1)
    t = target.reshape(x.shape)
    n, c = x.shape
    # the classes listed before each row's first -1 (range checked by the caller)
    before_end = xp.cumprod(t >= 0, axis=1).astype(bool)
    times = xp.zeros((n, c), dtype=xp.int64)
    rows = xp.broadcast_to(xp.arange(n)[:, None], t.shape)
    xp.add.at(times, (rows[before_end], t[before_end]), 1)
    return x, times, times > 0


def _mlm_active(xp, x, is_target):
    """The hinge ``1 - (x[j] - x[i])`` for every (target j, class i) pair, and where it
    counts: i not a target and the hinge positive."""
    z = 1 - x[:, :, None] + x[:, None, :]
    return z, (z > 0) & ~is_target[:, None, :]


def _mlm_fwd(self, target, reduction):
    xp = _xp(self)
    x, times, is_target = _mlm_rows(xp, self, target)
    z, active = _mlm_active(xp, x, is_target)
    per = (xp.where(active, z, 0).sum(axis=2) * times).sum(axis=1) / x.shape[1]
    if self.ndim < 2:
        per = per.reshape(())
    loss = _reduced(xp, per.astype(self.dtype, copy=False), reduction)
    return loss, is_target.reshape(target.shape).astype(self.dtype)   # (the target's shape)


def _mlm_bwd_fwd(grad, self, target, is_target, reduction):
    """PyTorch's multilabel_margin_loss_backward on arrays: each listing of target j
    with an active class i moves ``1/C`` of the sample's gradient from j to i."""
    xp = _xp(self)
    x, times, _ = _mlm_rows(xp, self, target)
    _, active = _mlm_active(xp, x, is_target.reshape(x.shape) != 0)
    n, c = x.shape
    a = active * times[:, :, None]                      # (N, j, i): listings of j, active
    g = (a.sum(axis=1) - a.sum(axis=2)) / c             # +1/C at i, -1/C at j per pair
    scale = grad.reshape(-1, 1) if reduction == "none" else grad.reshape(1, 1)
    if reduction == "mean":
        scale = scale / n
    return (g * scale).reshape(self.shape).astype(self.dtype, copy=False)


def _mlm_no_second(*_):
    raise RuntimeError("derivative for aten::multilabel_margin_loss_backward is not "
                       "implemented")


MULTILABEL_MARGIN_BACKWARD = OpDef(
    "multilabel_margin_loss_backward", "NotImplemented", _mlm_bwd_fwd,
    ("grad_output", "self", "target", "is_target"), ("reduction",),
    {"grad_output": _mlm_no_second, "self": _mlm_no_second},
    False, False, False, None, None, RefusingNode)
MULTILABEL_MARGIN = defop(
    "multilabel_margin_loss", "MultilabelMarginLossBackward0", _mlm_fwd,
    inputs=("self", "target"), attrs=("reduction", "is_target"),
    self=lambda grad, self, target, reduction, is_target: refusing(
        MULTILABEL_MARGIN_BACKWARD, (grad, self, target, is_target), (reduction,)))


def multilabel_margin_loss(input, target, reduction):
    """One ``MultilabelMarginLossBackward0`` node (arguments checked by the caller)."""
    return dispatch_stats(MULTILABEL_MARGIN, (input, target), (_reduction(reduction),))
