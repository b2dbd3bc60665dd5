"""Views and in-place operations: ViewInfo, check_inplace, rebase_history, CopySlices,
and the regeneration of stale view grad_fns.

Read this module top to bottom: it is the heart of viewgrad.

1. Views
--------
A view shares memory with its *base*. ``t._base`` is always the root (a view of a view
points to the root), and base and views share ONE version counter. Each view carries a
``ViewInfo``:

  * ``base``           the root tensor;
  * ``view_fns``       the chain of view ops that makes this view from the base, e.g.
                       ``((select, (0, 2)),)`` — replaying it on another tensor with the
                       base's shape gives "the same view" of that tensor. It is stored as
                       a link to the parent view's chain plus one step (``ViewChain``), as
                       PyTorch composes view_fns: a view of a view of ... N deep costs O(1)
                       to make and to keep, not a copy of the whole chain (O(N²) for N);
  * ``version``        the version of the counter at which this view's grad_fn was made;
                       when the counter moved on (someone modified the storage in place),
                       the grad_fn is *stale* and is regenerated on the next read;
  * ``creation_meta``  how the view was made (DEFAULT, NO_GRAD_MODE, MULTI_OUTPUT_NODE,
                       IN_CUSTOM_FUNCTION, INFERENCE_MODE) — some forbid in-place later.

The view's geometry (sizes, strides, storage offset) is read off its own array, once
(select and slice work it out from their parent's: Note [view geometry by arithmetic]).

2. The in-place choke point: ``apply_inplace``
----------------------------------------------
Every in-place op (``add_``, ``mul_``, ``x[i] = v``, ``copy_``...) runs through ONE
function, in this order — and so does this module, section by section:

  check (``check_inplace``, §6) → compute into self's memory → bump the shared version
  counter → rebase history (``rebase_history``: §3 for a plain tensor, CopySlices §4 for a
  view) → stale views (§5), regenerated lazily when their grad_fn is read.

The tracer, if any, is told before the compute and after the rebase.

3. In-place on a tensor that is not a view
-------------------------------------------
``x.mul_(2)`` behaves as ``x = x0 * 2``: the new MulBackward0 node's first edge points at
x's OLD grad_fn, and becomes x's grad_fn ("rebasing" x's history). Nothing else changes.

4. In-place on a view: CopySlices
----------------------------------
Take the seed example ``b = a.clone(); x = b[2]; x.mul_(y)``. Writing into ``x`` also
changes ``b``, so ``b``'s history must change too. Functionally the op is::

    x0 = b0.select(0, 2); x1 = x0 * y; b1 = b0.select_scatter(x1, 0, 2)

``CopySlices`` is the backward of that select_scatter, wrapping the op's own node ``fn``
(MulBackward0):

  * its edge 0 is the base's OLD grad_fn (CloneBackward0); its other edges are fn's other
    edges (AccumulateGrad of y);
  * backward: take the gradient for the base; copy it into a fresh tensor with the base's
    geometry; take the view's region of it (as_strided with the view's geometry, or by
    replaying view_fns); run fn on (a copy of) that region; write fn's gradient for the
    view back into the region (zeros if fn returned none); send the whole thing down edge
    0 and fn's other gradients down the other edges.

Then ``b.grad_fn = CopySlices`` and x's grad_fn is rebuilt as a view of the new base.

Note [exec_info]: ``autograd.grad`` may need CopySlices but not the view's old grad_fn
(fn's edge 0, which is NOT an edge of the graph: CopySlices hides it). fn must still
compute its gradient for the view region, because it is what CopySlices writes into the
base's gradient. So fn runs with all its edges, regardless of what the engine needs.

5. Stale views
--------------
Every OTHER view of the base still has a grad_fn pointing at the base's old history: it
is stale. A view remembers the version its grad_fn was made at; reading ``grad_fn`` when
the version moved regenerates it on top of the base's CURRENT grad_fn: one
``AsStridedBackward0`` with the view's geometry (geometry mode, the default), or the
replayed chain of view nodes (view-replay mode: ``set_view_replay(True)``, forced when the
backend has no as_strided).

6. What is forbidden (check_inplace)
------------------------------------
With grad mode on and a result that requires grad: an in-place op on a leaf that requires
grad (its .grad would be meaningless), on a view of such a leaf, on a view whose
creation_meta forbids it (its wording: ``view_meta.py``), or on memory where several
elements alias one location (an expanded view).

The speed tricks of this story live apart, each named in a Note: ``views_fast.py`` (view
geometry by arithmetic, in-place ufuncs, CopySlices on arrays...) and ``inplace_lean.py``
(a row loop: ``t[i]``, and ``add_``/``sub_``/``mul_``/``div_`` when nothing can be refused).
"""
from __future__ import annotations

import sys
import weakref

from .. import backend as B
from ..tensor import Tensor
from . import blame as _blame
from .accumulate import owns_memory
from .graph import ERR_FREED, Node, SavedTensor, _NO_EDGE, _pack_output
from .nodes import OPS
from .overlap import check_no_partial_overlap, compute_on_overlap, overlap_allowed
from .recording import _device_of, _edges, record
from .state import state as _st
from .view_meta import CreationMeta, view_error as _view_error
from .views_fast import (INPLACE_UFUNCS, alias_tensor, copyslices_apply_arrays, geometry,
                         is_row_major, regenerate_on, ufunc_into)

__all__ = ["CreationMeta", "ViewInfo", "make_view", "apply_inplace", "check_inplace",
           "check_no_partial_overlap", "rebase_history", "CopySlices", "regenerate_grad_fn",
           "set_view_replay", "is_view_replay_enabled", "strided_region"]


DEFAULT = CreationMeta.DEFAULT


def set_view_replay(enabled: bool):
    """Use view_fn replay (True) or as_strided geometry (False, default) for CopySlices and
    regenerated views — PyTorch's ``torch._C._set_view_replay_enabled``."""
    _st.view_replay = bool(enabled)


def is_view_replay_enabled() -> bool:
    return _st.view_replay


class ViewChain:
    """One link of a view_fn chain: ``parent`` (the chain of the view it was made from,
    or None for a view of the base) and ``step`` ``(fn, args)``. Chained views share their
    prefix, so N chained views hold N links in all."""

    __slots__ = ("parent", "step")

    def __init__(self, parent, step):
        self.parent = parent
        self.step = step

    def steps(self):
        """The chain as a tuple ``((fn, args), ...)``, base first (walked iteratively)."""
        out = []
        link = self
        while link is not None:
            out.append(link.step)
            link = link.parent
        out.reverse()
        return tuple(out)


class ViewInfo:
    __slots__ = ("base", "chain", "version", "creation_meta", "made_by", "where", "geom")

    def __init__(self, base, chain, version, creation_meta, made_by=None, where=None):
        self.base = base
        self.chain = chain          # a ViewChain (its steps are ``view_fns``)
        self.version = version
        self.creation_meta = creation_meta
        self.made_by = made_by      # (node name, output nr) of the op that made the view
        self.where = where          # (file, line, text) for multi-output/no_grad views
        self.geom = None            # the view's (sizes, strides, offset), once computed

    @property
    def view_fns(self):
        return self.chain.steps()

    def extend(self, step):
        """Append one ``(fn, args)`` step to this view's chain (an in-place view op such
        as ``v.t_()`` makes the view one step longer)."""
        self.chain = ViewChain(self.chain, step)

    def replay(self, t):
        """Apply this view's chain of view ops to ``t`` (a tensor shaped like the base)."""
        return replay_chain(self.chain, t)


def replay_chain(chain, t):
    """Apply the chain's view ops, base first, to ``t``."""
    for fn, args in chain.steps():
        t = fn(t, *args)
    return t


def strided_region(t, size, stride, storage_offset):
    """The array with geometry (size, stride, storage_offset) over t's storage (no
    bounds check: as_strided does it)."""
    dev = t._device
    if dev.as_strided is None:
        raise RuntimeError(f"as_strided is not supported on device {dev.type}; use view "
                           "replay (viewgrad.autograd.set_view_replay(True))")
    storage = t._storage
    isz = storage.itemsize
    if storage.ndim != 1:
        storage = dev.as_strided(storage, (int(storage.size),), (isz,))
    return B.strided_in(dev, storage, size, tuple(s * isz for s in stride), storage_offset)


def _propagate(prev, new):
    if new is DEFAULT:
        return prev
    if prev is CreationMeta.INFERENCE_MODE:
        return prev
    return new


def make_view(op, x, data, attrs, replay, creation_meta=None, output_nr=0, node=None):
    """Wrap ``data`` (an array viewing x's memory) as a view of ``x``.

    ``replay`` is ``(fn, args)`` such that ``fn(x, *args)`` makes this view again: the
    link appended to the view_fn chain."""
    out = alias_tensor(x, data)  # shares x's storage and version counter
    vc = out._version_counter
    if vc.inference:
        # a view of an inference tensor is an inference tensor and no view (PyTorch keeps
        # no autograd metadata for it); a view of a normal tensor stays a normal view, even
        # one made in inference mode (it shares the base's version counter above)
        return out
    base = x._base
    out._base = base if base is not None else x
    pvi = x._view_info
    meta = creation_meta or DEFAULT
    grad_mode = _st.grad_enabled
    if not grad_mode:
        # PyTorch's as_view: set whatever the base's requires_grad (the base may require
        # grad later, or the view be modified by an op whose operand requires grad).
        meta = CreationMeta.INFERENCE_MODE if _st.inference else CreationMeta.NO_GRAD_MODE
    if pvi is not None:
        meta = _propagate(pvi.creation_meta, meta)
        chain = ViewChain(pvi.chain, replay)  # shares the parent's chain (no copy)
    else:
        chain = ViewChain(None, replay)
    where = None
    if meta is not DEFAULT:
        if _blame.is_blame_enabled():
            where = _blame.user_frame(3)
    out._view_info = ViewInfo(out._base, chain, vc.version, meta, (op.node_name, output_nr),
                              where)
    if node is not None:
        out._grad_fn = node
        out._output_nr = output_nr
    elif grad_mode:
        edges = _edges((x,))
        if edges is not None:
            out._grad_fn = record(op, (x,), out, attrs, edges)
    observer = _st.view_observer
    if observer is not None:
        observer(out)
    return out


# -- 2. the in-place choke point (DESIGN §4) -------------------------------------------

def apply_inplace(op, self, others=(), attrs=(), name=None, compute=None):
    """Run ``op`` in place on ``self``.

    1. checks (check_inplace: leaf / view-of-leaf / creation_meta / overlap);
    2. compute into ``self._data`` and bump the shared version counter;
    3. rebase history: the op's node becomes self's grad_fn (or, for a view, the base's
       grad_fn becomes a CopySlices wrapping it) — §3 and §4 below;
    4. the tracer, if any, is told before 2 and after 3.
    """
    if type(others) is not tuple:
        others = tuple(others)
    inputs = (self,) + others
    opname = name or (op.name + "_")
    # PyTorch's order: check_inplace on self before any grad_fn is read (_edges would
    # regenerate a stale view's grad_fn, which may raise a vaguer error than the refusal
    # check_inplace reports); then the edges (an operand that is a stale view of a
    # multi-output op refuses here); then the kernel's own checks (devices, overlap)
    requires = _st.grad_enabled and _some_requires_grad(inputs)
    # (with a graph, refused at once: PyTorch runs it and refuses the backward through
    # the overlapping view)
    allowed = overlap_allowed(opname, self, others)
    check_inplace(self, requires, opname, requires or not allowed)
    edges = _edges(inputs) if requires else None
    if others:
        _device_of(inputs)   # the mixed-devices error
        check_no_partial_overlap(self, others, opname)
    if not allowed:   # (self's elements overlapping each other: overlap.py)
        compute = compute_on_overlap(op, self, others, requires, opname, compute)
    hook = _st.inplace_observer
    if hook is not None:   # (the tracer shows an alpha as the user wrote it: add_(g, alpha=a))
        token = hook.before(opname, self, others,
                            {"alpha": attrs[0]} if op.attrs == ("alpha",) else None)
    else:
        token = None
    node = None
    if edges is not None:
        # Note [saved before the write]: what the node saves is captured NOW, before the
        # write and the version bump, with the versions the operands have now. So an
        # operand that aliases self (b.mul_(b), x.mul_(x.detach())) is saved at the old
        # version, and backward refuses it ("modified by an inplace operation") instead
        # of using the new values: a wrong gradient that raises nothing.
        if _saves_self_before(op, edges):
            # A formula needs self's value from BEFORE the op (mul_ saves self for
            # other's gradient): like PyTorch, save a clone of the original self.
            inputs = (self.clone(),) + others
        node = record(op, inputs, self, attrs, edges, defer_pack=True)
    _compute_into(op, self, others, attrs, opname, compute)
    vc = self._version_counter
    vc.bump(opname)
    if node is not None:
        if op.uses_result:  # the saved result is self AFTER the write: its new version
            for st in node._saved.values():
                if type(st) is SavedTensor and st.is_output:
                    st.saved_version = vc.version
        # self's own edge stays edge 0 (the old history): x.mul_(2) is x = x0 * 2.
        rebase_history(self, node)
        if op.uses_result and self._view_info is not None:
            _result_saved_on_a_view(node, self)
        if op.uses_result and _st.saved_tensors_hooks:   # (a pack hook gets the result
            for st in node._saved.values():              # as written, with its history)
                if type(st) is SavedTensor and st.is_output:
                    _pack_output(st, self)
    if token is not None:
        hook.after(token)
    return self


def _result_saved_on_a_view(node, view):
    """Note [a result saved in place on a view]: the saved result of ``node`` (an in-place
    op on ``view``) unpacks with the view's new grad_fn as its history."""
    for st in node._saved.values():
        if type(st) is SavedTensor and st.is_output:
            st._view_fn = (weakref.ref(view._grad_fn), view._output_nr)


# Note [a result saved in place on a view]
# ``v.tanh_()`` on a view ``v`` saves its result, ``v`` after the write, for TanhBackward0's
# formula. Unpacked (a double backward, ``grad_fn._saved_result``), that tensor's history
# is not TanhBackward0 itself, which CopySlices runs *inside* itself: it is what ``v``'s
# grad_fn is after the rebase (AsStridedBackward0 over the base's CopySlices), as
# PyTorch's SavedVariable keeps a weak pointer to it for an output saved in place on a
# view. Were it TanhBackward0, the graph of a double backward would reach that node twice
# — through CopySlices and directly — and the second visit would find its saved values
# released by the first ("Trying to backward through the graph a second time", where
# PyTorch computes). The pointer is weak, as PyTorch's is: once nothing else keeps the
# view's grad_fn alive, unpacking falls back to the node itself.


def _some_requires_grad(inputs):
    for t in inputs:
        if isinstance(t, Tensor) and t.requires_grad:
            return True
    return False


_SAVES_SELF = {}   # (op, which inputs need grad) -> does a formula save self?


def _saves_self_before(op, edges):
    needs = tuple([e[0] is not None for e in edges])
    key = (op, needs)
    saves = _SAVES_SELF.get(key)
    if saves is None:
        saves = _SAVES_SELF[key] = any(kind == 0 and idx == 0
                                       for _, kind, idx in op.save_plan(needs))
    return saves


def _compute_into(op, self, others, attrs, opname, compute):
    """Write ``op(self, *others, *attrs)`` (or ``compute(...)``) into self's memory."""
    if compute is None and len(others) == 1:
        ufunc = INPLACE_UFUNCS.get(op.name)   # Note [in-place ufuncs]
        if ufunc is not None:
            o = others[0]
            o = o._data if isinstance(o, Tensor) else o
            if ufunc_into(self._device.xp, ufunc, self._data, o):
                return
    args = [self._data] + [t._data if isinstance(t, Tensor) else t for t in others]
    try:
        new = compute(*args, *attrs) if compute is not None else op.forward(*args, *attrs)
    except ValueError as e:
        shapes = [list(getattr(a, "shape", ())) for a in args]
        err = B.shapes_error(opname, shapes)   # PyTorch's words when they do not broadcast
        if err is not None:
            raise err from None
        raise RuntimeError(f"{opname}: the shapes {shapes} cannot be broadcast together "
                           f"into self's shape {shapes[0]} ({e})") from None
    _write_into(self, new, opname)


def _write_into(self, new, opname):
    d = self._data
    if new is d:
        return
    nd = getattr(new, "dtype", None)
    if nd is not None and nd.kind == "f" and d.dtype.kind in "iub":
        raise RuntimeError(f"{opname}: result type {B.dtype_name(nd)} can't be cast to the "
                           f"desired output type {B.dtype_name(d.dtype)}; use an out-of-place "
                           "op, or convert first (x = x.float())")
    ns = getattr(new, "shape", ())
    if ns != d.shape:
        try:
            if B.broadcast_shapes(ns, d.shape) != d.shape:
                raise ValueError
        except ValueError:
            raise RuntimeError(
                f"{opname}: output with shape {list(d.shape)} doesn't match the broadcast "
                f"shape {list(ns)}") from None
    d[...] = new


# -- 6. checks ----------------------------------------------------------------------------

def check_inplace(t, requires_grad, opname, overlap=True):
    """PyTorch's check_inplace (plus the internal-overlap check, unless ``overlap`` is
    False: in-place view ops such as ``t_`` write no values). ``requires_grad``: some
    input of the op (self included) requires grad. Only then, and in grad mode: a view
    whose creation_meta forbids in-place (handle_view_on_rebase) is refused; a view that
    requires grad of a base that is a leaf is refused; a leaf that requires grad is
    refused."""
    d = t._data
    strides = d.strides
    # an empty tensor has no element to overlap (NumPy gives fresh empty arrays 0 strides)
    for sz, st in zip(d.shape, strides) if overlap and 0 in strides and d.size else ():
        if st == 0 and sz > 1:
            raise RuntimeError(
                f"{opname}: unsupported operation: more than one element of the written-to "
                "tensor refers to a single memory location. Please clone() the tensor before "
                "performing the operation.")

    if not requires_grad or not _st.grad_enabled:
        return
    vi = t._view_info
    if vi is not None:
        check_view_inplace(t, vi, f"{opname}: ")
    if t._grad_fn is None and t._requires_grad:
        raise RuntimeError(
            f"{opname}: a leaf Variable that requires grad is being used in an in-place "
            "operation. Use an out-of-place op (y = x * 2 instead of x.mul_(2)), or wrap the "
            "update in viewgrad.no_grad() as optimizers do.")


def check_view_inplace(t, vi, prefix=""):
    """The view half of check_inplace (also run for a view a custom Function marks dirty):
    a creation_meta that forbids in-place, or a view of a leaf that requires grad."""
    if vi.creation_meta is not DEFAULT:
        raise _view_error(t, vi)
    if t.requires_grad and vi.base._grad_fn is None:
        # NB: the base need not require grad itself: `v = plain[:2]; v.requires_grad_()`
        # makes v a leaf that requires grad, a view of a leaf.
        raise RuntimeError(
            f"{prefix}a view of a leaf Variable that requires grad is being used in an "
            "in-place operation. Modify a copy instead (e.g. x = leaf.clone(); "
            "x[...] op= ...), or do the update under viewgrad.no_grad() as optimizers do.")


# -- 3 + 4. rebase_history --------------------------------------------------------------

def _move_retain_grad(t, old_fn, new_fn, output_nr=0):
    """retain_grad follows the newest version of a tensor (PyTorch)."""
    if t._retains_grad and old_fn is not None and old_fn._retains_grad:
        ref = old_fn._retains_grad.pop(t._output_nr, None)
        if ref is not None and new_fn is not None:
            new_fn._retain_grad_slot(output_nr, ref)


def rebase_history(t, fn):
    """Make ``fn`` (the in-place op's node) the new history of ``t``."""
    vi = t._view_info
    if vi is None:
        if t._retains_grad:
            _move_retain_grad(t, t._grad_fn, fn)
        t._grad_fn = fn
        t._output_nr = 0
        return
    base = vi.base
    old_base_fn = base._grad_fn
    cs = CopySlices(base, t, vi, fn)
    if base._retains_grad:
        _move_retain_grad(base, old_base_fn, cs)
    base._grad_fn = cs
    base._output_nr = 0
    # The view's own grad_fn is now stale: rebuild it on top of CopySlices right away.
    old_view_fn = t._grad_fn
    if vi.creation_meta is DEFAULT and not cs.replay:
        regenerate_on(t, vi, base, cs)   # Note [regenerating on a new CopySlices]
    else:
        regenerate_grad_fn(t, (cs.base_sizes, cs.base_strides, cs.base_offset))
    if t._retains_grad:
        _move_retain_grad(t, old_view_fn, t._grad_fn)


class CopySlices(Node):
    """Backward of "write ``fn``'s result into a region of ``base``" (see module doc, §3).

    Attributes shown in pictures: ``fn`` (the wrapped node), ``view_sizes``,
    ``view_strides``, ``view_offset`` (relative to the base), ``view_fns`` (replay mode).
    """

    __slots__ = ("fn", "base_sizes", "base_strides", "base_offset", "view_sizes", "view_strides",
                 "view_offset", "view_chain", "replay", "dtype", "device", "row_major",
                 "freed", "_rec", "_rec_x", "_rec_xvc")   # (_rec*: views_record.py)
    _CPP_NAME = "torch::autograd::CopySlices"   # (what PyTorch's name() says)
    _row = None   # (a record's row step: views_record.py)

    def __init__(self, base, view, vi, fn):
        edge0 = base._edge()
        Node.__init__(self, (edge0 or _NO_EDGE,) + tuple(fn.next_functions[1:]))
        self.fn = fn
        self.base_sizes, self.base_strides, base_offset = geometry(base)
        self.base_offset = base_offset
        self.view_sizes, self.view_strides, view_offset = vi.geom or geometry(view)
        self.view_offset = view_offset - base_offset
        self.view_chain = vi.chain   # not vi itself: vi holds the base (a cycle)
        dev = self.device = base._device
        self.replay = _st.view_replay or dev.as_strided is None
        data = base._data
        # the base's strides are row-major ones (size-1 dims aside): see apply_arrays
        self.row_major = is_row_major(data)
        self.dtype = data.dtype
        self.freed = False   # (release_variables: a second backward through it raises)

    def apply(self, grads):
        if self.freed:
            raise RuntimeError(ERR_FREED)
        grad = grads[0]
        grads[0] = None
        if grad is None:
            grad = Tensor._make(self.device.xp.zeros(self.base_sizes, dtype=self.dtype),
                                self.device)
        if self._can_write_into(grad):
            # Nobody else holds this gradient and it has the base's layout: write the
            # region's gradient into it directly instead of cloning the whole base (a
            # loop of row updates would otherwise cost O(rows x base)). Same result.
            result = grad
        else:
            result = Tensor._empty_strided(self.base_sizes, self.base_strides, self.dtype,
                                           self.device)
            result.copy_(grad)
        if not _st.grad_enabled and not self.replay:
            # Plain backward: the same steps on arrays (no graph to build).
            region = strided_region(result, self.view_sizes, self.view_strides,
                                    self.view_offset)
            res = self.fn.apply([Tensor._make(region.copy(), self.device)])
            if res[0] is not None:
                region[...] = res[0]._data
            else:
                region[...] = 0
            return [result] + list(res[1:])
        if self.replay:
            grad_slice = replay_chain(self.view_chain, result)
        else:
            grad_slice = result.as_strided(self.view_sizes, self.view_strides,
                                           self.view_offset)
        res = self.fn.apply([grad_slice.clone()])
        if res[0] is not None:
            grad_slice.copy_(res[0])
        else:
            grad_slice.zero_()
        return [result] + list(res[1:])

    # Note [CopySlices on arrays] (views_fast.py): the same steps on bare arrays
    apply_arrays = copyslices_apply_arrays

    def _can_write_into(self, grad):
        # Only in a plain backward (under create_graph the copy is part of the graph), for
        # a gradient referenced only here (the local, getrefcount's argument, the caller's
        # argument), whose array nothing else holds either (a plain backward wraps the
        # array it was given, and another branch may hold that array: its own count is
        # the Tensor's reference and getrefcount's argument), that owns its memory (alone,
        # or as empty_strided's buffer), with the base's strides.
        return (not _st.grad_enabled and sys.getrefcount(grad) <= 3
                and sys.getrefcount(grad._data) <= 2 and grad._base is None
                and grad._grad_fn is None and B.writeable(grad._data)
                and owns_memory(grad)
                and tuple(grad._data.shape) == self.base_sizes
                and grad.stride() == self.base_strides
                and (grad._fresh_buffer or grad.storage_offset() == 0))

    @property
    def view_fns(self):
        return self.view_chain.steps()

    def release_variables(self):
        # PyTorch's CopySlices lets go of fn itself: a second backward through it raises,
        # whatever fn saved (the graph's pictures still show fn here)
        self.fn.release_variables()
        self.freed = True

    def saved_items(self):
        return self.fn.saved_items()


# -- 5. stale views ---------------------------------------------------------------------

def regenerate_grad_fn(view, base_geometry=None):
    """Rebuild a stale view's grad_fn on top of its base's current history
    (``base_geometry``: the base's, when the caller already has it)."""
    vi = view._view_info
    base = vi.base
    base_requires = base.requires_grad
    if view._grad_fn is None and not base_requires:
        return  # nothing to regenerate; the version stays stale (PyTorch's early return)
    if vi.creation_meta is not DEFAULT:
        raise _view_error(view, vi, indirect=True)
    vi.version = view._version_counter.version
    if not base_requires:
        view._grad_fn = None
        view._output_nr = 0
        return
    if _st.view_replay or base._device.as_strided is None:
        prev = _st.grad_enabled
        _st.grad_enabled = True
        try:
            fresh = vi.replay(base)   # the chain of view nodes, on the base's history
        finally:
            _st.grad_enabled = prev
        old_fn = view._grad_fn
        view._grad_fn = fresh._grad_fn
        view._output_nr = fresh._output_nr
    else:
        # Geometry mode: the node base.as_strided(view's geometry) would record, built
        # directly (the view's data is already there; only its history is new).
        sizes, strides, offset = vi.geom or geometry(view)
        attrs = (sizes, strides, offset, base_geometry or geometry(base))
        old_fn = view._grad_fn
        view._grad_fn = record(OPS["as_strided"], (base,), view, attrs, (base._edge(),))
        view._output_nr = 0
    if view._retains_grad:   # retain_grad follows the new grad_fn (as in PyTorch)
        _move_retain_grad(view, old_fn, view._grad_fn)
