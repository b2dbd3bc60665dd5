"""``viewgrad.nn.init``: parameter initialisation, with PyTorch's formulas.

Every function fills its tensor IN PLACE under ``no_grad`` (one ``copy_``, so the tensor's
``_version`` moves) from viewgrad's seeded generator, and returns the tensor. The layers
use them as PyTorch's do: Linear and Conv draw weights with
``kaiming_uniform_(w, a=sqrt(5))`` (i.e. U(-1/sqrt(fan_in), 1/sqrt(fan_in))) and biases
from the same bound.
"""
from __future__ import annotations

import math
import warnings

from ..autograd.grad_mode import no_grad
from ..ops import factories as F
from ..ops.random import randperm

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "ones_", "zeros_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
           "_calculate_fan_in_and_fan_out", "trunc_normal_", "eye_", "dirac_",
           "orthogonal_", "sparse_", "uniform", "normal", "constant", "eye", "dirac",
           "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal",
           "orthogonal", "sparse"]


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (PyTorch's table)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"negative_slope {slope} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         f"dimensions (got shape {list(tensor.shape)})")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _write(tensor, value):
    with no_grad():
        tensor.copy_(value)
    return tensor


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor, val):
    with no_grad():
        tensor.fill_(val)
    return tensor


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    with no_grad():
        tensor.zero_()
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * (gain * math.sqrt(2.0 / float(fan_in + fan_out)))  # as torch
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    fan = _fan(tensor, mode)
    if fan == 0:
        return tensor  # PyTorch warns and leaves a zero-element tensor alone
    bound = math.sqrt(3.0) * (calculate_gain(nonlinearity, a) / math.sqrt(fan))  # as torch
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    fan = _fan(tensor, mode)
    if fan == 0:
        return tensor
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan), generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """N(mean, std²) restricted to [a, b], drawn as PyTorch draws it (so the same seed
    gives the same numbers): when [a, b] holds more than 30% of the mass, normal samples
    and the ones outside drawn again; otherwise uniform candidates in [a, b] accepted
    with probability pdf / pdf(mode) (rejection sampling)."""
    from ..ops.pointwise import where

    def cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0
    with no_grad():
        if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < a) | (result > b)
                if not bool(outside.any()):
                    break
                fresh = F.empty_like(result).normal_(mean, std, generator=generator)
                result = where(outside, fresh, result)
        else:
            log_peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2
            result = tensor.uniform_(a, b, generator=generator)

            def rejected(cand):   # log u > log pdf(cand) - log pdf(mode)
                log_pdf = ((cand - mean) / std).pow(2).mul(-0.5).sub(log_peak)
                return F.empty_like(cand).uniform_(generator=generator).log().gt(log_pdf)
            pending = rejected(result)
            while bool(pending.any()):
                cand = F.empty_like(result).uniform_(a, b, generator=generator)
                result = where(pending, cand, result)
                pending = where(pending, rejected(cand), pending)
        if result is not tensor:
            tensor.copy_(result)
        return tensor


def eye_(tensor):
    """The identity matrix, in place (2-D tensors only)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, F.eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype,
                                device=tensor.device))


def dirac_(tensor, groups=1):
    """A Dirac delta per output channel (3-, 4- or 5-D conv weights): the convolution
    passes its input through unchanged, channel by channel within each group."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if tensor.shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = tensor.shape[0] // groups
    n = min(out_per_group, tensor.shape[1])
    with no_grad():
        tensor.zero_()
        centre = tuple(k // 2 for k in tensor.shape[2:])
        for g in range(groups):
            for d in range(n):
                tensor[(g * out_per_group + d, d) + centre] = 1.0
    return tensor


def orthogonal_(tensor, gain=1.0, generator=None):
    """A (semi-)orthogonal matrix, in place: the Q of a Gram-Schmidt QR of a normal sample
    (the trailing dims flattened), times ``gain``."""
    from ..ops.joining import stack
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    rows = tensor.shape[0]
    cols = tensor.numel() // rows if rows else 0
    if tensor.numel() == 0:
        return tensor
    with no_grad():
        a = F.randn((rows, cols), dtype=tensor.dtype, device=tensor.device,
                    generator=generator)
        if rows < cols:
            a = a.t()
        basis = []
        for j in range(a.shape[1]):
            v = a[:, j]
            for q in basis:
                v = v - (q * v).sum() * q
            basis.append(v / (v * v).sum().sqrt())
        q = stack(basis, 1)
        if rows < cols:
            q = q.t()
        return _write(tensor, (q * gain).reshape(tuple(tensor.shape)))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A sparse 2-D weight, in place (Martens 2010, as ``torch.nn.init.sparse_``): normal
    values of std ``std``, then in each column ``ceil(sparsity * rows)`` rows, picked by
    a random permutation, set to 0 — PyTorch's steps, so its values under a seed."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for c in range(cols):
            tensor[randperm(rows)[:zeros], c] = 0
    return tensor


def _deprecated(fn):
    """PyTorch's old name of an init function (no trailing underscore): the same, with its
    FutureWarning."""
    old = fn.__name__[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{fn.__name__}`.",
                      FutureWarning, stacklevel=2)
        return fn(*args, **kwargs)
    deprecated_init.__name__ = deprecated_init.__qualname__ = old
    deprecated_init.__doc__ = f"Deprecated: use ``nn.init.{fn.__name__}``."
    return deprecated_init


uniform, normal, constant, eye, dirac = (_deprecated(f) for f in (
    uniform_, normal_, constant_, eye_, dirac_))
xavier_uniform, xavier_normal, kaiming_uniform, kaiming_normal, orthogonal, sparse = (
    _deprecated(f) for f in (xavier_uniform_, xavier_normal_, kaiming_uniform_,
                             kaiming_normal_, orthogonal_, sparse_))
