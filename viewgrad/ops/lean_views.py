"""The commonest view calls in one function each (Note [lean views]): ``y.view(...)`` and
``y.reshape(...)`` of a row-major tensor, ``y.unsqueeze(d)``, ``y.squeeze()``,
``y.squeeze(d)``, ``y.transpose(a, b)``, ``y.t()``.

Note [lean views]
A speed trick, fenced off here. Before ``y.view(2, -1)`` makes its view it passes
three layers:
  1. the signature check (ops/signatures.py: every size a Python int);
  2. ``view`` or ``reshape`` (ops/views.py: the sizes unpacked, the -1 inferred, the
     tensor row-major or not);
  3. ``dispatch_view`` (table.py: the row's forward, ``np.reshape``).
Each call of a small model pays for all three. The commonest call is handled here in one
body. It has these properties:
  * the sizes are Python ints, as separate arguments or one tuple;
  * at most one of them is -1, and no other is negative;
  * their product is the tensor's size;
  * the tensor is a plain Tensor (or a class of LEAN_CLASSES) over a row-major host array.
Then ``view`` and ``reshape`` both make the VIEW row's view (a row-major tensor is
viewed, not copied or ``_reshape_alias``-ed). ``ndarray.reshape`` of a row-major array is
always a view of it. ``make_view`` (autograd/views.py) wraps it exactly as
``dispatch_view`` does: the same Tensor, ViewInfo, replay and ViewBackward0 node, under
any grad or inference mode.
Every other call goes to the slow method, which also raises every error: a keyword, a
bool or a NumPy integer among the sizes, a list, sizes that do not fit, a strided tensor,
a CuPy array. So does every call while the profiler times every forward.

``unsqueeze(d)``, ``squeeze()``, ``squeeze(d)``, ``transpose(a, b)`` and ``t()`` take the
same shortcut for dims that are Python ints in range, on any host tensor (strided too:
none of them copies). The view is the row's own array call without NumPy's Python around
it (``expand_dims`` is ``reshape`` to the shape with the unit dim, ``squeeze`` and
``swapaxes`` the array's methods, ``t()`` ``.T``). The dims are shown as
the slow methods show them (``show_given``, Note [dims as given]).
tests/ops/test_lean_views.py compares both ways.
"""
from __future__ import annotations

import functools

from .. import backend as B
from ..autograd.saved_names import show_given
from ..autograd.views import make_view
from ..tensor import LEAN_CLASSES as _LEAN, Tensor

__all__ = ["shape_method", "unsqueeze_method", "squeeze_method", "transpose_method",
           "t_method", "set_lean_views"]

_HOST = B.HOST_ARRAY
_Tensor = Tensor
_enabled = [True]


def set_lean_views(enabled: bool) -> bool:
    """Turn Note [lean views] on or off (tests compare both); returns the previous
    setting."""
    prev = _enabled[0]
    _enabled[0] = bool(enabled)
    return prev


def _sizes(args, size):
    """``args`` (``view``'s sizes, or one tuple of them) as a tuple of ints with the one -1
    inferred for ``size`` elements, or None when the slow method must answer."""
    if len(args) == 1 and type(args[0]) is tuple:
        args = args[0]
    known = 1
    free = -1   # the position of the -1
    i = 0
    for s in args:
        if type(s) is not int:
            return None
        if s < 0:
            if s != -1 or free >= 0:
                return None
            free = i
        else:
            known *= s
        i += 1
    if free >= 0:
        if not known or size % known:
            return None
        return args[:free] + (size // known,) + args[free + 1:]
    return args if known == size else None


def shape_method(slow, op, replay_fn):
    """``Tensor.view`` / ``Tensor.reshape``: ``slow`` (the checked method) with the
    commonest call in one body (Note [lean views]); ``op`` is the VIEW row, ``replay_fn``
    the view function a replay calls."""
    def method(self, *args, **kwargs):
        if args and not kwargs:
            d = self._data
            if _host_tensor(self, op) and B.row_major_exactly(d):
                shape = _sizes(args, d.size)
                if shape is not None:
                    return make_view(op, self, d.reshape(shape), (shape,), (replay_fn, (shape,)))
        return slow(self, *args, **kwargs)
    return functools.update_wrapper(method, slow)   # (its signature is slow's: help, REPL)


def _host_tensor(self, op):
    """Whether ``self`` takes the lean view calls: a plain (or LEAN_CLASSES) tensor over a
    host array, the switch on, and the profiler not timing every forward (it sets the
    rows' ``lean1`` to False)."""
    return (type(self._data) is _HOST and (type(self) is _Tensor or type(self) in _LEAN)
            and _enabled[0] and op.lean1 is not False)


def unsqueeze_method(slow, op, replay_fn):
    """``Tensor.unsqueeze``: ``slow`` with an int dim in range in one body (Note [lean
    views])."""
    def method(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and type(args[0]) is int and _host_tensor(self, op):
            d = self._data
            dim = args[0]
            n = d.ndim + 1
            if -n <= dim < n:
                k = dim + n if dim < 0 else dim
                out = make_view(op, self, B.unsqueeze_view(d, k), (k,), (replay_fn, (k,)))
                return out if dim >= 0 else show_given(out, "dim", dim, k)
        return slow(self, *args, **kwargs)
    return functools.update_wrapper(method, slow)


def squeeze_method(slow, ops, replay_fn):
    """``Tensor.squeeze``: ``slow`` with no dim or an int dim in range in one body (Note
    [lean views]); ``ops`` are the SQUEEZE and SQUEEZE_DIM rows."""
    every, one = ops

    def method(self, *args, **kwargs):
        if not kwargs and len(args) <= 1 and _host_tensor(self, every):
            d = self._data
            shape = d.shape
            if not args:   # every dim of size 1
                dims = tuple([i for i, s in enumerate(shape) if s == 1])
                return make_view(every, self, d.squeeze(axis=dims), (dims,), (replay_fn, ()))
            dim = args[0]
            n = d.ndim or 1
            if type(dim) is int and -n <= dim < n:
                k = dim + n if dim < 0 else dim
                dims = (k,) if d.ndim and shape[k] == 1 else ()
                out = make_view(one, self, d.squeeze(axis=dims), (dims,), (replay_fn, (dim,)))
                return show_given(out, "dim", dim, None)   # (shown as given, always)
        return slow(self, *args, **kwargs)
    return functools.update_wrapper(method, slow)


def transpose_method(slow, op, replay_fn):
    """``Tensor.transpose`` (``swapaxes``, ``swapdims``): ``slow`` with two int dims in
    range in one body (Note [lean views])."""
    def method(self, *args, **kwargs):
        if len(args) == 2 and not kwargs and _host_tensor(self, op):
            d = self._data
            a, b = args
            n = d.ndim
            if type(a) is int and type(b) is int and n and -n <= a < n and -n <= b < n:
                i = a + n if a < 0 else a
                j = b + n if b < 0 else b
                out = make_view(op, self, d.swapaxes(i, j), (i, j), (replay_fn, (i, j)))
                if a < 0:
                    show_given(out, "dim0", a, i)
                return out if b >= 0 else show_given(out, "dim1", b, j)
        return slow(self, *args, **kwargs)
    return functools.update_wrapper(method, slow)


def t_method(slow, op, replay_fn):
    """``Tensor.t``: ``slow`` for a host tensor of at most 2 dims in one body (Note [lean
    views])."""
    def method(self, *args, **kwargs):
        if not args and not kwargs and _host_tensor(self, op) and self._data.ndim <= 2:
            return make_view(op, self, self._data.T, (), (replay_fn, ()))
        return slow(self, *args, **kwargs)
    return functools.update_wrapper(method, slow)
