"""A Module's hooks, as ``torch.nn.Module``'s: forward pre-hooks and forward hooks
(``with_kwargs``, ``prepend``, ``always_call``), and full backward hooks and backward
pre-hooks. ``Module`` takes the registration methods and ``__call__`` from ``ModuleHooks``.

Full backward hooks work as PyTorch's ``torch.utils.hooks.BackwardHook``: the module's
tensor inputs, and then its tensor outputs, pass through an identity ``Function``
(``BackwardHookFunctionBackward`` in the graph). The outputs' node records grad_output
(one entry per output: None for a non-tensor or for one no gradient reached) and runs the
backward pre-hooks; the inputs' node then calls the hooks with grad_input (one entry per
positional argument: None for a non-tensor, zeros for a tensor that got no gradient).
"""
from __future__ import annotations

import itertools
import warnings
from collections import OrderedDict

from ..tensor import Tensor

__all__ = ["ModuleHooks", "RemovableHandle"]


class RemovableHandle:
    """What a ``register_*_hook`` returns: ``.remove()`` takes the hook off (also on
    leaving a ``with`` block)."""

    _ids = itertools.count()

    def __init__(self, hooks, *extras):
        self.id = next(RemovableHandle._ids)
        self._hooks, self._extras = hooks, extras

    def remove(self):
        self._hooks.pop(self.id, None)
        for extra in self._extras:   # (the dicts saying how the hook is called)
            extra.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _Hooks:
    """One module's hook registries, kept together so that a module without hooks is
    called by one dict lookup."""

    __slots__ = ("forward_pre", "forward_pre_kwargs", "forward", "forward_kwargs",
                 "always_called", "backward", "backward_pre")

    def __init__(self):
        for name in self.__slots__:
            setattr(self, name, OrderedDict())

    def __bool__(self):
        return bool(self.forward_pre or self.forward or self.backward or self.backward_pre)

    def __deepcopy__(self, memo):   # (copy.deepcopy of a module keeps its hooks)
        new = _Hooks()
        for name in self.__slots__:
            getattr(new, name).update(getattr(self, name))
        return new


def _add(hooks, hook, prepend, *extras):
    handle = RemovableHandle(hooks, *extras)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


class ModuleHooks:
    """The hook methods of ``Module`` (a mixin: the registries live in ``self._hooks``)."""

    __slots__ = ()

    def _hook_registries(self):
        hooks = self.__dict__.get("_hooks")
        if hooks is None:
            hooks = _Hooks()
            object.__setattr__(self, "_hooks", hooks)
        return hooks

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` before each forward (``hook(module, args, kwargs)`` with
        ``with_kwargs``, returning None or ``(args, kwargs)``); a value returned replaces
        the args. ``prepend`` runs it before the hooks already there."""
        h = self._hook_registries()
        handle = _add(h.forward_pre, hook, prepend, h.forward_pre_kwargs)
        if with_kwargs:
            h.forward_pre_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """``hook(module, args, output)`` after each forward (``hook(module, args, kwargs,
        output)`` with ``with_kwargs``); a value returned replaces the output.
        ``always_call``: it runs even when forward raises."""
        h = self._hook_registries()
        handle = _add(h.forward, hook, prepend, h.forward_kwargs, h.always_called)
        if with_kwargs:
            h.forward_kwargs[handle.id] = True
        if always_call:
            h.always_called[handle.id] = True
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` when the gradients w.r.t. the module's
        inputs are computed; returning a tuple (as long as grad_input) replaces them."""
        return _add(self._hook_registries().backward, hook, prepend)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` when the gradients w.r.t. the module's outputs are
        computed, before the inputs'; returning a tuple replaces grad_output."""
        return _add(self._hook_registries().backward_pre, hook, prepend)

    def __call__(self, *args, **kwargs):
        hooks = self.__dict__.get("_hooks")
        if not hooks:
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(hooks, args, kwargs)

    def _call_with_hooks(self, h, args, kwargs):
        """PyTorch's ``Module._call_impl``, hook for hook."""
        result, called = None, set()
        try:
            for hid, hook in list(h.forward_pre.items()):
                if hid in h.forward_pre_kwargs:
                    r = hook(self, args, kwargs)
                    if r is not None:
                        if not (isinstance(r, tuple) and len(r) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple "
                                               f"of (new_args, new_kwargs), but got {r}.")
                        args, kwargs = r
                else:
                    r = hook(self, args)
                    if r is not None:
                        args = r if isinstance(r, tuple) else (r,)
            bw = None
            if h.backward or h.backward_pre:
                bw = _BackwardHook(self, list(h.backward.values()),
                                   list(h.backward_pre.values()))
                args = bw.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hid, hook in list(h.forward.items()):
                if hid in h.always_called:
                    called.add(hid)
                r = (hook(self, args, kwargs, result) if hid in h.forward_kwargs
                     else hook(self, args, result))
                if r is not None:
                    result = r
            if bw is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a "
                                  f"Tensor or a tuple of Tensors but received {type(result)}",
                                  stacklevel=2)
                result = bw.setup_output_hook(result)
            return result
        except Exception:
            # the always_call forward hooks not run yet still run (their errors warned)
            for hid, hook in list(h.forward.items()):
                if hid in h.always_called and hid not in called:
                    try:
                        r = (hook(self, args, kwargs, result) if hid in h.forward_kwargs
                             else hook(self, args, result))
                        if r is not None:
                            result = r
                    except Exception as e:
                        warnings.warn("module forward hook with ``always_call=True`` raised an "
                                      "exception that was silenced as another error was "
                                      f"raised in forward: {e}", stacklevel=2)
            raise


class _BackwardHook:
    """One call's bookkeeping for the full backward (pre-)hooks (PyTorch's BackwardHook)."""

    def __init__(self, module, hooks, pre_hooks):
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_index = self.output_index = None

    @staticmethod
    def _pack(index, values, size):
        res = [None] * size
        for i, v in zip(index, values):
            res[i] = v
        return tuple(res)

    def _wrap(self, where, args):
        """``args`` with its tensors passed through the identity Function, and their
        positions; (args, None) when none requires grad (or grad mode is off)."""
        from ..autograd.grad_mode import is_grad_enabled
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        if not (any(args[i].requires_grad for i in index) and is_grad_enabled()):
            return args, None
        outs = _BackwardHookFunction.apply(self, where, *[args[i] for i in index])
        outs = outs if isinstance(outs, tuple) else (outs,)
        args = list(args)
        for i, o in zip(index, outs):
            args[i] = o
        return tuple(args), index

    def setup_input_hook(self, args):
        res, self.input_index = self._wrap("input", args)
        self.n_inputs = len(args)
        return res

    def setup_output_hook(self, result):
        single = not isinstance(result, tuple)
        items = (result,) if single else result
        res, self.output_index = self._wrap("output", items)
        self.n_outputs = len(items)
        return res[0] if single else res

    def on_outputs(self, grads):
        """The outputs' gradients (raw: None where none came): record them, run the
        pre-hooks, and the hooks themselves when no input requires grad."""
        self.grad_outputs = self._pack(self.output_index, grads, self.n_outputs)
        for pre in self.pre_hooks:
            r = pre(self.module, self.grad_outputs)
            if r is None:
                continue
            if len(r) != len(self.grad_outputs):
                raise RuntimeError("Backward pre hook returned an invalid number of "
                                   f"grad_output, got {len(r)}, but expected "
                                   f"{len(self.grad_outputs)}")
            self.grad_outputs = r
        local = self.grad_outputs
        if self.input_index is None:
            warnings.warn("Full backward hook is firing when gradients are computed with "
                          "respect to module outputs since no inputs require gradients.",
                          stacklevel=5)
            grad_inputs = (None,) * self.n_inputs
            for hook in self.hooks:
                r = hook(self.module, grad_inputs, self.grad_outputs)
                if r is not None and not (isinstance(r, tuple) and all(e is None for e in r)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return tuple(local[i] for i in self.output_index)

    def on_inputs(self, grads):
        """The inputs' gradients: call the hooks with grad_input (one per argument)."""
        if self.grad_outputs is None:   # (reached without passing the outputs: a double
            return grads                # backward; PyTorch calls no hook then either)
        res = self._pack(self.input_index, grads, self.n_inputs)
        for hook in self.hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(res)}")
            res = out
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_index)


class _BackwardHookFunction:
    """Placeholder replaced below by an autograd.Function subclass (import order)."""


def _make_backward_hook_function():
    from ..autograd.function import Function

    class BackwardHookFunction(Function):
        """Identity whose backward hands the gradients to a module's backward hooks."""

        @staticmethod
        def forward(ctx, state, where, *tensors):
            ctx.state, ctx.where = state, where
            # a tensor that does not require grad stays so (it is only passed through)
            ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
            # grad_output keeps None for an output no gradient reached (PyTorch's node
            # hook sees the raw gradients); grad_input gets zeros (the Function's results)
            ctx.set_materialize_grads(where == "input")
            return tensors[0] if len(tensors) == 1 else tensors

        @staticmethod
        def backward(ctx, *grads):
            st = ctx.state
            res = st.on_outputs(grads) if ctx.where == "output" else st.on_inputs(grads)
            return (None, None) + tuple(res)
    return BackwardHookFunction


_BackwardHookFunction = _make_backward_hook_function()
