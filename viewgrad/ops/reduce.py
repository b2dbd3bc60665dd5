"""Reductions over dims (with keepdim): sum, mean, max, amax, min, amin, and the
gather / scatter / scatter_add family their backward formulas are written in.
"""
from __future__ import annotations

from .. import backend as B
from .. import return_types as _RT
from ..tensor import Tensor, _unique_dims, _wrap_dim
from . import lean_dims as _lean_dims
from .table import defop, dispatch, fresh_results, method
from .args import torch_type_name
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from ..autograd.saved_names import show_given
from ..autograd.state import state as _st

__all__ = ["sum", "mean", "max", "min", "amax", "amin", "gather", "scatter", "scatter_add",
           "argmax", "argmin"]

_xp = B.xp_of


def _dims(dim, ndim):
    """Normalise dim (None, int or sequence) to a sorted tuple of non-negative ints; an
    empty sequence means all dims (None), as PyTorch's sum(()) does. A 0-d tensor accepts
    dim 0 / -1 (PyTorch) and reduces over no axis: ()."""
    if dim is None:
        return None
    if isinstance(dim, int):
        dim = (dim,)
    out = tuple(sorted(_unique_dims([_wrap_dim(int(d), ndim) for d in dim])))
    if ndim == 0:
        return ()
    return out or None



def given_dims(dim):
    """A reduction's ``dim`` as the caller gave it, as a tuple (an int is one dim), for
    ``show_given`` (Note [dims as given], autograd/saved_names.py); None for None."""
    if dim is None:
        return None
    try:
        return tuple(dim)
    except TypeError:   # an int (a NumPy integer, a 0-d tensor)
        return (dim,)


def _restore(grad, self_shape, dims, keepdim):
    """Give a reduced gradient its reduced dims back (size 1) so it broadcasts."""
    if dims is None:
        return grad.reshape((1,) * len(self_shape)) if grad.dim() else grad
    if not keepdim:
        for d in dims:
            grad = grad.unsqueeze(d)
    return grad


def _sum_fwd(self, dims, keepdim):
    xp = _xp(self)
    # an integer sum stays in its dtype (``sum`` made it int64 unless dtype= said
    # otherwise); NumPy would widen int32 to int64 and uint8 to uint64
    dt = self.dtype if self.dtype.kind in "biu" else None
    return xp.asarray(B.array_sum(self, dims, dt, keepdim))   # (Note [warnings from NumPy's own Python])


_add_reduce = B.host_ufunc("add").reduce


def sum_all_host(data):
    """``_sum_fwd(data, None, False)`` for a float host array: the same reduction (the
    same bits), without the Python of ``ndarray.sum`` round it (Note [host ufuncs])."""
    return _add_reduce(data, None)


_intp = B.cpu.xp.intp


def mean_all_host(data):
    """``_mean_fwd(data, None, False)`` for a float32/float64 host array: NumPy's own
    ``_mean`` steps (the sum, then a division by the count as an ``intp``, which a float32
    sum takes in float64, rounded back), without its Python round them (Note [host
    ufuncs])."""
    s = _add_reduce(data, None)
    return s.dtype.type(s / _intp(data.size))


SUM = defop("sum", "SumBackward0", _sum_fwd, attrs=("dim", "keepdim"),
            self=lambda grad, self_shape: grad.expand(self_shape))
SUM_DIM = defop("sum_dim", "SumBackward1", _sum_fwd, attrs=("dim", "keepdim"),
                self=lambda grad, self_shape, dim, keepdim:
                _restore(grad, self_shape, dim, keepdim).expand(self_shape))


# ``sum(dtype=)`` / ``mean(dtype=)`` to a floating dtype: PyTorch's one node (SumBackward0,
# MeanBackward1...) computes in that dtype and its input's gradient comes back in the
# input's dtype — no ToCopyBackward0 between. The forward casts first (the numbers of
# ``x.to(dtype).sum()``); the node casts the gradient back (FnNode._dtypes).
def _cast_first(fwd):
    return lambda self, dims, keepdim, dtype: fwd(self.astype(dtype), dims, keepdim)


SUM_CAST = defop("sum_cast", "SumBackward0", _cast_first(_sum_fwd),
                 attrs=("dim", "keepdim", "dtype"), self=SUM.formulas[0][0])
SUM_DIM_CAST = defop("sum_dim_cast", "SumBackward1", _cast_first(_sum_fwd),
                     attrs=("dim", "keepdim", "dtype"), self=SUM_DIM.formulas[0][0])


def _count(shape, dims):
    n = 1
    for i, s in enumerate(shape):
        if dims is None or i in dims:
            n *= s
    return n


def _mean_fwd(self, dims, keepdim):
    return _xp(self).asarray(B.array_mean(self, dims, keepdim))   # (Note [warnings from NumPy's own Python])


MEAN = defop("mean", "MeanBackward0", _mean_fwd, attrs=("dim", "keepdim"),
             self=lambda grad, self_shape: grad.expand(self_shape) / _count(self_shape, None))
MEAN_DIM = defop("mean_dim", "MeanBackward1", _mean_fwd, attrs=("dim", "keepdim"),
                 self=lambda grad, self_shape, dim, keepdim:
                 _restore(grad, self_shape, dim, keepdim).expand(self_shape)
                 / _count(self_shape, dim))
MEAN_CAST = defop("mean_cast", "MeanBackward0", _cast_first(_mean_fwd),
                  attrs=("dim", "keepdim", "dtype"), self=MEAN.formulas[0][0])
MEAN_DIM_CAST = defop("mean_dim_cast", "MeanBackward1", _cast_first(_mean_fwd),
                      attrs=("dim", "keepdim", "dtype"), self=MEAN_DIM.formulas[0][0])


def _reduce_cast(rows, self, dims, keepdim, dtype):
    """``sum``/``mean`` computed in the floating ``dtype``, one node (see _cast_first).
    ``rows``: (whole-tensor row, per-dim row)."""
    dt = self._data.dtype
    if dims is None and not keepdim:
        out = dispatch(rows[0], (self,), (None, False, dtype))
    else:
        out = dispatch(rows[1], (self,), (tuple(range(self.dim())) if dims is None else dims,
                                          keepdim, dtype))
    fn = out._grad_fn
    if fn is not None:
        fn._dtypes = (dt,)   # the gradient back in the input's dtype
    return out


def _casts(self, dtype, name):
    """The backend dtype ``sum``/``mean`` cast to in one node, or None (no cast, or
    ``sum`` to an integer dtype outside autograd: ``self.to(dtype)`` first)."""
    if dtype is None:
        return None
    dt = B.to_dtype(dtype)
    if dt.kind not in "fc":
        if name == "mean":
            raise RuntimeError(
                "mean(): could not infer output dtype. Optional dtype must be either a "
                f"floating point or complex dtype. Got: {torch_type_name(dt)}; pass a "
                "floating dtype (e.g. dtype=viewgrad.float64), or sum() for an integer total")
        if _st.grad_enabled and self.requires_grad:
            # an integer result cannot carry a gradient (PyTorch's words)
            raise RuntimeError(f"Autograd not support dtype: {torch_type_name(dt)}")
        return None
    return None if dt == self._data.dtype else dt


def _evenly(grad, self, result):
    # All maxima share the gradient evenly (PyTorch's evenly_distribute_backward). When the
    # extremum is NaN, the NaNs are the maxima (NaN == NaN is false, so compare isnan).
    # Everything else gets 0, filled in (PyTorch's CPU form: an infinite gradient leaves
    # the other elements 0, where mask * grad would make them NaN).
    mask = (self != self) if bool(result._data != result._data) else (self == result)
    return grad.new_zeros(tuple(self.shape)).masked_fill(mask, grad / mask.sum())


def _amax_bwd(grad, self, result, dim, keepdim):
    shape = tuple(self.shape)
    mask = (self == _restore(result, shape, dim, keepdim)).to(grad.dtype)
    return _restore(grad, shape, dim, keepdim) * mask / mask.sum(dim, keepdim=True)


def _full_red(name):
    return lambda self: _xp(self).asarray(getattr(self, name)())


MAX_ALL = defop("max_all", "MaxBackward1", _full_red("max"), self=_evenly)
MIN_ALL = defop("min_all", "MinBackward1", _full_red("min"), self=_evenly)
AMAX = defop("amax", "AmaxBackward0",
             lambda self, dim, keepdim: _xp(self).asarray(self.max(axis=dim, keepdims=keepdim)),
             attrs=("dim", "keepdim"), self=_amax_bwd)
AMIN = defop("amin", "AminBackward0",
             lambda self, dim, keepdim: _xp(self).asarray(self.min(axis=dim, keepdims=keepdim)),
             attrs=("dim", "keepdim"), self=_amax_bwd)
fresh_results(SUM, SUM_DIM, SUM_CAST, SUM_DIM_CAST, MEAN, MEAN_DIM, MEAN_CAST, MEAN_DIM_CAST,
              AMAX, AMIN)   # (row-major results, as PyTorch's reductions allocate them)


def _select_fwd(self, indices, dim, keepdim):
    if self.ndim == 0:   # a 0-d tensor reduced over "dim 0": itself (PyTorch allows it)
        return self.copy()
    xp = _xp(self)
    v = xp.take_along_axis(self, xp.expand_dims(indices, dim) if not keepdim else indices,
                           axis=dim)
    return v if keepdim else xp.squeeze(v, axis=dim)


def _value_selecting_bwd(grad, indices, self_shape, dim, keepdim):
    if not self_shape:
        return grad
    from .factories import zeros
    if not keepdim:
        grad = grad.unsqueeze(dim)
        indices = indices.unsqueeze(dim)
    return zeros(self_shape, dtype=grad.dtype, device=grad.device).scatter(dim, indices, grad)


MAX_DIM = defop("max_dim", "MaxBackward0", _select_fwd, inputs=("self", "indices"),
                attrs=("dim", "keepdim"), self=_value_selecting_bwd)
MIN_DIM = defop("min_dim", "MinBackward0", _select_fwd, inputs=("self", "indices"),
                attrs=("dim", "keepdim"), self=_value_selecting_bwd)


def _full_index(xp, index, dim):
    # numpy's indices(sparse=True), which CuPy does not have: one broadcastable arange
    # per axis
    n = len(index.shape)
    idx = [xp.arange(s).reshape((1,) * i + (s,) + (1,) * (n - i - 1))
           for i, s in enumerate(index.shape)]
    idx[dim] = index
    return tuple(idx)


def _scalar_as_1d(fwd):
    """A 0-d tensor indexed along "dim 0" (PyTorch allows it): run ``fwd`` on 1-element
    arrays and give the result back its 0-d shape."""
    def run(self, index, *rest):
        if self.ndim:
            return fwd(self, index, *rest)
        *src, dim = rest
        src = [v.reshape(1) if getattr(v, "ndim", 1) == 0 else v for v in src]
        return fwd(self.reshape(1), index.reshape(1), *src, 0).reshape(())
    return run


@_scalar_as_1d
def _gather_fwd(self, index, dim):
    # index-shaped, as PyTorch's: along the other dims the index may be shorter than
    # self, and is never broadcast (take_along_axis would broadcast a size-1 dim)
    return self[_full_index(_xp(self), index, dim)]


@_scalar_as_1d
def _scatter_fwd(self, index, src, dim):
    xp = _xp(self)
    out = self.copy()
    if not index.size:   # (PyTorch returns before its shape checks)
        return out
    if not hasattr(src, "shape") or src.shape == ():
        src = xp.broadcast_to(xp.asarray(src, dtype=self.dtype), index.shape)
    out[_full_index(xp, index, dim)] = src[tuple(slice(0, s) for s in index.shape)]
    return out


@_scalar_as_1d
def _scatter_add_fwd(self, index, src, dim):
    xp = _xp(self)
    out = self.copy()
    if not index.size:
        return out
    B.add_at(out, _full_index(xp, index, dim), src[tuple(slice(0, s) for s in index.shape)])
    return out


def _zeros_scatter_add(grad, index, self_shape, dim):
    from .factories import zeros
    return zeros(self_shape, dtype=grad.dtype, device=grad.device).scatter_add(dim, index, grad)


def _src_grad(node_name):
    """src's gradient of scatter / scatter_add: ``grad.gather(dim, index)``, which has the
    index's shape. PyTorch's engine checks it against src's (validate_outputs): summed
    back where src's shape expands to it (a size-1 dim over an empty index), refused where
    the index is smaller than src."""
    def formula(grad, index, dim, _src_shape):
        return as_input_shape(grad.gather(dim, index), _src_shape, node_name, 1)
    return formula


def as_input_shape(g, shape, node_name, i):
    """Gradient ``g`` of input ``i`` checked against the input's ``shape`` as PyTorch's
    engine checks a node's outputs (validate_outputs): summed back where the shape
    expands to g's, refused in its words where it does not."""
    shape, have = tuple(shape), tuple(g.shape)
    if have == shape:
        return g
    if len(shape) <= len(have) and all(
            s == 1 or s == h for s, h in zip(reversed(shape), reversed(have))):
        return g.sum_to_size(shape) if shape else g.sum()
    raise RuntimeError(f"Function {node_name} returned an invalid gradient at index {i} - "
                       f"got {list(have)} but expected shape compatible with {list(shape)}")


# (``self`` is named so that it is saved, as PyTorch's GatherBackward0 saves it: modified in
# place before the backward, it is refused there — the formula itself needs only its shape)
GATHER = defop("gather", "GatherBackward0", _gather_fwd, inputs=("self", "index"),
               attrs=("dim",), self=lambda grad, self, index, _self_shape, dim:
               _zeros_scatter_add(grad, index, _self_shape, dim))
GATHER.node_cls._saved_sparse_grad = property(lambda self: False)   # (PyTorch's, always)
SCATTER = defop("scatter", "ScatterBackward0", _scatter_fwd, inputs=("self", "index", "src"),
                attrs=("dim",),
                self=lambda grad, index, dim: grad.scatter(dim, index, 0.0),
                src=_src_grad("ScatterBackward0"))
SCATTER_VALUE = defop("scatter_value", "ScatterBackward1",  # a number written: x.scatter(1, i, 2.0)
                      lambda self, index, value, dim: _scatter_fwd(self, index, value, dim),
                      inputs=("self", "index"), attrs=("value", "dim"),
                      self=lambda grad, index, dim: grad.scatter(dim, index, 0.0))
SCATTER_ADD = defop("scatter_add", "ScatterAddBackward0", _scatter_add_fwd,
                    inputs=("self", "index", "src"), attrs=("dim",),
                    self=lambda grad: grad,
                    src=_src_grad("ScatterAddBackward0"))


@method("sum")
def sum(self, dim=None, keepdim=False, dtype=None):
    if dtype is None and type(keepdim) is bool:   # Note [lean dim ops]
        out = _lean_dims.run(SUM_DIM, self, dim, lambda k: ((k,), keepdim),
                             _lean_dims.sum_host, keepdim)
        if out is not None:
            return out
    cast = _casts(self, dtype, "sum")
    if cast is not None:
        return _reduce_cast((SUM_CAST, SUM_DIM_CAST), self, _dims(dim, self.dim()), keepdim,
                            cast)
    if dtype is not None:
        self = self.to(dtype)
    elif self._data.dtype.kind in "biu" and self._data.dtype != B.int64:
        self = self.to(B.int64)   # bool and integer sums are int64 (PyTorch)
    dims = _dims(dim, self.dim())
    if dims is None:
        if keepdim or dim is not None:   # (dim=(): every dim, SumBackward1 as PyTorch's)
            every = tuple(range(self.dim()))
            return show_given(dispatch(SUM_DIM, (self,), (every, bool(keepdim))), "dim",
                              given_dims(dim), every)
        return dispatch(SUM, (self,), (None, False))
    return show_given(dispatch(SUM_DIM, (self,), (dims, keepdim)), "dim", given_dims(dim),
                      dims)


@method("mean")
def mean(self, dim=None, keepdim=False, *, dtype=None):
    if dtype is None and type(keepdim) is bool:   # Note [lean dim ops]
        out = _lean_dims.run(MEAN_DIM, self, dim, lambda k: ((k,), keepdim),
                             _lean_dims.mean_host, keepdim)
        if out is not None:
            return out
    cast = _casts(self, dtype, "mean")
    if cast is not None:
        return _reduce_cast((MEAN_CAST, MEAN_DIM_CAST), self, _dims(dim, self.dim()),
                            keepdim, cast)
    if dtype is not None:
        self = self.to(dtype)   # computed in dtype (PyTorch casts the input first too)
    if self._data.dtype.kind not in "fc":
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {torch_type_name(self.dtype)}; call .float() first")
    dims = _dims(dim, self.dim())
    if dims is None:
        if keepdim or dim is not None:   # every dim reduced: MeanBackward1, as PyTorch's
            every = tuple(range(self.dim()))
            return show_given(dispatch(MEAN_DIM, (self,), (every, bool(keepdim))), "dim",
                              given_dims(dim), every)
        return dispatch(MEAN, (self,), (None, False))
    return show_given(dispatch(MEAN_DIM, (self,), (dims, keepdim)), "dim", given_dims(dim),
                      dims)


def _check_nonempty(self, name, error=RuntimeError):
    """A max/min (or arg-) over everything has no identity: an empty input is an error
    (PyTorch's wording; argmax's is an IndexError without the advice)."""
    if self.numel() == 0:
        raise error(f"{name}(): Expected reduction dim to be specified for input.numel() "
                    "== 0." + (" Specify the reduction dim with the 'dim' argument."
                               if error is RuntimeError else ""))


def _check_dims_nonempty(self, dims, name, given=None):
    """Each reduced dim must have elements (max/min have no identity); ``given``: the
    dims as the caller wrote them, which amax/amin name (max/min name them wrapped)."""
    n = self.dim()
    for shown in dims if given is None else given:   # (in the order given)
        if n and self._data.shape[shown % n] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {shown} to have non-zero "
                             f"size.")


def _argext(self, dim, keepdim, kind):
    name = "arg" + kind
    if dim is None:
        _check_nonempty(self, name, IndexError)
    else:
        _check_dims_nonempty(self, (dim,), name)
    xp = self._device.xp
    f = xp.argmax if kind == "max" else xp.argmin
    a = self._data
    axis = None if a.ndim == 0 else dim   # "dim 0" of a 0-d tensor: CuPy takes no axis
    return Tensor._make(xp.asarray(f(a, axis=axis, keepdims=keepdim)).astype(B.int64),
                        self._device)


def _ext(self, dim, keepdim, kind, full_op, dim_op):
    # (Note [inputs PyTorch refuses], kernel_refusals.py)
    _refuse(_CX[kind if dim is None else kind + "imum" if isinstance(dim, Tensor)
                        else kind + "_dim"], self, dim)
    if dim is None:
        _check_nonempty(self, kind)
        return dispatch(full_op, (self,))
    if isinstance(dim, Tensor):
        # max(a, b) is PyTorch's maximum itself (MaximumBackward0): NaN propagates and a
        # tie halves the gradient, which a where(a >= b, a, b) would not do
        from .elementwise import maximum, minimum
        return (maximum if kind == "max" else minimum)(self, dim)
    d = _wrap_dim(dim, self.dim())
    _check_dims_nonempty(self, (d,), kind)
    idx = _argext(self, d, keepdim, kind)
    vals = show_given(dispatch(dim_op, (self, idx), (d, keepdim)), "dim", dim, d)
    return (_RT.max if kind == "max" else _RT.min)((vals, idx))


@method("max")
def max(self, dim=None, keepdim=False):
    return _ext(self, dim, keepdim, "max", MAX_ALL, MAX_DIM)


@method("min")
def min(self, dim=None, keepdim=False):
    return _ext(self, dim, keepdim, "min", MIN_ALL, MIN_DIM)


def _amaxmin(self, dim, keepdim, name, op):
    _refuse(_CX[name], self)   # Note [inputs PyTorch refuses]
    dims = _dims(dim if dim != () else None, self.dim())
    if dims is None:
        _check_nonempty(self, name)
        dims = tuple(range(self.dim()))
    given = (dim,) if isinstance(dim, int) else tuple(dim) if dim not in (None, ()) else None
    _check_dims_nonempty(self, dims, name, given)
    return show_given(dispatch(op, (self,), (dims, keepdim)), "dim", given_dims(dim), dims)


@method("amax")
def amax(self, dim=(), keepdim=False):
    return _amaxmin(self, dim, keepdim, "amax", AMAX)


@method("amin")
def amin(self, dim=(), keepdim=False):
    return _amaxmin(self, dim, keepdim, "amin", AMIN)


@method("argmax")
def argmax(self, dim=None, keepdim=False):
    _no_bool(self, "argmax")
    _refuse(_CX["argmax"], self)   # Note [inputs PyTorch refuses]
    return _argext(self, None if dim is None else _wrap_dim(dim, self.dim()), keepdim, "max")


@method("argmin")
def argmin(self, dim=None, keepdim=False):
    _no_bool(self, "argmin")
    _refuse(_CX["argmin"], self)
    return _argext(self, None if dim is None else _wrap_dim(dim, self.dim()), keepdim, "min")


def _no_bool(self, name):
    if self._data.dtype.kind == "b":
        raise RuntimeError(f"{name}(): does not support bool input; convert first, e.g. "
                           f"x.int().{name}()")


def _check_index(self, dim, index, name="gather"):
    if not isinstance(index, Tensor) or index._data.dtype.kind not in "iu":
        got = B.dtype_name(index.dtype) if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index (got {got})")
    if index.dim() != self.dim():   # (PyTorch's words: gather's "input", scatter's "self")
        raise RuntimeError("Index tensor must have the same number of dimensions as "
                           f"{'input' if name == 'gather' else 'self'} tensor")
    return _wrap_dim(dim, self.dim())


@method("gather")
def gather(self, dim, index):
    d = _check_index(self, dim, index)
    check_index_shape(self, d, index, gather=True)
    check_bounds(self, d, index)
    return show_given(dispatch(GATHER, (self, index), (d,)), "dim", dim, d)


def check_index_shape(self, d, index, src=None, gather=False):
    """PyTorch's shape checks of gather/scatter (ScatterGatherChecks): along every dim
    but ``d`` the index is no larger than self, and along every dim no larger than a
    tensor ``src``; an empty index is never checked."""
    if not index._data.size or not self.dim():
        return
    ish, ssh = list(index.shape), list(self.shape)
    for k in range(len(ish)):
        if k != d and ish[k] > ssh[k]:
            if gather:
                raise RuntimeError(f"Size does not match at dimension {k} expected index "
                                   f"{ish} to be no larger than self {ssh} apart from "
                                   f"dimension {d}")
            break
    else:
        if not isinstance(src, Tensor) or src.dim() != index.dim() or all(
                i <= n for i, n in zip(ish, src.shape)):
            return
    if isinstance(src, Tensor):
        raise RuntimeError(f"Expected index {ish} to be no larger than self {ssh} apart from "
                           f"dimension {d} and to be no larger size than src "
                           f"{list(src.shape)}")
    raise RuntimeError(f"Expected index {ish} to be no larger than self {ssh} apart from "
                       f"dimension {d}")


def check_bounds(self, d, index):
    """PyTorch's error for a gather/scatter index outside ``[0, size)`` along dim ``d``
    (no wrapping around: a negative index is out of bounds there)."""
    idx = index._data
    if idx.size and self.dim():
        n = self._data.shape[d]
        bad = (idx < 0) | (idx >= n)
        if bool(bad.any()):
            raise RuntimeError(f"index {int(idx.reshape(-1)[bad.reshape(-1)][0])} is out of "
                               f"bounds for dimension {d} with size {n}")


@method("scatter")
def scatter(self, dim, index, src=None, *, value=None, reduce=None):
    d = _check_index(self, dim, index, "scatter")
    if isinstance(src, Tensor):   # (PyTorch's dtype check, before the shapes, any reduce)
        _same_dtype(self, src)
    check_index_shape(self, d, index, value if src is None else src)
    if reduce not in (None, "add", "multiply"):   # (PyTorch's meta check, before the kernel's)
        raise RuntimeError("reduce argument must be either add or multiply.")
    check_bounds(self, d, index)
    if reduce is not None:  # PyTorch's deprecated form, without a derivative
        from .index_ops import _scatter_reduce
        return _scatter_reduce(self, d, index, value if src is None else src, reduce, False)
    if not isinstance(src, Tensor):
        return show_given(dispatch(SCATTER_VALUE, (self, index), (value if src is None else src,
                                                                  d)), "dim", dim, d)
    return show_given(dispatch(SCATTER, (self, index, src), (d,)), "dim", dim, d)


def _same_dtype(self, src):
    if src.dtype != self.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")


@method("scatter_add")
def scatter_add(self, dim, index, src):
    d = _check_index(self, dim, index, "scatter")
    _same_dtype(self, src)   # (PyTorch's order: the dtypes, then the shapes)
    check_index_shape(self, d, index, src)
    check_bounds(self, d, index)
    return dispatch(SCATTER_ADD, (self, index, src), (d,))
