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

from ..trace.sanitize import LABEL_LIMIT, SAFE_ID, clean, dot_string, html_text
from .common import DEFAULT_MAX_NODES, as_drawable, neighbourhood, parallel_edges
from .fontmetrics import FONT_FAMILY, text_width

__all__ = ["draw", "Digraph", "ADDED_FILL", "NODE_FILL"]

ADDED_FILL = "#ffd54f"
NODE_FILL = "#e3ecf7"
COPYSLICES_FILL = "#f3e5f5"
TENSOR_FILL = "#ffffff"
MUTATED_FILL = "#c8e6c9"
ACC_FILL = "#eeeeee"
FONT = FONT_FAMILY     # Graphviz (both renderers) lays out with its real metrics


class Digraph(graphviz.Digraph):
    """A graphviz.Digraph that renders itself with viewgrad's renderer in notebooks."""

    def _repr_svg_(self):
        from .svg import render_source
        return render_source(self.source)

    def _repr_mimebundle_(self, include=None, exclude=None, **_):
        return {"image/svg+xml": self._repr_svg_()}

    def to_svg(self, path, renderer=None):
        """Write the picture to ``path`` as SVG, PNG or PDF (by the extension)."""
        from .svg import write_source
        return write_source(self.source, path, renderer)

    def render(self, filename=None, directory=None, view=False, cleanup=False,
               format=None, renderer=None, formatter=None, neato_no_op=None,
               quiet=False, quiet_view=False, *, outfile=None, engine=None,
               raise_if_result_exists=False, overwrite_source=False):
        """graphviz's ``render``, through viewgrad's renderer (no system ``dot``
        needed): saves the DOT source and writes ``<source>.<format>`` (svg by default;
        png and pdf too), or ``outfile``. Returns the output's path."""
        import os
        fmt = format or self.format or "svg"
        if outfile is None:
            src = self.save(filename, directory=directory)
            outfile = f"{src}.{fmt}"
            if cleanup:
                os.remove(src)
        elif not os.path.splitext(str(outfile))[1]:
            outfile = f"{outfile}.{fmt}"
        if raise_if_result_exists and os.path.exists(outfile):
            raise FileExistsError(f"output file exists: {outfile!r}")
        from .svg import write_source
        path = write_source(self.source, outfile, renderer if isinstance(renderer, str)
                            and renderer in ("dot", "graphviz-pure", "auto") else None)
        if view:
            self._view(path, format=fmt, quiet=quiet_view)
        return path


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
    for k, v in n.attrs[:_ATTR_ROWS]:
        rows.append((_small(f"{k}={v}"), f"{k}={v}"))
    if len(n.attrs) > _ATTR_ROWS:   # (the rest: `explain` and the HTML report list them)
        more = len(n.attrs) - _ATTR_ROWS
        t = f"… {more} more saved value{'s' if more > 1 else ''}"
        rows.append((_small(t, "#757575"), t))
    return rows


_ATTR_ROWS = 6   # saved values (not tensors) a node's box lists


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


def _tensor_rows(t, was=None):
    """Rows of a tensor's box; ``was``: its version before the op (shown ``@v0 → @v1``)."""
    from ..trace.snapshot import chain_text
    rows = [(f"<B>{_e(t.label)}</B>", t.label)]
    if was is None:
        txt = f"{list(t.shape)} {t.dtype} @v{t.version}"
        rows.append((_small(txt), txt))
    else:
        txt = f"{list(t.shape)} {t.dtype} @v{was} → @v{t.version}"
        rows.append((f'<FONT POINT-SIZE="10" COLOR="#d84315"><B>{_e(txt)}</B></FONT>', txt))
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


def _collect(snap, prefix, title, max_nodes, added=(), removed=(), extra=None,
             versions=None, collapse=True, allow=None):
    shown, cut, hidden = neighbourhood(snap, max_nodes, set(added))
    if allow is not None:           # (render/panels.py: both panels show the same nodes)
        hidden += len(shown - allow)
        shown = shown & allow
    folded = None
    if collapse and max_nodes is not None:     # render/fold.py: chains and fans
        from .fold import fold
        folded = fold(snap, shown, keep=set(added) | set(removed))
        shown = folded.shown
    key = {"b": "before", "a": "after"}.get(prefix, "graph")
    cl = _Cluster(f"cluster_{key}", title, prefix + "_")
    p = cl.dot_name
    tensors = list(snap.tensors)
    if max_nodes is not None and len(tensors) > max_nodes:   # (a hostile trace file)
        tensors = [t for t in tensors if t.id == snap.focus] + \
            [t for t in tensors if t.id != snap.focus][:max_nodes - 1]
        text = f"⋯ {len(snap.tensors) - len(tensors)} more tensors"
        cl.nodes.append((cl.prefix + "more_tensors",
                         dict(label=text, shape="plaintext", fontcolor="#616161",
                              **{"class": "more"}), [text]))
    drawn = {t.id for t in tensors}
    for t in tensors:
        fill = MUTATED_FILL if t.id == snap.focus else TENSOR_FILL
        was = (versions or {}).get(t.id)
        rows = _tensor_rows(t, was)
        cls = "tensor" + (" stale" if t.stale else "") + (" bumped" if was is not None else "")
        cl.nodes.append((p(t.id), dict(label=_table(rows), shape="box", style="filled",
                                        fillcolor=fill, margin="0.08,0.04",
                                        **{"class": cls}),
                         [r for _, r in rows]))
    for n in snap.nodes:
        if n.id not in shown:
            continue
        attrs = dict(shape="box", style="rounded,filled", fillcolor=NODE_FILL,
                     margin="0.08,0.04")
        if n.kind == "copyslices":
            label, plain = _copyslices_label(n, snap)
            more = (extra or {}).get(n.id, ())
            if more:              # a backward moment's rows (draw_moment)
                label = _Html(label[:-len("</TABLE>>")] + "".join(
                    f"<TR><TD>{_small(text, color)}</TD></TR>" for text, color in more)
                    + "</TABLE>>")
                plain = plain + [text for text, _c in more]
            attrs.update(label=label, fillcolor=COPYSLICES_FILL, peripheries="2")
        else:
            rows = _node_rows(n)
            for text, color in (extra or {}).get(n.id, ()):
                rows.append((_small(text, color), text))
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
    for t in tensors:
        if t.grad_fn is not None and t.grad_fn in shown:
            ea = {"color": "#1565c0", "arrowsize": "0.7"}
            if t.stale:
                ea.update(style="dashed", color="#ef6c00", label="stale", fontsize="9",
                          fontcolor="#ef6c00")
            cl.edges.append((p(t.id), p(t.grad_fn), ea, True))
        elif t.accumulator is not None and t.accumulator in shown:
            cl.edges.append((p(t.id), p(t.accumulator),
                             dict(style="dotted", color="#757575", arrowsize="0.7"), True))
        if t.base is not None and t.base in drawn:
            cl.edges.append((p(t.id), p(t.base),
                             dict(style="dotted", color="#9e9e9e", arrowhead="none",
                                  constraint="false", label="view of", fontsize="8",
                                  fontcolor="#9e9e9e"), False))
    for n in snap.nodes:
        if n.id not in shown:
            continue
        outs = snap.out_edges(n.id)
        for e, many in parallel_edges(outs):
            if e.dst not in shown:
                continue
            ea = {"arrowsize": "0.7"}
            if len(outs) > 1:
                ea.update(label=many or str(e.index), fontsize="9")
            if e.dst in added and n.id in added:
                ea["color"] = "#f57f17"
            cl.edges.append((p(n.id), p(e.dst), ea, True))
    if folded is not None:
        _fold_boxes(cl, folded)
    if allow is not None or folded is not None:
        # where the walk stops now: edges to nodes neither shown nor in a box
        boxed = folded.boxed if folded is not None else set()
        cut = {}
        for nid in shown:
            k = snap.node(nid).more + sum(1 for e in snap.out_edges(nid)
                                          if e.dst not in shown and e.dst not in boxed)
            if k:
                cut[nid] = k
    if hidden:
        more = cl.prefix + "more"
        text = f"⋯ {hidden} more node{'s' if hidden != 1 else ''}"
        cl.nodes.append((more, dict(label=text, shape="plaintext", fontcolor="#616161",
                                    **{"class": "more"}), [text]))
        for nid in sorted(cut):
            if nid in shown:              # (not a node folded into a chain or fan box)
                cl.edges.append((p(nid), more, dict(style="dashed", color="#bdbdbd",
                                                     arrowsize="0.5"), True))
    return cl


def _fold_boxes(cl, folded):
    """The boxes standing for a collapsed chain or a grouped fan (render/fold.py)."""
    p = cl.dot_name
    box = dict(shape="box", style="rounded,dashed,filled", fillcolor="#fafafa",
               color="#90a4ae", fontcolor="#455a64", fontsize="11")
    for c in folded.chains:
        name = p(("chain", c.first))
        cl.nodes.append((name, dict(box, label=c.text(), **{"class": "collapsed"}),
                         [c.text()]))
        cl.edges.append((p(c.first), name, {"arrowsize": "0.7"}, True))
        cl.edges.append((name, p(c.last), {"arrowsize": "0.7"}, True))
    for f in folded.fans:
        name = p(("fan", f.node))
        cl.nodes.append((name, dict(box, label=f.text(), **{"class": "fan"}), [f.text()]))
        cl.edges.append((p(f.node), name, {"arrowsize": "0.7", "style": "dashed"}, True))


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
            from .layout import TITLE_MARGIN, estimate_size, layered, stable_text
            sizes = {name: estimate_size(rows) for name, _a, rows in cl.nodes}
            pos, (w, h) = layered([name for name, _a, _r in cl.nodes],
                                  [(s, d) for s, d, _a, lay in cl.edges if lay], sizes)
            pad = 16.0
            # the box given (bb) holds its title too: Graphviz would not widen it (the
            # same reason as panels.py's, where the nodes are centred under it)
            w = max(w, text_width(stable_text(clean(cl.title, LABEL_LIMIT)), 14)
                    + TITLE_MARGIN - 2 * pad)
        with g.subgraph(name=cl.name) as c:
            c.attr(fontname=FONT, fontsize="14", style="rounded", color="#90a4ae",
                   labeljust="l", labelloc="t")
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
    g = Digraph(name=name, comment=FIXED_LAYOUT_MARK if fixed else None, format="svg")
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


def draw(obj, max_nodes=DEFAULT_MAX_NODES, namespace=None, layout="auto",
         params=None) -> Digraph:
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
    kind, x = as_drawable(obj, namespace, params)
    if kind == "moment":
        return draw_moment(x, max_nodes)
    if kind == "event" and layout != "dot":
        from .panels import draw_event
        return draw_event(x, max_nodes)
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


def sized_plain(rows, size=11):
    """width/height (inches) for a plaintext node of ``rows`` measured with our metrics."""
    w = max(text_width(r, size) for r in rows) + 12
    h = len(rows) * size * 1.25 + 8
    return {"width": f"{w / 72:.3f}", "height": f"{h / 72:.3f}"}


def _legend_table(items):
    """An HTML-like table (the graph's label, under the picture): sample boxes."""
    cells = []
    for text, fill, color, style in items:
        border = "1" if style != "none" else "0"
        cells.append(f'<TD BORDER="{border}" COLOR="{color}" BGCOLOR="{fill}" '
                     f'STYLE="{"rounded" if style == "rounded" else ""}">'
                     f'<FONT POINT-SIZE="9" COLOR="{color if style == "none" else "#212121"}">'
                     f"{_e(text)}</FONT></TD>")
    cells = [c.replace(' STYLE=""', "") for c in cells]
    return _Html('<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="4" CELLPADDING="3"><TR>'
                 '<TD BORDER="0"><FONT POINT-SIZE="9" COLOR="#616161">legend:</FONT></TD>'
                 + "".join(cells) + "</TR></TABLE>>")


GRAPH_LEGEND = (("tensor", TENSOR_FILL, "#212121", "box"),
                ("mutated tensor", MUTATED_FILL, "#212121", "box"),
                ("grad_fn node", NODE_FILL, "#212121", "rounded"),
                ("leaf's AccumulateGrad", ACC_FILL, "#212121", "rounded"),
                ("CopySlices (fn inside)", COPYSLICES_FILL, "#6a1b9a", "rounded"),
                ("added by the op", ADDED_FILL, "#212121", "rounded"),
                ("saved @v0 (now v1) ✗: out of date", "#ffffff", "#c62828", "none"),
                ("- - stale view's grad_fn", "#ffffff", "#ef6c00", "none"),
                ("view of: dotted", "#ffffff", "#757575", "none"))
MOMENT_LEGEND = (("ran", "#f5f5f5", "#9e9e9e", "rounded"),
                 ("runs now", ADDED_FILL, "#212121", "rounded"),
                 ("in the ready queue (#1 pops first)", NODE_FILL, "#2e7d32", "rounded"),
                 ("waiting: count = edges still to deliver", NODE_FILL, "#212121", "rounded"),
                 ("failed", "#ffcdd2", "#c62828", "rounded"))


def _error_note(cl, m):
    """The error of a failed backward, as a note beside the node that raised (and the
    event that modified a saved tensor, for a version error)."""
    import textwrap
    err = m.trace.error
    lines = textwrap.wrap(err.message.splitlines()[0], 72)[:6]
    if err.blame is not None:
        lines.append(f"(the saved tensor was modified by event #{err.blame})")
    rows = "".join(f'<TR><TD ALIGN="LEFT"><FONT POINT-SIZE="10" COLOR="#b71c1c">{_e(ln)}'
                   "</FONT></TD></TR>" for ln in lines)
    label = _Html(f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">'
                  f"{rows}</TABLE>>")
    name = cl.dot_name(("error", m.node))
    cl.nodes.append((name, dict(label=label, shape="note", style="filled",
                                fillcolor="#ffebee", color="#c62828",
                                **{"class": "error"}), lines))
    cl.edges.append((cl.dot_name(m.node), name, dict(style="dashed", color="#c62828",
                                                     arrowhead="none"), False))


def draw_moment(m, max_nodes=DEFAULT_MAX_NODES, legend=True) -> Digraph:
    """The engine at one moment of a backward pass (``BackwardTrace.at(k)``): nodes that
    ran greyed (class "done"), the one about to run highlighted ("current"; "failed" and
    red when it raised), the ready queue marked with its order ("ready"), and on every
    node still to run its input buffer as the engine holds it (partial sums) and how many
    of its incoming edges have yet to deliver."""
    bt = m.trace
    snap = bt.graph
    done = set(m.done)
    queue = {nid: i for i, (nid, _n) in enumerate(m.queue)}
    deps0 = dict(bt.deps0)
    extra = {}
    for n in snap.nodes:
        if n.id in done or n.kind == "wrapped":
            continue
        rows = []
        if n.id == m.node:
            rows.append(("raises" if m.failing else "runs now", "#c62828" if m.failing
                         else "#e65100"))
        elif n.id in queue:
            rows.append((f"ready queue #{queue[n.id] + 1}", "#2e7d32"))
        elif n.kind != "root":
            left, total = m.counts.get(n.id, deps0.get(n.id, 0)), deps0.get(n.id, 0)
            rows.append((f"waiting for {left} of {total} edge{'s' * (total != 1)}", "#616161"))
        buf = m.buffers.get(n.id)
        if buf:
            got = ", ".join(g.text() if g is not None else "·" for g in buf)
            partial = n.id not in queue and n.id != m.node and m.counts.get(n.id, 0) > 0
            rows.append((("partial sum: " if partial else "buffer: ") + got, "#1565c0"))
        if n.id == m.node and m.step is not None and m.step.accumulate:
            rows.append((f"{m.step.variable}.grad: {m.step.accumulate}", "#00838f"))
            if m.step.strides:
                rows.append((m.step.strides, "#00838f"))
        if rows:
            extra[n.id] = rows
    title = m.title()
    cl = _collect(snap, "g", title, max_nodes, extra=extra)
    if m.failing and cl.dot_name(m.node) in {name for name, _a, _r in cl.nodes}:
        _error_note(cl, m)
    nodes = []
    for name, attrs, rows in cl.nodes:
        nid = cl.ids.get(name)
        attrs = dict(attrs)
        cls = attrs.get("class", "")
        if nid == m.node and m.failing:
            attrs.update(fillcolor="#ffcdd2", color="#c62828", style="rounded,filled,bold",
                         penwidth="3")
            cls += " current failed"
        elif nid == m.node:
            attrs.update(fillcolor=ADDED_FILL, style="rounded,filled,bold", penwidth="2")
            cls += " current"
        elif nid in done:
            attrs.update(fillcolor="#f5f5f5", fontcolor="#9e9e9e", color="#bdbdbd")
            cls += " done"
        elif nid in queue:
            attrs.update(color="#2e7d32", penwidth="2")
            cls += " ready"
        attrs["class"] = cls
        nodes.append((name, attrs, rows))
    cl.nodes = nodes
    fixed = len(cl.nodes) > FAST_LAYOUT_NODES
    g = _new_graph(f"backward{bt.index}_{m.k}", fixed)
    if legend:
        g.attr(label=_legend_table(MOMENT_LEGEND), labelloc="b")
    _emit(g, [cl], fixed)
    return g


def draw_backward_step(bt, step, max_nodes=DEFAULT_MAX_NODES) -> Digraph:
    """The graph of backward pass ``bt`` just before ``step`` runs (``draw_moment``)."""
    return draw_moment(bt.at(step), max_nodes)
