"""Long chains of lean nodes kept as rows of a list (Note [folded chains], Note [a pack's
run]).

Note [folded chains]
A speed trick, fenced off here; nothing in the teaching path (``record``, the engine's
``run_backward``, views.py) knows of it. A graph is made of node objects, and every node
object and edge tuple is a container the cyclic garbage collector tracks. A long chain
of small ops (``y = y.tanh()`` 100,000 times) keeps ~3.5 of them alive per node until its
backward, and with the collector on every full collection walks them all, and the rest
of the program's objects too (a process that has imported torch holds ~200,000): the
cost per node grows with the graph (issue 19). PyTorch's nodes are C++ objects, which
the collector never sees.

So a lean chain node that nothing can reach any more but the node after it (its output
tensor is gone; nobody holds it, its edge or its ``next_functions``, nor a weak reference
to it; it has no hooks, metadata or anything else in its ``__dict__``) is *folded*: what
its slots hold becomes a row (Note [a row]) of a ``Pack``, oldest first, with the edges
of the oldest; the node object and its edge tuples are freed. A row holds numbers,
strings and arrays, no container, so the collector stops tracking it at its first
collection. The newest node above the rows (the node of a live tensor, or one a tick
marked) *holds* the pack: its ``next_functions`` slot holds the Pack and its class is
swapped (as ``Parameter``'s is) for a twin whose only differences are a
``next_functions`` property and ``_chain_step`` None (Note [a pack's run]).

Rows come back as nodes when anything asks: reading a holder's ``next_functions`` (the
engine's general loop, ``_collect``, the tracer, a user walking the graph) makes the
node of the newest row (the same class, sequence number, saved values and blame mark),
puts the real edges back in the holder's slot, gives the holder its own class back, and
makes the new node the holder of the rows left (or gives it the pack's edges). Nothing
can tell the new node from the folded one: nothing held that one. A result's version
counter that only the folded node held, at version 0, is dropped and made anew when the
row comes back: nothing could have bumped it.

The lean calls of ops/lean.py ``tick`` every ``EVERY`` sequence numbers; in a long chain
each tick folds what lies below the node the previous tick marked (``tick``), so the
newest nodes stay objects and a chain shorter than ``EVERY * ANCHOR`` nodes is never
folded. Folding is off while a tracer or anomaly mode runs (the lean calls are), where
``sys.getrefcount`` does not count as the checks expect (``_counted_as_expected``), and
when switched off (``set_folding(False)``: tests/autograd/test_fold.py runs programs both
ways and compares gradients, errors and the graphs walked node by node).
"""
from __future__ import annotations

import sys
import threading
import weakref

from .graph import Node, _InNode, _NO_EDGE
from .nodes import FnNode
from .recording import _NOTHING_SAVED
from ..tensor import VersionCounter

__all__ = ["tick", "fold", "run_pack", "set_folding", "EVERY", "MASK", "Pack"]

EVERY = 64    # the lean calls tick every this many sequence numbers (a power of two)
MASK = EVERY - 1
ANCHOR = 4    # ticks between two "is this a long chain?" questions (Note [folded chains])
_enabled = [True]
_mark = [None]     # a weak reference to the node the last tick marked
_anchor = [None]   # ... and to the one the last question marked
_ticks = [0]
_long = [False]    # the last question's answer
_folding = threading.Lock()   # (two threads folding one chain would each lose rows)
_ref = weakref.ref

_grc = sys.getrefcount
_SLOT = Node.__dict__["next_functions"]   # the slot itself, under a holder's property
_raw_get = _SLOT.__get__
_raw_set = _SLOT.__set__
_new = object.__new__
_VC = VersionCounter


def set_folding(enabled: bool) -> bool:
    """Turn folding on or off (tests compare both); returns the previous setting."""
    prev = _enabled[0]
    _enabled[0] = bool(enabled)
    return prev


class Pack:
    """The folded nodes of a chain: ``rows`` oldest first (each a tuple of numbers,
    Note [a row]), ``vals`` the value each saved (``_REL`` once released), ``parent``
    the edges of the oldest (its ``next_functions``), ``two`` whether the holder's own
    edges have a second entry (``((fn, 0), _NO_EDGE)``: a number or constant operand),
    ``counters`` the version counters of the saved inputs (a row holds their index)."""

    __slots__ = ("rows", "vals", "parent", "two", "counters")


# Note [a row]
# A row holds no class and no marker, only their numbers (a class or a marker is a
# container the collector tracks, and a tuple holding one would stay tracked):
# (class number, sequence number, marker number, two) and, after them, what the marker's
# kind fills besides ``_sv`` (ops/lean.py): a result's version counter (None once only
# the node held it) and blame mark; a number's operand; an input's counter (its index in
# the pack's ``counters``: the counter of a constant is shared and lives on), version and
# blame mark. ``_sv`` itself is in the pack's ``vals``, where releasing it is one store.

_REL = object()   # a released value (release_variables has run)
_CLASSES = []   # class number -> node class (its twin: cls._twin)
_NS = _NOTHING_SAVED
_MARKERS = [_NS]   # marker number -> the node's ``_sdict``
_MKIND = [None]    # marker number -> 0 result, 1 number, 2 input (or history)
_MI = {}           # marker -> its number
_KINDS = {"result": 0, "number": 1, "input": 2, "history": 2}


def _marker_number(sd):
    """The number of saved-value marker ``sd`` (an _InNode), given on first sight."""
    i = len(_MARKERS)
    _MARKERS.append(sd)
    _MKIND.append(_KINDS[sd.kind])
    _MI[sd] = i   # (markers are cached for good: Note [saved values in the node])
    return i


def _node_of(row, v, pack):
    """The node a row of ``pack`` was: the same class and slots (Note [folded chains]);
    released if its value is."""
    ci, seq, mi = row[0], row[1], row[2]
    p = _new(_CLASSES[ci])
    p._seq_nr = seq
    if not mi:
        p._sdict = _NS
        p._releasable = False
        return p
    rel = v is _REL
    p._sdict = None if rel else _MARKERS[mi]
    p._releasable = True
    p._sv = None if rel else v
    k = _MKIND[mi]
    if k == 0:
        vc = row[4]
        if vc is None and not rel:   # (dropped: only the node held it, at version 0)
            vc = _new(_VC)
            vc.version = 0
            vc.bumps = None
        p._svc = vc
        p._swhere = row[5]
    elif k == 1:
        p._sarg = row[4]
    else:
        p._svc = pack.counters[row[4]]
        p._sver = row[5]
        p._swhere = row[6]
    return p


def _edges_to(p, two):
    return ((p, 0), _NO_EDGE) if two else ((p, 0),)


def _holder_edges(self):
    """A holder's ``next_functions``: its newest folded node made again (Note [folded
    chains]), the real edges put back in its slot, its own class given back."""
    pack = _raw_get(self)
    two = pack.two
    rows = pack.rows
    row = rows.pop()
    p = _node_of(row, pack.vals.pop(), pack)
    if rows:   # the new node holds the rest
        pack.two = row[3]
        _raw_set(p, pack)
        p.__class__ = type(p)._twin
    else:
        p.next_functions = pack.parent
    e = _edges_to(p, two)
    _raw_set(self, e)
    self.__class__ = _CLASSES[self._fold_i]
    return e


def _set_holder_edges(self, edges):
    """Setting a holder's ``next_functions``: its rows are dropped, its class given back."""
    _raw_set(self, edges)
    self.__class__ = _CLASSES[self._fold_i]


_HOLDER = property(_holder_edges, _set_holder_edges,
                   doc="The node's edges (Note [folded chains], autograd/fold.py).")


def _register(cls):
    """Give node class ``cls`` its class number and twin, or -1 if it may not fold: an
    FnNode row class adding no slots of its own, with one output."""
    ok = (issubclass(cls, FnNode) and not cls._n_outputs and cls.OP is not None
          and all(k.__dict__.get("__slots__", None) == () for k in cls.__mro__
                  if issubclass(k, FnNode) and k is not FnNode))
    if ok:
        twin = type(cls.__name__, (cls,), {
            "__slots__": (), "next_functions": _HOLDER, "_holds": True, "_chain_step": None,
            "_chain_inline": None,
            "__module__": cls.__module__, "__qualname__": cls.__qualname__,
            "__doc__": cls.__doc__})
        try:   # (the same layout, or Python refuses the swap)
            probe = _new(cls)
            probe.__class__ = twin
        except TypeError:
            ok = False
    if not ok:
        cls._fold_i = -1
        return -1
    i = len(_CLASSES)
    _CLASSES.append(cls)
    cls._twin = twin
    cls._fold_i = i
    return i


def _counted_as_expected():
    """Whether ``sys.getrefcount`` counts as ``fold``'s checks expect (the holder, our
    local, the argument): an interpreter that counts otherwise never folds."""
    class Probe:
        __slots__ = ("next_functions",)

    def looks_unique(holder):
        e = holder.next_functions
        if _grc(e) != 3:
            return False
        edge = e[0]
        if _grc(edge) != 3:
            return False
        p = edge[0]
        return _grc(p) == 3

    h = Probe()
    h.next_functions = ((Probe(), 0),)
    if not looks_unique(h):
        return False
    held = h.next_functions[0][0]
    return not looks_unique(h) and held is not None


_enabled[0] = _counted_as_expected()


def _not_run(a):
    """Whether no backward has run node ``a``'s graph yet, as its first few nodes that
    save a value tell (a backward releases them; a node that saves nothing cannot say):
    False when none of them can."""
    for _ in range(8):
        if getattr(a, "_releasable", False):
            return a._sdict is not None
        e = _raw_get(a)
        if type(e) is Pack:   # (a holder that saves nothing: its newest row)
            return bool(e.vals) and e.vals[-1] is not _REL and e.rows[-1][2] != 0
        if not e or e[0][0] is None:
            return False
        a = e[0][0]
    return False


def tick(fn):
    """Called by the lean calls (ops/lean.py) every ``EVERY`` sequence numbers with the
    node of their input. Every ``ANCHOR``-th tick asks whether the node it marked that
    many ticks ago is still alive and not yet run by a backward (``_not_run``, which
    looks at the first nodes below it that save a value): only then is this a long
    chain (or a graph still being built beside it), and until the next such question
    each tick folds what lies below the node the previous tick marked. The marks are weak
    references, so a marked node stays an object (the holder) until the next tick; a
    chain shorter than ``EVERY * ANCHOR`` nodes is never folded, and the newest ``EVERY``
    to ``2 * EVERY`` nodes of a longer one stay objects."""
    if not _folding.acquire(False):   # another thread is folding: skip this tick
        return
    try:
        r = _ref(fn)
        prev = _mark[0]
        _mark[0] = r
        n = _ticks[0] = _ticks[0] + 1
        if not n % ANCHOR:
            a = _anchor[0]
            a = None if a is None else a()
            # alive, and not run by a backward: its graph is still being built (an old
            # graph kept alive after its backward would say nothing of this chain)
            _long[0] = a is not None and _not_run(a)
            a = None
            _anchor[0] = r
        r = None
        if _long[0] and prev is not None:
            m = prev()
            prev = None
            if m is not None:
                fold(m)
    finally:
        _folding.release()


def fold(fn):
    """Fold the nodes below ``fn`` that nothing else can reach into a pack that ``fn``
    holds (Note [folded chains]); nothing when there are none."""
    if not _enabled[0]:
        return
    t = type(fn)
    ci = t._fold_i
    if ci is None:
        ci = _register(t)
    if ci < 0 or t._holds:   # (a holder: nothing between it and its rows)
        return
    e = fn.next_functions
    n = len(e)
    if n != 1 and (n != 2 or e[1] is not _NO_EDGE):
        return
    fn_two = n == 2
    new = []    # rows, newest first
    vals = []
    counters = []   # (of the inputs saved: a row holds its index here, then in the pack's)
    pack = None
    # each check counts the references it allows: the one holder (a node's slot, an
    # edges tuple), our local, the argument
    while _grc(e) == 3:
        edge = e[0]
        if edge[1] or _grc(edge) != 3:
            break
        p = edge[0]
        if _grc(p) != 3:   # (None: far more)
            break
        ci = p._fold_i
        if ci is None:
            ci = _register(type(p))
        if ci < 0 or p.__weakref__ is not None or p.__dict__:
            break   # (__dict__: hooks, metadata, _shapes, _dtypes, an anomaly trace...)
        sd = p._sdict
        if sd is _NS:
            mi = 0
        elif type(sd) is _InNode:
            mi = _MI.get(sd) or _marker_number(sd)
        else:
            break   # (a dict of SavedTensors, or released)
        if p._holds:   # an earlier holder: its rows are older than it
            e = _raw_get(p)
            pack = e
            two = e.two
        else:
            e = p.next_functions
            n = len(e)
            two = n == 2
        if not mi:
            new.append((ci, p._seq_nr, 0, two))
            vals.append(None)
        else:
            k = _MKIND[mi]
            if k == 0:
                vc = p._svc
                if _grc(vc) == 3 and vc.version == 0 and vc.bumps is None:
                    vc = None   # (only p held it, unbumped: nothing can bump it now)
                new.append((ci, p._seq_nr, mi, two, vc, p._swhere))
                vc = None
            elif k == 1:
                new.append((ci, p._seq_nr, mi, two, p._sarg))
            else:
                new.append((ci, p._seq_nr, mi, two, len(counters), p._sver, p._swhere))
                counters.append(p._svc)
            vals.append(p._sv)
        if pack is not None or (n != 1 and (n != 2 or e[1] is not _NO_EDGE)):
            break
    if not new:
        return
    p = edge = None
    if pack is None:   # e: the oldest node's edges
        pack = _new(Pack)
        pack.rows = []
        pack.vals = []
        pack.counters = []
        pack.parent = e
    e = None
    if counters:   # (their order in the pack is no matter: the rows' indices shift by base)
        base = len(pack.counters)
        pack.counters += counters
        if base:
            new = [r if len(r) < 7 else r[:4] + (base + r[4],) + r[5:] for r in new]
    new.reverse()
    vals.reverse()
    pack.rows += new
    pack.vals += vals
    pack.two = fn_two
    _raw_set(fn, pack)   # (the folded nodes go now)
    fn.__class__ = t._twin


# -- the plain backward through a pack (Note [a pack's run]) ----------------------------------
#
# Note [a pack's run]
# Making every row a node again in the backward would make the whole chain objects again
# (the root holds the graph until the backward ends). So the plain loop's chain run
# (engine_chain.py) runs a holder's rows itself, newest first, exactly as it runs a chain
# of nodes: each row's step (its class's ``_chain_step``) on a stand-in node of its
# class whose slots are set from the row; the rows that ran are released (their values
# dropped: a released row comes back as a released node). A row whose step answers None
# (a saved value modified in place, a released row, a class without a step) and the
# oldest row when what it feeds is no chain's next node (a node with several outputs, an
# input that is not the first) are made real nodes where they stand, the pack split
# around them (``_split``), and the loop takes that node as always: it raises what it
# raises, from where it always did.

_DUMMY = object()   # (a stand-in's edges: the steps only ask whether there is a node)
_FLY_EDGES = (((_DUMMY, 0),), ((_DUMMY, 0), _NO_EDGE))
_ZERO = _new(_VC)   # a counter nobody can bump: a stand-in's for a dropped one
_ZERO.version = 0
_ZERO.bumps = None


def _split(holder, pack, i):
    """Make row ``i`` of ``holder``'s pack a node where it stands: the rows above it
    stay the holder's (their oldest's edges now lead to the node), the rows below become
    the node's. Returns the node."""
    rows = pack.rows
    vals = pack.vals
    p = _node_of(rows[i], vals[i], pack)
    if i:
        low = _new(Pack)
        low.rows = rows[:i]
        low.vals = vals[:i]
        low.counters = pack.counters   # (shared: rows hold indices into it)
        low.parent = pack.parent
        low.two = rows[i][3]
        _raw_set(p, low)
        p.__class__ = type(p)._twin
    else:
        p.next_functions = pack.parent
    if i + 1 < len(rows):
        pack.parent = _edges_to(p, rows[i + 1][3])
        pack.rows = rows[i + 1:]
        pack.vals = vals[i + 1:]
    else:
        _raw_set(holder, _edges_to(p, pack.two))
        holder.__class__ = _CLASSES[holder._fold_i]
    return p


def holder_step(holder):
    """The chain step of a holder's own class (its twin's is None, so that the chain
    run's one read of ``_chain_step`` sends a holder here: Note [a pack's run])."""
    return _CLASSES[holder._fold_i]._chain_step


def run_pack(holder, pack, g, keep_graph):
    """Run the rows of ``holder``'s pack (the holder itself has run: ``g`` is its input
    gradient) as the chain run runs nodes (Note [a pack's run]). Returns the node to run
    next and its gradient: the node the oldest row feeds, or a row made a node (not run)."""
    rows = pack.rows
    vals = pack.vals
    flies = {}   # 2 * class number + two -> (step, stand-in)
    top = i = len(rows) - 1
    r = g
    while i >= 0:
        v = vals[i]
        if v is _REL:
            break   # (released: the general step raises)
        row = rows[i]
        if not i:   # what the oldest feeds must be a chain's next node (Note [chain run])
            e = pack.parent
            fn, nr = e[0]
            if (fn is None or nr or fn._n_outputs
                    or (len(e) != 1 and (len(e) != 2 or e[1][0] is not None))):
                break
        key = row[0] + row[0] + row[3]
        f = flies.get(key)
        if f is None:
            cls = _CLASSES[row[0]]
            step = cls._chain_step
            if step is None:
                break
            fly = _new(cls)
            _raw_set(fly, _FLY_EDGES[row[3]])
            f = flies[key] = (step, fly)
        step, fly = f
        mi = row[2]
        if mi:   # (the slots _node_of fills, in line: a stand-in's per row)
            fly._sdict = _MARKERS[mi]
            fly._sv = v
            k = _MKIND[mi]
            if not k:
                vc = row[4]
                fly._svc = _ZERO if vc is None else vc
            elif k == 1:
                fly._sarg = row[4]
            else:
                fly._svc = pack.counters[row[4]]
                fly._sver = row[5]
        else:
            fly._sdict = _NS
        g = step(fly, g)
        if g is None:
            g = r
            break
        r = g
        i -= 1
    fly = f = flies = v = None
    if not keep_graph and i < top:   # the rows that ran, released at once
        vals[i + 1:] = [_REL] * (top - i)
    if i >= 0:
        return _split(holder, pack, i), g
    return pack.parent[0][0], g
