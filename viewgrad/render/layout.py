"""A fast layered layout for big graphs (positions handed to Graphviz with ``-n2``).

Graphviz's ``dot`` layout is excellent for small graphs and hopeless for big autograd
graphs: shared leaves (a weight used in every step) make edges that span hundreds of ranks,
and its crossing minimisation over the virtual nodes takes minutes for a few hundred nodes.
For big pictures viewgrad places the nodes itself — longest-path ranks (tensors on top,
leaves at the bottom), one barycenter pass to order each rank — and asks Graphviz only to
draw them at those positions (``neato -n2``: no layout), which is linear.

Everything is iterative (Kahn's algorithm), so depth is no problem.
"""
from __future__ import annotations

import re
from collections import deque

from .fontmetrics import text_width

__all__ = ["layered", "estimate_size", "node_size", "stable_text"]

H_GAP = 24.0
V_GAP = 36.0


def _bold(row: str) -> bool:
    # a node's name (MulBackward0, CopySlices) or a tensor's label heads its box in bold
    return bool(row) and row[0].isalpha() and " " not in row and len(row) < 40


def estimate_size(rows, header_pt=12, row_pt=10):
    """(width, height) in points of a label made of text ``rows`` (first row bold),
    measured with the metrics of the font the picture names (render/fontmetrics.py)."""
    if not rows:
        return 60.0, 30.0
    w = text_width(rows[0], header_pt, bold=True)
    h = header_pt * 1.2 + 4
    for r in rows[1:]:
        big = _bold(r)
        w = max(w, text_width(r, header_pt if big else row_pt, bold=big))
        h += (header_pt if big else row_pt) * 1.2 + 4
    return max(w, 30.0) + 24.0, h + 12.0


_SHORT_ID = re.compile(r"\b[nt]\d{1,7}\b")


# a cluster title's inset from its box on both sides, and a little air (the width a box
# given to Graphviz must have for its title: dot.py, panels.py)
TITLE_MARGIN = 28.0


def stable_text(text: str) -> str:
    """``text`` with every short id widened to seven digits (see ``node_size``)."""
    return _SHORT_ID.sub("t0000000", text)


def node_size(rows, attrs=None):
    """Size of a node as Graphviz will draw it (a little larger: never overlaps).

    A short id (``t7``, ``t1234``: a tensor nobody named) is measured as if it had seven
    digits: the ids count over the whole process, and a picture's layout must not depend
    on what ran before it (the tutorials' pictures are compared across runs)."""
    w, h = estimate_size([stable_text(r) for r in rows])
    if attrs and attrs.get("peripheries") == "2":     # CopySlices: an inner box, a frame
        w, h = w + 24.0, h + 24.0
    if attrs and attrs.get("shape") == "plaintext":
        w, h = w - 12.0, h - 8.0
    return w, h


def layered(nodes, edges, sizes):
    """Positions for ``nodes`` (ids, in a preferred order) given ``edges`` [(src, dst)] and
    ``sizes`` {id: (w, h)}. Returns ({id: (x, y)} with y growing upward, (width, height))."""
    index = {n: i for i, n in enumerate(nodes)}
    succ = {n: [] for n in nodes}
    preds = {n: [] for n in nodes}
    indeg = dict.fromkeys(nodes, 0)
    for s, d in edges:
        if s in index and d in index and s != d:
            succ[s].append(d)
            preds[d].append(s)
            indeg[d] += 1
    rank = dict.fromkeys(nodes, 0)
    queue = deque(n for n in nodes if indeg[n] == 0)
    while queue:
        n = queue.popleft()
        r = rank[n] + 1
        for d in succ[n]:
            if rank[d] < r:
                rank[d] = r
            indeg[d] -= 1
            if indeg[d] == 0:
                queue.append(d)
    # (a cycle cannot happen in an autograd graph; if it did, its nodes keep rank 0)
    ranks = {}
    for n in nodes:
        ranks.setdefault(rank[n], []).append(n)
    _order_ranks(ranks, preds, succ, index)
    order = {}
    ys = {}
    y = 0.0
    width = 0.0
    rows = []
    for r in sorted(ranks):
        members = ranks[r]
        h = max(sizes[n][1] for n in members)
        total = sum(sizes[n][0] for n in members) + H_GAP * (len(members) - 1)
        width = max(width, total)
        x = 0.0
        for n in members:
            ys[n] = y - h / 2
        rows.append((members, total))
        for n in members:
            w = sizes[n][0]
            order[n] = x + w / 2          # barycenters use x positions of the rank above
            x += w + H_GAP
        y -= h + V_GAP
    height = -y - V_GAP
    pos = {}
    for members, total in rows:
        shift = (width - total) / 2
        for n in members:
            pos[n] = (order[n] + shift, ys[n] + height)
    return pos, (width, height)


def _order_ranks(ranks, preds, succ, index, sweeps=4):
    """Order each rank to reduce crossings: the barycenter heuristic, sweeping down (by
    the positions of a node's predecessors) then up (its successors), a few times. Ties
    keep the preferred order, so the result is deterministic."""
    keys = sorted(ranks)
    if len(keys) < 2:
        return
    slot = {}
    for r in keys:
        for i, n in enumerate(ranks[r]):
            slot[n] = i

    def arrange(r, neighbours):
        def key(n):
            ps = [slot[p] for p in neighbours[n] if p in slot]
            return (sum(ps) / len(ps) if ps else slot[n], index[n])
        ranks[r].sort(key=key)
        for i, n in enumerate(ranks[r]):
            slot[n] = i

    for _ in range(sweeps):
        for r in keys[1:]:
            arrange(r, preds)
        for r in reversed(keys[:-1]):
            arrange(r, succ)
    for r in keys[1:]:
        arrange(r, preds)
