"""``viewgrad.nn.functional``: the functional layer API, as ``torch.nn.functional``.

Convolutions (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d) are thin
wrappers that check their arguments and call the ONE generic op,
``viewgrad.ops.conv.convolution`` (node ``ConvolutionBackward0``). Pooling, batch norm and
dropout live in ``viewgrad/ops/pool.py`` and ``viewgrad/ops/norm.py``; activations and
losses are the core's (``viewgrad/ops/nnops.py``, ``pointwise.py``).
"""
from __future__ import annotations

from ..ops.conv import constant_pad_nd, convolution
from ..ops.distance import pdist  # noqa: F401  (F.pdist: one PdistBackward0 node)
from ..ops.nnops import cross_entropy, linear, mse_loss, nll_loss
from ..ops.nnops import log_softmax as _log_softmax, softmax as _softmax
from ..ops.norm import batch_norm, dropout
from ..ops.pointwise import relu as _relu, sigmoid, tanh
from ..ops.pool import adaptive_avg_pool2d, avg_pool2d, max_pool2d
from ..ops.grid_sample import affine_grid, grid_sample
from ..ops.signatures import BOOL, INT, NUMBER, SEQ_INTS, TENSOR, checked_function
from ..ops.table import dispatch
from ..tensor import Tensor
from ..ops.activations import hardshrink, softshrink  # noqa: F401
from ..ops.activations import (celu, elu, gelu, glu, hardsigmoid, hardswish, hardtanh,  # noqa: F401
                               leaky_relu, logsigmoid, mish, selu, silu, softplus,
                               celu_, elu_, hardtanh_, leaky_relu_, selu_)
from ..ops.kernel_refusals import REFUSALS as _CX, refuse as _refuse
from . import functional_more as _more
from .attention import multi_head_attention_forward, scaled_dot_product_attention
from . import functional_extra as _extra, functional_losses as _losses
from .functional_extra import *  # noqa: F401,F403  (interpolate, pooling, ...)
from .functional_losses import *  # noqa: F401,F403  (margin and likelihood losses)
from . import functional_cnn as _cnn
from .functional_cnn import *  # noqa: F401,F403  (fold, rrelu)
from . import functional_rest as _rest
from .functional_rest import *  # noqa: F401,F403  (lp pools, channel_shuffle, gumbel...)
from .functional_ctc import ctc_loss  # the CTC loss and its CtcLossBackward0 node
from .functional_more import (adaptive_avg_pool1d, avg_pool1d, binary_cross_entropy,
                              binary_cross_entropy_with_logits, cosine_similarity, embedding,
                              group_norm, huber_loss, kl_div, l1_loss, layer_norm, max_pool3d,
                              rms_norm,
                              normalize, one_hot, pairwise_distance, smooth_l1_loss)
# the core losses under PyTorch's full signatures (they call the short forms above)
from .functional_signatures import (binary_cross_entropy,  # noqa: E402,F811
                                    binary_cross_entropy_with_logits, cross_entropy,
                                    huber_loss, l1_loss, mse_loss, nll_loss, smooth_l1_loss)

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "convolution", "pad", "max_pool1d", "max_pool2d", "avg_pool2d",
           "adaptive_avg_pool2d", "dropout", "batch_norm", "relu", "tanh", "sigmoid",
           "softmax", "log_softmax", "linear", "cross_entropy", "nll_loss", "mse_loss",
           "flatten", "unfold", "leaky_relu", "elu", "gelu", "softplus", "silu", "hardtanh",
           "relu6", "mish", "logsigmoid", "softsign", "hardswish", "hardsigmoid", "selu",
           "celu", "tanhshrink", "softmin", "glu", "dropout1d", "dropout2d", "relu_",
           "hardshrink", "softshrink", "local_response_norm", "pdist",
           "elu_", "leaky_relu_", "hardtanh_", "selu_", "celu_",
           "scaled_dot_product_attention", "multi_head_attention_forward",
           "grid_sample", "affine_grid"] + [
               n for n in _more.__all__ if n != "pad"] + _extra.__all__ + _losses.__all__ + \
    _cnn.__all__ + _rest.__all__ + ["ctc_loss"]


def _conv_nd(nsp, name, input, weight, bias, stride, padding, dilation, groups):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    if not isinstance(weight, Tensor):
        raise TypeError(f"{name}(): argument 'weight' must be Tensor, not "
                        f"{type(weight).__name__}")
    if input.dim() not in (nsp + 1, nsp + 2):
        raise RuntimeError(f"Expected {nsp + 1}D (unbatched) or {nsp + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    if weight.dim() != nsp + 2:
        raise RuntimeError(
            f"{name}: expected weight to be {nsp + 2}-D (out_channels, in_channels/groups"
            f"{', kernel' if nsp == 1 else ', *kernel'}), but got weight of size "
            f"{list(weight.shape)}")
    unbatched = input.dim() == nsp + 1
    x = input.unsqueeze(0) if unbatched else input
    if isinstance(padding, str):
        mode = padding
        kernel = tuple(weight.shape[2:])
        dil = (dilation,) * nsp if isinstance(dilation, int) else tuple(dilation)
        if len(dil) == 1:
            dil = dil * nsp
        if mode == "valid":
            padding = 0
        elif mode == "same":
            st = (stride,) * nsp if isinstance(stride, int) else tuple(stride)
            if any(s != 1 for s in st):
                raise RuntimeError("padding='same' is not supported for strided convolutions "
                                   f"(stride={list(st)})")
            # total padding d*(k-1) per dim; when it is odd PyTorch pads the extra element on
            # the right: pad the input explicitly for that part, symmetric for the rest
            total = [d * (k - 1) for d, k in zip(dil, kernel)]
            left = [t // 2 for t in total]
            extra = [t - 2 * lo for t, lo in zip(total, left)]
            if any(extra):
                x = constant_pad_nd(x, tuple(p for e in reversed(extra) for p in (0, e)))
            padding = tuple(left)
        else:
            raise RuntimeError(f"Invalid padding string: {mode!r} (expected 'same', 'valid' "
                               "or ints)")
    out = convolution(x, weight, bias, stride, padding, dilation, False, 0, groups)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution of (N, C_in, L) or (C_in, L) with weight (C_out, C_in/groups, k);
    ``padding`` is an int, a tuple, 'valid' or 'same'."""
    return _conv_nd(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution of (N, C_in, H, W) or (C_in, H, W) with weight
    (C_out, C_in/groups, kH, kW); ``padding`` is an int, a pair, 'valid' or 'same'."""
    return _conv_nd(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv_nd(3, "conv3d", input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose_nd(nsp, name, input, weight, bias, stride, padding, output_padding,
                       groups, dilation):
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError(f"{name}(): arguments 'input' and 'weight' must be Tensors")
    if input.dim() not in (nsp + 1, nsp + 2):
        raise RuntimeError(f"Expected {nsp + 1}D (unbatched) or {nsp + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    if weight.dim() != nsp + 2:
        raise RuntimeError(
            f"{name}: expected weight to be {nsp + 2}-D (in_channels, out_channels/groups, "
            f"*kernel), but got weight of size {list(weight.shape)}")
    if isinstance(padding, str):
        raise RuntimeError(f"{name}: padding must be an int or a tuple of ints, not "
                           f"{padding!r} (string padding is only for convolutions)")
    unbatched = input.dim() == nsp + 1
    x = input.unsqueeze(0) if unbatched else input
    out = convolution(x, weight, bias, stride, padding, dilation, True, output_padding, groups)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    return _conv_transpose_nd(1, "conv_transpose1d", input, weight, bias, stride, padding,
                              output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """Transposed 2-D convolution (the adjoint of conv2d; "deconvolution") with weight
    (C_in, C_out/groups, kH, kW)."""
    return _conv_transpose_nd(2, "conv_transpose2d", input, weight, bias, stride, padding,
                              output_padding, groups, dilation)


def pad(input, pad, mode="constant", value=None):
    """Pad the last ``len(pad) // 2`` dims: ``pad=(left, right, top, bottom, ...)``;
    ``mode`` 'constant' (with ``value``), 'reflect', 'replicate' or 'circular'."""
    return _more.pad(input, pad, mode, value)


pad = checked_function(pad, "pad", (("pad", SEQ_INTS),))


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """max_pool2d on a (N, C, 1, L) view of the input."""
    if not isinstance(input, Tensor) or input.dim() not in (2, 3):
        raise RuntimeError(f"max_pool1d: Expected 2D (unbatched) or 3D (batched) input, but "
                           f"got input of size: {list(getattr(input, 'shape', []))}")
    if not return_indices:   # (with indices PyTorch runs max_pool2d, which refuses less)
        _refuse(_CX["max_pool1d"], input)   # (Note [inputs PyTorch refuses], ops/)
        k1 = kernel_size if isinstance(kernel_size, int) else tuple(kernel_size)[0]
        p1 = padding if isinstance(padding, int) else tuple(padding)[0]
        if p1 > k1 // 2:   # (its own check: against the undilated kernel, in its words)
            raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, "
                               f"but got padding={p1} and kernel_size={k1}")

    def one(v):
        return (1, v if isinstance(v, int) else tuple(v)[0])
    out = max_pool2d(input.unsqueeze(-2), one(kernel_size),
                     None if stride is None else one(stride), (0, padding if isinstance(
                         padding, int) else tuple(padding)[0]), one(dilation), ceil_mode,
                     return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def relu(input, inplace=False):
    return input.relu_() if inplace else _relu(input)


def relu_(input):
    """``F.relu(input, inplace=True)``."""
    return input.relu_()


def flatten(input, start_dim=0, end_dim=-1):
    return input.flatten(start_dim, end_dim)


def relu6(input, inplace=False):
    """``min(max(x, 0), 6)`` (hardtanh between 0 and 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def softsign(input):
    """``x / (1 + |x|)``."""
    return input / (1 + input.abs())


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Each value divided by ``(k + alpha * mean of x² over the ``size`` neighbouring
    channels) ** beta`` (the window centred as PyTorch centres it: ``size // 2`` channels
    before, ``(size - 1) // 2`` after, zeros past the edges), as
    ``torch.nn.functional.local_response_norm``."""
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          "
                         f"input (got {input.dim()} dimensions)")
    if input.numel() == 0:
        return input
    c = input.shape[1]
    sq = input.mul(input)
    before, after = size // 2, (size - 1) // 2
    if input.dim() == 3:
        # PyTorch's steps: the channels as a window of (size, 1) for avg_pool2d
        div = constant_pad_nd(sq.unsqueeze(1), (0, 0, before, after))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        # (PyTorch pools a 5-D view with avg_pool3d; the same mean, as a sum of shifts)
        padded = pad(sq, tuple([0, 0] * (input.dim() - 2) + [before, after]))
        total = padded.narrow(1, 0, c)
        for i in range(1, size):
            total = total + padded.narrow(1, i, c)
        div = total / size
    return input / div.mul(alpha).add(k).pow(beta)


def tanhshrink(input):
    """``x - tanh(x)``."""
    return input - input.tanh()


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-x, dim)``; ``dtype`` casts -x first, as PyTorch's ``(-input).softmax(dim,
    dtype=dtype)``."""
    return softmax(-input, dim, dtype=dtype)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Drop whole channels of (N, C, L): one mask value per (n, c)."""
    return _channel_dropout(input, p, training, 3, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Drop whole channels of (N, C, H, W): one mask value per (n, c)."""
    return _channel_dropout(input, p, training, 4, inplace)


def _channel_dropout(input, p, training, ndim, inplace=False):
    if not training or p == 0:
        return input
    from ..ops import factories as Fa
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    shape = tuple(input.shape[:-(ndim - 2)]) + (1,) * (ndim - 2) if input.dim() == ndim \
        else tuple(input.shape[:1]) + (1,) * (input.dim() - 1)
    keep = Fa.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    keep.div_(1 - p)   # drawn as PyTorch's feature dropout draws it
    return input.mul_(keep) if inplace else input * keep


def _softmax_args(input, dim, dtype):
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:  # PyTorch's legacy implicit dim (it warns): 0 for 0-, 1-, 3-D, else 1
        dim = 0 if input.dim() in (0, 1, 3) else 1
    return input, dim


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x) / exp(x).sum(dim)`` (SoftmaxBackward0); ``dtype`` casts the input first."""
    input, dim = _softmax_args(input, dim, dtype)
    return _softmax(input, dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``x - logsumexp(x, dim)`` (LogSoftmaxBackward0); ``dtype`` casts the input first."""
    input, dim = _softmax_args(input, dim, dtype)
    return _log_softmax(input, dim)


# PyTorch's argument parser for these (Note [typed arguments, checked at the door])
softmax = checked_function(softmax, "softmax", (("dim", "int?"),), as_method=True)
log_softmax = checked_function(log_softmax, "log_softmax", (("dim", "int?"),), as_method=True)
linear = checked_function(linear, "linear", (("weight", TENSOR), ("bias", "Tensor?")))
cross_entropy = checked_function(cross_entropy, "cross_entropy_loss", (("target", TENSOR),))
leaky_relu = checked_function(leaky_relu, "leaky_relu", (("negative_slope", NUMBER),
                                                          ("inplace", BOOL)))
one_hot = checked_function(one_hot, "one_hot", (("num_classes", INT),), input_kind=TENSOR)
