"""``y.view(...)`` and ``y.reshape(...)`` of a row-major tensor in one function
(Note [lean views]).

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
tests/ops/test_lean_views.py compares both ways.
"""
from __future__ import annotations

import functools

from .. import backend as B
from ..autograd.views import make_view
from ..tensor import LEAN_CLASSES as _LEAN, Tensor

__all__ = ["shape_method", "set_lean_views"]

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
            if (type(d) is _HOST and (type(self) is _Tensor or type(self) in _LEAN)
                    and d.flags.c_contiguous and _enabled[0] and op.lean1 is not False):
                # (lean1 is False while the profiler times every forward)
                shape = _sizes(args, d.size)
                if shape is not None:
                    return make_view(op, self, d.reshape(shape), (shape,), (replay_fn, (shape,)))
        return slow(self, *args, **kwargs)
    return functools.update_wrapper(method, slow)   # (its signature is slow's: help, REPL)
