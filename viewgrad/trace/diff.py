"""diff(before, after): what an in-place op changed in the graph.

Nodes are matched by their stable ids (the same live Node has the same id in both
snapshots), tensors likewise. The diff lists

  added_nodes    nodes in ``after`` only (the op's node; CopySlices and its wrapped fn; a
                 view's rebuilt grad_fn);
  removed_nodes  nodes no longer reachable from these tensors;
  moved          tensors whose grad_fn pointer changed (``Moved``: label, old → new);
  stale          views that went stale: their grad_fn still points at the old history and
                 will be regenerated the next time it is read;
  versions       tensors whose version counter moved ((label, old, new));
  broken         saved tensors that this op made out of date: a backward through their
                 node will raise "modified by an inplace operation".
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Diff", "Moved", "diff"]


@dataclass(frozen=True)
class Moved:
    tensor: str               # label
    tensor_id: str
    before: str | None        # node id
    before_name: str | None
    after: str | None
    after_name: str | None

    def text(self) -> str:
        def one(name, nid):
            return "None" if nid is None else name
        return (f"{self.tensor}.grad_fn: {one(self.before_name, self.before)} → "
                f"{one(self.after_name, self.after)}")


@dataclass(frozen=True)
class Diff:
    added_nodes: tuple
    removed_nodes: tuple
    moved: tuple
    stale: tuple
    versions: tuple
    broken: tuple             # ((node id, node name, SavedInfo), ...)

    @property
    def empty(self) -> bool:
        return not (self.added_nodes or self.removed_nodes or self.moved or self.stale)

    def summary(self) -> str:
        lines = []
        if self.added_nodes:
            lines.append("added: " + ", ".join(_nodes_text(self.added_nodes)))
        if self.removed_nodes:
            lines.append("no longer reachable: " + ", ".join(_nodes_text(self.removed_nodes)))
        for m in self.moved:
            lines.append("moved: " + m.text())
        for t in self.stale:
            lines.append(f"stale: {t.label} (a view of {t.base_label}): its grad_fn is "
                         "regenerated when next read")
        for label, a, b in self.versions:
            lines.append(f"version: {label} @v{a} → @v{b}")
        for _nid, name, s in self.broken:
            lines.append(f"out of date: {name} {s.text()} — backward through {name} will "
                         "raise 'modified by an inplace operation'")
        return "\n".join(lines) if lines else "no change to the graph"

    def __str__(self):
        return self.summary()


def _nodes_text(nodes):
    return [f"{n.name}" + (" (inside CopySlices)" if n.kind == "wrapped" else "")
            for n in nodes]


def diff(before, after) -> Diff:
    """Compare two GraphSnapshots (usually an event's ``before`` and ``after``)."""
    b_nodes = {n.id: n for n in before.nodes}
    a_nodes = {n.id: n for n in after.nodes}
    added = tuple(n for n in after.nodes if n.id not in b_nodes)
    removed = tuple(n for n in before.nodes if n.id not in a_nodes)
    b_t = {t.id: t for t in before.tensors}
    moved, stale, versions = [], [], []
    for t in after.tensors:
        bt = b_t.get(t.id)
        if bt is None:
            continue
        if bt.grad_fn != t.grad_fn:
            moved.append(Moved(t.label, t.id, bt.grad_fn, _name(b_nodes, bt.grad_fn),
                               t.grad_fn, _name(a_nodes, t.grad_fn)))
        if t.stale and not bt.stale:
            stale.append(t)
        if t.version != bt.version:
            versions.append((t.label, bt.version, t.version))
    broken = []
    for n in after.nodes:
        bn = b_nodes.get(n.id)
        for s in n.saved:
            if not s.moved:
                continue
            was = None
            if bn is not None:
                was = next((x for x in bn.saved if x.name == s.name), None)
            if was is None or not was.moved:
                broken.append((n.id, n.name, s))
    return Diff(added, removed, tuple(moved), tuple(stale), tuple(versions), tuple(broken))


def _name(nodes, nid):
    if nid is None:
        return None
    n = nodes.get(nid)
    return n.name if n is not None else nid
