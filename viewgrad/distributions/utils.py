"""Helpers shared by the distributions, as ``torch.distributions.utils`` defines them:
``broadcast_all`` (parameters to one shape and dtype), ``probs_to_logits`` /
``logits_to_probs`` / ``clamp_probs`` (the two parametrisations of discrete laws) and
``lazy_property`` (a parameter computed from the other one the first time it is read).

Everything is written with viewgrad's public ops, so the gradients come from autograd.
"""
from __future__ import annotations

import viewgrad as vg

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
           "lazy_property", "euler_constant"]

euler_constant = 0.57721566490153286060   # Euler-Mascheroni constant

# PyTorch's torch.types._Number: a bool counts as a number
_Number = (int, float, bool)


def broadcast_all(*values):
    """Broadcast tensors and Python numbers together. Numbers become tensors of the first
    tensor's dtype and device (the default dtype when every value is a number)."""
    if not all(isinstance(v, (vg.Tensor,) + _Number) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, vg.Tensor) for v in values):
        options = dict(dtype=vg.get_default_dtype())
        for v in values:
            if isinstance(v, vg.Tensor):
                options = dict(dtype=v.dtype, device=v.device)
                break
        values = [v if isinstance(v, vg.Tensor) else vg.tensor(v, **options)
                  for v in values]
    return vg.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    """N(0, 1) noise of ``shape``: the reparameterisation's source of randomness."""
    return vg.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """Sum the ``dim`` rightmost dimensions of ``value`` (an event's log-density terms)."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Log-odds to a probability (``is_binary``), else a softmax over the last dim."""
    if is_binary:
        return vg.sigmoid(logits)
    return vg.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Clamp into [eps, 1 - eps] of the dtype, so that log(p) and log1p(-p) stay finite."""
    eps = vg.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Probabilities to log-odds (``is_binary``) or to log-probabilities (categorical)."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return vg.log(ps_clamped) - vg.log1p(-ps_clamped)
    return vg.log(ps_clamped)


class lazy_property:  # noqa: N801 - PyTorch's name
    """A non-data descriptor: the first read computes the value (with grad enabled, so a
    ``probs`` derived from ``logits`` stays differentiable even when first read under
    ``no_grad``) and stores it on the instance, which then shadows the descriptor."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _LazyPropertyAndProperty(self.wrapped)
        with vg.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _LazyPropertyAndProperty(lazy_property, property):
    """What the class attribute reads as: a property to documentation tools, a
    lazy_property to Distribution's argument validation (which skips unread ones)."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)
