"""GraphSnapshot: a frozen, plain-data picture of an autograd graph at one moment.

A snapshot holds no Tensor and no Node, only what they looked like: so a later in-place
op can never change a snapshot already taken, and a snapshot can go to JSON and back.

  TensorInfo  a tensor: label, shape, stride, storage offset, dtype, version, whether it is
              a view (and of which base, by which chain of view ops), which node its
              ``grad_fn`` is (the RAW pointer: a stale view still points at the old
              history), its leaf's AccumulateGrad, and whether it is stale.
  NodeInfo    a graph node: stable id, PyTorch name, kind, saved tensors (with the version
              they were saved at and the version their storage is at now), non-tensor
              saved attributes, and for CopySlices the wrapped fn and the view geometry.
  EdgeInfo    ``src.next_functions[index] == (dst, input_nr)``. A CopySlices' wrapped fn
              keeps its own edges (``hidden``): edge 0 is the view's old history, which
              CopySlices never follows.

``build(...)`` walks the graph ITERATIVELY (breadth first from the tensors' grad_fns; graphs
can have 1e5 nodes) and reads only raw fields: it never calls ``Tensor.grad_fn`` (reading
it regenerates a stale view's grad_fn, i.e. changes the graph) nor ``requires_grad``.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from ..autograd.accumulate import AccumulateGrad
from ..autograd.function import BackwardCFunction
from ..autograd.graph import SavedTensor
from ..autograd.views import CopySlices, is_view_replay_enabled
from .. import backend as B
from .display import Displayable
from .labels import Labeler, chain_text, fmt_args, plain_view_fns
from .registry import IDS

__all__ = ["TensorInfo", "NodeInfo", "SavedInfo", "EdgeInfo", "Geometry", "GraphSnapshot",
           "build", "Labeler", "chain_text", "fmt_args", "preview"]

MAX_NODES = 400          # nodes snapshot() keeps in full (nearest the tensors first)
EVENT_MAX_NODES = 150    # ... and each of an event's two snapshots (a loop takes many)
COUNT_LIMIT = 200        # how far we count the nodes left out (``omitted`` is at least
                         # this many beyond it): an event's cost must not grow with the
                         # length of the history (a loop of 10,000 in-place ops)


@dataclass(frozen=True)
class SavedInfo:
    name: str                 # e.g. "self", "other", "result"
    shape: tuple
    dtype: str
    saved_version: int        # version of the storage when the node saved it
    current_version: int      # version now: differs → backward will raise
    is_output: bool           # the node saved its own result
    tensor: str | None = None        # id of the saved input tensor (None for an output)
    tensor_label: str | None = None

    @property
    def moved(self) -> bool:
        return self.current_version != self.saved_version

    def text(self) -> str:
        """``saved self: x @v0``; ``saved result: z @v0 (now v1) ✗`` once modified. (A
        copy of an old value is labelled with its version already: ``x @v0``.)"""
        lab = self.tensor_label
        if lab is None:
            s = f"saved {self.name} @v{self.saved_version}"
        elif " @v" in lab:
            s = f"saved {self.name}: {lab}"
        else:
            s = f"saved {self.name}: {lab} @v{self.saved_version}"
        if self.moved:
            s += f" (now v{self.current_version}) ✗"
        return s


@dataclass(frozen=True)
class Geometry:
    """Where CopySlices writes: the view's region inside the base."""
    base_sizes: tuple
    base_strides: tuple
    view_sizes: tuple
    view_strides: tuple
    view_offset: int
    view_fns: tuple           # ((op name, args), ...) replayed from the base
    replay: bool              # True: view_fn replay; False: as_strided geometry

    def text(self) -> str:
        return (f"view {list(self.view_sizes)} stride {list(self.view_strides)} "
                f"offset {self.view_offset} of base {list(self.base_sizes)}")


@dataclass(frozen=True)
class NodeInfo:
    id: str
    name: str                 # PyTorch's name: MulBackward0, CopySlices, AccumulateGrad...
    kind: str                 # function | view | copyslices | wrapped | accumulate | custom
                              # | root (a backward pass's GraphRoot)
    seq: int                  # sequence number (the engine's priority)
    saved: tuple = ()         # SavedInfo...
    attrs: tuple = ()         # ((name, repr), ...): non-tensor saved values
    freed: bool = False       # saved tensors released by a backward without retain_graph
    wrapped: str | None = None    # CopySlices: id of the wrapped fn node
    parent: str | None = None     # a wrapped fn: id of its CopySlices
    geometry: Geometry | None = None
    variable: str | None = None   # AccumulateGrad: id of its leaf tensor
    variable_label: str | None = None
    more: int = 0             # edges not followed (the snapshot was cut here)

    @property
    def broken(self) -> bool:
        """A saved tensor was modified since saving: backward through here will raise."""
        return any(s.moved for s in self.saved)


@dataclass(frozen=True)
class EdgeInfo:
    src: str
    dst: str
    index: int                # position in src.next_functions
    input_nr: int             # which output of dst the gradient goes to
    hidden: bool = False      # an edge of a CopySlices' wrapped fn (not followed)


@dataclass(frozen=True)
class TensorInfo:
    id: str
    label: str
    shape: tuple
    stride: tuple
    offset: int
    dtype: str
    version: int
    is_view: bool
    base: str | None              # id of the base tensor
    base_label: str | None
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None           # id of the raw grad_fn node (stale for a stale view)
    output_nr: int = 0
    accumulator: str | None = None    # leaf: id of its AccumulateGrad (if alive)
    stale: bool = False           # a view whose grad_fn predates the last in-place op
    view_fns: tuple = ()          # ((op name, args), ...) from the base
    creation_meta: str | None = None
    roles: tuple = ()             # mutated | base | view | operand | root
    name: str | None = None       # the user's ``.name``
    values: str | None = None     # a short preview of the data for tiny tensors


@dataclass(frozen=True)
class GraphSnapshot(Displayable):
    _display_kind = "snapshot"
    tensors: tuple
    nodes: tuple
    edges: tuple
    focus: str | None = None      # id of the tensor the op mutated
    omitted: int = 0              # reachable nodes not kept (graph bigger than max_nodes)
    view_replay: bool = False
    grad_enabled: bool = True
    _index: dict = field(default=None, init=False, repr=False, compare=False)

    def _idx(self):
        idx = self._index
        if idx is None:
            idx = {"n": {n.id: n for n in self.nodes},
                   "t": {t.id: t for t in self.tensors},
                   "l": {}, "out": {}}
            for t in self.tensors:
                idx["l"].setdefault(t.label, t)
            for e in self.edges:
                idx["out"].setdefault(e.src, []).append(e)
            object.__setattr__(self, "_index", idx)
        return idx

    # -- lookups (by id or by label) ---------------------------------------------------
    def tensor(self, key: str) -> TensorInfo:
        idx = self._idx()
        t = idx["t"].get(key) or idx["l"].get(key)
        if t is None:
            raise KeyError(f"no tensor {key!r} in this snapshot; it has "
                           f"{', '.join(t.label for t in self.tensors) or 'none'}")
        return t

    def has_tensor(self, key: str) -> bool:
        idx = self._idx()
        return key in idx["t"] or key in idx["l"]

    def node(self, node_id: str) -> NodeInfo:
        n = self._idx()["n"].get(node_id)
        if n is None:
            raise KeyError(f"no node {node_id!r} in this snapshot")
        return n

    def has_node(self, node_id) -> bool:
        return node_id in self._idx()["n"]

    def grad_fn(self, key: str) -> NodeInfo | None:
        """The node a tensor's (raw) grad_fn points at, or None."""
        t = self.tensor(key)
        return self.node(t.grad_fn) if t.grad_fn is not None else None

    def out_edges(self, node_id: str, hidden=False) -> list:
        return [e for e in self._idx()["out"].get(node_id, ()) if hidden or not e.hidden]

    def next_names(self, node_id: str) -> list:
        """Names of the nodes ``node_id`` points to, in edge order."""
        return [self.node(e.dst).name for e in self.out_edges(node_id)]

    def nodes_named(self, name: str) -> list:
        return [n for n in self.nodes if n.name == name]

    def node_names(self) -> list:
        return sorted(n.name for n in self.nodes)

    def __len__(self):
        return len(self.nodes)



# ---------------------------------------------------------------------------------------
# building a snapshot from live objects
# ---------------------------------------------------------------------------------------

def _requires_grad(t) -> bool:
    """requires_grad without touching ``Tensor.grad_fn`` (which regenerates stale views)."""
    if t._requires_grad or t._grad_fn is not None:
        return True
    b = t._base
    return b is not None and (b._requires_grad or b._grad_fn is not None)


def is_stale(t) -> bool:
    vi = t._view_info
    if vi is None or vi.version == t._version_counter.version:
        return False
    return t._grad_fn is not None or _requires_grad(vi.base)


def preview(t, limit=6):
    """``t``'s values as PyTorch prints them, summarised past ``limit`` elements; None
    when there is nothing sensible to show."""
    from ..printing import preview as _preview
    try:
        return _preview(t, limit)
    except Exception:  # noqa: BLE001 - a preview is optional
        return None


def _values(t):
    if t._data.size > 24:
        return None
    return preview(t)


def _kind(node) -> str:
    if isinstance(node, CopySlices):
        return "copyslices"
    if isinstance(node, AccumulateGrad):
        return "accumulate"
    if isinstance(node, BackwardCFunction):
        return "custom"
    op = getattr(type(node), "OP", None)
    if op is not None and getattr(op, "view", False):
        return "view"
    if node.name() == "AsStridedBackward0":
        return "view"
    if node_label(node) == "GraphRoot":
        return "root"
    return "function"


def node_label(n) -> str:
    """A node's name as pictures show it: ``name()`` without the C++ namespace PyTorch
    gives its hand-written nodes ("torch::autograd::AccumulateGrad" is "AccumulateGrad")."""
    return n.name().rpartition("::")[2]


def _short(v, limit=40) -> str:
    try:
        s = repr(v)
    except Exception:  # noqa: BLE001
        s = f"<{type(v).__name__}>"
    return s if len(s) <= limit else s[:limit - 1] + "…"


def _saved_info(node, labeler, ids):
    saved, attrs = [], []
    try:
        items = node.saved_items()
    except Exception:  # noqa: BLE001 - an odd custom node: show what we can
        items = []
    for name, v in items:
        if type(v) is SavedTensor:
            t = v.tensor
            label = labeler(t) if t is not None else None
            if t is None and v.is_output:      # a saved result: name it after its output
                label = labeler.output_label(node, v.output_nr)
            saved.append(SavedInfo(
                name=str(name), shape=tuple(int(s) for s in v.shape),
                dtype=B.dtype_name(v.dtype), saved_version=int(v.saved_version),
                current_version=int(v.current_version), is_output=bool(v.is_output),
                tensor=ids.tensor(t) if t is not None else None,
                tensor_label=label))
        else:
            attrs.append((str(name), _short(v)))
    freed = getattr(node, "_saved", 0) is None
    return tuple(saved), tuple(attrs), freed


def _seq(node) -> int:
    return int(node._seq_nr)


def _replace(info, **kw):
    import dataclasses
    return dataclasses.replace(info, **kw)


class _NodeCache:
    """id(node) → (weakref, signature, NodeInfo, raw edges). The signature holds all that
    can change for a live node: the current version and label of each saved tensor,
    whether its saved tensors were freed, and its parent CopySlices (if it is a wrapped
    fn). Everything else about a node never changes after it is made."""

    def __init__(self):
        self._table = {}

    def _sig(self, n, parent, labeler):
        target = n.fn if isinstance(n, CopySlices) else n
        freed = getattr(target, "_saved", 0) is None
        sv = ()
        if not isinstance(n, CopySlices):
            try:
                items = n.saved_items()
            except Exception:  # noqa: BLE001
                items = []
            sv = tuple((v.version_counter.version,
                        labeler(v.tensor) if v.tensor is not None else
                        labeler.output_label(n, v.output_nr) if v.is_output else None)
                       for _k, v in items if type(v) is SavedTensor)
        var = labeler(n.variable) if isinstance(n, AccumulateGrad) else None
        return (id(parent) if parent is not None else None, freed, sv, var)

    def get(self, n, parent, labeler, ids):
        key = id(n)
        sig = self._sig(n, parent, labeler)
        entry = self._table.get(key)
        if entry is not None and entry[0]() is n and entry[1] == sig:
            return entry[2], entry[3]
        info = _node_info(n, parent, labeler, ids)
        nid = ids.node
        raw = tuple((i, e[0], nid(e[0]), int(e[1])) for i, e in enumerate(n.next_functions)
                    if e[0] is not None)
        import weakref
        try:
            ref = weakref.ref(n, lambda _r, k=key: self._table.pop(k, None))
        except TypeError:
            return info, raw
        self._table[key] = (ref, sig, info, raw)
        return info, raw


_CACHE = _NodeCache()


def _node_info(n, parent, labeler, ids):
    nid = ids.node
    kind = "wrapped" if parent is not None else _kind(n)
    saved, attrs, freed = ((), (), False) if kind == "copyslices" else \
        _saved_info(n, labeler, ids)
    geo = wrapped = var = var_label = None
    if kind == "copyslices":
        wrapped = nid(n.fn)
        geo = Geometry(tuple(n.base_sizes), tuple(n.base_strides), tuple(n.view_sizes),
                       tuple(n.view_strides), int(n.view_offset),
                       plain_view_fns(n.view_fns), bool(n.replay))
        freed = getattr(n.fn, "_saved", 0) is None
    elif kind == "accumulate":
        var = ids.tensor(n.variable)
        var_label = labeler(n.variable)
    return NodeInfo(
        id=nid(n), name=node_label(n), kind=kind, seq=_seq(n), saved=saved, attrs=attrs,
        freed=freed, wrapped=wrapped, parent=nid(parent) if parent is not None else None,
        geometry=geo, variable=var, variable_label=var_label, more=0)


def build(roots, labeler=None, max_nodes=MAX_NODES, grad_enabled=True, focus=None,
          ids=IDS, start_nodes=()) -> GraphSnapshot:
    """Snapshot the graph reachable from ``roots``: a list of ``(tensor, role)``.

    A view in ``roots`` brings its base. Nodes are kept breadth first from the tensors'
    grad_fns up to ``max_nodes``; the rest are counted (``omitted``) and the nodes where
    the walk was cut get ``more`` = the number of edges not followed.
    """
    labeler = labeler or Labeler(ids=ids)
    # -- tensors, in a stable order: first seen first --------------------------------
    order, roles = [], {}
    for t, role in roots:
        for tt, rr in ((t, role), (t._base, "base") if t._base is not None else (None, None)):
            if tt is None or (rr == "base" and id(tt) in roles):
                continue
            if id(tt) not in roles:
                order.append(tt)
                roles[id(tt)] = []
            if rr not in roles[id(tt)]:
                roles[id(tt)].append(rr)
    # -- nodes: iterative BFS ---------------------------------------------------------
    kept = {}          # id(node) -> node, in discovery order
    queue = deque()

    def visit(n):
        if n is not None and id(n) not in kept:
            kept[id(n)] = n
            queue.append(n)

    accs = {}
    for n in start_nodes:           # e.g. a backward pass's GraphRoot
        visit(n)
    for t in order:
        visit(t._grad_fn)
        ref = t._grad_accumulator
        acc = ref() if ref is not None else None
        if acc is not None:
            accs[id(t)] = acc
            visit(acc)
    expanded = []
    cut = False
    while queue:
        n = queue.popleft()
        expanded.append(n)
        if isinstance(n, CopySlices):
            kept.setdefault(id(n.fn), n.fn)   # drawn inside its CopySlices, not walked
        for e in n.next_functions:
            if e[0] is None:
                continue
            if len(kept) >= max_nodes and id(e[0]) not in kept:
                cut = True
                continue
            visit(e[0])
    omitted = 0
    more = {}
    if cut:
        # Count what was left out (ids only; bounded) and where the walk was cut.
        extra = set()
        stack = []
        for n in expanded:
            for e in n.next_functions:
                if e[0] is not None and id(e[0]) not in kept:
                    more[id(n)] = more.get(id(n), 0) + 1
                    if id(e[0]) not in extra:
                        extra.add(id(e[0]))
                        stack.append(e[0])
        while stack and len(extra) < COUNT_LIMIT:
            n = stack.pop()
            for e in n.next_functions:
                if e[0] is not None and id(e[0]) not in kept and id(e[0]) not in extra:
                    extra.add(id(e[0]))
                    stack.append(e[0])
        omitted = len(extra)
    # -- node infos and edges -----------------------------------------------------------
    # A node's info is rebuilt only when what it shows can have changed (its saved
    # tensors' versions and labels, freed or not): a trace of a loop snapshots the same
    # long history over and over (see _NodeCache).
    nid = ids.node
    wrapped_parent = {id(n.fn): n for n in kept.values() if isinstance(n, CopySlices)}
    nodes, edges = [], []
    cache = _CACHE
    for n in kept.values():
        parent = wrapped_parent.get(id(n))
        info, raw_edges = cache.get(n, parent, labeler, ids)
        m = more.get(id(n), 0)
        nodes.append(info if not m else _replace(info, more=m))
        hidden = parent is not None
        src = info.id
        for i, dst_node, dst, nr in raw_edges:
            if hidden and i > 0:
                continue        # the same edges as its CopySlices' edges 1..
            if not hidden and id(dst_node) not in kept:
                continue
            edges.append(EdgeInfo(src, dst, i, nr, hidden))
    # -- tensor infos -------------------------------------------------------------------
    tinfos = []
    for t in order:
        vi = t._view_info
        base = t._base
        rg = _requires_grad(t)
        acc = accs.get(id(t))
        tinfos.append(TensorInfo(
            id=ids.tensor(t), label=labeler(t), shape=tuple(int(s) for s in t._data.shape),
            stride=tuple(int(s) for s in t.stride()), offset=int(t.storage_offset()),
            dtype=B.dtype_name(t._data.dtype), version=int(t._version_counter.version),
            is_view=base is not None, base=ids.tensor(base) if base is not None else None,
            base_label=labeler(base) if base is not None else None, requires_grad=rg,
            is_leaf=t._grad_fn is None and not (base is not None and _requires_grad(base)),
            grad_fn=nid(t._grad_fn) if t._grad_fn is not None else None,
            output_nr=int(t._output_nr),
            accumulator=nid(acc) if acc is not None else None,
            stale=is_stale(t),
            view_fns=plain_view_fns(vi.view_fns) if vi is not None else (),
            creation_meta=vi.creation_meta.name if vi is not None else None,
            roles=tuple(roles[id(t)]), name=t._name, values=_values(t)))
    return GraphSnapshot(tuple(tinfos), tuple(nodes), tuple(edges),
                         focus=ids.tensor(focus) if focus is not None else None,
                         omitted=omitted, view_replay=is_view_replay_enabled(),
                         grad_enabled=bool(grad_enabled))
