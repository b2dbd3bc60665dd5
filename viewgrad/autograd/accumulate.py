"""AccumulateGrad: the node at each leaf that writes gradients into ``leaf.grad``.

The leaf holds its AccumulateGrad only *weakly* (``_grad_accumulator``); the graph holds
it strongly through edges. So one leaf gets one accumulator for as long as some graph uses
it, and none is kept alive by the leaf alone — PyTorch's rule.

The gradient layout contract (PyTorch's ``AccumulateGrad::accumulateGrad``):

* ``.grad`` is None:
    - grad mode off (a plain backward), nothing else references the new gradient, and its
      layout obeys the contract  →  STEAL it: ``.grad`` is that very buffer;
    - otherwise  →  COPY it so ``.grad`` obeys the contract: the parameter's strides when
      the parameter is non-overlapping and dense, else row-major (contiguous).
* ``.grad`` exists:
    - grad mode off  →  accumulate IN PLACE (``grad += new``);
    - grad mode on (``create_graph=True``)  →  OUT OF PLACE (``grad = grad + new``), so the
      sum is itself differentiable.

The engine's backward-step tracer reads ``last_action`` to show which case happened.
"""
from __future__ import annotations

import sys
import weakref

from .. import backend as B
# PyTorch's is_non_overlapping_and_dense of (shape, element strides): layouts.py's
from ..layouts import non_overlapping_and_dense as is_non_overlapping_and_dense
from ..tensor import Tensor
from . import apply_lean as _apply_lean
from .graph import Node, check_hook_result
from .state import state as _st

__all__ = ["AccumulateGrad", "grad_accumulator", "is_non_overlapping_and_dense",
           "obeys_layout_contract", "clone_obey_contract"]


# PyTorch's AccumulateGrad's sequence number: UINT64_MAX, above every op's node
ACCUMULATE_NR = 2 ** 64 - 1


class AccumulateGrad(Node):
    __slots__ = ("variable", "last_action", "_hooks_ran")
    _CPP_NAME = "torch::autograd::AccumulateGrad"   # (what PyTorch's name() says)

    def __init__(self, variable):
        # PyTorch gives AccumulateGrad the highest priority in the ready queue, and takes
        # no number from the sequence for it (Node.__init__ would)
        self.next_functions = ()
        self._seq_nr = ACCUMULATE_NR
        self.variable = variable
        self.last_action = None
        self._hooks_ran = False

    def apply(self, grads):
        return self._accumulate_from(grads, False)

    def apply_arrays(self, grads):
        # A plain backward's bare array (Note [arrays in a plain backward], engine_plain.py).
        # Whether anything else still holds it (another edge's buffer, the user's
        # gradient tensor) is asked of the array, before a Tensor is wrapped round it:
        # the references are the local ``a`` and getrefcount's argument.
        a = grads[0]
        if a is None:   # (no gradient: the leaf's hooks still run, with None)
            return self._accumulate_from(grads, False)
        grads[0] = None
        shared = sys.getrefcount(a) > 2
        var = self.variable
        if (not shared and var._grad is None and type(a) is _HOST and _keeps_as_is(a, var)
                and not self._hooks_ran and not var._hooks and not var._post_acc_hooks
                and not _st.grad_enabled and _enabled[0] and var._requires_grad):
            # Note [the first gradient of a step, kept]
            var._grad = Tensor._make(a, var._device)
            self.last_action = "stole"
            return []
        box = [Tensor._make(a, var._device)]
        a = None
        return self._accumulate_from(box, shared)

    _releasable = False   # (nothing saved: the plain loop's release check, answered)

    def _lean_apply(self, grads):
        """The plain loop's first try (Note [lean apply], apply_lean.py): this node's step
        is its ``apply_arrays`` itself, run at once (None while the lean steps are off,
        then the loop calls ``apply_arrays``, as the profiler times it)."""
        return self.apply_arrays(grads) if _lean_on[0] else None

    def _accumulate_from(self, grads, shared):
        new = grads[0]
        grads[0] = None  # so the caller's list no longer holds it (see _STEAL_REFS)
        var = self.variable
        if new is None:
            # no gradient arrived (a custom Function's None for this input): PyTorch still
            # runs the leaf's tensor hooks (with None) and post-accumulate hooks
            if self._hooks_ran:
                self._hooks_ran = False
            elif var._hooks:
                self._run_tensor_hooks(None)
            self._post_accumulate(var)
            return []
        if self._hooks_ran:
            self._hooks_ran = False
        elif var._hooks:
            r = self._run_tensor_hooks(new)
            if r is not new:
                new, shared = r, False   # the hook's own tensor: its references decide
            r = None
        if var._requires_grad:
            accumulate(var, new, self, shared)
        # (else a leaf that stopped requiring grad after the graph was built, by
        # requires_grad_(False) or detach_(): nothing accumulated, its hooks run, as in
        # PyTorch)
        self._post_accumulate(var)
        return []

    @staticmethod
    def _post_accumulate(var):
        if var._post_acc_hooks:
            for fn in list(var._post_acc_hooks.values()):
                if fn(var) is not None:
                    raise RuntimeError("Tensor post accumulate grad hooks should return None.")

    def _run_tensor_hooks(self, new):
        """Leaf tensor hooks run before accumulation and may replace the gradient."""
        for fn in list(self.variable._hooks.values()):
            r = fn(new)
            if r is not None:
                check_hook_result(fn, new, r)
                new = r
        return new

    def tensor_hooks_first(self, grads):
        """Run the leaf's tensor hooks now, before this node's pre-hooks (PyTorch's order:
        tensor hooks, node pre-hooks, accumulate, post-accumulate hooks, node hooks)."""
        if self.variable._hooks and grads:
            grads = list(grads)
            grads[0] = self._run_tensor_hooks(grads[0])
            self._hooks_ran = True
        return grads

    def __repr__(self):
        return f"<AccumulateGrad object at {id(self):#x}>"


# Note [the first gradient of a step, kept]
# A speed trick for a plain backward (apply_arrays): the commonest call is a leaf's first
# gradient of the step (``.grad`` is None: the optimizer set it to None), a fresh host
# array nobody else holds, of the leaf's dtype and shape, both row-major. ``accumulate``
# would STEAL it (every test of its first case passes: not shared, grad mode off, its
# array writeable memory of its own, the layout contract); ``_keeps_as_is`` asks those
# questions of the bare array, and the Tensor is made once, as ``.grad``. A leaf with
# tensor hooks or post-accumulate hooks, an existing ``.grad``, any other array: the
# teaching path (``_accumulate_from``). set_lean_accumulate(False) turns it off
# (tests/autograd/test_accumulate.py compares both ways).

_HOST = B.HOST_ARRAY
_enabled = [True]
_lean_on = _apply_lean._enabled   # the lean steps' switch (the profiler turns it off)


def set_lean_accumulate(enabled: bool) -> bool:
    """Turn Note [the first gradient of a step, kept] on or off; returns the previous
    setting."""
    prev = _enabled[0]
    _enabled[0] = bool(enabled)
    return prev


def _keeps_as_is(a, var):
    """Whether ``accumulate`` would steal host array ``a`` (held only by the caller's
    local) as ``var.grad``: owns_memory, obeys_layout_contract's common case, writeable,
    the leaf's dtype."""
    v = var._data
    f = a.flags   # (one flags object: each ``.flags`` read makes a new one)
    if (not f.writeable or not f.c_contiguous or type(v) is not _HOST
            or (a.dtype is not v.dtype and a.dtype != v.dtype) or a.shape != v.shape
            or (a.strides != v.strides and not v.flags.c_contiguous)):
        # (a row-major ``a`` of v's shape: v is row-major too when its strides are a's,
        # asked without v's flags object; only a size-1 dim's stride can differ)
        return False
    if f.owndata:
        return True
    base = a.base   # a view (a transpose) of an array only that view holds
    return (type(base) is _HOST and base.base is None and sys.getrefcount(base) <= 3)


def owns_memory(t) -> bool:
    """Nobody else can see t's memory: its array owns it, or is a view (e.g. a transpose)
    of an array that only that view holds, or is empty_strided's fresh buffer."""
    if t._fresh_buffer or t._data.flags.owndata:
        return True
    base = getattr(t._data, "base", None)   # array types without .base: assume shared
    if base is None:
        return False
    # the view's reference to its base, our local, getrefcount's argument
    return getattr(base, "base", None) is None and sys.getrefcount(base) <= 3


def grad_accumulator(t):
    """The (unique while alive) AccumulateGrad of leaf ``t``."""
    ref = t._grad_accumulator
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._grad_accumulator = weakref.ref(acc)
    return acc


def obeys_layout_contract(grad, var) -> bool:
    g, v = grad._data, var._data
    if g.flags.c_contiguous and v.flags.c_contiguous and g.shape == v.shape:
        return True   # the common case: both row-major, so the same strides, both dense
    gs, vs = grad.stride(), var.stride()
    shape = tuple(var._data.shape)
    if is_non_overlapping_and_dense(shape, vs):
        # Strides only matter along dims of size > 1.
        return all(g == v for g, v, sz in zip(gs, vs, shape) if sz != 1) and \
            is_non_overlapping_and_dense(shape, gs)
    return bool(grad._data.flags.c_contiguous)


def clone_obey_contract(grad, var):
    """A copy of ``grad`` laid out like ``var`` (or row-major when var is not dense)."""
    shape = tuple(var._data.shape)
    if is_non_overlapping_and_dense(shape, var.stride()):
        out = Tensor._empty_strided(shape, var.stride(), grad._data.dtype, grad._device)
        if _st.grad_enabled:
            # Differentiable copy (create_graph): the copy_ records CopyBackwards.
            return out.copy_(grad)
        out._data[...] = grad._data
        return out
    return grad.clone(memory_format=B.contiguous_format)


def accumulate(var, new, node=None, shared=False):
    """Accumulate ``new`` into ``var.grad`` (the contract above). ``shared``: the caller
    knows that something else holds ``new``'s array, so it must not be stolen."""
    if new._data.dtype != var._data.dtype:
        new = new.to(var._data.dtype)  # .grad always has the leaf's dtype (validate_outputs)
    old = var._grad
    action = None
    if old is None:
        if (not shared and not _st.grad_enabled and sys.getrefcount(new) <= _STEAL_REFS
                and sys.getrefcount(new._data) <= 2   # nor its array (a wrapped one may be)
                and B.writeable(new._data) and new._base is None
                and owns_memory(new)
                and obeys_layout_contract(new, var)):
            var._grad = new.detach() if new._grad_fn is not None else new
            action = "stole"
        else:
            var._grad = clone_obey_contract(new, var)
            action = "copied"
    elif not _st.grad_enabled:
        if B.writeable(old._data) and old._data.shape == new._data.shape:
            old._data += new._data
            old._version_counter.bump()
            action = "accumulated in place"
        else:
            var._grad = old + new
            action = "accumulated out of place"
    else:
        var._grad = old + new
        action = "accumulated out of place"
    if node is not None:
        node.last_action = action


# References to a gradient that nobody else holds when it reaches accumulate(): the
# argument `new`, getrefcount's own argument, and the caller's local.
_STEAL_REFS = 3
