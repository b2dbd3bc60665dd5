"""Pictures of the storage: a base's memory as a strip of cells, each view's elements
outlined, the region an in-place op wrote filled.

A view is a window on its base's memory: element ``i`` of a view with sizes ``s``, strides
``st`` and storage offset ``o`` lives in cell ``o + Σ i_k * st_k``. That formula is the
whole of ``Stride``/``Unstride`` in the seed, and it is what this picture shows: the
base's storage as numbered cells (values inside), then one row per live view in which the
cells it covers are outlined and marked with the view's own index (``[1,0]``), and its
sizes, strides and offset written beside it. For an in-place event the written cells are
filled amber in the mutated tensor's row and in the storage row.

  storage_groups(snap, written=None)    plain data: one ``StorageGroup`` per base storage
  draw_storage(obj)                     a graphviz Digraph (one HTML-table node per storage)
  render_storage(obj)                   a rich renderable: a row of cells per tensor

``obj``: a GraphSnapshot, an InplaceEvent (its "after" snapshot, the written region from
the mutated tensor) or a Tensor / list of Tensors (snapshotted with the base's live views).
Long storages wrap every ``ROW`` cells; past ``MAX_CELLS`` the picture says how many more.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from ..trace.sanitize import LABEL_LIMIT, clean, dot_string, html_text

__all__ = ["StorageGroup", "storage_groups", "draw_storage", "render_storage", "cells_of",
           "MAX_CELLS"]

MAX_CELLS = 96
MAX_VIEWS = 32          # rows of views per storage; more are counted (a hostile file)
ROW = 16
VIEW_COLORS = ("#1565c0", "#2e7d32", "#6a1b9a", "#00838f", "#ad1457", "#4e342e")
WRITTEN_FILL = "#ffcc80"     # the cells an in-place op wrote (not ADDED_FILL: nodes)


def cells_of(shape, stride, offset, limit=MAX_CELLS * 64):
    """{storage cell: view index tuple} for a tensor's elements (first index wins when a
    cell is reached twice: an expanded view)."""
    out = {}
    # at most ``limit`` elements are looked at, so no dim needs more than ``limit`` values
    # (product() holds each range in memory: a file may claim a size of 10**9)
    for k, idx in enumerate(product(*(range(min(s, limit)) for s in shape))):
        if k >= limit:
            break
        c = offset + sum(i * st for i, st in zip(idx, stride))
        out.setdefault(c, idx)
    return out


@dataclass(frozen=True)
class Member:
    label: str
    shape: tuple
    stride: tuple
    offset: int
    cells: dict               # storage cell -> index in this tensor
    is_base: bool
    written: bool             # the in-place op wrote through this tensor

    def geometry(self) -> str:
        return (f"size {tuple(self.shape)} stride {tuple(self.stride)} "
                f"offset {self.offset}")


@dataclass(frozen=True)
class StorageGroup:
    base: str                 # label of the base tensor
    size: int                 # cells in the storage (as far as any tensor reaches)
    values: tuple             # per cell: text, or "" when unknown
    members: tuple            # Member: the base first, then its views (MAX_VIEWS at most)
    written: frozenset        # cells the in-place op wrote
    more_views: int = 0       # views beyond MAX_VIEWS, not drawn


def _values_by_cell(t, n):
    """Cell values from the base's printed preview (only when all of them are shown)."""
    if t.values is None or "..." in t.values:
        return ("",) * n
    flat = [v.strip() for v in t.values.replace("[", " ").replace("]", " ").split(",")]
    flat = [v for v in flat if v]
    if len(flat) != n:
        return ("",) * n
    # the base is laid out by its own strides: map its elements back onto cells
    return tuple(flat)


def storage_groups(snap, written_tensor=None):
    """One StorageGroup per base in ``snap`` that has views (or was written), in order."""
    tensors = list(snap.tensors)
    views_of = {}
    for t in tensors:
        if t.is_view:
            views_of.setdefault(t.base, []).append(t)
    groups = []
    for base in tensors:
        if base.is_view:
            continue
        views = views_of.get(base.id, [])
        if not views and written_tensor != base.id:
            continue
        more = max(0, len(views) - MAX_VIEWS)
        if more:       # the written view always drawn
            views = [t for t in views if t.id == written_tensor][:1] + \
                [t for t in views if t.id != written_tensor][:MAX_VIEWS - 1]
        members = []
        written = frozenset()
        for t in [base] + views:
            cells = cells_of(t.shape, t.stride, t.offset)
            w = t.id == written_tensor
            if w:
                written = frozenset(cells)
            members.append(Member(t.label, tuple(t.shape), tuple(t.stride), t.offset, cells,
                                  t is base, w))
        size = max((max(m.cells) + 1 for m in members if m.cells), default=0)
        # values of the cells drawn only: a file may claim offsets of 10**12
        vals = ("",) * min(size, MAX_CELLS)
        bcells = members[0].cells
        if base.values is not None and len(bcells) == size <= MAX_CELLS * 64:
            flat = _values_by_cell(base, size)
            if any(flat):
                by_cell = [""] * size
                for k, (c, _idx) in enumerate(sorted(bcells.items(), key=lambda kv: kv[1])):
                    by_cell[c] = flat[k]
                vals = tuple(by_cell[:MAX_CELLS])
        groups.append(StorageGroup(base.label, size, vals, tuple(members), written, more))
    return groups


def _as_groups(obj, namespace=None):
    from .common import as_drawable
    kind, x = as_drawable(obj, namespace)
    if kind == "event":
        return storage_groups(x.after, x.tensor_id), f"storage after {x.call_text()}"
    return storage_groups(x, None), "storage"


def _idx_text(idx):
    return ",".join(str(i) for i in idx) if idx else "·"


# -- DOT ------------------------------------------------------------------------------

def _e(s):
    """Text for an HTML-like label: cleaned, cut, escaped (Note [Untrusted text])."""
    return html_text(s, LABEL_LIMIT, keep_newlines=False)


def _group_table(g):
    n = min(g.size, MAX_CELLS)
    rows = []
    for start in range(0, n, ROW):
        stop = min(n, start + ROW)
        span = stop - start
        head = ['<TD ALIGN="LEFT"><FONT POINT-SIZE="10" COLOR="#616161">cell</FONT></TD>']
        head += [f'<TD><FONT POINT-SIZE="9" COLOR="#616161">{c}</FONT></TD>'
                 for c in range(start, stop)]
        rows.append("<TR>" + "".join(head) + "</TR>")
        vals = [f'<TD ALIGN="LEFT"><B>{_e(g.base)}</B> <FONT POINT-SIZE="9">storage</FONT>'
                "</TD>"]
        for c in range(start, stop):
            fill = f' BGCOLOR="{WRITTEN_FILL}"' if c in g.written else ""
            vals.append(f'<TD BORDER="1"{fill}><FONT POINT-SIZE="10">{_e(g.values[c]) or " "}'
                        "</FONT></TD>")
        rows.append("<TR>" + "".join(vals) + "</TR>")
        for k, m in enumerate(g.members):
            if m.is_base and not m.written:
                continue
            color = VIEW_COLORS[k % len(VIEW_COLORS)]
            tds = [f'<TD ALIGN="LEFT"><FONT COLOR="{color}"><B>{_e(m.label)}</B></FONT> '
                   f'<FONT POINT-SIZE="9">{_e(m.geometry())}</FONT></TD>']
            for c in range(start, stop):
                if c in m.cells:
                    fill = WRITTEN_FILL if m.written else "#ffffff"
                    tds.append(f'<TD BORDER="2" COLOR="{color}" BGCOLOR="{fill}">'
                               f'<FONT POINT-SIZE="9" COLOR="{color}">'
                               f"{_e(_idx_text(m.cells[c]))}</FONT></TD>")
                else:
                    tds.append("<TD> </TD>")
            rows.append("<TR>" + "".join(tds) + "</TR>")
        if stop < n:
            rows.append(f'<TR><TD COLSPAN="{span + 1}"> </TD></TR>')
    for more, what in ((g.size - MAX_CELLS, "cells"), (g.more_views, "views")):
        if more > 0:
            rows.append(f'<TR><TD COLSPAN="{ROW + 1}" ALIGN="LEFT"><FONT POINT-SIZE="10" '
                        f'COLOR="#616161">⋯ {more} more {what}</FONT></TD></TR>')
    from .dot import _Html
    return _Html('<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="3">'
                 + "".join(rows) + "</TABLE>>")


def draw_storage(obj, namespace=None):
    """A graphviz Digraph: one table per storage (cells, values, each view outlined)."""
    from .dot import Digraph, FONT, sized_plain
    groups, title = _as_groups(obj, namespace)
    g = Digraph(name="storage", format="svg")
    g.attr(fontname=FONT, labelloc="t", fontsize="13")
    g.body.append(f"\tlabel={dot_string(title, LABEL_LIMIT)}\n")
    g.attr("node", fontname=FONT, fontsize="11", shape="plaintext")
    if not groups:
        g.node("none", label="no views share a storage here", shape="box", style="rounded",
               color="#cfd8dc", **sized_plain(["no views share a storage here"]))
    for i, grp in enumerate(groups):
        g.node(f"storage{i}", label=_group_table(grp), shape="box", style="rounded",
               color="#cfd8dc", margin="0.08", **{"class": "storage"})
    return g


# -- terminal -------------------------------------------------------------------------

def render_storage(obj, namespace=None, width=None):
    """A rich renderable: per storage, the row of cells and one row per view."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text
    groups, title = _as_groups(obj, namespace)
    parts = [Text(clean(title, LABEL_LIMIT), style="bold")]
    if not groups:
        parts.append(Text("no views share a storage here", style="dim"))
    styles = ("bold blue", "bold green", "bold magenta", "bold cyan", "bold red", "bold")
    for grp in groups:
        n = min(grp.size, MAX_CELLS)
        for start in range(0, n, ROW):
            stop = min(n, start + ROW)
            t = Table(box=None, show_header=False, padding=(0, 0), pad_edge=False)
            t.add_column(no_wrap=True)
            for _ in range(start, stop):
                t.add_column(justify="center", no_wrap=True)
            t.add_row(Text("cell ", style="dim"),
                      *[Text(f"{c:^5}", style="dim") for c in range(start, stop)])
            cells = []
            for c in range(start, stop):
                v = (grp.values[c] or "·")[:5]
                v = clean(v, 5)
                cells.append(Text(f"[{v:^3}]" if len(v) <= 3 else f"{v:^5}",
                                  style="black on yellow" if c in grp.written else ""))
            t.add_row(Text(clean(f"{grp.base} storage ", LABEL_LIMIT), style="bold"), *cells)
            for k, m in enumerate(grp.members):
                if m.is_base and not m.written:
                    continue
                st = styles[k % len(styles)]
                row = [Text(clean(f"{m.label} ", LABEL_LIMIT), style=st)]
                for c in range(start, stop):
                    if c in m.cells:
                        row.append(Text(f"{_idx_text(m.cells[c]):^5}",
                                        style=st + (" on yellow" if m.written else "")))
                    else:
                        row.append(Text("  ·  ", style="dim"))
                t.add_row(*row)
            parts.append(t)
        for k, m in enumerate(grp.members):
            if m.is_base and not m.written:
                continue
            parts.append(Text(clean(f"  {m.label}: {m.geometry()}", LABEL_LIMIT)
                              + ("  (written)" if m.written else ""),
                              style=styles[k % len(styles)]))
        if grp.size > MAX_CELLS:
            parts.append(Text(f"  ⋯ {grp.size - MAX_CELLS} more cells", style="dim"))
        if grp.more_views:
            parts.append(Text(f"  ⋯ {grp.more_views} more views", style="dim"))
    return Group(*parts)
