"""The pieces of an autograd graph: Node, edges, SavedTensor, hook handles.

A graph is made of ``Node`` objects (PyTorch's ``grad_fn``s). A node's ``next_functions``
is a tuple of edges ``(node, input_nr)`` — one per Tensor input of the forward op —
pointing at the nodes that produced those inputs, or ``(None, 0)`` (``_NO_EDGE``) for an
input that needs no gradient (never a bare ``None``: ``for fn, nr in node.next_functions``
works on every node, as in PyTorch). An edge is a plain tuple, exactly as PyTorch shows it.

Nodes are created for ops by ``record`` (``autograd/recording.py``), by in-place rebasing (``autograd/views.py``),
by custom Functions (``autograd/function.py``) and for leaves (``AccumulateGrad`` in
``autograd/accumulate.py``). The engine (``autograd/engine.py``) calls ``node.apply(grads)``.

Saved tensors are wrapped in ``SavedTensor``, which remembers the tensor's version when it
was saved and refuses to unpack a tensor that was modified in place since (the famous
"modified by an inplace operation" error). A saved *output* of a node does not hold the
output Tensor (which holds the node as its grad_fn): it holds the array and rebuilds a new
Tensor on unpack. That is how a node can save its own result without a reference cycle.
"""
from __future__ import annotations

import itertools
import weakref

from .. import backend as _B
from .state import state as _st

__all__ = ["Node", "SavedTensor", "RemovableHandle", "next_sequence_nr",
           "ERR_FREED", "check_saved_version", "check_hook_result", "saved_tensors_hooks",
           "save_on_cpu", "disable_saved_tensors_hooks", "increment_version", "GradientEdge",
           "get_gradient_edge", "register_multi_grad_hook"]

_seq = itertools.count()
_NO_EDGE = (None, 0)  # the edge of an input that needs no gradient
next_sequence_nr = _seq.__next__

ERR_FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")

# PyTorch's wording (SavedVariable::unpack), missing space included.
ERR_DETACHED = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
    "This is not supported, please use out-of-place `.detach()` instead")


class RemovableHandle:
    """Returned by every ``register_*hook``; ``handle.remove()`` unregisters the hook."""

    __slots__ = ("_container", "_key")
    _ids = itertools.count()

    def __init__(self, container: dict):
        self._container = container
        self._key = next(RemovableHandle._ids)

    def remove(self):
        self._container.pop(self._key, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class Node:
    """A backward function: receives the gradients of its forward outputs, returns the
    gradients of its forward inputs (one per edge in ``next_functions``).

    Hook slots (all ``None`` until used, so an unhooked node costs nothing):
      ``_tensor_pre_hooks``  {output_nr: {key: fn(grad) -> grad|None}}: Tensor.register_hook
                              on a non-leaf; they belong to this *version* of the tensor.
      ``_retains_grad``      {output_nr: weakref(tensor)}: Tensor.retain_grad(); moved to the
                              new grad_fn when the tensor is modified in place.
      ``_pre_hooks``         {key: fn(grad_outputs) -> grad_outputs|None}
      ``_post_hooks``        {key: fn(grad_inputs, grad_outputs) -> grad_inputs|None}
    """

    # Hook slots and metadata are cold: class-level defaults, an instance attribute (in
    # __dict__) only once used, so building a node costs two assignments.
    __slots__ = ("next_functions", "_seq_nr", "__dict__", "__weakref__")
    _tensor_pre_hooks = None
    _retains_grad = None
    _pre_hooks = None
    _post_hooks = None
    _hooked = False    # set when any of the four above is: the engine reads this one flag
    _metadata = None
    _n_outputs = None  # set on nodes of multi-output ops
    _chain_step = None  # a table row's step on one bare array (Note [chain run], engine_chain.py)
    _chain_inline = None  # ... its commonest case, run in line (Note [inline steps], there)
    _fold_i = -1        # its class number when it may be folded (Note [folded chains], fold.py)
    _holds = False      # True on a holder of folded rows (its class's twin)

    def __init__(self, next_functions=()):
        self.next_functions = next_functions
        self._seq_nr = next_sequence_nr()

    def _lean_apply(self, grads):
        """A table row's specialized plain step (Note [lean apply], apply_lean.py): its
        answer, or None — always None here: the general ``apply_arrays`` runs. A class
        that answers is an FnNode: the loop then releases its saved values as
        ``FnNode.release_variables`` does (``_releasable``, ``_saved``)."""
        return None

    # -- PyTorch's public Node API ---------------------------------------------------
    def name(self) -> str:
        """The node's name as PyTorch gives it: its class name ("MulBackward0"), or for
        the nodes PyTorch writes by hand in C++ (AccumulateGrad, CopySlices, GraphRoot)
        their namespaced C++ name, "torch::autograd::AccumulateGrad" (``_CPP_NAME``)."""
        return self._CPP_NAME or type(self).__name__

    _CPP_NAME = None

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def _sequence_nr(self):
        """This node's place in the ready queue (``torch``'s ``grad_fn._sequence_nr()``):
        newer nodes have larger numbers and run first; AccumulateGrad has the largest."""
        return self._seq_nr

    def _message_name(self) -> str:
        """The name PyTorch's error messages give this node: the op, without the
        ``Backward0`` suffix ("output 0 of Mul" for MulBackward0; a custom Function's node
        is named after the Function: "output 0 of MyFn", not "MyFnBackward")."""
        name = self.name()
        stem = name.rstrip("0123456789")
        return stem[:-len("Backward")] if stem.endswith("Backward") and stem != "Backward" \
            else name

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new
        grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = {}
        self._mark_hooked()
        h = RemovableHandle(self._post_hooks)
        self._post_hooks[h._key] = fn
        return h

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        self._mark_hooked()
        h = RemovableHandle(self._pre_hooks)
        self._pre_hooks[h._key] = fn
        return h

    def _register_tensor_hook(self, output_nr, fn):
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        self._mark_hooked()
        hooks = self._tensor_pre_hooks.setdefault(output_nr, {})
        h = RemovableHandle(hooks)
        hooks[h._key] = fn
        return h

    def __call__(self, *grads):
        """Run this node's backward on the gradients of its forward outputs (one per
        output, as PyTorch checks) and return the gradients of its inputs."""
        n = self._n_outputs or 1
        if len(grads) != n:
            raise TypeError(f"expected {n} arguments, got {len(grads)} instead")
        return tuple(self.apply(list(grads)))

    def apply(self, grads):  # pragma: no cover - every subclass overrides
        raise NotImplementedError(f"{self.name()} has no backward")

    def apply_arrays(self, grads):
        """``apply`` on bare arrays (a plain backward: Note [arrays in a plain backward] in
        engine_plain.py). This default wraps them in Tensors, runs ``apply`` and unwraps; the
        hot nodes (table rows, AccumulateGrad, CopySlices) override it."""
        return _tensors_to_arrays(self.apply(_arrays_to_tensors(grads)))

    def _mark_hooked(self):
        """This node has a hook or retain_grad now: the engine gives it Tensors, through
        the teaching path (``_hooked``), and never runs it in a chain of bare arrays (its
        own ``_chain_step`` is None: the one read Note [chain run] makes)."""
        self._hooked = True
        self._chain_step = self._chain_inline = None

    def _retain_grad_slot(self, output_nr, ref):
        """Record ``retain_grad`` of this node's output ``output_nr`` (a weakref)."""
        if self._retains_grad is None:
            self._retains_grad = {}
        self._retains_grad[output_nr] = ref
        self._mark_hooked()

    def release_variables(self):
        """Free saved tensors after a backward without retain_graph."""

    @property
    def requires_grad(self):
        return True

    # What the tracer and the teaching helpers read about a node.
    def saved_items(self):
        """[(name, SavedTensor-or-value)] of what this node saved (for display)."""
        return []

    def __repr__(self):   # (the class name, as PyTorch's: <AccumulateGrad object at ...>)
        return f"<{type(self).__name__} object at {id(self):#x}>"


def _arrays_to_tensors(grads):
    """Wrap a plain backward's gradient arrays (None stays None) for code that needs Tensors."""
    from ..tensor import Tensor
    make = Tensor._make
    return [None if a is None else make(a) for a in grads]


def _tensors_to_arrays(grads):
    return [None if g is None else g._data for g in grads]


def check_hook_result(hook, original, result):
    """PyTorch's check_single_result: a tensor hook may replace a gradient only by one of
    the same dtype, device and shape (never broadcast into a wrong gradient)."""
    from ..tensor import Tensor
    from .. import backend as B
    name = getattr(hook, "__name__", type(hook).__name__)
    if original is None:   # (no gradient flowed into that output)
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned "
                        f"'{type(result).__name__}' (hook '{name}' must return a Tensor or "
                        "None)")
    if result._data.dtype != original._data.dtype:
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was "
            f"{B.dtype_name(original._data.dtype)} got {B.dtype_name(result._data.dtype)}); "
            f"return the gradient in its own dtype, e.g. g.to(grad.dtype)")
    if result._device is not original._device:
        raise RuntimeError(f"hook '{name}' has changed the device of value (was "
                           f"{original._device.type} got {result._device.type})")
    if result._data.shape != original._data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value (was "
                           f"{list(original._data.shape)} got {list(result._data.shape)})")


def check_hook_results(hook, prev, result):
    """PyTorch's check_result for a node's pre hook or post hook: a tuple of one value per
    gradient, each None or a gradient as ``check_hook_result`` allows."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(prev):
        name = getattr(hook, "__name__", type(hook).__name__)
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values (got "
                           f"{len(result)}, but expected {len(prev)})")
    for p, r in zip(prev, result):
        if r is not None:
            check_hook_result(hook, p, r)


def check_saved_version(saved: "SavedTensor", current: int, node=None):
    """Raise PyTorch's error for a saved tensor whose storage was modified in place
    (``node``: the node unpacking it, when known)."""
    from ..tensor import describe_tensor
    from . import blame
    grad_fn = saved.grad_fn_for_message(node)
    msg = ("one of the variables needed for gradient computation has been modified by an "
           f"inplace operation: [{describe_tensor(saved.dtype, saved.shape)}]")
    if grad_fn is not None:
        msg += f", which is output {saved.output_nr} of {grad_fn._message_name()},"
    msg += (f" is at version {current}; expected version {saved.saved_version} instead. "
            "Hint: enable anomaly detection to find the operation that failed to compute its "
            "gradient, with viewgrad.autograd.set_detect_anomaly(True, check_nan=False).")
    extra = blame.describe(saved, current)
    if extra:
        msg += "\n" + extra
    raise RuntimeError(msg)


def _complex_refusal(what):
    """Note [no complex gradients]: the error for a complex tensor entering autograd
    (``what`` says how: a leaf asked to require grad, or an op's complex result)."""
    return RuntimeError(
        f"{what}: viewgrad's autograd computes gradients of real tensors only. PyTorch "
        "differentiates complex tensors by Wirtinger calculus (conjugates in every "
        "formula); viewgrad's formulas are for real numbers and would give wrong complex "
        "gradients, so it refuses instead. Keep the real and imaginary parts as two real "
        "float tensors, or detach() the real inputs of the complex computation.")


# Note [no complex gradients]
# viewgrad computes with complex tensors but never differentiates them: its derivative
# formulas are real calculus, and PyTorch's complex gradients are conjugate Wirtinger
# derivatives (mul's is grad * other.conj(), not grad * other), so running them on complex
# values would give silently wrong gradients. Two choke points refuse instead, with
# ``_complex_refusal``'s words: ``Tensor.requires_grad_`` (every leaf, the factories'
# ``requires_grad=True`` and nn.Parameter included) and the recorders, ``record`` and
# ``record_one`` (an op whose result is complex while an input requires grad: ``x * z``,
# ``x.to(z.dtype)``). The lean paths take float32/float64 only, and a view or an
# in-place op keeps its tensor's dtype. A custom autograd.Function's outputs are its
# author's formulas, as in PyTorch.
ERR_INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `viewgrad.no_grad()` "
    "instead of `viewgrad.inference_mode()`.")


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    Saving an input keeps the Tensor itself (``unpack`` returns the very same object, as
    PyTorch does). Saving an output keeps only its array and version counter, and
    ``unpack(node)`` rebuilds a fresh Tensor whose grad_fn is ``node`` — holding the output
    Tensor itself would make the cycle node → output → node.
    """

    # Hot fields are slots; the cold ones are class defaults, set on the instance (its
    # __dict__) only when used: hooks (saved-tensor hooks), and the weak
    # reference to the node that saved an output (set when first needed: the node passes
    # itself to unpack, and hands it over when its saved tensors are read from outside).
    __slots__ = ("tensor", "data", "version_counter", "saved_version", "output_nr",
                 "had_grad_fn", "where", "__dict__")
    hooks = None
    _grad_fn_ref = None
    _view_fn = None   # Note [a result saved in place on a view] (views.py)

    def __new__(cls, t, is_output=False, node=None):
        st = _new_saved_tensor(t, is_output)
        if is_output and node is not None:
            st._grad_fn_ref = weakref.ref(node)
        return st

    @property
    def is_output(self):
        return self.tensor is None

    def _set_node(self, node):
        """Remember (weakly) the node that saved this output, for error messages."""
        if self.tensor is None and self._grad_fn_ref is None:
            self._grad_fn_ref = weakref.ref(node)

    def register_hooks(self, pack_hook, unpack_hook):
        """``grad_fn._raw_saved_x.register_hooks(pack, unpack)``: pack now, unpack at
        backward (as PyTorch's SavedTensor.register_hooks)."""
        if self.hooks is not None:
            raise RuntimeError("SavedTensor hooks have already been set")
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks: pack_hook and unpack_hook must be callable")
        t = self.unpack()
        self.hooks = (unpack_hook, pack_hook(t))

    @property
    def shape(self):
        return tuple((self.data if self.tensor is None else self.tensor._data).shape)

    @property
    def dtype(self):
        return (self.data if self.tensor is None else self.tensor._data).dtype

    def grad_fn_for_message(self, node=None):
        if self.tensor is None:
            if node is not None:
                return node
            return self._grad_fn_ref() if self._grad_fn_ref is not None else None
        return self.tensor.grad_fn

    def unpack(self, node=None):
        if self.hooks is not None:  # what the unpack hook returns, unchecked (as PyTorch)
            return self._unpack_hooked(node)
        current = self.version_counter.version
        if current != self.saved_version:
            check_saved_version(self, current, node)
        if self.tensor is not None:
            if self.had_grad_fn and self.tensor._grad_fn is None:
                raise RuntimeError(ERR_DETACHED)
            return self.tensor
        from ..tensor import Tensor
        t = Tensor._make(self.data)
        t._version_counter = self.version_counter
        if node is not None:
            vf = self._view_fn   # Note [a result saved in place on a view] (views.py)
            fn = vf[0]() if vf is not None else None
            if fn is not None:
                t._grad_fn, t._output_nr = fn, vf[1]
            else:
                t._grad_fn = node
                t._output_nr = self.output_nr
        return t

    def _unpack_hooked(self, node):
        """What the unpack hook returns, once per run of the node in a backward (Note
        [one unpack per node run])."""
        task = _st.graph_task
        if task is None:
            return self._with_history(self.hooks[0](self.hooks[1]), node)
        cache = getattr(task, "unpacked", None)
        if cache is None:
            cache = task.unpacked = {}
        hit = cache.get(id(self))
        if hit is not None and hit[0] is self:
            return hit[1]
        r = self._with_history(self.hooks[0](self.hooks[1]), node)
        cache[id(self)] = (self, r)
        return r

    # Note [one unpack per node run]
    # PyTorch's generated backward unpacks each saved variable once, at the top of the
    # node's apply; a formula of viewgrad's may read one saved value twice (DivBackward0's
    # ``other``: once per input's formula; maximum's both inputs). A side-effecting unpack
    # hook (a counter, a recomputation) must see one call per node run: within one
    # backward (one graph task, in which a node runs once) the first unpacked value is
    # reused. The running GraphTask holds them, so they go when that backward ends.

    def _with_history(self, r, node):
        """What an unpack hook returned, as a tensor with the saved one's history (its
        node and output number; a leaf's gradient accumulator), as PyTorch's
        SavedVariable::unpack makes it: a double backward through it reaches the graph."""
        from ..tensor import Tensor
        if not isinstance(r, Tensor):
            return r
        t = Tensor._make(r._data, r._device)
        if self.tensor is None:   # an output: the node that saved it
            fn = node if node is not None else (
                self._grad_fn_ref() if self._grad_fn_ref is not None else None)
            if fn is not None:
                t._grad_fn, t._output_nr = fn, self.output_nr
            return t
        orig = self.tensor
        if orig._grad_fn is not None:
            t._grad_fn, t._output_nr = orig._grad_fn, self.output_nr
        elif orig._requires_grad:   # a leaf: its own AccumulateGrad
            from .accumulate import grad_accumulator
            t._requires_grad = True
            t._grad_accumulator = weakref.ref(grad_accumulator(orig))
        return t

    def unpack_data(self, node=None):
        """The saved array (version-checked), without building a Tensor."""
        if self.hooks is not None:
            return self.unpack(node)._data
        current = self.version_counter.version
        if current != self.saved_version:
            check_saved_version(self, current, node)
        if self.tensor is None:
            return self.data
        if self.had_grad_fn and self.tensor._grad_fn is None:
            raise RuntimeError(ERR_DETACHED)
        return self.tensor._data

    @property
    def current_version(self):
        return self.version_counter.version

    def __repr__(self):
        kind = "output" if self.is_output else "input"
        return (f"SavedTensor({kind}, shape={list(self.shape)}, saved at version "
                f"{self.saved_version}, now {self.version_counter.version})")


_new = object.__new__


def _sum_to_array(a, shape):
    """sum_to on arrays: reduce broadcast dims back to ``shape``. The leading dims are
    summed away (not kept and reshaped), so the result owns its memory and AccumulateGrad
    can keep it (a bias gradient) without a copy."""
    lead = a.ndim - len(shape)
    if lead:
        axis = 0 if lead == 1 else tuple(range(lead))
        # (a host array's ``sum`` is this reduce, after a Python-level wrapper)
        a = _add_reduce(a, axis) if type(a) is _HOST else a.sum(axis=axis)
    if 1 in shape:
        dims = tuple(i for i, s in enumerate(shape) if s == 1 and a.shape[i] != 1)
        if dims:   # (the reduce itself, as above: Note [warnings from NumPy's own Python])
            a = _B.array_sum(a, dims, None, True)
    return a if a.shape == shape else a.reshape(shape)


_HOST = _B.HOST_ARRAY
_add_reduce = _B.host_ufunc("add").reduce


def _saved_array(v):
    """The array of SavedTensor ``v`` when ``unpack_data`` would give it with nothing to
    check or raise (no hooks, unmodified, still attached), else None: the lean steps'
    question (apply_lean.py, ops/nn_fast.py), whose None sends a node to its general
    step, which raises."""
    if type(v) is not SavedTensor or v.hooks is not None or \
            v.version_counter.version != v.saved_version:
        return None
    t = v.tensor
    if t is None:
        return v.data
    if not v.had_grad_fn or t._grad_fn is not None:
        return t._data
    return None


def _new_saved_tensor(t, is_output=False):
    """A SavedTensor of ``t`` (an op's input, or its result: ``is_output``), as
    ``SavedTensor(t, is_output)`` makes it; the recording hot path calls this directly
    (``SavedTensor(...)`` also lands here, through ``__new__``)."""
    if not is_output:
        st = _saved_input(t)
        if _st.saved_tensors_hooks:   # Note [Saved-tensor hooks] (an output: _pack_output)
            pack, unpack = _st.saved_tensors_hooks[-1]
            st.hooks = (unpack, pack(t))
        return st
    st = _new(SavedTensor)
    vc = t._vc   # (t._version_counter, without the property's call when it exists)
    if vc is None:
        vc = t._version_counter
    st.version_counter = vc
    st.saved_version = vc.version
    st.where = None   # (node name, user frame) when blame is on: the recorder sets it
    st.output_nr = t._output_nr
    st.tensor = None
    st.data = t._data
    st.had_grad_fn = False
    return st


def _saved_input(t):
    """The SavedTensor of input ``t``, before any saved-tensor hook packs it: what
    ``_new_saved_tensor`` makes of an input. The lean recording paths (ops/lean.py,
    ops/nn_fast.py) call it directly: in a plain thread no such hook is active."""
    vc = t._vc
    if vc is None:
        vc = t._version_counter
    if vc.inference:
        raise RuntimeError(ERR_INFERENCE_SAVED)
    st = _new(SavedTensor)
    st.version_counter = vc
    st.saved_version = vc.version
    st.where = None   # (node name, user frame) when blame is on: the recorder sets it
    st.output_nr = t._output_nr
    st.tensor = t
    st.data = None
    # A saved input that had a history must still have it at unpack (detach_ drops it)
    st.had_grad_fn = t._grad_fn is not None
    return st


def _pack_output(st, t):
    """Hand output ``t``, saved as ``st``, to the active pack hook — once ``t`` has its
    history (its grad_fn set: an in-place op's result after the write), as PyTorch packs
    an output (Note [Saved-tensor hooks], saved_hooks.py)."""
    pack, unpack = _st.saved_tensors_hooks[-1]
    st.hooks = (unpack, pack(t))


# Note [saved values in the node]
# A speed trick for the commonest nodes (Note [lean methods], ops/lean.py): a node that
# saves one thing — its result, the Python number of ``y * 1.01``, the constant Tensor of
# ``y * c``, the input of ``y.sin()`` — keeps it in its own slots: ``_sv`` (the array,
# number or Tensor), ``_svc`` (the version counter), ``_sver`` (the version saved),
# ``_swhere`` (the blame mark) and, for a number, ``_sarg`` (the operand the forward
# computed with, a cached 0-d array of the same value, which the backward kernel takes as
# it would take the number); the slot ``_sdict`` holds an ``_InNode`` (graph.py) that
# says which and under what name. No
# SavedTensor and no dict is made: ``_saved`` (a property over ``_sdict``) builds them the
# first time anything reads it — the teaching path, the tracer, ``grad_fn._saved_result``,
# an error message — and keeps them, so every reader sees what ``record`` would have
# saved. The plain backward's lean steps (autograd/apply_lean.py) read the slots directly
# while ``_sdict`` is still an ``_InNode`` (nothing can have hooks on a SavedTensor not yet
# made). Releasing (``_saved = None``) clears the slots' array too.

_NO_BLAME = object()   # _InNode's _swhere when blame was off: no mark


class _InNode:
    """What a lean call saved in the node's own slots instead of ``_saved``'s dict (Note
    [saved values in the node]): ``kind`` 'result' (the op's result: its array ``_sv``
    and version counter ``_svc``), 'number' (the Python number ``_sv``), 'input' (an
    input Tensor ``_sv`` without a history — ``y * c``'s constant, a leaf —, its version
    counter ``_svc`` and version ``_sver`` then) or 'history' (the same, for an input
    that had a history: ``y.sin()``'s ``y``, which must still have it when unpacked),
    saved under ``name``; one shared instance per (kind, name)."""

    __slots__ = ("kind", "name")
    _cache = {}

    def __new__(cls, kind, name):
        m = cls._cache.get((kind, name))
        if m is None:
            m = cls._cache[(kind, name)] = object.__new__(cls)
            m.kind, m.name = kind, name
        return m

    def build(self, node):
        """The ``_saved`` dict that ``record`` would have made (the same SavedTensor
        fields, the blame mark included)."""
        v = node._sv
        if self.kind == "number":
            return {self.name: v}
        st = _new(SavedTensor)
        st.version_counter = node._svc
        if self.kind == "result":
            st.saved_version = 0
            st.tensor = None
            st.data = v
        else:
            st.saved_version = node._sver
            st.tensor = v
            st.data = None
        st.output_nr = 0
        st.had_grad_fn = self.kind == "history"
        w = node._swhere
        st.where = None if w is _NO_BLAME else (node.OP.node_name, w)
        return {self.name: st}



def _add_input(buffers, fn, nr, g):
    """Sum gradient ``g`` (None: nothing arrived) into input ``nr`` of ``fn``'s buffer in
    ``buffers`` (PyTorch's InputBuffer::add): the buffer, one slot per output of ``fn``'s
    forward, is made when the first gradient for ``fn`` comes."""
    buf = buffers.get(fn)
    if buf is None:
        n = fn._n_outputs
        buf = buffers[fn] = [None] * n if n else [None]
    if g is not None:
        if nr >= len(buf):
            buf.extend([None] * (nr + 1 - len(buf)))
        old = buf[nr]
        buf[nr] = g if old is None else old + g


def get_saved(self):
    """``FnNode._saved``'s getter (Note [saved values in the node])."""
    saved = self._sdict
    if type(saved) is _InNode:   # Note [saved values in the node]: made now, once
        saved = self._sdict = saved.build(self)
    return saved


def set_saved(self, saved):
    """``FnNode._saved``'s setter: ``None`` releases the slots' value too."""
    self._sdict = saved
    if saved is None:   # released: what the node's slots held too
        self._sv = self._svc = None


from .saved_hooks import (saved_tensors_hooks, save_on_cpu,  # noqa: E402,F401
                          disable_saved_tensors_hooks, increment_version, GradientEdge,
                          get_gradient_edge, register_multi_grad_hook)
