"""The plain backward loop's run along a chain (Note [chain run]).

Note [chain run]
A speed trick, fenced off here; read ``run_backward``'s loop (engine.py) for the
algorithm. Most nodes of a program of small ops hand their one gradient to a node that
nothing else feeds, while the ready queue is empty (Note [chain fast path], engine.py):
that node is the next one the queue would give, and it needs no input buffer. Along
such a run, ``run_chain`` does what the plain loop does for each node — run its step,
release its saved values, count its successor's dependency down — without the loop's
lists: the gradient goes from one step to the next as a bare array. A node qualifies
when its class has a ``_chain_step`` (the table rows of Note [lean apply],
apply_lean.py, which compute exactly what ``FnNode.apply_arrays`` computes), it has no
hooks (a node with hooks has its own ``_chain_step``, None: ``Node._mark_hooked``), and
its first edge is the only one with a node: input 0 of a node with one
output, counted once in ``deps`` (or fed by this node alone: Note [dependencies counted
late], engine_plain.py), not waiting in ``buffers``. Anything else — a step
that answers None (a saved value modified in place must raise, from the general step),
a node with hooks, a branch — ends the run, and the loop takes that node as always.
The order of the nodes is the queue's; ``tests/autograd/test_lean_apply.py`` runs
programs with and without (``set_lean_apply(False)``) and compares. A node that holds
folded rows (Note [folded chains], fold.py) has a twin class whose ``_chain_step`` is
None, so the one read above sends it aside: it runs with its own class's step, and then
its rows, each fed by the one above it alone (Note [a pack's run]).

Note [inline steps]
A speed trick inside the one above. Most nodes of a chain take a step's commonest case:
a saved result, unmodified (``y.tanh()``: its kernel on it), the cached operand of a
Python number (``y * 1.01``: one ufunc), or nothing saved and nothing to do
(``y - 1.65``: the gradient itself). Each such step says so once, as its class's
``_chain_inline`` (kind, kernel, marker, its row's ``OP.kept``, the step itself:
apply_lean.py), read first and alone, and the run does that case itself, without
calling the step; in every other case (a dict of saved values, a modified or released
value, a device array, a 0-d answer) it calls the step, which decides as before. A node
with hooks and a holder of folded rows have it None (``Node._mark_hooked``, fold.py's
twin classes), as their ``_chain_step``. tests/autograd/test_lean_apply.py checks that
the run takes them and that they give the steps' gradients bit for bit.

Note [a node fed twice]
A run goes on through a node whose two edges both lead to input 0 of one node: ``y *
y``, ``y + y``, ``y - y``, both operands the same tensor. That node is still fed by
this one alone (twice: its dependency count is 2, or it is not counted yet, since every
node so far had one node among its edges), so it is ready once both gradients are in:
the node's loop step (``_lean_apply``: both_of_two, apply_lean.py) gives them, and they
are summed as the loop's input buffer sums them (``old + new``, edge 0's first:
graph.py's ``_add_input``). A step that answers None ends the run, as above.
"""
from __future__ import annotations

from .. import backend as B
from .fold import _raw_get as _raw_edges, holder_step, run_pack
from .graph import _InNode as _IN
from .nodes import keep_attributes as _keep

__all__ = ["run_chain"]

_HOST = B.HOST_ARRAY


def run_chain(node, g, deps, buffers, keep_graph):
    """Run ``node`` (ready, with its one gradient ``g``) and the nodes after it while each
    hands its gradient on to a node that nothing else feeds (Note [chain run]); returns
    the node to run next and its gradient, for the loop. ``deps`` None: the loop has not
    counted dependencies yet, and every node so far had one edge (Note [dependencies
    counted late], engine_plain.py), so the node after it is fed by it alone."""
    while g is not None:
        how = node._chain_inline   # Note [inline steps] (None with hooks, and on a holder)
        step = node._chain_step if how is None else how[4]
        twice = False
        if step is None:   # (a node with hooks: Node._mark_hooked; or a holder of folded
            # rows, which runs them: Note [a pack's run], fold.py)
            if not node._holds or node._hooked or deps is not None:
                break
            step = holder_step(node)
            if step is None:
                break
            fn = None
        else:
            edges = node.next_functions
            fn, nr = edges[0]
            if fn is None or nr or fn._n_outputs:
                break
            if len(edges) != 1:
                if len(edges) != 2:
                    break
                e = edges[1]
                if e[0] is not None:
                    if e[0] is not fn or e[1]:
                        break
                    twice = True   # Note [a node fed twice]
            if deps is not None and (deps[fn] != 1 + twice or (buffers and fn in buffers)):
                break
        r = None
        if twice:   # Note [a node fed twice]: both gradients, summed as the buffer sums
            outs = node._lean_apply([g])
            if outs is None:
                break
            r, r1 = outs
            r = r + r1
            r1 = outs = None
        elif how is not None and type(g) is _HOST:   # Note [inline steps]
            kind = how[0]
            if kind == 1:   # one_result: its kernel on the saved result, unmodified
                if type(node._sdict) is _IN and node._svc.version == 0:
                    r = how[1](g, node._sv)
                    if type(r) is not _HOST:
                        r = None   # (a 0-d answer: the step makes it an array)
            elif kind == 2:   # first_of_two: its ufunc on the cached number operand
                if node._sdict is how[2]:
                    r = how[1](g, node._sarg)
                    if type(r) is not _HOST:
                        r = None
            elif (node._sdict is how[2] and node._shapes is None
                  and node._dtypes is None):   # first_of_two: nothing saved, nothing to do
                r = g
        if r is None:
            r = step(node, g)   # (a staticmethod: no bound method made per node)
            if r is None:
                break
        if not keep_graph and node._releasable:   # FnNode.release_variables
            # (its row's OP.kept: Note [what a freed node keeps], nodes.py)
            if how[3] if how is not None else node.OP.kept:
                _keep(node)
            node._sdict = node._sv = None   # (the _saved property's setter, in line)
        if fn is None:   # a holder: its rows next
            if node._holds:
                node, g = run_pack(node, _raw_edges(node), r, keep_graph)
            else:   # (its step read its edges: its newest row is a node now, unique)
                node = node.next_functions[0][0]
                g = r
            continue
        if deps is not None:
            deps[fn] = 0
        node = fn
        g = r
    return node, g
