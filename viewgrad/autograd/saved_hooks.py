"""``torch.autograd.graph``'s tools for saved tensors and gradient edges.

Note [Saved-tensor hooks]
~~~~~~~~~~~~~~~~~~~~~~~~~
Inside ``with saved_tensors_hooks(pack, unpack):`` every tensor a node saves for backward
is handed to ``pack`` at once, and what ``pack`` returns is kept instead; at backward,
``unpack(packed)`` gives the tensor the formula uses. The ONE place this happens is
``SavedTensor`` (``autograd/graph.py``: its constructor packs, ``unpack`` unpacks) — the
only cost when no hooks are active is one read of a per-thread tuple. As in PyTorch, a
tensor that went through hooks is not version-checked at unpack: the hooks own it (an
in-place change after packing a clone is invisible; one after packing the tensor itself
shows up in the gradient). ``grad_fn._raw_saved_x.register_hooks(pack, unpack)`` does the
same for one saved tensor after the fact.

``save_on_cpu()`` is the classic use: pack copies to the host, unpack moves back to the
device the tensor came from. ``disable_saved_tensors_hooks(msg)`` makes any attempt to
install hooks raise ``RuntimeError(msg)`` (libraries use it to protect their own saving).

Also here: ``increment_version(t)`` (bump the version counter by hand, as if written in
place), ``get_gradient_edge(t)`` (the edge ``(node, output_nr)`` a gradient for ``t``
flows into), and
``register_multi_grad_hook``.
"""
from __future__ import annotations

import itertools
import threading
from collections import namedtuple

from .state import state as _st

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "increment_version", "GradientEdge", "get_gradient_edge",
           "register_multi_grad_hook", "GraphTask"]


class saved_tensors_hooks:  # noqa: N801 - PyTorch's name
    """``with saved_tensors_hooks(pack_hook, unpack_hook):`` — tensors saved for backward
    inside go through ``pack_hook`` now and ``unpack_hook`` at backward (Note [Saved-tensor
    hooks]). Blocks nest; the innermost pair applies."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        msg = _st.saved_tensors_hooks_disabled
        if msg is not None:
            raise RuntimeError(msg)
        _st.saved_tensors_hooks = _st.saved_tensors_hooks + ((self.pack_hook,
                                                              self.unpack_hook),)
        return self

    def __exit__(self, *exc):
        _st.saved_tensors_hooks = _st.saved_tensors_hooks[:-1]
        return False


class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    """Saved tensors are copied to the CPU when saved and moved back to their device at
    backward (trading transfer time for device memory, as PyTorch's save_on_cpu)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            return (t.device, t.detach().cpu() if t.device.type != "cpu" else t.detach())

        def unpack(packed):
            dev, t = packed
            return t.to(dev)
        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:  # noqa: N801
    """Inside, installing saved-tensor hooks raises ``RuntimeError(error_message)``."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        self._prev = _st.saved_tensors_hooks_disabled
        _st.saved_tensors_hooks_disabled = self.error_message
        return self

    def __exit__(self, *exc):
        _st.saved_tensors_hooks_disabled = self._prev
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with disable_saved_tensors_hooks(self.error_message):
                return fn(*args, **kwargs)
        return wrapper


def increment_version(tensor):
    """Bump ``tensor``'s version counter, as an in-place op would (for code that writes
    into a tensor's memory behind autograd's back, e.g. through ``.data``). A tensor or a
    list of tensors."""
    from ..tensor import Tensor
    for t in ([tensor] if isinstance(tensor, Tensor) else tensor):
        t._version_counter.version += 1


GradientEdge = namedtuple("GradientEdge", ("node", "output_nr"))
GradientEdge.__doc__ = ("Where a gradient flows in the graph: ``node`` and the output "
                        "number of the forward op (``torch.autograd.graph.GradientEdge``).")


def get_gradient_edge(tensor):
    """The ``GradientEdge(node, output_nr)`` the gradient of ``tensor`` flows into: its
    grad_fn, or for a leaf its AccumulateGrad node (made if needed) — the node that an
    in-place op on ``tensor`` would later replace as its grad_fn."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that "
                           "does not require gradients")
    fn = tensor.grad_fn
    if fn is None:
        from .accumulate import grad_accumulator
        fn = grad_accumulator(tensor)
    return GradientEdge(fn, tensor._output_nr if tensor.grad_fn is not None else 0)


_TASK_IDS = itertools.count(1)   # GraphTask.id: 1, 2, ... per process


class GraphTask:
    """One run of the engine (PyTorch's GraphTask, as far as hooks need it): its id, and
    which nodes it will execute (the reachable ones; with ``inputs=``, the needed ones and
    the captured ones). The plain loop makes these; the general path a ``_GeneralTask``."""

    # root: the GraphRoot, set when first asked (the plain loop's ``deps`` partial holds
    # it) or by ``_GeneralTask``; unpacked: what saved tensors with hooks gave in this
    # backward (Note [one unpack per node run], graph.py). Unset slots cost the plain
    # loop nothing.
    __slots__ = ("id", "deps", "needed", "captures", "root", "unpacked")

    def __init__(self, deps, needed, captures):
        # (a module counter, not a class attribute: writing one modifies the class, so
        # every backward would start with the lookups on it uncached)
        self.id = next(_TASK_IDS)
        # deps: the engine's dependency counts, whose keys are the nodes the root reaches,
        # or a function that counts them, called when a hook first asks (the plain loop
        # counts late: Note [dependencies counted late], engine_plain.py)
        self.deps, self.needed, self.captures = deps, needed, captures

    def will_execute(self, node):
        """``torch._C._will_engine_execute_node``: will this backward run ``node``?"""
        deps = self.deps
        if type(deps) is not dict:
            self.root = deps.args[0]   # partial(_collect, root)
            deps = self.deps = deps()
        root = getattr(self, "root", None)
        if node not in deps:
            return False
        if root is not None and len(root.next_functions) == 1 and \
                root.next_functions[0][0] is node:
            return False   # Note [the single root's node]
        if self.needed is None:
            return True
        # (a leaf that autograd.grad captures: PyTorch refuses to answer, "A leaf node was
        # passed to _will_engine_execute_node but we are currently running
        # autograd.grad()"; viewgrad knows, tests/autograd/test_gradient_edge_inputs.py)
        return bool(self.needed.get(node)) or node in self.captures


class _GeneralTask(GraphTask):
    """A run of the engine's general path, which knows its root at once."""

    __slots__ = ()

    def __init__(self, deps, needed, captures, root):
        GraphTask.__init__(self, deps, needed, captures)
        self.root = root


# Note [the single root's node]
# With one root edge, PyTorch's engine runs no GraphRoot: the node of that edge is the
# root itself (``skip_dummy_node``). It is then not among the nodes the walk from the root
# reaches, so ``_will_engine_execute_node`` says False for it: a multi-grad hook in
# mode="all" over the loss itself never fires, and one over the loss and an intermediate
# fires twice, once per gradient. That root node is also always visited, needed or not:
# with ``inputs=`` that do not need it, its tensor hooks (and retain_grad) still run, but
# not the node itself (engine.py).


def _current_task():
    task = _st.graph_task
    if task is None:
        raise RuntimeError("expected this hook to be called inside a backward call")
    return task


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` once per backward after the gradients of all ``tensors`` that take part
    in THAT backward are computed (``mode='all'``: ``fn(grads)`` with None for the tensors
    the backward does not reach), or with the first one computed (``mode='any'``:
    ``fn(grad)``, once per backward). As ``torch.autograd.graph.register_multi_grad_hook``,
    each backward call counts on its own. Returns a handle with ``.remove()``."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = list(tensors)
    lock = threading.Lock()
    taking_part = [t for t in tensors if t.requires_grad]
    if mode == "any":
        fired = set()   # ids of the backward calls in which fn already ran

        def any_hook(g):
            task = _current_task()
            with lock:
                if task.id in fired:
                    return None
                fired.clear()   # an older backward is over: forget it
                fired.add(task.id)
            fn(g)
            return None
        handles = [t.register_hook(any_hook) for t in taking_part]
    else:
        nodes = [get_gradient_edge(t).node for t in taking_part]
        pending = {}    # backward id -> [gradients, calls seen, calls expected]

        def make(i):
            def hook(g):
                task = _current_task()
                with lock:
                    entry = pending.get(task.id)
                    if entry is None:
                        expected = sum(1 for n in nodes if task.will_execute(n))
                        entry = pending[task.id] = [[None] * len(tensors), 0, expected]
                    entry[0][i] = g
                    entry[1] += 1
                    done = entry[1] == entry[2]
                    if done:
                        del pending[task.id]
                if done:
                    fn(tuple(entry[0]))
                return None
            return hook
        handles = [t.register_hook(make(i)) for i, t in enumerate(tensors)
                   if t.requires_grad]

    class _Handle:
        def remove(self):
            for h in handles:
                h.remove()
    return _Handle()
