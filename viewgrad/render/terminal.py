"""Terminal pictures with rich: a tree per tensor, before | after side by side.

A graph is a DAG, a rich Tree is a tree: a node reached a second time (from another edge
or another tensor's tree) is shown once in full and afterwards as a back-reference
``↑ MulBackward0 (shown above)``. Trees are built with an explicit stack (graphs can be deep).

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
from .common import DEFAULT_MAX_NODES, as_drawable, neighbourhood, parallel_edges


def _c(s) -> str:
    """Snapshot text made safe for the terminal (Note [Untrusted text]); always appended
    as plain text, never parsed as rich markup."""
    return clean(s, LABEL_LIMIT)

__all__ = ["render_snapshot", "render_event", "render", "show", "snapshot_trees"]


def _tensor_text(t, focus):
    s = Text()
    s.append(_c(t.label), style="bold green" if t.id == focus else "bold")
    s.append(_c(f"  {list(t.shape)} @v{t.version}"), style="dim")
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


MAX_DEPTH = 24


def snapshot_trees(snap, max_nodes=DEFAULT_MAX_NODES, added=(), removed=(), tensors=None,
                   max_depth=MAX_DEPTH):
    """A list of rich Trees, one per tensor of ``snap`` (shared nodes back-referenced).
    Long chains of one op and wide fans are folded (render/fold.py) and trees stop at
    ``max_depth`` levels, so a 200-op loop does not indent off the screen."""
    shown, cut, hidden = neighbourhood(snap, max_nodes, added)
    chains, fans = {}, {}
    if max_nodes is not None:
        from .fold import fold
        folded = fold(snap, shown, keep=set(added) | set(removed))
        chains = {c.hidden[0]: c for c in folded.chains}
        fans = {f.node: f for f in folded.fans}
        shown = folded.shown | {c.hidden[0] for c in folded.chains}
    else:
        max_depth = float("inf")
    seen = set()
    trees = []
    drawn = 0
    for t in snap.tensors:
        if tensors is not None and t.id not in tensors:
            continue
        if max_nodes is not None and drawn >= max_nodes:   # (a hostile trace file)
            trees.append(Text(f"⋯ {len(snap.tensors) - drawn} more tensors not shown",
                              style="dim"))
            break
        drawn += 1
        root = Tree(_tensor_text(t, snap.focus), guide_style="dim")
        trees.append(root)
        start = t.grad_fn or t.accumulator
        if start is None:
            root.add(Text("grad_fn None", style="dim"))
            continue
        link = "stale grad_fn → " if t.stale else ("grad_fn → " if t.grad_fn else "")
        stack = [(root, start, link, 0)]
        while stack:
            parent, nid, prefix, depth = stack.pop()
            chain = chains.get(nid)
            if chain is not None:          # a long run of one op: one line for its middle
                parent = parent.add(Text(_c(f"{prefix}{chain.text()}"), style="dim italic"))
                nid, prefix = chain.last, ""
            if not snap.has_node(nid) or nid not in shown:
                parent.add(Text(f"{prefix}⋯", style="dim"))
                continue
            if depth >= max_depth:
                parent.add(Text(f"{prefix}⋯ deeper than {max_depth} levels "
                                "(:graph EXPR --depth N shows more)", style="dim"))
                continue
            n = snap.node(nid)
            mark = "+" if nid in added else ("-" if nid in removed else None)
            label = Text(prefix, style="yellow" if "stale" in prefix else "dim")
            if nid in seen:
                label.append(_c(f"↑ {n.name} (shown above)"), style="dim italic")
                parent.add(label)
                continue
            seen.add(nid)
            label.append_text(_node_text(n, snap, mark))
            child = parent.add(label)
            if cut.get(nid):
                child.add(Text(f"⋯ {cut[nid]} more edge(s) not shown", style="dim"))
            outs = snap.out_edges(nid)
            fan = fans.get(nid)
            if fan is not None:
                grouped = set(fan.dsts)
                child.add(Text(_c(fan.text()), style="dim italic"))
                outs_shown = [e for e in outs if e.dst not in grouped]
            else:
                outs_shown = outs
            for e, many in reversed(parallel_edges(outs_shown)):
                pre = _c(f"{many or f'[{e.index}]'} ") if len(outs) > 1 else ""
                stack.append((child, e.dst, pre, depth + 1))
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
    grid = SideBySide(left, right)
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
        from .storage import render_storage, storage_groups
        if any(g.members[1:] for g in storage_groups(event.after, event.tensor_id)):
            parts.append(render_storage(event))     # the memory it wrote, views outlined
        from ..trace.explain import explain
        parts.append(Panel(rich_text(explain(event), limit=20000), title="functionalized",
                           title_align="left", border_style="grey50"))
    return Group(*parts)


class SideBySide:
    """Two panels side by side when the terminal is wide enough, else one above the
    other: at 80 columns, trees squeezed into 40 would wrap names a few letters a line."""

    MIN_WIDTH = 100

    def __init__(self, left, right):
        self.left, self.right = left, right

    def __rich_console__(self, console, options):
        if options.max_width < self.MIN_WIDTH:
            yield self.left
            yield self.right
            return
        grid = Table.grid(expand=True, padding=(0, 1))
        grid.add_column(ratio=1)
        grid.add_column(ratio=1)
        grid.add_row(self.left, self.right)
        yield grid


def render(obj, compact=False, max_nodes=DEFAULT_MAX_NODES, namespace=None, params=None):
    kind, x = as_drawable(obj, namespace, params)
    if kind == "moment":
        return render_moment(x)
    if kind == "event":
        return render_event(x, compact=compact, max_nodes=max_nodes)
    return render_snapshot(x, max_nodes=max_nodes)


def show(obj, console=None, compact=False, namespace=None, params=None):
    (console or Console()).print(render(obj, compact=compact, namespace=namespace,
                                        params=params))


def render_backward(bt, upto=None):
    """A backward pass as a table: one row per executed node, in the order it ran, with the
    gradients in and out, the counts it lowered and the ready queue after it. Node names
    are never cut ("AccumulateG…"): below 100 columns the ready queue column goes (each
    moment, ``bt.at(k)``, shows the queue)."""
    return _BackwardTable(bt, upto)


class _BackwardTable:
    def __init__(self, bt, upto):
        self.bt, self.upto = bt, upto

    def __rich_console__(self, console, options):
        yield self.table(options.max_width >= SideBySide.MIN_WIDTH)

    def table(self, wide=True):
        bt, upto = self.bt, self.upto
        t = Table(title=rich_text(bt.summary() if upto is None
                                  else f"backward #{bt.index}, step {upto}", limit=2000),
                  title_justify="left", show_lines=False, header_style="bold")
        longest = max([12] + [len(n.name) for n in bt.graph.nodes])
        t.add_column("#", justify="right", style="dim")
        t.add_column("node ran", no_wrap=True, min_width=longest)
        t.add_column("grad in", overflow="fold")
        t.add_column("grads out", overflow="fold")
        t.add_column("lowered counts (→ ready)", overflow="fold", min_width=longest + 3)
        if wide:
            t.add_column("ready queue after it", style="dim", overflow="fold",
                         min_width=longest)
        steps = bt.steps if upto is None else bt.steps[:upto + 1]
        for s in steps:
            name = Text(_c(s.name), style="bold yellow" if upto == s.index else "bold")
            if s.accumulate:
                name.append("\n" + _c(f"{s.variable}.grad: {s.accumulate}"), style="cyan")
            low = Text()
            for i, (_nid, nm, left) in enumerate(s.lowered):
                if i:
                    low.append("\n")
                low.append(_c(f"{nm}: {left}"), style="bold green" if left == 0 else "")
                if left == 0:
                    low.append(" → ready", style="green")
            # plain Text, never markup: "[nan, 2.0]" is a value, not a style tag
            row = [Text(str(s.index)), name,
                   rich_text(", ".join(g.text() for g in s.inputs) or "-", limit=2000),
                   rich_text(", ".join(g.text() for g in s.outputs) or "-", limit=2000), low]
            if wide:
                row.append(rich_text(", ".join(nm for _nid, nm in s.ready) or "(empty)",
                                     limit=2000))
            t.add_row(*row)
        return t


def render_moment(m):
    """One moment of a backward pass in the terminal: the node about to run, then every
    node still to run with its dependency count and its input buffer as the engine holds
    it (partial sums), the ready queue in pop order, and what AccumulateGrad does."""
    bt = m.trace
    snap = bt.graph
    deps0 = dict(bt.deps0)
    queue = {nid: i for i, (nid, _n) in enumerate(m.queue)}
    head = Text(_c(m.title()), style="bold red" if m.failing else "bold")
    parts = [head]
    if m.failing:
        parts.append(rich_text(bt.error.message, style="red", limit=4000))
        if bt.error.blame is not None:
            parts.append(Text(f"the saved tensor was modified by event #{bt.error.blame} "
                              f"(:show {bt.error.blame})", style="yellow"))
    t = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    t.add_column("node", no_wrap=True, min_width=max(
        [14] + [len(n.name) + (len(n.variable_label) + 9 if n.variable_label else 0)
                for n in snap.nodes]))
    t.add_column("state", no_wrap=True)
    t.add_column("to come", justify="right", no_wrap=True)
    t.add_column("input buffer (what the engine holds now)", overflow="fold")
    done = set(m.done)
    for n in snap.nodes:
        if n.kind == "wrapped":
            continue
        if n.id == m.node:
            state = Text("FAILS" if m.failing else "runs now",
                         style="bold red" if m.failing else "bold yellow")
        elif n.id in done:
            state = Text("ran", style="dim")
        elif n.id in queue:
            state = Text(f"ready #{queue[n.id] + 1}", style="green")
        else:
            state = Text("waiting", style="")
        left = m.counts.get(n.id, deps0.get(n.id, 0))
        count = "" if n.id in done or n.kind == "root" else f"{left}/{deps0.get(n.id, 0)}"
        buf = m.buffers.get(n.id)
        btxt = ", ".join(g.text() if g is not None else "·" for g in buf) if buf else ""
        if buf and n.id not in queue and n.id != m.node and left > 0:
            btxt = "partial: " + btxt
        name = n.name + (f" → {n.variable_label}.grad" if n.kind == "accumulate"
                         and n.variable_label else "")
        t.add_row(Text(_c(name), style="dim" if n.id in done else "bold"), state, count,
                  rich_text(btxt, style="cyan", limit=2000))
    parts.append(t)
    q = " → ".join(name for _i, name in m.queue) or "(empty)"
    parts.append(rich_text(f"ready queue (pops left first): {q}", style="green", limit=2000))
    if m.step is not None and m.step.accumulate:
        parts.append(rich_text(f"AccumulateGrad → {m.step.variable}.grad: {m.step.accumulate}"
                               + (f" — {m.step.strides}" if m.step.strides else ""),
                               style="cyan", limit=2000))
    return Panel(Group(*parts), title=f"backward #{bt.index}", title_align="left",
                 border_style="red" if m.failing else "blue")
