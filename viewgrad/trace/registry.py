"""Stable short ids for live graph objects, tensor labels, and the registry of live views.

A snapshot is plain data, so it cannot hold a Node or a Tensor: it names them. The names
must be the same in the "before" and the "after" snapshot of one event (that is how
``diff`` matches nodes), and stable for the life of the process (so two events can be
compared). ``Ids`` hands out ``n1, n2, ...`` for nodes and ``t1, t2, ...`` for tensors,
keyed by ``id(obj)`` and checked through a weak reference, so an id is never reused for a
different object while the first is alive, and dead entries are dropped.

(We cannot key a ``WeakKeyDictionary`` by Tensor: ``Tensor.__eq__`` is element-wise.)

Live views: to show every view that an in-place op makes stale, the tracer must know the
views of a base. ``autograd.state.state.view_observer`` is called for each new view while a
tracer is active; ``LiveViews`` keeps weak references, grouped by base.
"""
from __future__ import annotations

import itertools
import weakref

__all__ = ["Ids", "IDS", "LiveViews", "LIVE_VIEWS"]


class Ids:
    """``id_of(obj)`` → a short stable string id (``prefix`` + a counter)."""

    def __init__(self):
        self._table: dict[int, tuple] = {}   # id(obj) -> (weakref, short id)
        self._count = {"n": itertools.count(1), "t": itertools.count(1)}

    def id_of(self, obj, prefix: str) -> str:
        key = id(obj)
        entry = self._table.get(key)
        if entry is not None and entry[0]() is obj:
            return entry[1]
        sid = f"{prefix}{next(self._count[prefix])}"
        try:
            ref = weakref.ref(obj, lambda _r, k=key, s=sid: self._drop(k, s))
        except TypeError:  # not weak-referenceable: never happens for Node/Tensor
            return sid
        self._table[key] = (ref, sid)
        return sid

    def _drop(self, key, sid):
        entry = self._table.get(key)
        if entry is not None and entry[1] == sid:
            del self._table[key]

    def node(self, node) -> str:
        return self.id_of(node, "n")

    def tensor(self, t) -> str:
        return self.id_of(t, "t")


IDS = Ids()


class LiveViews:
    """Weak registry: base tensor → its live views (filled through the view_created slot)."""

    def __init__(self):
        self._by_base: dict[int, tuple] = {}   # id(base) -> (weakref(base), [weakref(view)])
        self._added = 0

    def add(self, view):
        base = view._base
        if base is None:
            return
        entry = self._by_base.get(id(base))
        if entry is None or entry[0]() is not base:
            entry = (weakref.ref(base), [])
            self._by_base[id(base)] = entry
        entry[1].append(weakref.ref(view))
        self._added += 1
        if self._added > 4096:      # amortised clean-up of dead views and bases
            self.prune()

    def prune(self):
        self._added = 0
        for key in list(self._by_base):
            bref, views = self._by_base[key]
            if bref() is None:
                del self._by_base[key]
                continue
            views[:] = [r for r in views if r() is not None]

    def views_of(self, base) -> list:
        entry = self._by_base.get(id(base))
        if entry is None or entry[0]() is not base:
            return []
        out = []
        for r in entry[1]:
            v = r()
            if v is not None and v._base is base:
                out.append(v)
        return out

    def clear(self):
        self._by_base.clear()


LIVE_VIEWS = LiveViews()
