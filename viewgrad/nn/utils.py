"""``torch.nn.utils``: gradient clipping, flattening parameters to one vector, the
deprecated ``weight_norm`` (``weight_norm.py``), and the submodules ``parametrize`` and
``parametrizations`` (their own files).

``clip_grad_norm_`` rescales every ``.grad`` in place (under no_grad, as PyTorch) so that
their joint norm is at most ``max_norm``: ``g *= min(1, max_norm / (total_norm + 1e-6))``.
"""
from __future__ import annotations

import types
import warnings

from ..autograd.grad_mode import no_grad
from ..ops import factories as Fa
from ..ops.joining import stack
from ..ops.vector_norms import vector_norm
from ..tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "parameters_to_vector",
           "vector_to_parameters", "weight_norm", "remove_weight_norm"]


def _params(parameters):
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


@no_grad()
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type`` norm of the norms of ``tensors`` (as one long vector's norm)."""
    tensors = _params(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return Fa.tensor(0.0)
    # As PyTorch: the per-tensor norms stacked (promoting their dtypes) and normed again,
    # so a NaN in any tensor reaches the total for every order, the max (inf) included.
    first = tensors[0].device
    total = vector_norm(stack([vector_norm(t, norm_type).to(first) for t in tensors]),
                        norm_type)
    if error_if_nonfinite and not bool(total.isfinite()):
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
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        was_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if was_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will "
                          "occur.", stacklevel=3)
    max_norm = float(max_norm)   # (PyTorch converts it first: "could not convert string...")
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    if not grads:
        return total
    # a tensor coefficient, as PyTorch: a NaN or inf total scales the grads to NaN / 0
    coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(coef.to(g.device))
    return total


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient in place to ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    grads = [p.grad for p in _params(parameters) if p.grad is not None]
    if not grads:   # PyTorch's grouping of the grads by device refuses an empty list
        raise RuntimeError("Expected !nested_tensorlist[0].empty() to be true, but got false. "
                           " (Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    for g in grads:
        g.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one vector (differentiable)."""
    from ..ops.joining import cat   # (nn sits above ops: never the package root)
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Point the parameters at consecutive slices of ``vec`` (as PyTorch, ``param.data``
    is replaced, not copied into: each parameter takes ``vec``'s dtype)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    i = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[i:i + n].view_as(p).data
        i += n


def _typename(obj):
    """``torch.typename``: a non-tensor's qualified type name."""
    cls = type(obj)
    return cls.__qualname__ if cls.__module__ in ("builtins", "__builtin__", None) \
        else f"{cls.__module__}.{cls.__qualname__}"


from . import rnn_utils as rnn  # noqa: E402  (torch.nn.utils.rnn: pad/pack sequences)
from .weight_norm import remove_weight_norm, weight_norm  # noqa: E402,F401
from . import parametrize, parametrizations  # noqa: E402,F401  (torch.nn.utils.parametriz*)
