"""What the renderers share: turning "something to draw" into snapshots, and choosing the
part of a big graph to show.

``as_drawable(obj)`` accepts an InplaceEvent, a GraphSnapshot, a Tensor or a list of
Tensors (snapshotted on the spot), a backward pass or one moment of it (``bt.at(k)``), and
returns ``(kind, payload)``.

``parallel_edges(outs)``: ``torch.stack([x] * 20000)`` gives one node 20,000 edges to the
same node; drawn one by one they took minutes (and a hostile trace file can hold them).
Up to ``PARALLEL_SHOWN`` edges between the same two nodes are drawn one by one (``x * x``
shows both inputs); more become one edge labelled with their indices and count.

``neighbourhood(snap, max_nodes)``: a real training step has hundreds of nodes; a picture
of all of them is unreadable. Keep the nodes nearest the snapshot's tensors (breadth first
from their grad_fns, iteratively) up to ``max_nodes``; the rest are counted so the picture
can say "N more nodes". A CopySlices' wrapped fn is drawn inside it and never counts.
"""
from __future__ import annotations

from collections import deque

__all__ = ["as_drawable", "neighbourhood", "parallel_edges", "DEFAULT_MAX_NODES"]

DEFAULT_MAX_NODES = 60
PARALLEL_SHOWN = 8       # parallel edges drawn one by one; more are drawn as one


def parallel_edges(outs) -> list:
    """``[(edge, label)]`` for a node's out-edges in order: ``label`` is None for an edge
    drawn on its own, or "[0..19999] ×20000" for the first of more than PARALLEL_SHOWN
    edges to the same node, which stands for all of them (the others are left out)."""
    groups = {}
    for e in outs:
        groups.setdefault(e.dst, []).append(e)
    out = []
    for e in outs:
        group = groups[e.dst]
        if len(group) <= PARALLEL_SHOWN:
            out.append((e, None))
        elif e is group[0]:
            idx = [g.index for g in group]
            lo, hi = min(idx), max(idx)
            span = f"{lo}..{hi}" if hi - lo + 1 == len(idx) else f"{idx[0]}, {idx[1]}, …"
            out.append((e, f"[{span}] ×{len(group):,}"))
    return out


def as_drawable(obj, namespace=None, params=None):
    from ..tensor import Tensor
    from ..trace.snapshot import GraphSnapshot
    from ..trace.tracer import InplaceEvent, snapshot
    from ..trace.backward import BackwardTrace, Moment
    if isinstance(obj, InplaceEvent):
        return "event", obj
    if isinstance(obj, Moment):
        return "moment", obj
    if isinstance(obj, BackwardTrace):
        # the whole pass: its last moment (everything ran), or where it failed
        return "moment", obj.at(len(obj.steps))
    if isinstance(obj, GraphSnapshot):
        return "snapshot", obj
    if isinstance(obj, Tensor) or (isinstance(obj, (list, tuple)) and obj
                                   and all(isinstance(t, Tensor) for t in obj)):
        return "snapshot", snapshot(obj, namespace=namespace or {}, params=params)
    raise TypeError(
        f"cannot draw a {type(obj).__name__}: pass a Tensor, a list of Tensors, a "
        "GraphSnapshot (viewgrad.trace.snapshot(...)), an InplaceEvent (tracer.events[i]), "
        "a BackwardTrace (tracer.backwards[j]) or one moment of it (.at(k))")


def neighbourhood(snap, max_nodes=DEFAULT_MAX_NODES, keep=()):
    """(ids of the nodes to show, {id: edges cut there}, number of nodes not shown).

    ``keep``: node ids always shown (e.g. what an op added). ``max_nodes=None``: all."""
    drawable = [n for n in snap.nodes if n.kind != "wrapped"]
    if max_nodes is None or len(drawable) <= max_nodes:
        return {n.id for n in drawable}, {n.id: n.more for n in drawable if n.more}, \
            snap.omitted
    shown = set()
    queue = deque()
    for nid in keep:      # at most max_nodes of them (a hostile trace file can mark more)
        if len(shown) < max_nodes and snap.has_node(nid) \
                and snap.node(nid).kind != "wrapped" and nid not in shown:
            shown.add(nid)
            queue.append(nid)
    for t in snap.tensors:
        for nid in (t.grad_fn, t.accumulator):
            if len(shown) < max_nodes and nid is not None and snap.has_node(nid) \
                    and nid not in shown:
                shown.add(nid)
                queue.append(nid)
    while queue and len(shown) < max_nodes:
        nid = queue.popleft()
        for e in snap.out_edges(nid):
            if e.dst not in shown and len(shown) < max_nodes:
                shown.add(e.dst)
                queue.append(e.dst)
    cut = {}
    for nid in shown:
        k = snap.node(nid).more
        for e in snap.out_edges(nid):
            if e.dst not in shown:
                k += 1
        if k:
            cut[nid] = k
    hidden = len(drawable) - len(shown) + snap.omitted
    return shown, cut, hidden
