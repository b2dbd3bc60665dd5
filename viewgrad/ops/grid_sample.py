"""grid_sample and affine_grid, as ``torch.nn.functional``'s (spatial transformers).

``grid_sample(input, grid)`` reads ``input`` (N, C, H, W) — or (N, C, D, H, W) — at the
points of ``grid`` (N, Ho, Wo, 2) — or (N, Do, Ho, Wo, 3) — whose last axis holds (x, y[,
z]) in [-1, 1]: x walks W, y walks H, z walks D. One row of the derivatives table per rank,
with PyTorch's node names (``GridSampler2DBackward0``, ``GridSampler3DBackward0``), saving
the input and the grid as PyTorch does.

Every mode is one computation over TAPS, the input elements a point reads::

    out[n, c, p] = sum_k W[n, p, k] * input[n, c, idx[n, p, k]]

nearest has one tap (weight 1), bilinear 2 per dim (weights 1 - t and t at the fractional
position t), bicubic 4 per dim (the cubic convolution coefficients, A = -0.75). A tap
outside the input reads 0 (with 'border' and 'reflection' only the neighbour past the last
pixel, whose weight is 0 there). The weights of a point are a product of one factor per
dim, so the gradients are:

* input: grad times each tap's weight, scatter-added at the taps (``scatter_add``);
* grid: sum over taps of grad * input value * d W / d t * d t / d grid — d W / d t is the
  factors' derivative along that dim, d t / d grid the slope of the source-coordinate map.

That map (unnormalize, then clip for 'border' or reflect-and-clip for 'reflection') is
piecewise linear, so around the sampled point it IS its tangent: the backward formulas
write the position as ``t0 + (g - g0) * slope`` (the same number as t0, with the slope as
derivative). They are viewgrad expressions in the grid, so double backward works, as
PyTorch's GridSampler2DBackwardBackward0 does. Nearest's grid gradient is zero, as there.

Two PyTorch kernels, two arithmetics: a 4-D input goes through PyTorch's vectorized CPU
kernel (GridSamplerKernel.cpp), a 5-D one through the scalar kernel (GridSampler.h); they
unnormalize, reflect and clip NaN with different float expressions, which decides floor and
round (half to even) at exact pixel boundaries, so both are followed here (``vec``).

``affine_grid(theta, size)`` is PyTorch's ``affine_grid_generator``: a base grid of pixel
positions times theta^T, one node (``AffineGridGeneratorBackward0``) whose gradient is
base^T @ grad.
"""
from __future__ import annotations

import math
import warnings

from .. import backend as B
from ..tensor import Tensor
from .args import torch_type_name
from .table import defop, dispatch

__all__ = ["grid_sample", "affine_grid"]

_xp = B.xp_of
_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
_BILINEAR, _NEAREST, _BICUBIC = 0, 1, 2
_ZEROS, _BORDER = 0, 1
_A = -0.75   # the cubic convolution constant (PyTorch's, as its bicubic upsampling's)

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                  "old behavior is desired. See the documentation of grid_sample for details.")


# -- source coordinates (arrays) ----------------------------------------------------------

def _unnormalize(g, size, align, vec):
    """[-1, 1] to pixel coordinates: to the corner pixels' centres with align_corners, to
    their outer edges (-0.5, size - 0.5) without."""
    if vec:   # GridSamplerKernel.cpp's ComputeLocationBase
        return (g + 1) * ((size - 1) / 2) if align else (g + 1) * (size / 2) - 0.5
    return ((g + 1) / 2) * (size - 1) if align else ((g + 1) * size - 1) / 2


def _clip(xp, c, size, vec):
    """Clip to [0, size - 1]. NaN: the vectorized kernel clips it to 0 (its clamp operands
    are in that order on purpose), the scalar one's std::min/std::max to size - 1."""
    if vec:
        return xp.minimum(xp.fmax(c, 0), size - 1)
    return xp.fmin(xp.maximum(c, 0), size - 1)


def _inside(c, size):
    """d clip / d c: 1 strictly inside (0, size - 1), 0 on or past the borders (PyTorch
    counts the borders as out, which its gradients rely on)."""
    return ~((c <= 0) | (c >= size - 1))


def _reflect(xp, c, size, align, vec):
    """Reflect by the borders (the corner pixels' centres with align_corners, their edges
    without) until inside; and d reflected / d c (+1 or -1)."""
    if align and size <= 1:
        zero = xp.zeros_like(c)
        return zero, zero
    low = 0.0 if align else -0.5
    d = c - low
    neg = d < 0
    a = xp.abs(d)
    if vec:   # the vectorized kernel: whole double flips off, then one more if past half
        twice_span = 2 * (size - 1) if align else 2 * size
        extra = a - xp.trunc(a / twice_span) * twice_span
        flipped = twice_span - extra
        odd = extra > flipped
        out = xp.minimum(extra, flipped) + low
    else:     # the scalar kernel: fmod by the span, odd flips read backwards
        span = float(size - 1) if align else float(size)
        extra = xp.fmod(a, span)
        odd = xp.fmod(xp.floor(a / span), 2) == 1
        out = xp.where(odd, span - extra + low, extra + low)
    return out, xp.where(odd ^ neg, -1, 1).astype(c.dtype)


def _pad(xp, c, size, padding, align, vec):
    """PyTorch's compute_coordinates: pixel coordinates moved inside by the padding mode
    (zeros: as they are), with the slope of that map."""
    if padding == _ZEROS:
        return c, None
    if padding == _BORDER:
        return _clip(xp, c, size, vec), _inside(c, size)
    r, sign = _reflect(xp, c, size, align, vec)
    return _clip(xp, r, size, vec), sign * _inside(r, size)


def _dim_taps(xp, g, size, mode, padding, align, vec):
    """Along one dim, for grid values g (N, P): the taps' positions (N, P, m), the
    fractional position t (N, P) and d t / d g (N, P)."""
    scale = (size - 1) / 2 if align else size / 2
    c = _unnormalize(g, size, align, vec)
    if mode == _BICUBIC:
        # the taps around the unpadded coordinate; the padding moves each tap inside
        # (PyTorch's get_value_bounded), so only the coefficients depend on the grid
        f = xp.floor(c)
        pos, _ = _pad(xp, f[..., None] + xp.arange(-1, 3, dtype=c.dtype), size, padding,
                      align, vec)
        return pos, c - f, xp.full(c.shape, scale, dtype=c.dtype)
    c, inside = _pad(xp, c, size, padding, align, vec)
    slope = xp.full(c.shape, scale, dtype=c.dtype) if inside is None else inside * scale
    if mode == _NEAREST:
        return xp.rint(c)[..., None], None, None   # rint: half to even, as PyTorch's round
    f = xp.floor(c)
    return f[..., None] + xp.arange(2, dtype=c.dtype), c - f, slope.astype(c.dtype)


def _taps(grid, sizes, mode, padding, align):
    """All dims' taps of every grid point: ``idx`` (N, P, K) flat indices into an input
    plane, ``valid`` (N, P, K) where the tap is inside the input, and per input dim (D, H,
    W order) the fractional positions and slopes."""
    xp = _xp(grid)
    nd = len(sizes)
    g = grid.reshape(grid.shape[0], math.prod(grid.shape[1:-1]), nd)
    idx = valid = None
    ts, slopes = [], []
    for d, size in enumerate(sizes):
        pos, t, slope = _dim_taps(xp, g[..., nd - 1 - d], size, mode, padding, align, nd == 2)
        ts.append(t)
        slopes.append(slope)
        ok = (pos > -1) & (pos < size)           # (also False for NaN)
        pos = xp.where(ok, pos, 0).astype(B.int64)
        stride = math.prod(sizes[d + 1:])
        idx = pos * stride if idx is None else (idx[..., None] + pos[..., None, :] * stride)
        valid = ok if valid is None else (valid[..., None] & ok[..., None, :])
        k = pos.shape[-1] ** (d + 1)   # taps so far
        idx, valid = idx.reshape(g.shape[:2] + (k,)), valid.reshape(g.shape[:2] + (k,))
    return idx, valid, ts, slopes


# -- interpolation weights (arrays and Tensors alike) ---------------------------------------

def _factors(t, mode):
    """The taps' 1-D weights at fractional position t."""
    if mode == _BILINEAR:
        return [1 - t, t]
    u, v, w = t + 1, 1 - t, 2 - t   # the taps' distances: 1 < u, w < 2; t, v <= 1
    return [((_A * u - 5 * _A) * u + 8 * _A) * u - 4 * _A,
            ((_A + 2) * t - (_A + 3)) * t * t + 1,
            ((_A + 2) * v - (_A + 3)) * v * v + 1,
            ((_A * w - 5 * _A) * w + 8 * _A) * w - 4 * _A]


def _dfactors(t, mode):
    """d factors / d t (bilinear: the constants -1 and 1, as multipliers of t**0)."""
    if mode == _BILINEAR:
        return [_full_like(t, -1.0), _full_like(t, 1.0)]
    u, v, w = t + 1, 1 - t, 2 - t
    return [(3 * _A * u - 10 * _A) * u + 8 * _A,
            (3 * (_A + 2) * t - 2 * (_A + 3)) * t,
            -(3 * (_A + 2) * v - 2 * (_A + 3)) * v,
            -((3 * _A * w - 10 * _A) * w + 8 * _A)]


def _full_like(t, v):
    if isinstance(t, Tensor):
        return t.new_full(tuple(t.shape), v)
    return _xp(t).full(t.shape, v, dtype=t.dtype)


def _outer(per_dim):
    """The product over dims of each dim's tap factors (N, P, m): (N, P, m ** nd), the
    first dim's taps outermost (PyTorch's order: nw, ne, sw, se)."""
    nd = len(per_dim)
    out = None
    for d, f in enumerate(per_dim):
        f = f.reshape(tuple(f.shape[:2]) + (1,) * d + (f.shape[2],) + (1,) * (nd - 1 - d))
        out = f if out is None else out * f
    return out.reshape(tuple(out.shape[:2]) + (math.prod(out.shape[2:]),))


# -- the rows --------------------------------------------------------------------------------

def _plane_taps(input, grid, mode, padding, align):
    return _taps(grid, tuple(input.shape[2:]), mode, padding, align)


def _gather_arrays(xp, input, idx, valid):
    n, c = input.shape[:2]
    pk = idx.shape[1] * idx.shape[2]
    flat = input.reshape(n, c, math.prod(input.shape[2:]))
    k = xp.broadcast_to(idx.reshape(n, 1, pk), (n, c, pk))
    vals = xp.take_along_axis(flat, k, axis=2).reshape((n, c) + idx.shape[1:])
    return xp.where(valid[:, None], vals, 0)


def _sampler_fwd(input, grid, interpolation_mode, padding_mode, align_corners):
    xp = _xp(input)
    idx, valid, ts, _ = _plane_taps(input, grid, interpolation_mode, padding_mode,
                                    align_corners)
    vals = _gather_arrays(xp, input, idx, valid)
    if interpolation_mode == _NEAREST:
        out = vals[..., 0]
    else:
        w = _outer([xp.stack(_factors(t, interpolation_mode), axis=-1) for t in ts])
        terms = vals * w[:, None]
        if len(ts) == 3:
            # the scalar kernel skips a tap outside the input (the vectorized one adds its 0
            # times the weight, NaN for a NaN point)
            terms = xp.where(valid[:, None], terms, 0)
        out = terms.sum(axis=-1)
    return xp.ascontiguousarray(out.reshape(input.shape[:2] + grid.shape[1:-1]))


def _positions(grid, ts, slopes):
    """Each dim's fractional position as a Tensor of the grid: ``t0 + (g - g0) * slope``
    (the map is its tangent around the point: the value is t0, the derivative the slope)."""
    nd = len(ts)
    g = grid.reshape(grid.shape[0], math.prod(grid.shape[1:-1]), nd)
    dev = grid._device
    out = []
    for d in range(nd):
        gd = g[..., nd - 1 - d]
        out.append((gd - gd.detach()) * Tensor._make(slopes[d], dev)
                   + Tensor._make(ts[d], dev))
    return out


def _weights(grid, ts, slopes, mode, wrt=None):
    """The taps' weights W (N, P, K) as Tensors of the grid, or with ``wrt=d`` their
    derivative along input dim d with respect to the grid's matching component."""
    from .joining import stack
    pos = _positions(grid, ts, slopes)
    per_dim = []
    for d, t in enumerate(pos):
        f = _dfactors(t, mode) if d == wrt else _factors(t, mode)
        f = stack(f, -1)
        per_dim.append(f * Tensor._make(slopes[d], grid._device).unsqueeze(-1)
                       if d == wrt else f)
    return _outer(per_dim)


def _tensor(a, dev):
    return Tensor._make(a, dev)


def _input_bwd(grad, input, grid, interpolation_mode, padding_mode, align_corners):
    # (input is saved, as PyTorch's node saves it; only its shape is needed here)
    from .factories import zeros
    from .where import where
    mode = interpolation_mode
    idx, valid, ts, slopes = _plane_taps(input._data, grid._data, mode, padding_mode,
                                         align_corners)
    n, c = input.shape[:2]
    p, k = idx.shape[1:]
    dev = grad._device
    g = grad.reshape(n, c, p, 1)
    if mode == _NEAREST:
        contrib = g.expand(n, c, p, k)
    else:
        contrib = g * _weights(grid, ts, slopes, mode).unsqueeze(1)
    # a tap outside the input reads 0: it gets nothing back (its index is a stand-in 0)
    contrib = where(_tensor(valid[:, None], dev), contrib, 0)
    index = _tensor(idx.reshape(n, 1, p * k), dev).expand(n, c, p * k)
    out = zeros((n, c, math.prod(input.shape[2:])), dtype=grad.dtype, device=grad.device)
    return out.scatter_add(2, index, contrib.reshape(n, c, p * k)).reshape(input.shape)


def _grid_bwd(grad, input, grid, interpolation_mode, padding_mode, align_corners):
    from .joining import stack
    from .where import where
    mode = interpolation_mode
    if mode == _NEAREST:   # piecewise constant in the grid: PyTorch's zeros
        return grad.new_zeros(grid.shape)
    idx, valid, ts, slopes = _plane_taps(input._data, grid._data, mode, padding_mode,
                                         align_corners)
    n, c = input.shape[:2]
    p, k = idx.shape[1:]
    dev = grad._device
    index = _tensor(idx.reshape(n, 1, p * k), dev).expand(n, c, p * k)
    vals = input.reshape(n, c, math.prod(input.shape[2:])).gather(2, index).reshape(n, c, p, k)
    vals = where(_tensor(valid[:, None], dev), vals, 0)
    s = (grad.reshape(n, c, p, 1) * vals).sum(1)            # (N, P, K): grad . value
    nd = grid.shape[-1]
    comps = [(s * _weights(grid, ts, slopes, mode, wrt=nd - 1 - j)).sum(-1)
             for j in range(nd)]                             # x, y[, z]
    return stack(comps, -1).reshape(grid.shape)


# plain backward on arrays (no graph): the same sums, the scatter as one bincount
def _input_bwd_arrays(grad, input, grid, interpolation_mode, padding_mode, align_corners):
    xp = _xp(grad)
    mode = interpolation_mode
    idx, valid, ts, _ = _plane_taps(input, grid, mode, padding_mode, align_corners)
    n, c = input.shape[:2]
    plane = math.prod(input.shape[2:])
    g = grad.reshape(n, c, idx.shape[1], 1)
    if mode != _NEAREST:
        g = g * _outer([xp.stack(_factors(t, mode), axis=-1) for t in ts])[:, None]
    contrib = xp.where(valid[:, None], g, 0)
    offs = xp.arange(n * c, dtype=B.int64).reshape(n, c, 1, 1) * plane
    flat = xp.bincount((idx[:, None] + offs).reshape(-1),
                       weights=xp.broadcast_to(contrib, offs.shape[:2] + idx.shape[1:])
                       .reshape(-1), minlength=n * c * plane)
    return flat.astype(grad.dtype, copy=False).reshape(input.shape)


def _grid_bwd_arrays(grad, input, grid, interpolation_mode, padding_mode, align_corners):
    xp = _xp(grad)
    mode = interpolation_mode
    if mode == _NEAREST:
        return xp.zeros(grid.shape, dtype=grad.dtype)
    idx, valid, ts, slopes = _plane_taps(input, grid, mode, padding_mode, align_corners)
    n, c = input.shape[:2]
    vals = _gather_arrays(xp, input, idx, valid)
    s = (grad.reshape(n, c, idx.shape[1], 1) * vals).sum(axis=1)
    nd = len(ts)
    comps = []
    for j in range(nd):
        d = nd - 1 - j
        per_dim = [xp.stack((_dfactors if e == d else _factors)(t, mode), axis=-1)
                   for e, t in enumerate(ts)]
        comps.append((s * _outer(per_dim)).sum(axis=-1) * slopes[d])
    return xp.stack(comps, axis=-1).reshape(grid.shape)


_ATTRS = ("interpolation_mode", "padding_mode", "align_corners")
GRID_SAMPLER_2D = defop("grid_sampler_2d", "GridSampler2DBackward0", _sampler_fwd,
                        inputs=("input", "grid"), attrs=_ATTRS, input=_input_bwd,
                        grid=_grid_bwd)
GRID_SAMPLER_3D = defop("grid_sampler_3d", "GridSampler3DBackward0", _sampler_fwd,
                        inputs=("input", "grid"), attrs=_ATTRS, input=_input_bwd,
                        grid=_grid_bwd)
for _op in (GRID_SAMPLER_2D, GRID_SAMPLER_3D):
    _op.set_fast(input=_input_bwd_arrays, grid=_grid_bwd_arrays)


def _check_sampler(input, grid, mode):
    """PyTorch's checks, in its order: the arguments, then the shapes common to both ranks
    (check_grid_sampler_common), the rank, bicubic's, the dtypes."""
    for i, (name, v) in enumerate((("input", input), ("grid", grid))):
        if not isinstance(v, Tensor):
            raise TypeError(f"grid_sampler(): argument '{name}' (position {i + 1}) must be "
                            f"Tensor, not {type(v).__name__}")
    if input.device != grid.device:
        raise RuntimeError(f"grid_sampler(): expected input and grid to be on same device, "
                           f"but input is on {input.device} and grid is on {grid.device}")
    ish, gsh = list(input.shape), list(grid.shape)
    if not ish or not gsh or ish[0] != gsh[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {ish} and grid with sizes {gsh}")
    if gsh[-1] != len(ish) - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {len(ish) - 2} in last "
                           f"dimension, but got grid with sizes {gsh}")
    for i in range(2, len(ish)):
        if ish[i] <= 0:
            raise RuntimeError(
                f"grid_sampler(): expected input to have non-empty spatial dimensions, but "
                f"input has sizes {ish} with dimension {i} being empty")
    rank = 4 if len(ish) == 4 else 5
    if len(ish) != rank or len(gsh) != rank:
        raise RuntimeError(f"grid_sampler(): expected {rank}D input and grid with same number "
                           f"of dimensions, but got input with sizes {ish} and grid with "
                           f"sizes {gsh}")
    if rank == 5 and mode == _BICUBIC:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input._data.dtype.kind != "f":
        kernel = "grid_sampler_2d_cpu_kernel_impl" if rank == 4 else "grid_sampler3d_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{torch_type_name(input.dtype)}'")
    if grid._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {torch_type_name(input.dtype)} but found "
                           f"{torch_type_name(grid.dtype)}")
    return rank


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` at the points of ``grid`` (see the module's docstring), as
    ``torch.nn.functional.grid_sample``."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not isinstance(align_corners, bool):
        raise TypeError("grid_sampler(): argument 'align_corners' (position 5) must be bool, "
                        f"not {type(align_corners).__name__}")
    m = _MODES[mode]
    rank = _check_sampler(input, grid, m)
    op = GRID_SAMPLER_2D if rank == 4 else GRID_SAMPLER_3D
    return dispatch(op, (input, grid), (m, _PADDINGS[padding_mode], align_corners))


# -- affine_grid -----------------------------------------------------------------------------

def _steps(n, align, dtype, dev):
    """PyTorch's linspace_from_neg_one: n positions in [-1, 1] (the pixels' centres; with
    align_corners the corner pixels' centres are -1 and 1), 0 for a single one."""
    if n <= 1:
        return dev.xp.zeros((1,), dtype=dtype)
    r = B.torch_linspace(-1.0, 1.0, n, dtype)   # (on the host, as linspace computes it)
    r = r if align else r * (n - 1) / n
    return r if dev is B.cpu else dev.from_host(r)


def _base_grid(spatial, align, dtype, dev):
    """(prod(spatial), nd + 1) rows (x, y[, z], 1) of every output position, x fastest."""
    xp = dev.xp
    nd = len(spatial)
    mesh = xp.meshgrid(*[_steps(s, align, dtype, dev) for s in spatial], indexing="ij")
    cols = [mesh[nd - 1 - j].reshape(-1) for j in range(nd)]   # x, y[, z]
    return xp.stack(cols + [xp.ones_like(cols[0])], axis=1)


def _affine_fwd(theta, size, align_corners):
    dev = B.device_of_array(theta)
    base = _base_grid(size[2:], align_corners, theta.dtype, dev)
    out = _xp(theta).matmul(base, theta.transpose(0, 2, 1))    # (N, HW, nd)
    return out.reshape((size[0],) + tuple(size[2:]) + (len(size) - 2,))


def _affine_bwd(grad, size, align_corners):
    base = Tensor._make(_base_grid(size[2:], align_corners, grad._data.dtype, grad._device),
                        grad._device)
    nd = len(size) - 2
    g = grad.reshape(size[0], math.prod(size[2:]), nd)
    return base.t().matmul(g).transpose(1, 2)


AFFINE_GRID = defop("affine_grid_generator", "AffineGridGeneratorBackward0", _affine_fwd,
                    inputs=("theta",), attrs=("size", "align_corners"), theta=_affine_bwd)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) — or (N, D, H, W, 3) — of the affine maps ``theta``
    (N, 2, 3) — or (N, 3, 4) — for an output of ``size``, as
    ``torch.nn.functional.affine_grid``."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not isinstance(theta, Tensor):
        raise AttributeError(f"'{type(theta).__name__}' object has no attribute "
                             "'is_floating_point'")
    if theta._data.dtype.kind != "f":
        raise ValueError(f"Expected theta to have floating point type, but got "
                         f"torch.{B.dtype_name(theta.dtype)}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    nd = len(size) - 2
    if theta.shape[0] != size[0]:   # the batched matmul's words (base grid @ theta^T)
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {nd + 1}] but got: [{theta.shape[0]}, {nd + 1}].")
    return dispatch(AFFINE_GRID, (theta,), (tuple(int(s) for s in size), bool(align_corners)))
