"""Terminal pictures with rich: a tree per tensor, before | after side by side.

A graph is a DAG, a rich Tree is a tree: a node reached a second time (from another edge
or another tensor's tree) is shown once in full and afterwards as a back-reference
``↑ MulBackward0 #n5``. Trees are built with an explicit stack (graphs can be deep).

Marks (``render_event``): in "after", ``+`` and amber for what the op added; in "before",
``-`` and struck through for what is no longer reachable; a stale view's link says
``stale``; a saved tensor whose version moved is red with ``✗``.
"""
from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from ..trace.sanitize import LABEL_LIMIT, clean, rich_text
from .common import DEFAULT_MAX_NODES, as_drawable, neighbourhood


def _c(s) -> str:
    """Snapshot text made safe for the terminal (Note [Untrusted text]); always appended
    as plain text, never parsed as rich markup."""
    return clean(s, LABEL_LIMIT)

__all__ = ["render_snapshot", "render_event", "render", "show", "snapshot_trees"]


def _tensor_text(t, focus):
    s = Text()
    s.append(_c(t.label), style="bold green" if t.id == focus else "bold")
    s.append(_c(f"  {list(t.shape)} v{t.version}"), style="dim")
    if t.is_view:
        from ..trace.snapshot import chain_text
        s.append(_c(f"  view of {t.base_label}{chain_text(t.view_fns)}"), style="cyan")
    elif t.requires_grad and t.is_leaf:
        s.append("  leaf", style="cyan")
    if t.values is not None:
        s.append(_c(f"  {t.values}"), style="dim")
    return s


def _node_text(n, snap, mark):
    s = Text()
    if mark == "+":
        s.append("+ ", style="bold yellow")
    elif mark == "-":
        s.append("- ", style="bold red")
    style = {"+": "bold yellow", "-": "strike red"}.get(mark, "bold")
    s.append(_c(n.name), style=style)
    if n.kind == "copyslices" and n.wrapped and snap.has_node(n.wrapped):
        fn = snap.node(n.wrapped)
        s.append("(", style="dim")
        s.append(_c(f"fn={fn.name}"), style="magenta")
        s.append(")", style="dim")
        n_saved = fn.saved
    else:
        n_saved = n.saved
    s.append(_c(f" #{n.id}"), style="dim")
    if n.kind == "accumulate" and n.variable_label:
        s.append(_c(f" → {n.variable_label}.grad"), style="cyan")
    for sv in n_saved:
        s.append("  ")
        s.append(_c(sv.text()), style="bold red" if sv.moved else "dim")
    if n.geometry is not None:
        s.append(_c(f"  [{n.geometry.text()}]"), style="dim")
    if n.freed:
        s.append("  (freed)", style="dim")
    return s


def snapshot_trees(snap, max_nodes=DEFAULT_MAX_NODES, added=(), removed=(), tensors=None):
    """A list of rich Trees, one per tensor of ``snap`` (shared nodes back-referenced)."""
    shown, cut, hidden = neighbourhood(snap, max_nodes, added)
    seen = set()
    trees = []
    for t in snap.tensors:
        if tensors is not None and t.id not in tensors:
            continue
        root = Tree(_tensor_text(t, snap.focus), guide_style="dim")
        trees.append(root)
        start = t.grad_fn or t.accumulator
        if start is None:
            root.add(Text("grad_fn None", style="dim"))
            continue
        link = "stale grad_fn → " if t.stale else ("grad_fn → " if t.grad_fn else "")
        stack = [(root, start, link)]
        while stack:
            parent, nid, prefix = stack.pop()
            if not snap.has_node(nid) or nid not in shown:
                parent.add(Text(f"{prefix}⋯", style="dim"))
                continue
            n = snap.node(nid)
            mark = "+" if nid in added else ("-" if nid in removed else None)
            label = Text(prefix, style="yellow" if "stale" in prefix else "dim")
            if nid in seen:
                label.append(_c(f"↑ {n.name} #{nid}"), style="dim italic")
                parent.add(label)
                continue
            seen.add(nid)
            label.append_text(_node_text(n, snap, mark))
            child = parent.add(label)
            if cut.get(nid):
                child.add(Text(f"⋯ {cut[nid]} more edge(s) not shown", style="dim"))
            outs = snap.out_edges(nid)
            for e in reversed(outs):
                pre = _c(f"[{e.index}] ") if len(outs) > 1 else ""
                stack.append((child, e.dst, pre))
    if hidden:
        trees.append(Text(f"⋯ {hidden} more node{'s' if hidden != 1 else ''} not shown",
                          style="dim"))
    return trees


def render_snapshot(snap, max_nodes=DEFAULT_MAX_NODES, title="graph"):
    """A rich renderable (a Panel of trees) for a GraphSnapshot."""
    kind, snap = as_drawable(snap)
    if kind != "snapshot":
        return render_event(snap)
    return Panel(Group(*snapshot_trees(snap, max_nodes)), title=title, title_align="left",
                 border_style="blue")


def render_event(event, compact=False, max_nodes=DEFAULT_MAX_NODES):
    """before | after for one InplaceEvent, the diff marked; with ``compact`` only the
    mutated tensor and its base, and no diff/explanation text."""
    d = event.diff
    added = {n.id for n in d.added_nodes}
    removed = {n.id for n in d.removed_nodes}
    keep = None
    if compact:
        t = event.after.tensor(event.tensor_id)
        keep = {t.id} | ({t.base} if t.base else set())
    left = Panel(Group(*snapshot_trees(event.before, max_nodes, (), removed, keep)),
                 title="before", title_align="left", border_style="grey50")
    right = Panel(Group(*snapshot_trees(event.after, max_nodes, added, (), keep)),
                  title="after", title_align="left", border_style="yellow")
    grid = Table.grid(expand=True, padding=(0, 1))
    grid.add_column(ratio=1)
    grid.add_column(ratio=1)
    grid.add_row(left, right)
    head = Text()
    head.append(_c(f"#{event.index} "), style="dim")
    head.append(clean(event.summary(), 2000), style="bold")
    parts = [head]
    if event.source is not None and event.source[2] and not compact:
        parts.append(Text(clean(f"  {event.source[0]}:{event.source[1]}: {event.source[2]}",
                                2000), style="dim"))
    parts.append(grid)
    if not compact:
        parts.append(rich_text(d.summary(), "yellow", 20000))
        from ..trace.explain import explain
        parts.append(Panel(rich_text(explain(event), limit=20000), title="functionalized",
                           title_align="left", border_style="grey50"))
    return Group(*parts)


def render(obj, compact=False, max_nodes=DEFAULT_MAX_NODES):
    kind, x = as_drawable(obj)
    if kind == "event":
        return render_event(x, compact=compact, max_nodes=max_nodes)
    return render_snapshot(x, max_nodes=max_nodes)


def show(obj, console=None, compact=False):
    (console or Console()).print(render(obj, compact=compact))


def render_backward(bt, upto=None):
    """A backward pass as a table: one row per executed node, in the order it ran, with the
    gradients in and out, the ready queue, and the counts it lowered."""
    t = Table(title=rich_text(bt.summary() if upto is None
                              else f"backward #{bt.index}, step {upto}", limit=2000),
              title_justify="left", show_lines=False, header_style="bold")
    t.add_column("#", justify="right", style="dim")
    t.add_column("node ran")
    t.add_column("grad in")
    t.add_column("grads out")
    t.add_column("lowered counts (→ ready)")
    t.add_column("ready queue while it ran", style="dim")
    steps = bt.steps if upto is None else bt.steps[:upto + 1]
    for s in steps:
        name = Text(_c(f"{s.name} #{s.node}"),
                    style="bold yellow" if upto == s.index else "bold")
        if s.accumulate:
            name.append("\n" + _c(f"{s.variable}.grad: {s.accumulate}"), style="cyan")
        low = Text()
        for i, (nid, nm, left) in enumerate(s.lowered):
            if i:
                low.append("\n")
            low.append(_c(f"{nm} #{nid}: {left}"), style="bold green" if left == 0 else "")
            if left == 0:
                low.append(" → ready", style="green")
        # plain Text, never markup: "[nan, 2.0]" is a value, not a style tag
        t.add_row(Text(str(s.index)), name,
                  rich_text(", ".join(g.text() for g in s.inputs) or "-", limit=2000),
                  rich_text(", ".join(g.text() for g in s.outputs) or "-", limit=2000), low,
                  rich_text(", ".join(f"{nm} #{nid}" for nid, nm in s.ready) or "(empty)",
                            limit=2000))
    return t
