"""Still more of ``torch.nn.functional`` (re-exported by ``viewgrad.nn.functional``):
``interpolate``, adaptive max pooling, ``max_unpool``, ``prelu``, ``threshold``,
``instance_norm``, ``pixel_shuffle``, ``bilinear``, ``alpha_dropout``, and ``embedding_bag``
(from functional_embedding_bag.py, its one EmbeddingBagBackward0 node).

Most are compositions of differentiable viewgrad ops — indexing, weighted sums, ``where``,
reductions — so their gradients (and second derivatives) come from those ops. Where
PyTorch records one node (pixel_shuffle, pixel_unshuffle, prelu's kernel, adaptive max
pooling, bilinear's _trilinear), so does viewgrad; instance_norm is composed as PyTorch
composes it (a view, batch_norm, a view).

``interpolate``'s resizing is one node per mode (nn/upsample.py, Note [Separable
interpolation]).
"""
from __future__ import annotations

import math
import warnings

from ..autograd.grad_mode import no_grad
from ..backend import xp_of as _xp_of
from ..ops import activations as _Fact
from ..ops import factories as Fa
from ..ops.args import check_mixed_dtypes, torch_type_name
from ..ops.einsum import trilinear
from ..ops.joining import cat
from ..ops.norm import batch_norm
from ..ops.pointwise import where
from ..ops.pool import (ADAPTIVE_MAX_POOL2D, ADAPTIVE_MAX_POOL3D, adaptive_avg_pool2d,
                        adaptive_max_indices, max_pool2d)
from ..ops.table import defop, dispatch
from ..ops.kernel_refusals import REFUSALS as _CX, refuse as _refuse
from ..tensor import Tensor
from .functional_embedding_bag import embedding_bag
from .functional_more import _norm
from .upsample import upsample as _upsample

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "max_unpool1d", "max_unpool2d",
           "prelu", "threshold", "threshold_", "instance_norm", "pixel_shuffle", "pixel_unshuffle",
           "embedding_bag", "bilinear", "alpha_dropout", "feature_alpha_dropout"]

_MODES = {"nearest": None, "nearest-exact": None, "linear": 1, "bilinear": 2,
          "bicubic": 2, "trilinear": 3, "lanczos": 2, "area": None}
_MODE_LIST = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of (N, C, *spatial) ``input`` to ``size`` or by
    ``scale_factor``, as ``torch.nn.functional.interpolate``: modes 'nearest',
    'nearest-exact', 'linear' (3-D), 'bilinear'/'bicubic' (4-D), 'trilinear' (5-D) and
    'area' (adaptive average pooling)."""
    if mode not in _MODES:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported "
                                  f"(got {input.dim()}D) for the modes: {_MODE_LIST} "
                                  f"(got {mode})")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    nsp = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if size is not None:
        out = list(size) if isinstance(size, (list, tuple)) else [size] * nsp
        if len(out) != nsp:
            raise ValueError(f"Input and output must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(input.shape[2:])} and output size of {out}. Please "
                             "provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                             "size in (o1, o2, ...,oK) format.")
        scales = [None] * nsp
    else:
        scales = list(scale_factor) if isinstance(scale_factor, (list, tuple)) \
            else [scale_factor] * nsp
        if len(scales) != nsp:
            raise ValueError(f"Input and scale_factor must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(input.shape[2:])} and scale_factor of shape {scales}. "
                             "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                             "scale_factor in (s1, s2, ...,sK) format.")
        out = [int(math.floor(float(input.shape[i + 2]) * s)) for i, s in enumerate(scales)]
        if recompute_scale_factor:
            scales = [None] * nsp
    need = _MODES[mode]
    if mode == "lanczos":   # (antialiased only, 4-D only: PyTorch's checks and words)
        if nsp != 2:
            raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors "
                                      f"supported (got {input.dim()}D) for the modes: "
                                      f"{_MODE_LIST} (got {mode})")
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if need is not None and nsp != need:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{need + 2}D input")
    if mode == "area":
        if nsp == 1:
            return adaptive_avg_pool2d(input.unsqueeze(-2), (1, out[0])).squeeze(-2)
        if nsp == 2:
            return adaptive_avg_pool2d(input, tuple(out))
        raise ValueError("interpolate: mode='area' for 5-D input is not provided by viewgrad "
                         "(use 3-D or 4-D input)")
    sizes = list(input.shape[2:])
    if any(v <= 0 for v in sizes + out):   # (the upsample kernels' own check and words)
        names = "DHW"[3 - nsp:]
        got_in = ", ".join(f"{n}: {v}" for n, v in zip(names, sizes))
        got_out = ", ".join(f"{n}: {v}" for n, v in zip(names, out))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({got_in}){' and' if nsp == 1 else ''} output ({got_out})")
    return _upsample(input, mode + "-aa" * bool(antialias), out, align_corners if mode not in (
        "nearest", "nearest-exact") else None, scales)   # one node (upsample.py; -aa: PIL's)


def _deprecated(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
             recompute_scale_factor=None):
    """Deprecated spelling of ``interpolate`` (PyTorch warns; so does viewgrad)."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


def upsample_nearest(input, size=None, scale_factor=None):
    """``interpolate(mode='nearest')`` (deprecated in PyTorch, with a warning)."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """``interpolate(mode='bilinear', align_corners=True)`` (deprecated in PyTorch, with a
    warning)."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# -- adaptive max pooling, unpooling ---------------------------------------------------------

def _sizes_with_default(output_size, input):
    """PyTorch's ``_list_with_default``: an int as it is; a sequence with each None taken
    from the input's trailing dims."""
    if isinstance(output_size, int):
        return output_size
    out = tuple(output_size)
    if input.dim() <= len(out):
        raise ValueError(f"Input dimension should be at least {len(out) + 1}")
    return tuple(d if v is None else v for v, d in zip(out, input.shape[-len(out):]))


def _adaptive_max(input, output_size, nsp, op, kernel):
    """Adaptive max pooling over the last ``nsp`` dims (the values and the int64 flat
    index of each maximum in its plane or volume), with PyTorch's checks in PyTorch's
    order: the rank, empty non-batch dims, output_size's length, the dtype's kernel."""
    name = f"adaptive_max_pool{nsp}d"
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    out = _sizes_with_default(output_size, input)
    if input.dim() not in (nsp + 1, nsp + 2):
        raise RuntimeError(f"{name}(): Expected {nsp + 1}D or {nsp + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    for d in range(1, input.dim()):   # (PyTorch asks from dim 1, batched or not)
        if input.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes "
                               f"{list(input.shape)} with dimension {d} being empty")
    out = (out,) * nsp if isinstance(out, int) else out
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in out):
        bad = next(v for v in out if not isinstance(v, int) or isinstance(v, bool))
        raise TypeError(f"{name}(): argument 'output_size' (position 2) must be tuple of "
                        f"ints, but found element of type {type(bad).__name__}")
    if len(out) != nsp:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be {nsp}")
    _refuse(_CX[kernel], input)   # (Note [inputs PyTorch refuses], ops/)
    shape = list(input.shape[:-nsp]) + list(out)
    if min(out) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: "
                           f"{shape}")
    idx = Tensor._make(adaptive_max_indices(input._data, *out), input._device)
    return dispatch(op, (input, idx)), idx


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max over the adaptive windows ``[floor(i*H/h), ceil((i+1)*H/h))``; with
    ``return_indices`` also the flat index (h * W + w) of each maximum in its plane. One
    ``AdaptiveMaxPool2DBackward0`` node, as PyTorch's."""
    y, idx = _adaptive_max(input, output_size, 2, ADAPTIVE_MAX_POOL2D, "adaptive_max_pool2d")
    return (y, idx) if return_indices else y


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """``adaptive_max_pool2d`` over the last three dims of a (N, C, D, H, W) or (C, D, H,
    W) input; the index of a maximum is d * H * W + h * W + w in its volume. One
    ``AdaptiveMaxPool3DBackward0`` node, as PyTorch's."""
    y, idx = _adaptive_max(input, output_size, 3, ADAPTIVE_MAX_POOL3D, "adaptive_max_pool3d")
    return (y, idx) if return_indices else y


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """``adaptive_max_pool2d`` on a (N, C, 1, L) view."""
    if not isinstance(input, Tensor):
        raise TypeError(f"adaptive_max_pool1d(): argument 'input' (position 1) must be "
                        f"Tensor, not {type(input).__name__}")
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        o = output_size
    else:
        try:
            sizes = tuple(output_size)
        except TypeError:
            raise TypeError(f"adaptive_max_pool1d(): argument 'output_size' (position 2) "
                            f"must be tuple of ints, not {type(output_size).__name__}") \
                from None
        bad = [v for v in sizes if not isinstance(v, int) or isinstance(v, bool)]
        if bad:
            raise TypeError(f"adaptive_max_pool1d(): argument 'output_size' (position 2) "
                            f"must be tuple of ints, but found element of type "
                            f"{type(bad[0]).__name__} at pos {sizes.index(bad[0])}")
        if len(sizes) != 1:
            raise RuntimeError(f"adaptive_max_pool1d() argument 'output_size' should "
                               f"contain one int (got {len(sizes)})")
        o = sizes[0]
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"adaptive_max_pool1d)")
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"adaptive_max_pool1d(): Expected input to have non-zero size "
                               f"for non-batch dimensions, but input has sizes "
                               f"{list(input.shape)} with dimension {d} being empty")
    _refuse(_CX["adaptive_max_pool1d"], input)   # (Note [inputs PyTorch refuses], ops/)
    y, idx = adaptive_max_pool2d(input.unsqueeze(-2), (1, o), True)
    y, idx = y.squeeze(-2), idx.squeeze(-2)
    return (y, idx) if return_indices else y


def _unpool(input, indices, nsp, kernel_size, stride, padding, output_size, name):
    def n_tuple(v):   # (PyTorch's _ntuple: an iterable as it is, anything else repeated)
        return tuple(v) if hasattr(v, "__iter__") else (v,) * nsp
    k = n_tuple(kernel_size)
    s = k if stride is None else n_tuple(stride)
    p = n_tuple(padding)
    spatial = tuple(input.shape[-nsp:])
    default = tuple((spatial[i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(nsp))
    if output_size is None:
        out = default
    else:
        # PyTorch's _unpool_output_size: (N, C, *spatial) or just the spatial sizes, each
        # strictly within one stride of the default size
        if len(output_size) == nsp + 2:
            output_size = output_size[2:]
        if len(output_size) != nsp:
            raise ValueError(f"output_size should be a sequence containing {nsp} or {nsp + 2} "
                             f"elements, but it has a length of '{len(output_size)}'")
        for d in range(nsp):
            lo, hi = default[d] - s[d], default[d] + s[d]
            if not lo < output_size[d] < hi:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be '
                                 f'between {lo} and {hi})')
        out = tuple(int(v) for v in output_size)
    lead = tuple(input.shape[:-nsp])
    total = 1
    for v in out:
        total *= v
    if total == 0:   # (PyTorch's kernel writes nothing then: no index is checked)
        return input.reshape(lead + (-1,))[..., :0].reshape(lead + out)
    if indices.numel() and int(indices.max()) >= total:
        raise RuntimeError(f"Found an invalid max index: {int(indices.max())} (output volumes "
                           f"are of size {'x'.join(str(v) for v in out)}")
    flat = Fa.zeros(lead + (total,), dtype=input.dtype, device=input.device)
    flat = flat.scatter(-1, indices.reshape(lead + (-1,)), input.reshape(lead + (-1,)))
    return flat.reshape(lead + out)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool2d(return_indices=True)``: each value put back at its
    index, zeros elsewhere."""
    return _unpool(input, indices, 2, kernel_size, stride, padding, output_size,
                   "max_unpool2d")


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool1d(return_indices=True)``."""
    return _unpool(input, indices, 1, kernel_size, stride, padding, output_size,
                   "max_unpool1d")


# -- activations, normalisation, reshuffles ---------------------------------------------------

def _prelu_fwd(self, weight):
    return _xp_of(self).where(self > 0, self, weight * self)


# PyTorch's _prelu_kernel: one PreluKernelBackward0 node on the input and the weight
# (reshaped to broadcast: a view), saving both
PRELU_KERNEL = defop("_prelu_kernel", "PreluKernelBackward0", _prelu_fwd,
                     inputs=("self", "weight"), broadcast=True,
                     self=lambda grad, self, weight: where(self > 0, grad, weight * grad),
                     weight=lambda grad, self, weight: where(self > 0, 0.0, self * grad))


def prelu(input, weight):
    """``x if x > 0 else weight * x``; a weight of C values applies per channel (dim 1).
    Recorded as PyTorch's: the weight reshaped to broadcast (a view) and one
    ``PreluKernelBackward0``."""
    dim = input.dim()
    if weight.numel() != 1:
        if dim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if dim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{torch_type_name(input.dtype)} and {torch_type_name(weight.dtype)}")
    if dim != weight.dim():
        shape = [1] * dim
        if dim > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(tuple(shape))
    return dispatch(PRELU_KERNEL, (input, weight))


def threshold(input, threshold, value, inplace=False):
    """``value`` where ``x <= threshold``, ``x`` elsewhere (a NaN stays NaN, as torch's)."""
    if isinstance(input, Tensor) and input._data.dtype.kind == "f":
        # ThresholdBackward0 / ThresholdBackward1, as PyTorch records them
        return _Fact.threshold(input, threshold, value, inplace=inplace)
    if isinstance(input, Tensor) and input._data.dtype.kind in "cb":   # (PyTorch's words)
        raise NotImplementedError("\"threshold_cpu\" not implemented for "
                                  f"'{torch_type_name(input._data.dtype)}'")
    if inplace:   # the elements at or below the threshold overwritten (torch's threshold_)
        return input.masked_fill_(input <= threshold, value)
    return where(input <= threshold, Fa.full((), value, dtype=input.dtype,
                                             device=input.device), input)


_threshold = threshold   # (threshold_'s parameter of the same name hides the function)


def threshold_(input, threshold, value):
    """``threshold(input, threshold, value, inplace=True)``."""
    return _threshold(input, threshold, value, inplace=True)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each (sample, channel) over its spatial dims, composed as PyTorch's
    ``instance_norm`` is: the (N, C, ...) input viewed as one sample of N·C channels,
    ``batch_norm`` on it (one NativeBatchNormBackward0, which saves that view) with the
    weight, bias and running statistics repeated N times (RepeatBackward0), the result
    viewed back. Running statistics given with ``use_input_stats``: each repeated copy is
    updated by batch_norm, and their mean over the N samples is copied back (one version
    bump each, as PyTorch's)."""
    if use_input_stats:
        if math.prod(input.shape[2:]) == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got "
                             f"input size {input.shape}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    check_mixed_dtypes(input, running_mean, running_var, weight, bias)
    b, c = input.shape[0], input.shape[1]
    rep = [None if t is None else t.repeat(b)
           for t in (weight, bias, running_mean, running_var)]
    x = input.contiguous().view((1, b * c) + tuple(input.shape[2:]))
    out = batch_norm(x, rep[2], rep[3], rep[0], rep[1], use_input_stats, momentum, eps)
    if use_input_stats:
        with no_grad():
            for stat, copies in ((running_mean, rep[2]), (running_var, rep[3])):
                if stat is not None:
                    stat.copy_(copies.view(b, c).mean(0))
    return out.view(tuple(input.shape))


# PyTorch records pixel_shuffle and pixel_unshuffle as one node each (PixelShuffleBackward0,
# saving upscale_factor; PixelUnshuffleBackward0), each the other's gradient: the forward
# here is the same reshape, permute and reshape, on arrays.

def _shuffle_arrays(x, r):
    *lead, c, h, w = x.shape
    lead = tuple(lead)
    n = len(lead)
    y = x.reshape(lead + (c // (r * r), r, r, h, w))
    y = y.transpose(tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
    return y.reshape(lead + (c // (r * r), h * r, w * r))


def _unshuffle_arrays(x, r):
    *lead, c, h, w = x.shape
    lead = tuple(lead)
    n = len(lead)
    y = x.reshape(lead + (c, h // r, r, w // r, r))
    y = y.transpose(tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
    return y.reshape(lead + (c * r * r, h // r, w // r))


PIXEL_SHUFFLE = defop("pixel_shuffle", "PixelShuffleBackward0", _shuffle_arrays,
                      attrs=("upscale_factor",),
                      self=lambda grad, upscale_factor: pixel_unshuffle(grad, upscale_factor))
PIXEL_UNSHUFFLE = defop("pixel_unshuffle", "PixelUnshuffleBackward0", _unshuffle_arrays,
                        attrs=("downscale_factor",),
                        self=lambda grad, downscale_factor: pixel_shuffle(grad,
                                                                          downscale_factor))


def pixel_shuffle(input, upscale_factor):
    """(*, C r², H, W) → (*, C, H r, W r): one ``PixelShuffleBackward0`` node."""
    r = upscale_factor
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.dim()} dimension(s)")
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    return dispatch(PIXEL_SHUFFLE, (input,), (r,))


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) → (*, C r², H, W), the inverse of ``pixel_shuffle``: one
    ``PixelUnshuffleBackward0`` node."""
    r = downscale_factor
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, "
                           f"but got input with {input.dim()} dimension(s)")
    h, w = input.shape[-2], input.shape[-1]
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by "
                           f"downscale_factor, but input.size(-2)={h} is not divisible by {r}"
                           if h % r else
                           f"pixel_unshuffle expects width to be divisible by "
                           f"downscale_factor, but input.size(-1)={w} is not divisible by {r}")
    return dispatch(PIXEL_UNSHUFFLE, (input,), (r,))


def bilinear(input1, input2, weight, bias=None):
    """``y_k = x1ᵀ W_k x2 + b_k`` with weight (out, in1, in2), over any leading dims: one
    ``TrilinearBackward0`` between views, as PyTorch records it (ops/einsum.py)."""
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError("bilinear(): input batch dimensions do not match: got "
                           f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}")
    out, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {in1}")
    if input2.shape[-1] != in2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {in2}")
    # PyTorch's composition: both inputs flattened to rows, one _trilinear
    # (TrilinearBackward0), the result reshaped, then the bias added
    y = trilinear(input1.reshape(-1, in1), weight, input2.reshape(-1, in2), (1, 3), (0,),
                  (1, 2), (2, 3)).reshape(tuple(input1.shape[:-1]) + (out,))
    return y if bias is None else y + bias


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped units are set to SELU's negative saturation and
    an affine map keeps mean 0 and variance 1 (training only)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    alpha = -_SELU_ALPHA * _SELU_SCALE
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    keep = (Fa.rand(tuple(input.shape), device=input.device) >= p).to(input.dtype)
    return _affine_keep(input, keep, a, alpha, p, inplace)


def _affine_keep(input, keep, a, alpha, p, inplace):
    """``input * keep * a + (1 - keep) * (alpha * a) + b``; with ``inplace`` written into
    ``input``."""
    rest = (1 - keep) * (alpha * a)
    if inplace:   # two writes, as PyTorch's: input.mul_(noise * a).add_(b)
        return input.mul_(keep * a).add_(rest + _shift(a, alpha, p))
    return input * keep * a + rest + _shift(a, alpha, p)


def _shift(a, alpha, p):
    """The constant that keeps the mean at 0: kept units get ``a x + b``, dropped ones
    ``a alpha + b``, with ``b = -a alpha p`` (alpha: SELU's negative saturation)."""
    return -a * alpha * p


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """``alpha_dropout`` with one draw per channel (dims after 1 share it)."""
    if not training or p == 0.0:
        return input
    alpha = -_SELU_ALPHA * _SELU_SCALE
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    keep = (Fa.rand(shape, device=input.device) >= p).to(input.dtype)
    return _affine_keep(input, keep, a, alpha, p, inplace)
