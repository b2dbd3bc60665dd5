"""Statistics and scans: var / std (and var_mean / std_mean), prod, cumsum, cumprod,
logsumexp — each a row of the derivatives table named as PyTorch names its node
(VarBackward0, StdBackward0, VarMeanBackward0, StdMeanBackward0, ProdBackward0/1,
CumsumBackward0, CumprodBackward0, LogsumexpBackward0).

Every backward formula is written in viewgrad ops, so double backward works. Two of them
need care where the obvious formula divides by zero:

Note [products with zeros]
~~~~~~~~~~~~~~~~~~~~~~~~~~
``d prod(x) / d x_k`` is the product of all the *other* entries. ``result / x_k`` is that
product only while ``x_k != 0``; with one zero it is 0/0 at the zero (whose true gradient
is the product of the rest) and with two zeros every gradient is 0. PyTorch's
prod_backward, followed branch for branch (the same values at inf, NaN and overflow):
with no zero in the input it is ``grad * (result / x)`` (so an infinite entry's gradient
is inf/inf = NaN, as there); with zeros it never divides: the product of the others is
the exclusive cumulative product from the left times the one from the right
(``_prod_others``). For the full product with two zeros or more and grad mode off (no
double backward to come) every gradient is 0, without computing anything.

``cumprod`` has the same problem per prefix. Its gradient at ``k`` is
``sum_{j>=k} grad_j * prod_{i<=j, i!=k} x_i``. Before the first zero of a slice
(``k < z``) it is ``(reverse cumsum of grad * result)_k / x_k`` (dividing by a non-zero
``x_k``, and ``result_j`` is already 0 from ``z`` on); after the first zero it is 0 (every
product holds ``x_z``); at the first zero it is ``prod(x[:z]) * sum_{z<=j<z2} grad_j *
prod(x[z+1..j])``, ``z2`` the second zero (the later terms hold two zeros; leaving them
out keeps an infinite entry there from making 0 * inf = NaN). A slice of one entry passes
its gradient as it is. This is what PyTorch's cumprod_backward computes, bit for bit at
0, inf and NaN; under create_graph it takes every term one k at a time
(``_cumprod_bwd_by_terms``), differentiable in turn, as PyTorch does.

Note [var's gradient without degrees of freedom]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Where ``N - correction <= 0`` the forward divides by ``max(0, N - correction)`` (inf, or
NaN for a constant slice), and PyTorch's var_backward has two branches that we follow:
with no ``dim`` given (or a 0-d input) the gradient is ``grad * (NaN where x == mean
else inf)``, the sign coming from ``grad`` alone; with a ``dim`` it is still
``2 (x - mean) / (N - correction)``: inf times ``(x - mean)`` at ``N == correction`` and
a finite, negative scale when ``correction > N``. std's gradient goes through the same
function after ``grad / (2 std)`` (0 where std is inf).
"""
from __future__ import annotations

import math
import warnings

from .. import backend as B
from ..autograd.state import state as _st
from ..tensor import Tensor, _unique_dims, _wrap_dim
from .args import torch_type_name
from ..autograd.saved_names import show_as, show_given
from .reduce import _count, _restore, given_dims
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .table import apply_inplace, defop, dispatch, fresh_results, method, record, _edges

__all__ = ["var", "std", "var_mean", "std_mean", "prod", "cumsum", "cumprod", "logsumexp",
           "nansum", "nanmean"]

_xp = B.xp_of
_make = Tensor._make


def _red_dims(dim, ndim):
    """dim of var/std/logsumexp (None, an int or a sequence; an empty one means all) as a
    sorted tuple; a 0-d tensor reduces over no axis (PyTorch accepts dim 0 / -1 there)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    dims = sorted(_unique_dims([_wrap_dim(int(d), ndim) for d in dim]))
    if ndim == 0:
        return ()
    return tuple(dims) if dims else tuple(range(ndim))


# -- var / std -------------------------------------------------------------------------------

def _dof_warning(name, n, correction):
    if n - correction <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
                      "less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=4)


def _var_fwd(self, dim, correction, keepdim):
    xp = _xp(self)
    n = _count(self.shape, dim)
    # (B.array_mean/array_sum: Note [warnings from NumPy's own Python])
    dev = self - B.array_mean(self, dim, True) if n else self
    if dev.dtype.kind == "c":   # |dev|², real: a complex tensor's variance is real
        dev = xp.abs(dev)
    ss = B.array_sum(dev * dev, dim, None, keepdim)
    dof = n - correction
    if dof > 0:
        return xp.asarray(ss / dof)
    # PyTorch divides by max(0, dof): +inf, or nan where the sum is 0 (or empty)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return xp.asarray(ss * math.inf if n else ss * math.nan)


def _var_bwd(grad, self, dim, correction, keepdim):
    # d var / d x = 2 (x - mean) / (N - correction), PyTorch's var_backward, with its two
    # branches where N - correction <= 0 (Note [var's gradient without degrees of freedom])
    dof = _count(self.shape, dim) - correction
    if dof <= 0 and (dim is None or self.dim() == 0):
        return grad * _make(_xp(self).where(self._data == self._data.mean(), math.nan,
                                            math.inf).astype(self._data.dtype), self._device)
    scale = 2.0 / dof if dof else math.inf
    g = _restore(grad, tuple(self.shape), dim, keepdim)
    return (self - self.mean(dim, keepdim=True)) * g * scale


def _std_grad(grad, result):
    # d std = d var / (2 std); where std is 0 (a constant slice) PyTorch takes the
    # subgradient 0 rather than 0/0
    return (grad / (result * 2)).masked_fill(result == 0, 0.0)


VAR = defop("var", "VarBackward0", _var_fwd, attrs=("dim", "correction", "keepdim"),
            self=_var_bwd)
STD = defop("std", "StdBackward0",
            lambda self, dim, correction, keepdim:
            _xp(self).sqrt(_var_fwd(self, dim, correction, keepdim)),
            attrs=("dim", "correction", "keepdim"),
            self=lambda grad, self, result, dim, correction, keepdim:
            _var_bwd(_std_grad(grad, result), self, dim, correction, keepdim))


def _var_mean_bwd(grads, self, dim, correction, keepdim, std=None):
    gv, gm = grads
    out = None
    if gv is not None:
        if std is not None:  # std_mean: its saved std (PyTorch's _saved_result0)
            gv = _std_grad(gv, std)
        out = _var_bwd(gv, self, dim, correction, keepdim)
    if gm is not None:
        gm = _restore(gm, tuple(self.shape), dim, keepdim).expand(tuple(self.shape)) \
            / _count(tuple(self.shape), dim)
        out = gm if out is None else out + gm
    return out


VAR_MEAN = defop("var_mean", "VarMeanBackward0", None, multi_output=True,
                 attrs=("dim", "correction", "keepdim"),
                 self=lambda grad, self, dim, correction, keepdim:
                 _var_mean_bwd(grad, self, dim, correction, keepdim))
STD_MEAN = defop("std_mean", "StdMeanBackward0", None, multi_output=("result0", "result1"),
                 attrs=("dim", "correction", "keepdim"),
                 self=lambda grad, self, result0, dim, correction, keepdim:
                 _var_mean_bwd(grad, self, dim, correction, keepdim, result0))


def _correction(name, dim, unbiased, correction, keepdim):
    """PyTorch's overloads: var(dim, unbiased, keepdim) and var(dim, *, correction,
    keepdim); var(True) is var(unbiased=True)."""
    if isinstance(dim, bool):           # x.var(False): the old (unbiased) overload
        if unbiased is not None:
            raise TypeError(f"{name}() received an invalid combination of arguments")
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        "(correction=..., unbiased=...): pass one of them (unbiased=False "
                        "is correction=0)")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction


def _check_float(self, name):
    if self._data.dtype.kind not in "fc":
        raise RuntimeError(f"{name} only support floating point and complex dtypes "
                           f"(got {B.dtype_name(self.dtype)}): call .float() first")


def _prepare(self, name, dim, unbiased, correction, keepdim):
    _check_float(self, name if name.endswith("_mean") else "std and var")
    dim, correction = _correction(name, dim, unbiased, correction, keepdim)
    dims = _red_dims(dim, self.dim())
    _dof_warning(name, _count(tuple(self.shape), dims), correction)
    # no dim given is kept as None (PyTorch's _saved_dim shows None, and its backward
    # takes another branch there: Note [var's gradient without degrees of freedom])
    return None if dim is None else dims, correction, given_dims(dim)


@method("var")
def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The variance over ``dim`` (all dims by default) with Bessel's correction
    (``correction=1``, i.e. ``unbiased=True``) as ``torch.var``: ``sum((x - mean)^2) /
    (N - correction)``. Records ``VarBackward0``; its gradient ``2 (x - mean) /
    (N - correction)`` is written in viewgrad ops, so double backward works."""
    dims, c, given = _prepare(self, "var", dim, unbiased, correction, keepdim)
    out = dispatch(VAR, (self,), (dims, c, bool(keepdim)))
    return show_given(_no_correction_given(out, dim, unbiased, correction), "dim", given, dims)


@method("std")
def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The standard deviation ``sqrt(var)`` over ``dim``, as ``torch.std`` (same
    ``correction``/``unbiased`` rules as ``var``). Records ``StdBackward0``; where the
    std is 0 the gradient is the subgradient 0, as in PyTorch."""
    dims, c, given = _prepare(self, "std", dim, unbiased, correction, keepdim)
    out = dispatch(STD, (self,), (dims, c, bool(keepdim)))
    return show_given(_no_correction_given(out, dim, unbiased, correction), "dim", given, dims)


def _no_correction_given(out, dim, unbiased, correction):
    """``x.var()`` with no argument at all is PyTorch's overload whose node keeps the
    correction as None (Note [dims as given]); every other call keeps the number."""
    if dim is None and unbiased is None and correction is None:
        show_as(out[0] if type(out) is tuple else out, "correction", None)
    return out


def _multi(op, self, datas, attrs):
    """Outputs of a non-view multi-output op, all from one node (output_nr 0, 1, ...)."""
    dev = self._device
    outs = tuple(_make(d if type(d) in B.ARRAY_TYPES else dev.xp.asarray(d), dev)
                 for d in datas)
    if _st.grad_enabled:
        edges = _edges((self,))
        if edges is not None:
            for i, o in enumerate(outs):
                o._output_nr = i   # (before record: a row that saves its outputs saves these)
            node = record(op, (self,), outs, attrs, edges)
            node._n_outputs = len(outs)
            for o in outs:
                o._grad_fn = node
    return outs


def _stat_mean(op, name, self, dim, unbiased, keepdim, correction, take_sqrt):
    dims, c, given = _prepare(self, name, dim, unbiased, correction, keepdim)
    xp = self._device.xp
    v = _var_fwd(self._data, dims, c, keepdim)
    m = xp.asarray(B.array_mean(self._data, dims, keepdim)) if self.numel() else \
        xp.full(v.shape, math.nan, dtype=self._data.dtype)
    outs = _multi(op, self, (xp.sqrt(v) if take_sqrt else v, m), (dims, c, bool(keepdim)))
    return show_given(_no_correction_given(outs, dim, unbiased, correction), "dim", given,
                      dims)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` of ``input`` over ``dim`` in one call, as ``torch.var_mean`` (a
    plain tuple). Both outputs come from ONE node, ``VarMeanBackward0``."""
    return _stat_mean(VAR_MEAN, "var_mean", input, dim, unbiased, keepdim, correction, False)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` of ``input`` over ``dim`` in one call, as ``torch.std_mean`` (a
    plain tuple). Both outputs come from ONE node, ``StdMeanBackward0``."""
    return _stat_mean(STD_MEAN, "std_mean", input, dim, unbiased, keepdim, correction, True)


# -- scans: cumsum, cumprod ----------------------------------------------------------------

def _reverse_cumsum(a, dim):
    """``out_k = sum_{j >= k} a_j`` along ``dim`` (the adjoint of cumsum)."""
    if a.dim() == 0:
        return a
    return a.flip(dim).cumsum(dim).flip(dim)


def _scan_fwd(name):
    def fwd(self, dim):
        xp = _xp(self)
        if self.ndim == 0:
            return self.copy()
        # an integer scan stays in its dtype (wrapping), as PyTorch's; NumPy would widen
        dt = self.dtype if self.dtype.kind in "biu" else None
        # (its layout); the method, not NumPy's Python wrapper: Note [warnings from
        # NumPy's own Python]
        return B.row_major(getattr(self, name)(axis=dim, dtype=dt))
    return fwd


def _cumprod_bwd(grad, self, result, dim):
    # Note [products with zeros]
    if self.dim() == 0 or self.numel() <= 1 or self.shape[dim] == 1:
        return grad   # (PyTorch's first answer: one entry per slice passes its gradient)
    from .pointwise import where
    is_zero = self == 0
    if not bool(is_zero._data.any()):
        return _reverse_cumsum(grad * result, dim) / self
    if _st.grad_enabled:   # create_graph: the formula must be differentiable in x too
        return _cumprod_bwd_by_terms(grad, self, dim)
    nz = is_zero.to(B.int64).cumsum(dim)   # zeros seen so far, this one included
    before = nz == 0
    first = is_zero & (nz == 1)
    # (only the products before the first zero: grad * 0 after it is NaN for an infinite
    # grad, and PyTorch sums those terms out)
    g_before = where(before, _reverse_cumsum(where(before, grad * result, 0.0), dim)
                     / where(before, self, 1.0), 0.0)
    # at the first zero z: prod(x[:z]) * sum_{z <= j < z2} grad_j * prod(x[z+1..j]), z2 the
    # second zero (the terms from it on hold two zeros: PyTorch leaves them out, so an
    # infinite entry there does not make 0 * inf = NaN)
    between = nz == 1
    after = where(between & ~first, self, 1.0).cumprod(dim)
    at = (grad * after).masked_fill(~between, 0.0).sum(dim, keepdim=True)
    head = where(before, self, 1.0).prod(dim, keepdim=True)
    return g_before + where(first, head * at, 0.0)


def _cumprod_bwd_by_terms(grad, self, dim):
    # The masks above give the right values, but a masked-out 0 has no derivative; a
    # double backward needs every term: grad_k = sum_{j>=k} grad_j * prod_{i<=j, i!=k} x_i,
    # one k at a time (O(n) memory, O(n^2) time: only under create_graph, as PyTorch).
    from .joining import cat, stack
    n = self.shape[dim]
    parts = []
    for k in range(n):
        head = self.narrow(dim, 0, k).prod(dim, keepdim=True) if k else _ones_at(self, dim)
        after = self.narrow(dim, k + 1, n - k - 1).cumprod(dim)
        omitted = cat([head, head * after], dim) if k < n - 1 else head
        parts.append((grad.narrow(dim, k, n - k) * omitted).sum(dim))
    return stack(parts, dim)


CUMSUM = defop("cumsum", "CumsumBackward0", _scan_fwd("cumsum"), attrs=("dim",),
               self=lambda grad, dim: _reverse_cumsum(grad, dim))
CUMPROD = defop("cumprod", "CumprodBackward0", _scan_fwd("cumprod"), attrs=("dim",),
                self=_cumprod_bwd)


def _acc_dtype(self, dtype, scan=None):
    """PyTorch accumulates integers (and bools) in int64 unless told a dtype; told one,
    it casts first and computes in it (wrapping: prod(dtype=int8) of [100, 2, 3] is 88).
    An integer dtype cannot carry a gradient, and a scan (``scan``: its name) has no
    bool kernel."""
    if dtype is not None:
        dt = B.to_dtype(dtype)
        if scan is not None and dt.kind == "b":
            raise NotImplementedError(f"\"{scan}_out_cpu\" not implemented for 'Bool'")
        if dt.kind not in "fc" and _st.grad_enabled and self.requires_grad:
            raise RuntimeError(f"Autograd not support dtype: {torch_type_name(dt)}")
        return self.to(dt)
    if self._data.dtype.kind in "iub" and self._data.dtype != B.int64:
        return self.to(B.int64)
    return self


@method("cumsum")
def cumsum(self, dim, *, dtype=None):
    """Running sums along ``dim``: ``out_k = x_0 + ... + x_k``, as ``torch.cumsum``
    (integers accumulate in int64). Records ``CumsumBackward0``, whose gradient is the
    reversed running sum of ``grad``."""
    self = _acc_dtype(self, dtype, "cumsum")
    d = _wrap_dim(dim, self.dim())
    return show_given(dispatch(CUMSUM, (self,), (d,)), "dim", dim, d)


def _scan_(op, name):
    refusal = _CX[name[:-1] + "_"]   # (bools: Note [inputs PyTorch refuses])

    def fn_(self, dim, *, dtype=None):
        _refuse(refusal, self)
        if dtype is not None and B.to_dtype(dtype) != self._data.dtype:
            raise RuntimeError(f"{name}: the result's dtype must be self's "
                               f"({B.dtype_name(self.dtype)}), got {B.dtype_name(dtype)}")
        return apply_inplace(op, self, (), (_wrap_dim(dim, self.dim()),), name=name)
    fn_.__name__ = fn_.__qualname__ = name
    fn_.__doc__ = (f"In-place ``{name[:-1]}`` (``torch.Tensor.{name}``), recorded on self's "
                   "history as the out-of-place op's node.")
    return fn_


@method("cumprod")
def cumprod(self, dim, *, dtype=None):
    """Running products along ``dim``: ``out_k = x_0 * ... * x_k``, as ``torch.cumprod``.
    Records ``CumprodBackward0``; its gradient is right with zeros in the input (see
    Note [products with zeros] in ops/stats.py), never 0/0."""
    self = _acc_dtype(self, dtype, "cumprod")
    d = _wrap_dim(dim, self.dim())
    return show_given(dispatch(CUMPROD, (self,), (d,)), "dim", dim, d)


method("cumsum_")(_scan_(CUMSUM, "cumsum_"))
method("cumprod_")(_scan_(CUMPROD, "cumprod_"))


# -- prod -------------------------------------------------------------------------------------

def _exclusive_cumprod(a, dim):
    """``out_k = prod_{i < k} a_i`` along ``dim`` (1 at the start)."""
    from .joining import cat
    return cat([_ones_at(a, dim), a.narrow(dim, 0, a.shape[dim] - 1)], dim).cumprod(dim)


def _ones_at(a, dim):
    """Ones shaped like ``a`` with size 1 along ``dim``."""
    from .factories import ones
    shape = list(a.shape)
    shape[dim] = 1
    return ones(tuple(shape), dtype=a.dtype, device=a.device)


def _prod_others(a, dim):
    """``out_k = prod_{i != k} a_i`` along ``dim`` without dividing (Note [products with
    zeros]): exclusive products from the left times those from the right."""
    return _exclusive_cumprod(a, dim) * _exclusive_cumprod(a.flip(dim), dim).flip(dim)


def _zeros_in(a):
    """How many entries of ``a`` are 0 (PyTorch's prod_backward asks, and branches)."""
    return int((a == 0).sum())


def _prod_all_bwd(grad, self, result):
    """PyTorch's prod_backward (Note [products with zeros])."""
    if self.dim() == 0:
        return grad
    zeros = _zeros_in(self)
    if zeros == 0:
        return grad * (result / self)
    if zeros > 1 and not _st.grad_enabled:
        return self.new_zeros(tuple(self.shape))
    return (grad * _prod_others(self.reshape(-1), 0)).reshape(tuple(self.shape))


def _prod_dim_bwd(grad, self, result, dim, keepdim):
    """PyTorch's prod_backward along ``dim``: any zero in the whole input, and every
    slice takes the product of the others (Note [products with zeros])."""
    if self.dim() == 0:
        return grad
    g = _restore(grad, tuple(self.shape), (dim,), keepdim)
    if _zeros_in(self) == 0:
        return g * (_restore(result, tuple(self.shape), (dim,), keepdim) / self)
    return g * _prod_others(self, dim)


# (``result`` is saved, as PyTorch's ProdBackward0/1 save it: with no zero the gradient
# is ``grad * result / self``; the product modified in place before the backward is
# refused, as in PyTorch)
def _int_dtype(a):
    """The dtype= to give NumPy's reductions so that an integer (or bool) input keeps its
    dtype, as PyTorch's do (NumPy would widen int8 to int64, uint8 to uint64)."""
    return a.dtype if a.dtype.kind in "biu" else None


PROD = defop("prod", "ProdBackward0",
             lambda self: _xp(self).asarray(B.array_prod(self, None, _int_dtype(self))),
             self=lambda grad, self, result: _prod_all_bwd(grad, self, result))
PROD_DIM = defop("prod_dim", "ProdBackward1",
                 lambda self, dim, keepdim: _xp(self).asarray(
                     B.array_prod(self, () if self.ndim == 0 else dim, _int_dtype(self),
                                  keepdim)),
                 attrs=("dim", "keepdim"),
                 self=lambda grad, self, result, dim, keepdim: _prod_dim_bwd(
                     grad, self, result, dim, keepdim))


@method("prod")
def prod(self, dim=None, keepdim=False, *, dtype=None):
    """The product of all elements (``ProdBackward0``) or along one ``dim``
    (``ProdBackward1``), as ``torch.prod`` (integers and bools give int64). The gradient
    is the product of the other entries, right with one zero or several (Note [products
    with zeros] in ops/stats.py)."""
    if isinstance(dim, (tuple, list)):
        raise TypeError("prod(): argument 'dim' must be int, not "
                        f"{type(dim).__name__} (reduce one dim at a time)")
    self = _acc_dtype(self, dtype)
    if dim is None:
        return dispatch(PROD, (self,))
    d = _wrap_dim(dim, self.dim())
    return show_given(dispatch(PROD_DIM, (self,), (d, bool(keepdim))), "dim", dim, d)


# -- logsumexp --------------------------------------------------------------------------------

def _logsumexp_fwd(self, dim, keepdim):
    xp = _xp(self)
    if self.size == 0:  # the sum of no exponentials is 0: log 0 = -inf, as PyTorch
        return xp.full(_reduced_shape(self.shape, dim, keepdim), -math.inf, dtype=self.dtype)
    m = self.max(axis=dim, keepdims=True)
    m = xp.where(xp.isinf(m), 0.0, m).astype(self.dtype)  # all -inf (or an inf): no shift
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        s = xp.log(xp.exp(self - m).sum(axis=dim, keepdims=True)) + m
    return xp.asarray(s if keepdim else s.reshape(_reduced_shape(self.shape, dim, False)))


def _reduced_shape(shape, dims, keepdim):
    return tuple(1 if i in dims else s for i, s in enumerate(shape)) if keepdim else \
        tuple(s for i, s in enumerate(shape) if i not in dims)


LOGSUMEXP = defop("logsumexp", "LogsumexpBackward0", _logsumexp_fwd, attrs=("dim", "keepdim"),
                  self=lambda grad, self, result, dim, keepdim:
                  _restore(grad, tuple(self.shape), dim, keepdim)
                  * (self - _restore(result, tuple(self.shape), dim, keepdim)).exp())


@method("logsumexp")
def logsumexp(self, dim, keepdim=False):
    """``log(sum(exp(x)))`` over ``dim``, computed stably (the max is taken out first, so
    large values do not overflow and all ``-inf`` gives ``-inf``), as ``torch.logsumexp``.
    Integers are cast to float32 first. Records ``LogsumexpBackward0``, whose gradient is
    ``softmax``: ``grad * exp(x - result)``."""
    if self._data.dtype.kind not in "fc":
        self = self.to(B.float32)
    dims = _red_dims(dim, self.dim())
    return show_given(dispatch(LOGSUMEXP, (self,), (dims, bool(keepdim))), "dim",
                      given_dims(dim), dims)


# -- NaN-ignoring sums ------------------------------------------------------------------------

NANSUM = defop("nansum", "NansumBackward0",
               lambda self, dim, keepdim: _xp(self).asarray(
                   B.quietly(_xp(self).nansum, self, axis=dim, keepdims=keepdim,
                             dtype=_int_dtype(self))),
               attrs=("dim", "keepdim"),
               self=lambda grad, self, dim, keepdim:
               # times the not-NaN mask, as PyTorch (an infinite grad there gives NaN)
               _restore(grad, tuple(self.shape), dim, keepdim) * (self == self).to(grad.dtype))
fresh_results(VAR, STD, PROD_DIM, LOGSUMEXP, NANSUM)   # (row-major, as PyTorch's)


@method("nansum")
def nansum(self, dim=None, keepdim=False, *, dtype=None):
    """The sum over ``dim`` (all by default) counting NaNs as 0, as ``torch.nansum``
    (integers give int64). Records ``NansumBackward0``: the NaN entries get no
    gradient."""
    _refuse(_CX["nansum"], self)   # Note [inputs PyTorch refuses]
    if dtype is not None and B.to_dtype(dtype).kind in "biu" and self.is_floating_point():
        self = self.masked_fill(self != self, 0)   # NaNs count 0 before the cast (PyTorch)
    self = _acc_dtype(self, dtype)
    dims = _red_dims(dim, self.dim())
    out = dispatch(NANSUM, (self,), (dims, bool(keepdim)))
    if dim is None:   # (PyTorch keeps the dim as given: Note [dims as given])
        show_as(out, "dim", None)
    return show_given(out, "dim", given_dims(dim), dims)


@method("nanmean")
def nanmean(self, dim=None, keepdim=False, *, dtype=None):
    """The mean over ``dim`` of the entries that are not NaN, as ``torch.nanmean``:
    ``nansum / count``, so its node is ``DivBackward0`` over ``NansumBackward0``, as in
    PyTorch. All-NaN slices give NaN."""
    _refuse(_CX["nansum"], self)   # (PyTorch's words: nanmean is nansum / count)
    if dtype is not None:
        self = self.to(dtype)
    if self._data.dtype.kind not in "fc":
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {torch_type_name(self.dtype)}; call .float() first")
    count = (self == self).sum(dim, keepdim=keepdim) if dim is not None else \
        (self == self).sum()
    return nansum(self, dim, keepdim) / count
