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

``dispatch`` runs an op: forward on arrays, wrap the result, and — only when grad mode is
on and some input requires grad — build the node with its edges and saved tensors.
``dispatch_view`` does the same for view ops and records the view metadata.
``apply_inplace`` is THE choke point for in-place ops: checks, compute, bump, rebase.
"""
from __future__ import annotations

import inspect

from .. import backend as B
from ..autograd.state import state as _st
from ..autograd.graph import Node, SavedTensor, ERR_FREED, next_sequence_nr as _next_seq
from ..tensor import Tensor

__all__ = ["OpDef", "defop", "dispatch", "dispatch_view", "apply_inplace", "OPS",
           "FnNode", "sum_to", "unpack_args"]

OPS: dict[str, "OpDef"] = {}
_make = Tensor._make
_ARRAYS = B.ARRAY_TYPES       # op name -> OpDef (the derivatives table)
_new = object.__new__
_Tensor = Tensor


class FnNode(Node):
    """A node made from a table entry. ``_saved``: {name: SavedTensor | value}."""

    # _shapes: the inputs' shapes, for ops that broadcast (None otherwise)
    __slots__ = ("_saved", "_releasable", "_shapes")
    OP: "OpDef" = None
    # The inputs' dtypes, only when some input's dtype differs from the output's (a float32
    # x times a float64 w): each gradient is cast back to its input's dtype, as PyTorch's
    # validate_outputs does, so a float32 leaf never receives a float64 .grad.
    _dtypes = None

    def apply(self, grads):
        op = self.OP
        saved = self._saved
        if saved is None:
            raise RuntimeError(ERR_FREED)
        if op.fast is not None and not _st.grad_enabled and grads[0] is not None:
            return self._apply_fast(grads[0], op, saved)
        grad = grads if op.multi_output else grads[0]
        out = []
        edges = self.next_functions
        shapes = self._shapes
        for i, (formula, deps, _) in enumerate(op.formulas):
            if edges[i] is None or formula is None:
                out.append(None)
                continue
            args = [_unpack(saved[d], self) for d in deps]
            g = formula(grad, *args)
            if shapes is not None and g is not None and g._data.shape != shapes[i]:
                g = sum_to(g, shapes[i])
            out.append(g)
        if self._dtypes is not None:
            _cast_to_inputs(out, self._dtypes)
        return out

    def _apply_fast(self, g, op, saved):
        """Plain backward (grad mode off): array kernels from ops/fast.py."""
        garr = g._data
        dev = g._device
        out = []
        edges = self.next_functions
        shapes = self._shapes
        for i, (k, deps) in enumerate(op.fast):
            if edges[i] is None:
                out.append(None)
                continue
            if k is None:  # no kernel for this input: the viewgrad formula
                f, fdeps, _ = op.formulas[i]
                r = None if f is None else f(g, *[_unpack(saved[d], self) for d in fdeps])
                if r is not None and shapes is not None and r._data.shape != shapes[i]:
                    r = sum_to(r, shapes[i])
                out.append(r)
                continue
            r = k(garr, *[_unpack_data(saved[d]) for d in deps])
            if shapes is not None and r.shape != shapes[i]:
                r = _sum_to_array(r, shapes[i])
            if r is garr:
                out.append(g)  # the same Tensor: AccumulateGrad sees it is shared
                continue
            if type(r) not in _ARRAYS:
                r = dev.xp.asarray(r)
            out.append(_make(r, dev))
        if self._dtypes is not None:
            _cast_to_inputs(out, self._dtypes)
        return out

    def release_variables(self):
        if self._releasable:
            self._saved = None

    def saved_items(self):
        return list((self._saved or {}).items())

    def __getattr__(self, name):
        # PyTorch-style teaching access: grad_fn._saved_self, _saved_result, _saved_dim...
        if name.startswith("_saved_") or name.startswith("_raw_saved_"):
            key = name.split("_saved_", 1)[1]
            saved = object.__getattribute__(self, "_saved")
            if saved is None:
                raise RuntimeError(ERR_FREED)
            if key in saved:
                v = saved[key]
                if type(v) is SavedTensor:
                    return v if name.startswith("_raw") else v.unpack(self)
                return v
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def saved_tensors(self):
        return tuple(v.unpack(self) for v in (self._saved or {}).values()
                     if type(v) is SavedTensor)


def _cast_to_inputs(grads, dtypes):
    for i, g in enumerate(grads):
        if g is not None and dtypes[i] is not None and g._data.dtype != dtypes[i]:
            grads[i] = g.to(dtypes[i])


def _unpack(v, node):
    return v.unpack(node) if type(v) is SavedTensor else v


def _unpack_data(v):
    return v.unpack_data() if type(v) is SavedTensor else v


def _sum_to_array(a, shape):
    """sum_to on arrays: reduce broadcast dims back to ``shape``."""
    lead = a.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and a.shape[i + lead] != 1)
    if dims:
        a = a.sum(axis=dims, keepdims=True)
    return a.reshape(shape)


class OpDef:
    """One row of the derivatives table."""

    def __init__(self, name, node_name, forward, inputs, attrs, formulas, broadcast,
                 multi_output, view, differentiable_outputs, samples, cls=FnNode):
        self.name = name
        self.node_name = node_name
        self.forward = forward
        self.inputs = inputs              # names of tensor inputs, in order
        self.attrs = attrs                # names of non-tensor arguments, in order
        self.broadcast = broadcast
        self.multi_output = multi_output
        self.view = view                  # a view op (output shares memory with input)
        self.differentiable_outputs = differentiable_outputs
        self.samples = samples            # for the gradcheck sweep: fn(rng) -> [(args, kw)]
        self.fast = None                  # array kernels for plain backward (ops/fast.py)
        self.promote = False              # cast inputs per PyTorch's type promotion first
        # formulas: tuple aligned with inputs of (fn or None, deps, uses_result)
        fl = []
        for inp in inputs:
            f = formulas.get(inp)
            if f is None:
                fl.append((None, (), False))
                continue
            params = list(inspect.signature(f).parameters)[1:]
            for p in params:
                if p not in inputs and p != "result" and p not in attrs and not (
                        p.endswith("_shape") and p[:-6] in inputs) and not (
                        p.endswith("_transposed") and p[:-11] in inputs):
                    raise TypeError(f"derivative of {name} wrt {inp}: unknown name {p!r}")
            fl.append((f, tuple(params), "result" in params))
        self.formulas = tuple(fl)
        self.uses_result = any(u for _, _, u in fl)
        self.node_cls = type(node_name, (cls,), {"__slots__": (), "OP": self})
        self._plans = {}

    def save_plan(self, needs):
        """What to save for a given tuple of 'input i needs grad' flags (cached)."""
        plan = self._plans.get(needs)
        if plan is None:
            names = []
            for need, (f, deps, _) in zip(needs, self.formulas):
                if need and f is not None:
                    for d in deps:
                        if d not in names:
                            names.append(d)
            plan = []
            for d in names:
                if d == "result":
                    plan.append((d, 1, 0))
                elif d in self.inputs:
                    plan.append((d, 0, self.inputs.index(d)))
                elif d in self.attrs:
                    plan.append((d, 2, self.attrs.index(d)))
                elif d.endswith("_transposed"):
                    plan.append((d, 4, self.inputs.index(d[:-11])))
                else:
                    plan.append((d, 3, self.inputs.index(d[:-6])))
            plan = tuple(plan)
            self._plans[needs] = plan
        return plan

    def set_fast(self, /, **kernels):  # positional-only: "self" is also a kernel name
        """Give this row array kernels for plain backward (see ops/fast.py): each kernel
        takes the same saved names as (a subset of) its viewgrad formula's."""
        fl = []
        for inp, (f, deps, _) in zip(self.inputs, self.formulas):
            k = kernels.get(inp)
            if k is None or f is None:
                fl.append((None, ()))
                continue
            params = tuple(inspect.signature(k).parameters)[1:]
            if not set(params) <= set(deps):
                raise TypeError(f"fast kernel of {self.name} wrt {inp} needs {params}, but "
                                f"the viewgrad formula saves only {deps}")
            fl.append((k, params))
        self.fast = tuple(fl) if any(k is not None for k, _ in fl) else None

    def __repr__(self):
        return f"<op {self.name} -> {self.node_name}>"


def defop(name, node_name, forward, inputs=("self",), attrs=(), broadcast=False,
          multi_output=False, view=False, differentiable_outputs=None, samples=None,
          cls=FnNode, promote=False, **formulas):
    """Declare an op in the derivatives table; returns its OpDef. ``promote=True``: the
    forward gets its tensor inputs cast to PyTorch's result dtype (elementwise ops)."""
    op = OpDef(name, node_name, forward, tuple(inputs), tuple(attrs), formulas, broadcast,
               multi_output, view, differentiable_outputs, samples, cls)
    op.promote = promote
    if name in OPS:
        raise ValueError(f"op {name!r} declared twice in the derivatives table")
    OPS[name] = op
    return op


# -----------------------------------------------------------------------------------
# dispatch
# -----------------------------------------------------------------------------------

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


from ..autograd.blame import user_frame as _user_frame  # noqa: E402


def record(op, inputs, out, attrs, edges):
    """Attach a new node of ``op`` to ``out`` (a Tensor or a tuple of Tensors)."""
    node = _new(op.node_cls)
    node.next_functions = edges
    node._sequence_nr = _next_seq()
    needs = tuple(e is not None for e in edges)
    saved = {}
    where = None
    releasable = False
    for name, kind, idx in op.save_plan(needs):
        if kind < 2:
            t = out if kind == 1 else inputs[idx]
            if isinstance(t, _Tensor):
                st = SavedTensor(t, kind == 1, node)
                if _st.blame:
                    if where is None:  # once per node: where the user's line is
                        where = (node.name(), _user_frame(4))
                    st.where = where
                saved[name] = st
                releasable = True
            else:
                saved[name] = t  # a Python scalar operand
        elif kind == 2:
            saved[name] = attrs[idx]
        elif kind == 3:
            x = inputs[idx]
            saved[name] = tuple(x._data.shape) if isinstance(x, _Tensor) else ()
        else:  # <input>_transposed: a 2-D input laid out column-major (e.g. weight.t())
            f = inputs[idx]._data.flags
            saved[name] = bool(f.f_contiguous and not f.c_contiguous)
    node._releasable = releasable
    node._saved = saved
    node._shapes = tuple([x._data.shape if isinstance(x, _Tensor) else None for x in inputs]
                         ) if op.broadcast else None
    if len(inputs) > 1 and type(out) is _Tensor:
        od = out._data.dtype
        for x in inputs:
            if isinstance(x, _Tensor) and x._data.dtype != od:
                node._dtypes = tuple([x._data.dtype if isinstance(x, _Tensor) else None
                                      for x in inputs])
                break
    if _st.anomaly:
        from ..autograd.anomaly import record_forward_stack
        record_forward_stack(node)
    return node



def _edge_of(t):
    """The gradient edge of one input (inlined fast path of Tensor._edge)."""
    if t._view_info is None:
        fn = t._grad_fn
        if fn is not None:
            return (fn, t._output_nr)
        if not t._requires_grad:
            return None
    return t._edge()


def _edges(inputs):
    """Gradient edges of the inputs, or None when no input requires grad."""
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
        else:
            edges.append(None)
    return tuple(edges) if any_edge else None


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
