"""Big graphs made readable: long chains collapsed, wide fans grouped.

A 200-op loop is a chain of 200 same-named nodes; a ``stack`` of 200 tensors is one node
with 200 edges. Drawn in full, the first is a picture kilometres tall, the second one
7,641 points wide. So, after ``common.neighbourhood`` chose what to show:

* a FAN: a node with more than ``FAN_MAX`` edges keeps its first ``FAN_KEEP``; the others
  become one box "… 194 more inputs: 120 × MulBackward0, 74 × AccumulateGrad", and what
  only they lead to is not drawn;
* a CHAIN: more than ``CHAIN_MAX`` nodes of the same name, each with one edge in and one
  out, keeps ``CHAIN_KEEP`` at each end; the middle becomes one box
  "… 180 more AddBackward0 …" (the HTML report offers the uncollapsed picture too).

``fold(snap, shown)`` returns a ``Folded``: the node ids still shown, the fans and the
chains; renderers draw the boxes. Iterative throughout (graphs can be deep).
"""
from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

__all__ = ["fold", "Folded", "Fan", "Chain", "CHAIN_MAX", "FAN_MAX"]

CHAIN_MAX = 8
CHAIN_KEEP = 2
FAN_MAX = 12
FAN_KEEP = 6


@dataclass(frozen=True)
class Fan:
    node: str                 # the node whose edges were grouped
    count: int                # edges grouped
    names: tuple              # ((name, count), ...) most common first
    dsts: tuple = ()          # the grouped nodes' ids

    def text(self) -> str:
        kinds = ", ".join(f"{k} × {n}" for n, k in self.names[:3])
        more = ", …" if len(self.names) > 3 else ""
        return f"… {self.count} more inputs: {kinds}{more}"


@dataclass(frozen=True)
class Chain:
    first: str                # last node kept before the collapsed run
    last: str                 # first node kept after it
    hidden: tuple             # the collapsed node ids, in order
    name: str

    def text(self) -> str:
        return f"… {len(self.hidden)} more {self.name} …"


@dataclass
class Folded:
    shown: set
    fans: list = field(default_factory=list)
    chains: list = field(default_factory=list)

    @property
    def hidden(self) -> set:
        return {h for c in self.chains for h in c.hidden}

    @property
    def boxed(self) -> set:
        """Nodes a chain or fan box stands for."""
        return self.hidden | {d for f in self.fans for d in f.dsts}


def fold(snap, shown, keep=(), chains=True, fans=True) -> Folded:
    """Group the fans and collapse the chains among ``shown`` (node ids of ``snap``);
    ``keep``: ids never folded away (what an op added)."""
    keep = set(keep)
    out = Folded(set(shown))
    if fans:
        _group_fans(snap, out, keep)
    if chains:
        _collapse_chains(snap, out, keep)
    return out


def _group_fans(snap, out, keep):
    grouped = set()            # (src, index) edges drawn as part of a fan box
    for nid in list(out.shown):
        edges = [e for e in snap.out_edges(nid) if e.dst in out.shown]
        if len(edges) <= FAN_MAX:
            continue
        rest = [e for e in edges[FAN_KEEP:] if e.dst not in keep]
        if not rest:
            continue
        grouped.update((nid, e.index) for e in rest)
        names = Counter(snap.node(e.dst).name for e in rest)
        out.fans.append(Fan(nid, len(rest), tuple(names.most_common()),
                            tuple(e.dst for e in rest)))
    if not grouped:
        return
    # what stays: reachable from the tensors (and roots, and kept nodes) without a grouped
    # edge; everything else was only there because of a fan
    start = set(keep)
    for t in snap.tensors:
        start.update(x for x in (t.grad_fn, t.accumulator) if x is not None)
    start.update(n.id for n in snap.nodes if n.kind == "root")
    reach = set()
    queue = deque(x for x in start if x in out.shown)
    reach.update(queue)
    while queue:
        nid = queue.popleft()
        for e in snap.out_edges(nid):
            if e.dst in out.shown and e.dst not in reach and (nid, e.index) not in grouped:
                reach.add(e.dst)
                queue.append(e.dst)
    out.shown = reach


def _collapse_chains(snap, out, keep):
    shown = out.shown
    indeg = Counter()
    for t in snap.tensors:
        for x in (t.grad_fn, t.accumulator):
            if x in shown:
                indeg[x] += 2          # a tensor points here: never the middle of a chain
    succ = {}
    for nid in shown:
        dsts = [e.dst for e in snap.out_edges(nid) if e.dst in shown]
        succ[nid] = dsts
        for d in dsts:
            indeg[d] += 1
    fan_nodes = {f.node for f in out.fans}

    def link(nid):
        """The one successor when ``nid`` can sit inside a chain, else None."""
        d = succ.get(nid, ())
        return d[0] if len(d) == 1 and nid not in fan_nodes else None

    seen = set()
    for nid in sorted(shown, key=lambda x: snap.node(x).seq, reverse=True):
        if nid in seen:
            continue
        name = snap.node(nid).name
        run = [nid]
        seen.add(nid)
        cur = nid
        while True:
            nxt = link(cur)
            if nxt is None or nxt in seen or indeg[nxt] != 1 or nxt in keep \
                    or snap.node(nxt).name != name:
                break
            run.append(nxt)
            seen.add(nxt)
            cur = nxt
        middle = run[CHAIN_KEEP:len(run) - CHAIN_KEEP]
        if len(run) > CHAIN_MAX and middle:
            out.chains.append(Chain(run[CHAIN_KEEP - 1], run[len(run) - CHAIN_KEEP],
                                    tuple(middle), name))
    hidden = out.hidden
    out.shown = {n for n in shown if n not in hidden}
