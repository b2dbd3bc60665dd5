"""Convolution — ONE generic op, ``convolution``, node ``ConvolutionBackward0`` — and
constant padding (``constant_pad_nd``, node ``ConstantPadNdBackward0``).

conv1d, conv2d, conv3d and conv_transpose1d/2d (in ``viewgrad.nn.functional``) all call
``convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
groups)``, as PyTorch's do.

Forward (on backend arrays) is im2col, NCHW: one strided copy per kernel tap gathers the
padded input into a contiguous column buffer ``(N, C*K, L)`` (K kernel taps, L output
positions), then one matrix product per sample, ``W (O, C*K) @ cols[n] (C*K, L)``, whose
``(O, L)`` result already is the sample's NCHW output. A transposed convolution is the
adjoint: a matrix product into columns, then each kernel tap is added into a strided
slice of the output (col2im). ``sliding_windows`` is the same columns as a zero-copy
``as_strided`` view, for readers (and ``unfold``).

Backward is written in differentiable viewgrad ops, and mostly in ``convolution`` itself:

* grad wrt input  of a convolution = a *transposed* convolution of grad with the same weight
  (and the other way round for a transposed convolution);
* grad wrt weight = a convolution of the input with grad used as the kernel, with stride and
  dilation swapped (batch and channels trade places; groups become blocks);
* grad wrt bias   = grad summed over every dim but the channels.

Because these formulas are themselves convolutions (plus views and sums), the second
derivative is again convolutions: double backward (gradgradcheck) works for input, weight
and bias, with strides, padding, dilation and groups.
"""
from __future__ import annotations

import itertools
import weakref

from .. import backend as B
from ..autograd.saved_names import alias_property
from ..autograd.state import state as _st
from ..tensor import Tensor
from .table import defop, dispatch

__all__ = ["convolution", "constant_pad_nd", "conv_output_size", "sliding_windows",
           "set_fast_kernels"]

_xp = B.xp_of


# -- padding ------------------------------------------------------------------------------

def _pad_fwd(self, pad, value):
    """pad = (left_last, right_last, left_prev, right_prev, ...) as torch.nn.functional.pad;
    negative amounts crop."""
    xp = _xp(self)
    nd = self.ndim
    shape = list(self.shape)
    src = [slice(None)] * nd
    dst = [slice(None)] * nd
    for i in range(len(pad) // 2):
        d = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        n = self.shape[d]
        shape[d] = n + lo + hi
        s0, s1 = max(0, -lo), max(max(0, -lo), n - max(0, -hi))
        d0 = max(0, lo)
        src[d] = slice(s0, s1)
        dst[d] = slice(d0, d0 + (s1 - s0))
    if value == 0:
        out = xp.zeros(tuple(shape), dtype=self.dtype)
    else:
        out = xp.full(tuple(shape), value, dtype=self.dtype)
    out[tuple(dst)] = self[tuple(src)]
    return out


PAD = defop("constant_pad_nd", "ConstantPadNdBackward0", _pad_fwd, attrs=("pad", "value"),
            # the adjoint of padding is cropping: padding by the negated amounts
            self=lambda grad, pad: constant_pad_nd(grad, tuple(-p for p in pad)))


def constant_pad_nd(input, pad, value=0.0):
    """Pad (or crop, for negative amounts) the last ``len(pad) // 2`` dims of ``input``."""
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError(f"Padding length must be divisible by 2, but got pad={list(pad)}")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(f"Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {input.dim()}")
    for i in range(len(pad) // 2):
        d = input.dim() - 1 - i
        new = input.shape[d] + pad[2 * i] + pad[2 * i + 1]
        if new < 0:
            raise RuntimeError(
                f"The input size {input.shape[d]}, plus negative padding {pad[2 * i]} and "
                f"{pad[2 * i + 1]} resulted in a negative output size, which is invalid. "
                f"Check dimension {d} of your input.")
    return dispatch(PAD, (input,), (pad, value))


# -- the array kernels --------------------------------------------------------------------

def conv_output_size(size, kernel, stride, padding, dilation):
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def sliding_windows(x, kernel, stride, dilation):
    """The im2col VIEW of an (already padded) array ``x`` of shape (N, C, *spatial):
    shape (N, C, *out, *kernel), element [n, c, o.., k..] = x[n, c, o*stride + k*dilation].
    Built with as_strided (no copy); backends without as_strided get a stacked copy."""
    nsp = len(kernel)
    sp = x.shape[2:]
    out = tuple(conv_output_size(sp[i], kernel[i], stride[i], 0, dilation[i])
                for i in range(nsp))
    shape = tuple(x.shape[:2]) + out + tuple(kernel)
    dev = B.device_of_array(x)
    if dev is not None and dev.as_strided is not None:
        st = x.strides
        strides = (tuple(st[:2]) + tuple(st[2 + i] * stride[i] for i in range(nsp))
                   + tuple(st[2 + i] * dilation[i] for i in range(nsp)))
        return dev.as_strided(x, shape, strides)
    xp = _xp(x)
    parts = []
    for ks in itertools.product(*[range(k) for k in kernel]):
        sl = tuple(slice(ks[i] * dilation[i], ks[i] * dilation[i] + stride[i] * (out[i] - 1) + 1,
                         stride[i]) for i in range(nsp))
        parts.append(x[(slice(None), slice(None)) + sl])
    return xp.stack(parts, axis=-1).reshape(shape)


def _tap(ks, out, stride, dilation):
    """The slices of the padded input that kernel tap ``ks`` reads, one per output."""
    return tuple(slice(ks[i] * dilation[i], ks[i] * dilation[i] + stride[i] * (out[i] - 1) + 1,
                       stride[i]) for i in range(len(ks)))


def _columns(x, kernel, stride, padding, dilation):
    """im2col into a contiguous buffer: ``cols[n, c, k.., o..] = x_padded[n, c, o*stride +
    k*dilation]``, shape (N, C, *kernel, *out) — one copy per kernel tap, each writing a
    contiguous block. Returns (cols, out)."""
    xp = _xp(x)
    nsp = len(kernel)
    if any(padding):
        x = _pad_fwd(x, tuple(p for q in reversed(padding) for p in (q, q)), 0)
    sp = x.shape[2:]
    out = tuple(conv_output_size(sp[i], kernel[i], stride[i], 0, dilation[i])
                for i in range(nsp))
    cols = xp.empty(tuple(x.shape[:2]) + tuple(kernel) + out, dtype=x.dtype)
    everything = (slice(None), slice(None))
    for ks in itertools.product(*[range(k) for k in kernel]):
        cols[everything + ks] = x[everything + _tap(ks, out, stride, dilation)]
    return cols, out


# Note [conv columns kept for the weight gradient]
# A speed trick, fenced off here: the forward's column buffer is exactly what the weight
# gradient needs (gw = sum_n grad[n] @ cols[n].T), and rebuilding it costs as much as the
# forward's gather. So while grad mode is on, the forward leaves its columns in this small
# table, keyed by the input array (a weak reference, so a freed input is never matched by
# a recycled id), and the plain-backward weight kernel takes them back out (pop: a training
# step leaves nothing behind). Bounded: at most _KEEP entries, oldest dropped first; a miss
# just rebuilds the columns. Never used under create_graph (the viewgrad formulas run).
_KEEP = 8
_kept_cols = {}


def _keep_cols(x, key, cols):
    try:
        ref = weakref.ref(x)
    except TypeError:
        return  # an array type without weak references: rebuild in backward
    if len(_kept_cols) >= _KEEP:
        del _kept_cols[next(iter(_kept_cols))]
    _kept_cols[id(x)] = (ref, key, cols)


def _take_cols(x, key):
    entry = _kept_cols.pop(id(x), None)
    if entry is not None and entry[0]() is x and entry[1] == key:
        return entry[2]
    return None


def _conv_arrays(x, w, stride, padding, dilation, groups, keep=False):
    """y = conv(x, w), NCHW: the column buffer, then one GEMM per sample (per group)."""
    n = x.shape[0]
    kernel = tuple(w.shape[2:])
    cols, out = _columns(x, kernel, stride, padding, dilation)
    o = w.shape[0]
    cgk = w[0].size                                                 # C/groups * K
    L = 1
    for s_ in out:
        L *= s_
    y = w.reshape(groups, o // groups, cgk) @ cols.reshape(n, groups, cgk, L)  # N, G, O/G, L
    if keep:
        _keep_cols(x, (kernel, stride, padding, dilation, groups), cols)
    return y.reshape((n, o) + out)


def transposed_output_size(size, kernel, stride, padding, output_padding, dilation):
    return (size - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1


def _conv_transpose_arrays(x, w, stride, padding, output_padding, dilation, groups):
    xp = _xp(x)
    nsp = x.ndim - 2
    n, cin = x.shape[:2]
    sp = tuple(x.shape[2:])
    kernel = tuple(w.shape[2:])
    cig, cog = cin // groups, w.shape[1]
    # columns: cols[n, co, s.., k..] = sum_ci x[n, ci, s..] * w[ci, co, k..] (per group)
    cols = xp.concatenate([
        xp.tensordot(x[:, g * cig:(g + 1) * cig], w[g * cig:(g + 1) * cig], axes=((1,), (0,)))
        for g in range(groups)], axis=1 + nsp)                    # N, *S, Cout, *K
    cols = xp.moveaxis(cols, 1 + nsp, 1)                           # N, Cout, *S, *K
    full = [(sp[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1 for i in range(nsp)]
    out = [transposed_output_size(sp[i], kernel[i], stride[i], padding[i], output_padding[i],
                                  dilation[i]) for i in range(nsp)]
    buf = xp.zeros((n, cog * groups) + tuple(max(full[i], padding[i] + out[i])
                                             for i in range(nsp)), dtype=cols.dtype)
    # col2im: every kernel tap lands on a strided slice of the output (no overlaps within
    # one tap, so a plain += is exact)
    for ks in itertools.product(*[range(k) for k in kernel]):
        sl = tuple(slice(ks[i] * dilation[i], ks[i] * dilation[i] + stride[i] * (sp[i] - 1) + 1,
                         stride[i]) for i in range(nsp))
        buf[(slice(None), slice(None)) + sl] += cols[(Ellipsis,) + ks]
    crop = tuple(slice(padding[i], padding[i] + out[i]) for i in range(nsp))
    return xp.ascontiguousarray(buf[(slice(None), slice(None)) + crop])


def _conv_fwd(input, weight, bias, stride, padding, dilation, transposed, output_padding,
              groups):
    if transposed:
        y = _conv_transpose_arrays(input, weight, stride, padding, output_padding, dilation,
                                   groups)
    else:
        y = _conv_arrays(input, weight, stride, padding, dilation, groups,
                         keep=_st.grad_enabled)
    if bias is not None:
        y += bias.reshape((1, -1) + (1,) * (y.ndim - 2))
    return y


# -- the backward formulas, in viewgrad ops (so they are differentiable again) -------------

def _weight_grad(inp, gout, kernel, stride, padding, dilation, groups):
    """d/dw of sum(gout * conv(inp, w)), shape (O, C/groups, *kernel), as a convolution:
    the input's channels become the batch, its batch the channels, and gout is the kernel,
    with stride and dilation swapped:
        gw[o, c, k] = sum_{n, y} gout[n, o, y] * inp_padded[n, c, y*stride + k*dilation]."""
    nsp = len(kernel)
    n, c = inp.shape[0], inp.shape[1]
    sp = tuple(inp.shape[2:])
    cg = c // groups
    x2 = inp.reshape((n, groups, cg) + sp).permute(
        (2, 1, 0) + tuple(range(3, 3 + nsp))).reshape((cg, groups * n) + sp)
    w2 = gout.transpose(0, 1)                                       # O, N, *out
    r = _convolution(x2, w2, None, dilation, padding, stride, False, (0,) * nsp, groups)
    r = r.transpose(0, 1)                                           # O, C/g, *K'
    for i in range(nsp):
        if r.shape[2 + i] != kernel[i]:  # the swapped conv may reach past the kernel
            r = r.narrow(2 + i, 0, kernel[i])
    return r


def _adjoint_output_padding(grad_shape, input_shape, kernel, stride, padding, dilation):
    """output_padding of the transposed conv that maps a conv's output gradient back to
    its input's shape: it restores the rows the forward's floor division dropped."""
    return tuple(input_shape[2 + i] - transposed_output_size(
        grad_shape[2 + i], kernel[i], stride[i], padding[i], 0, dilation[i])
        for i in range(len(stride)))


def _input_bwd(grad, input, weight, _bias_shape, stride, padding, dilation, transposed,
               output_padding, groups):
    nsp = len(stride)
    input_shape = tuple(input.shape)
    kernel = tuple(weight.shape[2:])
    if not transposed:
        # the adjoint of a convolution is the transposed convolution with the same weight
        op = _adjoint_output_padding(grad.shape, input_shape, kernel, stride, padding,
                                     dilation)
        return _convolution(grad, weight, None, stride, padding, dilation, True, op, groups)
    g = _convolution(grad, weight, None, stride, padding, dilation, False, (0,) * nsp, groups)
    for i in range(nsp):
        if g.shape[2 + i] != input_shape[2 + i]:  # output_padding >= stride (< dilation)
            g = g.narrow(2 + i, 0, input_shape[2 + i])
    return g


def _weight_bwd(grad, input, weight, _bias_shape, stride, padding, dilation, transposed,
                output_padding, groups):
    kernel = tuple(weight.shape[2:])
    if not transposed:
        return _weight_grad(input, grad, kernel, stride, padding, dilation, groups)
    # <conv_transpose(x, w), g> = <x, conv(g, w)>: the roles of input and grad swap
    return _weight_grad(grad, input, kernel, stride, padding, dilation, groups)


def _bias_bwd(grad, input, weight, _bias_shape):
    return grad.sum((0,) + tuple(range(2, grad.dim())))


# Each formula names both input and weight, so both are saved whenever any gradient is
# needed — as PyTorch's ConvolutionBackward0 does (one formula for all three there): after
# conv2d(x, w), modifying x OR w in place makes backward fail. Their sizes are read from
# them (PyTorch saves no other); bias's size, which PyTorch saves and shows as
# ``_saved_bias_sym_sizes_opt`` ((0,) without a bias), is kept as ``_bias_shape`` (Note
# [hidden saved values] in autograd/saved_names.py) and shown under that name.
CONVOLUTION = defop(
    "convolution", "ConvolutionBackward0", _conv_fwd, inputs=("input", "weight", "bias"),
    attrs=("stride", "padding", "dilation", "transposed", "output_padding", "groups"),
    input=_input_bwd, weight=_weight_bwd, bias=_bias_bwd)
CONVOLUTION.node_cls._saved_bias_sym_sizes_opt = alias_property(
    "_bias_shape", "_saved_bias_sym_sizes_opt", lambda v: v or (0,))


# -- array kernels for a plain backward (grad mode off; see ops/fast.py) --------------------
# The viewgrad formulas above are what runs under create_graph=True (they can be
# differentiated again); a plain backward runs these array versions of the same math.

def set_fast_kernels(op, **kernels):
    """Array kernels for plain backward (see OpDef.set_fast)."""
    op.set_fast(**kernels)


def _weight_grad_arrays(inp, gout, kernel, stride, padding, dilation, groups):
    """gw[o, c, k] = sum_{n, y} gout[n, o, y] * inp_padded[n, c, y*stride + k*dilation]:
    per sample, gout[n] (O, L) @ cols[n].T (L, C*K), summed over the batch (group by
    group); the columns are the forward's when it kept them (Note [conv columns kept for
    the weight gradient])."""
    nsp = len(kernel)
    n, c = inp.shape[:2]
    cols = _take_cols(inp, (kernel, stride, padding, dilation, groups))
    if cols is None:
        cols, out = _columns(inp, kernel, stride, padding, dilation)
    else:
        out = tuple(cols.shape[2 + nsp:])
    if tuple(gout.shape[2:]) != out:  # a transposed conv's input grad may be shorter
        cols = cols[(slice(None),) * (2 + nsp) + tuple(slice(0, gout.shape[2 + i])
                                                        for i in range(nsp))]
        out = tuple(gout.shape[2:])
    o = gout.shape[1]
    L = 1
    for s_ in out:
        L *= s_
    cgk = (c // groups) * (cols[0, 0].size // L)
    g = gout.reshape(n, groups, o // groups, L)
    cm = _xp(cols).ascontiguousarray(cols).reshape(n, groups, cgk, L)
    gw = (g @ cm.swapaxes(2, 3)).sum(axis=0)                        # G, O/G, C/G*K
    return gw.reshape((o, c // groups) + tuple(kernel))


def _input_grad_arrays(gout, w, input_shape, stride, padding, dilation, groups):
    """dx of y = conv(x, w): for every kernel tap, W_tap.T (C/G, O/G) @ gout[n] (O/G, L)
    per sample, added into the tap's strided window of the padded input's gradient."""
    xp = _xp(gout)
    nsp = len(stride)
    n = gout.shape[0]
    o, cg = w.shape[:2]
    kernel = tuple(w.shape[2:])
    out = tuple(gout.shape[2:])
    L = 1
    for s_ in out:
        L *= s_
    padded = tuple(input_shape[2 + i] + 2 * padding[i] for i in range(nsp))
    dxp = xp.zeros((n, cg * groups) + padded, dtype=gout.dtype)
    g = gout.reshape(n, groups, o // groups, L)
    wt = w.reshape((groups, o // groups, cg) + kernel)
    everything = (slice(None), slice(None))
    for ks in itertools.product(*[range(k) for k in kernel]):
        wk = wt[(slice(None), slice(None), slice(None)) + ks].swapaxes(1, 2)  # G, C/G, O/G
        dxp[everything + _tap(ks, out, stride, dilation)] += (wk @ g).reshape(
            (n, cg * groups) + out)
    crop = tuple(slice(padding[i], padding[i] + input_shape[2 + i]) for i in range(nsp))
    return dxp[everything + crop] if any(padding) else dxp


# (the kernels take input AND weight, unused or not, so that both saved tensors are unpacked
# — and version-checked — as by the formulas)
def _fast_input(grad, input, weight, stride, padding, dilation, transposed,
                output_padding, groups):
    nsp = len(stride)
    input_shape = input.shape
    kernel = tuple(weight.shape[2:])
    if not transposed:
        return _input_grad_arrays(grad, weight, input_shape, stride, padding, dilation,
                                  groups)
    g = _conv_arrays(grad, weight, stride, padding, dilation, groups)
    return _xp(g).ascontiguousarray(
        g[(slice(None), slice(None)) + tuple(slice(0, input_shape[2 + i]) for i in range(nsp))])


def _fast_weight(grad, input, weight, stride, padding, dilation, transposed,
                 output_padding, groups):
    kernel = tuple(weight.shape[2:])
    if not transposed:
        return _weight_grad_arrays(input, grad, kernel, stride, padding, dilation, groups)
    return _weight_grad_arrays(grad, input, kernel, stride, padding, dilation, groups)


set_fast_kernels(CONVOLUTION, input=_fast_input, weight=_fast_weight,
                 bias=lambda grad, input, weight: grad.sum(
                     axis=(0,) + tuple(range(2, grad.ndim))))


def _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                 groups):
    """The op itself, without argument checks (used by the backward formulas)."""
    return dispatch(CONVOLUTION, (input, weight, bias),
                    (tuple(stride), tuple(padding), tuple(dilation), bool(transposed),
                     tuple(output_padding), int(groups)))


# -- the checked public entry point --------------------------------------------------------

def _shape_str(t):
    return str(list(t.shape))


def _expand_param(value, n, name):
    if isinstance(value, int):
        return (value,) * n
    try:
        v = tuple(int(a) for a in value)
    except TypeError:
        raise TypeError(f"{name} must be an int or a tuple of {n} ints, got {value!r}") from None
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={list(v)}")
    return v


def convolution(input, weight, bias=None, stride=1, padding=0, dilation=1, transposed=False,
                output_padding=0, groups=1):
    """The generic convolution every conv layer calls (``torch.convolution``).

    ``input`` (N, C_in, *spatial); ``weight`` (C_out, C_in/groups, *kernel), or for a
    transposed convolution (C_in, C_out/groups, *kernel); ``bias`` (C_out,) or None.
    """
    for name, t in (("input", input), ("weight", weight)):
        if not isinstance(t, Tensor):
            raise TypeError(f"convolution(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")
    if weight.dim() < 3:
        raise RuntimeError(f"convolution: weight should have at least three dimensions "
                           f"(out_channels, in_channels/groups, *kernel), but got weight of "
                           f"size {_shape_str(weight)}")
    nsp = weight.dim() - 2
    if input.dim() != nsp + 2:
        raise RuntimeError(
            f"Expected {nsp + 2}-dimensional input for {nsp + 2}-dimensional weight "
            f"{_shape_str(weight)}, but got {input.dim()}-dimensional input of size "
            f"{_shape_str(input)} instead")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"convolution: expected a floating point input, got "
                           f"{B.dtype_name(input.dtype)} of size {_shape_str(input)}; call "
                           ".float() first")
    if input.dtype != weight.dtype or (bias is not None and bias.dtype != input.dtype):
        raise RuntimeError(
            f"convolution: input, weight and bias must have the same dtype, but got input "
            f"{B.dtype_name(input.dtype)}, weight {B.dtype_name(weight.dtype)}"
            + (f", bias {B.dtype_name(bias.dtype)}" if bias is not None else "")
            + "; convert with .to(dtype)")
    stride = _expand_param(stride, nsp, "stride")
    padding = _expand_param(padding, nsp, "padding")
    dilation = _expand_param(dilation, nsp, "dilation")
    output_padding = _expand_param(output_padding, nsp, "output_padding")
    groups = int(groups)
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"non-positive stride is not supported (stride={list(stride)})")
    if any(p < 0 for p in padding):
        raise RuntimeError(f"negative padding is not supported (padding={list(padding)})")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero (dilation={list(dilation)})")
    if any(p < 0 for p in output_padding):
        raise RuntimeError(f"negative output_padding is not supported "
                           f"(output_padding={list(output_padding)})")
    if groups <= 0:
        raise RuntimeError(f"non-positive groups is not supported (groups={groups})")
    cin = input.shape[1]
    if transposed:
        if any(op >= max(s, d) for op, s, d in zip(output_padding, stride, dilation)):
            raise RuntimeError(
                f"output padding must be smaller than either stride or dilation, but got "
                f"output_padding={list(output_padding)}, stride={list(stride)}, "
                f"dilation={list(dilation)}")
        if weight.shape[0] % groups:
            raise RuntimeError(
                f"Given groups={groups}, expected weight to be divisible by {groups} at "
                f"dimension 0, but got weight of size {_shape_str(weight)} instead")
        if cin != weight.shape[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {_shape_str(weight)}, expected "
                f"input{_shape_str(input)} to have {weight.shape[0]} channels, but got {cin} "
                "channels instead")
        cout = weight.shape[1] * groups
    else:
        if any(op for op in output_padding):
            raise RuntimeError("output_padding is only allowed for transposed convolutions")
        if weight.shape[0] % groups:
            raise RuntimeError(
                f"Given groups={groups}, expected weight to be divisible by {groups} at "
                f"dimension 0, but got weight of size {_shape_str(weight)} instead")
        if cin != weight.shape[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {_shape_str(weight)}, expected "
                f"input{_shape_str(input)} to have {weight.shape[1] * groups} channels, but "
                f"got {cin} channels instead"
                + (f" (in_channels={cin} must be divisible by groups={groups})"
                   if cin % groups else ""))
        cout = weight.shape[0]
        padded = [input.shape[2 + i] + 2 * padding[i] for i in range(nsp)]
        eff = [dilation[i] * (weight.shape[2 + i] - 1) + 1 for i in range(nsp)]
        if any(p < e for p, e in zip(padded, eff)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                f"Kernel size: ({' x '.join(map(str, eff))}). Kernel size can't be greater "
                f"than actual input size (input {_shape_str(input)}, weight "
                f"{_shape_str(weight)}, padding {list(padding)}, dilation {list(dilation)})")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != cout):
        raise RuntimeError(
            f"Given weight of size {_shape_str(weight)}, expected bias to be 1-dimensional "
            f"with {cout} elements, but got bias of size {_shape_str(bias)} instead")
    if transposed:
        out = [transposed_output_size(input.shape[2 + i], weight.shape[2 + i], stride[i],
                                      padding[i], output_padding[i], dilation[i])
               for i in range(nsp)]
        if any(o <= 0 for o in out):
            raise RuntimeError(f"Given input size {_shape_str(input)}, calculated output size "
                               f"{out} is too small (padding {list(padding)} too large)")
    return _convolution(input, weight, bias, stride, padding, dilation, transposed,
                        output_padding, groups)
