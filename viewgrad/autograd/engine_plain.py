"""A plain ``loss.backward()``: the engine's loop on bare arrays (Note [plain backward
loop]), a speed trick fenced off from ``engine.py``, whose ``run_backward`` is the
algorithm to read. ``engine.py`` sends every plain backward here.

Note [arrays in a plain backward]
A speed trick, fenced off in this module. In a plain backward (no
create_graph, no grad()/inputs= captures, no tracer, no anomaly mode) nothing can see
an intermediate gradient except a hook, so gradients travel between nodes as bare
arrays: ``node.apply_arrays`` instead of ``node.apply``, with no Tensor (and no
VersionCounter) made per gradient. The teaching path is ``apply`` on Tensors; every
node has ``apply_arrays`` (Node's default wraps, calls ``apply``, unwraps), and the hot
ones run it on arrays directly: a table row's array kernels (ops/fast.py), CopySlices
(Note [CopySlices on arrays], views.py), AccumulateGrad (which wraps the array it
keeps as ``.grad``, asking first whether anything else holds it). A node with a hook
or retain_grad (its ``_hooked`` flag) gets Tensors, as in the teaching path.

Note [plain backward loop]
A speed trick: a plain ``loss.backward()`` (no create_graph, no grad()/inputs=, no
tracer, no anomaly mode: Note [arrays in a plain backward]) runs in ``run_plain``,
the loop of run_backward with every branch it cannot take removed. Same ready queue,
same order, same buffers; read run_backward's loop for the algorithm. The commonest
call, ``loss.backward()`` on one scalar with no gradient given, comes here straight from
``engine.backward`` (``_backward_plain``): the implicit gradient is a bare array of ones,
the root is built without the general path's lists, and grad mode and the graph task
are set in one call (``state.enter_backward``); anything else about it (no history, not
a scalar, not a host array) goes the general way, which raises what it raises.

Note [dependencies counted late]
A speed trick, fenced off in ``run_plain``. Counting dependencies first (step 2) costs
a walk over the whole graph, yet along a chain its answer is known without it. While
every node run so far had exactly one edge with a node (the root first), the graph
reached from the root is those nodes, then the current one and what it reaches. A node
of the chain is fed by the node before it alone: a later node cannot feed it (no
cycles), nor can one before it (each feeds the next). So the plain loop runs such a
prefix with no counts at all, and counts only what the first node that branches (or
has several outputs to fill) reaches, ``_collect(node)``: exactly the counts the full
walk would give those nodes. Which nodes this backward reaches (``will_execute``, for
multi-grad hooks) is asked of the root itself, when a hook asks (``GraphTask``).

Note [leaves at once]
A speed trick, fenced off in ``run_plain``: an AccumulateGrad has the highest priority
in the ready queue (UINT64_MAX, as PyTorch gives it), and no edges, so one that
becomes ready is what the queue gives next, and running it readies nothing. The plain
loop therefore runs the leaves a node makes ready (without hooks) as soon as it has
handed on all its gradients, in the order they became ready, which is the queue's order
among equal priorities: no heap entry and no input buffer for them. A leaf fed by
several edges gets its summed buffer as always.
"""
from __future__ import annotations

import heapq

from .accumulate import AccumulateGrad
from .engine_chain import run_chain
from .graph import _add_input
from .nodes import keep_attributes as _keep

_ACC = AccumulateGrad

__all__ = ["run_plain"]


def run_plain(root, outs, keep_graph, collect, hooked):
    """run_backward's loop for a plain ``loss.backward()`` (Note [plain backward loop]),
    from the root, whose output gradients (arrays) are ``outs``. ``collect`` is the
    engine's dependency count (``_collect``), ``hooked`` its step for a node with hooks."""
    buffers = {}
    heap = []
    heappop, heappush = heapq.heappop, heapq.heappush
    counter = 0
    deps = None   # not counted yet (Note [dependencies counted late])
    node = root
    while True:
        # -- hand this node's gradients on, and take the next node
        edges = node.next_functions
        if not heap and edges:
            # Note [chain fast path]: one gradient on, to a node that nothing else feeds
            fn, nr = edges[0]
            if (fn is not None and nr == 0
                    and (len(edges) == 1 or (len(edges) == 2 and edges[1][0] is None))
                    and not fn._n_outputs and (fn._chain_step is not None or fn._holds)
                    and (deps is None or (deps[fn] == 1 and fn not in buffers))):
                if deps is not None:
                    deps[fn] = 0
                g = outs[0] if outs else None
                outs = None
                node, g = run_chain(fn, g, deps, buffers, keep_graph)   # Note [chain run]
                ins = [g]
                g = None   # (AccumulateGrad asks who else holds it)
                edges = None
        if edges is not None:
            if deps is None:   # what this node reaches, counted now
                deps = collect(node)
            nxt = nxt_ins = leaves = None
            n_outs = len(outs)
            i = -1
            for fn, nr in edges:
                i += 1
                if fn is None:
                    continue
                g = outs[i] if i < n_outs else None
                d = deps[fn] - 1
                deps[fn] = d
                if d == 0 and type(fn) is _ACC and not fn._hooked:   # Note [leaves at once]
                    if fn in buffers:
                        _add_input(buffers, fn, nr, g)
                        g = buffers.pop(fn)
                    else:
                        g = [g]
                    if leaves is None:
                        leaves = [fn, g]
                    else:
                        leaves += (fn, g)
                    continue
                if (d == 0 and nxt is None and not heap and nr == 0 and not fn._n_outputs
                        and fn not in buffers):
                    # its one gradient, and the one ready node: straight on, no buffer
                    nxt = fn
                    nxt_ins = [g]
                    continue
                _add_input(buffers, fn, nr, g)
                if d == 0:  # ready (Note [chain fast path])
                    if nxt is None and not heap:
                        nxt = fn
                        continue
                    if nxt is not None:
                        if nxt_ins is not None:
                            buffers[nxt] = nxt_ins
                            nxt_ins = None
                        heappush(heap, (-nxt._seq_nr, counter, nxt))
                        counter += 1
                        nxt = None
                    heappush(heap, (-fn._seq_nr, counter, fn))
                    counter += 1
            # drop our references to the handed-on gradients (AccumulateGrad may steal)
            outs = g = None
            if leaves is not None:
                for j in range(0, len(leaves), 2):
                    g = leaves[j + 1]
                    leaves[j + 1] = None
                    leaves[j].apply_arrays(g)
                g = leaves = None
            if nxt is not None:
                node = nxt
                ins = buffers.pop(node) if nxt_ins is None else nxt_ins
                nxt_ins = None
            elif heap:
                node = heappop(heap)[2]
                ins = buffers.pop(node)
            else:
                return
        # -- run it
        if node._hooked:
            outs = hooked(node, ins)
        else:
            outs = node._lean_apply(ins)   # Note [lean apply] (apply_lean.py)
            if outs is not None:
                ins = None
                if not keep_graph and node._releasable:   # FnNode.release_variables
                    if node.OP.kept:   # Note [what a freed node keeps] (nodes.py)
                        _keep(node)
                    node._sdict = node._sv = None   # (_saved = None, in line)
            else:
                outs = node.apply_arrays(ins)
        if ins is not None:
            ins = None
            if not keep_graph:
                node.release_variables()
