"""More of ``torch.nn.functional``: losses, normalisation, embedding, padding modes and
the pooling variants, re-exported by ``viewgrad.nn.functional``.

These are composites of viewgrad ops (their graphs show the pieces: a ``layer_norm``
is a mean, a subtraction, a ``rsqrt``-like pow...), except where an op needs a derivative
of its own, which lives in the derivatives table (``viewgrad/ops/activations.py``).
Values and reductions follow PyTorch's definitions (e.g. ``binary_cross_entropy`` clamps
its logs at -100; ``kl_div`` takes log-probabilities as input).
"""
from __future__ import annotations

import math

from .. import backend as B
from ..autograd.grad_mode import no_grad
from ..ops import factories as Fa
from ..ops.args import check_mixed_dtypes, with_out
from ..ops.conv import constant_pad_nd
from ..ops.elementwise import xlogy
from ..ops.embedding import embedding_rows
from ..ops.group_norm import native_group_norm
from ..ops.layer_norm import layer_norm, rms_norm  # noqa: F401
from ..ops.losses import (binary_cross_entropy, binary_cross_entropy_with_logits,  # noqa: F401
                           huber_loss, smooth_l1_loss)
from ..ops.pointwise import add_scalar, where
from ..ops.pool import MAX_POOL3D, avg_pool2d, given_geometry, last_nan_or, pool_output_size
from ..ops.table import dispatch
from ..ops.vector_norms import NORM_DIM, vector_norm
from ..ops.kernel_refusals import REFUSALS as _CX, refuse as _refuse
from ..tensor import Tensor

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "l1_loss",
           "smooth_l1_loss", "huber_loss", "kl_div", "layer_norm", "rms_norm", "group_norm",
           "normalize",
           "cosine_similarity", "pairwise_distance", "embedding", "one_hot", "pad",
           "avg_pool1d", "max_pool3d", "adaptive_avg_pool1d"]


def _reduce(loss, reduction, name):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def l1_loss(input, target, reduction="mean"):
    """Mean (or sum) absolute error ``|x - t|``."""
    return _reduce((input - target).abs(), reduction, "l1_loss")


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL divergence with ``input`` as log-probabilities: ``t (log t - input)`` (0 where
    t = 0); ``log_target=True`` takes ``target`` as log-probabilities too. Use
    ``reduction='batchmean'`` for the mathematical KL (sum / batch size)."""
    _refuse(_CX["kl_div"], input, target)   # (Note [inputs PyTorch refuses], ops/)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = xlogy(target, target) - target * input   # (ATen's kl_div)
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() else loss.sum()
    return _reduce(loss, reduction, "kl_div")


# -- normalisation, similarity, embedding --------------------------------------------------

def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each group of ``C / num_groups`` channels (with all spatial positions) of
    each sample, then scale and shift per channel: one ``NativeGroupNormBackward0`` node,
    as ``torch.nn.functional.group_norm`` (ops/group_norm.py)."""
    _refuse(_CX["group_norm"], input)   # (Note [inputs PyTorch refuses], ops/)
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    n, c = input.shape[0], input.shape[1]
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    if n * c // num_groups * math.prod(input.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {[n * c // num_groups, num_groups] + list(input.shape[2:])}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number "
                               f"of channels in input, but got {name} of shape "
                               f"{list(t.shape)} and input of shape {list(input.shape)}")
    check_mixed_dtypes(input, weight, bias)
    return native_group_norm(input.contiguous(), weight, bias, num_groups, eps)


def _norm(x, p, dim, keepdim=True):
    # LinalgVectorNormBackward0, as PyTorch's F.normalize records (subgradient 0 at 0)
    return vector_norm(x, p, dim, keepdim)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``x / max(‖x‖_p, eps)`` along ``dim`` (written into ``out`` when given, as
    PyTorch's ``div(..., out=out)``)."""
    return with_out(input / _norm(input, p, dim).clamp_min(eps).expand_as(input), out,
                    "div")


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``sum((x1 / max(‖x1‖, eps)) * (x2 / max(‖x2‖, eps)), dim)``, PyTorch's formula
    step for step: the inputs broadcast (expanded) first, each divided by its norm (kept
    as a dim, cloned, and clamped in place under no_grad: the clamp is not differentiated),
    then the product summed. Its graph, numbers and gradients are PyTorch's."""
    _refuse(_CX["cosine_similarity"], x1, x2)   # (Note [inputs PyTorch refuses], ops/)
    if tuple(x1.shape) != tuple(x2.shape):
        shape = B.checked_broadcast("cosine_similarity", tuple(x1.shape), tuple(x2.shape))
        x1 = x1 if tuple(x1.shape) == shape else x1.expand(shape)
        x2 = x2 if tuple(x2.shape) == shape else x2.expand(shape)
    n1 = _norm(x1, 2, dim, keepdim=True).clone()
    n2 = _norm(x2, 2, dim, keepdim=True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``‖x1 - x2 + eps‖_p`` along the last dim, recorded as PyTorch's C++ composes it:
    SubBackward0, AddBackward1 (the eps, a Scalar), NormBackward1."""
    dim = max(x1.dim(), x2.dim(), 1) - 1
    return dispatch(NORM_DIM, (add_scalar(x1 - x2, eps),), (float(p), (dim,), bool(keepdim)))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` picked by the integer tensor ``input`` (``weight[input]``). Rows
    at ``padding_idx`` get no gradient; ``max_norm`` renormalises the rows used, in place
    (under no_grad), as PyTorch does."""
    if not isinstance(input, Tensor) or input._data.dtype.kind not in "iu":
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"{getattr(input, 'dtype', type(input).__name__)} instead (while "
                           "checking arguments for embedding)")
    if sparse:
        raise ValueError("embedding: sparse gradients are not provided by viewgrad (dense "
                         "gradients only)")
    if max_norm is not None:
        with no_grad():
            rows = weight[input.reshape(-1)]
            norms = _norm(rows, norm_type, -1)
            scale = where(norms > max_norm, max_norm / (norms + 1e-7), Fa.ones_like(norms))
            weight[input.reshape(-1)] = rows * scale
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    return embedding_rows(weight, input, padding_idx, scale_grad_by_freq)


def one_hot(tensor, num_classes=-1):
    """An int64 tensor with one more dim of size ``num_classes`` (default: max + 1), 1 at
    each index."""
    if not isinstance(tensor, Tensor) or tensor._data.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        num_classes = int(tensor.max().item()) + 1 if tensor.numel() else 0
    if tensor.numel() and bool((tensor < 0).any()):
        raise RuntimeError("Class values must be non-negative.")
    if tensor.numel() and int(tensor.max().item()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    classes = Fa.arange(num_classes, device=tensor.device)
    return (tensor.unsqueeze(-1) == classes).to(Fa.B.int64)


# -- padding modes -------------------------------------------------------------------------

def _pad_index(size, left, right, mode):
    idx = []
    if mode == "circular":
        # PyTorch crops first (negative amounts), then wraps around what is left
        lo = max(0, -left)
        kept = size - lo - max(0, -right)
        return [lo + i % kept for i in range(-max(left, 0), kept + max(right, 0))]
    for i in range(-left, size + right):
        if mode == "reflect":
            period = 2 * (size - 1)
            j = i % period if period else 0
            idx.append(j if j < size else period - j)
        else:  # replicate
            idx.append(min(max(i, 0), size - 1))
    return idx


_NON_CONSTANT = ("Supported combinations for non-constant padding:\n"
                 "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                 "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                 "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def pad(input, pad, mode="constant", value=None):
    """Pad the last ``len(pad) // 2`` dims: ``pad=(left, right, top, bottom, ...)``.
    ``mode``: 'constant' (with ``value``), 'reflect' (mirror without the edge),
    'replicate' (repeat the edge) or 'circular' (wrap around). The non-constant modes pad
    1, 2 or 3 dims of an input with one or two dims in front (batch, channels), as
    PyTorch's; 'reflect' and 'replicate' record PyTorch's nodes (ReflectionPad2DBackward0,
    ReplicationPad1DBackward0...), 'circular' is an index gather here."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pad = tuple(int(p) for p in pad)
    # PyTorch's checks (at::pad), in its order and words
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.dim():
        raise RuntimeError(f"Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {input.dim()}")
    if mode == "constant":
        return constant_pad_nd(input, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    npad = len(pad) // 2
    if npad not in (1, 2, 3) or input.dim() not in (npad + 1, npad + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for "
                                  f"{input.dim()}D input tensor.\n" + _NON_CONSTANT)
    shape = list(input.shape)
    if mode != "circular":
        # the batch dim may be empty, no other
        if any(n == 0 for n in shape[1 if input.dim() == npad + 2 else 0:]):
            raise RuntimeError(f"Expected {npad + 1}D or {npad + 2}D (batch mode) tensor with "
                               f"possibly 0 batch size and other non-zero dimensions for "
                               f"input, but got: {shape}")
    # (reflect checks the last dim first, circular the first padded dim first, as PyTorch)
    for i in (range(npad) if mode != "circular" else reversed(range(npad))):
        d = input.dim() - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        size = shape[d]
        if mode == "reflect" and (left >= size or right >= size):
            raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding "
                               f"({left}, {right}) at dimension {d} of input {shape}")
        if mode == "circular":
            if left > size or right > size:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if size + left + right < 0:
                raise RuntimeError("Negative padding value is resulting in an empty "
                                   "dimension")
            if size + left + right and size + min(left, 0) + min(right, 0) <= 0:
                # PyTorch copies the wrap from a part of its output it never wrote
                raise RuntimeError(f"circular padding ({left}, {right}) of dimension {d} of "
                                   f"input {shape} crops it to nothing and then wraps around "
                                   f"it (PyTorch reads uninitialized memory here)")
        elif size + left + right <= 0:
            raise RuntimeError(f"input ({'WHD'[i]}: {size}) is too small. Calculated output "
                               f"{'WHD'[i]}: {size + left + right}")
    if mode != "circular":
        from .functional_cnn import _pad_nd
        return _pad_nd(input, pad, mode)
    out = input
    for i in range(npad):
        d = input.dim() - 1 - i
        index = Fa.tensor(_pad_index(shape[d], pad[2 * i], pad[2 * i + 1], mode),
                          device=input.device, dtype=Fa.B.int64)
        out = out[(slice(None),) * d + (index,)]
    return out


# -- pooling variants ----------------------------------------------------------------------

def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """avg_pool2d on a (N, C, 1, L) view of a (N, C, L) or (C, L) input."""
    _refuse(_CX["avg_pool1d"], input)   # (Note [inputs PyTorch refuses], ops/)

    def one(v):
        return v if isinstance(v, int) else tuple(v)[0]
    k = (1, one(kernel_size))
    s = None if stride is None or (not isinstance(stride, int) and not len(stride)) \
        else (1, one(stride))
    return avg_pool2d(input.unsqueeze(-2), k, s, (0, one(padding)), ceil_mode,
                      count_include_pad).squeeze(-2)


def adaptive_avg_pool1d(input, output_size):
    """adaptive_avg_pool2d on a (N, C, 1, L) view."""
    from ..ops.pool import adaptive_avg_pool2d
    out = output_size if isinstance(output_size, int) else tuple(output_size)[0]
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, out)).squeeze(-2)


def _triple(v, name, message=None):
    """A 3-D pool's argument as three ints; ``message``: the op's own words when not."""
    t = (v,) * 3 if isinstance(v, int) else tuple(int(a) for a in v)
    if len(t) == 1:
        t = t * 3
    if len(t) != 3:
        raise RuntimeError(message or f"max_pool3d: {name} must be a single int or a tuple "
                                      f"of three ints, got {list(t)}")
    return t


def pool3d_args(input, kernel_size, stride, padding, three):
    """A 3-D pool's input as a batch (and whether it was one) and its kernel, stride
    (the kernel's when not given) and padding as three ints each (``three``)."""
    unbatched = input.dim() == 4
    x = input.unsqueeze(0) if unbatched else input
    k = three(kernel_size, "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and not len(stride)) \
        else three(stride, "stride")
    return unbatched, x, k, s, three(padding, "padding")


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W): one
    ``MaxPool3DWithIndicesBackward0`` node, as PyTorch's, which sends the gradient to
    each window's maximum. The maxima are found through views (pad with -inf, ``unfold``
    each spatial dim into windows, argmax over the window), outside the graph.
    ``return_indices`` gives the flat index (d·H·W + h·W + w) of each maximum in its input
    volume, as PyTorch."""
    if input.dim() not in (4, 5):
        raise RuntimeError(f"max_pool3d: Expected 4D (unbatched) or 5D (batched) input, but "
                           f"got input of size: {list(input.shape)}")
    unbatched, x, k, s, p = pool3d_args(input, kernel_size, stride, padding, _triple)
    d = _triple(dilation, "dilation")
    sizes = x.shape[2:]
    ext = [d[i] * (k[i] - 1) + 1 for i in range(3)]
    for i in range(3):
        if p[i] > ext[i] // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel "
                               f"size, but got pad={p[i]}, kernel_size={k[i]} and "
                               f"dilation={d[i]}")
    if any(p[i] > k[i] // 2 for i in range(3)):
        # then max pooling's shape check, against the UNdilated kernel (PyTorch's words)
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but "
                           f"got kT: {k[0]} kW: {k[2]} kH: {k[1]} padT: {p[0]} padW: {p[2]} "
                           f"padH: {p[1]}")
    out = [pool_output_size(sizes[i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(3)]
    if min(out) <= 0:
        raise RuntimeError(f"max_pool3d: Given input size {list(x.shape[1:])}, calculated "
                           f"output size {out} is too small")
    right = [max(0, (out[i] - 1) * s[i] + ext[i] - sizes[i] - p[i]) for i in range(3)]
    with no_grad():   # (only where the maxima are: the node below is the graph)
        index = _max_pool3d_index(x, k, s, p, d, out, right, ext, sizes)
    index = index.squeeze(0) if unbatched else index
    y = dispatch(MAX_POOL3D, (input, index),
                 given_geometry(kernel_size, stride, padding, dilation, ceil_mode, 3))
    return (y, index) if return_indices else y


def _max_pool3d_index(x, k, s, p, d, out, right, ext, sizes):
    """The flat index (d·H·W + h·W + w) of each window's maximum (or its last NaN, as
    PyTorch's kernel takes every NaN it meets) in its input volume."""
    padded = constant_pad_nd(x, (p[2], right[2], p[1], right[1], p[0], right[0]),
                             -math.inf) if any(p) or any(right) else x
    win = padded
    for i in range(3):
        win = win.unfold(2 + i, ext[i], s[i])
    for i in range(3):
        if d[i] > 1:
            win = win[(slice(None),) * (5 + i) + (slice(None, None, d[i]),)]
    win = win[:, :, :out[0], :out[1], :out[2]]
    n, c = x.shape[0], x.shape[1]
    flat = win.reshape(n, c, out[0], out[1], out[2], k[0] * k[1] * k[2])
    fd = flat._data
    local = fd.argmax(-1)
    if fd.dtype.kind == "f":
        local = last_nan_or(B.xp_of(fd), fd, local)
    # window element (a, b, e) of output (od, oh, ow) sits at od*s - p + a*dil in the input;
    # integer index arithmetic on the arrays (indices carry no gradient)
    loc = local.astype(B.int64, copy=False)
    kd, rem = loc // (k[1] * k[2]), loc % (k[1] * k[2])
    kh, kw = rem // k[2], rem % k[2]
    pos = []
    for i, kk in enumerate((kd, kh, kw)):
        shape = [1, 1, 1, 1, 1]
        shape[2 + i] = out[i]
        o = Fa.arange(out[i], device=x.device)._data.reshape(shape)
        pos.append(o * s[i] - p[i] + kk * d[i])
    return Tensor._make((pos[0] * sizes[1] + pos[1]) * sizes[2] + pos[2], x._device)
