"""Array-level backward kernels for the hottest rows of the derivatives table.

Every row's backward formula is written in viewgrad ops (table.py), so that it can be
differentiated again: that is the formula that runs under ``create_graph=True``. For a
plain backward, building Tensors for every intermediate of a formula is pure overhead, so
the rows below also get a kernel on raw arrays with the SAME parameter names (hence the
same saved tensors). ``FnNode.apply`` uses it when grad mode is off.

Both are checked: the gradcheck sweep runs the fast kernels (first order), gradgradcheck
the viewgrad formulas, and ``tests/ops/test_fast_kernels.py`` compares the two on every
sample.
"""
from __future__ import annotations

from .. import backend as B
from ..autograd.graph import _sum_to_array
from ..layouts import column_major
from .reduce import _count
from .nn_fast import relu_grad_new
from .table import OPS

_xp = B.xp_of
_HOST = B.HOST_ARRAY
_sc = B.scalar_operand  # Note [cached scalar operands] (backend/devices.py)
_SCALARS = B._SCALAR_CACHE
# the cached 0-d one of float32/float64 (``_sc(a, 1.0)``), for the kernels' ``1 - result``
_ONES = {B.HOST_ARRAY((0,), dt).dtype: _sc(B.HOST_ARRAY((0,), dt), 1.0)
         for dt in ("float32", "float64")}
# Note [dtypes by identity] (ops/lean.py): the builtin dtype objects first, no hash
_F32, _F64 = B.float32, B.float64
_ONE32, _ONE64 = _ONES[_F32], _ONES[_F64]


def _number(grad, x):
    """``_sc(grad, x)`` for a Python float ``x``: the cached 0-d operand looked up in line
    (the commonest backward step of a program of small ops: ``y * 1.01``)."""
    c = _SCALARS.get(grad.dtype) if type(grad) is _HOST else None
    z = c.get(x) if c is not None else None
    return z if z is not None else _sc(grad, x)


def _times_other(grad, other):
    return grad * (_number(grad, other) if type(other) is float else other)


def _times_self(grad, self):
    return grad * (_number(grad, self) if type(self) is float else self)


def _times_result(grad, result):
    return grad * result


def _same(grad):
    return grad


# Note [a kernel that is one ufunc]: on two host arrays these kernels are one ufunc call
# (``*`` on ndarrays is ``multiply``: the same loop, the same bits), and ``_same`` gives
# the gradient back as it is. The lean steps (autograd/apply_lean.py) read ``host`` and
# ``identity`` once, and call the ufunc themselves (or hand the gradient on) when the
# step's values are host arrays (a Python float ``other`` is not: the kernel turns it
# into the cached operand first): one Python call fewer for each node of a chain.
_times_other.host = _times_self.host = _times_result.host = B.host_ufunc("multiply")
_same.identity = True


def _tanh_grad(grad, result):
    if type(result) is _HOST:   # the cached 0-d one (Note [dtypes by identity], lean.py)
        dt = result.dtype
        one = _ONE32 if dt is _F32 else _ONE64 if dt is _F64 else _ONES.get(dt, 1.0)
    else:
        one = 1.0
    return grad * (one - result * result)


def _sigmoid_grad(grad, result):
    if type(result) is _HOST:   # (as _tanh_grad's)
        dt = result.dtype
        one = _ONE32 if dt is _F32 else _ONE64 if dt is _F64 else _ONES.get(dt, 1.0)
    else:
        one = 1.0
    return grad * result * (one - result)


def _restore(g, shape, dims, keepdim):
    if dims is None:
        return g.reshape((1,) * len(shape)) if g.ndim else g
    if not keepdim:
        for d in dims:
            g = _xp(g).expand_dims(g, d)
    return g


def _expand(g, shape):
    if type(g) is _HOST and (g.ndim == 0 or (g.ndim == len(shape) and g.flags.c_contiguous)):
        # Note [a 0-d gradient broadcast in one call]
        strides = (0,) * len(shape) if not g.ndim else tuple(
            [st if n == s else 0 if n == 1 else -1
             for st, n, s in zip(g.strides, g.shape, shape)])
        if -1 not in strides:   # (a size that does not broadcast: broadcast_to's error)
            v = _HOST(shape, g.dtype, g, 0, strides)
            v.flags.writeable = False
            return v
    return _xp(g).broadcast_to(g, shape)


# Note [a 0-d gradient broadcast in one call]
# A speed trick: ``sum``/``mean``'s gradient is the incoming 0-d gradient broadcast to the
# input's shape. ``np.broadcast_to`` is Python-level and costs ~3 µs, most of a small
# graph's backward; an ndarray over the 0-d gradient's buffer with zero strides is the
# same read-only view, built by one C call. ``sum(dim)``/``mean(dim)``'s is the same for
# a row-major gradient with the reduced dims put back (size 1): its strides where the
# sizes agree, 0 where it is broadcast.


def _scale(x, a):
    return x if a == 1 else x * a


def _mat1_grad(grad, mat2, sizes, strides):
    """grad @ mat2.T — as (mat2 @ grad.T).T when mat1 was column-major (Note [a matrix
    gradient in its matrix's layout], linalg.py)."""
    if column_major(sizes, strides):
        return (mat2 @ grad.T).T
    return grad @ mat2.T


def _mat2_grad(grad, mat1, sizes, strides):
    """mat1.T @ grad — as (grad.T @ mat1).T when mat2 was column-major (linear's
    weight.t(): the weight's gradient comes out row-major like the weight)."""
    if column_major(sizes, strides):
        return (grad.T @ mat1).T
    return mat1.T @ grad


def _inv(dims):
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    return tuple(inv)


def _axis(a, dim):
    # "dim 0" of a 0-d tensor, as PyTorch allows: CuPy's reductions take no axis there
    return None if a.ndim == 0 else dim


# Note [softmax's backward on host arrays]
# The formulas' ufuncs on host arrays of one dtype and shape, called directly: the
# reduction is ``add.reduce`` (what ``ndarray.sum`` runs, without its Python), and the
# temporaries are written in place. The same operations on the same values in the same
# order: the same bits. Anything else: the formula as written.
_add_reduce = B.host_ufunc("add").reduce
_mul, _sub, _exp = B.host_ufunc("multiply"), B.host_ufunc("subtract"), B.host_ufunc("exp")


def _same_host(grad, result):
    return (type(grad) is _HOST and type(result) is _HOST and result.ndim
            and grad.dtype == result.dtype and grad.shape == result.shape)


def _softmax_grad(grad, result, dim):
    """``(grad - (grad * result).sum(dim, keepdim=True)) * result``"""
    if _same_host(grad, result):
        t = _mul(grad, result)
        _sub(grad, _add_reduce(t, dim, None, None, True), out=t)
        return _mul(t, result, out=t)
    return (grad - (grad * result).sum(axis=_axis(result, dim), keepdims=True)) * result


def _log_softmax_grad(grad, result, dim):
    """``grad - result.exp() * grad.sum(dim, keepdim=True)``"""
    if _same_host(grad, result):
        e = _exp(result)
        _mul(e, _add_reduce(grad, dim, None, None, True), out=e)
        return _sub(grad, e, out=e)
    return grad - _xp(result).exp(result) * grad.sum(axis=_axis(result, dim), keepdims=True)


def _zeros_with(g, shape, region):
    z = _xp(g).zeros(shape, dtype=g.dtype)
    z[region] = g
    return z


def _full_slices(dim):
    return (slice(None),) * dim


def _zeros_of(grad):
    return _xp(grad).zeros(grad.shape, dtype=grad.dtype)   # zeros_grad (table.py)


def _copy_src_grad(grad, _src_shape, _src_dtype):
    """copy_'s gradient for src: summed back to src's shape, in src's dtype."""
    r = grad if grad.shape == tuple(_src_shape) else _sum_to_array(grad, _src_shape)
    return r if r.dtype == _src_dtype else B.cast(r, _src_dtype)


FAST = {
    "add": dict(self=_same, other=_same),
    "add_scalar": dict(self=_same),
    "sub": dict(self=_same, other=lambda grad: -grad),
    "rsub": dict(self=lambda grad: -grad),
    "mul": dict(self=_times_other, other=_times_self),
    "div": dict(self=lambda grad, other: grad / other,
                other=lambda grad, self, other: -grad * ((self / other) / other)),
    "neg": dict(self=lambda grad: -grad),
    "reciprocal": dict(self=lambda grad, result: -grad * result * result),
    "exp": dict(self=_times_result),
    "log": dict(self=lambda grad, self: grad / self),
    "sqrt": dict(self=lambda grad, result: grad / (2 * result)),
    "tanh": dict(self=_tanh_grad),
    "sigmoid": dict(self=_sigmoid_grad),
    "relu": dict(self=relu_grad_new),   # (nn_fast.py)
    "sum": dict(self=lambda grad, self_shape: _expand(grad, self_shape)),
    "sum_dim": dict(self=lambda grad, self_shape, dim, keepdim:
                    _expand(_restore(grad, self_shape, dim, keepdim), self_shape)),
    # (expanded, then divided: a fresh gradient, not a broadcast view, as PyTorch's)
    "mean": dict(self=lambda grad, self_shape:
                 _expand(grad, self_shape) / _count(self_shape, None)),
    "mean_dim": dict(self=lambda grad, self_shape, dim, keepdim:
                     _expand(_restore(grad, self_shape, dim, keepdim), self_shape)
                     / _count(self_shape, dim)),
    "mm": dict(self=lambda grad, mat2, self_shape, self_strides:
               _mat1_grad(grad, mat2, self_shape, self_strides),
               mat2=lambda grad, self, mat2_shape, mat2_strides:
               _mat2_grad(grad, self, mat2_shape, mat2_strides)),
    "bmm": dict(self=lambda grad, mat2: grad @ mat2.swapaxes(1, 2),
                mat2=lambda grad, self: self.swapaxes(1, 2) @ grad),
    "addmm": dict(self=lambda grad, beta: grad if beta == 1 else grad * beta,
                  mat1=lambda grad, mat2, alpha, mat1_shape, mat1_strides:
                  _scale(_mat1_grad(grad, mat2, mat1_shape, mat1_strides), alpha),
                  mat2=lambda grad, mat1, alpha, mat2_shape, mat2_strides:
                  _scale(_mat2_grad(grad, mat1, mat2_shape, mat2_strides), alpha)),
    "clone": dict(self=_same),
    "view": dict(self=lambda grad, self_shape: grad.reshape(self_shape)),
    "_reshape_alias": dict(self=lambda grad, self_shape: grad.reshape(self_shape)),
    "_unsafe_view": dict(self=lambda grad, self_shape: grad.reshape(self_shape)),
    "alias": dict(self=_same),
    "transpose": dict(self=lambda grad, dim0, dim1: grad.swapaxes(dim0, dim1) if grad.ndim
                      else grad),
    "t": dict(self=lambda grad: grad.T),
    "permute": dict(self=lambda grad, dims: grad.transpose(_inv(dims))),
    "unsqueeze": dict(self=lambda grad, dim: _xp(grad).squeeze(grad, axis=dim)),
    "squeeze": dict(self=lambda grad, self_shape: grad.reshape(self_shape)),
    "squeeze_dim": dict(self=lambda grad, self_shape: grad.reshape(self_shape)),
    "select": dict(self=lambda grad, self_shape, dim, index:
                   _zeros_with(grad, self_shape, _full_slices(dim) + (index, Ellipsis))),
    "slice": dict(self=lambda grad, self_shape, dim, start, end, step:
                  _zeros_with(grad, self_shape, _full_slices(dim) + (slice(start, end, step),))),
    "softmax": dict(self=lambda grad, result, dim: _softmax_grad(grad, result, dim)),
    "log_softmax": dict(self=lambda grad, result, dim: _log_softmax_grad(grad, result, dim)),
    # (where's condition is an attribute, saved as a SavedTensor: its array comes here)
    "where": dict(self=lambda grad, condition: _xp(grad).where(condition, grad, 0),
                  other=lambda grad, condition: _xp(grad).where(condition, 0, grad)),
}


def _install():
    from .fast_pointwise import FAST_POINTWISE   # (it takes helpers from here)
    from .views import as_strided_grad   # (views.py imports nothing from here)
    FAST.update(FAST_POINTWISE)
    FAST["as_strided"] = dict(self=as_strided_grad)   # Note [as_strided's backward]
    FAST["copy"] = dict(self=_zeros_of, src=_copy_src_grad)
    for name, kernels in FAST.items():
        OPS[name].set_fast(**kernels)


_install()
