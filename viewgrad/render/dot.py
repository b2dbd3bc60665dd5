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

import graphviz

from ..trace.sanitize import LABEL_LIMIT, SAFE_ID, dot_string, html_text
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
    """Text for an HTML-like label: cleaned, cut, escaped (Note [Untrusted text])."""
    return html_text(s, LABEL_LIMIT, keep_newlines=False)


class _Html(str):
    """An HTML-like label built here from escaped parts: written as ``<...>``; every other
    attribute value is written as a quoted, escaped DOT string."""


def _small(text, color=None):
    t = f'<FONT POINT-SIZE="10">{_e(text)}</FONT>'
    if color:
        t = f'<FONT POINT-SIZE="10" COLOR="{color}">{_e(text)}</FONT>'
    return t


def _node_rows(n):
    """(HTML rows, plain-text rows) of a node's label."""
    rows = [(f"<B>{_e(n.name)}</B>", n.name)]
    if n.kind == "accumulate" and n.variable_label:
        rows.append((_small(f"leaf {n.variable_label}"), f"leaf {n.variable_label}"))
    for sv in n.saved:
        rows.append((_small(sv.text(), "#c62828" if sv.moved else None), sv.text()))
    if n.freed:
        t = "saved tensors freed (backward ran)"
        rows.append((_small(t, "#757575"), t))
    for k, v in n.attrs[:4]:
        rows.append((_small(f"{k}={v}"), f"{k}={v}"))
    return rows


def _table(rows, border=0):
    body = "".join(f"<TR><TD>{r}</TD></TR>" for r, _ in rows)
    return _Html(f'<<TABLE BORDER="{border}" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">'
                 f"{body}</TABLE>>")


def _copyslices_label(n, snap):
    """(HTML label, plain rows): CopySlices with its wrapped fn drawn inside."""
    fn = snap.node(n.wrapped) if n.wrapped and snap.has_node(n.wrapped) else None
    fn_rows = _node_rows(fn) if fn else [("?", "?")]
    inner = "".join(f"<TR><TD>{r}</TD></TR>" for r, _ in fn_rows)
    rows = [f"<TR><TD><B>{_e(n.name)}</B></TD></TR>",
            f'<TR><TD BORDER="1" BGCOLOR="white"><TABLE BORDER="0" CELLBORDER="0" '
            f'CELLSPACING="0" CELLPADDING="1"><TR><TD>{_small("fn:")}</TD></TR>{inner}'
            "</TABLE></TD></TR>"]
    plain = [n.name, "fn:"] + [p for _, p in fn_rows]
    if n.geometry is not None:
        g = n.geometry
        rows.append(f"<TR><TD>{_small(g.text())}</TD></TR>")
        plain.append(g.text())
        if g.replay and g.view_fns:
            from ..trace.snapshot import chain_text
            t = "replay base" + chain_text(g.view_fns)
            rows.append(f"<TR><TD>{_small(t)}</TD></TR>")
            plain.append(t)
    return _Html('<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="2">'
                 + "".join(rows) + "</TABLE>>"), plain


def _tensor_rows(t):
    from ..trace.snapshot import chain_text
    rows = [(f"<B>{_e(t.label)}</B>", t.label)]
    txt = f"{list(t.shape)} {t.dtype} v{t.version}"
    rows.append((_small(txt), txt))
    if t.is_view:
        for txt in (f"view of {t.base_label}{chain_text(t.view_fns)}",
                    f"stride {list(t.stride)} offset {t.offset}"):
            rows.append((_small(txt), txt))
    elif t.requires_grad and t.is_leaf:
        rows.append((_small("leaf, requires_grad"), "leaf, requires_grad"))
    if t.values is not None:
        rows.append((_small(t.values), t.values))
    return rows


class _Cluster:
    """The nodes and edges of one cluster, collected before they are emitted (so a big
    graph can be placed by viewgrad's own layout first)."""

    def __init__(self, name, title, prefix=""):
        self.name = name
        self.title = title
        self.prefix = prefix
        self.nodes = []      # (dot name, attrs, plain rows)
        self.edges = []      # (src, dst, attrs, used by the layout?)
        self.ids = {}        # dot name -> snapshot id
        self._names = {}

    def dot_name(self, sid) -> str:
        """The DOT name of snapshot id ``sid``: ``<prefix>_<id>`` for the ids the tracer
        writes (``b_n3``), a generated ``<prefix>_x<k>`` for anything else, so no text
        from a snapshot is ever a DOT name (Note [Untrusted text])."""
        name = self._names.get(sid)
        if name is None:
            name = self.prefix + (sid if isinstance(sid, str) and SAFE_ID.match(sid)
                                  else f"x{len(self._names)}")
            self._names[sid] = name
            self.ids[name] = sid
        return name


def _collect(snap, prefix, title, max_nodes, added=(), removed=()):
    shown, cut, hidden = neighbourhood(snap, max_nodes, set(added))
    key = {"b": "before", "a": "after"}.get(prefix, "graph")
    cl = _Cluster(f"cluster_{key}", title, prefix + "_")
    p = cl.dot_name
    for t in snap.tensors:
        fill = MUTATED_FILL if t.id == snap.focus else TENSOR_FILL
        rows = _tensor_rows(t)
        cl.nodes.append((p(t.id), dict(label=_table(rows), shape="box", style="filled",
                                        fillcolor=fill, margin="0.08,0.04",
                                        **{"class": "tensor" + (" stale" if t.stale else "")}),
                         [r for _, r in rows]))
    for n in snap.nodes:
        if n.id not in shown:
            continue
        attrs = dict(shape="box", style="rounded,filled", fillcolor=NODE_FILL,
                     margin="0.08,0.04")
        if n.kind == "copyslices":
            label, plain = _copyslices_label(n, snap)
            attrs.update(label=label, fillcolor=COPYSLICES_FILL, peripheries="2")
        else:
            rows = _node_rows(n)
            attrs["label"] = _table(rows)
            plain = [r for _, r in rows]
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
        cl.nodes.append((p(n.id), attrs, plain))
    for t in snap.tensors:
        if t.grad_fn is not None and t.grad_fn in shown:
            ea = {"color": "#1565c0", "arrowsize": "0.7"}
            if t.stale:
                ea.update(style="dashed", color="#ef6c00", label="stale", fontsize="9",
                          fontcolor="#ef6c00")
            cl.edges.append((p(t.id), p(t.grad_fn), ea, True))
        elif t.accumulator is not None and t.accumulator in shown:
            cl.edges.append((p(t.id), p(t.accumulator),
                             dict(style="dotted", color="#757575", arrowsize="0.7"), True))
        if t.base is not None and snap.has_tensor(t.base):
            cl.edges.append((p(t.id), p(t.base),
                             dict(style="dotted", color="#9e9e9e", arrowhead="none",
                                  constraint="false", label="view of", fontsize="8",
                                  fontcolor="#9e9e9e"), False))
    for n in snap.nodes:
        if n.id not in shown:
            continue
        outs = snap.out_edges(n.id)
        for e in outs:
            if e.dst not in shown:
                continue
            ea = {"arrowsize": "0.7"}
            if len(outs) > 1:
                ea.update(label=str(e.index), fontsize="9")
            if e.dst in added and n.id in added:
                ea["color"] = "#f57f17"
            cl.edges.append((p(n.id), p(e.dst), ea, True))
    if hidden:
        more = cl.prefix + "more"
        text = f"⋯ {hidden} more node{'s' if hidden != 1 else ''}"
        cl.nodes.append((more, dict(label=text, shape="plaintext", fontcolor="#616161",
                                    **{"class": "more"}), [text]))
        for nid in sorted(cut):
            cl.edges.append((p(nid), more, dict(style="dashed", color="#bdbdbd",
                                                 arrowsize="0.5"), True))
    return cl


FIXED_LAYOUT_MARK = "viewgrad:fixed-layout"   # render with `-Kneato -n2` (see svg.py)
FAST_LAYOUT_NODES = 150


def _quote(v) -> str:
    if isinstance(v, _Html):
        return v                                   # an HTML-like label, escaped parts
    return dot_string(v)


def _attrs(attrs) -> str:
    return " ".join(f"{k}={_quote(v)}" for k, v in attrs.items())


def _emit(g, clusters, fixed):
    x0 = 0.0
    for cl in clusters:
        pos = None
        if fixed:
            from .layout import estimate_size, layered
            sizes = {name: estimate_size(rows) for name, _a, rows in cl.nodes}
            pos, (w, h) = layered([name for name, _a, _r in cl.nodes],
                                  [(s, d) for s, d, _a, lay in cl.edges if lay], sizes)
            pad = 16.0
        with g.subgraph(name=cl.name) as c:
            c.attr(fontname=FONT, fontsize="14", style="rounded", color="#90a4ae",
                   labeljust="l")
            c.body.append(f"\tlabel={dot_string(cl.title, LABEL_LIMIT)}\n")
            if fixed:
                c.attr(bb=f"{x0:.1f},0,{x0 + w + 2 * pad:.1f},{h + 2 * pad + 24:.1f}")
            # Lines are written straight into the body (names are plain ids; values are
            # quoted by _attrs): the graphviz package's per-call quoting is the slow part
            # of drawing a 2,000-node graph.
            body = c.body
            for name, attrs, _rows in cl.nodes:
                if fixed:
                    x, y = pos[name]
                    attrs = dict(attrs, pos=f"{x0 + pad + x:.1f},{pad + y:.1f}!")
                body.append(f"\t{name} [{_attrs(attrs)}]\n")
            for s, d, attrs, _lay in cl.edges:
                body.append(f"\t{s} -> {d} [{_attrs(attrs)}]\n")
        if fixed:
            x0 += w + 2 * pad + 40.0


def _new_graph(name, fixed=False):
    g = Digraph(name=name, comment=FIXED_LAYOUT_MARK if fixed else None)
    g.attr(rankdir="TB", fontname=FONT, nodesep="0.25", ranksep="0.35")
    if fixed:
        g.attr(splines="line", outputorder="edgesfirst")
    g.attr("node", fontname=FONT, fontsize="12")
    g.attr("edge", fontname=FONT)
    return g


def draw_snapshot(snap, title="graph", added=(), removed=(), max_nodes=DEFAULT_MAX_NODES,
                  layout="auto", prefix="g") -> Digraph:
    """One snapshot alone, with ``added`` / ``removed`` node ids marked (the HTML report
    draws an event's before and after as two pictures side by side)."""
    cl = _collect(snap, prefix, title, max_nodes, added=set(added), removed=set(removed))
    fixed = layout == "fast" or (layout == "auto" and len(cl.nodes) > FAST_LAYOUT_NODES)
    g = _new_graph("graph", fixed)
    _emit(g, [cl], fixed)
    return g


def draw(obj, max_nodes=DEFAULT_MAX_NODES, namespace=None, layout="auto") -> Digraph:
    """A ``graphviz.Digraph`` of an InplaceEvent (before | after), a GraphSnapshot, a Tensor
    or a list of Tensors. ``max_nodes`` (None: all) collapses big graphs to the
    neighbourhood of the tensors, with an "N more nodes" marker. ``layout``: "dot"
    (Graphviz places the nodes: best for small graphs), "fast" (viewgrad's layered layout,
    linear time: see layout.py) or "auto" ("fast" above 150 nodes)."""
    if layout not in ("auto", "dot", "fast"):
        raise ValueError(f"layout must be 'auto', 'dot' or 'fast', not {layout!r}")
    if namespace is None and not hasattr(obj, "before") and not hasattr(obj, "nodes"):
        import sys
        f = sys._getframe(1)
        namespace = {**f.f_globals, **f.f_locals}
    kind, x = as_drawable(obj, namespace)
    if kind == "event":
        d = x.diff
        clusters = [
            _collect(x.before, "b", f"before: {x.call_text()}", max_nodes,
                     removed={n.id for n in d.removed_nodes}),
            _collect(x.after, "a", "after", max_nodes, added={n.id for n in d.added_nodes})]
        name, label = f"event{x.index}", x.summary()
    else:
        clusters = [_collect(x, "g", "graph", max_nodes)]
        name, label = "graph", None
    fixed = layout == "fast" or (layout == "auto" and max(len(c.nodes) for c in clusters)
                                 > FAST_LAYOUT_NODES)
    g = _new_graph(name, fixed)
    if label:
        g.attr(labelloc="t", fontsize="13")
        g.body.append(f"\tlabel={dot_string(label, LABEL_LIMIT)}\n")
    _emit(g, clusters, fixed)
    return g


def draw_backward_step(bt, step, max_nodes=DEFAULT_MAX_NODES) -> Digraph:
    """The graph of backward pass ``bt`` at ``step``: nodes already run greyed (class
    "done"), the one running now highlighted ("current"), the ready queue marked ("ready"),
    each edge labelled with the count it still owes its target."""
    snap = bt.graph
    done = {s.node for s in bt.steps[:step]}
    cur = bt.steps[step].node if 0 <= step < len(bt.steps) else None
    ready = {nid for nid, _ in bt.steps[step].ready} if cur is not None else set()
    cl = _collect(snap, "g", f"backward #{bt.index}, step {step}: "
                  f"{bt.steps[step].name if cur else ''}", max_nodes)
    nodes = []
    for name, attrs, rows in cl.nodes:
        nid = cl.ids.get(name)
        attrs = dict(attrs)
        cls = attrs.get("class", "")
        if nid == cur:
            attrs.update(fillcolor=ADDED_FILL, style="rounded,filled,bold", penwidth="2")
            cls += " current"
        elif nid in done:
            attrs.update(fillcolor="#f5f5f5", fontcolor="#9e9e9e", color="#bdbdbd")
            cls += " done"
        elif nid in ready:
            attrs.update(color="#2e7d32", penwidth="2")
            cls += " ready"
        attrs["class"] = cls
        nodes.append((name, attrs, rows))
    cl.nodes = nodes
    fixed = len(cl.nodes) > FAST_LAYOUT_NODES
    g = _new_graph(f"backward{bt.index}_{step}", fixed)
    _emit(g, [cl], fixed)
    return g
