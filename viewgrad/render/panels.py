"""Before | after of an in-place event on ONE layout, with what changed marked.

The eye compares two pictures by position. If Graphviz laid out "before" and "after"
separately, a node present in both could move, and the reader would see changes that are
not there. So the UNION of the two graphs (nodes by their stable ids) is laid out once
(render/layout.py, node sizes measured with the font the picture names), and each panel
draws its own nodes at those positions: a node present in both has the same coordinates
(relative to its panel) in both. What only the other panel has is a ghost: invisible in
"before" (the space the op will fill), a faint dashed outline in "after" (what the op
left behind).

Marks, in "after" (classes on the SVG groups, for tests and for CSS):
  added         what the op made: amber, bold ("added")
  version bump  ``@v0 → @v1`` in red on every tensor whose counter moved: base and views
                share one counter, so they bump together ("bumped")
  moved         a tensor whose grad_fn changed: the old pointer dashed grey ("old grad_fn"),
                the new one bold ("new grad_fn")
  stale         a stale view's link dashed orange ("stale"), and a dotted arrow to the
                history its grad_fn is regenerated from when next read
  out of date   a saved tensor modified since saving: red, ``✗`` (from the labels)
plus a legend under the panels (tensor / view / leaf / node / CopySlices / saved / stale).
"""
from __future__ import annotations

from ..trace.sanitize import LABEL_LIMIT, clean, dot_string
from .layout import TITLE_MARGIN, layered, node_size, stable_text

__all__ = ["draw_event", "PANEL_GAP"]

PANEL_GAP = 40.0
PAD = 16.0
GHOST = {"style": "rounded,dashed", "color": "#cfd8dc", "fontcolor": "#b0bec5",
         "fillcolor": "#ffffff", "penwidth": "1"}


def _key(name, cl=None):
    """The node a DOT name stands for, the same in both panels (a snapshot id, or a
    chain/fan box's key: render/fold.py)."""
    if cl is not None and name in cl.ids:
        return cl.ids[name]
    return name[2:]


def _collect_pair(ev, max_nodes, collapse=True):
    from .common import neighbourhood
    from .dot import _collect
    d = ev.diff
    versions = {t_id: old for t_id, old in _bumped(ev)}
    added = {n.id for n in d.added_nodes}
    removed = {n.id for n in d.removed_nodes}
    # A node present in both graphs is shown in both panels or in neither (a big graph is
    # cut to its neighbourhood in each): the panels must agree to share a layout.
    sb = neighbourhood(ev.before, max_nodes, removed)[0]
    sa = neighbourhood(ev.after, max_nodes, added)[0]
    nb = {n.id for n in ev.before.nodes}
    na = {n.id for n in ev.after.nodes}
    cb = _collect(ev.before, "b", f"before: {ev.call_text()}", max_nodes, removed=removed,
                  allow={n for n in sb if n not in na or n in sa}, collapse=collapse)
    ca = _collect(ev.after, "a", "after", max_nodes, added=added, versions=versions,
                  allow={n for n in sa if n not in nb or n in sb}, collapse=collapse)
    return cb, ca


def _bumped(ev):
    before = {t.id: t for t in ev.before.tensors}
    for t in ev.after.tensors:
        b = before.get(t.id)
        if b is not None and b.version != t.version:
            yield t.id, b.version


def _union_layout(clusters):
    order, sizes, edges, seen = [], {}, [], set()
    for cl in clusters:
        for name, attrs, rows in cl.nodes:
            k = _key(name, cl)
            w, h = node_size(rows, attrs)
            if k in sizes:
                sizes[k] = (max(sizes[k][0], w), max(sizes[k][1], h))
            else:
                sizes[k] = (w, h)
                order.append(k)
        for s, d, _a, lay in cl.edges:
            e = (_key(s, cl), _key(d, cl))
            if lay and e not in seen:
                seen.add(e)
                edges.append(e)
    pos, (w, h) = layered(order, edges, sizes)
    return pos, sizes, (w, h)


def _mark_changes(ev, ca, present_after, pos):
    """Edges and attributes in the after panel that show what changed."""
    d = ev.diff
    for i, (s, dst, attrs, lay) in enumerate(ca.edges):
        t_id, n_id = _key(s, ca), _key(dst, ca)
        moved = next((m for m in d.moved if m.tensor_id == t_id and m.after == n_id), None)
        if moved is not None:
            ca.edges[i] = (s, dst, dict(attrs, penwidth="2.5", label="new grad_fn",
                                        fontsize="9", fontcolor="#1565c0"), lay)
    for m in d.moved:
        if m.before is not None and m.before in pos:
            ca.edges.append((ca.dot_name(m.tensor_id), ca.dot_name(m.before),
                             dict(style="dashed", color="#9e9e9e", label="old grad_fn",
                                  fontsize="9", fontcolor="#9e9e9e", arrowsize="0.6",
                                  **{"class": "old-pointer"}), False))
    after = ev.after
    for t in d.stale:
        base = after.tensor(t.base) if t.base and after.has_tensor(t.base) else None
        if base is not None and base.grad_fn is not None and base.grad_fn in present_after:
            node = "replayed view ops" if after.view_replay else "AsStridedBackward0"
            ca.edges.append((ca.dot_name(t.id), ca.dot_name(base.grad_fn),
                             dict(style="dotted", color="#ef6c00", fontcolor="#ef6c00",
                                  fontsize="9", arrowsize="0.6",
                                  label=f"read: regenerated as {node} →",
                                  **{"class": "regenerated"}), False))


def draw_event(ev, max_nodes, legend=True, sides=("before", "after"), collapse=True):
    """A Digraph of event ``ev``: the panels named in ``sides`` on the shared layout;
    ``collapse=False`` draws long chains and wide fans in full (render/fold.py)."""
    from .dot import FIXED_LAYOUT_MARK, GRAPH_LEGEND, _Html, _attrs, _legend_table, _new_graph
    from .fontmetrics import text_width
    cb, ca = _collect_pair(ev, max_nodes, collapse)
    pos, sizes, (w, h) = _union_layout([cb, ca])
    present = {"before": {_key(n, cb) for n, _a, _r in cb.nodes},
               "after": {_key(n, ca) for n, _a, _r in ca.nodes}}
    _mark_changes(ev, ca, present["after"], pos)
    ghosts_from = {"before": ca, "after": cb}
    g = _new_graph(f"event{ev.index}", fixed=True)
    g.attr(splines="spline" if len(pos) <= 80 else "line")
    # A panel is as wide as its nodes, or as its title: Graphviz sizes a cluster for its
    # label only when it lays the cluster out itself, and here the box is given (bb), so
    # a long title ("before: Linear.weight.uniform_()" over one small node) would spill
    # out of it. The nodes are centred in a panel widened for its title.
    title_w = max(text_width(stable_text(clean(cl.title, LABEL_LIMIT)), 14)
                  for side, cl in (("before", cb), ("after", ca)) if side in sides)
    nodes_w = float(round(w + 2 * PAD))     # whole points: equal offsets in both panels
    panel_w = max(nodes_w, float(round(title_w + TITLE_MARGIN)))
    inset = (panel_w - nodes_w) / 2
    panel_h = h + 2 * PAD + 24
    x0 = 0.0
    for side, cl in (("before", cb), ("after", ca)):
        if side not in sides:
            continue
        p = cl.name
        with g.subgraph(name=p) as c:
            c.attr(fontsize="14", style="rounded", color="#90a4ae", labeljust="l",
                   labelloc="t", bb=f"{x0:.1f},0,{x0 + panel_w:.1f},{panel_h:.1f}")
            c.body.append(f"\tlabel={dot_string(cl.title, LABEL_LIMIT)}\n")
            body = c.body

            def at(k, _x0=x0 + inset):
                x, y = pos[k]
                return f"{_x0 + PAD + x:.1f},{PAD + y:.1f}!"

            for name, attrs, _rows in cl.nodes:
                k = _key(name, cl)
                ww, hh = sizes[k]
                a = dict(attrs, pos=at(k), width=f"{ww / 72:.3f}", height=f"{hh / 72:.3f}")
                body.append(f"\t{name} [{_attrs(a)}]\n")
            other = ghosts_from[side]
            for name, attrs, _rows in other.nodes:
                k = _key(name, other)
                if k in present[side]:
                    continue
                ww, hh = sizes[k]
                a = dict(attrs, pos=at(k), width=f"{ww / 72:.3f}", height=f"{hh / 72:.3f}",
                         fixedsize="true")
                a["class"] = "ghost"
                if side == "before":
                    a.update(style="invis")
                else:
                    a.update(GHOST)
                    a["label"] = _Html(a["label"].replace('COLOR="#c62828"',
                                                          'COLOR="#b0bec5"'))
                body.append(f"\t{cl.dot_name(k)} [{_attrs(a)}]\n")
            for s, d, attrs, _lay in cl.edges:
                body.append(f"\t{s} -> {d} [{_attrs(attrs)}]\n")
        x0 += panel_w + PANEL_GAP
    total_w = x0 - PANEL_GAP
    if len(sides) == 2:
        title = ev.summary()
        tw = text_width(stable_text(title), 13)
        a = dict(label=title, shape="plaintext", fontsize="13", width=f"{(tw + 16) / 72:.3f}",
                 pos=f"{max(total_w, tw) / 2:.1f},{panel_h + 22:.1f}!", **{"class": "title"})
        g.body.append(f"\ttitle [{_attrs(a)}]\n")
    if len(sides) == 2:
        _storage_below(g, ev, total_w)
    if legend:
        g.attr(label=_legend_table(GRAPH_LEGEND), labelloc="b")
    assert g.comment == FIXED_LAYOUT_MARK
    return g


def _storage_below(g, ev, total_w):
    """Under the panels, the memory the op wrote: the base's cells with each view
    outlined and the written cells filled (render/storage.py)."""
    from .dot import _attrs
    from .storage import MAX_CELLS, ROW, _group_table, storage_groups
    y = 0.0
    for i, grp in enumerate(g_ for g_ in storage_groups(ev.after, ev.tensor_id)
                            if g_.members[1:]):
        rows = 2 + sum(1 for m in grp.members if not m.is_base or m.written)
        chunks = -(-min(grp.size, MAX_CELLS) // ROW)
        h = chunks * rows * 24.0 + 16
        y -= h / 2 + 12
        a = dict(label=_group_table(grp), shape="box", style="rounded", color="#cfd8dc",
                 pos=f"{total_w / 2:.1f},{y:.1f}!", **{"class": "storage"})
        g.body.append(f"\tstorage{i} [{_attrs(a)}]\n")
        y -= h / 2
