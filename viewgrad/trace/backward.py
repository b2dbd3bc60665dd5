"""Backward, step by step: a faithful recording of every moment of the engine.

While a Tracer is active, ``state.backward_observer`` receives the engine's ``start(root,
deps)``, ``summarize(grads, node)`` just before a node runs, ``node(node, inputs, outputs,
heap, deps, buffers)`` after it ran and handed its gradients on, and ``end()``
(autograd/engine.py). A ``BackwardTrace`` keeps, as plain data:

  graph      a GraphSnapshot of the graph from the GraphRoot, taken at start
  deps0      the dependency count of every node (how many edges point at it)
  steps      one ``BackwardStep`` per executed node: the node, the gradients that came in
             and went out, what it wrote into the input buffers of its next nodes (the
             running sums, as the engine holds them), the dependency counts it lowered (and
             which of them became ready), the ready queue after it (in the order the engine
             pops it: highest sequence_nr first) and, for AccumulateGrad, what it did with
             the gradient (stole / copied / accumulated in place / out of place — the
             layout contract, autograd/accumulate.py) with the strides involved.
  error      when the pass FAILED: the node that raised (``failed``), the message, and for
             a version error the tracer event that modified the saved tensor (``blame``).

``bt.at(k)`` is the MOMENT before step k runs (``Moment``): the node about to run, every
input buffer as it is then (partial sums visible), the ready queue in order and the
dependency counts so far — rebuilt from the steps, exactly what the engine holds then.
``bt.at(len(bt.steps))`` is the end (or the failure). Moments draw themselves (SVG,
terminal) through the display registry.

Why a topological order? A node runs only when its count reaches zero, i.e. when EVERY
edge into it has delivered its gradient: with ``a = x * 2; b = a + a; c = b + b`` the node
of ``a`` runs once, with the sum of both gradients, instead of once per path (depth first).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

from .. import backend as B
from .display import Displayable
from .registry import IDS
from .snapshot import build, node_label, preview

__all__ = ["GradInfo", "BackwardStep", "BackwardTrace", "Moment", "Recorder"]


@dataclass(frozen=True)
class GradInfo:
    shape: tuple | None           # None: no gradient (undefined)
    dtype: str | None = None
    values: str | None = None     # for small gradients, printed as torch prints them
    stride: tuple | None = None

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
    ready: tuple                  # ((node id, name), ...): the ready queue after this step
    lowered: tuple                # ((node id, name, count left), ...) on next nodes
    accumulate: str | None = None     # AccumulateGrad's action
    variable: str | None = None       # AccumulateGrad's leaf label
    delivered: tuple = ()         # ((node id, input nr, GradInfo of the buffer now), ...)
    strides: str | None = None        # AccumulateGrad: "grad stride (1, 3), param (1, 3)"

    @property
    def released(self):
        """Next nodes that became ready because of this step."""
        return tuple((i, n) for i, n, left in self.lowered if left == 0)


@dataclass(frozen=True)
class BackwardError:
    node: str                     # id of the node that raised
    name: str
    message: str
    kind: str                     # the exception's class name
    blame: int | None = None      # index of the tracer event that modified a saved tensor


@dataclass(frozen=True)
class BackwardTrace(Displayable):
    _display_kind = "backward"
    index: int
    graph: object                 # GraphSnapshot from the GraphRoot
    deps0: tuple                  # ((node id, count), ...)
    steps: tuple
    source: tuple | None = None
    error: BackwardError | None = None

    @property
    def order(self) -> list:
        return [s.name for s in self.steps]

    @property
    def failed(self) -> str | None:
        """Id of the node whose backward raised, or None."""
        return self.error.node if self.error is not None else None

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

    def __len__(self):
        """Moments: one before each step, plus the end (or the failure)."""
        return len(self.steps) + 1

    def at(self, k: int) -> "Moment":
        """The engine just before step ``k`` runs (``k == len(steps)``: the end)."""
        n = len(self.steps)
        if k < 0:
            k += n + 1
        if not 0 <= k <= n:
            raise IndexError(f"backward #{self.index} has moments 0 to {n} "
                             f"({n} steps ran{', then it failed' if self.error else ''})")
        return Moment(self, k)

    def moments(self):
        return [Moment(self, k) for k in range(len(self.steps) + 1)]

    def summary(self) -> str:
        s = (f"backward #{self.index}: {len(self.steps)} nodes ran: "
             + " → ".join(self.order))
        if self.error is not None:
            s += f" → {self.error.name} FAILED"
        return s


class Moment(Displayable):
    """The engine's state just before step ``k`` of a backward pass (plain data).

    ``node``/``name``: about to run (None at the end); ``failing``: this node raises;
    ``buffers``: {node id: (GradInfo per input, or None)} — the input buffers the engine
    holds, partial sums included; ``queue``: the ready queue in pop order (the node about
    to run first); ``counts``: {node id: dependencies still missing}; ``done``: ids of
    the nodes that ran; ``step``: the BackwardStep about to happen (what it will do)."""

    __slots__ = ("trace", "k", "node", "name", "buffers", "queue", "counts", "done",
                 "step", "failing")
    _display_kind = "moment"

    def __init__(self, bt, k):
        self.trace = bt
        self.k = k
        steps = bt.steps
        self.step = steps[k] if k < len(steps) else None
        buffers, counts, done = {}, dict(bt.deps0), []
        root = next((n.id for n in bt.graph.nodes if n.kind == "root"), None)
        for st in steps[:k]:
            buffers.pop(st.node, None)
            done.append(st.node)
            for nid, nr, g in st.delivered:
                slots = buffers.setdefault(nid, [])
                if nr >= len(slots):
                    slots.extend([None] * (nr + 1 - len(slots)))
                slots[nr] = g
            for nid, _name, left in st.lowered:
                counts[nid] = left
        if self.step is not None:
            self.node, self.name = self.step.node, self.step.name
            buffers[self.node] = list(self.step.inputs)      # what it is about to get
            prev = steps[k - 1].ready if k > 0 else ()
            self.queue = prev if k > 0 else ((root, "GraphRoot"),) if root else ()
        elif bt.error is not None and k == len(steps):
            self.node, self.name = bt.error.node, bt.error.name
            self.queue = steps[k - 1].ready if k > 0 else ()
        else:
            self.node = self.name = None
            self.queue = ()
        self.failing = bt.error is not None and k == len(steps)
        self.buffers = {nid: tuple(v) for nid, v in buffers.items()}
        self.counts = counts
        self.done = tuple(done)

    def title(self) -> str:
        bt = self.trace
        if self.failing:
            return f"backward #{bt.index}: {self.name} FAILED"
        if self.node is None:
            return f"backward #{bt.index}: done ({len(bt.steps)} nodes ran)"
        return (f"backward #{bt.index}, step {self.k + 1} of {len(bt.steps)}: "
                f"{self.name} runs")

    def __repr__(self):
        return f"<Moment {self.title()}>"


# ---------------------------------------------------------------------------------------
# recording
# ---------------------------------------------------------------------------------------

def _grad_info(g):
    if g is None:
        return GradInfo(None)
    if isinstance(g, GradInfo):  # already summarised (the engine does it before apply)
        return g
    try:
        d = g._data
        return GradInfo(tuple(int(s) for s in d.shape), B.dtype_name(d.dtype), preview(g),
                        tuple(int(s) for s in g.stride()))
    except AttributeError:
        return GradInfo(None)


class _Pass:
    __slots__ = ("root", "graph", "deps0", "steps", "labeler", "source", "running")


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
        p.running = None
        self.current = p

    def begin(self, node):
        """The engine is about to run ``node`` (if it raises, this is the culprit)."""
        if self.current is not None:
            self.current.running = node

    def node(self, node, ins, outs, heap, deps, buffers=None):
        p = self.current
        if p is None:
            return
        p.running = None
        nid = IDS.node
        ready = tuple((nid(n), node_label(n)) for _prio, _c, n in sorted(heap))
        lowered, delivered, seen = [], [], set()
        for e in node.next_functions:
            if e is None or e[0] is None:
                continue
            fn, nr = e[0], int(e[1])
            if fn not in seen:
                seen.add(fn)
                lowered.append((nid(fn), node_label(fn), int(deps.get(fn, 0))))
            buf = buffers.get(fn) if buffers is not None else None
            if buf is not None and nr < len(buf) and (fn, nr) not in seen:
                seen.add((fn, nr))
                delivered.append((nid(fn), nr, _grad_info(buf[nr])))
        acc = strides = var = None
        if node_label(node) == "AccumulateGrad":
            acc = getattr(node, "last_action", None)
            v = node.variable
            var = p.labeler(v)
            if v._grad is not None:
                g_in = ins[0] if ins else None
                came = getattr(g_in, "stride", None)
                strides = (f"grad in stride {came}, " if came is not None else "") + \
                    f"{var}.grad stride {tuple(v._grad.stride())}, " \
                    f"param stride {tuple(v.stride())}"
        p.steps.append(BackwardStep(
            index=len(p.steps), node=nid(node), name=node_label(node),
            inputs=tuple(_grad_info(g) for g in (ins or ())),
            outputs=tuple(_grad_info(g) for g in (outs or ())), ready=ready,
            lowered=tuple(lowered), accumulate=acc, variable=var,
            delivered=tuple(delivered), strides=strides))

    def end(self):
        p = self.current
        self.current = None
        if p is None:
            return
        error = None
        if p.running is not None:
            # The engine left its loop while a node was running: that node raised (we are
            # called from the engine's ``finally``, so the exception is in flight).
            exc = sys.exc_info()[1]
            node = p.running
            msg = f"{type(exc).__name__}: {exc}" if exc is not None else "it raised"
            error = BackwardError(IDS.node(node), node_label(node), msg,
                                  type(exc).__name__ if exc is not None else "Exception",
                                  _blame(self.tracer, p.graph, IDS.node(node), str(exc)))
        tr = self.tracer
        n = getattr(tr, "dropped_backwards", 0) + len(tr.backwards)
        bt = BackwardTrace(n, p.graph, p.deps0, tuple(p.steps), p.source, error)
        tr.order.append(("backward", n))
        tr.backwards.append(bt)
        if hasattr(tr, "_trim"):
            tr._trim()


def _blame(tracer, graph, node_id, message):
    """Index of the event that modified a saved tensor of ``node_id`` (its version moved
    from the saved version to the next one), or None."""
    if "modified by an inplace operation" not in message or not graph.has_node(node_id):
        return None
    n = graph.node(node_id)
    saved = [s for s in n.saved if s.moved]
    if n.wrapped and graph.has_node(n.wrapped):
        saved += [s for s in graph.node(n.wrapped).saved if s.moved]
    for ev in reversed(tracer.events):
        before = {t.id: t for t in ev.before.tensors}
        for t in ev.after.tensors:
            b = before.get(t.id)
            if b is None:
                continue
            for s in saved:
                same = s.tensor is None or s.tensor in (t.id, t.base) or \
                    (ev.after.has_tensor(s.tensor) and ev.after.tensor(s.tensor).base
                     in (t.id, t.base))
                if same and b.version == s.saved_version and t.version == s.saved_version + 1:
                    return ev.index
    return None


def grad_infos(grads):
    """Summaries (shape, dtype, small values) of gradients, keeping no reference to them:
    the engine takes these BEFORE a node runs, so AccumulateGrad can still steal."""
    return tuple(_grad_info(g) for g in grads)
