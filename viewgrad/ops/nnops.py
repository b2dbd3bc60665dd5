"""Neural-network ops of the core: softmax, log_softmax, linear, mse_loss, nll_loss,
cross_entropy. (Convolution, pooling and batch norm live in ``viewgrad.nn.functional``.)
"""
from __future__ import annotations

import math

from .. import backend as B
from ..tensor import Tensor, _wrap_dim
from ..autograd import blame as _blame
from ..autograd.saved_names import show_given
from ..autograd.graph import ERR_FREED, _new_saved_tensor, next_sequence_nr as _next_seq
from ..autograd.state import odd_threads as _ODD, state as _st
from ..tensor import new_result
from . import lean_dims as _lean_dims
from . import nn_fast as _nnf
from .linalg import ADDMM, addmm, matmul
from .pointwise import div_scalar, mul_scalar
from .reduce import mean_all_host
from .views import T as _T, t as _t
from .args import check_no_requires_grad, torch_type_name
from .operands import type_name
from .table import FnNode, defop, dispatch, method

__all__ = ["softmax", "log_softmax", "linear", "mse_loss", "nll_loss", "cross_entropy"]

_xp = B.xp_of


def _softmax_fwd(self, dim):
    if self.size == 0:   # nothing to normalise (the max below has no identity)
        return self.copy()
    if self.ndim == 0:   # "dim 0" of a 0-d tensor: CuPy's reductions take no axis there
        dim = None
    xp = _xp(self)
    e = xp.exp(self - self.max(axis=dim, keepdims=True))
    return B.row_major(e / e.sum(axis=dim, keepdims=True))   # (PyTorch's layout)


def _log_softmax_fwd(self, dim):
    if self.size == 0:
        return self.copy()
    if self.ndim == 0:
        dim = None
    xp = _xp(self)
    z = self - self.max(axis=dim, keepdims=True)
    return B.row_major(z - xp.log(xp.exp(z).sum(axis=dim, keepdims=True)))


SOFTMAX = defop("softmax", "SoftmaxBackward0", _softmax_fwd, attrs=("dim",),
                self=lambda grad, result, dim:
                (grad - (grad * result).sum(dim, keepdim=True)) * result)
LOG_SOFTMAX = defop("log_softmax", "LogSoftmaxBackward0", _log_softmax_fwd, attrs=("dim",),
                    self=lambda grad, result, dim:
                    grad - result.exp() * grad.sum(dim, keepdim=True))


def _one_dim(k):
    return (k,)


def _float_check(x, name, dim=None):
    if x._data.dtype.kind != "f" and dim is not None:   # PyTorch's kernel refuses it
        last = "lastdim_" if _wrap_dim(dim, x.dim()) == x.dim() - 1 else ""
        raise NotImplementedError(f'"{name}_{last}kernel_impl" not implemented for '
                                  f"'{torch_type_name(x._data.dtype)}' ({name} takes floating "
                                  "point tensors: call .float() first, or pass dtype=)")
    if x._data.dtype.kind != "f":
        raise RuntimeError(f"{name}: expected a floating point input, got "
                           f"{B.dtype_name(x.dtype)}; call .float() first")


@method("softmax")
def softmax(input, dim, dtype=None):
    """``exp(x) / exp(x).sum(dim)`` (SoftmaxBackward0); ``dtype`` casts the input first
    (ToCopyBackward0 under it), as PyTorch's."""
    if dtype is None:   # Note [lean dim ops]
        out = _lean_dims.run(SOFTMAX, input, dim, _one_dim, _lean_dims.softmax_host)
        if out is not None:
            return out
    else:
        input = input.to(dtype)
    _float_check(input, "softmax", dim)
    d = _wrap_dim(dim, input.dim())   # (shown as given: Note [dims as given])
    return show_given(dispatch(SOFTMAX, (input,), (d,)), "dim", dim, d)


@method("log_softmax")
def log_softmax(input, dim, dtype=None):
    """``x - logsumexp(x, dim)`` (LogSoftmaxBackward0); ``dtype`` casts the input first."""
    if dtype is None:   # Note [lean dim ops]
        out = _lean_dims.run(LOG_SOFTMAX, input, dim, _one_dim, _lean_dims.log_softmax_host)
        if out is not None:
            return out
    else:
        input = input.to(dtype)
    _float_check(input, "log_softmax", dim)
    d = _wrap_dim(dim, input.dim())   # (shown as given: Note [dims as given])
    return show_given(dispatch(LOG_SOFTMAX, (input,), (d,)), "dim", dim, d)


def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` (AddmmBackward0 for 2-D input with bias, as PyTorch)."""
    if bias is not None:   # addmm(bias, input, weight.t()) in one body: Note [lean linear]
        out = _nnf.lean_linear(input, weight, bias, _T, ADDMM, _t)
        if out is not None:
            return out
    for name, pos, a in (("input", 1, input), ("weight", 2, weight), ("bias", 3, bias)):
        if not isinstance(a, Tensor) and (a is not None or name != "bias"):
            raise TypeError(f"linear(): argument '{name}' (position {pos}) must be Tensor, "
                            f"not {type_name(a)}")
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{input.dim()}D and {weight.dim()}D")
    # PyTorch's at::linear: with a bias, a 2-D input is one addmm; any other contiguous
    # input is flattened to 2-D (a view), addmm'ed and viewed back (_flatten_nd_linear);
    # otherwise matmul, then the bias added in place
    flatten = bias is not None and input.dim() != 2 and input.is_contiguous()
    rows = (math.prod(input.shape[:-1]), input.shape[-1]) if flatten else input.shape
    if input.shape[-1] != weight.shape[-1]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({'x'.join(map(str, rows))}"
            f" and {'x'.join(map(str, weight.t().shape))}): input features "
            f"({input.shape[-1]}) must equal weight.shape[1] ({weight.shape[-1]})")
    if input.dim() == 2 and bias is not None:
        return addmm(bias, input, weight.t())
    if flatten:
        out = addmm(bias, input.reshape(rows), weight.t())
        return out.view(tuple(input.shape[:-1]) + (out.shape[1],))
    out = matmul(input, weight.t())
    if bias is not None:
        out.add_(bias)
    return out


_RED = ("none", "mean", "sum")


def _reduction(reduction):
    if reduction not in _RED:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _mse_fwd(self, target, reduction):
    d = (self - target) ** 2
    if self.dtype != target.dtype:
        # PyTorch's type promotion, not NumPy's: float32 - int64 stays float32 there
        dims = [a.dtype for a in (self, target) if a.ndim]
        zero_dims = [a.dtype for a in (self, target) if not a.ndim]
        d = d.astype(B.torch_result_type(dims, zero_dims, []), copy=False)
    xp = _xp(self)
    if reduction == "mean":
        if type(d) is B.HOST_ARRAY and d.dtype.char in "fd":
            return xp.asarray(mean_all_host(d))   # (d.mean()'s steps: Note [host ufuncs])
        return xp.asarray(d.mean())
    if reduction == "sum":
        return xp.asarray(d.sum())
    return d


def _mse_scale(grad, self, target, reduction):
    g = grad * 2 * (self - target)
    if reduction == "mean":
        g = g / self.numel()
    return g


MSE = defop("mse_loss", "MseLossBackward0", _mse_fwd, inputs=("self", "target"),
            attrs=("reduction",), broadcast=True,
            self=_mse_scale,
            target=lambda grad, self, target, reduction: -_mse_scale(grad, self, target,
                                                                     reduction))


def mse_loss(input, target, reduction="mean"):
    if tuple(input.shape) != tuple(target.shape):
        import warnings
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=2)
    return dispatch(MSE, (input, target), (_reduction(reduction),))


# nll_loss on (N, C) scores; higher-rank inputs (N, C, d1, ...) are moved to (N*d, C).

def _nll_terms(xp, self, target, weight, ignore_index):
    if isinstance(weight, Tensor):   # the weight attribute (Note [the class weights, saved])
        weight = weight._data
    n = self.shape[0]
    valid = target != ignore_index
    safe_t = xp.where(valid, target, 0)
    w = weight[safe_t] if weight is not None else xp.ones(n, dtype=self.dtype)
    w = w * valid
    return safe_t, w


def _nll_fwd(self, target, weight, reduction, ignore_index):
    xp = _xp(self)
    if _every_target_counted(self, target, weight, reduction, ignore_index):
        return _nll_fwd_counted(xp, self, target, reduction)  # Note [nll_loss, every target counted]
    safe_t, w = _nll_terms(xp, self, target, weight, ignore_index)
    picked = self[xp.arange(self.shape[0]), safe_t]
    losses = -picked * w
    if reduction == "none":
        return losses.astype(self.dtype)
    if reduction == "sum":
        return xp.asarray(losses.sum(), dtype=self.dtype)
    return xp.asarray(B.quiet_divide(losses.sum(), w.sum()), dtype=self.dtype)


def _nll_scale(xp, w, target, ignore_index, reduction, dtype):
    """-w[t] per row, divided by the total weight for the mean; an ignored row's is 0 even
    when the total is 0 (PyTorch: a loss of NaN, a gradient of 0 there)."""
    scale = -w.astype(dtype)
    if reduction != "mean":
        return scale
    return xp.where(target != ignore_index, B.quiet_divide(scale, w.sum()), 0).astype(dtype)


def _nll_grad_array(grad, target, self, weight, reduction, ignore_index):
    """d(nll)/d(input) on arrays: -w[t] (scaled) at each row's target column (``self``,
    the saved input, gives the shape: PyTorch saves it, so modifying it in place before
    backward raises, as there)."""
    self_shape = self.shape
    xp = _xp(grad)
    if grad.ndim == 0 and _every_target_counted(grad, target, weight, reduction, ignore_index,
                                                 self_shape[0]):
        return _nll_grad_counted(xp, grad, target, self_shape, reduction)  # Note [nll_loss, every target counted]
    safe_t, w = _nll_terms(xp, xp.zeros(self_shape[:1], dtype=grad.dtype), target, weight,
                           ignore_index)
    scale = _nll_scale(xp, w, target, ignore_index, reduction, grad.dtype)
    z = xp.zeros(self_shape, dtype=grad.dtype)
    z[xp.arange(self_shape[0]), safe_t] = grad * scale
    return z


def _nll_bwd(grad, target, self, weight, reduction, ignore_index):
    return _nll_bwd_rows(grad, target, tuple(self.shape), weight, reduction, ignore_index)


def _nll_bwd_rows(grad, target, self_shape, weight, reduction, ignore_index):
    # Differentiable in grad (linear): scatter grad * scale at the targets.
    from .factories import zeros
    xp = grad._device.xp
    safe_t, w = _nll_terms(xp, xp.zeros(self_shape[:1], dtype=grad.dtype), target._data,
                           weight, ignore_index)
    scale = Tensor._make(_nll_scale(xp, w, target._data, ignore_index, reduction, grad.dtype),
                         grad._device)
    g = grad * scale if reduction == "none" else grad.expand(tuple(scale.shape)) * scale
    z = zeros(self_shape, dtype=grad.dtype, device=grad.device)
    idx = Tensor._make(safe_t.reshape(-1, 1), grad._device)
    return z.scatter(1, idx, g.unsqueeze(1))


class _NllNode(FnNode):
    """NllLossBackward0's and NllLoss2DBackward0's class: Note [lean cross_entropy]'s
    backward step, and ``_saved_total_weight``."""

    __slots__ = ()
    _counted = False   # set by _lean_cross_entropy: every target counted, at its version

    @property
    def _saved_total_weight(self):
        """PyTorch's saved ``total_weight``, the second output of its forward: the summed
        class weights of the counted targets (their number without weights; 0 for
        reduction 'none'), a 0-d tensor of the input's dtype. Made from the saved target
        and attributes when asked; freed with them."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(ERR_FREED)
        # (as saved, whatever happened to them since: torch's total_weight is its own)
        target, x = _saved_data(saved["target"], self), _saved_data(saved["self"], self)
        xp = _xp(target)
        if saved["reduction"] == "none":
            total = xp.zeros((), dtype=x.dtype)
        else:
            t = target.reshape(-1)
            weight = saved["weight"]
            if weight is not None:   # (a SavedTensor: Note [the class weights, saved])
                weight = _saved_data(weight, self)
            _, w = _nll_terms(xp, xp.zeros(t.shape, dtype=x.dtype), t, weight,
                              saved["ignore_index"])
            total = xp.asarray(w.sum(), dtype=x.dtype)
        return Tensor._make(total, B.device_of_array(total))

    def _lean_apply(self, grads):
        """The plain backward loop's first try (Note [lean apply], autograd/apply_lean.py):
        the counted gradient, or None (then the general ``apply_arrays`` runs)."""
        g = grads[0]
        saved = self._sdict   # (this row's nodes are made by _lean_cross_entropy or record)
        if (self._counted and type(g) is _HOST and g.ndim == 0 and g.dtype.char in "fd"
                and saved is not None and _nnf._lean_on[0]):
            t = _nnf.saved_array(saved["target"])   # unmodified since the forward's check
            x = _nnf.saved_array(saved["self"])     # (None if modified: the general step raises)
            if type(t) is _HOST and x is not None and _nnf._enabled[0]:
                r = _nll_grad_counted(_xp(g), g, t, x.shape, saved["reduction"])
                dt = self._dtypes[0]
                return [r if r.dtype == dt else r.astype(dt)]
        return None


def _saved_data(st, node):
    """The array a SavedTensor refers to, read without a version check (unpacked only
    when saved-tensor hooks hold it)."""
    if st.tensor is not None:
        return st.tensor._data
    return st.data if st.data is not None else st.unpack(node)._data


NLL = defop("nll_loss", "NllLossBackward0", _nll_fwd, inputs=("self", "target"),
            attrs=("weight", "reduction", "ignore_index"), cls=_NllNode,
            self=_nll_bwd)
NLL.set_fast(self=_nll_grad_array)


# (N, C, d1, ...) scores: the class dim moved last and flattened, as nll_loss2d does.

def _to_rows(x):
    nd = x.ndim
    return x.transpose((0,) + tuple(range(2, nd)) + (1,)).reshape(-1, x.shape[1])


def _nll2d_fwd(self, target, weight, reduction, ignore_index):
    out = _nll_fwd(_to_rows(self), target.reshape(-1), weight, reduction, ignore_index)
    return out.reshape(target.shape) if reduction == "none" else out


def _nll2d_bwd(grad, target, self, weight, reduction, ignore_index):
    self_shape = tuple(self.shape)
    n, c = self_shape[0], self_shape[1]
    rest = tuple(self_shape[2:])
    rows = (n * math.prod(rest), c)
    g = grad.reshape(-1) if reduction == "none" else grad
    g2 = _nll_bwd_rows(g, target.reshape(-1), rows, weight, reduction, ignore_index)
    nd = len(self_shape)
    return g2.reshape((n,) + rest + (c,)).permute((0, nd - 1) + tuple(range(1, nd - 1)))


NLL2D = defop("nll_loss2d", "NllLoss2DBackward0", _nll2d_fwd, inputs=("self", "target"),
              attrs=("weight", "reduction", "ignore_index"), cls=_NllNode, self=_nll2d_bwd)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    _reduction(reduction)
    if not isinstance(target, Tensor):
        raise TypeError(f"nll_loss(): argument 'target' (position 2) must be Tensor, not "
                        f"{type_name(target)}")
    if target._data.dtype not in _TARGET_DTYPES:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{torch_type_name(target.dtype)} (class indices are int64)")
    if target.dim() > 1 and input.dim() < 3:   # (a column of class indices: not a broadcast)
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.dim() == 1:
        if target.dim() == 1 and target.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                             f"{target.shape[0]}")
        return nll_loss(input.unsqueeze(0), target.reshape(1), weight, ignore_index,
                        reduction).reshape(())  if reduction != "none" else nll_loss(
            input.unsqueeze(0), target.reshape(1), weight, ignore_index, reduction).squeeze(0)
    if input.dim() > 2:
        if tuple(target.shape) != (input.shape[0],) + tuple(input.shape[2:]):
            raise ValueError(f"Expected target size {[input.shape[0]] + list(input.shape[2:])}"
                             f", got {list(target.shape)}")
        _check_targets(target, input.shape[1], ignore_index)
        check_no_requires_grad(weight, "weight", "nll_loss2d_forward")
        return dispatch(NLL2D, (input, target), (_warray(weight, input), reduction,
                                                 ignore_index))
    tn = target.shape[0] if target.dim() else 0   # a 0-d target has batch size 0 there
    if input.shape[0] != tn:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({tn}).")
    _check_targets(target, input.shape[1], ignore_index)
    check_no_requires_grad(weight, "weight", "nll_loss_forward")
    return dispatch(NLL, (input, target), (_warray(weight, input), reduction, ignore_index))


# Note [the class weights, saved]
# nll_loss's ``weight`` is an attribute of the node, not an input (PyTorch gives it no
# gradient either), but PyTorch saves it as a tensor and checks its version at backward:
# weights modified in place in between are refused. So the attribute is the Tensor itself,
# which the node saves as a SavedTensor (recording.py ``_save``); the kernels read its array.
# (It was its array: the backward used the modified weights, a wrong gradient, silently.)

def _warray(weight, input):
    """The class weights, checked: a Tensor of one weight per class on input's device
    (Note [the class weights, saved])."""
    if weight is None:
        return None
    if not isinstance(weight, Tensor) or tuple(weight.shape) != (input.shape[1],):
        raise RuntimeError(f"weight tensor should be defined either for all {input.shape[1]} "
                           f"classes or no classes but got weight tensor of shape: "
                           f"{list(getattr(weight, 'shape', []))}")
    if weight._device is not input._device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least "
                           f"two devices, {input.device.type} and {weight.device.type}!")
    return weight


def _check_targets(target, c, ignore_index):
    if target.numel():
        t = target._data
        if _nnf._enabled[0] and 0 <= t.min() and t.max() < c:   # Note [nll_loss, every target counted]
            return
        bad = (t >= c) | ((t < 0) & (t != ignore_index))
        if bool(bad.any()):
            v = int(t[bad].reshape(-1)[0])
            raise IndexError(f"Target {v} is out of bounds. (There are {c} classes: a target "
                             f"is a class index from 0 to {c - 1}.)")


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """log_softmax over dim 1 (dim 0 for a 1-D input) then nll_loss, as PyTorch."""
    if weight is None and not label_smoothing and (reduction == "mean" or reduction == "sum"):
        loss = _lean_cross_entropy(input, target, ignore_index, reduction)   # Note [lean cross_entropy]
        if loss is not None:
            return loss
    _float_check(input, "cross_entropy")
    _reduction(reduction)
    cdim = 0 if input.dim() == 1 else 1
    c = input.shape[cdim]
    if label_smoothing > 0.0 and label_smoothing > 1.0:   # (PyTorch ignores a negative one)
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")
    logp = log_softmax(input, cdim)
    # Note [cross_entropy's weights and smoothing]: PyTorch's formulas, term by term. The
    # class weights scale every class's term (probability targets too), label smoothing
    # mixes in the uniform distribution, and a target equal to ignore_index counts in
    # neither the smoothing term nor the mean's divisor.
    w = None if weight is None else (weight if input.dim() == 1 else weight.reshape(
        (1, c) + (1,) * (input.dim() - 2)))
    if (isinstance(target, Tensor) and target._data.dtype.kind != "f"
            and tuple(target.shape) == tuple(input.shape)):
        raise RuntimeError(f"Expected floating point type for target with class "
                           f"probabilities, got {torch_type_name(target.dtype)}")
    if isinstance(target, Tensor) and target._data.dtype.kind == "f":
        # class probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(
                f"expected target dtype to be Long or Byte, but got "
                f"{torch_type_name(target.dtype)} (class-index targets are integers; "
                f"probability targets have the input's shape {list(input.shape)}, got "
                f"{list(target.shape)})")
        if label_smoothing > 0.0:
            target = target * (1 - label_smoothing) + label_smoothing / c
        terms = logp * target if w is None else logp * target * w
        if reduction == "none":
            return -terms.sum(cdim)
        total = -terms.sum()
        # the mean is over the samples (every element but the classes), not the weights
        return div_scalar(total, input.numel() // c) if reduction == "mean" else total
    if label_smoothing <= 0.0:
        return nll_loss(logp, target, weight, ignore_index, reduction)
    nll = nll_loss(logp, target, weight, ignore_index, reduction)
    ignored = target == ignore_index
    smooth = (-(logp * w).sum(cdim) if w is not None else -logp.sum(cdim)).masked_fill(
        ignored, 0.0)
    if reduction == "mean":
        kept = target[~ignored] if target.dim() else target.reshape(1)[~ignored.reshape(1)]
        smooth = smooth.sum() / (weight[kept].sum() if weight is not None
                                 else (~ignored).sum())
    elif reduction == "sum":
        smooth = smooth.sum()
    # (numbers multiplied as PyTorch's C++ does: MulBackward1, Note [a Scalar inside
    # PyTorch's own composites])
    return mul_scalar(nll, 1 - label_smoothing) + mul_scalar(smooth, label_smoothing / c)


def _reduce(x, reduction):
    _reduction(reduction)
    if reduction == "mean":
        return x.mean()
    if reduction == "sum":
        return x.sum()
    return x


# Note [nll_loss, every target counted]
# A speed trick for the common call (cross_entropy's default: no class weights, no target
# equal to ignore_index, reduction "mean" or "sum", float32/float64 scores): every weight
# is 1, so ``_nll_terms``' arrays (the valid mask, the safe targets, the ones and their
# product) are not built. The arithmetic that reaches the result is kept op for op:
# ``-picked * 1`` (a NaN comes out as the teaching path's), the sum, and the division by
# ``w.sum()``, which is n exactly; in backward, ``grad * ((-1) / n)`` (``-w / w.sum()``,
# the same division in the same dtype) written at each row's target. ``_check_targets``
# likewise asks min and max first. tests/ops/test_nn_fast_paths.py compares both ways.

def _every_target_counted(x, target, weight, reduction, ignore_index, n=None):
    return (weight is None and reduction != "none" and _nnf._enabled[0] and x.dtype.char in "fd"
            and (x.shape[0] if n is None else n) > 0
            and not bool((target == ignore_index).any()))


def _nll_fwd_counted(xp, self, target, reduction):
    n = self.shape[0]
    losses = -self[xp.arange(n), target]
    losses *= 1.0   # the teaching path's ``* w``
    # (on the host: the sum's reduce without ndarray.sum's wrapper, and n as a scalar of
    # the dtype, which divides with the same rounding as a 0-d array)
    host = type(losses) is _HOST
    total = _add_reduce(losses) if host else losses.sum()
    if reduction == "sum":
        return xp.asarray(total, dtype=self.dtype)
    count = self.dtype.type(n) if host else xp.asarray(n, dtype=self.dtype)
    return xp.asarray(total / count, dtype=self.dtype)


def _nll_grad_counted(xp, grad, target, self_shape, reduction):
    dt = grad.dtype
    if type(grad) is _HOST:   # (scalars of the dtype: the same roundings as 0-d arrays)
        scale = dt.type(-1.0)
        if reduction == "mean":
            scale = scale / dt.type(self_shape[0])
    else:
        scale = xp.asarray(-1.0, dtype=dt)
        if reduction == "mean":
            scale = scale / xp.asarray(self_shape[0], dtype=dt)
    z = xp.zeros(self_shape, dtype=dt)
    z[xp.arange(self_shape[0]), target] = grad * scale
    return z


# Note [lean cross_entropy]
# A speed trick, fenced off here: ``cross_entropy(z, t)`` with class-index targets, no
# weights, no label smoothing and reduction "mean" or "sum" is ``log_softmax`` then
# ``nll_loss``: the same two rows. For host float32/float64 scores (n, c) with a history
# (not a view), int targets (n,) on the same device, every target in range and none
# equal to ignore_index (min and max answer both: Note [nll_loss, every target counted]),
# grad mode on and the autograd state plain (no inference or anomaly mode, no saved-tensor
# hooks), ``_lean_cross_entropy`` runs LOG_SOFTMAX through ``dispatch`` and then what
# ``nll_loss``'s checks, ``dispatch`` and ``record`` do for NLL, in one body: the same
# forward (``_nll_fwd_counted``), the same node with its one edge, sequence number, saved
# values (the target, with the blame mark of the user's line, its shape, the attributes)
# and ``_dtypes``. Every other call returns None and takes the teaching path, which also
# raises every error. Its node remembers that every target counted (``_counted``): its
# backward step (``_NllNode``) then goes straight to ``_nll_grad_counted`` while the saved
# target is unmodified (its version, as ``_kernel_args`` asks; anything else is the
# general step, which raises). tests/ops/test_nn_fast_paths.py compares both ways.

def _lean_cross_entropy(input, target, ignore_index, reduction):
    if type(input) is not Tensor or type(target) is not Tensor or not _nnf._enabled[0]:
        return None
    x = input._data
    t = target._data
    st = _st
    if (type(x) is not _HOST or type(t) is not _HOST or x.ndim != 2 or t.ndim != 1
            or x.dtype.char not in "fd" or t.dtype not in _TARGET_DTYPES or not x.shape[0]
            or t.shape[0] != x.shape[0] or not x.shape[1] or target._device is not input._device
            or input._view_info is not None or input._grad_fn is None
            or (_ODD and not st.plain)   # Note [every thread plain]
            or type(ignore_index) is not int):
        return None
    c = x.shape[1]
    if 0 <= ignore_index < c or not (0 <= _min_reduce(t) and _max_reduce(t) < c):
        return None
    # (Note [lean dim ops]: log_softmax's own lean call, which answers for every input here)
    logp = _lean_dims.run(LOG_SOFTMAX, input, 1, _one_dim, _lean_dims.log_softmax_host)
    if logp is None:
        logp = dispatch(LOG_SOFTMAX, (input,), (1,))
    lp = logp._data
    out = new_result(_nll_fwd_counted(_xp(lp), lp, t, reduction), input._device)
    node = _new(NLL.node_cls)   # (logp has a history: input has one)
    node.next_functions = ((logp._grad_fn, logp._output_nr),)
    node._seq_nr = _next_seq()
    saved = {}
    attrs = (None, reduction, ignore_index)
    inputs = (logp, target)
    where = None
    for name, kind, idx in NLL._plans.get(_SELF_ONLY) or NLL.save_plan(_SELF_ONLY):
        if kind == 0:   # the log-probabilities and the target
            s = _new_saved_tensor(inputs[idx], False)
            if where is None and st.blame:   # the user's line, as _save finds it
                where = (NLL.node_name, _blame.user_frame(3))
            s.where = where
            saved[name] = s
        elif kind == 2:
            saved[name] = attrs[idx]
        else:
            raise AssertionError(f"nll_loss saves no {name!r}")
    node._sdict = saved
    node._releasable = True
    node._dtypes = (lp.dtype, t.dtype)
    node._counted = True
    out._grad_fn = node
    return out


_SELF_ONLY = (True, False)
_TARGET_DTYPES = (B.int64, B.uint8)   # class indices: PyTorch's Long or Byte
_HOST = B.HOST_ARRAY
_add_reduce = B.host_ufunc("add").reduce
_min_reduce = B.host_ufunc("minimum").reduce   # (t.min() and t.max() without their Python)
_max_reduce = B.host_ufunc("maximum").reduce
_new = object.__new__
