"""The lean way to record the commonest node (Note [lean record]).

Note [lean record]
A speed trick, fenced off here: ``record`` (autograd/recording.py) is the teaching path and
handles every op. Most nodes of a program, though, come from one call shape: one Tensor
input with a history (not a view), the other operand (if any) a Python number
(``y.tanh()``, ``y * 1.01``, ``y - 1.65``) or a constant: a Tensor that needs no gradient
(no history, not requiring grad, not a view) of the input's shape and dtype (``y * c``;
nothing broadcast, nothing cast). For that shape ``record_one`` builds the same node ``record``
builds — the same edges, sequence number, saved values and checks — with the steps that
cannot apply left out, and the commonest save (the result, or the Python number) made in
line. Anything else (more than one thing to save, an input saved) goes through
``record``'s own ``_save``.
"""
from __future__ import annotations

from . import anomaly as _anomaly
from . import blame as _blame
from .fold import MASK as _FOLD_MASK, tick as _fold_tick
from .graph import _NO_EDGE, next_sequence_nr as _next_seq, _new_saved_tensor
from .recording import _NOTHING_SAVED, _complex_result, _differentiable, _save
from .state import odd_threads as _ODD, state as _st

__all__ = ["record_one"]

_new = object.__new__


def record_one(op, inputs, out, attrs, x):
    """``record(op, inputs, out, attrs, edges)`` for ``inputs`` = ``(x,)``, ``(x, a
    Python number)`` or ``(x, a constant Tensor shaped and typed like x)``, ``x`` a
    non-view Tensor with a grad_fn (Note [lean record])."""
    kind = out._data.dtype.kind
    if kind != "f":   # Note [integer results have no history] (recording.py)
        if kind == "c":   # x.to(complex): Note [no complex gradients] (graph.py)
            raise _complex_result(op, out)
        return None
    node = _new(op.node_cls)
    e = (x._grad_fn, x._output_nr)
    if len(inputs) == 1:
        edges = (e,)
        plan = op.plan1
    else:
        edges = (e, _NO_EDGE)
        plan = op.plan_scalar
        if type(inputs[1]) is float and x._data.dtype != out._data.dtype:
            # int tensor * 2.5: cast the gradient back
            node._dtypes = (x._data.dtype, None)
    node.next_functions = _differentiable(edges, op.nondiff) if op.nondiff else edges
    node._seq_nr = seq = _next_seq()
    if not plan:
        node._sdict = _NOTHING_SAVED
        node._releasable = False
    elif len(plan) == 1 and plan[0][1] == 1 and not _st.saved_tensors_hooks:   # the result
        # (with saved-tensor hooks on, _save packs it: the hooks see every saved tensor)
        st = _new_saved_tensor(out, True)
        if _st.blame:
            st.where = (op.node_name, _blame.user_frame(4))
        node._sdict = {plan[0][0]: st}
        node._releasable = True
    elif len(plan) == 1 and plan[0][1] == 0 and plan[0][2] == 1 and type(inputs[1]) is float:
        node._sdict = {plan[0][0]: inputs[1]}  # the Python number (PyTorch saves it too)
        node._releasable = True
    else:
        _save(node, plan, inputs, out, attrs)
    if _st.anomaly:
        _anomaly.record_forward_stack(node)
    elif not seq & _FOLD_MASK and (not _ODD or _st.plain):   # (no tracer watching)
        _fold_tick(x._grad_fn)   # Note [folded chains] (fold.py)
    return node
