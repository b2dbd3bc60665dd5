"""Batch normalisation (node ``NativeBatchNormBackward0``, training and eval) and dropout.

batch_norm is two rows of the derivatives table, both named as PyTorch names the node:

* training: normalise with the batch's own mean and (biased) variance. The backward
  formulas recompute the statistics from the saved input *with viewgrad ops*, so the
  gradient is a differentiable function of the input (the statistics depend on it):
  double backward is right, not just the first derivative.
* eval: normalise with the running statistics, which are saved (so modifying them in place
  between forward and backward trips the saved-tensor version check).

The node saves what PyTorch's saves: the input, weight, running statistics, ``training``,
eps and the batch statistics ``result1``/``result2`` (the mean and 1/std per channel in
training, empty tensors in eval). The running statistics are updated by the Python
wrapper, written straight into their memory as PyTorch's fused kernel writes them: their
``_version`` does not move, so the node that saved them (and a second call's) still
finds them unmodified.

dropout is ``input * mask`` with a mask drawn from viewgrad's seeded generator
(``viewgrad.manual_seed``), scaled by 1/(1-p): its node is MulBackward0, as PyTorch's on CPU.
"""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor
from .args import check_mixed_dtypes
from .conv import set_fast_kernels
from .table import defop, dispatch_stats

__all__ = ["batch_norm", "dropout"]

_xp = B.xp_of


def _red_dims(ndim):
    return (0,) + tuple(range(2, ndim))


def _bcast(t, ndim):
    """(C,) -> (1, C, 1, ...) so it broadcasts against (N, C, *spatial)."""
    return t.reshape((1, -1) + (1,) * (ndim - 2))


# -- training: batch statistics --------------------------------------------------------------

def _train_fwd(input, weight, bias, running_mean, running_var, training, eps):
    """(output, batch mean, batch 1/std) per channel (Note [statistics saved as PyTorch
    saves them], table.py; the running statistics are the wrapper's to update)."""
    xp = _xp(input)
    dims = _red_dims(input.ndim)
    mean = B.array_mean(input, dims, True)   # (Note [warnings from NumPy's own Python])
    xc = input - mean
    var = B.array_mean(xc * xc, dims, True)
    std = xp.sqrt(var + eps)
    y = xc / std
    if weight is not None:
        y = y * _bcast(weight, input.ndim)
    if bias is not None:
        y = y + _bcast(bias, input.ndim)
    dt = input.dtype
    c = input.shape[1]
    return (_bn_layout(y.astype(dt, copy=False), input), mean.reshape(c).astype(dt),
            (1 / std).reshape(c).astype(dt))


def _stats(input, eps):
    """Centred input and 1/std over every dim but the channels, in viewgrad ops."""
    dims = _red_dims(input.dim())
    xc = input - input.mean(dims, keepdim=True)
    invstd = ((xc * xc).mean(dims, keepdim=True) + eps).pow(-0.5)
    return dims, xc, invstd


# Each formula takes all that PyTorch's one formula for the three inputs takes (input,
# weight, the running statistics, training, eps and the saved statistics result1 and
# result2), so all are saved, and version-checked, whichever gradient is needed. The
# formulas recompute the batch statistics from the input with viewgrad ops (double
# backward differentiates through them) rather than read result1 and result2.

def _train_input_bwd(grad, input, weight, eps, running_mean, running_var, training,
                     result1, result2):
    # d/dx of w * (x - mean) * invstd, with mean and invstd functions of x:
    #   invstd * w * (grad - mean(grad) - xhat * mean(grad * xhat))
    dims, xc, invstd = _stats(input, eps)
    xhat = xc * invstd
    g_mean = grad.mean(dims, keepdim=True)
    gx_mean = (grad * xhat).mean(dims, keepdim=True)
    scale = invstd if weight is None else invstd * _bcast(weight, input.dim())
    return scale * (grad - g_mean - xhat * gx_mean)


def _train_weight_bwd(grad, input, eps, weight, running_mean, running_var, training,
                      result1, result2):
    dims, xc, invstd = _stats(input, eps)
    return (grad * xc * invstd).sum(dims)


def _bias_bwd(grad):
    return grad.sum(_red_dims(grad.dim()))


BATCH_NORM = defop("native_batch_norm", "NativeBatchNormBackward0", _train_fwd,
                   inputs=("input", "weight", "bias"),
                   attrs=("running_mean", "running_var", "training", "eps", "result1",
                          "result2"),
                   input=_train_input_bwd, weight=_train_weight_bwd,
                   bias=lambda grad, input, weight, running_mean, running_var, training,
                   eps, result1, result2: _bias_bwd(grad))


def _stats_arrays(input, eps):
    xp = _xp(input)
    dims = _red_dims(input.ndim)
    xc = input - B.array_mean(input, dims, True)   # (Note [warnings from NumPy's own Python])
    invstd = 1 / xp.sqrt(B.array_mean(xc * xc, dims, True) + eps)
    return dims, xc, invstd


# (the kernels take the saved statistics too, unread, so that they are version-checked as
# by the formulas: PyTorch's node unpacks every saved tensor)
def _train_input_fast(grad, input, weight, eps, result1, result2):
    dims, xc, invstd = _stats_arrays(input, eps)
    xhat = xc * invstd
    scale = invstd if weight is None else invstd * _bcast(weight, input.ndim)
    return scale * (grad - B.array_mean(grad, dims, True)
                    - xhat * B.array_mean(grad * xhat, dims, True))


def _train_weight_fast(grad, input, eps, result1, result2):
    dims, xc, invstd = _stats_arrays(input, eps)
    return B.array_sum(grad * xc * invstd, dims)   # (Note [warnings from NumPy's own Python])


set_fast_kernels(BATCH_NORM, input=_train_input_fast, weight=_train_weight_fast,
                 bias=lambda grad, result1, result2: B.array_sum(grad, _red_dims(grad.ndim)))


# -- eval: running statistics ----------------------------------------------------------------

def _eval_fwd(input, weight, bias, running_mean, running_var, training, eps):
    """(output, two empty statistics): PyTorch's kernel returns empty ones in eval mode."""
    xp = _xp(input)
    nd = input.ndim
    y = (input - _bcast(running_mean, nd)) / xp.sqrt(_bcast(running_var, nd) + eps)
    if weight is not None:
        y = y * _bcast(weight, nd)
    if bias is not None:
        y = y + _bcast(bias, nd)
    return (_bn_layout(y.astype(input.dtype, copy=False), input),
            xp.empty((0,), input.dtype), xp.empty((0,), input.dtype))


def _bn_layout(y, input):
    """PyTorch's layout for batch_norm's output: channels_last kept, else row-major."""
    return y if y.ndim == 4 and B.is_channels_last(input) else B.row_major(y)


def _eval_input_bwd(grad, weight, running_var, eps, input, running_mean, training, result1,
                    result2):
    scale = (running_var + eps).pow(-0.5)
    if weight is not None:
        scale = scale * weight
    return grad * _bcast(scale, grad.dim())


def _eval_weight_bwd(grad, input, running_mean, running_var, eps, weight, training,
                     result1, result2):
    nd = input.dim()
    xhat = (input - _bcast(running_mean, nd)) * _bcast((running_var + eps).pow(-0.5), nd)
    return (grad * xhat).sum(_red_dims(nd))


BATCH_NORM_EVAL = defop("native_batch_norm_eval", "NativeBatchNormBackward0", _eval_fwd,
                        inputs=("input", "weight", "bias", "running_mean", "running_var"),
                        attrs=("training", "eps", "result1", "result2"),
                        # (every formula takes all: the training row's comment)
                        input=_eval_input_bwd, weight=_eval_weight_bwd,
                        bias=lambda grad, input, weight, running_mean, running_var,
                        training, eps, result1, result2: _bias_bwd(grad))


set_fast_kernels(
    BATCH_NORM_EVAL,
    input=lambda grad, weight, running_var, eps: grad * _bcast(
        (1 / _xp(grad).sqrt(running_var + eps)) * (1 if weight is None else weight), grad.ndim),
    weight=lambda grad, input, running_mean, running_var, eps: B.array_sum(
        grad * (input - _bcast(running_mean, input.ndim))
        / _xp(grad).sqrt(_bcast(running_var, input.ndim) + eps), _red_dims(input.ndim)),
    bias=lambda grad: B.array_sum(grad, _red_dims(grad.ndim)))


def _check_channels(t, name, c):
    if t is None:
        return
    if not isinstance(t, Tensor):
        raise TypeError(f"batch_norm(): argument '{name}' must be Tensor or None, not "
                        f"{type(t).__name__}")
    if t.dim() != 1 or t.shape[0] != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t.numel()} (input of "
                           f"size {list(t.shape) if t.dim() != 1 else c}: expected shape "
                           f"[{c}], got {list(t.shape)})")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalisation over every dim but dim 1 (the channels) of an (N, C, ...) input.

    ``training=True`` normalises with the batch statistics and, when running stats are
    given, updates them in place: ``running = (1 - momentum) * running + momentum * batch``
    (the batch variance unbiased). ``training=False`` uses the running statistics.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"batch_norm(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    if input.dim() < 2:
        raise ValueError(f"batch_norm: expected 2D or more input (N, C, ...), but got input of "
                         f"size {list(input.shape)}")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"batch_norm: expected a floating point input, got "
                           f"{B.dtype_name(input.dtype)}")
    check_mixed_dtypes(input, running_mean, running_var, weight, bias)
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        _check_channels(t, name, c)
    if (running_mean is None) != (running_var is None):
        raise RuntimeError("batch_norm: running_mean and running_var must both be given or "
                           "both be None")
    if not training:
        if running_mean is None:   # (PyTorch's words; viewgrad asks for both together)
            raise RuntimeError("running_mean must be defined in evaluation mode (batch_norm "
                               "with training=False: pass running_mean and running_var)")
        return dispatch_stats(BATCH_NORM_EVAL,
                              (input, weight, bias, running_mean, running_var),
                              (False, float(eps)))
    count = input.numel() // c if c else 0
    if count <= 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {input.shape!r}")   # (torch.Size([...]) there)
    out = dispatch_stats(BATCH_NORM, (input, weight, bias),
                         (running_mean, running_var, True, float(eps)))
    if running_mean is not None:
        _update_running(input, running_mean, running_var, momentum, count)
    return out


def _update_running(input, running_mean, running_var, momentum, count):
    data = input._data
    dims = _red_dims(data.ndim)
    # Note [running statistics, PyTorch's arithmetic]: the batch mean and the sum of
    # squared deviations are accumulated in double and stored in the buffers' dtype;
    # the mean's update is then computed in that dtype (momentum cast to it), the
    # variance's in double from that stored sum (divided by n - 1: unbiased), rounded
    # once. The same operations, in the same order, give PyTorch's bits.
    pdt = running_mean._data.dtype if running_mean is not None else data.dtype
    mean64 = B.array_mean(data, dims, dtype="float64")
    mean = mean64.astype(pdt)
    var_sum = ((data - mean64.reshape(_keep_shape(data.ndim, mean64.shape[0]))) ** 2).sum(
        axis=dims, dtype="float64").astype(pdt)
    m = B.xp_of(data).asarray(momentum, dtype=pdt)
    one_minus = B.xp_of(data).asarray(1, dtype=pdt) - m
    # Written straight into the buffers' memory, as PyTorch's kernel does: the running
    # statistics' _version does not move (no autograd node saves them) and the tracer
    # records no in-place event for them.
    running_mean._data[...] = (m * mean + one_minus * running_mean._data).astype(
        running_mean.dtype)
    unbiased = var_sum.astype("float64") / (count - 1)
    running_var._data[...] = (m.astype("float64") * unbiased
                              + (one_minus * running_var._data).astype("float64")).astype(
        running_var.dtype)


def _keep_shape(ndim, c):
    """The shape that broadcasts a per-channel vector over an (N, C, ...) array."""
    return (1, c) + (1,) * (ndim - 2)


# -- dropout -----------------------------------------------------------------------------------

def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by 1/(1-p) (training
    only). The mask is drawn as PyTorch draws it (``bernoulli_(1 - p)`` from the global
    generator), so after the same ``manual_seed`` the same units are dropped."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    from .factories import empty_like, zeros_like
    if p == 1.0:
        mask = zeros_like(input)
    else:
        mask = empty_like(input).bernoulli_(1 - p).div_(1 - p)
    return input.mul_(mask) if inplace else input * mask
