"""Pooling: max_pool2d (with indices), avg_pool2d, adaptive_avg_pool2d.

Each is one row of the derivatives table with PyTorch's node name
(``MaxPool2DWithIndicesBackward0``, ``AvgPool2DBackward0``, ``AdaptiveAvgPool2DBackward0``).
Forward windows come from the same im2col view as convolution
(``conv.sliding_windows``). Backward formulas are viewgrad ops, so double backward works:

* max pool: the indices of the maxima are computed first (not differentiable, like
  ``max(dim)``'s indices), the values are a gather, and the gradient is a scatter-add of
  grad into zeros at those indices;
* avg pool: the gradient is grad divided by each window's divisor, spread back over the
  window by a transposed convolution with a kernel of ones;
* adaptive avg pool: each window's mean taken from its own slice, one dim at a time; the
  gradient gathers grad / count from the windows holding each position and adds them.

All work on (N, C, H, W); the public functions also take unbatched (C, H, W) input.
"""
from __future__ import annotations

import itertools
import math

from .. import backend as B
from ..autograd.saved_names import show_as
from ..tensor import Tensor
from .conv import _convolution, _pad_fwd, constant_pad_nd, set_fast_kernels, sliding_windows
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .table import defop, dispatch

__all__ = ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "pool_output_size"]

_xp = B.xp_of


def pool_output_size(size, kernel, stride, padding, dilation, ceil_mode):
    """PyTorch's pooling_output_shape: with ceil_mode, the last window must still start
    inside the input or its left padding."""
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    return out


def _padded_windows(x, kernel, stride, padding, dilation, out, value):
    """Windows (N, C, oh, ow, kh, kw) of x padded with ``value`` on the left by ``padding``
    and on the right as far as the last window reaches."""
    right = [max(0, (out[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1
                 - (x.shape[2 + i] + padding[i])) for i in range(2)]
    # right side: as far as the last window reaches (the symmetric padding, or more with
    # ceil_mode, or less when the windows stop short of it)
    pad = (padding[1], right[1], padding[0], right[0])
    xpad = _pad_fwd(x, pad, value) if any(pad) else x
    win = sliding_windows(xpad, kernel, stride, dilation)
    return win[:, :, :out[0], :out[1]]


# -- max pool ------------------------------------------------------------------------------

def last_nan_or(xp, flat, am):
    """``am`` (positions along the last axis of ``flat``), except where a row has a NaN:
    there its last NaN's position (PyTorch's max pools take every NaN they meet)."""
    if type(flat) is B.HOST_ARRAY and type(am) is B.HOST_ARRAY:
        # NumPy's argmax answers a row's first NaN: where the maxima read are not NaN,
        # no row has one, and the whole-window NaN pass is skipped
        if not xp.isnan(xp.take_along_axis(flat, am[..., None], axis=-1)).any():
            return am
    nan = xp.isnan(flat)
    k = flat.shape[-1]
    return xp.where(nan.any(axis=-1), k - 1 - nan[..., ::-1].argmax(axis=-1), am)


def _max_pool_indices(x, kernel, stride, padding, dilation, out):
    """Flat index (h * W + w) into each input plane of every window's maximum (the first
    one on ties, as PyTorch; NaN wins, as NaN propagates: the window's last NaN, as
    PyTorch's kernel, which takes every NaN it meets)."""
    xp = _xp(x)
    n, c, h, w = x.shape
    fill = -float("inf") if x.dtype.kind == "f" else xp.iinfo(x.dtype).min
    win = _padded_windows(x, kernel, stride, padding, dilation, out, fill)
    flat = win.reshape(n, c, out[0], out[1], kernel[0] * kernel[1])
    am = flat.argmax(axis=-1)
    if x.dtype.kind == "f":
        am = last_nan_or(xp, flat, am)
    ki, kj = am // kernel[1], am % kernel[1]
    rows = xp.arange(out[0], dtype=B.int64).reshape(-1, 1) * stride[0] - padding[0]
    cols = xp.arange(out[1], dtype=B.int64).reshape(1, -1) * stride[1] - padding[1]
    return ((rows + ki * dilation[0]) * w + (cols + kj * dilation[1])).astype(B.int64)


# (the planes are the last two dims, or the volumes the last three; whatever leads them,
# (N, C) or an unbatched (C,), is flattened into one dim of planes)

def _gather_max(self, indices, nsp):
    xp = _xp(self)
    planes = math.prod(self.shape[:-nsp])   # (a count, not -1: an empty batch)
    flat = self.reshape(planes, math.prod(self.shape[-nsp:]))
    return xp.take_along_axis(flat, indices.reshape(planes, math.prod(indices.shape[-nsp:])),
                              axis=1).reshape(indices.shape)


def _scatter_max_grad(grad, indices, self_shape, nsp):
    from .factories import zeros
    planes = math.prod(self_shape[:-nsp])
    z = zeros((planes, math.prod(self_shape[-nsp:])), dtype=grad.dtype, device=grad.device)
    per = math.prod(indices.shape[-nsp:])   # (not -1: an empty batch)
    return z.scatter_add(1, indices.reshape(planes, per), grad.reshape(planes, per)).view(
        self_shape)


def _scatter_max_grad_arrays(grad, indices, self_shape, nsp):
    # overlapping windows may pick one element twice: accumulate with bincount over
    # plane-offset flat indices (one pass, no Python loop)
    xp = _xp(grad)
    plane = math.prod(self_shape[-nsp:])
    planes = math.prod(self_shape[:-nsp])
    offs = (xp.arange(planes, dtype=B.int64) * plane).reshape(planes, 1)
    per = math.prod(indices.shape[-nsp:])   # (not -1: an empty batch)
    flat = xp.bincount((indices.reshape(planes, per) + offs).reshape(-1),
                       weights=grad.reshape(-1), minlength=planes * plane)
    return flat.astype(grad.dtype, copy=False).reshape(self_shape)


def _max_pool_fwd(self, result1, *geometry):
    return _gather_max(self, result1, 2)


# The rows save what PyTorch's nodes save, by its names: the input (unused by the gradient,
# but version-checked: modifying the input in place after pooling makes backward fail, as
# there), the indices of the maxima as ``result1`` (PyTorch's second output), and for
# max_pool the geometry as the call gave it (``_saved_stride`` is () when none was given)
def _max_pool_bwd(grad, self, result1):
    return _scatter_max_grad(grad, result1, tuple(self.shape), 2)


def _max_pool_bwd_arrays(grad, self, result1):  # self: unpacked = checked
    return _scatter_max_grad_arrays(grad, result1, self.shape, 2)


def _max_pool3d_fwd(self, result1, *geometry):
    return _gather_max(self, result1, 3)


def _max_pool3d_bwd(grad, self, result1):
    return _scatter_max_grad(grad, result1, tuple(self.shape), 3)


def _max_pool3d_bwd_arrays(grad, self, result1):
    return _scatter_max_grad_arrays(grad, result1, self.shape, 3)


def _with_geometry(bwd):
    """A max_pool row's formula: ``bwd``, taking (and so saving) the pooling geometry."""
    def formula(grad, self, result1, kernel_size, stride, padding, dilation, ceil_mode):
        return bwd(grad, self, result1)
    return formula


_GEOMETRY = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")
MAX_POOL2D = defop("max_pool2d_with_indices", "MaxPool2DWithIndicesBackward0", _max_pool_fwd,
                   inputs=("self", "result1"), attrs=_GEOMETRY,
                   self=_with_geometry(_max_pool_bwd))
set_fast_kernels(MAX_POOL2D, self=_max_pool_bwd_arrays)
MAX_POOL3D = defop("max_pool3d_with_indices", "MaxPool3DWithIndicesBackward0",
                   _max_pool3d_fwd, inputs=("self", "result1"), attrs=_GEOMETRY,
                   self=_with_geometry(_max_pool3d_bwd))
set_fast_kernels(MAX_POOL3D, self=_max_pool3d_bwd_arrays)
# adaptive max pooling: the same gather by indices and the same scatter back, PyTorch's
# AdaptiveMaxPool2DBackward0 and AdaptiveMaxPool3DBackward0 (saving the input and the
# indices)
ADAPTIVE_MAX_POOL2D = defop("adaptive_max_pool2d", "AdaptiveMaxPool2DBackward0",
                            _max_pool_fwd, inputs=("self", "result1"), self=_max_pool_bwd)
set_fast_kernels(ADAPTIVE_MAX_POOL2D, self=_max_pool_bwd_arrays)
ADAPTIVE_MAX_POOL3D = defop("adaptive_max_pool3d", "AdaptiveMaxPool3DBackward0",
                            _max_pool3d_fwd, inputs=("self", "result1"), self=_max_pool3d_bwd)
set_fast_kernels(ADAPTIVE_MAX_POOL3D, self=_max_pool3d_bwd_arrays)


def given_geometry(kernel, stride, padding, dilation, ceil_mode, n):
    """The geometry as PyTorch's max_pool node saves it: each argument as ``n`` ints (an
    int given once is repeated), the stride () when none was given."""
    def ints(v):
        return tuple(int(e) for e in v) if isinstance(v, (tuple, list)) else (int(v),) * n
    no_stride = stride is None or (isinstance(stride, (tuple, list)) and not len(stride))
    return (ints(kernel), () if no_stride else ints(stride), ints(padding), ints(dilation),
            bool(ceil_mode))


def _adaptive_windows(in_size, out_size):
    """PyTorch's adaptive windows along one dim: output i reads
    ``[floor(i * in / out), ceil((i + 1) * in / out))``."""
    return [((i * in_size) // out_size, -((-(i + 1) * in_size) // out_size))
            for i in range(out_size)]


def adaptive_max_indices(x, *out):
    """The flat index (h * W + w in a plane; d * H * W + h * W + w in a volume) of each
    adaptive window's maximum over the last ``len(out)`` dims, as PyTorch's CPU kernel
    picks it: the first maximum, or the last NaN if there is one."""
    xp = _xp(x)
    nsp = len(out)
    lead, sizes = x.shape[:-nsp], x.shape[-nsp:]
    idx = xp.empty(lead + tuple(out), dtype=B.int64)
    if not idx.size:
        return idx
    windows = [_adaptive_windows(sizes[i], out[i]) for i in range(nsp)]
    for pos in itertools.product(*(range(o) for o in out)):
        box = [windows[i][p] for i, p in enumerate(pos)]
        win = x[(Ellipsis,) + tuple(slice(a, b) for a, b in box)].reshape(lead + (-1,))
        k = win.argmax(axis=-1)
        if x.dtype.kind == "f":
            k = last_nan_or(xp, win, k)
        flat = 0   # the window's element k, as a flat index into the plane or volume
        for i, (a, b) in enumerate(box):
            inner = math.prod(b2 - a2 for a2, b2 in box[i + 1:])
            flat = flat * sizes[i] + a + (k // inner) % (b - a)
        idx[(Ellipsis,) + pos] = flat
    return idx


def _pair(v, name, fn):
    if isinstance(v, int):
        return (v, v)
    try:
        t = tuple(int(a) for a in v)
    except TypeError:
        raise TypeError(f"{fn}: {name} must be an int or a pair of ints, got {v!r}") from None
    if len(t) == 1:
        return t * 2
    if len(t) != 2:
        raise RuntimeError(f"{fn}: {name} must either be a single int, or a tuple of two ints, "
                           f"got {name}={list(t)}")
    return t


def _batched(input, fn):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dim() not in (3, 4):
        raise RuntimeError(f"{fn}: Expected 3D (unbatched) or 4D (batched) input, but got "
                           f"input of size: {list(input.shape)}")
    return (input.unsqueeze(0), True) if input.dim() == 3 else (input, False)


def _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode, fn):
    kernel = _pair(kernel_size, "kernel_size", fn)
    stride = kernel if stride is None or (not isinstance(stride, int) and not len(stride)) \
        else _pair(stride, "stride", fn)
    padding = _pair(padding, "padding", fn)
    dilation = _pair(dilation, "dilation", fn)
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"{fn}: kernel_size must be greater than zero, but got "
                           f"kernel_size={list(kernel)}")
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"{fn}: stride must be greater than zero, but got "
                           f"stride={list(stride)}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"{fn}: dilation must be greater than zero, but got "
                           f"dilation={list(dilation)}")
    for i in range(2):
        eff = dilation[i] * (kernel[i] - 1) + 1
        if padding[i] < 0 or padding[i] > eff // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got "
                f"pad={padding[i]}, kernel_size={kernel[i]} and dilation={dilation[i]}")
    if fn == "max_pool2d" and (padding[0] > kernel[0] // 2 or padding[1] > kernel[1] // 2):
        # max pooling's shape check then compares the padding with the UNdilated kernel
        # (so padding 2 with kernel 3 is refused even at dilation 2), in its own words
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but "
                           f"got padW = {padding[1]}, padH = {padding[0]}, kW = {kernel[1]}, "
                           f"kH = {kernel[0]}")
    h, w = x.shape[2:]
    out = tuple(pool_output_size(x.shape[2 + i], kernel[i], stride[i], padding[i],
                                 dilation[i], ceil_mode) for i in range(2))
    if out[0] <= 0 or out[1] <= 0:
        raise RuntimeError(
            f"{fn}: Given input size: ({x.shape[1]}x{h}x{w}). Calculated output size: "
            f"({x.shape[1]}x{out[0]}x{out[1]}). Output size is too small (kernel_size "
            f"{list(kernel)}, stride {list(stride)}, padding {list(padding)}, dilation "
            f"{list(dilation)})")
    return kernel, stride, padding, dilation, out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-D max pooling over (N, C, H, W) or (C, H, W); ``return_indices`` also gives the flat
    index (h * W + w) of each maximum within its input plane."""
    x, unbatched = _batched(input, "max_pool2d")
    _refuse(_CX["max_pool2d"], input)   # Note [inputs PyTorch refuses]
    given = (kernel_size, stride, padding, dilation, ceil_mode)
    kernel, stride, padding, dilation, out = _pool_geometry(
        x, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    idx = _max_pool_indices(x._data, kernel, stride, padding, dilation, out)
    # an unbatched input is pooled as it is (one node on it, as PyTorch's)
    idx = Tensor._make(idx[0] if unbatched else idx, x._device)
    y = dispatch(MAX_POOL2D, (input, idx), given_geometry(*given, 2))
    return (y, idx) if return_indices else y


# -- average pool --------------------------------------------------------------------------

def _avg_divisor(xp, dtype, size, kernel, stride, padding, out, count_include_pad,
                 divisor_override):
    """(oh, ow) divisors, PyTorch's rule: windows clipped to the padded input; without
    count_include_pad, clipped to the input itself."""
    if divisor_override:
        return xp.full(tuple(out), float(divisor_override), dtype=dtype)
    per_dim = []
    for i in range(2):
        start = xp.arange(out[i]) * stride[i] - padding[i]
        end = xp.minimum(start + kernel[i], size[i] + padding[i])
        if not count_include_pad:
            start = xp.maximum(start, 0)
            end = xp.minimum(end, size[i])
        per_dim.append(end - start)
    return (per_dim[0].reshape(-1, 1) * per_dim[1].reshape(1, -1)).astype(dtype)


def _avg_fwd(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    xp = _xp(self)
    kernel = kernel_size
    out = tuple(pool_output_size(self.shape[2 + i], kernel[i], stride[i], padding[i], 1,
                                 ceil_mode) for i in range(2))
    win = _padded_windows(self, kernel, stride, padding, (1, 1), out, 0)
    div = _avg_divisor(xp, self.dtype, self.shape[2:], kernel, stride, padding, out,
                       count_include_pad, divisor_override)
    return B.array_sum(win, (-2, -1)) / div   # (Note [warnings from NumPy's own Python])


def _avg_bwd(grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
             divisor_override):
    # (self is saved, as PyTorch's AvgPool2DBackward0 saves it; only its shape is needed)
    from .factories import ones
    self_shape = tuple(self.shape)
    kernel = kernel_size
    n, c, h, w = self_shape
    out = tuple(grad.shape[2:])
    div = Tensor._make(_avg_divisor(grad._device.xp, grad.dtype, (h, w), kernel, stride,
                                    padding, out, count_include_pad, divisor_override),
                       grad._device)
    g = (grad / div).reshape(n * c, 1, out[0], out[1])
    k = ones((1, 1) + tuple(kernel), dtype=grad.dtype, device=grad.device)
    # spread each output's share over its window (in padded coordinates) ...
    full = _convolution(g, k, None, stride, (0, 0), (1, 1), True, (0, 0), 1)
    # ... then drop the padding on the left and fit the right edge to the input
    full = constant_pad_nd(full, (-padding[1], w + padding[1] - full.shape[3],
                                  -padding[0], h + padding[0] - full.shape[2]))
    return full.reshape(self_shape)


AVG_POOL2D = defop("avg_pool2d", "AvgPool2DBackward0", _avg_fwd,
                   attrs=("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                          "divisor_override"),
                   self=_avg_bwd)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-D average pooling over (N, C, H, W) or (C, H, W)."""
    x, unbatched = _batched(input, "avg_pool2d")
    if x._data.dtype.kind != "f":
        raise RuntimeError(f"avg_pool2d: expected a floating point input, got "
                           f"{B.dtype_name(x.dtype)}")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("avg_pool2d: divisor must be not zero")
    no_stride = stride is None or (isinstance(stride, (tuple, list)) and not len(stride))
    kernel, stride, padding, _, _ = _pool_geometry(x, kernel_size, stride, padding, 1,
                                                   ceil_mode, "avg_pool2d")
    y = dispatch(AVG_POOL2D, (x,), (kernel, stride, padding, bool(ceil_mode),
                                    bool(count_include_pad), divisor_override))
    if no_stride:   # (PyTorch's node keeps the stride as given: Note [dims as given])
        show_as(y, "stride", ())
    return y.squeeze(0) if unbatched else y


# -- adaptive average pool ------------------------------------------------------------------

def _window_means(xp, a, axis, out):
    """Each adaptive window's mean along ``axis``, summing only that window's own
    elements (an averaging matrix would multiply the other windows' elements by 0, and
    0 * inf is NaN: an inf would leak into its neighbours, which PyTorch's per-window
    loop never does)."""
    a = xp.moveaxis(a, axis, -1)
    y = xp.empty(a.shape[:-1] + (out,), dtype=a.dtype)
    for i, (start, end) in enumerate(_adaptive_windows(a.shape[-1], out)):
        y[..., i] = B.array_sum(a[..., start:end], -1) / (end - start)   # (Note [warnings
        # from NumPy's own Python])
    return xp.moveaxis(y, -1, axis)


def _adaptive_fwd(self, output_size):
    xp = _xp(self)
    y = _window_means(xp, self, 2, output_size[0])
    return xp.ascontiguousarray(_window_means(xp, y, 3, output_size[1]))


def _spread_back(grad, dim, size):
    """The adjoint of ``_window_means`` along ``dim`` as viewgrad ops (so double backward
    works): each input position sums grad / count over the windows that contain it. It
    gathers those windows' rows (padded with a row of zeros up to the largest number of
    windows sharing a position) and adds them, so, as in PyTorch's backward loop, an inf
    in one window's gradient never reaches positions outside that window."""
    out = grad.shape[dim]
    windows = _adaptive_windows(size, out)
    counts = [float(end - start) for start, end in windows]
    shape = [1] * grad.dim()
    shape[dim] = out
    scaled = grad / Tensor._make(_xp(grad._data).asarray(counts, dtype=grad.dtype)
                                 .reshape(shape), grad._device)
    members = [[i for i, (start, end) in enumerate(windows) if start <= j < end]
               for j in range(size)]
    m = max(len(w) for w in members)
    flat = [w[k] if k < len(w) else out for w in members for k in range(m)]   # out: zeros
    zshape = list(grad.shape)
    zshape[dim] = 1
    from .factories import zeros
    from .joining import cat
    padded = cat([scaled, zeros(zshape, dtype=grad.dtype, device=grad.device)], dim)
    idx = Tensor._make(_xp(grad._data).asarray(flat, dtype=B.int64), grad._device)
    g = padded.index_select(dim, idx)
    gshape = list(grad.shape)
    gshape[dim:dim + 1] = [size, m]
    return g.reshape(gshape).sum(dim + 1)


def _adaptive_bwd(grad, self, _self_shape, _output_size):
    # (self is saved, as PyTorch saves it; the map itself only needs the shape, which
    # PyTorch's node reads off self: Note [hidden saved values])
    return _spread_back(_spread_back(grad, 3, _self_shape[3]), 2, _self_shape[2])


ADAPTIVE_AVG_POOL2D = defop("adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", _adaptive_fwd,
                            attrs=("_output_size",), self=_adaptive_bwd)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed output size (an int, or a pair; None keeps that dim)."""
    if not isinstance(input, Tensor) or input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(input.shape) if isinstance(input, Tensor) else input!r}")
    x, unbatched = (input.unsqueeze(0), True) if input.dim() == 3 else (input, False)
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    output_size = tuple(x.shape[2 + i] if s is None else int(s)
                        for i, s in enumerate(output_size))
    if len(output_size) != 2 or any(s <= 0 for s in output_size):
        raise RuntimeError(f"adaptive_avg_pool2d: output_size must be 2 positive ints, got "
                           f"{list(output_size)}")
    if any(d == 0 for d in x.shape[2:]):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected input to have non-zero size for "
                           f"non-batch dimensions, but input has sizes {list(input.shape)}")
    if output_size == (1, 1):
        # PyTorch's own shortcut: a 1x1 output is the mean over the last two dims (its
        # graph is MeanBackward1, which saves no input: modifying the input after this
        # is fine there, and here)
        return input.mean((-1, -2), keepdim=True)
    y = dispatch(ADAPTIVE_AVG_POOL2D, (x,), (output_size,))
    return y.squeeze(0) if unbatched else y
