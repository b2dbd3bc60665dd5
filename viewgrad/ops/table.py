"""The derivatives table and the op dispatcher (the hot path).

Every differentiable op is declared ONCE with ``defop`` — in the spirit of PyTorch's
derivatives.yaml::

    defop("mul", "MulBackward0", lambda self, other: self * other,
          self=lambda grad, other: grad * other,
          other=lambda grad, self: grad * self)

* the forward works on backend arrays (numpy/cupy) and Python scalars;
* each keyword names a forward input and gives its backward formula, written in viewgrad
  ops (so it is itself differentiable: double backward works for every op);
* the formula's parameter names say what it needs. ``grad`` is the incoming gradient;
  an input name (``self``, ``other``) means "save that input"; ``result`` means "save the
  output"; ``self_shape`` etc. are shapes; any other name is a non-tensor argument of
  the op (``dim``, ``keepdim``...). Like PyTorch, an input is saved only when some input
  whose formula uses it requires grad: ``x * c`` with a constant saves nothing.

The table is resolved at import time into a ``FnNode`` subclass per op, named as PyTorch
names its nodes, so ``type(y.grad_fn).__name__ == y.grad_fn.name() == "MulBackward0"``.
The graph side of a row (``OpDef``, ``FnNode``, ``record``, edges) lives in
``autograd/nodes.py``; this module declares the rows and runs them.

``dispatch`` runs an op: forward on arrays, wrap the result, and — only when grad mode is
on and some input requires grad — build the node with its edges and saved tensors.
``dispatch_view`` does the same for view ops and records the view metadata.
``apply_inplace`` (``autograd/views.py``) is THE choke point for in-place ops: checks,
compute, bump, rebase.
"""
from __future__ import annotations

from .. import backend as B
from ..autograd.nodes import OPS, OpDef, FnNode, defop, record, sum_to, _device_of, _edges
from ..autograd.state import state as _st
from ..autograd.views import apply_inplace, make_view as _make_view
from ..tensor import Tensor

__all__ = ["OpDef", "defop", "dispatch", "dispatch_view", "apply_inplace", "OPS",
           "FnNode", "sum_to", "unpack_args"]

_make = Tensor._make
_ARRAYS = B.ARRAY_TYPES
_Tensor = Tensor


# -----------------------------------------------------------------------------------
# dispatch
# -----------------------------------------------------------------------------------

def dispatch(op, inputs, attrs=()):
    """Run a (non-view, single-output) op on Tensors (and Python scalars)."""
    n = len(inputs)
    if n == 1:
        x = inputs[0]
        dev = x._device
        data = op.forward(x._data, *attrs)
    elif n == 2 and type(inputs[0]) is _Tensor:  # the common binary case, no loops
        x, y = inputs
        dev = x._device
        if type(y) is _Tensor:
            if y._device is not dev:
                _device_of(inputs)  # raises the mixed-devices error
            if op.promote and x._data.dtype != y._data.dtype:
                data = op.forward(*promoted_arrays(inputs), *attrs)
            else:
                data = op.forward(x._data, y._data, *attrs)
        elif isinstance(y, _Tensor):
            dev = _device_of(inputs)
            data = op.forward(*(promoted_arrays(inputs) if op.promote else
                                (x._data, y._data)), *attrs)
        elif op.promote and type(y) is float and x._data.dtype.kind in "iub":
            data = op.forward(*promoted_arrays(inputs), *attrs)  # int tensor * 2.5
        else:
            data = op.forward(x._data, y, *attrs)
    else:
        dev = _device_of(inputs)
        data = op.forward(*(promoted_arrays(inputs) if op.promote else
                            [t._data if isinstance(t, _Tensor) else t for t in inputs]),
                          *attrs)
    if type(data) not in _ARRAYS:
        data = dev.xp.asarray(data)
    out = _make(data, dev)
    if _st.grad_enabled:
        edges = _edges(inputs)
        if edges is not None:
            out._grad_fn = record(op, inputs, out, attrs, edges)
    return out




def promoted_dtype(inputs, all_dimensioned=False):
    """PyTorch's result dtype of ``inputs`` (Tensors and Python scalars; Note [type
    promotion] in backend.py). ``all_dimensioned``: 0-d tensors count as dimensioned ones
    (cat and stack)."""
    dims, zero_dims, scalars = [], [], []
    for t in inputs:
        if isinstance(t, _Tensor):
            (dims if t._data.ndim or all_dimensioned else zero_dims).append(t._data.dtype)
        elif isinstance(t, (bool, int, float, complex)):
            scalars.append(t)
    return B.torch_result_type(dims, zero_dims, scalars)


def promoted_arrays(inputs, all_dimensioned=False):
    """The inputs' arrays cast to PyTorch's result dtype (Note [type promotion] in
    backend.py); Python scalars stay Python scalars (NumPy keeps them weak)."""
    rt = promoted_dtype(inputs, all_dimensioned)
    out = []
    for t in inputs:
        if isinstance(t, _Tensor):
            d = t._data
            out.append(d if d.dtype == rt else d.astype(rt))
        else:
            out.append(t)
    return out


def unpack_args(args):
    """Allow f(a, b) and f((a, b)) / f([a, b]) for shape-like varargs."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


# -----------------------------------------------------------------------------------
# views
# -----------------------------------------------------------------------------------

def dispatch_view(op, x, attrs, replay, creation_meta=None):
    """Run a view op: the output shares ``x``'s memory, base and version counter.
    ``replay = (fn, args)`` remakes the view from another tensor (view replay)."""
    data = op.forward(x._data, *attrs)
    return _make_view(op, x, data, attrs, replay, creation_meta)


# -----------------------------------------------------------------------------------
# Tensor methods: each ops module marks its public functions with @method("name", ...);
# ops/__init__.py attaches them to Tensor (so t.exp() is exactly ops.pointwise.exp(t)).
# -----------------------------------------------------------------------------------

METHODS: dict = {}


def method(*names):
    def deco(f):
        for n in names:
            METHODS[n] = f
        return f
    return deco
