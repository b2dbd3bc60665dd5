"""``torch.nn.utils``: gradient clipping and flattening parameters to one vector.

``clip_grad_norm_`` rescales every ``.grad`` in place (under no_grad, as PyTorch) so that
their joint norm is at most ``max_norm``: ``g *= min(1, max_norm / (total_norm + 1e-6))``.
"""
from __future__ import annotations

import math

from ..autograd.grad_mode import no_grad
from ..ops import factories as Fa
from ..ops.vector_norms import vector_norm
from ..tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "parameters_to_vector",
           "vector_to_parameters"]


def _params(parameters):
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


@no_grad()
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type`` norm of the norms of ``tensors`` (as one long vector's norm)."""
    tensors = _params(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return Fa.tensor(0.0)
    norms = [vector_norm(t, norm_type) for t in tensors]
    if norm_type == math.inf:
        total = norms[0]
        for n in norms[1:]:
            total = total.clamp(min=n.item()) if n.item() > total.item() else total
    else:
        total = vector_norm(Fa.tensor([n.item() for n in norms], dtype=tensors[0].dtype,
                                device=tensors[0].device), norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable "
                           "this error and scale the gradients by the non-finite norm anyway, "
                           "set `error_if_nonfinite=False`")
    return total


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Rescale the gradients in place so their total norm is at most ``max_norm``; returns
    the total norm before clipping (as torch.nn.utils.clip_grad_norm_)."""
    max_norm = float(max_norm)   # (PyTorch converts it first: "could not convert string...")
    grads = [p.grad for p in _params(parameters) if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    if not grads:
        return total
    coef = min(max_norm / (total.item() + 1e-6), 1.0)
    for g in grads:
        g.mul_(coef)
    return total


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient in place to ``[-clip_value, clip_value]``."""
    for p in _params(parameters):
        if p.grad is not None:
            p.grad.clamp_(-float(clip_value), float(clip_value))


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one vector (differentiable)."""
    from ..ops.joining import cat   # (nn sits above ops: never the package root)
    return cat([p.reshape(-1) for p in parameters])


@no_grad()
def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of ``vec`` into the parameters (in place, no_grad)."""
    i = 0
    for p in parameters:
        n = p.numel()
        p.copy_(vec[i:i + n].view_as(p))
        i += n


from . import rnn_utils as rnn  # noqa: E402  (torch.nn.utils.rnn: pad/pack sequences)
