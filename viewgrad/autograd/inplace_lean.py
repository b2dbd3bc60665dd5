"""The lean path of a row loop: ``t[i]`` and ``add_``, ``sub_``, ``mul_``, ``div_`` on it
(Note [lean in-place], Note [a select view in line]).

Note [lean in-place]: ``apply_inplace`` (autograd/views.py) is the teaching path: every
in-place op runs its general checks, one after the other, in the order they are
explained. In a loop such as ``for i: b[i].mul_(w); b[i].add_(0.5)`` almost all of them
answer "nothing to refuse" for the same few reasons, which ``lean_binary_`` reads off
directly, at once: grad mode on, no tracer, no anomaly mode, no saved-tensor hooks; self a
float tensor with a history (a non-leaf, or a current view of a base with a history, made
in grad mode), with no stride 0; the operand a Python number or a tensor of self's device
and dtype over other memory, of self's shape or broadcast to it, not an inference tensor.
Then nothing can be refused (check_inplace, the partial-overlap check and the
mixed-devices check all pass) and the
edges are known, and the op runs the same steps as apply_inplace — the same nodes recorded
with the same saved values, the same write, bump and rebase — written out in line:

* what each op saves, its node class and its ufunc are looked up once per op and per
  "does the operand need a gradient" (``_recipe``), not per call;
* the nodes (CloneBackward0 of the saved self, the op's node, AsStridedBackward0 of the
  regenerated view) are built as ``record`` builds them for these inputs: equal shapes and
  dtypes, so no ``_shapes`` and no ``_dtypes``; their SavedTensors as
  ``_new_saved_tensor`` makes them;
* the user's line (blame) is looked up once per op and serves both the saved tensors'
  mark and the version bump's, which ``_save`` and ``VersionCounter.bump`` would each look
  up, at the same frame; the walk out of viewgrad starts at the frame that called the
  op's method (``lean_binary_`` is only called by the methods of ops/inplace.py, inside
  viewgrad, which the walk would skip anyway), so the method's frame object is not made;
* the rebase of a view (CopySlices, then the view's grad_fn regenerated on it) for a base
  that owns its array (storage offset 0) when no retain_grad is to be moved: what
  ``CopySlices.__init__`` and ``regenerate_grad_fn`` compute there, without their calls
  and general cases;
* when nothing but the view holds its grad_fn, the clone, the op's node and its saved
  values are not built at all: the CopySlices keeps their numbers and arrays as a
  record, and builds them when its ``fn`` is read (Note [a wrapped node kept as a
  record], views_record.py).

Anything else returns None and the op takes the teaching path, which also raises every
error.

Note [a select view in line]: ``t[i]`` / ``t.select(d, i)`` of a non-view tensor with a
history, in grad mode with no view tracer and no anomaly mode: ``make_view``'s steps for
exactly that case (alias Tensor, ViewInfo with a one-link chain, SelectBackward0 with its
saved sizes, dim and index) and the geometry of Note [view geometry by arithmetic], in one
function. Anything else (a view of a view, a leaf, an empty view...) returns None and
``select`` takes ``make_view``.

Note [a base's facts, kept]: a row loop asks the same base, row after row, for the same
facts: its sizes, its strides in elements and whether they are row-major (each CopySlices
records them), and the sizes, strides and offset step of its select views. They depend
only on the base's array — its shape, strides and itemsize, which a NumPy array keeps for
life — so the base keeps them (``Tensor._lean_facts``), with a weak reference to the array
they were read off: an array that is no longer the base's (``t.data = ...``, ``t_()``)
or no longer alive is not the one they describe, and they are read again. A weak
reference, so that the facts keep no array alive; an array type without weak references
gets its facts read every time.

tests/views/test_lean_inplace.py runs programs both ways and compares the graphs
(names, edges, saved values, sequence order, blame marks), the values and the gradients.
"""
from __future__ import annotations

import sys
import weakref

from ..backend import scalar_operand
from ..tensor import Tensor, VersionCounter, new_result as _new_result
from . import blame as _blame
from .graph import SavedTensor, _NO_EDGE, next_sequence_nr as _next_seq
from .accumulate import grad_accumulator
from .nodes import OPS
from .recording import _NOTHING_SAVED, _edge_of, record
from .state import state as _st
from .views import (CopySlices, DEFAULT, ViewChain, ViewInfo, _saves_self_before,
                    rebase_history, regenerate_grad_fn)
from .views_fast import INPLACE_UFUNCS, geometry, is_row_major, strides_of
from .views_record import (COUNT_EXPECTED as _KEEP_COUNT, RECORDING as _RECORDING,
                           RecordedCopySlices as _RecordedCopySlices,
                           numbers as _numbers, view_part as _view_part)

__all__ = ["lean_binary_", "lean_select", "set_lean_inplace"]

_Tensor = Tensor
_VC = VersionCounter
_SavedTensor = SavedTensor
_new = object.__new__
_getframe = sys._getframe
_INSIDE = _blame._INSIDE   # file name -> inside viewgrad? (blame.user_frame's memo)
_KEEP = _blame.KEEP
_enabled = [True]
_grc = sys.getrefcount


def _no_self(plan):
    return all(idx for _, idx in plan)


def set_lean_inplace(enabled: bool) -> bool:
    """Turn the lean paths on or off (tests compare both); returns the previous setting."""
    prev = _enabled[0]
    _enabled[0] = bool(enabled)
    return prev


def _storage_of(t):
    s = t._storage_
    return t._data if s is None else s


# -- Note [a base's facts, kept] --------------------------------------------------------------

_ref = weakref.ref


def _facts(t, d):
    """(weak ref to d, sizes, strides in elements, row-major?, {dim: select facts},
    (sizes, strides, 0): its geometry as a regenerated view saves it) of tensor ``t``
    whose array is ``d`` (Note [a base's facts, kept])."""
    f = t._lean_facts
    if f is not None and f[0]() is d:
        return f
    try:
        ref = _ref(d)
    except TypeError:   # no weak references to this array type: nothing kept
        ref = None
    sizes, strides = tuple(d.shape), strides_of(d)
    f = (ref, sizes, strides, is_row_major(d), {}, (sizes, strides, 0))
    if ref is not None:
        t._lean_facts = f
    return f


# -- the per-op facts, looked up once -----------------------------------------------------

_NOT_LEAN = ()
_RECIPES = ({}, {})   # [operand needs grad] -> {op: recipe}


def _recipe(op, edges):
    """(saves_self, node class, plan as ((name, input index), ...), ufunc name, and the
    record's class and run numbers: views_record.numbers) of ``op`` with these edges;
    _NOT_LEAN when the op must take the teaching path."""
    needs = (True, edges[1][0] is not None)
    plan = op.save_plan(needs)
    if (op.uses_result or op.nondiff or op.name not in INPLACE_UFUNCS
            or any(kind != 0 for _, kind, _ in plan)):
        rec = _NOT_LEAN
    else:
        plan = tuple([(name, idx) for name, _, idx in plan])
        rec = ((_saves_self_before(op, edges), op.node_cls, plan, INPLACE_UFUNCS[op.name])
               + _numbers(op.node_cls, plan))   # (Note [a wrapped node kept as a record])
    _RECIPES[needs[1]][op] = rec
    return rec


_NODES = None   # (CloneBackward0, AsStridedBackward0, SelectBackward0 classes) once known


def _nodes():
    """The node classes built in line, once the ops table is filled; each only if
    ``record`` would save exactly what is built here (else None: ``record`` is called).
    One tuple, bound at once: threads racing here all bind an equal one."""
    global _NODES
    clone, strided, select = OPS["clone"], OPS["as_strided"], OPS["select"]
    _NODES = (
        clone.node_cls if clone.plan1 == () and not clone.nondiff else None,
        strided.node_cls if strided.plan1 == (
            ("size", 2, 0), ("stride", 2, 1), ("storage_offset", 2, 2),
            ("_in_geom", 2, 3)) and not strided.nondiff else None,
        select.node_cls if select.plan1 == (
            ("self_shape", 3, 0), ("dim", 2, 0), ("index", 2, 1))
        and not select.nondiff and not select.broadcast else None)
    return _NODES


def _broadcasts_to(shape, to):
    """Whether an operand of ``shape`` broadcasts to ``to`` without changing it."""
    if len(shape) > len(to):
        return False
    for a, b in zip(reversed(shape), reversed(to)):
        if a != b and a != 1:
            return False
    return True


# -- Note [lean in-place] -------------------------------------------------------------------

def lean_binary_(op, self, other, opname):
    """``apply_inplace(op, self, (other,), name=opname)`` when Note [lean in-place]'s
    conditions hold (returns self), else None: nothing was done."""
    st = _st
    if (not st.grad_enabled or st.inplace_observer is not None or not _enabled[0]
            or st.anomaly or st.saved_tensors_hooks):
        return None
    if type(self) is not _Tensor:
        return None
    fn = self._grad_fn
    d = self._data
    # float32/float64 only: float16 with a number is computed in float32 (Note [float16
    # with a number] in ops/table.py), which the full path does
    if fn is None or d.dtype.char not in "fd" or 0 in d.strides or (
            d.ndim > 1 and not (d.flags.c_contiguous or d.flags.f_contiguous)):
        return None   # (a layout that may overlap: the full path's checks)
    vc = self._vc or self._version_counter   # (Note [a version counter made when first asked])
    if type(vc) is not _VC:
        return None
    vi = self._view_info
    if vi is not None and (vi.creation_meta is not DEFAULT or vi.version != vc.version
                           or vi.base._grad_fn is None):
        return None
    t = type(other)
    shapes = None
    if t is _Tensor:
        od = other._data
        if (other._device is not self._device or od.dtype != d.dtype
                or (other._vc or other._version_counter).inference
                or _storage_of(other) is _storage_of(self)):
            return None
        if od.shape != d.shape:
            # an operand broadcast to self's shape (a row to a slice of rows): record's
            # _shapes, so that backward sums its gradient back; anything else (self would
            # have to grow) is the full path's error
            if not (op.broadcast and _broadcasts_to(od.shape, d.shape)):
                return None
            shapes = (d.shape, od.shape)
        if other._view_info is None and other._grad_fn is None:
            # _edge_of(other) for a leaf: its AccumulateGrad, or no edge
            if other._requires_grad:
                acc = other._grad_accumulator   # (grad_accumulator's first step, in line)
                acc = None if acc is None else acc()
                e = (acc if acc is not None else grad_accumulator(other), 0)
            else:
                e = _NO_EDGE
        else:
            e = _edge_of(other)
            if e is None:
                e = _NO_EDGE
    elif t is float or t is int:
        od = scalar_operand(d, other)   # Note [cached scalar operands] (backend/devices.py)
        e = _NO_EDGE
    else:
        return None
    e0 = (fn, self._output_nr)
    edges = (e0, e)
    rec = _RECIPES[e[0] is not None].get(op)
    if rec is None:
        rec = _recipe(op, edges)
    if rec is _NOT_LEAN:
        return None
    saves_self, cls, plan, ufunc, ci, ri = rec
    clone_cls, strided_cls, _ = _NODES or _nodes()
    dev = self._device
    # Note [a wrapped node kept as a record] (views_record.py): the view's node held by
    # nothing but the view, ``fn`` and ``e0``, and the rebase below built in line
    keep = None
    if vi is not None and _grc(fn) == _KEEP_COUNT and _RECORDING[0]:
        base = vi.base
        if (shapes is None and clone_cls is not None and strided_cls is not None
                and not self._retains_grad and not base._retains_grad
                and base._storage_ is None and base._view_info is None
                and base._device is dev and not st.view_replay
                and dev.as_strided is not None
                and (saves_self or not plan or _no_self(plan))):
            keep = _view_part(fn, base)   # (None: it must stay a node)
    blame = st.blame
    uf = None
    if blame:
        # the user's line, once (Note [lean in-place]): blame.user_frame's walk, started
        # past our caller, a method of ops/inplace.py (inside viewgrad: it would be skipped)
        f = _getframe(2)
        while f is not None:
            co = f.f_code
            inside = _INSIDE.get(co.co_filename)
            if inside is None:
                inside = _blame._inside(co.co_filename)
            if not inside:
                uf = (co, f.f_lasti)
                break
            f = f.f_back
    # the steps of apply_inplace, in its order (Note [saved before the write])
    if keep is not None:   # (the same steps, the nodes' numbers and arrays kept)
        carr = d.copy(order="K") if saves_self else None
        cseq = _next_seq() if saves_self else None
        seq = _next_seq()
        # (flat: the blame mark's code and offset, -1 for a mark with no user frame, and
        # the operand's saved version, output_nr and had_grad_fn, or the number)
        ov = ov1 = ov2 = ox = xvc = wco = wl = None
        for name, idx in plan:
            if idx == 0 or type(other) is _Tensor:
                if blame and wl is None:
                    if uf is None:
                        wl = -1
                    else:
                        wco, wl = uf
                if idx:
                    ox = other
                    xvc = other._vc or other._version_counter
                    ov, ov1, ov2 = xvc.version, other._output_nr, other._grad_fn is not None
            else:
                ov = other
        node = None
    elif saves_self:
        # self.clone() (CLONE's forward: d.copy(order="K")), with self's edge known: the
        # same CloneBackward0, which saves nothing
        c = _new_result(d.copy(order="K"), dev)
        if clone_cls is None:
            c._grad_fn = record(OPS["clone"], (self,), c, ("preserve",), (e0,))
        else:
            c._grad_fn = cn = _new(clone_cls)
            cn.next_functions = (e0,)
            cn._seq_nr = _next_seq()
            cn._sdict = _NOTHING_SAVED
            cn._releasable = False
        inputs = (c, other)
    else:
        inputs = (self, other)
    if keep is None:
        # record(op, inputs, self, (), edges), in line: same dtypes, no attrs
        node = _new(cls)
        node.next_functions = edges
        node._seq_nr = _next_seq()
        if shapes is not None:
            node._shapes = shapes
        if plan:
            saved = {}
            where = None
            for name, idx in plan:
                x = inputs[idx]
                if type(x) is _Tensor:   # _new_saved_tensor(x), in line
                    s = _new(_SavedTensor)
                    xvc = x._vc or x._version_counter
                    s.version_counter = xvc
                    s.saved_version = xvc.version
                    if blame and where is None:
                        where = (op.node_name, uf)
                    s.where = where
                    s.output_nr = x._output_nr
                    s.tensor = x
                    s.data = None
                    s.had_grad_fn = x._grad_fn is not None
                    saved[name] = s
                else:
                    saved[name] = x   # a Python number (PyTorch saves it too)
            node._sdict = saved
            node._releasable = True
        else:
            node._sdict = _NOTHING_SAVED
            node._releasable = False
    getattr(dev.xp, ufunc)(d, od, out=d)   # Note [in-place ufuncs]
    # vc.bump(opname), in line, with the user's line found above
    vc.version = ver = vc.version + 1
    if blame:
        b = vc.bumps
        if b is None:
            b = vc.bumps = []
        b.append((opname, uf, None, ver))
        if len(b) > _KEEP:
            del b[0]
    if vi is None or self._retains_grad:
        rebase_history(self, node)
        return self
    base = vi.base
    if base._retains_grad or base._storage_ is not None or base._view_info is not None:
        rebase_history(self, node)
        return self
    # rebase_history for a view, in line: CopySlices(base, self, vi, node) ...
    cs = _new(CopySlices if keep is None else _RecordedCopySlices)
    cs.next_functions = ((base._grad_fn, base._output_nr), e)
    cs._seq_nr = _next_seq()
    if node is not None:
        cs.fn = node
    bd = base._data
    f = base._lean_facts   # Note [a base's facts, kept]
    if f is None or f[0]() is not bd:
        f = _facts(base, bd)
    _, bsizes, bstrides, row_major, _, in_geom = f
    cs.base_sizes = bsizes
    cs.base_strides = bstrides
    cs.base_offset = 0
    g = vi.geom or geometry(self)
    cs.view_sizes, cs.view_strides, cs.view_offset = g
    cs.view_chain = vi.chain
    cs.device = dev = base._device
    cs.replay = replay = st.view_replay or dev.as_strided is None
    cs.row_major = row_major
    cs.freed = False
    cs.dtype = bd.dtype
    if keep is not None:   # (views_record.view_part says what a record holds)
        cs._rec = (ci, seq, e0[1], carr, cseq, wco, wl, plan) + keep + (ov, ov1, ov2, ri)
        cs._rec_x = ox
        cs._rec_xvc = xvc
    base._grad_fn = cs
    base._output_nr = 0
    if replay:
        regenerate_grad_fn(self, (bsizes, bstrides, 0))
    elif strided_cls is None:   # ... and regenerate_on(self, vi, base, cs)
        vi.version = ver
        self._grad_fn = record(OPS["as_strided"], (base,), self, g + ((bsizes, bstrides, 0),),
                               ((cs, 0),))
        self._output_nr = 0
    else:   # the same, with record's AsStridedBackward0 built in line
        vi.version = ver
        self._grad_fn = an = _new(strided_cls)
        an.next_functions = ((cs, 0),)
        an._seq_nr = _next_seq()
        # (the facts' geometry tuple, shared: a dict of values the collector does not
        # track is not tracked either, nor is a record that holds it: views_record.py)
        an._sdict = {"size": g[0], "stride": g[1], "storage_offset": g[2],
                     "_in_geom": in_geom}
        an._releasable = False
        self._output_nr = 0
    return self


# -- Note [a select view in line] -----------------------------------------------------------

def lean_select(op, x, data, dim, index, replay):
    """``make_view(op, x, data, (dim, index), replay)`` plus its geometry, for a select
    view (``op``: SELECT) of a non-view tensor with a history, in grad mode (Note [a select
    view in line]); None (nothing done) otherwise."""
    st = _st
    fn = x._grad_fn
    if (fn is None or x._view_info is not None or not st.grad_enabled or not _enabled[0]
            or st.view_observer is not None or st.anomaly or not data.size):
        return None
    vc = x._vc or x._version_counter
    if vc.inference:
        return None
    select_cls = (_NODES or _nodes())[2]
    if select_cls is None:
        return None
    xd = x._data
    facts = x._lean_facts   # Note [a base's facts, kept]
    if facts is None or facts[0]() is not xd:
        facts = _facts(x, xd)
    rows = facts[4].get(dim)
    if rows is None:   # select_geometry's numbers, the same for every index
        rows = facts[4][dim] = (tuple(data.shape), strides_of(data),
                                xd.strides[dim] // data.itemsize)
    # alias_tensor(x, data)
    out = _new(_Tensor)
    out._data = data
    out._device = x._device
    out._vc = vc
    storage = x._storage_
    if storage is None:
        storage = xd
        offset = 0
    else:
        offset = x.storage_offset()
    if storage is not data:
        out._storage_ = storage
    base = x._base
    out._base = base = x if base is None else base
    # ViewInfo(base, ViewChain(None, replay), version, DEFAULT, (node name, 0), None)
    chain = _new(ViewChain)
    chain.parent = None
    chain.step = replay
    vi = _new(ViewInfo)
    vi.base = base
    vi.chain = chain
    vi.version = vc.version
    vi.creation_meta = DEFAULT
    vi.made_by = (op.node_name, 0)
    vi.where = None
    # Note [view geometry by arithmetic] (views_fast.select_geometry)
    vi.geom = (rows[0], rows[1], offset + index * rows[2])
    out._view_info = vi
    # record(op, (x,), out, (dim, index), ((fn, x._output_nr),)), in line
    node = _new(select_cls)
    node.next_functions = ((fn, x._output_nr),)
    node._seq_nr = _next_seq()
    node._sdict = {"self_shape": facts[1], "dim": dim, "index": index}
    node._releasable = False
    out._grad_fn = node
    out._output_nr = 0
    return out
