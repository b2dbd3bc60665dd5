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

from ..tensor import Tensor
from . import anomaly as _anomaly
from .graph import Node, SavedTensor, ERR_FREED
from .nodes import _edges, sum_to
from .state import state as _st
from .views import CreationMeta, rebase_history, make_view

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
    """The node (and ctx) of one call of a custom Function."""

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
        if self._materialize:
            for i, (shape, dtype, device) in enumerate(self._output_meta):
                if grads[i] is None:
                    grads[i] = Tensor._make(device.xp.zeros(shape, dtype=dtype), device)
        res = self._fn_cls.backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
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
            if meta is None or g is None or self.next_functions[i] is None:
                out.append(None)
                continue
            if not isinstance(g, Tensor):
                raise TypeError(f"function {self.name()} returned a gradient of type "
                                f"{type(g).__name__} at index {i}; expected a Tensor or None")
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
                        f"got {list(g.shape) if ok else list(res[i].shape)} but expected "
                        f"shape compatible with {list(shape)}")
            out.append(g)
        return out

    def release_variables(self):
        if self._saved:
            self._saved = None

    def saved_items(self):
        return [(f"saved[{i}]", s) for i, s in enumerate(self._saved or ())]


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_fn_cls": cls})


class Function(metaclass=_FunctionMeta):
    """Base class for custom differentiable operations."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement the backward function for custom "
                                  "autograd.Function.")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = cls._backward_cls()
        tensor_args = [a if isinstance(a, Tensor) else None for a in args]
        record = _st.grad_enabled
        edges = _edges(tuple(a if a is not None else 0 for a in tensor_args)) if record \
            else None
        ctx.needs_input_grad = tuple(bool(a is not None and a.requires_grad)
                                     for a in tensor_args)
        prev = _st.grad_enabled
        _st.grad_enabled = False
        try:
            outputs = cls.forward(ctx, *args, **kwargs)
        finally:
            _st.grad_enabled = prev
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        if edges is None:
            return outputs
        ctx.next_functions = edges
        if _st.anomaly:
            _anomaly.record_forward_stack(ctx)
        ctx._input_meta = tuple((tuple(a.shape), a.dtype, a.device) if a is not None else None
                                for a in tensor_args)
        dirty = {id(t) for t in ctx._dirty}
        non_diff = {id(t) for t in ctx._non_diff}
        inputs_by_id = {id(a): a for a in tensor_args if a is not None}
        bases = {id(a._base if a._base is not None else a) for a in tensor_args if a is not None}
        new_outs = []
        meta = []
        for i, o in enumerate(outs):
            if not isinstance(o, Tensor):
                new_outs.append(o)
                continue
            meta.append((tuple(o.shape), o.dtype, o.device))
            if id(o) in non_diff:
                new_outs.append(o)
                continue
            if id(o) in dirty:
                # modified in place by forward (which bumped its version): its history
                # moves onto this node, through a CopySlices if it is a view.
                if o._view_info is not None:
                    rebase_history(o, ctx)
                else:
                    o._grad_fn = ctx
                    o._output_nr = i
                new_outs.append(o)
                continue
            is_input = id(o) in inputs_by_id
            is_view_of_input = o._base is not None and id(o._base) in bases
            if is_input or is_view_of_input:
                # PyTorch returns a view of the input, marked IN_CUSTOM_FUNCTION.
                src = o
                v = make_view(_ALIAS, src, src._data, (), (_alias_replay, ()),
                              CreationMeta.IN_CUSTOM_FUNCTION, i, ctx)
                v._view_info.made_by = (ctx.name(), i)
                new_outs.append(v)
                continue
            o._grad_fn = ctx
            o._output_nr = i
            new_outs.append(o)
        ctx._output_meta = tuple(meta)
        ctx._n_outputs = len(outs)
        out_ids = {id(o): o for o in new_outs if isinstance(o, Tensor)}
        saved = []
        for t in ctx._to_save:
            if t is None or not isinstance(t, Tensor):
                saved.append(t)
            elif id(t) in out_ids and id(t) not in inputs_by_id:
                saved.append(SavedTensor(t, True, ctx))
            else:
                saved.append(SavedTensor(t, False))
        ctx._saved = tuple(saved)
        ctx._to_save = ()
        return new_outs[0] if single else tuple(new_outs)


def _alias_replay(t):
    return t.view(tuple(t.shape))


class _AliasOp:
    node_name = "AliasBackward0"


_ALIAS = _AliasOp()


def once_differentiable(fn):
    """Decorator for backward(): run it without building a graph (no double backward)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = _st.grad_enabled
        _st.grad_enabled = False
        try:
            out = fn(ctx, *args)
        finally:
            _st.grad_enabled = prev
        return out
    return wrapper
