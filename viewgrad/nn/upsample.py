"""Resizing for ``interpolate`` as PyTorch records it: one node per mode and number of
spatial dims (``UpsampleNearest2DBackward0``, ``UpsampleBilinear2DBackward0``,
``UpsampleLinear1DBackward0``...), saving the output size, the scales (``scales_h``...),
``align_corners`` for the interpolating modes and the input's sizes — never the input,
so modifying it in place afterwards is fine, as there. Each node's gradient is the
backward op (``upsample_*_backward``: every output's gradient added back onto the input
rows it read, with their weights), whose own gradient is the upsampling again
(``Upsample...BackwardBackward0``): double backward never ends.

Note [Separable interpolation]: linear, bilinear, trilinear and bicubic resizing are each
a 1-D interpolation applied along one spatial dim after the other: along a dim, output
position j reads input rows ``idx_k[j]`` with weights ``w_k[j]`` (2 taps for linear, 4 for
cubic), i.e. ``sum_k x[..., idx_k, ...] * w_k``. The source positions follow PyTorch's
``area_pixel_compute_source_index`` (half-pixel centres, or corner-aligned with
``align_corners=True``); ``nearest`` picks ``floor(j * scale)`` computed in float32, as
PyTorch does, so the same pixel is chosen at every boundary.

Note [Antialiased resizing]: ``antialias=True`` (modes 'bilinear-aa', 'bicubic-aa' and 'lanczos-aa'
here, PyTorch's ``_upsample_bilinear2d_aa`` / ``_upsample_bicubic2d_aa``, what
torchvision's Resize calls) is PIL's resampling: output j is centred at
``scale * (j + 0.5)`` and reads every input row within the filter's support, which grows
with the scale when shrinking (``support = taps/2 * scale``, the filter stretched by
``scale``), with weights normalised to sum to 1. Rows read vary in number, so the taps are
padded with zero weights; the rest (the adjoint, the nodes) is as for the other modes.
"""
from __future__ import annotations

import math
import struct

from .. import backend as B
from ..ops.table import defop, dispatch

__all__ = ["upsample"]


def _f32(v):
    """``v`` rounded to float32 (PyTorch computes the nearest-neighbour scale in float)."""
    return struct.unpack("f", struct.pack("f", v))[0]


def _scale(in_size, out_size, align_corners, scale_factor):
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    if scale_factor is not None and scale_factor > 0:
        return 1.0 / scale_factor
    return in_size / out_size


def _taps(mode, in_size, out_size, align_corners, scale_factor, nd, backward=False):
    """For one dim: a list of (index list, weight list or None) pairs, one per tap
    (``nd``: the number of spatial dims, and ``backward``, which pick PyTorch's kernel)."""
    if out_size == in_size and mode in ("linear", "bilinear", "trilinear", "bilinear-aa",
                                        "bicubic-aa", "lanczos-aa"):
        # PyTorch's linear (and antialiased) kernels copy a dim whose size is unchanged,
        # whatever the scale_factor that produced it (1.3 on a size of 3 gives 3: no
        # resampling)
        return [(list(range(in_size)), [1.0] * in_size)]
    if mode == "nearest" and (nd == 2 or backward) and out_size in (in_size, 2 * in_size):
        # nearest_idx, which the 2-D forward kernel and every nearest backward kernel use:
        # an unchanged size is copied and a doubled one reads j >> 1, without the float
        # scale (which can mis-round); the 1-D and 3-D forwards and nearest-exact take the
        # scale always (so there a forward and its backward can pick different rows)
        return [([j if out_size == in_size else j >> 1 for j in range(out_size)], None)]
    scale = _scale(in_size, out_size, align_corners, scale_factor)
    if mode in _AA_FILTERS:
        return _aa_taps(mode, in_size, out_size, scale)
    if mode in ("nearest", "nearest-exact"):
        s = _f32(scale)
        off = 0.5 if mode == "nearest-exact" else 0.0
        idx = [min(int(math.floor(_f32((j + off) * s))), in_size - 1) for j in range(out_size)]
        return [(idx, None)]
    if mode == "bicubic":
        A = -0.75
        taps = [([], []) for _ in range(4)]
        for j in range(out_size):
            src = scale * j if align_corners else scale * (j + 0.5) - 0.5
            i0 = math.floor(src)
            t = src - i0
            ws = [((A * (t + 1) - 5 * A) * (t + 1) + 8 * A) * (t + 1) - 4 * A,
                  ((A + 2) * t - (A + 3)) * t * t + 1,
                  ((A + 2) * (1 - t) - (A + 3)) * (1 - t) * (1 - t) + 1,
                  ((A * (2 - t) - 5 * A) * (2 - t) + 8 * A) * (2 - t) - 4 * A]
            for k in range(4):
                taps[k][0].append(min(max(i0 - 1 + k, 0), in_size - 1))
                taps[k][1].append(ws[k])
        return taps
    i0s, i1s, w0s, w1s = [], [], [], []
    for j in range(out_size):
        src = scale * j if align_corners else max(scale * (j + 0.5) - 0.5, 0.0)
        i0 = min(int(src), in_size - 1)
        i1 = i0 + (1 if i0 < in_size - 1 else 0)
        lam = src - i0
        i0s.append(i0)
        i1s.append(i1)
        w0s.append(1.0 - lam)
        w1s.append(lam)
    return [(i0s, w0s), (i1s, w1s)]


def _bicubic_aa(x, a=-0.5):
    x = abs(x)
    if x < 1.0:
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1
    if x < 2.0:
        return (((x - 5) * x + 8) * x - 4) * a
    return 0.0


def _lanczos3(x):
    """The Lanczos-3 windowed sinc, sinc(x) sinc(x / 3) on |x| < 3 (6 taps)."""
    x = abs(x)
    if x >= 3.0:
        return 0.0
    if x == 0.0:
        return 1.0
    px = math.pi * x
    return 3.0 * math.sin(px) * math.sin(px / 3.0) / (px * px)


# mode -> (the filter, its taps at scale 1) (Note [Antialiased resizing]); bicubic's is
# Keys' a = -0.5 there, where the plain bicubic mode uses -0.75; lanczos (PyTorch 2.13's
# mode='lanczos', antialiased only) is the Lanczos-3 window
_AA_FILTERS = {"bilinear-aa": (lambda x: max(0.0, 1.0 - abs(x)), 2),
               "bicubic-aa": (_bicubic_aa, 4), "lanczos-aa": (_lanczos3, 6)}


def _aa_taps(mode, in_size, out_size, scale):
    """PyTorch's ``_compute_indices_min_size_weights_aa`` for one dim, as taps."""
    filt, interp = _AA_FILTERS[mode]
    support = interp * 0.5 * scale if scale >= 1.0 else interp * 0.5
    invscale = 1.0 / scale if scale >= 1.0 else 1.0
    rows = []
    for j in range(out_size):
        center = scale * (j + 0.5)
        xmin = max(int(center - support + 0.5), 0)       # (C's truncation toward zero)
        xsize = min(int(center + support + 0.5), in_size) - xmin
        ws = [filt((k + xmin - center + 0.5) * invscale) for k in range(xsize)]
        total = sum(ws)
        rows.append((xmin, [w / total for w in ws] if total != 0.0 else ws))
    width = max(len(ws) for _, ws in rows)
    return [([min(xmin + k, in_size - 1) for xmin, _ in rows],
             [ws[k] if k < len(ws) else 0.0 for _, ws in rows]) for k in range(width)]


def _dim_taps(xp, mode, dim, ndim, in_size, out_size, align_corners, scale, dtype,
              backward=False):
    """``_taps`` as arrays: (index array, weights shaped to broadcast along ``dim`` or
    None) per tap."""
    out = []
    for idx, w in _taps(mode, in_size, out_size, align_corners, scale, ndim - 2, backward):
        if w is not None:
            shape = [1] * ndim
            shape[dim] = len(w)
            w = xp.asarray(w, dtype=dtype).reshape(shape)
        out.append((xp.asarray(idx, dtype="int64"), w))
    return out


def _resample(x, mode, output_size, align_corners, scales):
    """The forward on an array: each spatial dim resampled in turn."""
    xp = B.xp_of(x)
    for i, n_out in enumerate(output_size):
        d = i + 2
        y = None
        for idx, w in _dim_taps(xp, mode, d, x.ndim, x.shape[d], n_out, align_corners,
                                scales[i], x.dtype):
            picked = xp.take(x, idx, axis=d)
            if w is not None:
                picked = picked * w
            y = picked if y is None else y + picked
        x = y
    return x


def _resample_adjoint(g, mode, input_size, align_corners, scales):
    """The backward op on an array: each output gradient added back onto the input rows
    its value read, with their weights (dims undone in reverse order)."""
    xp = B.xp_of(g)
    if mode == "bicubic" and tuple(g.shape) == tuple(input_size):
        # PyTorch's bicubic backward copies the gradient when no size changes (though its
        # forward still resamples with the given scales)
        return g.copy()
    for i in reversed(range(len(input_size) - 2)):
        d = i + 2
        shape = list(g.shape)
        shape[d] = input_size[d]
        acc = xp.zeros(tuple(shape), dtype=g.dtype)
        for idx, w in _dim_taps(xp, mode, d, g.ndim, input_size[d], g.shape[d], align_corners,
                                scales[i], g.dtype, backward=True):
            B.add_at(acc, (slice(None),) * d + (idx,), g if w is None else g * w)
        g = acc
    return g


_MODE_NAMES = {"nearest": ("Nearest", (1, 2, 3)), "nearest-exact": ("NearestExact", (1, 2, 3)),
               "linear": ("Linear", (1,)), "bilinear": ("Bilinear", (2,)),
               "bicubic": ("Bicubic", (2,)), "trilinear": ("Trilinear", (3,)),
               "bilinear-aa": ("Bilinear", (2,)), "bicubic-aa": ("Bicubic", (2,)),
               "lanczos-aa": ("Lanczos", (2,))}
_SCALE_NAMES = {1: ("scales",), 2: ("scales_h", "scales_w"),
                3: ("scales_d", "scales_h", "scales_w")}
_OPS = {}


def _rows(mode, nd):
    """The forward and backward rows of one mode and spatial rank; ``_saved_scales_h``
    (...) read the scales as PyTorch names them."""
    name, _ = _MODE_NAMES[mode]
    slug = mode.replace("-", "_")
    op, node = f"upsample_{slug}{nd}d", f"Upsample{name}{nd}D"
    if mode.endswith("-aa"):   # (PyTorch's _upsample_bilinear2d_aa, UpsampleBilinear2DAa...)
        op, node = f"_upsample_{slug[:-3]}{nd}d_aa", node + "Aa"
    ac = "align_corners"
    if mode.startswith("nearest"):
        # PyTorch's nearest nodes keep no align_corners: it is kept hidden (Note [hidden
        # saved values], autograd/saved_names.py)
        ac = "_align_corners"
        fwd_formula = (lambda grad, self_shape, output_size, _align_corners, scales: dispatch(
            _OPS[mode, nd][1], (grad,), (tuple(self_shape), output_size, _align_corners,
                                         scales)))
        bwd_formula = (lambda grad, output_size, _align_corners, scales: dispatch(
            _OPS[mode, nd][0], (grad,), (output_size, _align_corners, scales)))
    else:
        fwd_formula = (lambda grad, self_shape, output_size, align_corners, scales: dispatch(
            _OPS[mode, nd][1], (grad,), (tuple(self_shape), output_size, align_corners,
                                         scales)))
        bwd_formula = (lambda grad, output_size, align_corners, scales: dispatch(
            _OPS[mode, nd][0], (grad,), (output_size, align_corners, scales)))
    fwd = defop(op, node + "Backward0",
                lambda self, output_size, align_corners, scales: _resample(
                    self, mode, output_size, align_corners, scales),
                attrs=("output_size", ac, "scales"), self=fwd_formula)
    bwd = defop(op + "_backward", node + "BackwardBackward0",
                lambda self, input_size, output_size, align_corners, scales:
                _resample_adjoint(self, mode, input_size, align_corners, scales),
                attrs=("input_size", "output_size", ac, "scales"), self=bwd_formula)
    for node_cls in (fwd.node_cls, bwd.node_cls):
        scales = node_cls._saved_scales.fget   # (the saved tuple: for 1-D, PyTorch's name
        for i, attr in enumerate(_SCALE_NAMES[nd]):   # "scales" is this very property)
            setattr(node_cls, "_saved_" + attr,
                    property(lambda self, i=i, scales=scales: scales(self)[i]))
    return fwd, bwd


for _mode, (_, _nds) in _MODE_NAMES.items():
    for _nd in _nds:
        _OPS[_mode, _nd] = _rows(_mode, _nd)


def upsample(input, mode, output_size, align_corners, scales):
    """Resize (N, C, *spatial) ``input`` (arguments checked by ``interpolate``): one
    ``Upsample<Mode><n>DBackward0`` node."""
    return dispatch(_OPS[mode, len(output_size)][0], (input,),
                    (tuple(int(n) for n in output_size), align_corners,
                     tuple(None if s is None else float(s) for s in scales)))
