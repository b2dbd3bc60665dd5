"""Recording a call of a table row: ``record`` builds its node (edges, sequence number,
saved values), ``_save`` saves what the row's plan names, the edge helpers (``_edges``,
``_edge_of``, ``_differentiable``, ``_per_input``) and ``sum_to``, which reduces a
broadcast gradient back to its input's shape.

The node classes and the rows themselves are nodes.py (``FnNode``, ``OpDef``); the lean
recording of the commonest call shape is record_lean.py (Note [lean record]). autograd
never imports ops: the ops package calls ``record`` after each forward.
"""
from __future__ import annotations

from types import MappingProxyType

from .. import backend as B
from ..tensor import Tensor
from . import anomaly as _anomaly
from . import blame as _blame
from .graph import (_NO_EDGE, next_sequence_nr as _next_seq, _complex_refusal,
                    _new_saved_tensor, _pack_output)
from .state import state as _st

_torch_strides = B.torch_strides

__all__ = ["record", "sum_to"]

_Tensor = Tensor
_new = object.__new__


def _device_of(inputs):
    dev = None
    for t in inputs:
        if type(t) is _Tensor or isinstance(t, _Tensor):
            if dev is None:
                dev = t._device
            elif t._device is not dev:
                raise RuntimeError(
                    "Expected all tensors to be on the same device, but found at least two "
                    f"devices, {dev.type} and {t._device.type}! Move them with .to(device).")
    return dev or B.cpu


def _save(node, plan, inputs, out, attrs, defer_pack=False):
    """Save what ``plan`` (OpDef.save_plan) names into ``node._saved``: a SavedTensor for a
    tensor (``_new_saved_tensor``), the value itself otherwise."""
    saved = {}
    where = None
    releasable = False
    for name, kind, idx in plan:
        if kind < 2:
            t = inputs[idx] if kind == 0 else out[idx] if type(out) is tuple else out
            if type(t) is _Tensor or isinstance(t, _Tensor):
                st = _new_saved_tensor(t, kind == 1)
                if kind == 1 and _st.saved_tensors_hooks and not defer_pack:
                    # an output is packed with its history, as PyTorch's (its recorder
                    # sets the same grad_fn on it next)
                    t._grad_fn, t._output_nr = node, idx if type(out) is tuple else 0
                    _pack_output(st, t)
                if where is None and _st.blame:  # once per node: where the user's line is
                    where = (node.OP.node_name, _blame.user_frame(5))
                st.where = where
                saved[name] = st
            else:
                # a Python scalar operand: PyTorch wraps it in a tensor and saves that,
                # so a second backward without retain_graph fails here too
                saved[name] = t
            releasable = True
        elif kind == 2:
            a = attrs[idx]
            if isinstance(a, _Tensor) or (type(a) is tuple and a and isinstance(
                    a[0], _Tensor) and all(isinstance(v, _Tensor) for v in a)):
                # a Tensor attribute (where's condition, a loss's weight; a tuple of them:
                # the index tensors of x[idx]): saved as PyTorch saves it, SavedTensors
                # whose version backward checks — kept as is, a condition or an index
                # modified in place would give a wrong gradient silently
                if where is None and _st.blame:
                    where = (node.OP.node_name, _blame.user_frame(5))
                sts = []
                for v in (a,) if isinstance(a, _Tensor) else a:
                    st = _new_saved_tensor(v, False)
                    st.where = where
                    sts.append(st)
                saved[name] = sts[0] if isinstance(a, _Tensor) else tuple(sts)
                releasable = True
            else:
                saved[name] = a
        elif kind == 3:
            x = inputs[idx]
            saved[name] = tuple(x._data.shape) if isinstance(x, _Tensor) else ()
        else:  # <input>_strides: as PyTorch reports them (mm's and addmm's layout choice)
            saved[name] = _torch_strides(inputs[idx]._data)
    node._releasable = releasable
    node._sdict = saved


_ONE = (True,)
_NOTHING_SAVED = MappingProxyType({})  # shared by every node that saves nothing


# Note [integer results have no history]
# Only floating-point (and complex) tensors can require grad: PyTorch gives a result of an
# integer or bool dtype no grad_fn, whatever its inputs (``x.long()``, ``x.int().sum()``,
# an integer tensor written in place from a float that requires grad). Such a result is
# a constant to autograd: ``(x.long() * x).sum()``'s gradient is ``x.long()``, and no
# gradient flows back through the cast. ``record`` and ``record_one`` make no node for
# one (they answer None, the grad_fn a result without history has).

def record(op, inputs, out, attrs, edges, one=None, defer_pack=False):
    """Attach a new node of ``op`` to ``out`` (a Tensor or a tuple of Tensors). ``one``:
    a Tensor input whose shape and dtype every Tensor input has (the others are Python
    numbers): nothing was broadcast, so the shapes are not compared. ``defer_pack``: an
    in-place op's saved result is handed to a pack hook after the write (apply_inplace)."""
    if type(out) is _Tensor:
        kind = out._data.dtype.kind
        if kind != "f":   # Note [integer results have no history]
            if kind == "c":
                raise _complex_result(op, out)   # Note [no complex gradients] (graph.py)
            return None
    elif _a_complex_one(out):
        raise _complex_result(op, out)
    node = _new(op.node_cls)
    node.next_functions = edges if not op.nondiff else _differentiable(edges, op.nondiff)
    node._seq_nr = _next_seq()
    # 'input i needs grad' flags, which pick what to save; one input: it does
    n = len(edges)
    if n == 1:
        plan = op.plan1
    else:
        needs = ((edges[0][0] is not None, edges[1][0] is not None) if n == 2
                 else tuple([e[0] is not None for e in edges]))
        plan = op._plans.get(needs) or op.save_plan(needs)
    if plan:
        _save(node, plan, inputs, out, attrs, defer_pack)
    else:
        node._sdict = _NOTHING_SAVED
        node._releasable = False
    if one is not None:
        if n > 1 and one._data.dtype != out._data.dtype:   # int tensor * 2.5
            node._dtypes = _input_dtypes(inputs)
    else:
        if op.broadcast:
            # the inputs' shapes, only when some input was broadcast (then backward sums
            # its gradient back to its shape); FnNode._shapes is None otherwise
            shape = out._data.shape
            for x in inputs:
                if isinstance(x, _Tensor) and x._data.shape != shape:
                    node._shapes = tuple([y._data.shape if isinstance(y, _Tensor) else None
                                          for y in inputs])
                    break
        if n > 1 and type(out) is _Tensor:
            od = out._data.dtype
            for x in inputs:
                if isinstance(x, _Tensor) and x._data.dtype != od:
                    node._dtypes = _input_dtypes(inputs)
                    break
    if _st.anomaly:
        _anomaly.record_forward_stack(node)
    return node


def _a_complex_one(outs):
    """Whether a tuple of outputs holds a complex Tensor (None: a multi-output view op,
    whose views keep their base's dtype)."""
    return outs is not None and any(isinstance(o, _Tensor) and o._data.dtype.kind == "c"
                                    for o in outs)


def _complex_result(op, out):
    """Note [no complex gradients] (graph.py): the error for ``op``'s complex result."""
    o = next(o for o in ((out,) if type(out) is _Tensor else out)
             if isinstance(o, _Tensor) and o._data.dtype.kind == "c")
    return _complex_refusal(f"{op.name} gives a {B.dtype_name(o._data.dtype)} result from "
                           "an input that requires grad")


def _input_dtypes(inputs):
    """FnNode._dtypes: each Tensor input's dtype (None for a Python number)."""
    return tuple([x._data.dtype if isinstance(x, _Tensor) else None for x in inputs])


def _differentiable(edges, nondiff):
    """The edges of the inputs that have a derivative (Note [edges of non-differentiable
    inputs])."""
    return tuple([e for i, e in enumerate(edges) if i not in nondiff])


def _per_input(edges, nondiff):
    """The inverse of _differentiable: one edge per input, _NO_EDGE where none is kept."""
    it = iter(edges)
    return tuple([_NO_EDGE if i in nondiff else next(it)
                  for i in range(len(edges) + len(nondiff))])


def _edge_of(t):
    """The gradient edge of one input (inlined fast path of Tensor._edge)."""
    if t._view_info is None:
        fn = t._grad_fn
        if fn is not None:
            return (fn, t._output_nr)
        if not t._requires_grad:
            return None
        ref = t._grad_accumulator   # a leaf's AccumulateGrad while it lives (the weakref
        acc = ref() if ref is not None else None   # grad_accumulator reads)
        return (acc, 0) if acc is not None else t._edge()
    # A view made under no_grad of a base that requires grad: no grad_fn and no grad
    # accumulator, yet it requires grad, so (as PyTorch) the op still records its node,
    # with the edge (None, 0) for this input; its output requires grad.
    e = t._edge()
    return _NO_EDGE if e is None and t._base.requires_grad else e


def _edges(inputs):
    """Gradient edges of the inputs (_NO_EDGE for one that needs no gradient, or a
    non-Tensor operand), or None when no input requires grad."""
    if len(inputs) == 1:
        e = _edge_of(inputs[0])
        return None if e is None else (e,)
    edges = []
    any_edge = False
    for t in inputs:
        if isinstance(t, _Tensor):
            e = _edge_of(t)
            if e is not None:
                any_edge = True
                edges.append(e)
                continue
        edges.append(_NO_EDGE)
    return tuple(edges) if any_edge else None


def sum_to(g, shape):
    """Reduce a broadcast gradient back to ``shape`` (the one shared helper)."""
    shape = tuple(shape)
    gs = g._data.shape
    if gs == shape:
        return g
    lead = len(gs) - len(shape)
    dims = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and gs[i + lead] != 1)
    if dims:
        g = g.sum(dims, keepdim=True)
    if lead:
        g = g.reshape(shape)
    elif g._data.shape != shape:
        g = g.reshape(shape)
    return g
