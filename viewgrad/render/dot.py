"""DOT pictures of autograd graphs, built with the ``graphviz`` package.

``draw(obj)`` returns a ``graphviz.Digraph`` (a subclass whose ``_repr_svg_`` renders with
viewgrad's renderer, so notebooks work without a system Graphviz):

* an InplaceEvent: two clusters side by side, ``cluster_before`` and ``cluster_after``;
* a GraphSnapshot, a Tensor or a list of Tensors: one cluster, ``cluster_graph``.

Legend, as DESIGN §8 asks:
  tensors             boxes (the mutated tensor green), linked to their grad_fn by an edge;
                      a stale view's link is dashed and says "stale"; a leaf's link to its
                      AccumulateGrad is dotted
  graph nodes         rounded boxes with the PyTorch name, their saved tensors
                      ("saved self @v0") and attributes; a saved tensor whose version moved is
                      red ("@v0 (now v1) ✗": backward through this node will raise)
  CopySlices          a double box with its wrapped fn drawn inside, and the view geometry
  added by the op     filled amber, bold border, SVG class "added" (after cluster only)
  removed             dashed grey border, SVG class "removed" (before cluster only)
  cut                 "⋯ N more nodes" when the graph is collapsed to the neighbourhood of
                      the mutated tensor (``max_nodes``)

DOT node names are ``<cluster prefix>_<id>``: ``b_n3`` (before), ``a_n3`` (after),
``g_t1`` (a plain graph); they appear as the ``<title>`` of each SVG group.
"""
from __future__ import annotations

import html

import graphviz

from .common import DEFAULT_MAX_NODES, as_drawable, neighbourhood

__all__ = ["draw", "Digraph", "ADDED_FILL", "NODE_FILL"]

ADDED_FILL = "#ffd54f"
NODE_FILL = "#e3ecf7"
COPYSLICES_FILL = "#f3e5f5"
TENSOR_FILL = "#ffffff"
MUTATED_FILL = "#c8e6c9"
ACC_FILL = "#eeeeee"
FONT = "Helvetica"


class Digraph(graphviz.Digraph):
    """A graphviz.Digraph that renders itself with viewgrad's renderer in notebooks."""

    def _repr_svg_(self):
        from .svg import render_source
        return render_source(self.source)

    def _repr_mimebundle_(self, include=None, exclude=None, **_):
        return {"image/svg+xml": self._repr_svg_()}

    def to_svg(self, path, renderer=None):
        from .svg import write_source
        return write_source(self.source, path, renderer)


def _e(s) -> str:
    return html.escape(str(s), quote=True)


def _small(text, color=None):
    t = f'<FONT POINT-SIZE="10">{_e(text)}</FONT>'
    if color:
        t = f'<FONT POINT-SIZE="10" COLOR="{color}">{_e(text)}</FONT>'
    return t


def _node_rows(n):
    rows = [f"<B>{_e(n.name)}</B>"]
    if n.kind == "accumulate" and n.variable_label:
        rows.append(_small(f"leaf {n.variable_label}"))
    for s in n.saved:
        rows.append(_small(s.text(), "#c62828" if s.moved else None))
    if n.freed:
        rows.append(_small("saved tensors freed (backward ran)", "#757575"))
    for k, v in n.attrs[:4]:
        rows.append(_small(f"{k}={v}"))
    return rows


def _table(rows, border=0):
    body = "".join(f"<TR><TD>{r}</TD></TR>" for r in rows)
    return (f'<<TABLE BORDER="{border}" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">'
            f"{body}</TABLE>>")


def _copyslices_label(n, snap):
    fn = snap.node(n.wrapped) if n.wrapped and snap.has_node(n.wrapped) else None
    inner = "".join(f"<TR><TD>{r}</TD></TR>" for r in (_node_rows(fn) if fn else ["?"]))
    rows = [f"<TR><TD><B>{_e(n.name)}</B></TD></TR>",
            f'<TR><TD BORDER="1" BGCOLOR="white"><TABLE BORDER="0" CELLBORDER="0" '
            f'CELLSPACING="0" CELLPADDING="1"><TR><TD>{_small("fn:")}</TD></TR>{inner}'
            "</TABLE></TD></TR>"]
    if n.geometry is not None:
        g = n.geometry
        rows.append(f"<TR><TD>{_small(g.text())}</TD></TR>")
        if g.replay and g.view_fns:
            from ..trace.snapshot import chain_text
            rows.append(f"<TR><TD>{_small('replay base' + chain_text(g.view_fns))}</TD></TR>")
    return ('<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="2">'
            + "".join(rows) + "</TABLE>>")


def _tensor_label(t):
    head = f"<B>{_e(t.label)}</B>"
    rows = [head, _small(f"{list(t.shape)} {t.dtype} v{t.version}")]
    if t.is_view:
        from ..trace.snapshot import chain_text
        rows.append(_small(f"view of {t.base_label}{chain_text(t.view_fns)}"))
        rows.append(_small(f"stride {list(t.stride)} offset {t.offset}"))
    elif t.requires_grad and t.is_leaf:
        rows.append(_small("leaf, requires_grad"))
    if t.values is not None:
        rows.append(_small(t.values))
    return _table(rows)


def _add_snapshot(g, snap, prefix, title, max_nodes, added=(), removed=()):
    """Draw ``snap`` into cluster ``cluster_<title-key>`` of ``g``."""
    keep = set(added)
    shown, cut, hidden = neighbourhood(snap, max_nodes, keep)
    key = {"b": "before", "a": "after"}.get(prefix, "graph")
    with g.subgraph(name=f"cluster_{key}") as c:
        c.attr(label=title, fontname=FONT, fontsize="14", style="rounded", color="#90a4ae",
               labeljust="l")
        for n in snap.nodes:
            if n.id not in shown:
                continue
            attrs = dict(shape="box", style="rounded,filled", fillcolor=NODE_FILL,
                         fontname=FONT, margin="0.08,0.04")
            if n.kind == "copyslices":
                attrs.update(label=_copyslices_label(n, snap), fillcolor=COPYSLICES_FILL,
                             peripheries="2")
            else:
                attrs["label"] = _table(_node_rows(n))
                if n.kind == "accumulate":
                    attrs["fillcolor"] = ACC_FILL
            cls = "gnode " + n.kind
            if n.broken:
                attrs["color"] = "#c62828"
            if n.id in added:
                attrs.update(fillcolor=ADDED_FILL, style="rounded,filled,bold", penwidth="2")
                cls += " added"
            if n.id in removed:
                attrs.update(style="rounded,filled,dashed", color="#9e9e9e")
                cls += " removed"
            attrs["class"] = cls
            c.node(f"{prefix}_{n.id}", **attrs)
        for n in snap.nodes:
            if n.id not in shown:
                continue
            outs = snap.out_edges(n.id)
            for e in outs:
                if e.dst not in shown:
                    continue
                ea = {"arrowsize": "0.7"}
                if len(outs) > 1:
                    ea.update(label=str(e.index), fontsize="9", fontname=FONT)
                if e.dst in added and n.id in added:
                    ea["color"] = "#f57f17"
                c.edge(f"{prefix}_{n.id}", f"{prefix}_{e.dst}", **ea)
        for t in snap.tensors:
            fill = MUTATED_FILL if t.id == snap.focus else TENSOR_FILL
            c.node(f"{prefix}_{t.id}", label=_tensor_label(t), shape="box", style="filled",
                   fillcolor=fill, fontname=FONT, margin="0.08,0.04",
                   **{"class": "tensor" + (" stale" if t.stale else "")})
            if t.grad_fn is not None and t.grad_fn in shown:
                ea = {"color": "#1565c0", "arrowsize": "0.7"}
                if t.stale:
                    ea.update(style="dashed", color="#ef6c00", label="stale", fontsize="9",
                              fontcolor="#ef6c00", fontname=FONT)
                c.edge(f"{prefix}_{t.id}", f"{prefix}_{t.grad_fn}", **ea)
            elif t.accumulator is not None and t.accumulator in shown:
                c.edge(f"{prefix}_{t.id}", f"{prefix}_{t.accumulator}", style="dotted",
                       color="#757575", arrowsize="0.7")
            if t.base is not None and snap.has_tensor(t.base):
                c.edge(f"{prefix}_{t.id}", f"{prefix}_{t.base}", style="dotted",
                       color="#9e9e9e", arrowhead="none", constraint="false",
                       label="view of", fontsize="8", fontcolor="#9e9e9e", fontname=FONT)
        if hidden:
            more = f"{prefix}_more"
            c.node(more, label=f"⋯ {hidden} more node{'s' if hidden != 1 else ''}",
                   shape="plaintext", fontname=FONT, fontcolor="#616161",
                   **{"class": "more"})
            for nid in sorted(cut):
                c.edge(f"{prefix}_{nid}", more, style="dashed", color="#bdbdbd",
                       arrowsize="0.5")


def _new_graph(name):
    g = Digraph(name=name)
    g.attr(rankdir="TB", fontname=FONT, nodesep="0.25", ranksep="0.35", newrank="true")
    g.attr("node", fontname=FONT, fontsize="12")
    g.attr("edge", fontname=FONT)
    return g


def draw(obj, max_nodes=DEFAULT_MAX_NODES, namespace=None) -> Digraph:
    """A ``graphviz.Digraph`` of an InplaceEvent (before | after), a GraphSnapshot, a Tensor
    or a list of Tensors. ``max_nodes`` (None: all) collapses big graphs to the
    neighbourhood of the tensors, with an "N more nodes" marker."""
    if namespace is None and not hasattr(obj, "before") and not hasattr(obj, "nodes"):
        import sys
        f = sys._getframe(1)
        namespace = {**f.f_globals, **f.f_locals}
    kind, x = as_drawable(obj, namespace)
    if kind == "event":
        d = x.diff
        g = _new_graph(f"event{x.index}")
        call = x.call_text()
        g.attr(label=_e(x.summary()), labelloc="t", fontsize="13")
        _add_snapshot(g, x.before, "b", f"before: {call}", max_nodes,
                      removed={n.id for n in d.removed_nodes})
        added = {n.id for n in d.added_nodes}
        # a wrapped fn is drawn inside its CopySlices: highlight the CopySlices box
        _add_snapshot(g, x.after, "a", "after", max_nodes, added=added)
        return g
    g = _new_graph("graph")
    _add_snapshot(g, x, "g", "graph", max_nodes)
    return g
