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




def promoted_arrays(inputs):
    """The inputs' arrays cast to PyTorch's result dtype (Note [type promotion] in
    backend.py); Python scalars stay Python scalars (NumPy keeps them weak)."""
    dims, zero_dims, scalars = [], [], []
    for t in inputs:
        if isinstance(t, _Tensor):
            (dims if t._data.ndim else zero_dims).append(t._data.dtype)
        elif isinstance(t, (bool, int, float, complex)):
            scalars.append(t)
    rt = B.torch_result_type(dims, zero_dims, scalars)
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


<<<<<<< HEAD
from ..autograd.views import make_view as _make_view  # noqa: E402


# -----------------------------------------------------------------------------------
# in-place: THE choke point (DESIGN §4)
# -----------------------------------------------------------------------------------

def apply_inplace(op, self, others=(), attrs=(), name=None, compute=None):
    """Run ``op`` in place on ``self``.

    1. checks (check_inplace: leaf / view-of-leaf / creation_meta / overlap);
    2. compute into ``self._data`` and bump the shared version counter;
    3. rebase history: the op's node becomes self's grad_fn (or, for a view, the base's
       grad_fn becomes a CopySlices wrapping it) — see autograd/views.py;
    4. the tracer, if any, is told before 2 and after 3.
    """
    from ..autograd.views import check_inplace, check_no_partial_overlap, rebase_history
    inputs = (self,) + tuple(others)
    dev = _device_of(inputs)
    opname = name or (op.name + "_")
    grad_on = _st.grad_enabled
    edges = _edges(inputs) if grad_on else None
    check_no_partial_overlap(self, others, opname)
    check_inplace(self, edges is not None or (grad_on and self.requires_grad), opname)
    hook = _st.inplace_observer
    token = hook.before(opname, self, others) if hook is not None else None
    node = None
    if edges is not None:
        # Note [saved before the write]: what the node saves is captured NOW, before the
        # write and the version bump, with the versions the operands have now. So an
        # operand that aliases self (b.mul_(b), x.mul_(x.detach())) is saved at the old
        # version, and backward refuses it ("modified by an inplace operation") instead
        # of using the new values: a wrong gradient that raises nothing.
        if any(kind == 0 and idx == 0 for _, kind, idx in
               op.save_plan(tuple(e is not None for e in edges))):
            # A formula needs self's value from BEFORE the op (mul_ saves self for other's
            # gradient): like PyTorch, save a clone of the original self.
            inputs = (self.clone(),) + inputs[1:]
        node = record(op, inputs, self, attrs, edges)
    args = [t._data if isinstance(t, _Tensor) else t for t in (self,) + tuple(others)]
    ufunc = _INPLACE_UFUNCS.get(op.name) if compute is None else None
    if ufunc is None or not _ufunc_into(self._device.xp, ufunc, args):
        try:
            new = compute(*args, *attrs) if compute is not None else op.forward(*args,
                                                                              *attrs)
        except ValueError as e:
            shapes = [list(getattr(a, "shape", ())) for a in args]
            raise RuntimeError(f"{opname}: the shapes {shapes} cannot be broadcast together "
                               f"into self's shape {shapes[0]} ({e})") from None
        _write_into(self, new, opname)
    vc = self._version_counter
    vc.bump(opname)
    if node is not None:
        if op.uses_result:  # the saved result is self AFTER the write: its new version
            for st in node._saved.values():
                if type(st) is SavedTensor and st.is_output:
                    st.saved_version = vc.version
        # self's own edge stays edge 0 (the old history): x.mul_(2) is x = x0 * 2.
        rebase_history(self, node)
    if token is not None:
        hook.after(token)
    return self


# Binary arithmetic in place writes straight into self's memory (``out=``): no
# temporary, one pass (an optimizer step over big parameters is several of these).
_INPLACE_UFUNCS = {"add": "add", "add_scalar": "add", "sub": "subtract", "mul": "multiply",
                   "div": "true_divide"}


def _ufunc_into(xp, name, args):
    d, o = args
    if d.dtype.kind != "f":
        return False  # integer tensors: the general path applies the casting rules
    od = getattr(o, "dtype", None)
    if od is None:
        if isinstance(o, bool) or not isinstance(o, (int, float)):
            return False
    elif od != d.dtype or o.shape != d.shape:
        try:
            if od != d.dtype or B.broadcast_shapes(o.shape, d.shape) != d.shape:
                return False  # promotion or a shape that does not fit: the general path
        except ValueError:
            return False

    getattr(xp, name)(d, o, out=d)
    return True


def _write_into(self, new, opname):
    d = self._data
    if new is d:
        return
    nd = getattr(new, "dtype", None)
    if nd is not None and nd.kind == "f" and d.dtype.kind in "iub":
        raise RuntimeError(f"{opname}: result type {B.dtype_name(nd)} can't be cast to the "
                           f"desired output type {B.dtype_name(d.dtype)}; use an out-of-place "
                           "op, or convert first (x = x.float())")
    ns = getattr(new, "shape", ())
    if ns != d.shape:
        try:
            if B.broadcast_shapes(ns, d.shape) != d.shape:
                raise ValueError
        except ValueError:
            raise RuntimeError(
                f"{opname}: output with shape {list(d.shape)} doesn't match the broadcast "
                f"shape {list(ns)}") from None
    d[...] = new


=======
>>>>>>> main
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
