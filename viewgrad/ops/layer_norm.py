"""layer_norm as PyTorch records it: one ``NativeLayerNormBackward0`` node with three
edges (input, weight, bias — ``(None, 0)`` for an absent one), so a transformer's graph
shows the node PyTorch's shows. The forward normalises over the trailing
``normalized_shape`` dims with the biased variance; the backward formulas are written
with differentiable ops (double backward works), with x̂ = (x - mean) · rstd and
ĝ = grad · weight over the normalised dims D:

    d input  = rstd · (ĝ - mean_D(ĝ) - x̂ · mean_D(ĝ · x̂))
    d weight = sum over the other dims of grad · x̂
    d bias   = sum over the other dims of grad
"""
from __future__ import annotations

from .. import backend as B
from .args import check_mixed_dtypes, torch_type_name
from .pointwise import add_scalar_
from .table import defop, dispatch_stats

__all__ = ["layer_norm", "rms_norm"]

_xp = B.xp_of


def _dims(x, ndim):
    return tuple(range(x.ndim - ndim, x.ndim))


def _ln_fwd(input, weight, bias, normalized_shape, eps):
    """(output, mean, rstd): the statistics kept with the normalised dims as size-1 dims,
    as PyTorch's native_layer_norm returns them (Note [statistics saved as PyTorch saves
    them], table.py)."""
    xp = _xp(input)
    dims = _dims(input, len(normalized_shape))
    # (B.array_mean: Note [warnings from NumPy's own Python])
    mean = B.array_mean(input, dims, True)
    centered = input - mean
    var = B.array_mean(centered * centered, dims, True)
    std = xp.sqrt(var + eps)
    out = centered / std
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    dt = input.dtype
    return (B.row_major(out.astype(dt, copy=False)),   # (PyTorch's layout)
            B.row_major(mean.astype(dt, copy=False)), B.row_major((1 / std).astype(dt)))


def _x_hat(input, ndim, eps):
    dims = tuple(range(input.dim() - ndim, input.dim()))
    mean = input.mean(dims, keepdim=True)
    centered = input - mean
    rstd = ((centered * centered).mean(dims, keepdim=True) + eps).rsqrt()
    return centered * rstd, rstd, dims


# Each formula takes what PyTorch's one formula for the three inputs takes — input,
# normalized_shape, the saved mean and rstd (result1, result2), weight and bias — so all
# are saved (and version-checked) whichever gradient is needed, bias too, though no formula
# reads it. The formulas recompute the statistics from the input with viewgrad ops (so a
# double backward differentiates through them), from the eps kept hidden (``_eps``: Note
# [hidden saved values] in saved_names.py; PyTorch's node does not show it).

def _ln_input(grad, input, weight, normalized_shape, _eps, bias, result1, result2):
    x_hat, rstd, dims = _x_hat(input, len(normalized_shape), _eps)
    g = grad * weight if weight is not None else grad
    return rstd * (g - g.mean(dims, keepdim=True)
                   - x_hat * (g * x_hat).mean(dims, keepdim=True))


def _outer_sum(t, ndim):
    lead = tuple(range(t.dim() - ndim))
    return t.sum(lead) if lead else t


def _ln_weight(grad, input, normalized_shape, _eps, weight, bias, result1, result2):
    ndim = len(normalized_shape)
    x_hat, _, _ = _x_hat(input, ndim, _eps)
    return _outer_sum(grad * x_hat, ndim)


def _ln_bias(grad, normalized_shape, input, weight, bias, result1, result2):
    return _outer_sum(grad, len(normalized_shape))


LAYER_NORM = defop("native_layer_norm", "NativeLayerNormBackward0", _ln_fwd,
                   inputs=("input", "weight", "bias"),
                   attrs=("normalized_shape", "_eps", "result1", "result2"),
                   input=_ln_input, weight=_ln_weight, bias=_ln_bias,
                   edge_for_every_input=True)


def _check_affine(shape, **tensors):
    """PyTorch's error for an affine weight or bias not of ``normalized_shape``."""
    for name, t in tensors.items():
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(shape)}")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the last ``len(normalized_shape)`` dims (biased variance), then scale
    and shift elementwise: ``(x - mean) / sqrt(var + eps) * weight + bias`` — one
    ``NativeLayerNormBackward0`` node, as ``torch.nn.functional.layer_norm``."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
        tuple(normalized_shape)
    if tuple(input.shape[input.dim() - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    _check_affine(shape, weight=weight, bias=bias)
    check_mixed_dtypes(input, weight, bias)
    return dispatch_stats(LAYER_NORM, (input, weight, bias), (shape, float(eps)))


# float16 is computed in float32 (PyTorch's opmath type), then cast back
_OPMATH = {"float16": "float32", "bfloat16": "float32"}


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Root-mean-square normalisation over the trailing ``normalized_shape`` dims, then
    an elementwise scale: ``x * rsqrt(mean(x², dims) + eps) * weight``, with ``eps`` the
    machine epsilon of the computing dtype when None. PyTorch's composite, op for op, so
    the graph shows the same nodes: PowBackward0, MeanBackward1 (its dims last first),
    AddBackward1 (``add_`` in place), RsqrtBackward0, MulBackward0 twice (ToCopyBackward0
    around a float16 input, computed in float32)."""
    if isinstance(normalized_shape, int) or not isinstance(normalized_shape, (list, tuple)):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    shape = tuple(int(s) for s in normalized_shape)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    _check_affine(shape, weight=weight)
    n = input.dim()
    if n < len(shape) or tuple(input.shape[n - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    if input.dtype.kind != "f":
        raise NotImplementedError(
            f"\"rms_norm\" not implemented for '{torch_type_name(input.dtype)}'")
    opmath = _OPMATH.get(input.dtype.name)
    x = input.to(opmath) if opmath else input
    if eps is None:
        eps = float(B.cpu.xp.finfo(x.dtype).eps)
    dims = [n - 1 - i for i in range(len(shape))]
    r = add_scalar_(x.pow(2).mean(dims, keepdim=True), eps).rsqrt()
    out = x.mul(r)
    if weight is not None:
        out = out.mul(weight)
    return out.type_as(input)
