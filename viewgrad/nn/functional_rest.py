"""The rest of ``torch.nn.functional`` that a model written for PyTorch reaches for: the
3-D ``conv_transpose3d``, ``avg_pool3d``, ``adaptive_avg_pool3d`` and ``max_unpool3d``,
the power-average pools (``lp_pool1d/2d/3d``), the ``*_with_indices`` names of the max
pools, ``channel_shuffle`` (its own node, ``ChannelShuffleBackward0``), ``dropout3d``,
``gumbel_softmax`` and ``triplet_margin_with_distance_loss``; re-exported by
``viewgrad.nn.functional``.

Each is composed as PyTorch composes it, so its graph shows PyTorch's nodes: an
``lp_pool`` is a pow, an average pool, a sign times a relu of an abs, a scale and a pow.
"""
from __future__ import annotations

import warnings

from ..ops import factories as Fa
from ..ops.conv import constant_pad_nd
from ..ops.pool import pool_output_size
from ..ops.pointwise import relu
from ..ops.table import defop, dispatch
from ..tensor import Tensor
from .functional_extra import _unpool
from .functional_more import _reduce, _triple, pool3d_args

__all__ = ["conv_transpose3d", "avg_pool3d", "adaptive_avg_pool3d", "max_unpool3d",
           "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "max_pool1d_with_indices", "max_pool2d_with_indices",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "max_pool3d_with_indices",
           "channel_shuffle", "dropout3d", "gumbel_softmax",
           "triplet_margin_with_distance_loss"]


def _F():
    from . import functional   # (the package's functions, which import this module)
    return functional


# -- 3-D: transposed convolution, average pooling ---------------------------------------------

def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """Transposed 3-D convolution with weight (C_in, C_out/groups, kD, kH, kW): the one
    generic convolution op, transposed (``ConvolutionBackward0``)."""
    return _F()._conv_transpose_nd(3, "conv_transpose3d", input, weight, bias, stride,
                                   padding, output_padding, groups, dilation)


def _three(v, name):
    return _triple(v, name, f"avg_pool3d: {name} must be a single int, or a tuple of three "
                            f"ints")


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-D average pooling over (N, C, D, H, W) or (C, D, H, W), as ``F.avg_pool3d``
    (its node is the division's, DivBackward0, where PyTorch's is AvgPool3DBackward0),
    built from views as ``max_pool3d`` is: pad with zeros, ``unfold`` each spatial dim
    into windows, sum each window and divide by PyTorch's divisor — ``divisor_override``,
    or the window's elements inside the padded input (``count_include_pad``, a window
    that ``ceil_mode`` lets run past it counts only what is inside) or inside the input."""
    if not isinstance(input, Tensor) or input.dim() not in (4, 5) or not input.numel():
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    unbatched, x, k, s, p = pool3d_args(input, kernel_size, stride, padding, _three)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    for i in range(3):
        if p[i] > k[i] // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but "
                               f"got pad={p[i]}, kernel_size={k[i]} and dilation=1")
    sizes = tuple(x.shape[2:])
    if any(sizes[i] < k[i] for i in range(3)):   # (PyTorch ignores the padding here)
        raise RuntimeError(f"input image (T: {sizes[0]} H: {sizes[1]} W: {sizes[2]}) smaller "
                           f"than kernel size (kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    out = [pool_output_size(sizes[i], k[i], s[i], p[i], 1, ceil_mode) for i in range(3)]
    right = [max(0, (out[i] - 1) * s[i] + k[i] - sizes[i] - p[i]) for i in range(3)]

    def windows(t, pad_value):
        # the padding (pad_value: 0 for the sum; for the divisor, whether it counts),
        # then ceil_mode's overhang past it, which never counts
        pads = (p[2], min(p[2], right[2]), p[1], min(p[1], right[1]),
                p[0], min(p[0], right[0]))
        if any(pads):
            t = constant_pad_nd(t, pads, pad_value)
        over = (0, right[2] - pads[1], 0, right[1] - pads[3], 0, right[0] - pads[5])
        if any(over):
            t = constant_pad_nd(t, over, 0.0)
        for i in range(3):
            t = t.unfold(2 + i, k[i], s[i])
        return t[:, :, :out[0], :out[1], :out[2]].sum((-3, -2, -1))
    total = windows(x, 0.0)
    if divisor_override is not None:
        r = total / divisor_override
    else:
        ones = Fa.ones((1, 1) + sizes, dtype=x.dtype, device=x.device)
        r = total / windows(ones, 1.0 if count_include_pad else 0.0)
    return r.squeeze(0) if unbatched else r


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of the last three dims to a fixed size, as
    ``F.adaptive_avg_pool3d`` (None keeps a dim). A box's mean is the mean over its depth
    of the means over its height and width, so it is two adaptive 2-D poolings (their
    nodes, AdaptiveAvgPool2DBackward0, where PyTorch's is one AdaptiveAvgPool3DBackward0);
    a 1×1×1 output is the mean, as PyTorch's own shortcut (MeanBackward1)."""
    out = (output_size,) * 3 if isinstance(output_size, int) or output_size is None \
        else tuple(output_size)
    if len(out) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if out == (1, 1, 1):   # (before the rank's check, as PyTorch's shortcut)
        return input.mean((-1, -2, -3), keepdim=True)
    if not isinstance(input, Tensor) or input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
                           f"{list(getattr(input, 'shape', ()))}")
    sizes = tuple(input.shape[-3:])
    out = tuple(sizes[i] if v is None else int(v) for i, v in enumerate(out))
    if out == (1, 1, 1):   # (a None that keeps a dim of size 1)
        return input.mean((-1, -2, -3), keepdim=True)
    pool2d = _F().adaptive_avg_pool2d
    x = input.reshape((-1,) + sizes)                    # (B, D, H, W)
    y = pool2d(x, out[1:])                              # each depth slice: (B, D, oh, ow)
    y = y.reshape(x.shape[0], 1, sizes[0], out[1] * out[2])
    y = pool2d(y, (out[0], out[1] * out[2]))            # over the depth: (B, 1, od, oh·ow)
    return y.reshape(tuple(input.shape[:-3]) + out)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool3d(return_indices=True)``: each value put back at its
    index in its volume, zeros elsewhere (``F.max_unpool3d``)."""
    return _unpool(input, indices, 3, kernel_size, stride, padding, output_size,
                   "max_unpool3d")


# -- power-average pooling ----------------------------------------------------------------

def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, pool, window):
    out = pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    # sign·relu(|out|): PyTorch's way to keep a negative average (an odd power) at 0
    return (out.sign() * relu(out.abs())).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``(Σ x^p over each window)^(1/p)`` along the last dim, as ``F.lp_pool1d``: an
    average pool of ``x^p`` scaled back by the window's size."""
    F = _F()
    if stride is None:
        stride = kernel_size
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, F.avg_pool1d,
                    kernel_size)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``lp_pool1d`` over the last two dims (``F.lp_pool2d``)."""
    F = _F()
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    if stride is None:
        stride = kernel_size
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, F.avg_pool2d, kh * kw)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``lp_pool1d`` over the last three dims (``F.lp_pool3d``)."""
    kd, kh, kw = _three(kernel_size, "kernel_size")
    if stride is None:
        stride = kernel_size
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, avg_pool3d,
                    kd * kh * kw)


# -- the max pools' names with indices --------------------------------------------------------

def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """``max_pool1d(..., return_indices=True)``: (values, indices)."""
    return _F().max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """``max_pool2d(..., return_indices=True)``: (values, indices)."""
    return _F().max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    """``adaptive_max_pool1d(..., return_indices=True)``: (values, indices)."""
    return _F().adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    """``adaptive_max_pool2d(..., return_indices=True)``: (values, indices)."""
    return _F().adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    """``adaptive_max_pool3d(..., return_indices=True)``: (values, indices)."""
    return _F().adaptive_max_pool3d(input, output_size, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """``max_pool3d(..., return_indices=True)``: (values, indices)."""
    return _F().max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


# -- channel_shuffle ------------------------------------------------------------------------

def _shuffle_channels(x, groups):
    n, c = x.shape[0], x.shape[1]
    rest = tuple(x.shape[2:])
    y = x.reshape((n, groups, c // groups) + rest).swapaxes(1, 2)
    return y.reshape((n, c) + rest)   # (a copy: the swap is not a view's layout)


CHANNEL_SHUFFLE = defop("channel_shuffle", "ChannelShuffleBackward0", _shuffle_channels,
                        attrs=("groups",),
                        # the inverse shuffle: c/g groups of g
                        self=lambda grad, groups: channel_shuffle(
                            grad, grad.shape[1] // groups))


def channel_shuffle(input, groups):
    """(N, C, *) with its C channels taken as ``groups`` groups and interleaved: channel
    ``g·(C/groups) + i`` moves to ``i·groups + g`` (``F.channel_shuffle``, ShuffleNet's;
    one ``ChannelShuffleBackward0`` node, whose backward shuffles back)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"channel_shuffle(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value "
                           f"of groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} "
                           f"channels and {groups} groups.")
    return dispatch(CHANNEL_SHUFFLE, (input,), (int(groups),))


# -- dropout3d, gumbel_softmax -----------------------------------------------------------------

def dropout3d(input, p=0.5, training=True, inplace=False):
    """Drop whole channels of (N, C, D, H, W) (or (C, D, H, W)): one mask value per
    channel, the kept ones scaled by 1/(1-p), as ``F.dropout3d``."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.dim() not in (4, 5):   # (PyTorch's deprecation: a warning, then it runs)
        warnings.warn(f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is "
                      "deprecated and will result in an error in a future release. To "
                      "retain the behavior and silence this warning, please use dropout "
                      "instead. Note that dropout3d exists to provide channel-wise dropout "
                      "on inputs with 3 spatial dimensions, a channel dimension, and an "
                      "optional batch dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    batched = input.dim() == 5
    if not batched:   # one batch of it, as PyTorch's (a view, then squeezed back)
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    out = _F()._channel_dropout(input, p, training, max(input.dim(), 3), inplace)
    if not batched:
        out = out.squeeze_(0) if inplace else out.squeeze(0)
    return out


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax distribution over ``dim`` (``F.gumbel_softmax``):
    softmax((logits + g) / tau) with g = -log(Exponential(1)) noise; ``hard`` gives the
    one-hot of its argmax, with the soft sample's gradient (straight-through)."""
    gumbels = -Fa.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = Fa.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# -- triplet_margin_with_distance_loss -------------------------------------------------------

def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """``max(0, d(a, p) - d(a, n) + margin)`` for any distance ``d`` (default: the
    2-norm ``pairwise_distance``); ``swap`` takes the smaller of d(a, n) and d(p, n), as
    ``F.triplet_margin_with_distance_loss``."""
    F = _F()
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if not dims[0] == dims[1] == dims[2]:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {dims[0]}D, "
                           f"positive {dims[1]}D, and negative {dims[2]}D inputs")
    d = F.pairwise_distance if distance_function is None else distance_function
    d_pos = d(anchor, positive)
    d_neg = d(anchor, negative)
    if swap:
        d_swap = d(positive, negative)
        d_neg = d_neg.minimum(d_swap)
    return _reduce((margin + d_pos - d_neg).clamp_min(0.0), reduction,
                   "triplet_margin_with_distance_loss")
