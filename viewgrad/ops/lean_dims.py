"""The commonest calls of the ops over one dim, in one function each (Note [lean dim
ops]): ``softmax(x, d)``, ``log_softmax(x, d)``, ``x.sum(d)`` and ``x.mean(d)``.

Note [lean dim ops]
A speed trick, fenced off here. Each of these ops runs a short chain of calls:
  1. its function's checks (ops/nnops.py, ops/reduce.py): float input, the dim wrapped;
  2. ``dispatch`` (table.py): the row's forward, whose NumPy methods (``max``, ``sum``)
     wrap the ufuncs' reductions in Python;
  3. ``record_one`` with the general ``_save`` for the saved dim;
  4. ``show_given`` for the dim as the caller gave it.
The commonest call is handled in one body:
  * one dim, a Python int in range;
  * no dtype; for sum and mean, a bool keepdim;
  * a float32/float64 tensor (a plain Tensor or a class of LEAN_CLASSES) over a host
    array with at least one dim and one element.
For that call, ``run`` does what ``dispatch`` does after its forward. It makes the same
result Tensor and the same node, through ``record_one`` or ``record``, under any mode.
The forward runs the same ufuncs in the same order as the row's, with the same
arguments, so the bits are the same. A negative dim is shown as given, as step 4 shows
it.
Every other call takes the teaching path, which also raises every error. So does every
call while the profiler times every forward. tests/ops/test_lean_dims.py compares both
ways.
"""
from __future__ import annotations

from .. import backend as B
from ..autograd.recording import _edges, record
from ..autograd.record_lean import record_one
from ..autograd.saved_names import show_given
from ..autograd.state import state as _st
from ..tensor import LEAN_CLASSES as _LEAN, Tensor, new_result

__all__ = ["run", "softmax_host", "log_softmax_host", "sum_host", "mean_host",
           "set_lean_dims"]

_HOST = B.HOST_ARRAY
_Tensor = Tensor
_make = Tensor._make
_enabled = [True]
_max_reduce = B.host_ufunc("maximum").reduce
_add_reduce = B.host_ufunc("add").reduce
_subtract, _exp, _log, _divide, _true_divide = (
    B.host_ufunc(n) for n in ("subtract", "exp", "log", "divide", "true_divide"))
_intp = B.cpu.xp.intp
_row_major = B.row_major
_fresh = B.fresh_row_major


def set_lean_dims(enabled: bool) -> bool:
    """Turn Note [lean dim ops] on or off (tests compare both); returns the previous
    setting."""
    prev = _enabled[0]
    _enabled[0] = bool(enabled)
    return prev


def run(op, x, dim, attrs, host, *args):
    """``op`` over dim ``dim`` of ``x`` for the commonest call (Note [lean dim ops]), or
    None: the teaching path answers. ``attrs(k)`` gives the row's attributes for the
    wrapped dim ``k``; ``host(data, k, *args)`` is the row's forward on a host array."""
    d = x._data
    if (type(d) is not _HOST or type(dim) is not int or d.dtype.char not in "fd"
            or (type(x) is not _Tensor and type(x) not in _LEAN) or not d.size
            or not _enabled[0] or op.lean1 is False):
        return None   # (lean1 is False while the profiler times every forward)
    n = d.ndim
    if not n or not -n <= dim < n:
        return None
    k = dim + n if dim < 0 else dim
    r = host(d, k, *args)
    if type(r) is not _HOST:   # (a NumPy scalar: a 1-d input reduced without keepdim)
        r = B.cpu.xp.asarray(r)
    at = attrs(k)
    # dispatch's steps after the forward
    st = _st
    if not st.grad_enabled or st.inference:
        return _make(r, x._device)
    out = new_result(r, x._device)
    if x._view_info is None and x._grad_fn is not None:
        out._grad_fn = record_one(op, (x,), out, at, x)
    else:
        edges = _edges((x,))
        out._grad_fn = None if edges is None else record(op, (x,), out, at, edges, x)
    if dim < 0:
        show_given(out, "dim", dim if type(at[0]) is int else (dim,), at[0])
    return out


def softmax_host(d, k):
    """``_softmax_fwd(d, k)`` (nnops.py): the same ufuncs, the temporaries reused."""
    z = _subtract(d, _max_reduce(d, k, None, None, True))
    _exp(z, out=z)
    _divide(z, _add_reduce(z, k, None, None, True), out=z)
    return _row_major(z)


def log_softmax_host(d, k):
    """``_log_softmax_fwd(d, k)`` (nnops.py): the same ufuncs, the temporaries reused."""
    z = _subtract(d, _max_reduce(d, k, None, None, True))
    s = _add_reduce(_exp(z), k, None, None, True)
    _log(s, out=s)
    _subtract(z, s, out=z)
    return _row_major(z)


def sum_host(d, k, keepdim):
    """SUM_DIM's forward, ``_sum_fwd(d, (k,), keepdim)`` laid out afresh (reduce.py:
    ``fresh_results``), for a float array: ``ndarray.sum``'s reduction."""
    r = _add_reduce(d, k, None, None, keepdim)
    return _fresh(r) if type(r) is _HOST else r


def mean_host(d, k, keepdim):
    """MEAN_DIM's forward, ``_mean_fwd(d, (k,), keepdim)`` laid out afresh (reduce.py), for
    a float32/float64 array: NumPy's own ``_mean`` steps (the sum, then the division by the
    count as an ``intp``, in place with an unsafe cast, or as the scalar's type), without
    its Python round them."""
    s = _add_reduce(d, k, None, None, keepdim)
    count = _intp(d.shape[k])
    if type(s) is _HOST:
        return _fresh(_true_divide(s, count, out=s, casting="unsafe", subok=False))
    return s.dtype.type(s / count)
