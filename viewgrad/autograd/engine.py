"""The backward engine: ``backward`` and ``grad``.

The algorithm (PyTorch's, single-threaded):

1. **Roots.** A ``GraphRoot`` node whose edges point at the outputs' grad_fns and which
   "returns" the given output gradients.
2. **Dependencies.** One iterative walk over the reachable graph counts, for every node,
   how many edges point at it. (Iterative, never recursive: graphs can be 1e5 nodes deep.)
3. **What is needed** (``autograd.grad`` and ``backward(inputs=...)`` only): a node runs
   only if some input we want a gradient for is reachable from it.
4. **Ready queue.** A node is ready when every edge into it has delivered its gradient
   (its dependency count fell to zero). Ready nodes run in decreasing ``sequence_nr``
   (creation order, newest first), AccumulateGrad first. Incoming gradients for the same
   input are summed in the node's input buffer.

Why not a plain depth-first walk? With ``a = x * 2; b = a + a; c = b + b``, a DFS would run
a's node once per path, before all of a's gradient has arrived. Counting dependencies
makes every node run exactly once, with its complete gradient — a topological order.

Backward formulas run with grad mode set to ``create_graph``: when it is on, they build a
graph themselves, which is how higher-order gradients work. Without ``retain_graph``, every
executed node frees its saved tensors.
"""
from __future__ import annotations

import heapq
import warnings
from collections.abc import Mapping
from functools import partial

from .. import backend as B
from ..tensor import Tensor
from . import anomaly as _anomaly
from .accumulate import AccumulateGrad, accumulate as _accumulate
from .engine_plain import run_plain as _run_plain
from .graph import (Node, _arrays_to_tensors, _add_input,
                    check_hook_result, check_hook_results, _tensors_to_arrays)
from .saved_hooks import GradientEdge, GraphTask, _GeneralTask
from .state import state as _st

__all__ = ["backward", "grad", "run_backward", "GraphRoot"]

_HOST = B.HOST_ARRAY
_np_ones = B.cpu.xp.ones   # the host array module
_new = object.__new__
_ROOT_NR = 2 ** 64   # the root runs first (above AccumulateGrad's UINT64_MAX)


class GraphRoot(Node):
    __slots__ = ("grads",)
    _CPP_NAME = "torch::autograd::GraphRoot"   # (what PyTorch's name() says)

    def __init__(self, edges, grads):
        super().__init__(tuple(edges))
        self.grads = grads
        self._seq_nr = _ROOT_NR

    def apply(self, grads):
        return list(self.grads)

    def apply_arrays(self, grads):
        return [g._data for g in self.grads]


def _make_root_grads(tensors, grad_tensors):
    out = []
    for i, t in enumerate(tensors):
        g = grad_tensors[i] if grad_tensors is not None else None
        if g is None:
            if t._data.size != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs (output "
                    f"{i} has shape {list(t.shape)}); pass gradient=... with the same shape, "
                    "e.g. y.backward(viewgrad.ones_like(y)), or reduce first: y.sum().backward()")
            d = t._data
            if d.dtype.kind not in "f":   # (complex: which gradient? PyTorch asks for one)
                raise RuntimeError(
                    "grad can be implicitly created only for real scalar outputs but got "
                    f"viewgrad.{B.dtype_name(d.dtype)}; pass gradient=... (for a complex "
                    "output, e.g. y.abs().backward() or y.real.backward())")
            if type(d) is _HOST:   # t.new_ones(t.shape), without the trip through ops
                g = Tensor._make(_np_ones(d.shape, d.dtype), t._device)
            else:
                g = t.new_ones(t.shape)
        if g._data.shape != t._data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                f"output[{i}] has a shape of {t.shape}.")
        if g._data.dtype != t._data.dtype:
            g = g.to(t.dtype)  # PyTorch's validate_outputs casts to the output's dtype
        out.append(g)
    return out


def _collect(root):
    """Dependency counts over the graph reachable from root (iterative). A node is in
    ``deps`` once some edge reaches it: that is also the "seen" mark of the walk."""
    deps = {}
    stack = [root]
    pop, push = stack.pop, stack.append
    get = deps.get
    while stack:
        node = pop()
        while node is not None:
            nxt = None   # the node pushed last, which the next pop would give: kept in hand
            for fn, _ in node.next_functions:
                if fn is not None:
                    d = get(fn)
                    if d is None:
                        deps[fn] = 1
                        if nxt is not None:
                            push(nxt)
                        nxt = fn
                    else:
                        deps[fn] = d + 1
            node = nxt
    return deps


def _needed(root, targets):
    """Nodes from which some target node is reachable (post-order, iterative)."""
    needed = {}
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            ok = False
            for e in node.next_functions:
                if e[0] is not None and (e[0] in targets or needed.get(e[0])):
                    ok = True
                    break
            needed[node] = ok
            continue
        if node in needed:
            continue
        needed[node] = False  # provisional (graphs are DAGs)
        stack.append((node, True))
        for e in node.next_functions:
            if e[0] is not None and e[0] not in needed:
                stack.append((e[0], False))
    return needed


def _call_hooks_and_capture(node, inputs, captures, capture_out, accumulate_captured):
    th = node._tensor_pre_hooks
    if th:
        # a tensor hook runs whenever its node runs, with None when no gradient flowed
        # into that output (another output of a multi-output node), as in PyTorch
        for nr, hooks in th.items():
            if hooks and nr >= len(inputs):
                inputs.extend([None] * (nr + 1 - len(inputs)))
            for fn in list(hooks.values()):
                r = fn(inputs[nr])
                if r is not None:
                    check_hook_result(fn, inputs[nr], r)
                    inputs[nr] = r
    rg = node._retains_grad
    if rg:
        for nr, ref in list(rg.items()):
            t = ref()
            g = inputs[nr] if nr < len(inputs) else None
            if t is not None and g is not None:
                if t._grad is None:
                    # (a contiguous copy, as PyTorch's retain_grad hook makes it)
                    g = g if _st.grad_enabled else g.detach()
                    t._grad = g.clone(memory_format=B.contiguous_format)
                else:
                    t._grad = t._grad + g
    if captures is not None:
        wanted = captures.get(node)
        if wanted and accumulate_captured and type(node) is AccumulateGrad:
            wanted = None  # backward(inputs=[leaf]): the AccumulateGrad itself runs
        if wanted:
            for nr, idx in wanted:
                g = inputs[nr] if nr < len(inputs) else None
                if g is not None and type(node) is AccumulateGrad and node.variable._hooks:
                    for fn in list(node.variable._hooks.values()):
                        r = fn(g)
                        if r is not None:
                            check_hook_result(fn, g, r)
                            g = r
                if accumulate_captured:
                    t = capture_out[idx]
                    if rg and nr in rg and t._retains_grad:
                        continue  # its retain_grad hook already stored this gradient
                    if g is not None:
                        _accumulate(t, g)
                else:
                    prev = capture_out[idx]
                    capture_out[idx] = g if prev is None else prev + g
    return inputs


def _apply(node, inputs):
    if node._pre_hooks:
        from .accumulate import AccumulateGrad
        if type(node) is AccumulateGrad:
            inputs = node.tensor_hooks_first(inputs)  # PyTorch: tensor hooks, then these
        for fn in list(node._pre_hooks.values()):
            prev = tuple(inputs)
            r = fn(prev)
            if r is not None:
                check_hook_results(fn, prev, r)
                inputs = list(r)
    if _st.anomaly:
        outputs = _anomaly.run_with_anomaly(node, inputs)
    else:
        outputs = node.apply(inputs)
    if node._post_hooks:
        task = _st.graph_task
        if task is not None and task.needed is not None:
            # a gradient this backward does not need is not computed in PyTorch: the
            # post hooks see None for it (Note [what a restricted backward computes])
            outputs = _unneeded_as_none(node, outputs, task)
        for fn in list(node._post_hooks.values()):
            prev = tuple(outputs)
            r = fn(prev, tuple(inputs))
            if r is not None:
                check_hook_results(fn, prev, r)
                outputs = list(r)
    return outputs


def _unneeded_as_none(node, outputs, task):
    """``outputs`` with None for each edge a restricted backward does not follow."""
    outputs = list(outputs)
    needed, captures = task.needed, task.captures
    for i, (fn, _) in enumerate(node.next_functions):
        if i < len(outputs) and (fn is None or not (needed.get(fn) or fn in captures)):
            outputs[i] = None
    return outputs


# Note [what a restricted backward computes]
# With ``inputs=`` (autograd.grad, backward(inputs=...)), PyTorch runs a node only when it
# leads to an input (``needed``), and the node computes only the gradients of the edges
# that lead somewhere the backward goes; the others are undefined (None). What a node
# hands on along an unneeded edge is dropped by the loop anyway; what can see it is a
# node's post hook, which gets None there. And a node that is both needed and the
# grad_fn of an input captures that input's gradient *before* its tensor hooks run (they
# run with the node, as pre hooks); a captured node that is not needed runs its tensor
# hooks first and captures what they return (PyTorch's evaluate_function).


def _capture_before_hooks(node, ins, captures, capture_out):
    """autograd.grad: capture the raw gradients of a needed node's captured outputs."""
    for nr, idx in captures[node]:
        g = ins[nr] if nr < len(ins) else None
        prev = capture_out[idx]
        capture_out[idx] = g if prev is None or g is None else prev + g


def run_backward(tensors, grad_tensors, keep_graph, create_graph, inputs=None,
                 accumulate=True, allow_unused=True):
    """Shared core of backward() and grad(). Returns captured grads (for grad())."""
    edges = []
    for i, t in enumerate(tensors):
        e = t._edge()
        if e is None:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn "
                "(did you forget requires_grad=True on a leaf, or compute it under no_grad?)")
        edges.append(e)
    root_grads = _make_root_grads(tensors, grad_tensors)
    root = GraphRoot(edges, root_grads)

    captures = None
    capture_out = None
    needed = None
    if inputs is not None:
        captures = {}
        capture_out = [None] * len(inputs) if not accumulate else list(inputs)
        targets = set()
        for idx, t in enumerate(inputs):
            if type(t) is GradientEdge:  # get_gradient_edge(t): that (node, nr) itself
                targets.add(t.node)
                if not (accumulate and type(t.node) is not AccumulateGrad):
                    captures.setdefault(t.node, []).append((t.output_nr, idx))
                continue
            e = t._edge()
            if e is None:
                if t.requires_grad:
                    # a no_grad view of a base that requires grad: its edge is (None, 0),
                    # which no graph reaches (PyTorch: unused, .grad stays None)
                    continue
                raise RuntimeError("One of the differentiated Tensors does not require grad "
                                   f"(input {idx})")
            captures.setdefault(e[0], []).append((e[1], idx))
            targets.add(e[0])
        needed = _needed(root, targets)

    tracer = _st.backward_observer
    anomaly = _st.anomaly
    # Note [arrays in a plain backward]: gradients travel as bare arrays, not Tensors
    plain = not create_graph and captures is None and tracer is None and not anomaly
    deps = None if plain else _collect(root)   # (Note [dependencies counted late])
    prev = _st.enter_backward(bool(create_graph),
                              _GeneralTask(deps if deps is not None
                                           else partial(_collect, root),
                                           needed, captures, root))
    try:
        if plain:  # Note [plain backward loop] (engine_plain.py)
            _run_plain(root, root.apply_arrays(()), keep_graph, _collect, _hooked_arrays)
            return capture_out
        if tracer is not None:
            tracer.start(root, deps)
        buffers = {root: []}
        heap = [(-root._seq_nr, 0, root)]
        counter = 1
        heappop, heappush = heapq.heappop, heapq.heappush
        nxt = None  # the one node that became ready while the queue was empty (Note below)
        while True:
            if nxt is not None:
                node, nxt = nxt, None
            elif heap:
                node = heappop(heap)[2]
            else:
                break
            ins = buffers.pop(node)
            if captures is not None:
                if not accumulate and node in captures and needed.get(node):
                    # (Note [what a restricted backward computes])
                    _capture_before_hooks(node, ins, captures, capture_out)
                    ins = _call_hooks_and_capture(node, ins, None, None, False)
                else:
                    ins = _call_hooks_and_capture(node, ins, captures, capture_out,
                                                  accumulate)
                # backward(inputs=[t]) runs t's grad_fn itself (its hooks included),
                # as PyTorch marks the inputs' nodes needed; grad() only captures
                if not needed.get(node) and not (accumulate and node in captures) \
                        and node is not root:
                    continue
            elif node._hooked:
                ins = _call_hooks_and_capture(node, ins, None, None, False)
            if tracer is not None:
                seen = tracer.summarize(ins, node)  # plain data: holds no gradient
            if anomaly or node._hooked:
                outs = _apply(node, ins)
            else:
                outs = node.apply(ins)
            ins = None
            if not keep_graph:
                node.release_variables()
            i = -1
            for e in node.next_functions:
                i += 1
                fn, nr = e
                if fn is None:
                    continue
                if needed is not None and not needed.get(fn) and fn not in captures \
                        and not (node is root and len(root.next_functions) == 1):
                    continue   # (the single root's node is visited: Note [the single
                    # root's node], saved_hooks.py)
                g = outs[i] if i < len(outs) else None
                _add_input(buffers, fn, nr, g)
                d = deps[fn] - 1
                deps[fn] = d
                if d == 0:
                    if nxt is None and not heap and tracer is None:
                        nxt = fn
                        continue
                    if nxt is not None:
                        heappush(heap, (-nxt._seq_nr, counter, nxt))
                        counter += 1
                        nxt = None
                    heappush(heap, (-fn._seq_nr, counter, fn))
                    counter += 1
            if tracer is not None:   # after the hand-off: buffers, counts, queue as they are now
                tracer.node(node, seen, outs, heap, deps, buffers)
            # Drop our references to the gradients we handed on, so that AccumulateGrad
            # can tell a gradient nobody else holds (and steal it).
            outs = g = None
    finally:
        _st.enter_backward(*prev)
        if tracer is not None:
            tracer.end()
    return capture_out


def _hooked_arrays(node, ins):
    """A node with hooks or retain_grad in a plain backward: the hooks see Tensors."""
    ins = _call_hooks_and_capture(node, _arrays_to_tensors(ins), None, None, False)
    return _tensors_to_arrays(_apply(node, ins))


def _backward_plain(t, keep_graph):
    """``t.backward()`` for a scalar ``t`` with a history on the host, in a plain backward
    (Note [plain backward loop], engine_plain.py); False, having done nothing, for any
    other case: the general path takes it (and raises what it raises)."""
    d = t._data
    if (type(d) is not _HOST or d.size != 1 or d.dtype.kind != "f"
            or _st.backward_observer is not None or _st.anomaly):
        return False
    e = t._edge()
    if e is None:
        return False
    g = _HOST(d.shape, d.dtype)   # the implicit gradient: ones
    g.fill(1)
    root = _new(GraphRoot)
    root.next_functions = (e,)
    root._seq_nr = _ROOT_NR
    root.grads = None   # (Tensors only on the general path)
    prev = _st.enter_backward(False, GraphTask(partial(_collect, root), None, None))
    try:
        _run_plain(root, [g], keep_graph, _collect, _hooked_arrays)
    finally:
        _st.enter_backward(*prev)
    return True


# Note [chain fast path]
# A speed trick, fenced off in run_backward's loop: most nodes of a chain make exactly one
# node ready, while the ready queue is empty. That node is the only ready one, so it is
# what the queue would give next anyway: run it next (``nxt``) without pushing it onto the
# heap and popping it back. As soon as a second node becomes ready, both go onto the heap
# and the order is the queue's again (sequence_nr, newest first). Off while a tracer
# watches: it is shown the ready queue after each node, so every ready node is in it.
# Along such a run, Note [chain run] (engine_chain.py) runs the nodes' steps back to back
# on bare arrays, without the loop's lists.


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, Tensor) or type(x) is GradientEdge:
        return (x,)
    return tuple(x)


def _as_grads(x):
    """The given output gradients as a tuple: each a Tensor or None, as PyTorch demands
    (it never turns numbers or lists into a gradient: their dtype would be a guess)."""
    try:
        grads = _as_tuple(x)
    except TypeError as e:  # backward(3): PyTorch's tuple() error, then what to do
        raise TypeError(f"{e}: gradients can be either Tensors or None, but got "
                        f"{type(x).__name__}; pass a tensor shaped like the output, e.g. "
                        "y.backward(viewgrad.ones_like(y) * 3)") from None
    for g in grads or ():
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}; wrap it: viewgrad.tensor(...) shaped like "
                            "the output")
    return grads


def _grads_for(tensors, grads):
    """The output gradients, one per output, as PyTorch pairs them (``_make_grads`` zips
    them, dropping extra ones; fewer is the engine's error)."""
    if grads is None:
        return None
    if len(grads) < len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grads)} gradients")
    return grads[:len(tensors)]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Compute gradients of ``tensors`` w.r.t. the graph's leaves and accumulate them in
    ``.grad`` (``inputs=`` restricts which tensors accumulate)."""
    if (grad_tensors is None and inputs is None and not create_graph
            and type(tensors) is tuple and len(tensors) == 1
            and _backward_plain(tensors[0], bool(retain_graph))):
        return   # Note [plain backward loop] (engine_plain.py): the commonest call
    tensors = _as_tuple(tensors)
    grad_tensors = _as_grads(grad_tensors)
    grad_tensors = _grads_for(tensors, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _as_tuple(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    if inputs is not None:   # a non-leaf input's gradient goes to .grad: PyTorch's engine
        for t in inputs:     # makes it retain its gradient, from now on
            if type(t) is not GradientEdge and t.grad_fn is not None:
                t.retain_grad()
    run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return the gradients of ``outputs`` w.r.t. ``inputs``; runs only the nodes needed and
    leaves every ``.grad`` untouched. ``is_grads_batched=True``: the first dim of each
    ``grad_outputs`` is a batch of vectors, and each result gets that batch dim (PyTorch
    vmaps; viewgrad runs one backward per vector and stacks). ``only_inputs`` is PyTorch's
    deprecated no-op."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if inputs is None:   # PyTorch iterates it
        raise TypeError("'NoneType' object is not iterable")
    outputs = _as_tuple(outputs)
    keys = None
    if type(inputs) is dict:   # PyTorch 2.13: gradients by the same keys
        keys = tuple(inputs)
        inputs = tuple(inputs.values())
    elif isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `grad()` must be a dict, not "
                        f"{type(inputs).__name__}. Other Mapping types are not supported.")
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to "
                      "True). To accumulate gradient for other parts of the graph, please "
                      "use torch.autograd.backward.", FutureWarning, stacklevel=2)
    for t in inputs:
        if not isinstance(t, Tensor) and type(t) is not GradientEdge:
            raise RuntimeError("all inputs have to be Tensors or GradientEdges, but got "
                               f"{type(t).__name__}")
    grad_outputs = _grads_for(outputs, _as_grads(grad_outputs))
    if is_grads_batched:
        res = _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                            allow_unused, materialize_grads)
    else:
        res = _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                    materialize_grads)
    return res if keys is None else dict(zip(keys, res))


def _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
          materialize_grads):
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    res = run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs,
                       accumulate=False)
    if materialize_grads and any(g is None and type(t) is GradientEdge
                                 for g, t in zip(res, inputs)):
        # (only when there is nothing to shape the zeros after: PyTorch asks after the run)
        raise RuntimeError("materialize_grads cannot be used when the given input is a "
                           "GradientEdge")
    out = []
    for i, (g, t) in enumerate(zip(res, inputs)):
        if g is None:
            if materialize_grads:
                # zeros_like(t): laid out as t is (Note [memory formats], backend/formats.py)
                g = Tensor._make(B.in_memory_format(t._device.xp.zeros(
                    tuple(t.shape), dtype=t.dtype), B.preserve_format, like=t._data), t._device)
                if create_graph:
                    g.requires_grad_()
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior.")
        out.append(g)
    return tuple(out)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize_grads):
    """``grad(..., is_grads_batched=True)``: one backward per vector of the batch."""
    if not grad_outputs or any(g is None for g in grad_outputs):
        raise RuntimeError("grad: is_grads_batched=True needs a batched grad_output for "
                           "every output")
    for i, (o, g) in enumerate(zip(outputs, grad_outputs)):
        if g.dim() == 0 or tuple(g.shape[1:]) != tuple(o.shape):
            # (PyTorch's words, and its numbers: it names the shape of grad_output[i][0]
            # without its first dim)
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions "
                "are expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of "
                f"{type(g.shape)(g[0].shape[1:]) if g.dim() else g.shape} and output[{i}] "
                "has a shape of "
                f"{o.shape}. If you only want some tensors in `grad_output` to be considered "
                "batched, consider using vmap.")
    n = grad_outputs[0].shape[0]
    rows = []
    for b in range(n):
        rows.append(grad(outputs, inputs, [g[b] for g in grad_outputs], retain_graph=True,
                         create_graph=create_graph, allow_unused=True))
    if not (retain_graph or create_graph):
        # as one batched backward would: the graph is freed after it
        grad(outputs, inputs, [g[0] for g in grad_outputs], retain_graph=False,
             allow_unused=True)
    out = []
    for i, t in enumerate(inputs):
        col = [r[i] for r in rows]
        if all(c is None for c in col):
            if materialize_grads:
                # PyTorch materializes after its vmap: zeros like the input, unbatched
                z = t.new_zeros(tuple(t.shape))
                out.append(z.requires_grad_() if create_graph else z)
                continue
            if not (allow_unused or materialize_grads):
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior.")
            out.append(None)
            continue
        out.append(_stacked(col, t, n))
    return tuple(out)


def _stacked(rows, t, n):
    """``stack(rows)`` (a missing row: zeros like ``t``) with Tensor methods only — autograd
    sits below ops: a zero tensor of the batched shape with each row written in (through
    CopySlices, so it stays differentiable under create_graph)."""
    out = t.new_zeros((n,) + tuple(t.shape))
    for b, r in enumerate(rows):
        if r is not None:
            out[b] = r
    return out
