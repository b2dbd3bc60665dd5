"""Backward, step by step: what the engine did, one executed node at a time.

While a Tracer is active, ``state.backward_observer`` receives the engine's ``start(root, deps)``,
``node(node, inputs, outputs, heap, deps)`` after each node runs, and ``end()``
(autograd/engine.py). A ``BackwardTrace`` keeps, as plain data:

  graph      a GraphSnapshot of the graph from the GraphRoot, taken at start
  deps0      the dependency count of every node (how many edges point at it)
  steps      one ``BackwardStep`` per executed node: the node, the gradients that came in
             and went out (shapes; values when small), the ready queue while it ran (in
             the order the engine will pop it: highest sequence_nr first), the dependency
             counts it lowered on its next nodes (and which of them became ready), and for
             AccumulateGrad what it did with the gradient (stole / copied / accumulated in
             place / out of place — the layout contract, autograd/accumulate.py).

Why a topological order? A node runs only when its count reaches zero, i.e. when EVERY
edge into it has delivered its gradient: with ``a = x * 2; b = a + a; c = b + b`` the node
of ``a`` runs once, with the sum of both gradients, instead of once per path (depth first).
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import backend as B
from .registry import IDS
from .snapshot import build

__all__ = ["GradInfo", "BackwardStep", "BackwardTrace", "Recorder"]


@dataclass(frozen=True)
class GradInfo:
    shape: tuple | None           # None: no gradient (undefined)
    dtype: str | None = None
    values: str | None = None     # for small gradients

    def text(self) -> str:
        if self.shape is None:
            return "None"
        if self.values is not None:
            return self.values
        return f"{self.dtype}{list(self.shape)}"


@dataclass(frozen=True)
class BackwardStep:
    index: int
    node: str                     # node id
    name: str
    inputs: tuple                 # GradInfo per output of the forward op (grads received)
    outputs: tuple                # GradInfo per edge (grads sent)
    ready: tuple                  # ((node id, name), ...) waiting in the ready queue
    lowered: tuple                # ((node id, name, count left), ...) on next nodes
    accumulate: str | None = None     # AccumulateGrad's action
    variable: str | None = None       # AccumulateGrad's leaf label

    @property
    def released(self):
        """Next nodes that became ready because of this step."""
        return tuple((i, n) for i, n, left in self.lowered if left == 0)


@dataclass(frozen=True)
class BackwardTrace:
    index: int
    graph: object                 # GraphSnapshot from the GraphRoot
    deps0: tuple                  # ((node id, count), ...)
    steps: tuple
    source: tuple | None = None

    @property
    def order(self) -> list:
        return [s.name for s in self.steps]

    def naive_order(self, limit=10_000) -> list:
        """The order a naive depth-first backward would run nodes: once per PATH, so a node
        reached by two edges runs twice, each time with only part of its gradient (the
        contrast that shows why the engine counts dependencies). Iterative; at most
        ``limit`` visits."""
        g = self.graph
        roots = [n.id for n in g.nodes if n.kind == "root"]
        stack = list(reversed(roots))
        out = []
        while stack and len(out) < limit:
            nid = stack.pop()
            out.append(g.node(nid).name)
            stack.extend(e.dst for e in reversed(g.out_edges(nid)))
        return out

    def deps_of(self, node_id) -> int:
        return dict(self.deps0).get(node_id, 0)

    def summary(self) -> str:
        return (f"backward #{self.index}: {len(self.steps)} nodes ran: "
                + " → ".join(self.order))

    def _repr_svg_(self):
        from ..render.svg import render_source
        from ..render.dot import draw_backward_step
        return render_source(draw_backward_step(self, len(self.steps) - 1).source)

    def __rich__(self):
        from ..render.terminal import render_backward
        return render_backward(self)


def _grad_info(g):
    if g is None:
        return GradInfo(None)
    if isinstance(g, GradInfo):  # already summarised (the engine does it before apply)
        return g
    try:
        d = g._data
        vals = repr(d.tolist()) if d.size <= 6 else None
        return GradInfo(tuple(int(s) for s in d.shape), B.dtype_name(d.dtype), vals)
    except AttributeError:
        return GradInfo(None)


class _Pass:
    __slots__ = ("root", "graph", "deps0", "steps", "labeler", "source")


class Recorder:
    """Records the backward passes of one Tracer."""

    def __init__(self, tracer):
        self.tracer = tracer
        self.current = None

    def start(self, root, deps, labeler, source):
        p = _Pass()
        p.root = root
        p.labeler = labeler
        p.source = source
        p.graph = build([], labeler, self.tracer.max_nodes, start_nodes=(root,))
        p.deps0 = tuple((IDS.node(n), int(c)) for n, c in deps.items())
        p.steps = []
        self.current = p

    def node(self, node, ins, outs, heap, deps):
        p = self.current
        if p is None:
            return
        nid = IDS.node
        ready = tuple((nid(n), n.name()) for _prio, _c, n in sorted(heap))
        counts = {}
        for e in node.next_functions:
            if e[0] is not None:
                counts[e[0]] = counts.get(e[0], 0) + 1
        lowered = tuple((nid(fn), fn.name(), int(deps.get(fn, 0)) - k)
                        for fn, k in counts.items())
        acc = getattr(node, "last_action", None) if node.name() == "AccumulateGrad" else None
        var = p.labeler(node.variable) if acc is not None or node.name() == "AccumulateGrad" \
            else None
        p.steps.append(BackwardStep(
            index=len(p.steps), node=nid(node), name=node.name(),
            inputs=tuple(_grad_info(g) for g in (ins or ())),
            outputs=tuple(_grad_info(g) for g in (outs or ())), ready=ready,
            lowered=lowered, accumulate=acc, variable=var))

    def end(self):
        p = self.current
        self.current = None
        if p is None:
            return
        bt = BackwardTrace(len(self.tracer.backwards), p.graph, p.deps0, tuple(p.steps),
                           p.source)
        self.tracer.order.append(("backward", len(self.tracer.backwards)))
        self.tracer.backwards.append(bt)


def grad_infos(grads):
    """Summaries (shape, dtype, small values) of gradients, keeping no reference to them:
    the engine takes these BEFORE a node runs, so AccumulateGrad can still steal."""
    return tuple(_grad_info(g) for g in grads)
