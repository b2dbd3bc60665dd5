"""Custom autograd Functions: ``class MyFn(Function)`` with static ``forward(ctx, ...)``
and ``backward(ctx, *grads)``, used through ``MyFn.apply(...)``.

As in PyTorch, the ctx IS the backward node (``MyFnBackward``): ``ctx.save_for_backward``
saves version-checked tensors, ``ctx.needs_input_grad`` says which inputs want a gradient,
``ctx.mark_dirty`` declares inputs modified in place by forward (their history is rebased
onto this node), ``ctx.mark_non_differentiable`` declares outputs without gradient.
An output that is a view of an input (or an input returned as-is) becomes a view with
creation_meta IN_CUSTOM_FUNCTION: modifying it in place later is an error.
"""
from __future__ import annotations

import functools
import inspect
import warnings

from ..tensor import Tensor
from . import anomaly as _anomaly
from . import blame
from .graph import Node, SavedTensor, ERR_FREED, _NO_EDGE
from .recording import _edges, sum_to
from .state import state as _st
from .views import (CreationMeta, _move_retain_grad, check_view_inplace, make_view,
                    rebase_history)

__all__ = ["Function", "FunctionCtx", "once_differentiable", "BackwardCFunction"]


class FunctionCtx:
    """Methods available on ``ctx`` inside forward/backward."""

    def save_for_backward(self, *tensors):
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        self._to_save_fwd = tensors

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_diff = tensors

    def set_materialize_grads(self, value: bool):
        self._materialize = bool(value)

    @property
    def saved_tensors(self):
        saved = self._saved
        if saved is None:
            raise RuntimeError(ERR_FREED)
        return tuple(s.unpack(self) if isinstance(s, SavedTensor) else s for s in saved)


class BackwardCFunction(FunctionCtx, Node):
    """The node (and ctx) of one call of a custom Function.

    ``_input_meta`` has one entry per forward argument ((shape, dtype, device) for a
    Tensor, None otherwise): backward returns one gradient per argument, as in PyTorch,
    but ``next_functions`` has one edge per *Tensor* argument only.
    ``_output_meta`` has one entry per forward output (None for a non-Tensor output,
    whose gradient is always None)."""

    _fn_cls = None

    def __init__(self):
        Node.__init__(self, ())
        self._to_save = ()
        self._saved = ()
        self._dirty = ()
        self._non_diff = ()
        self._materialize = True
        self.needs_input_grad = ()
        self._input_meta = ()
        self._output_meta = ()

    def apply(self, grads):
        grads = list(grads)
        n_out = len(self._output_meta)
        grads += [None] * (n_out - len(grads))
        for i, meta in enumerate(self._output_meta):
            if meta is None:
                grads[i] = None  # a non-Tensor output has no gradient
            elif self._materialize and grads[i] is None:
                shape, dtype, device = meta
                grads[i] = Tensor._make(device.xp.zeros(shape, dtype=dtype), device)
        res = self._fn_cls.backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)  # a bare gradient, or a bare None
        n_in = len(self._input_meta)
        if len(res) != n_in:
            if len(res) > n_in and all(r is None for r in res[n_in:]):
                res = res[:n_in]
            else:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {n_in}, got {len(res)})")
        out = []
        for i, (g, meta) in enumerate(zip(res, self._input_meta)):
            if meta is None:
                if g is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {i + 1}, but the corresponding forward input was not a "
                        "Variable")
                continue
            if g is None or self.next_functions[len(out)][0] is None:
                out.append(None)
                continue
            if not isinstance(g, Tensor):   # (PyTorch's words)
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            shape = meta[0]
            if tuple(g.shape) != shape:
                try:
                    g = sum_to(g, shape)
                    ok = tuple(g.shape) == shape
                except Exception:
                    ok = False
                if not ok:
                    raise RuntimeError(
                        f"Function {self.name()} returned an invalid gradient at index {i} - "
                        f"got {list(res[i].shape)} but expected shape compatible with "
                        f"{list(shape)}")
            if g.dtype != meta[1]:   # the engine's validate_outputs: the input's dtype
                g = g.to(meta[1])
            out.append(g)
        return out

    def release_variables(self):
        if self._saved:
            self._saved = None

    def saved_items(self):
        return [(f"saved[{i}]", s) for i, s in enumerate(self._saved or ())]

    def _message_name(self):
        return self._fn_cls.__name__


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_fn_cls": cls})


class Function(metaclass=_FunctionMeta):
    """Base class for custom differentiable operations (``torch.autograd.Function``).

    Two styles, as in PyTorch: ``forward(ctx, *args)`` that fills ``ctx`` itself, or
    ``forward(*args)`` plus ``setup_context(ctx, inputs, output)``. forward/backward may be
    staticmethods or classmethods. Call it with ``MyFn.apply(*args)``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement the backward function for custom "
                                  "autograd.Function.")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = cls._backward_cls()
        tensors = [a for a in args if isinstance(a, Tensor)]
        edges = _edges(tuple(tensors)) if _st.grad_enabled and tensors else None
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        setup = _overrides(cls, "setup_context")
        prev = _st.grad_enabled
        _st.grad_enabled = False
        try:
            if setup:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        finally:
            _st.grad_enabled = prev
        if edges is not None:
            ctx.next_functions = edges
            if _st.anomaly:
                _anomaly.record_forward_stack(ctx)
        ctx._input_meta = tuple((tuple(a.shape), a.dtype, a.device)
                                if isinstance(a, Tensor) else None for a in args)
        return _wrap_outputs(ctx, tensors, edges is not None, outputs, setup)


def _overrides(cls, name):
    mine = inspect.getattr_static(cls, name)
    base = inspect.getattr_static(Function, name)
    return getattr(mine, "__func__", mine) is not getattr(base, "__func__", base)


ERR_INPUT_RETURNED_AS_IS = (
    "An input that has been returned as-is as output is being saved for backward. This is "
    "not supported if you override setup_context. You should return and save a view of the "
    "input instead, e.g. with x.view_as(x) or setup ctx inside the forward function itself.")
ERR_DIRTY_VIEW_MULTI = (
    "If your Function modifies inplace an input that is a view of another Tensor, your "
    "Function cannot return more than one Tensor. This is not supported by the current "
    "autograd engine. You should either make sure the input is not a view (using .clone() "
    "for example) or make your Function only return one Tensor (potentially splitting it "
    "into two Functions: one doing the inplace that returns a single Tensor and a second one "
    "that does the other operations). You can ask on the forum https://discuss.pytorch.org/ "
    "if you need help to do this change.")
ERR_DIRTY_NOT_RETURNED = (
    "Some elements marked as dirty during the forward method were not returned as output. "
    "The inputs that are modified inplace must all be outputs of the Function.")


def _wrap_outputs(ctx, inputs, record, outputs, setup):
    """Give forward's outputs their history (PyTorch's ``_process_backward_mode_ad``).

    Note [Custom Function outputs]: per output, in this order —
      * not differentiable (nothing recorded, marked non-differentiable, or an integer
        dtype): an input returned as-is becomes an alias (``view_as(self)``) so the caller
        never gets its own input object back; one that requires grad is detached;
      * marked dirty (an input forward modified in place): refused for a leaf that requires
        grad and for a view when forward returns several outputs; otherwise its history
        moves onto this node (through CopySlices when it is a view), like any in-place op;
      * an input returned as-is: an alias whose grad_fn is this node;
      * anything else gets this node as grad_fn.
    Every output that is a view (of an input, or of a temporary made in forward) gets
    creation_meta IN_CUSTOM_FUNCTION (MULTI_OUTPUT_NODE when several outputs are
    differentiable), so modifying it in place later is refused: autograd's view+inplace
    rewrite would bypass the custom backward. ``ctx.mark_dirty`` bumps each dirty
    tensor's version once, whether or not a graph is recorded: a node that saved it before
    forward modified it (through the array, say) then fails its version check."""
    single = not isinstance(outputs, tuple)
    outs = [outputs] if single else list(outputs)
    n = len(outs)
    input_ids = {id(t) for t in inputs}
    dirty = {id(t): t for t in ctx._dirty}
    for t in dirty.values():
        t._version_counter.bump(f"{ctx.name()} (mark_dirty)")
    non_diff = {id(t) for t in ctx._non_diff}
    saved_ids = {id(t) for t in ctx._to_save if isinstance(t, Tensor)} if setup else ()
    returned = set()
    meta = []
    n_diff = 0
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            meta.append(None)
            continue
        key = id(o)
        returned.add(key)
        meta.append((tuple(o.shape), o.dtype, o.device))
        is_input = key in input_ids
        is_dirty = key in dirty
        is_diff = record and key not in non_diff and o._data.dtype.kind in "fc"
        if not is_diff:
            if not o.requires_grad:
                if is_input and not is_dirty:
                    if key in saved_ids:
                        raise RuntimeError(ERR_INPUT_RETURNED_AS_IS)
                    o = _alias(o, None, i)
            elif is_input:
                o = o.detach()
            elif o._view_info is None:
                o._grad_fn = None
                o._requires_grad = False
        elif is_dirty:
            # a leaf that requires grad: also a view made a leaf, or a no_grad view of a
            # base that requires grad (the stored grad_fn: mark_dirty has just made a view
            # stale, and PyTorch refuses it here without regenerating it)
            if o._grad_fn is None and o.requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                   "in-place operation.")
            if not is_input:
                warnings.warn("ctx.mark_dirty() received a tensor that was not an input. "
                              "Only input Tensors that have been mutated should be passed to "
                              "ctx.mark_dirty().", UserWarning, stacklevel=3)
            if o._view_info is not None and n > 1:
                raise RuntimeError(ERR_DIRTY_VIEW_MULTI)
            o._grad = None
            o._hooks = None
            if o._view_info is not None:
                check_view_inplace(o, o._view_info)  # as any in-place op on a view
                rebase_history(o, ctx)
            else:
                _move_retain_grad(o, o._grad_fn, ctx, i)
                o._grad_fn = ctx
                o._output_nr = i
        elif is_input:
            if key in saved_ids:
                raise RuntimeError(ERR_INPUT_RETURNED_AS_IS)
            o = _alias(o, ctx, i)
        else:
            o._grad_fn = ctx
            o._output_nr = i
            if o._view_info is not None:  # its grad_fn is set for the current version
                o._view_info.version = o._version_counter.version
        vi = o._view_info
        if vi is not None and not (is_input and is_dirty):
            _mark_view(vi, CreationMeta.IN_CUSTOM_FUNCTION, ctx._message_name(), i)
        n_diff += is_diff
        outs[i] = o
    if n_diff > 1:
        for i, o in enumerate(outs):
            if isinstance(o, Tensor) and o._view_info is not None:
                o._view_info.creation_meta = CreationMeta.MULTI_OUTPUT_NODE
    if any(k not in returned for k in dirty):
        raise RuntimeError(ERR_DIRTY_NOT_RETURNED)
    if record:
        ctx._output_meta = tuple(meta)
        ctx._n_outputs = n
        saved = []
        for i, t in enumerate(ctx._to_save):
            if t is None:
                saved.append(None)
            elif not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument "
                                f"{i} is of type {type(t).__name__}")
            elif t._grad_fn is ctx:
                saved.append(SavedTensor(t, True, ctx))
            else:
                saved.append(SavedTensor(t, False))
        ctx._saved = tuple(saved)
    ctx._to_save = ()
    return outs[0] if single else tuple(outs)


def _mark_view(vi, meta, fn_name, output_nr):
    vi.creation_meta = meta
    vi.made_by = (fn_name, output_nr)
    if blame.is_blame_enabled():  # the user's line that called apply()
        vi.where = blame.user_frame(2)


def _alias(t, node, output_nr):
    """``t.view_as(t)`` made with grad mode off (PyTorch's _view_as_self_with_no_grad)."""
    prev = _st.grad_enabled
    _st.grad_enabled = False
    try:
        return make_view(_ALIAS, t, t._data, (), (_alias_replay, ()), None, output_nr, node)
    finally:
        _st.grad_enabled = prev


def _alias_replay(t):
    return t.view(tuple(t.shape))


class _AliasOp:
    node_name = "AliasBackward0"


_ALIAS = _AliasOp()


class _DelayedError(Node):
    """The node ``once_differentiable`` puts after a backward run under ``create_graph``:
    the gradients it returned require grad (so the graph looks differentiable), and
    differentiating through them raises. PyTorch's ``torch::autograd::Error``."""

    def __init__(self, msg, edges):
        Node.__init__(self, edges)
        self.msg = msg
        self._n_outputs = len(edges)

    def name(self):
        return "Error"

    def apply(self, grads):
        raise RuntimeError(self.msg)


ERR_ONCE_DIFFERENTIABLE = ("trying to differentiate twice a function that was marked with "
                           "@once_differentiable")


def once_differentiable(fn):
    """Decorator for backward(): run it without building a graph (no double backward).

    As in PyTorch, under ``create_graph=True`` the gradients it returns still require grad
    when an incoming gradient does, but their grad_fn is an ``Error`` node: a second
    backward through them raises "trying to differentiate twice a function that was
    marked with @once_differentiable"."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = _st.grad_enabled
        _st.grad_enabled = False
        try:
            out = fn(ctx, *args)
        finally:
            _st.grad_enabled = prev
        if not prev or not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return out
        outs = out if isinstance(out, tuple) else (out,)
        # each gradient is re-wrapped as the output of an Error node whose inputs are
        # detached leaves that require grad (so the outputs require grad)
        fakes = [o.detach().requires_grad_() if isinstance(o, Tensor) else None for o in outs]
        node = _DelayedError(ERR_ONCE_DIFFERENTIABLE,
                            tuple(_NO_EDGE if f is None else f._edge() for f in fakes))
        wrapped = []
        for i, f in enumerate(fakes):
            if f is None:
                wrapped.append(outs[i])
                continue
            w = Tensor._make(f._data, f._device)
            w._version_counter = f._version_counter
            w._grad_fn = node
            w._output_nr = i
            wrapped.append(w)
        return tuple(wrapped) if len(wrapped) > 1 else wrapped[0]
    return wrapper
