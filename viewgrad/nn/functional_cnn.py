"""``torch.nn.functional`` pieces for convolutional networks: ``unfold`` (im2col, node
``Im2ColBackward0``), ``fold`` (col2im, node ``Col2ImBackward0``) and ``rrelu`` /
``rrelu_`` (randomized leaky ReLU, nodes ``RreluWithNoiseBackward0`` /
``RreluWithNoiseBackward1``), re-exported by ``viewgrad.nn.functional``.

``unfold`` cuts an (N, C, H, W) image into its sliding blocks, one per column of an
(N, C*kH*kW, L) result; ``fold`` is its adjoint: the blocks are summed back into an image
(overlaps add up). So each one's gradient is the other of the incoming gradient, with the
same geometry, and double backward goes back and forth between the two nodes. A
convolution is exactly ``weight.view(C_out, -1) @ unfold(x, ...)`` — what
``ConvolutionBackward0`` computes as one fused node: draw the graphs of both.

``rrelu`` draws one slope per non-positive element from U(lower, upper) in training and
uses the fixed slope (lower + upper) / 2 in evaluation. The slopes come from viewgrad's
generator in the order PyTorch's CPU kernel draws them (one double per element ``<= 0``,
in memory order), so ``vg.manual_seed(s)`` gives PyTorch's slopes for ``torch.manual_seed(s)``.
"""
from __future__ import annotations

from .. import backend as B
from ..ops.pointwise import where
from ..ops.random import rng_of
from ..ops.signatures import BOOL, NUMBER, checked_function
from ..ops.table import apply_inplace, defop, dispatch
from ..ops.kernel_refusals import REFUSALS as _CX, refuse as _refuse
from ..tensor import Tensor

__all__ = ["fold", "unfold", "rrelu", "rrelu_"]

_xp = B.xp_of


# -- fold (col2im) ---------------------------------------------------------------------------

def _pair_arg(v, name, pos, fn="col2im"):
    """PyTorch's ``_pair`` then col2im's (im2col's) ``int[2]`` argument check, in its
    words."""
    try:
        t = tuple(v)
    except TypeError:
        t = (v, v)
    for i, e in enumerate(t):
        if isinstance(e, bool) or not isinstance(e, int):
            if not (isinstance(e, Tensor) and e.dim() == 0):
                raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be tuple "
                                f"of ints, but found element of type {type(e).__name__} at "
                                f"pos {i}")
    t = tuple(int(e) for e in t)
    if len(t) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(t)}")
    return t


def _check_blocks(k, d, p, s, order):
    """The block geometry's four checks of im2col/col2im_shape_check, in PyTorch's words,
    in the op's ``order`` (k: kernel, d: dilation, p: padding, s: stride)."""
    checks = {"k": (k[0] > 0 and k[1] > 0, f"kernel size should be greater than zero, but "
                    f"got kernel_height: {k[0]} kernel_width: {k[1]}"),
              "d": (d[0] > 0 and d[1] > 0, f"dilation should be greater than zero, but got "
                    f"dilation_height: {d[0]} dilation_width: {d[1]}"),
              "p": (p[0] >= 0 and p[1] >= 0, f"padding should be non-negative, but got "
                    f"pad_height: {p[0]} pad_width: {p[1]}"),
              "s": (s[0] > 0 and s[1] > 0, f"stride should be greater than zero, but got "
                    f"stride_height: {s[0]} stride_width: {s[1]}")}
    for key in order:
        ok, message = checks[key]
        if not ok:
            raise RuntimeError(message)


def _col2im_fwd(self, output_size, kernel_size, dilation, padding, stride):
    xp = _xp(self)
    if self.ndim == 2:   # unbatched: one node on the 2-D input, as PyTorch records it
        return _col2im_fwd(self[None], output_size, kernel_size, dilation, padding, stride)[0]
    n = self.shape[0]
    (h, w), (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (output_size, kernel_size, dilation,
                                                      padding, stride)
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    c = self.shape[1] // (kh * kw)
    cols = self.reshape(n, c, kh, kw, oh, ow)
    out = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=self.dtype)
    # one strided slice per kernel tap: tap (i, j) of block (a, b) lands at
    # (a*sh + i*dh, b*sw + j*dw) of the padded image; overlapping taps add up
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                j * dw:j * dw + sw * (ow - 1) + 1:sw] += cols[:, :, i, j]
    return xp.ascontiguousarray(out[:, :, ph:ph + h, pw:pw + w])


def _col2im_bwd(grad, kernel_size, dilation, padding, stride):
    return unfold(grad, kernel_size, dilation, padding, stride)


COL2IM = defop("col2im", "Col2ImBackward0", _col2im_fwd,
               attrs=("output_size", "kernel_size", "dilation", "padding", "stride"),
               # the adjoint of summing the blocks back is cutting them out again
               self=_col2im_bwd)


def _im2col_fwd(self, kernel_size, dilation, padding, stride, height, width):
    xp = _xp(self)
    if self.ndim == 3:   # unbatched: one node on the 3-D input, as PyTorch records it
        return _im2col_fwd(self[None], kernel_size, dilation, padding, stride, height,
                           width)[0]
    n, c, h, w = self.shape
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    x = self
    if ph or pw:
        x = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=self.dtype)
        x[:, :, ph:ph + h, pw:pw + w] = self
    cols = xp.empty((n, c, kh, kw, oh, ow), dtype=self.dtype)
    # one strided slice per kernel tap, col2im's loop the other way round: tap (i, j) of
    # block (a, b) reads (a*sh + i*dh, b*sw + j*dw) of the padded image
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = x[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                                 j * dw:j * dw + sw * (ow - 1) + 1:sw]
    return cols.reshape(n, c * kh * kw, oh * ow)


def _im2col_bwd(grad, kernel_size, dilation, padding, stride, self_sym_argsize_minus_2,
                self_sym_argsize_minus_1):
    return fold(grad, (self_sym_argsize_minus_2, self_sym_argsize_minus_1), kernel_size,
                dilation, padding, stride)


# (the input's height and width are attributes, as PyTorch's node keeps them:
# _saved_self_sym_argsize_minus_2 and _minus_1, the output size of the fold back)
IM2COL = defop("im2col", "Im2ColBackward0", _im2col_fwd,
               attrs=("kernel_size", "dilation", "padding", "stride",
                      "self_sym_argsize_minus_2", "self_sym_argsize_minus_1"),
               # the adjoint of cutting the blocks out is summing them back
               self=_im2col_bwd)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col, as ``torch.nn.functional.unfold``: (N, C, H, W) -> (N, C*kH*kW, L), column l
    holding the l-th sliding block (row-major over the blocks), each block's C*kH*kW
    values channel first; a 3-D input is one unbatched image. One ``Im2ColBackward0``
    node, whose gradient is ``fold`` of the incoming gradient."""
    if not isinstance(input, Tensor):
        raise TypeError(f"im2col(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    k = _pair_arg(kernel_size, "kernel_size", 2, "im2col")
    d = _pair_arg(dilation, "dilation", 3, "im2col")
    p = _pair_arg(padding, "padding", 4, "im2col")
    s = _pair_arg(stride, "stride", 5, "im2col")
    _check_blocks(k, d, p, s, "kdps")   # im2col_shape_check's order
    nd = input.dim()
    valid = input.size(1) != 0 and input.size(2) != 0   # (IndexError below 3-D: PyTorch's)
    if not ((nd == 3 and input.size(0) != 0 and valid)
            or (nd == 4 and valid and input.size(3) != 0)):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    h, w = input.shape[-2], input.shape[-1]
    blocks = [(size + 2 * p[i] - (d[i] * (k[i] - 1) + 1)) // s[i] + 1
              for i, size in enumerate((h, w))]
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size=({k[0]}, "
                           f"{k[1]}), dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), "
                           f"calculated shape of the array of sliding blocks as ({blocks[0]}, "
                           f"{blocks[1]}), but its components must be at least one.")
    _refuse(_CX["im2col"], input)   # (PyTorch's CPU kernel: no integer types)
    return dispatch(IM2COL, (input,), (k, d, p, s, h, w))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, as ``torch.nn.functional.fold``: sum the sliding blocks held in the columns
    of an (N, C*kH*kW, L) (or unbatched (C*kH*kW, L)) input into an (N, C, *output_size)
    image; ``fold(unfold(x))`` multiplies each pixel by the number of blocks covering it."""
    if not isinstance(input, Tensor):
        raise TypeError(f"col2im(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    size = _pair_arg(output_size, "output_size", 2)
    k = _pair_arg(kernel_size, "kernel_size", 3)
    d = _pair_arg(dilation, "dilation", 4)
    p = _pair_arg(padding, "padding", 5)
    s = _pair_arg(stride, "stride", 6)
    # col2im_shape_check, in PyTorch's order and words
    _check_blocks(k, d, p, s, "ksdp")   # col2im_shape_check's order
    shape = tuple(input.shape)
    if not ((len(shape) == 2 and shape[0] != 0 and shape[1] != 0)
            or (len(shape) == 3 and shape[1] != 0 and shape[2] != 0)):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: "
                           f"{list(shape)}")
    planes, length = shape[-2], shape[-1]
    if planes % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={planes} and "
                           f"kernel_size=({k[0]}, {k[1]}).")
    blocks = [(size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
    given = (f"Given output_size=({size[0]}, {size[1]}), kernel_size=({k[0]}, {k[1]}), "
             f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), ")
    if length != blocks[0] * blocks[1]:
        raise RuntimeError(given + f"expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={length}.")
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(given + f"calculated shape of the array of sliding blocks as "
                           f"({blocks[0]}, {blocks[1]}), which is too small (non-positive)")
    if size[0] < 1 or size[1] < 1:
        raise RuntimeError(f"Given input with spatial size ({size[0]}, {size[1]}), calculated "
                           f"output size is too small (non-positive)")
    _refuse(_CX["col2im"], input)   # (PyTorch's CPU kernel: no integer types)
    return dispatch(COL2IM, (input,), (size, k, d, p, s))


# -- reflection and replication padding -------------------------------------------------------
# PyTorch records one node per mode and dimensionality (ReflectionPad2DBackward0...), whose
# gradient is the backward op (reflection_pad2d_backward: scatter-add every padded element
# back onto the input element it copies); the backward op's own gradient is the padding
# again, so the pair is each other's adjoint and double backward never ends.

def _pad_indices(shape, pad, mode):
    """(dim, host index list) per padded dim: output element i of dim d copies input
    element index[i] (functional_more._pad_index)."""
    from .functional_more import _pad_index
    nd = len(shape)
    return [(nd - 1 - i, _pad_index(shape[nd - 1 - i], pad[2 * i], pad[2 * i + 1], mode))
            for i in range(len(pad) // 2)]


def _gather_fwd(self, pad, mode):
    xp = _xp(self)
    out = self
    for d, index in _pad_indices(self.shape, pad, mode):
        out = xp.take(out, xp.asarray(index), axis=d)
    return xp.ascontiguousarray(out)


def _scatter_fwd(self, input_shape, pad, mode):
    xp = _xp(self)
    g = self
    # undo the dims in the reverse order the forward padded them
    for d, index in reversed(_pad_indices(input_shape, pad, mode)):
        shape = list(g.shape)
        shape[d] = input_shape[d]
        acc = xp.zeros(tuple(shape), dtype=self.dtype)
        B.add_at(acc, (slice(None),) * d + (xp.asarray(index),), g)
        g = acc
    return g


_PAD_OPS = {}
for _mode, _torch in (("reflect", "Reflection"), ("replicate", "Replication")):
    for _n in (1, 2, 3):
        _name = f"{_torch.lower()}_pad{_n}d"
        # (PyTorch's nodes show the padding as ``padding``; the mode, one per node class
        # there, is hidden here: Note [hidden saved values])
        _fwd = defop(_name, f"{_torch}Pad{_n}DBackward0", _gather_fwd,
                     attrs=("padding", "_mode"),
                     # (self itself, as PyTorch saves it: modified in place before
                     # backward, it is refused there, so here too)
                     self=lambda grad, self, padding, _mode: _pad_backward(
                         grad, tuple(self.shape), padding, _mode))
        _bwd = defop(_name + "_backward", f"{_torch}Pad{_n}DBackwardBackward0", _scatter_fwd,
                     attrs=("_input_shape", "padding", "_mode"),
                     self=lambda grad, padding, _mode: _pad_nd(grad, padding, _mode))
        _PAD_OPS[_mode, _n] = (_fwd, _bwd)


def _pad_nd(input, pad, mode):
    """``reflect`` / ``replicate`` padding of the last ``len(pad) // 2`` dims (arguments
    already checked by ``F.pad``), as PyTorch's reflection_pad{1,2,3}d / replication_..."""
    return dispatch(_PAD_OPS[mode, len(pad) // 2][0], (input,), (tuple(pad), mode))


def _pad_backward(grad, input_shape, pad, mode):
    """The adjoint of ``_pad_nd``: each padded element's gradient added onto its source."""
    return dispatch(_PAD_OPS[mode, len(pad) // 2][1], (grad,),
                    (tuple(input_shape), tuple(pad), mode))


# -- rrelu -----------------------------------------------------------------------------------

def _slope(lower, upper):
    return (float(lower) + float(upper)) / 2   # PyTorch: in double, then cast to the dtype


def _rrelu_fwd(self, noise, lower, upper, training):
    xp = _xp(self)
    if training:
        return (self * noise._data).astype(self.dtype, copy=False)
    neg = xp.asarray(_slope(lower, upper), dtype=self.dtype)
    return xp.where(self > 0, self, self * neg).astype(self.dtype, copy=False)


def _rrelu_bwd(grad, x, noise, lower, upper, training):
    # training: the sampled slope (1 where x > 0); evaluation: leaky_relu's derivative
    if training:
        return grad * noise
    return where(x > 0, grad, grad * _slope(lower, upper))


RRELU = defop("rrelu_with_noise", "RreluWithNoiseBackward0", _rrelu_fwd,
              attrs=("noise", "lower", "upper", "training"),
              self=lambda grad, self, noise, lower, upper, training:
                  _rrelu_bwd(grad, self, noise, lower, upper, training))
# the in-place form saves its result (same sign as the input: the slopes are positive)
RRELU_ = defop("rrelu_with_noise_", "RreluWithNoiseBackward1", _rrelu_fwd,
               attrs=("noise", "lower", "upper", "training"),
               self=lambda grad, result, noise, lower, upper, training:
                   _rrelu_bwd(grad, result, noise, lower, upper, training))


def _noise(input, lower, upper):
    """The slopes, drawn as PyTorch's CPU kernel draws them: walking the input in memory
    order, one ``uniform_real_distribution<double>(lower, upper)`` sample per element
    ``<= 0`` (then cast to the input's dtype); 1 for every other element (NaN included)."""
    dev = input._device
    x = B.host_array(dev.to_host(input.contiguous()._data)).reshape(-1)
    hit = x <= 0
    if x.dtype.itemsize < 8:   # PyTorch's opmath type (float) rounds the bounds first
        lower = float(B.host_array(lower, dtype="float32"))
        upper = float(B.host_array(upper, dtype="float32"))
    draws = rng_of(None).uniform(int(hit.sum()), "float64", lower, upper)
    noise = B.host_zeros(x.shape, x.dtype) + 1
    noise[hit] = draws.astype(x.dtype)
    noise = noise.reshape(tuple(input.shape))
    return Tensor._make(noise if dev is B.cpu else dev.from_host(noise), dev)


def _rrelu(input, lower, upper, training, inplace):
    if not isinstance(input, Tensor):
        raise TypeError(f"rrelu(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if float(lower) > float(upper):
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    training = bool(training)
    noise = _noise(input, float(lower), float(upper)) if training else None
    attrs = (noise, float(lower), float(upper), training)
    if inplace:
        return apply_inplace(RRELU_, input, (), attrs, name="rrelu_")
    return dispatch(RRELU, (input,), attrs)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU, as ``torch.nn.functional.rrelu``: ``x`` where positive,
    ``a * x`` elsewhere, with ``a ~ U(lower, upper)`` drawn per element in training and
    ``a = (lower + upper) / 2`` in evaluation (the default, ``training=False``)."""
    _refuse(_CX["rrelu"], input)   # (Note [inputs PyTorch refuses], ops/)
    return _rrelu(input, lower, upper, training, inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """``rrelu(input, lower, upper, training, inplace=True)``."""
    _refuse(_CX["rrelu"], input)
    return _rrelu(input, lower, upper, training, True)


# PyTorch's argument parser for these (Note [typed arguments, checked at the door])
rrelu = checked_function(rrelu, "rrelu", (("lower", NUMBER), ("upper", NUMBER),
                                           ("training", BOOL), ("inplace", BOOL)))
