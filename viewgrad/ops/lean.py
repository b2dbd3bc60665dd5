"""The commonest calls, run in one function each (Note [lean ops]).

Note [lean ops]
A speed trick, fenced off here. The teaching path of an op is ``dispatch``
(ops/table.py: forward, result Tensor) then ``record_one`` (autograd/record_lean.py:
node, edges, saved values). Most nodes of a small-op program come from four call shapes:

* ``unary(op, y)``: a one-input row whose forward is a NumPy ufunc (``y.tanh()``,
  ``y.exp()``, ``y.sigmoid()``, ``y.sin()``: Note [host ufuncs] in table.py);
* ``with_number(op, y, 2.5)``: ``y <op> a Python float`` (``y * 1.01``, ``y - 1.65``,
  ``y + 2.5``, ``y / 3.0``);
* ``with_constant(op, y, c)``: ``y <op> c``, ``c`` a constant Tensor (no history, not
  requiring grad, not a view) of ``y``'s shape, dtype and device (``y * c``);
* ``two_tensors(op, y, z, ...)``: ``y <op> z``, both needing a gradient, of one shape,
  dtype and device (``y * z``, ``h + f(h)``; the operator methods only);

with ``y`` a host float tensor that has a history and is not a view, and the autograd
state plain (grad mode on; no inference mode, anomaly mode or saved-tensor hooks: Note
[one plain flag] in autograd/state.py). For those, the functions below run what dispatch
and record_one (``record``, for two tensors) run — the same forward, the same result
Tensor, the same node with the same edges, sequence number, saved values and blame mark
— in one body, without the calls between them: the result Tensor is
``tensor.new_result``'s, as dispatch's; the saved value is built in line, field for
field as ``graph._new_saved_tensor`` builds it (a function call costs as much as the
fields). What a row may save is decided once per op
(``_row``): nothing, its result, its one input (``y.sin()`` saves ``y``), the Python
number, or the constant Tensor (two tensors: the SavedTensors of its save plan, made
here); any other row, and every other case, go to ``dispatch`` untouched, which also
raises every error.

tests/autograd/test_lean_record.py runs every program both ways (``set_lean_ops(False)``
turns this off) and compares everything observable.

Note [lean methods]
The Tensor methods of those calls (``y.tanh()``, ``y * 1.01``, ``y - 1.65``, ``y * c``)
are made here (``unary_method``, ``operator_method``): each is the op's own method
(``slow``, the teaching path, which calls the functions above) with the commonest case —
a float32/float64 operand — run in its own body first, its row's answers (``_row``)
bound once, the result Tensor and the saved value built in line, the blame mark read
from the caller's frame when that frame is the user's (``blame.user_frame`` otherwise).
Same checks, same objects, same order as the functions above; any other call is
``slow``'s.
"""
from __future__ import annotations

import functools
import sys

from .. import backend as B
from ..autograd import blame as _blame
from ..autograd.accumulate import grad_accumulator as _grad_accumulator
from ..autograd.code_copies import own_code
from ..autograd.fold import MASK as _FOLD_MASK, tick as _fold_tick
from ..autograd.record_lean import record_one as _record_one
from ..autograd.graph import (_NO_EDGE, _NO_BLAME, _InNode, _saved_input,
                              next_sequence_nr as _next_seq)
from ..autograd.recording import _NOTHING_SAVED
from ..autograd.state import odd_threads as _ODD, state as _st
from ..tensor import LEAN_CLASSES as _LEAN, Tensor, VersionCounter, new_result
from .table import OPS as _OPS, dispatch

__all__ = ["unary", "with_number", "with_constant", "two_tensors", "set_lean_ops",
           "unary_method", "operator_method", "reduction_method"]

_HOST = B.HOST_ARRAY
_B_iterator_layout = B.iterator_layout
_Tensor = Tensor
_new = object.__new__
_enabled = [True]
_user_frame = _blame.user_frame
_INSIDE = _blame._INSIDE   # file name -> inside viewgrad? (Note [blame marks])
# Note [the last user code]: the code object of the last caller found outside viewgrad.
# A loop of small ops calls from one function, so "is the caller the user's?" is mostly
# "is it that same code object?", one identity test instead of reading its file name and
# looking it up. A code object's file never changes, so the answer is exact.
_LAST_USER = [None]
_getframe = sys._getframe
_VC = VersionCounter
# the cached 0-d operands of float32/float64 (Note [cached scalar operands], backend/devices.py)
_SCALARS = B._SCALAR_CACHE
# Note [dtypes by identity]: NumPy does not cache a dtype's hash, so ``d.dtype in
# _SCALARS`` hashes it on every call (~30-50 ns). Almost every array NumPy makes has the
# builtin float32/float64 dtype object itself, so the lean calls ask "is it that object?"
# first and only look an equal but distinct dtype up (byte order spelled out, metadata,
# the result of an op on a byte-swapped array): the same answer, a little later.
# tests/autograd/test_code_copies.py runs a program on both.
_F32, _F64 = B.float32, B.float64   # (NumPy's builtin dtype objects)
_C32, _C64 = _SCALARS[_F32], _SCALARS[_F64]
_HOST_XP = B.cpu.xp   # the host array module
# the ufunc of the binary rows that take this path, called on host arrays only: what the
# array operator (``a * b``) calls, without the operator's Python-number and deferral
# questions (an ndarray operand never defers; the same ufunc, the same bits)
_BINARY = {"mul": B.host_ufunc("multiply"), "sub": B.host_ufunc("subtract"),
           "add": B.host_ufunc("add"), "add_scalar": B.host_ufunc("add"),
           "div": B.host_ufunc("true_divide")}


def set_lean_ops(enabled: bool) -> bool:
    """Turn the lean calls on or off (tests compare both); returns the previous setting.
    Off, every op's row answers False (Note [lean ops]: dispatch), as while the profiler
    times every forward; on, the rows are worked out again when next asked."""
    prev = _enabled[0]
    _enabled[0] = bool(enabled)
    for op in _OPS.values():
        op.lean1 = op.lean2 = None if enabled else False
    return prev


def _row(op, n):
    """What the lean path needs of ``op`` with ``n`` inputs, or False when a row must go
    through dispatch: (array function, node class, name of the one saved value or None,
    what that value is: 'result' | 'input' (the second operand, or the one input), and
    the _InNode markers of Note [saved values in the node]: the result's, a number's and a
    Tensor's, or a leaf input's and a history input's) — six fields, None where a row
    has none (the methods unpack it at once)."""
    row = False
    if not op.nondiff and _enabled[0]:
        if n == 1:
            plan, fwd = op.plan1, op.host
        else:
            plan, fwd = op.plan_scalar, _BINARY.get(op.name)
        if fwd is not None:
            if not plan:
                row = (fwd, op.node_cls, None, None, None, None)
            elif len(plan) == 1 and n == 1 and plan[0][1] == 1:
                row = (fwd, op.node_cls, plan[0][0], "result", _InNode("result", plan[0][0]),
                       None)
            elif len(plan) == 1 and n == 1 and plan[0][1] == 0:
                # the input itself (y.sin() saves y): a leaf's, or a tensor with a history
                row = (fwd, op.node_cls, plan[0][0], "input", _InNode("input", plan[0][0]),
                       _InNode("history", plan[0][0]))
            elif len(plan) == 1 and n == 2 and plan[0][1] == 0 and plan[0][2] == 1:
                # the operand: a Python number (x * 1.01) or a constant Tensor (x * c)
                row = (fwd, op.node_cls, plan[0][0], "input", _InNode("number", plan[0][0]),
                       _InNode("input", plan[0][0]))
    if n == 1:
        op.lean1 = row
    else:
        op.lean2 = row
    return row


def unary(op, x):
    """``dispatch(op, (x,))`` for a row with a host ufunc (Note [lean ops])."""
    fn = x._grad_fn
    data = x._data
    row = op.lean1
    if row is None:
        row = _row(op, 1)
    if (fn is None or not row or type(data) is not _HOST or x._view_info is not None
            or (_ODD and not _st.plain) or (row[3] == "input" and not _an_input_to_keep(x))):
        return dispatch(op, (x,))
    ufunc, cls, name = row[0], row[1], row[2]
    r = ufunc(data)
    if type(r) is not _HOST:   # a 0-d input gives a NumPy scalar
        r = x._device.xp.asarray(r)
    elif r.ndim > 1 and 1 in r.shape:   # Note [an elementwise result's layout] (layouts.py)
        r = B.iterator_layout(r, (data,), r.dtype)
    out = new_result(r, x._device)
    node = _new(cls)
    node.next_functions = ((fn, x._output_nr),)
    node._seq_nr = seq = _next_seq()
    if name is None:
        node._sdict = _NOTHING_SAVED
        node._releasable = False
    elif row[3] == "result":   # the result, in the node (Note [saved values in the node])
        node._sdict = row[4]
        node._sv = r
        node._svc = out._version_counter
        node._swhere = _user_frame(3) if _st.blame else _NO_BLAME
        node._releasable = True
    else:   # the input itself (it has a history), in the node
        _keep_in_node(node, x, row[5])
    out._grad_fn = node
    if not seq & _FOLD_MASK:   # Note [folded chains] (autograd/fold.py)
        _fold_tick(fn)
    return out


def _keep_in_node(node, t, marker):
    """Save input Tensor ``t`` in ``node``'s slots (Note [saved values in the node]): the
    Tensor, its version counter and version now, and the blame mark of the user's line
    (read four frames up: the user's call of unary or with_constant's caller)."""
    vc = t._version_counter
    node._sdict = marker
    node._sv = t
    node._svc = vc
    node._sver = vc.version
    node._swhere = _user_frame(4) if _st.blame else _NO_BLAME
    node._releasable = True


def _an_input_to_keep(x):
    """Whether ``x`` may be saved in a node's slots (Note [saved values in the node]): the
    first output of its node (what the slots' SavedTensor says) and not an inference
    tensor (saving one raises: ``graph._new_saved_tensor``, on the general path)."""
    vc = x._vc
    return not x._output_nr and (vc is None or not vc.inference)


def with_number(op, x, other):
    """``dispatch(op, (x, other))`` for ``other`` a Python float (Note [lean ops])."""
    if type(x) is not _Tensor:
        return dispatch(op, (x, other))
    fn = x._grad_fn
    data = x._data
    row = op.lean2
    if row is None:
        row = _row(op, 2)
    if (fn is None or not row or type(data) is not _HOST or x._view_info is not None
            or (_ODD and not _st.plain)):
        return dispatch(op, (x, other))
    cache = _SCALARS.get(data.dtype)   # float32 and float64 only
    if cache is None:
        return dispatch(op, (x, other))
    f, cls, name = row[0], row[1], row[2]
    z = cache.get(other)
    if z is None:
        z = B.scalar_operand(data, other)
    r = f(data, z)
    if type(r) is not _HOST:   # a 0-d input gives a NumPy scalar
        r = x._device.xp.asarray(r)
    out = new_result(r, x._device)
    node = _new(cls)
    node.next_functions = ((fn, x._output_nr), _NO_EDGE)
    node._seq_nr = seq = _next_seq()
    if name is None:   # x - 1.65 saves nothing
        node._sdict = _NOTHING_SAVED
        node._releasable = False
    else:   # the number itself, as PyTorch saves it too (Note [saved values in the node])
        node._sdict = row[4]
        node._sv = other
        node._sarg = z
        node._releasable = True
    out._grad_fn = node
    if not seq & _FOLD_MASK:   # Note [folded chains] (autograd/fold.py)
        _fold_tick(fn)
    return out


def _a_constant_like(c, cd, x, data):
    """Whether Tensor ``c`` (its array ``cd``) is a constant shaped, typed and placed like
    ``x`` (its host array ``data``): no history, no grad, not a view, not an inference
    tensor (a lean result not yet asked for its counter is none: Note [a version counter
    made when first asked])."""
    return (type(cd) is _HOST and cd.dtype is data.dtype and cd.shape == data.shape
            and (data.ndim < 2 or data.flags.c_contiguous)   # (else dispatch: its layout)
            and c._grad_fn is None and not c._requires_grad and c._view_info is None
            and c._device is x._device and not c._output_nr
            and (c._vc is None or not c._vc.inference))


def with_constant(op, x, c):
    """``dispatch(op, (x, c))`` for ``c`` a constant Tensor shaped, typed and placed like
    ``x`` (Note [lean ops]); None when that is not the case (the caller dispatches)."""
    fn = x._grad_fn
    data = x._data
    cd = c._data
    row = op.lean2
    if row is None:
        row = _row(op, 2)
    if (fn is None or not row or type(data) is not _HOST or x._view_info is not None
            or data.dtype.char not in "fd" or (_ODD and not _st.plain)
            or not _a_constant_like(c, cd, x, data)):
        return None
    f, cls, name = row[0], row[1], row[2]
    r = f(data, cd)
    if type(r) is not _HOST:
        r = x._device.xp.asarray(r)
    out = new_result(r, x._device)
    node = _new(cls)
    node.next_functions = ((fn, x._output_nr), _NO_EDGE)
    node._seq_nr = seq = _next_seq()
    if name is None:   # y + c saves nothing
        node._sdict = _NOTHING_SAVED
        node._releasable = False
    else:   # the constant, as an input is saved: the Tensor itself, in the node
        _keep_in_node(node, c, row[5])
    out._grad_fn = node
    if not seq & _FOLD_MASK:   # Note [folded chains] (autograd/fold.py)
        _fold_tick(fn)
    return out


# -- Note [lean methods] ----------------------------------------------------------------

def unary_method(op, slow, out=False):
    """``Tensor.<op>()``: ``slow(self)`` with ``unary(op, self)``'s lean call in line for
    a float32/float64 host tensor (Note [lean methods]). ``out``: the function also takes
    PyTorch's ``out=`` (``vg.sin(x, out=y)``: ``slow``'s)."""
    if out:
        def with_out(self, *, out=None):
            return method(self) if out is None else slow(self, out=out)
    floats = _SCALARS   # (its keys: float32, float64: Note [dtypes by identity])
    name = slow.__name__

    def method(self):
        try:
            fn = self._grad_fn
        except AttributeError:   # (vg.sin(2.0)): PyTorch's words
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, "
                            f"not {type(self).__name__}") from None
        if fn is None and self._requires_grad and (type(self) is _Tensor
                                                   or type(self) in _LEAN):
            fn = _grad_accumulator(self)   # a leaf (a Parameter too): its AccumulateGrad
        data = self._data
        # (2: blame on too: Note [one plain flag]; the gate: Note [every thread plain])
        plain = _st.plain if _ODD else 2
        if (plain and fn is not None and type(data) is _HOST and self._view_info is None
                and data.ndim
                and ((dt := data.dtype) is _F32 or dt is _F64 or dt in floats)):
            row = op.lean1   # (the profiler sets it False while it times every forward)
            if row is None:
                row = _row(op, 1)
            if row:
                ufunc, cls, saves, kind, marker, marker2 = row
                if kind == "input" and not _an_input_to_keep(self):
                    return slow(self)
                r = ufunc(data)
                if r.ndim > 1 and 1 in r.shape:   # Note [an elementwise result's layout]
                    r = _B_iterator_layout(r, (data,), r.dtype)
                out = _new(_Tensor)
                out._data = r
                out._device = self._device
                out._base = None
                out._view_info = None
                out._output_nr = 0
                node = _new(cls)
                node.next_functions = ((fn, self._output_nr),)
                node._seq_nr = seq = _next_seq()
                if saves is None:
                    out._vc = None   # Note [a version counter made when first asked]
                    node._sdict = _NOTHING_SAVED
                    node._releasable = False
                else:
                    if kind == "result":   # the result, in the node (Note [saved values in
                        out._vc = vc = _new(_VC)   # the node])
                        vc.version = 0
                        vc.bumps = None
                        node._sdict = marker
                        node._sv = r
                    else:   # the input itself, in the node: a leaf's, or one with a history
                        out._vc = None   # Note [a version counter made when first asked]
                        vc = self._vc
                        if vc is None:
                            vc = self._version_counter
                        node._sdict = marker if self._grad_fn is None else marker2
                        node._sv = self
                        node._sver = vc.version
                    node._svc = vc
                    if plain == 2:   # blame on: _where(), in line
                        f = _getframe(1)
                        co = f.f_code
                        if co is _LAST_USER[0]:   # Note [the last user code]
                            node._swhere = (co, f.f_lasti)
                        elif _INSIDE.get(co.co_filename) is False:
                            _LAST_USER[0] = co
                            node._swhere = (co, f.f_lasti)
                        else:
                            node._swhere = _user_frame(2)
                    else:
                        node._swhere = _NO_BLAME
                    node._releasable = True
                out._grad_fn = node
                if not seq & _FOLD_MASK:   # Note [folded chains] (autograd/fold.py)
                    _fold_tick(fn)
                return out
        return slow(self)
    own_code(method)   # Note [a code object per row] (autograd/code_copies.py)
    public = with_out if out else method
    public.__name__ = public.__qualname__ = slow.__name__
    public.__module__, public.__doc__ = slow.__module__, slow.__doc__
    return public


def operator_method(op, slow, tensors=None):
    """``Tensor.__<op>__(other)``: ``slow(self, other)`` with ``with_number``'s lean call
    in line for a Python float ``other`` and a float32/float64 host tensor, and (with
    ``tensors``, the row of a Tensor operand) ``with_constant``'s for a constant Tensor
    ``other`` and ``two_tensors``'s for one that needs a gradient (Note [lean methods])."""
    def method(self, other):
        kind = type(other)
        if kind is float or (tensors is not None and (kind is _Tensor or kind in _LEAN)):
            fn = self._grad_fn
            if fn is None and self._requires_grad and (type(self) is _Tensor
                                                       or type(self) in _LEAN):
                fn = _grad_accumulator(self)   # a leaf (a Parameter too): its AccumulateGrad
            data = self._data
            # (2: blame on too: Note [one plain flag]; the gate: Note [every thread plain])
            plain = _st.plain if _ODD else 2
            if type(data) is _HOST:   # Note [dtypes by identity]
                dt = data.dtype
                cache = _C32 if dt is _F32 else _C64 if dt is _F64 else _SCALARS.get(dt)
            else:
                cache = None
            if (plain and fn is not None and cache is not None and self._view_info is None
                    and (type(self) is _Tensor or type(self) in _LEAN)):   # (cache: f32/f64)
                row_op = op
                if kind is float:
                    z = cache.get(other)
                    if z is None:
                        z = B.scalar_operand(data, other)
                else:   # with_constant's question: a constant shaped, typed, placed as self
                    z = other._data
                    row_op = tensors
                    if (other._grad_fn is not None or other._requires_grad   # (y * y)
                            or not _a_constant_like(other, z, self, data)):
                        out = two_tensors(tensors, self, other, fn, data, z, plain)
                        return slow(self, other) if out is None else out
                row = row_op.lean2   # (False while the profiler times every forward)
                if row is None:
                    row = _row(row_op, 2)
                if row:
                    f, cls, saves, _, marker, marker2 = row
                    r = f(data, z)
                    if type(r) is not _HOST:   # a 0-d input gives a NumPy scalar
                        r = _HOST_XP.asarray(r)
                    out = _new(_Tensor)
                    out._data = r
                    out._device = self._device
                    out._vc = None   # Note [a version counter made when first asked]
                    out._base = None
                    out._view_info = None
                    out._output_nr = 0
                    node = _new(cls)
                    node.next_functions = ((fn, self._output_nr), _NO_EDGE)
                    node._seq_nr = seq = _next_seq()
                    if saves is None:   # x - 1.65 and y + c save nothing
                        node._sdict = _NOTHING_SAVED
                        node._releasable = False
                    elif kind is float:   # the number itself, as PyTorch saves it, in the node
                        node._sdict = marker
                        node._sv = other
                        node._sarg = z
                        node._releasable = True
                    else:   # the constant, as an input is saved: the Tensor itself
                        cvc = other._vc
                        if cvc is None:   # Note [a version counter made when first asked]
                            cvc = other._version_counter
                        node._sdict = marker2
                        node._sv = other
                        node._svc = cvc
                        node._sver = cvc.version
                        if plain == 2:   # blame on: _where(), in line
                            f = _getframe(1)
                            co = f.f_code
                            if co is _LAST_USER[0]:   # Note [the last user code]
                                node._swhere = (co, f.f_lasti)
                            elif _INSIDE.get(co.co_filename) is False:
                                _LAST_USER[0] = co
                                node._swhere = (co, f.f_lasti)
                            else:
                                node._swhere = _user_frame(2)
                        else:
                            node._swhere = _NO_BLAME
                        node._releasable = True
                    out._grad_fn = node
                    if not seq & _FOLD_MASK:   # Note [folded chains] (autograd/fold.py)
                        _fold_tick(fn)
                    return out
        return slow(self, other)
    own_code(method)   # Note [a code object per row] (autograd/code_copies.py)
    method.__name__ = method.__qualname__ = slow.__name__
    method.__module__, method.__doc__ = slow.__module__, slow.__doc__
    return method


_BOTH = (True, True)   # (both inputs need a gradient: the save plan's key)


def two_tensors(op, x, y, fn, data, yd, plain):
    """``dispatch(op, (x, y))`` for two row-major float32/float64 host Tensors of one
    dtype and device, neither a view, both needing a gradient (``fn``: x's node, or its
    AccumulateGrad), nothing cast, their shapes equal or broadcast (``h + b``, ``y -
    y.mean(-1, keepdim=True)``: record's ``_shapes``): the result, or None (the caller
    takes the teaching path, which also raises every error). Called by
    ``operator_method``'s method (the blame mark is read two frames up: the user's
    call)."""
    if y is x:   # (y * y: one tensor, asked once)
        same = True
        if ((data.ndim > 1 and not data.flags.c_contiguous) or x._output_nr
                or x._view_info is not None):
            return None
        fn2 = fn
    else:
        same = yd.shape == data.shape
        if (type(yd) is not _HOST or yd.dtype is not data.dtype
                or (not same and not op.broadcast)
                or y._view_info is not None or y._device is not x._device or y._output_nr
                or ((data.ndim > 1 or yd.ndim > 1)
                    and not (data.flags.c_contiguous and yd.flags.c_contiguous))):
            return None
        fn2 = y._grad_fn
        if fn2 is None:
            if not y._requires_grad:
                return None
            fn2 = _grad_accumulator(y)   # a leaf: its AccumulateGrad
    vx = x._vc
    vy = y._vc
    if (vx is not None and vx.inference) or (vy is not None and vy.inference) or x._output_nr:
        return None   # (saving an inference tensor raises: the teaching path's words)
    row = op.lean2   # (False while the profiler times every forward)
    if row is None:
        row = _row(op, 2)
    if not row:
        return None
    if same:
        r = row[0](data, yd)
    else:
        try:
            r = row[0](data, yd)   # (row-major operands: a row-major result, as
        except ValueError:         # dispatch's iterator_layout leaves it)
            return None   # shapes that do not broadcast: the teaching path's error
    if type(r) is not _HOST:   # a 0-d input gives a NumPy scalar
        r = _HOST_XP.asarray(r)
    elif not same and 1 in r.shape:   # (a size-1 dim's stride may order it: dispatch's
        r = B.iterator_layout(r, (data, yd), r.dtype)   # Note [an elementwise result's layout])
    out = new_result(r, x._device)
    node = _new(op.node_cls)
    node.next_functions = ((fn, 0), (fn2, 0))
    node._seq_nr = seq = _next_seq()
    if not same or r.shape != data.shape:   # record's: the inputs' shapes, one broadcast
        node._shapes = (data.shape, yd.shape)
    plan = op._plans.get(_BOTH) or op.save_plan(_BOTH)
    if not plan:   # y + z saves nothing
        node._sdict = _NOTHING_SAVED
        node._releasable = False
    else:   # record's _save, in line: a SavedTensor of each input its plan names
        if plain == 2:   # blame on: _where(), in line
            f = _getframe(2)
            co = f.f_code
            if co is _LAST_USER[0]:   # Note [the last user code]
                where = (op.node_name, (co, f.f_lasti))
            elif _INSIDE.get(co.co_filename) is False:
                _LAST_USER[0] = co
                where = (op.node_name, (co, f.f_lasti))
            else:
                where = (op.node_name, _user_frame(3))
        else:
            where = None
        saved = {}
        for name, _, idx in plan:   # (these rows save inputs only)
            st = _saved_input(y if idx else x)   # (a plain thread: no saved-tensor hooks)
            st.where = where
            saved[name] = st
        node._sdict = saved
        node._releasable = True
    out._grad_fn = node
    if not seq & _FOLD_MASK:   # Note [folded chains] (autograd/fold.py)
        _fold_tick(fn)
    return out


def reduction_method(op, slow, attrs, host):
    """``Tensor.<op>()`` called with no arguments (``y.sum()``): ``slow`` (the checked
    method) with dispatch and ``record_one`` in line for a float32 / float64 host tensor
    with a history (Note [lean methods]); ``host(data)`` is ``op.forward(data, *attrs)``
    on such an array, the same ufunc call without the Python round it (Note [host
    ufuncs], table.py). Any argument, any other tensor: ``slow``."""
    def method(self, *args, **kwargs):
        if not args and not kwargs:
            fn = self._grad_fn   # (record_one's input has a history: a leaf goes the slow way)
            data = self._data
            if (fn is not None and (not _ODD or _st.plain) and type(data) is _HOST
                    and self._view_info is None and type(self) is _Tensor
                    and data.dtype in _SCALARS and op.lean1 is not False):
                # (lean1 is False while the profiler times every forward)
                r = host(data)
                if type(r) is not _HOST:
                    r = _HOST_XP.asarray(r)
                out = new_result(r, self._device)
                out._grad_fn = _record_one(op, (self,), out, attrs, self)
                return out
        return slow(self, *args, **kwargs)
    own_code(method)   # Note [a code object per row] (autograd/code_copies.py)
    return functools.update_wrapper(method, slow)   # (its signature is slow's: help, REPL)
