"""The two commonest calls, run in one function each (Note [lean ops]).

Note [lean ops]
A speed trick, fenced off here. The teaching path of an op is ``dispatch``
(ops/table.py: forward, result Tensor) then ``record_one`` (autograd/record_lean.py:
node, edges, saved values). Most nodes of a small-op program come from two call shapes:

* ``unary(op, y)``: a one-input row whose forward is a NumPy ufunc (``y.tanh()``,
  ``y.exp()``, ``y.sigmoid()``: Note [host ufuncs] in table.py);
* ``with_number(op, y, 2.5)``: ``y <op> a Python float`` (``y * 1.01``, ``y - 1.65``);

with ``y`` a host float tensor that has a history and is not a view, grad mode on, and
no inference mode, anomaly mode or saved-tensor hooks. For those, the function below
runs what dispatch and record_one run — the same forward, the same result Tensor, the
same node with the same edges, sequence number, saved values and blame mark — in one
body, without the calls between them (the result Tensor is ``tensor.new_result``'s, as
dispatch's: Note [dispatch in line]). A row that saves anything else than its result
(or, with a number, the number), and every other case, go to ``dispatch`` untouched,
which also raises every error.

tests/autograd/test_lean_record.py runs every program both ways (``set_lean_ops(False)``
turns this off) and compares everything observable.
"""
from __future__ import annotations

from .. import backend as B
from ..autograd import blame as _blame
from ..autograd.graph import _NO_EDGE, _new_saved_tensor, next_sequence_nr as _next_seq
from ..autograd.nodes import _NOTHING_SAVED
from ..autograd.state import state as _st
from ..tensor import Tensor, new_result
from .table import dispatch

__all__ = ["unary", "with_number", "set_lean_ops"]

_HOST = B.HOST_ARRAY
_Tensor = Tensor
_new = object.__new__
_enabled = [True]


def set_lean_ops(enabled: bool) -> bool:
    """Turn the lean calls on or off (tests compare both); returns the previous setting."""
    prev = _enabled[0]
    _enabled[0] = bool(enabled)
    return prev


def unary(op, x):
    """``dispatch(op, (x,))`` for a row with a host ufunc (Note [lean ops])."""
    fn = x._grad_fn
    data = x._data
    st = _st
    plan = op.plan1
    if (fn is None or type(data) is not _HOST or x._view_info is not None or op.host is None
            or op.nondiff or not _enabled[0] or not st.grad_enabled or st.inference
            or st.anomaly or (plan and (len(plan) != 1 or plan[0][1] != 1
                                        or st.saved_tensors_hooks))):
        return dispatch(op, (x,))
    r = op.host(data)
    if type(r) is not _HOST:   # a 0-d input gives a NumPy scalar
        r = x._device.xp.asarray(r)
    out = new_result(r, x._device)
    node = _new(op.node_cls)
    node.next_functions = ((fn, x._output_nr),)
    node._sequence_nr = _next_seq()
    if plan:   # the result
        s = _new_saved_tensor(out, True)
        if st.blame:
            s.where = (op.node_name, _blame.user_frame(3))
        node._saved = {plan[0][0]: s}
    else:
        node._saved = _NOTHING_SAVED
    node._releasable = bool(plan)
    out._grad_fn = node
    return out


def with_number(op, x, other):
    """``dispatch(op, (x, other))`` for ``other`` a Python float (Note [lean ops])."""
    if type(x) is not _Tensor:
        return dispatch(op, (x, other))
    fn = x._grad_fn
    data = x._data
    st = _st
    plan = op.plan_scalar
    if (fn is None or type(data) is not _HOST or x._view_info is not None
            or data.dtype.char not in "fd" or op.nondiff or not _enabled[0] or not st.grad_enabled
            or st.inference or st.anomaly
            or (plan and (len(plan) != 1 or plan[0][1] != 0 or plan[0][2] != 1))):
        return dispatch(op, (x, other))
    r = op.forward(data, other)
    if type(r) is not _HOST:
        r = x._device.xp.asarray(r)
    if r.dtype != data.dtype:   # (never for float tensors; dispatch casts gradients back)
        return dispatch(op, (x, other))
    out = new_result(r, x._device)
    node = _new(op.node_cls)
    node.next_functions = ((fn, x._output_nr), _NO_EDGE)
    node._sequence_nr = _next_seq()
    # the number itself, as PyTorch saves it too (or nothing: x - 1.65)
    node._saved = {plan[0][0]: other} if plan else _NOTHING_SAVED
    node._releasable = bool(plan)
    out._grad_fn = node
    return out
