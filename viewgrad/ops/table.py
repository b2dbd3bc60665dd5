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
The graph side of a row lives in ``autograd/``: ``OpDef`` and ``FnNode`` in
``autograd/nodes.py``, ``record`` and the edges in ``autograd/recording.py``; this module
declares the rows and runs them.

``dispatch`` runs an op: forward on arrays, wrap the result, and — only when grad mode is
on and some input requires grad — build the node with its edges and saved tensors.
``dispatch_view`` does the same for view ops and records the view metadata.
``apply_inplace`` (``autograd/views.py``) is THE choke point for in-place ops: checks,
compute, bump, rebase.
"""
from __future__ import annotations

from .. import backend as B
from ..autograd.record_lean import record_one
from ..autograd.nodes import OPS, OpDef, FnNode, defop
from ..autograd.recording import record, sum_to, _device_of, _edges
from ..autograd.state import state as _st
from ..autograd.views import apply_inplace, make_view as _make_view
from ..tensor import Tensor, new_result as _new_result

__all__ = ["OpDef", "defop", "fresh_results", "dispatch", "dispatch_stats", "dispatch_view",
           "apply_inplace", "OPS", "FnNode", "sum_to", "unpack_args", "RefusingNode",
           "refusing"]

_make = Tensor._make
_ARRAYS = B.ARRAY_TYPES
_Tensor = Tensor
_new = object.__new__
_HOST = B.HOST_ARRAY


# -----------------------------------------------------------------------------------
# dispatch
# -----------------------------------------------------------------------------------

def zeros_grad(grad):
    """A formula's zero gradient: zeros like ``grad`` with no history, as PyTorch's
    ``zeros_like(grad)`` — not ``grad * 0``, which is NaN where ``grad`` is infinite
    (``b.zero_(); (1 / b).sum().backward()`` gives 0 in PyTorch, and must here)."""
    return grad.new_zeros(grad.shape)


def fresh_results(*ops):
    """Make each row's forward give its result laid out as PyTorch allocates a reduction's
    (``backend.fresh_row_major``: row-major, canonical strides) whatever its input's
    layout: ``x.t().sum(0)`` is contiguous in PyTorch, where NumPy follows the transpose."""
    for op in ops:
        op.forward = _fresh(op.forward)


def elementwise_rows(*names):
    """Mark one-input rows elementwise: dispatch lays out their results' size-1 dims as
    TensorIterator does (Note [an elementwise result's layout]), as it does a host ufunc
    row's and every elementwise row of two inputs."""
    for name in names:
        OPS[name].follows_first = True


def _fresh(forward):
    def fresh(*args):
        return B.fresh_row_major(forward(*args))
    return fresh


def _follows_first(op):
    """Whether ``op``'s result is laid out as TensorIterator lays it out
    (backend.iterator_layout: Note [an elementwise result's layout]): an
    elementwise row, which is one that promotes, unless it says otherwise."""
    ff = op.follows_first
    return op.promote if ff is None else ff


def _shapes_error(op, inputs):
    """PyTorch's error for the Tensor ``inputs`` of an elementwise ``op`` whose shapes do
    not broadcast (``backend.shapes_error``), or None when they do."""
    return B.shapes_error(op.name, [t._data.shape for t in inputs if isinstance(t, _Tensor)])


def dispatch(op, inputs, attrs=()):
    """Run a (non-view, single-output) op on Tensors (and Python scalars)."""
    n = len(inputs)
    # ``one``: a Tensor input whose shape and dtype every Tensor input has (nothing was
    # broadcast; the others may be Python numbers), for record's short way
    one = x = y = None
    try:
        if n == 1:
            x = one = inputs[0]
            dev = x._device
            data = x._data
            host = op.host
            if host is not None and type(data) is _HOST:
                data = host(data)
                if type(data) is _HOST and data.ndim > 1 and 1 in data.shape:
                    # a size-1 dim's stride: Note [an elementwise result's layout]
                    data = B.iterator_layout(data, (x._data,), data.dtype)
            else:
                data = op.forward(data, *attrs)
                if (type(data) is _HOST and data.ndim > 1 and 1 in data.shape
                        and data.shape == x._data.shape and type(x._data) is _HOST
                        and op.follows_first):
                    # an elementwise result's size-1 dims: laid out as its input's, as
                    # the host rows' above (Note [an elementwise result's layout]; the
                    # one-input rows that are elementwise: ELEMENTWISE_ONE_INPUT)
                    data = B.iterator_layout(data, (x._data,))
        elif n == 2 and type(inputs[0]) is _Tensor:  # the common binary case, no loops
            x, y = inputs
            dev = x._device
            if type(y) is float:
                one = x
                if op.promote and x._data.dtype.char in _LOW:   # int tensor * 2.5, float16
                    data = _low_forward(op, inputs, attrs)
                else:
                    data = op.forward(x._data, y, *attrs)
            elif type(y) is _Tensor:
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
    except OverflowError:
        # an integer op with an out-of-range Python int: NumPy refuses it, PyTorch wraps it
        # (Note [wrapped integer scalars] in backend/dtypes.py)
        wrapped = _wrapped_int_inputs(inputs)
        if wrapped is None:
            raise
        return dispatch(op, wrapped, attrs)
    except ValueError as e:
        # NumPy's words for operands that do not broadcast, from an elementwise row reached
        # without a public function's own check (a loss, a composite): PyTorch's instead
        # (a LinAlgError, also a ValueError, is the kernel's own: it stays)
        err = _shapes_error(op, inputs) if (op.broadcast or op.promote) and not isinstance(
            e, B.LinAlgError) else None
        if err is None:
            raise
        raise err from None
    if type(data) not in _ARRAYS:
        data = dev.xp.asarray(data)
    elif n > 1 and type(data) is _HOST and data.ndim > 1 and _follows_first(op):
        # an elementwise op's layout: Note [an elementwise result's layout] (layouts.py)
        # (an absent optional tensor, None, is no operand: a number is one, of no dims)
        data = B.iterator_layout(data, [t._data if isinstance(t, _Tensor) else None
                                        for t in inputs if t is not None], data.dtype)
    st = _st
    if not st.grad_enabled or st.inference:
        return _make(data, dev)
    out = _new_result(data, dev)
    if one is not None and one._view_info is None and one._grad_fn is not None and (
            n == 1 or type(y) is float):
        # one non-view input with a history, the rest Python numbers: Note [lean record]
        out._grad_fn = record_one(op, inputs, out, attrs, one)
        return out
    if one is None and n == 2 and type(x) is _Tensor and type(y) is _Tensor:
        xd = x._data
        yd = y._data
        if xd.shape == yd.shape and xd.dtype == yd.dtype:
            one = x   # nothing broadcast, nothing to cast back: record's short way
            if (x._view_info is None and x._grad_fn is not None and y._grad_fn is None
                    and y._view_info is None and not y._requires_grad):
                # x with a history times a constant: Note [lean record]
                out._grad_fn = record_one(op, inputs, out, attrs, x)
                return out
    edges = _edges(inputs)
    out._grad_fn = None if edges is None else record(op, inputs, out, attrs, edges, one)
    return out


# Note [statistics saved as PyTorch saves them]
# A normalisation kernel of PyTorch's (native_layer_norm, native_group_norm,
# native_batch_norm) returns its statistics (mean and rstd, per row, group or channel)
# beside its output, as outputs that are not differentiable: its node has ONE output, and
# saves those statistics as ``_saved_result1`` and ``_saved_result2``, tensors without a
# history (their grad_fn is None), packed by saved-tensor hooks and version-checked like
# every saved tensor. ``dispatch_stats`` records such a row: its forward returns the
# output and the statistics' arrays, and the statistics, made Tensors only when a node is
# recorded, join the row's attributes (named ``result1``, ``result2``: the table saves a
# Tensor attribute as a SavedTensor). The backward formulas still recompute what they
# need from the input, so that double backward differentiates through the statistics.

def dispatch_stats(op, inputs, attrs=()):
    """Run a normalisation row (``op.forward`` gives ``(output, statistics...)``) and
    record it, its statistics saved (Note [statistics saved as PyTorch saves them])."""
    dev = _device_of(inputs)
    data, *stats = op.forward(*[t if t is None else t._data for t in inputs], *attrs)
    if type(data) not in _ARRAYS:
        data = dev.xp.asarray(data)
    st = _st
    if not st.grad_enabled or st.inference:
        return _make(data, dev)
    out = _new_result(data, dev)
    edges = _edges(inputs)
    if edges is not None:
        out._grad_fn = record(op, inputs, out, attrs + tuple([_make(a, dev) for a in stats]),
                              edges)
    return out


# Note [host ufuncs]
# A speed trick: a one-input row whose forward is a NumPy ufunc on host arrays
# (``lambda self: _xp(self).tanh(self)``) names it (``op.host``), and dispatch calls the
# ufunc itself on a host array, without the two Python calls of the forward. A row whose
# forward is a few ufuncs (sigmoid) may name a function that runs the same ufuncs in the
# same order on a host array (the same bits). The forward is still what runs on every
# other device, and what the table shows.

# Note [dispatch in line]
# A speed trick: ``dispatch`` builds its result Tensor with ``tensor.new_result`` (what
# ``Tensor._make`` makes in grad mode, without its device lookup and inference-mode
# branch), and asks the thread's state twice at most. Read ``Tensor._make`` for what a
# new tensor holds.




# Note [float16 with a number]: PyTorch's mul and div compute ``float16_tensor * 0.1`` in
# float32 (their "opmath" type) with the number as a float32, and round the result to
# float16 once. NumPy rounds the number to float16 first (0.1 loses bits, 70000.0 becomes
# inf), so about a third of ``x * 0.1``'s elements came out one ulp off. The rows in
# HALF_OPMATH therefore run their forward on a float32 copy of a float16 tensor with a
# Python float and round the result. (add and sub round the number to float16 in PyTorch
# too: NumPy's answer is theirs.) The dtype codes in _LOW are NumPy's one-letter names:
# bool, the integers and float16 (``.char`` costs what ``.kind`` costs, so float32 and
# float64 tensors pay nothing more).
_LOW = "?bBhHiIlLqQe"
_F32 = B.float32
HALF_OPMATH: set = set()   # rows that compute float16 with a number in float32


def _low_forward(op, inputs, attrs):
    """The forward of a promoting row on (integer, bool or float16 tensor, Python float)."""
    d = inputs[0]._data
    if d.dtype.kind == "f":   # float16: Note [float16 with a number]
        if op in HALF_OPMATH:
            return op.forward(d.astype(_F32), inputs[1], *attrs).astype(d.dtype)
        return op.forward(d, inputs[1], *attrs)
    return op.forward(*promoted_arrays(inputs), *attrs)   # int tensor * 2.5: float32


def promoted_dtype(inputs, all_dimensioned=False):
    """PyTorch's result dtype of ``inputs`` (Tensors and Python scalars; Note [type
    promotion] in backend/dtypes.py). ``all_dimensioned``: 0-d tensors count as dimensioned ones
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
    backend/dtypes.py); Python scalars stay Python scalars (NumPy keeps them weak)."""
    rt = promoted_dtype(inputs, all_dimensioned)
    wrap = rt.kind in "iu"   # Python ints wrap into an integer dtype (Note [wrapped
    out = []                 # integer scalars] in backend/dtypes.py)
    for t in inputs:
        if isinstance(t, _Tensor):
            d = t._data
            out.append(d if d.dtype == rt else d.astype(rt))
        elif wrap and type(t) is int:
            out.append(B.wrap_int_scalar(t, rt))
        else:
            out.append(t)
    return out


def _wrapped_int_inputs(inputs):
    """``inputs`` with their Python ints wrapped into the promoted integer dtype, or None
    when no int needs it (Note [wrapped integer scalars] in backend/dtypes.py)."""
    if not any(type(t) is int for t in inputs):
        return None
    rt = promoted_dtype(inputs)
    if rt.kind not in "iu":
        return None
    out = [B.wrap_int_scalar(t, rt) if type(t) is int else t for t in inputs]
    return out if any(a is not b for a, b in zip(out, inputs)) else None


def unpack_args(args, keyword=None, name=None, fname=None):
    """Allow f(a, b) and f((a, b)) / f([a, b]) for shape-like varargs — and, as PyTorch,
    the keyword form ``f(size=(a, b))`` (``keyword``: its value, ``name``: its name)."""
    if keyword is not None:
        if args:
            raise TypeError(f"{fname}() got multiple values for argument '{name}'")
        args = (keyword,)
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


# -- backwards PyTorch cannot differentiate ---------------------------------------------

class RefusingNode(FnNode):
    """The node PyTorch records for a backward it cannot differentiate (its name,
    ``NotImplemented``, is PyTorch's): whatever reaches it runs its row's first formula,
    which raises. Its edges are only the inputs that require grad, as PyTorch's are."""

    __slots__ = ()

    def apply(self, grads):
        self.OP.formulas[0][0](grads[0])


def refusing(op, inputs, attrs):
    """Run ``op`` (a ``RefusingNode`` row) and keep only its node's live edges."""
    out = dispatch(op, inputs, attrs)
    node = out._grad_fn
    if node is not None:
        node.next_functions = tuple(e for e in node.next_functions if e[0] is not None)
    return out
