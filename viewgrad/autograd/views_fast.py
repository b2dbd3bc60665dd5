"""The speed tricks of views and in-place ops, fenced off from the teaching path.

``autograd/views.py`` tells the in-place story in the order it runs (check → compute →
bump → rebase → CopySlices → stale views) and stays readable top to bottom. A loop such as
``for i in range(n): b[i].mul_(w)`` runs that story once per row, so what makes it cheap
lives here, each trick named once in a Note:

* Note [a view's Tensor in line]: a view's Tensor made without a version counter of its own;
* Note [view geometry by arithmetic]: a select/slice view's sizes, strides and storage
  offset come from its parent's, not from data pointers;
* Note [regenerating on a new CopySlices]: the written view's new grad_fn, recorded
  directly;
* Note [in-place ufuncs]: binary arithmetic in place writes straight into self's memory;
* Note [CopySlices on arrays]: CopySlices' plain backward on bare arrays;
* Note [CopySlices' row kernels]: for a row written by add_/sub_/mul_/div_, the wrapped
  node's array kernels run on the region itself.

Nothing here changes what is computed: each trick gives the result the teaching path
would, and falls back on it whenever its preconditions do not hold.
"""
from __future__ import annotations

import sys

from .. import backend as B
from ..tensor import Tensor
from .graph import ERR_FREED, SavedTensor, _InNode, _tensors_to_arrays
from .nodes import OPS, FnNode, _kernel_args
from .recording import record

_ARRAYS = B.ARRAY_TYPES

__all__ = ["alias_tensor", "geometry", "strides_of", "select_geometry", "slice_geometry",
           "ufunc_into", "INPLACE_UFUNCS", "is_row_major", "regenerate_on",
           "copyslices_apply_arrays", "region_of"]


# -- Note [a view's Tensor in line] -------------------------------------------------------
# Tensor._make in line, for a view: it shares its parent's device, version counter and
# storage, so unlike _make it makes no VersionCounter of its own (one object less per
# view; ops/table.py's dispatch makes its results in line the same way).

_new = object.__new__


def alias_tensor(x, data):
    """A Tensor over array ``data`` (a view of x's memory) sharing x's device, storage and
    version counter; no view metadata yet (make_view adds it)."""
    out = _new(Tensor)
    out._data = data
    out._device = x._device
    vc = x._vc   # (x's counter, made now if nobody asked for it yet: _version_counter)
    out._vc = vc if vc is not None else x._version_counter
    out._base = None
    out._view_info = None
    out._grad_fn = None
    out._output_nr = 0
    storage = x._storage_   # the array owning the memory (None: x's own array)
    if storage is None:
        storage = x._data
    if storage is not data:
        out._storage_ = storage
    return out


# -- Note [view geometry by arithmetic] --------------------------------------------------
# A view's geometry (sizes, strides in elements, storage offset) is what CopySlices and a
# regenerated view's AsStridedBackward0 record. Read off the array, the storage offset
# needs two data pointers — on NumPy each is ``__array_interface__``, a dict built per call
# (~3 µs) — so a view keeps its geometry in its ViewInfo (``vi.geom``, computed once), and
# select and slice, the views of a row loop, fill it in when they make the view, from their
# parent's offset by arithmetic: ``select(d, i)`` starts ``i * stride[d]`` elements further,
# ``slice(d, start, ...)`` ``start * stride[d]`` further. That is how the array module
# itself computes the view's data pointer, so both ways give the same numbers (a test
# compares them). An empty view keeps reading pointers: NumPy starts an empty slice at
# offset 0, not at ``start``.

_ELEMENT_STRIDES = {}   # (strides in bytes, itemsize) -> strides in elements


def strides_of(a):
    """The strides of array ``a``, in elements (remembered per byte strides: a row loop
    asks for the same few layouts over and over)."""
    key = (a.strides, a.itemsize)
    st = _ELEMENT_STRIDES.get(key)
    if st is None:
        if len(_ELEMENT_STRIDES) > 4096:
            _ELEMENT_STRIDES.clear()
        isz = key[1]
        st = _ELEMENT_STRIDES[key] = tuple([s // isz for s in key[0]])
    return st


def geometry(t):
    """(sizes, strides, storage_offset) of a tensor, in elements. A view's never changes
    (its array is fixed), so it is computed once and kept in its ViewInfo."""
    vi = t._view_info
    if vi is not None:
        g = vi.geom
        if g is None:
            g = vi.geom = (tuple(t._data.shape), strides_of(t._data), t.storage_offset())
        return g
    return tuple(t._data.shape), strides_of(t._data), t.storage_offset()


def _offset_of(t):
    vi = t._view_info
    if vi is None:
        return 0 if t._storage_ is None else t.storage_offset()  # 0: t owns its array
    g = vi.geom
    return (g or geometry(t))[2]


def select_geometry(x, out, dim, index):
    """The geometry of ``out = x.select(dim, index)`` (index already wrapped)."""
    d = out._data
    if not d.size:
        return geometry(out)
    return (tuple(d.shape), strides_of(d),
            _offset_of(x) + index * (x._data.strides[dim] // d.itemsize))


def slice_geometry(x, out, dim, start):
    """The geometry of ``out = x.slice(dim, start, end, step)`` (start already clamped)."""
    d = out._data
    if not d.size:
        return geometry(out)
    return (tuple(d.shape), strides_of(d),
            _offset_of(x) + start * (x._data.strides[dim] // x._data.itemsize))


# -- Note [regenerating on a new CopySlices] ---------------------------------------------
# rebase_history has just made the base's history a CopySlices ``cs``, and must rebuild
# the written view's grad_fn on it (regenerate_grad_fn). For a view that may be modified
# (creation_meta DEFAULT) in geometry mode, what regenerate_grad_fn would find is known:
# the base requires grad, its edge is (cs, 0), its geometry is cs's, and the node is
# base.as_strided(view's geometry) — recorded here directly.

def regenerate_on(view, vi, base, cs):
    """What ``regenerate_grad_fn(view)`` does right after ``base._grad_fn = cs``."""
    vi.version = view._version_counter.version
    sizes, strides, offset = vi.geom or geometry(view)
    view._grad_fn = record(OPS["as_strided"], (base,), view,
                           (sizes, strides, offset,
                            (cs.base_sizes, cs.base_strides, cs.base_offset)), ((cs, 0),))
    view._output_nr = 0


# -- Note [in-place ufuncs] --------------------------------------------------------------
# Binary arithmetic in place writes straight into self's memory (``out=``): no temporary,
# one pass (an optimizer step over big parameters is several of these). Only when the
# result is exactly what the general path would write: a float self, an operand of self's
# dtype (or a Python number) whose shape broadcasts to self's.

# Not add_/sub_ with alpha: their forward rounds once (Note [alpha as one fused
# multiply-add], blas.py), which a ufunc cannot.
INPLACE_UFUNCS = {"add": "add", "add_scalar": "add", "sub": "subtract", "mul": "multiply",
                  "div": "true_divide"}


def ufunc_into(xp, name, d, o):
    """Run ufunc ``name`` of ``xp`` on ``d`` (self's array) and ``o`` (the operand's array
    or a Python number) into ``d``; False (nothing done) when the general path must run
    instead."""
    if d.dtype.kind != "f":
        return False  # integer tensors: the general path applies the casting rules
    od = getattr(o, "dtype", None)
    if od is None:
        if isinstance(o, bool) or not isinstance(o, (int, float)):
            return False
        o = B.scalar_operand(d, o)   # Note [cached scalar operands] (backend/devices.py)
    elif od != d.dtype or o.shape != d.shape:
        try:
            if od != d.dtype or B.broadcast_shapes(o.shape, d.shape) != d.shape:
                return False  # promotion or a shape that does not fit: the general path
        except ValueError:
            return False
    getattr(xp, name)(d, o, out=d)
    return True


# -- Note [CopySlices on arrays] ---------------------------------------------------------
# A plain backward's apply() (engine_plain.py: Note [arrays in a plain backward]) — the same
# steps as CopySlices.apply, on bare arrays, for a base laid out row-major (the usual
# clone); any other layout, and replay mode, take the teaching path, wrapped.
#
# The incoming gradient is written into directly (instead of into a copy of it) when
# nobody else holds it: its only references are the caller's list slot, which is cleared
# first, the local name and getrefcount's argument. A loop of row updates would otherwise
# copy the whole base once per row (O(rows x base)).

def is_row_major(a):
    """Whether array ``a``'s strides are row-major ones, size-1 dims aside (NumPy's
    C-contiguous flag says exactly that for a non-empty array)."""
    if a.size:
        return bool(a.flags.c_contiguous)
    expect = 1
    for sz, st in zip(reversed(a.shape), reversed(strides_of(a))):
        if sz != 1 and st != expect:
            return False
        expect *= sz
    return True


def copyslices_apply_arrays(cs, grads):
    """CopySlices.apply on arrays (Note [CopySlices on arrays]). A CopySlices that keeps
    its wrapped node as a record runs a row's kernels from it (``cs._row``: Note [a
    wrapped node kept as a record], views_record.py); None, or its answer None, reads
    ``cs.fn``."""
    if cs.freed:   # (CopySlices.apply's check)
        raise RuntimeError(ERR_FREED)
    a = grads[0]
    grads[0] = None
    if cs.replay or not cs.row_major:
        # the teaching path, wrapped; the caller's slot is cleared first, so that
        # CopySlices.apply can tell from the ARRAY's references whether another branch
        # holds it (_can_write_into)
        box = [None if a is None else Tensor._make(a, cs.device)]
        a = None
        return _tensors_to_arrays(cs.apply(box))
    xp = cs.device.xp
    if a is None:
        a = xp.zeros(cs.base_sizes, dtype=cs.dtype)
    elif not (sys.getrefcount(a) <= 2 and (a.dtype is cs.dtype or a.dtype == cs.dtype)
              and a.shape == cs.base_sizes and _writable_own_c_array(a.flags)):
        b = xp.empty(cs.base_sizes, dtype=cs.dtype)
        b[...] = a
        a = b
    sizes = cs.view_sizes
    off = cs.view_offset
    if len(sizes) == 1 and cs.view_strides[0] == 1 and off + sizes[0] <= a.size:
        n = sizes[0]
        bs = cs.base_sizes
        if n and len(bs) == 2 and bs[1] == n and not off % n:
            region = a[off // n]   # a whole row of a (row-major) matrix: the same run
        else:
            region = a.reshape(-1)[off:off + n]   # a row: a slice (see region_of)
        row = cs._row
        res = None if row is None else row(cs, region)
        if res is None:
            fn = cs.fn
            op = row_op_of(type(fn))
            if op is not None:
                res = _row_kernels(fn, op, region)   # Note [CopySlices' row kernels]
        if res is not None:
            res[0] = a
            return res
    else:
        region = region_of(cs.device, a, sizes, cs.view_strides, off)
    res = cs.fn.apply_arrays([region.copy()])
    g = res[0]
    region[...] = 0 if g is None else g
    res[0] = a
    return res


# -- Note [CopySlices' row kernels] --------------------------------------------------------
# For a row (the region is one contiguous run of the gradient, as a copy of it would be
# laid out) and a wrapped node of one of the binary rows of the lean in-place path (add,
# sub, mul, div: Note [lean in-place]), CopySlices runs the node's array kernels itself,
# on the region directly, instead of on a copy of it through ``fn.apply_arrays``:
#
# * the same kernels (ops/fast.py), in the same order, with the same saved-tensor checks
#   (``_kernel_args``; ``_check_saved`` for an input without an edge) — the same values
#   and the same errors;
# * those rows' kernels return the gradient itself (add's, sub's for self) or a fresh
#   array, and both are computed before the region is written, so reading the region
#   instead of a copy of it changes nothing; a result that IS the region is not written
#   back (region[...] = region) and, handed on down another edge, is copied first, as
#   the copy would have been: the region is written again by the next CopySlices of the
#   row (which would see the alias holding the gradient's array, and copy the whole base).
#
# Any other node, a node with broadcast shapes or cast dtypes (``_shapes``, ``_dtypes``),
# freed saved values, a missing edge 0, or kernels not as expected takes fn.apply_arrays.

_ROW_NAMES = frozenset(("add", "add_scalar", "sub", "mul", "div"))
_ROW_OPS = {}      # node class -> its OpDef when it is such a row, else None
_UNSEEN = object()


def row_op_of(cls):
    """The OpDef of node class ``cls`` when it is one of these rows, else None."""
    op = _ROW_OPS.get(cls, _UNSEEN)
    return _row_op(cls) if op is _UNSEEN else op


def _row_op(cls):
    op = getattr(cls, "OP", None)
    ok = (op is not None and issubclass(cls, FnNode) and op.name in _ROW_NAMES
          and cls.apply_arrays is FnNode.apply_arrays and not op.nondiff
          and not op.multi_output and len(op.inputs) == 2)
    if len(_ROW_OPS) > 256:
        _ROW_OPS.clear()
    _ROW_OPS[cls] = op = op if ok else None
    return op


def _row_kernels(fn, op, region):
    """FnNode.apply_arrays([region.copy()]) for Note [CopySlices' row kernels]'s rows, or
    None (nothing done: the caller takes apply_arrays)."""
    saved = fn._sdict
    if type(saved) is _InNode:   # Note [saved values in the node] (graph.py): made now
        saved = fn._saved
    fast = op.fast
    edges = fn.next_functions
    if (saved is None or fast is None or len(fast) != 2 or fn._shapes is not None
            or fn._dtypes is not None or edges[0][0] is None):
        return None
    k0, names0 = fast[0]
    if k0 is None:
        return None
    k1, names1 = fast[1]
    e1 = edges[1][0] is not None
    if e1 and k1 is None:
        return None
    a0 = _kernel_args(fn, saved, names0, region) if names0 else None
    if e1:
        a1 = _kernel_args(fn, saved, names1, region) if names1 else None
    else:
        for d in op.formulas[1][1]:   # _check_saved, as apply_arrays does
            v = saved.get(d)
            if type(v) is SavedTensor:
                v.unpack_data()
        k1 = a1 = None
    # (the checks all made first: the kernels write nothing before the region, at the end)
    return run_row(k0, a0, k1, a1, region)


def run_row(k0, a0, k1, a1, region):
    """The two kernels of a row (Note [CopySlices' row kernels]) on their arguments
    (None: the region alone); ``k1`` None when input 1 has no edge. Writes the region's
    gradient into it; returns [None, input 1's gradient]."""
    r0 = k0(*a0) if a0 is not None else k0(region)
    if type(r0) not in _ARRAYS:
        r0 = B.xp_of(region).asarray(r0)
    r1 = None
    if k1 is not None:
        r1 = k1(*a1) if a1 is not None else k1(region)
        if r1 is region:
            r1 = region.copy()
        elif type(r1) not in _ARRAYS:
            r1 = B.xp_of(region).asarray(r1)
    if r0 is not region:
        region[...] = r0
    return [None, r1]


def _writable_own_c_array(f):
    # one flags object (it holds the array: read the refcount before making it)
    return f.owndata and f.c_contiguous and getattr(f, "writeable", True)


def region_of(dev, a, sizes, strides, offset):
    """The region of C-contiguous array ``a`` with geometry (sizes, strides, offset) in
    elements. A region that is itself one contiguous run (a row of a row-major base: the
    usual case) is a slice of ``a``'s flat view (~0.3 µs), anything else the general
    strided constructor (~2 µs)."""
    flat = a.reshape(-1)
    if len(sizes) == 1 and strides[0] == 1 and offset + sizes[0] <= flat.shape[0]:
        return flat[offset:offset + sizes[0]]
    isz = a.itemsize
    return B.strided_in(dev, flat, sizes, tuple([s * isz for s in strides]), offset)
