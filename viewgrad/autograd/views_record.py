"""A row's CopySlices that keeps its wrapped node as a record (Note [a wrapped node kept
as a record]): a speed trick of the lean in-place path, fenced off here.

Note [a wrapped node kept as a record]
A speed trick; views.py tells the story (CopySlices wraps the in-place op's node ``fn``)
and nothing there knows of this. In a row loop (``for i: r = b[i]; r.mul_(w);
r.add_(0.5)``) each in-place op on a view leaves a CopySlices whose wrapped node reaches
a little graph of its own: the op's node, its edges, the view's old grad_fn (the
SelectBackward0 or AsStridedBackward0 the op was applied through), the clone of self
the op saved with its CloneBackward0 and version counter, the SavedTensors and their
dict. Once the view has a new grad_fn, nothing but the CopySlices reaches that little
graph, and a plain backward needs only its numbers and arrays: ~20 objects a row that
the cyclic garbage collector tracks for as long as the graph lives (issue 19: with
torch's heap in the process, every object a graph keeps costs full collections).

So when ``lean_binary_`` (inplace_lean.py) finds that nothing else can reach the view's
old grad_fn (it is a plain SelectBackward0 or AsStridedBackward0 whose only edge is the
base's grad_fn, and ``sys.getrefcount`` counts no holder but the view and the op's own
locals: no hooks, no metadata, no weak reference), it does not build that little graph:
it keeps what every object of it would hold as one tuple of numbers, strings and arrays
(``_rec``), with the operand the op saved and its version counter in two slots, and makes
the CopySlices of a twin class (``CopySlices`` too, by name and by ``isinstance``)
whose ``fn`` is a property. Reading ``fn`` (the tracer, the pictures, ``saved_items``, an
error's message, the teaching path's ``apply``, a user walking the graph) builds the
little graph exactly as ``lean_binary_`` would have built it (the same classes, sequence
numbers, saved values and versions, blame marks, edges), puts it in the slot and gives
the CopySlices its own class back: nobody held the objects that were not built, so
nobody can tell them from the ones that are.

A plain backward runs a row from the record: ``copyslices_apply_arrays`` (views_fast.py)
asks the twin's ``_row`` (``_row_from_record``) for the wrapped node's kernels on the
region; it checks the saved operand's version (and that a saved input is not detached
in place), gives the kernels the arrays ``_kernel_args`` would unpack (what each kernel
takes, and the kernels themselves, are looked up once per recipe: ``numbers``), and
answers None (the fn is built and the usual steps run, raising what they raise) whenever
anything is not as the record describes. A row whose wrapped node hands its gradient
back as it is, with nothing on another edge (``r.add_(0.5)``), would write the region
with what it already holds: its gradient goes on as it is (``_apply_arrays``), when it
has the base's dtype, shape and row-major layout (the usual step's result has them).
Releasing the CopySlices (``release_variables``) only marks it freed; a wrapped node
built later is released as it is built.

What it saves, measured (bench/README.md, twenty-ninth pass): the row loop's graph keeps
11 tracked objects a row instead of 28, and its forward builds fewer objects.

``set_recording(False)`` turns it off (tests run programs both ways and compare graphs,
gradients and errors: tests/views/test_views_record.py).
"""
from __future__ import annotations

import sys
import threading

from ..tensor import new_result as _new_result
from .graph import SavedTensor
from .nodes import OPS
from .recording import _NOTHING_SAVED
from .views import CopySlices
from . import views_fast as _vf   # (_row_kernels read through the module: tests swap it)
from .views_fast import copyslices_apply_arrays, row_op_of

__all__ = ["set_recording", "view_part", "numbers", "RecordedCopySlices", "RECORDING",
           "COUNT_EXPECTED"]

RECORDING = [True]   # lean_binary_ reads RECORDING[0]
_new = object.__new__
_lock = threading.Lock()
_FN = CopySlices.__dict__["fn"]   # the slot itself, under the twin's property
_fn_get, _fn_set = _FN.__get__, _FN.__set__
_CLS = []    # class number -> node class (a class in a tuple would keep it tracked)
_CI = {}     # node class -> its number


def set_recording(enabled: bool) -> bool:
    """Turn the records on or off (tests compare both); returns the previous setting."""
    prev = RECORDING[0]
    RECORDING[0] = bool(enabled)
    return prev


def _number(cls):
    i = _CI.get(cls)
    if i is None:
        with _lock:
            i = _CI.get(cls)
            if i is None:
                _CLS.append(cls)
                i = _CI[cls] = len(_CLS) - 1
    return i


def _calibrate():
    """What ``sys.getrefcount`` gives in ``lean_binary_`` for a view node that nothing
    else holds: the view's ``_grad_fn`` slot, the local, the edge tuple, the argument
    (4 in CPython); the probe holds it exactly so. Nothing is kept as a record where
    the count is other (``lean_binary_`` compares)."""
    class Probe:
        __slots__ = ("g",)

    view = Probe()
    view.g = Probe()
    fn = view.g
    e0 = (fn, 0)   # noqa: F841 (a holder, as lean_binary_'s e0 is)
    return sys.getrefcount(fn)


COUNT_EXPECTED = _calibrate()


def view_part(vn, base):
    """The view node ``vn`` (the view's grad_fn, which ``lean_binary_`` has just counted)
    as (class number, sequence number, saved dict), when it can be kept so, else None: a
    plain node (no weak reference, nothing in its ``__dict__``: hooks, metadata,
    _shapes...) whose saved values are a dict and whose one edge is the base's grad_fn.
    The dict itself is kept, the very object (nothing else holds it): a select's or a
    regenerated view's holds numbers and tuples of numbers, which the collector does not
    track, nor then the dict. ``lean_binary_`` makes the record in
    line, one flat tuple: a fresh tuple inside it (a blame mark, the operand's numbers)
    would keep it tracked for a collection or two more, into the old generation, where
    every full collection walks it. ``_rec`` is (the wrapped node's class number, its
    sequence number, the view's output_nr, the clone's array, CloneBackward0's sequence
    number, the blame mark's code and offset (None, None: no mark; offset -1: a mark
    with no user frame), the plan, these three, what the plan saves of the operand (its
    saved version, output_nr, had_grad_fn; or the number, None, None), the run number)."""
    if (vn.__weakref__ is not None or getattr(vn, "_releasable", True)   # (an FnNode's)
            or vn.__dict__):
        return None
    sd = vn._sdict
    e = vn.next_functions
    if (type(sd) is not dict or len(e) != 1 or e[0][0] is not base._grad_fn
            or e[0][1] != base._output_nr):
        return None
    ci = _CI.get(type(vn))
    return (_number(type(vn)) if ci is None else ci, vn._seq_nr, sd)


def _build(cs):
    """The wrapped node the record describes, with the little graph it reaches, as
    ``lean_binary_`` builds it (Note [a wrapped node kept as a record])."""
    ci, seq, nr0, carr, cseq, wco, wl, plan, vci, vseq, sd, ov, ov1, ov2, _ = cs._rec
    # the blame mark, shared by the saved values (as lean_binary_ shares it)
    where = None if wl is None else (_CLS[ci].OP.node_name, None if wl < 0 else (wco, wl))
    edges = cs.next_functions
    vn = _new(_CLS[vci])
    vn.next_functions = ((edges[0][0], edges[0][1]),)
    vn._seq_nr = vseq
    vn._sdict = sd
    vn._releasable = False
    e0 = (vn, nr0)
    c = None
    if carr is not None:   # the clone of self the op saved, and its CloneBackward0
        c = _new_result(carr, cs.device)
        c._grad_fn = cn = _new(OPS["clone"].node_cls)
        cn.next_functions = (e0,)
        cn._seq_nr = cseq
        cn._sdict = _NOTHING_SAVED
        cn._releasable = False
    node = _new(_CLS[ci])
    node.next_functions = (e0, edges[1])
    node._seq_nr = seq
    if plan:
        saved = {}
        for name, idx in plan:
            if idx == 0:
                saved[name] = _saved(c, c._vc, 0, 0, True, where)
            elif cs._rec_x is None:
                saved[name] = ov   # a Python number
            else:
                saved[name] = _saved(cs._rec_x, cs._rec_xvc, ov, ov1, ov2, where)
        node._sdict = saved
        node._releasable = True
    else:
        node._sdict = _NOTHING_SAVED
        node._releasable = False
    if cs.freed:   # (released as a record: CopySlices.release_variables' fn step)
        node.release_variables()
    return node


def _saved(t, vc, version, output_nr, had_grad_fn, where):
    s = _new(SavedTensor)   # as _new_saved_tensor makes it (lean_binary_'s in-line copy)
    s.version_counter = vc
    s.saved_version = version
    s.where = where
    s.output_nr = output_nr
    s.tensor = t
    s.data = None
    s.had_grad_fn = had_grad_fn
    return s


def _fn(cs):
    """The twin's ``fn``: built now, put in the slot, the class given back."""
    with _lock:
        if type(cs) is RecordedCopySlices:
            _fn_set(cs, _build(cs))
            _forget(cs)
    return _fn_get(cs)


def _set_fn(cs, fn):
    with _lock:
        _fn_set(cs, fn)
        if type(cs) is RecordedCopySlices:
            _forget(cs)


def _forget(cs):
    """The record dropped, the class given back: the slots unset, as they are on a
    CopySlices that never kept one (tests compare which slots are set)."""
    del cs._rec, cs._rec_x, cs._rec_xvc
    cs.__class__ = CopySlices


def _row_from_record(cs, region):
    """``_row_kernels(cs.fn, op, region)`` from the record, or None (the caller builds
    ``fn`` and takes the usual steps): Note [a wrapped node kept as a record]."""
    try:
        rec, x, xvc = cs._rec, cs._rec_x, cs._rec_xvc
    except AttributeError:   # (another thread built fn meanwhile)
        return None
    run = _RUN_LIST[rec[14]]
    if run is None:
        return None
    k0, s0, k1, s1, _ = run
    if x is None:
        xa = rec[11]   # (a number, or nothing saved)
    else:   # what _kernel_args would unpack, checked as it checks
        if xvc.version != rec[11] or (rec[13] and x._grad_fn is None):
            return None   # (modified, or detached, in place: the usual steps raise)
        xa = x._data
    vals = (rec[3], xa)   # plan index 0: the clone (nothing else reaches it), 1: the operand
    a0 = a1 = None
    if s0 is not None:
        a0 = [region]
        for i in s0:
            a0.append(vals[i])
    if cs.next_functions[1][0] is None:
        k1 = None
    elif k1 is None:
        return None
    elif s1 is not None:
        a1 = [region]
        for i in s1:
            a1.append(vals[i])
    return _vf.run_row(k0, a0, k1, a1, region)


_RUN_LIST = []   # run number -> (k0, plan indices of its saved names, k1, ...) or None


def numbers(cls, plan):
    """(class number, run number) for the records of wrapped nodes of class ``cls`` that
    save ``plan``: asked once per recipe (inplace_lean.py), kept in each record."""
    ci = _number(cls)
    run = _run_of(ci, plan)
    with _lock:
        _RUN_LIST.append(run)
        return ci, len(_RUN_LIST) - 1


def _run_of(ci, plan):
    """What ``_row_from_record`` runs for a record of class number ``ci`` and ``plan``:
    the wrapped node's two kernels and, for each, the plan index of each saved value it
    takes; None when ``_row_kernels`` would not run the row (Note [CopySlices' row
    kernels])."""
    cls = _CLS[ci]
    op = row_op_of(cls)
    run = None
    fast = None if op is None else op.fast
    if fast is not None and len(fast) == 2 and fast[0][0] is not None:
        where = dict(plan)
        (k0, n0), (k1, n1) = fast
        if all(n in where for n in n0):
            if not all(n in where for n in n1):
                k1 = None   # (the row runs only while input 1 has no edge)
            run = (k0, tuple([where[n] for n in n0]) if n0 else None,
                   k1, tuple([where[n] for n in n1]) if n1 and k1 else None,
                   not n0 and _is_identity(k0))
    return run


def _is_identity(k):
    """Whether kernel ``k`` hands back the very gradient it is given (add's, for self)."""
    probe = object()
    try:
        return k(probe) is probe
    except Exception:   # (a kernel that computes: it cannot take the probe)
        return False


def _apply_arrays(cs, grads):
    """CopySlices.apply_arrays (views_fast.py), but for a row whose wrapped node hands the
    gradient back as it is and nothing on another edge (``r.add_(0.5)``): its region of
    the gradient would be written with what it holds, so the gradient (of the base's
    dtype, shape and row-major layout, as the usual step makes its result) goes on as it
    is. Anything else (freed, replay, a copy to make) takes the usual steps."""
    a = grads[0]
    if (a is not None and not cs.freed and cs.next_functions[1][0] is None
            and not cs.replay and cs.row_major and a.shape == cs.base_sizes
            and (a.dtype is cs.dtype or a.dtype == cs.dtype) and a.flags.c_contiguous):
        try:
            run = _RUN_LIST[cs._rec[14]]
        except AttributeError:   # (another thread built fn meanwhile)
            run = None
        if run is not None and run[4]:
            grads[0] = None
            return [a, None]
    a = None
    return copyslices_apply_arrays(cs, grads)


def _release(cs):
    cs.freed = True   # (the wrapped node, built later, is released as it is built)


RecordedCopySlices = type("CopySlices", (CopySlices,), {
    "__slots__": (),
    "fn": property(_fn, _set_fn, doc=CopySlices.__doc__),
    "_row": staticmethod(_row_from_record),
    "apply_arrays": _apply_arrays,
    "release_variables": _release,
    "__module__": CopySlices.__module__,
    "__qualname__": CopySlices.__qualname__,
    "__doc__": CopySlices.__doc__,
})
