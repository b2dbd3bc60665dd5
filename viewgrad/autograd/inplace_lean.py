"""The lean path of ``add_``, ``sub_``, ``mul_`` and ``div_`` (Note [lean in-place]).

Note [lean in-place]: ``apply_inplace`` (autograd/views.py) is the teaching path: every
in-place op runs its general checks, one after the other, in the order they are
explained. In a loop such as ``for i: b[i].mul_(w); b[i].add_(0.5)`` almost all of them
answer "nothing to refuse" for the same few reasons, which ``lean_binary_`` reads off
directly, at once: grad mode on and no tracer; self a float tensor with a history
(a non-leaf, or a current view of a base with a history, made in grad mode), with no
stride 0; the operand a Python number or a tensor of self's device, dtype and shape over
other memory. Then nothing can be refused (check_inplace, the partial-overlap check and
the mixed-devices check all pass) and the edges are known, and the op runs the same
steps as apply_inplace — the same node recorded with the same saved values, the same
write, bump and rebase. The rebase of a view (CopySlices, then the view's grad_fn
regenerated on it) is written out in line for a base that owns its array (storage offset
0) when no retain_grad is to be moved: what ``CopySlices.__init__`` and
``regenerate_grad_fn`` compute there, without their calls and general cases. Anything
else returns None and the op takes the teaching path, which also raises every error.

tests/views/test_lean_inplace.py runs programs both ways and compares the graphs
(names, edges, saved values, sequence order), the values and the gradients.
"""
from __future__ import annotations

from ..backend import scalar_operand
from ..tensor import Tensor
from .graph import _NO_EDGE, next_sequence_nr as _next_seq
from .nodes import OPS, _edge_of, record
from .state import state as _st
from .views import CopySlices, DEFAULT, _saves_self_before, rebase_history, regenerate_grad_fn
from .views_fast import INPLACE_UFUNCS, geometry, is_row_major, strides_of

__all__ = ["lean_binary_", "set_lean_inplace"]

_Tensor = Tensor
_make = Tensor._make
_new = object.__new__
_enabled = [True]


def set_lean_inplace(enabled: bool) -> bool:
    """Turn the lean path on or off (tests compare both); returns the previous setting."""
    prev = _enabled[0]
    _enabled[0] = bool(enabled)
    return prev


_SAVES_SELF = {}   # (op, whether other needs grad) -> whether op saves self (a clone)


def _storage_of(t):
    s = t._storage_
    return t._data if s is None else s


def lean_binary_(op, self, other, opname):
    """``apply_inplace(op, self, (other,), name=opname)`` when Note [lean in-place]'s
    conditions hold (returns self), else None: nothing was done."""
    st = _st
    if not st.grad_enabled or st.inplace_observer is not None or not _enabled[0]:
        return None
    if type(self) is not _Tensor or op.uses_result:
        return None
    fn = self._grad_fn
    d = self._data
    if fn is None or d.dtype.kind != "f" or 0 in d.strides:
        return None
    vc = self._version_counter
    vi = self._view_info
    if vi is not None and (vi.creation_meta is not DEFAULT or vi.version != vc.version
                           or vi.base._grad_fn is None):
        return None
    t = type(other)
    if t is _Tensor:
        od = other._data
        if (other._device is not self._device or od.shape != d.shape
                or od.dtype != d.dtype or _storage_of(other) is _storage_of(self)):
            return None
        e = _edge_of(other)
        edges = ((fn, self._output_nr), _NO_EDGE if e is None else e)
    elif t is float or t is int:
        od = scalar_operand(d, other)   # Note [cached scalar operands] (backend.py)
        edges = ((fn, self._output_nr), _NO_EDGE)
    else:
        return None
    # the steps of apply_inplace, in its order (Note [saved before the write])
    key = (op, edges[1][0] is not None)   # self's edge is always there
    saves_self = _SAVES_SELF.get(key)
    if saves_self is None:
        saves_self = _SAVES_SELF[key] = _saves_self_before(op, edges)
    if saves_self:
        # self.clone(), with self's edge already known: the same CloneBackward0
        clone = OPS["clone"]
        c = _make(clone.forward(d, "preserve"), self._device)   # d.copy(order="K")
        c._grad_fn = record(clone, (self,), c, ("preserve",), (edges[0],))
        inputs = (c, other)
    else:
        inputs = (self, other)
    node = record(op, inputs, self, (), edges)
    getattr(self._device.xp, INPLACE_UFUNCS[op.name])(d, od, out=d)  # Note [in-place ufuncs]
    vc.bump(opname)
    if vi is None or self._retains_grad:
        rebase_history(self, node)
        return self
    base = vi.base
    if base._retains_grad or base._storage_ is not None or base._view_info is not None:
        rebase_history(self, node)
        return self
    # rebase_history for a view, in line: CopySlices(base, self, vi, node) ...
    cs = _new(CopySlices)
    cs.next_functions = ((base._grad_fn, base._output_nr),) + tuple(node.next_functions[1:])
    cs._sequence_nr = _next_seq()
    cs.fn = node
    bd = base._data
    cs.base_sizes = bsizes = tuple(bd.shape)
    cs.base_strides = bstrides = strides_of(bd)
    cs.base_offset = 0
    cs.view_sizes, cs.view_strides, view_offset = g = vi.geom or geometry(self)
    cs.view_offset = view_offset
    cs.view_chain = vi.chain
    dev = cs.device = base._device
    cs.replay = replay = st.view_replay or dev.as_strided is None
    cs.row_major = is_row_major(bd)
    cs.dtype = bd.dtype
    base._grad_fn = cs
    base._output_nr = 0
    if replay:
        regenerate_grad_fn(self, (bsizes, bstrides, 0))
    else:   # ... and regenerate_on(self, vi, base, cs)
        vi.version = vc.version
        self._grad_fn = record(OPS["as_strided"], (base,), self, g + ((bsizes, bstrides, 0),),
                               ((cs, 0),))
        self._output_nr = 0
    return self
