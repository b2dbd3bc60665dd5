"""``torch.utils.checkpoint``: activation checkpointing — trade compute for memory by NOT
keeping a block's intermediate tensors for backward and recomputing them when backward
needs them. The gradients are the same as without it.

Two variants, as PyTorch's:

* ``use_reentrant=True`` (PyTorch's default when the argument is left out, with a
  warning): the block runs under ``no_grad`` inside a custom Function
  (``CheckpointFunctionBackward``); its backward re-runs the block with grad on and calls
  ``autograd.backward`` on it — a backward inside a backward (hence "reentrant").
  Parameters used inside get their ``.grad`` from that inner backward, so
  ``autograd.grad`` cannot see them, and at least one INPUT must require grad.
* ``use_reentrant=False``: the block runs normally but under ``saved_tensors_hooks`` whose
  pack keeps only a ticket number; the first unpack at backward re-runs the block (under
  hooks that collect what it saves) and hands out the recomputed tensors by ticket (Note
  [Saved-tensor hooks] in ``autograd/saved_hooks.py``). The graph is the block's own, so
  ``autograd.grad`` and parameters work as without checkpointing.

Both restore the random state of the first run before recomputing (``preserve_rng_state``)
so that dropout masks match.
"""
from __future__ import annotations

import warnings

from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..autograd.graph import SavedTensor
from ..autograd.state import state as _st
from ..autograd.saved_hooks import saved_tensors_hooks
from ..autograd.engine import backward as _backward
from ..ops.random import get_rng_state, set_rng_state
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointFunction"]


class _fork_rng:   # noqa: N801 - a context manager
    """Run with the random state ``state`` and put the current one back afterwards."""

    def __init__(self, state):
        self.state = state

    def __enter__(self):
        if self.state is not None:
            self.saved = get_rng_state()
            set_rng_state(self.state)

    def __exit__(self, *exc):
        if self.state is not None:
            set_rng_state(self.saved)
        return False


class CheckpointFunction(Function):
    """The reentrant checkpoint: forward without a graph, backward recomputes and runs an
    inner backward."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng_state = get_rng_state() if preserve_rng_state else None
        ctx.inputs, ctx.tensor_indices, tensors = [], [], []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                tensors.append(a)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(a)
        ctx.save_for_backward(*tensors)
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        task = _st.graph_task
        if task is not None and task.needed is not None:
            # the inner backward accumulates into .grad: autograd.grad and
            # backward(inputs=...) would not see it (PyTorch's _is_checkpoint_valid)
            raise RuntimeError(
                "When use_reentrant=True, viewgrad.utils.checkpoint is incompatible with "
                ".grad() or passing an `inputs` parameter to .backward(). To resolve this "
                "error, you can either set use_reentrant=False, or call .backward() without "
                "passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            d = t.detach()
            d.requires_grad_(t.requires_grad)
            inputs[i] = d
        with _fork_rng(ctx.rng_state), enable_grad():
            outputs = ctx.run_function(*inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(inp.grad if isinstance(inp, Tensor) else None
                                    for inp in inputs)


def _checkpoint_without_reentrant(function, preserve_rng_state, args, kwargs):
    rng_state = get_rng_state() if preserve_rng_state else None
    # Note [checkpoint recomputes per backward]
    # As PyTorch's: the inputs are saved version-checked (modified in place before the
    # backward: its "modified by an inplace operation" error, never a recomputation from
    # the new values, a wrong gradient), and the block is re-run once per backward call
    # (graph task) that unpacks: each backward gets its own recomputed tensors, handed
    # out by ticket and dropped once handed out, so none outlives its backward.
    saved_inputs = []
    if is_grad_enabled():
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, Tensor) and not a.is_inference():
                saved_inputs.append(SavedTensor(a, False))
    tickets = [0]
    recomputed = {}       # graph task id -> {ticket: tensor} not yet handed out

    def pack(t):
        tickets[0] += 1
        return tickets[0] - 1

    def unpack(ticket):
        task = _st.graph_task
        gid = task.id if task is not None else object()   # outside a backward: each time
        mine = recomputed.get(gid)
        if mine is None:
            for st in saved_inputs:
                st.unpack()   # (raises if an input was modified in place since)
            kept = []

            def keep(t):
                kept.append(t)
                return t
            with _fork_rng(rng_state), enable_grad(), \
                    saved_tensors_hooks(keep, lambda t: t):
                function(*args, **kwargs)
            if len(kept) < tickets[0]:
                raise RuntimeError(
                    f"torch.utils.checkpoint: A different number of tensors was saved during "
                    f"the original forward and recomputation.\nNumber of tensors saved during "
                    f"forward: {tickets[0]}\nNumber of tensors saved during recomputation: "
                    f"{len(kept)}")
            mine = dict(enumerate(kept[:tickets[0]]))
            if task is not None:
                recomputed[gid] = mine
        r = mine.pop(ticket, None)
        if r is None:
            raise RuntimeError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                "already unpacked once. If you are calling ctx.saved_tensors in backward, "
                "make sure to do so only once. Otherwise please open an issue with details "
                "on your use case.")
        if not mine:
            recomputed.pop(gid, None)
        return r

    with saved_tensors_hooks(pack, unpack):
        return function(*args, **kwargs)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, preserve_rng_state=True, **kwargs):
    """``torch.utils.checkpoint.checkpoint(function, *args, use_reentrant=...)``: the
    value of ``function(*args)``, with its intermediate tensors recomputed at backward
    instead of kept (see the module docstring for the two variants). Leaving
    ``use_reentrant`` out warns and means True, as in PyTorch 2.13."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed "
                      "explicitly. Starting in PyTorch 2.9, calling checkpoint without "
                      "use_reentrant will raise an exception. use_reentrant=False is "
                      "recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not None or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        from ..autograd.grad_mode import is_grad_enabled
        if is_grad_enabled() and not any(isinstance(a, Tensor) and a.requires_grad
                                         for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                          stacklevel=2)
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    if context_fn is not None:
        raise ValueError("checkpoint: context_fn is not provided by viewgrad (it runs the "
                         "block plainly); leave it out")
    return _checkpoint_without_reentrant(function, preserve_rng_state, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Split ``functions`` (a list or ``nn.Sequential``) into ``segments`` chunks and
    checkpoint every chunk but the last, as ``torch.utils.checkpoint.checkpoint_sequential``."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
                      "parameter should be passed explicitly. In version 2.9 we will raise an "
                      "exception if use_reentrant is not passed. use_reentrant=False is "
                      "recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward
    if hasattr(functions, "children"):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
