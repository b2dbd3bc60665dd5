"""The speed tricks of a training step's layers (linear, ReLU), fenced off here.

A multi-layer perceptron's step is a few big matrix products and, around them, a few
dozen Python calls and elementwise passes. The teaching paths (``nnops.linear``: ``t()``
then ``addmm``; ``pointwise.relu``: ``dispatch``; ReluBackward0's ``grad * (result > 0)``)
stay what the table says. What makes them cheap lives here, each trick named in a Note:

* Note [lean linear]: ``linear(x, W, b)``'s two nodes (TBackward0, AddmmBackward0)
  recorded in one body, without the checks that cannot fail and the calls between them;
* Note [AddmmBackward0 on arrays]: a linear layer's backward step without the general
  step's bookkeeping;
* Note [relu on host arrays]: ReLU's forward with a cached zero, as a host ufunc;
* Note [relu's backward in place]: the incoming gradient, when nobody else holds it, is
  masked in its own memory instead of into a new array.

Nothing here changes what is computed: each trick gives the bits, nodes, saved values
and errors the teaching path gives, and hands every other case to it.
``tests/ops/test_nn_fast_paths.py`` compares both ways.
"""
from __future__ import annotations

import sys

from .. import backend as B
from ..autograd import apply_lean as _apply_lean
from ..autograd import blame as _blame
from ..autograd.graph import (SavedTensor, _InNode, _NO_EDGE, _saved_input,
                              _saved_array as saved_array, next_sequence_nr as _next_seq)
from ..autograd.graph import _sum_to_array
from ..autograd.nodes import FnNode
from ..autograd.recording import _NOTHING_SAVED, _edge_of
from ..autograd.state import odd_threads as _ODD, state as _st
from ..autograd.views import DEFAULT, ViewChain, ViewInfo
from ..autograd.views_fast import alias_tensor
from ..tensor import LEAN_CLASSES as _LEAN, InferenceVersion, Tensor, new_result

__all__ = ["lean_linear", "relu_host", "relu_grad", "relu_grad_new", "ReluNode", "AddmmNode",
           "saved_array", "set_nn_fast"]

_Tensor = Tensor
_new = object.__new__

_HOST = B.HOST_ARRAY
_maximum = B.host_ufunc("maximum")
_torch_strides = B.torch_strides
_enabled = [True]


def set_nn_fast(enabled: bool) -> bool:
    """Turn this module's tricks on or off (tests compare both); returns the previous
    setting."""
    prev = _enabled[0]
    _enabled[0] = bool(enabled)
    return prev


# -- Note [relu on host arrays] -----------------------------------------------------------
# ``_relu_fwd`` (pointwise.py) is ``maximum(0 as x's dtype, x)``: two Python calls and a
# fresh 0-d zero per call. On a float32/float64 host array the same ufunc runs with a
# cached read-only zero of that dtype (the same bits); it is also the row's ``host``
# (Note [host ufuncs] in table.py), so ``relu`` takes ``lean.unary`` (Note [lean ops]).

_ZERO = {}
for _dt in ("float32", "float64"):
    _z = _HOST((), _dt)
    _z[()] = 0
    _z.flags.writeable = False
    _ZERO[_z.dtype] = _z
# (Note [dtypes by identity], ops/lean.py: the builtin float dtypes, their zeros and the
# integers of their size, for relu's backward in place)
_F32, _F64 = B.float32, B.float64
_IP32, _IP64 = (B.int32, _ZERO[_F32]), (B.int64, _ZERO[_F64])


def relu_host(fallback):
    """ReLU's forward on a host array: ``maximum`` with the cached zero of a float32 or
    float64 array, ``fallback(x)`` for any other dtype."""
    zeros = _ZERO
    maximum = _maximum

    def relu(x):
        z = zeros.get(x.dtype)
        # the zero first: NumPy's float32/float64 maximum answers its second operand on
        # a tie, so -0. stays -0. (PyTorch's clamp_min); other dtypes: the fallback
        return fallback(x) if z is None else maximum(z, x)
    return relu


# -- Note [relu's backward in place] -----------------------------------------------------
# ReluBackward0's array kernel (ops/fast.py: relu_grad) makes a new array the
# size of the layer. In a plain backward the incoming gradient is usually a fresh array
# that only this node's input list holds (the product ``grad @ W`` of the layer above):
# then the same kernel writes into it (``out=grad``: the same ufunc loop, the same bits),
# as a hand-written step does. Whether anything else holds it is asked as AccumulateGrad
# asks it (Note [CopySlices on arrays], views_fast.py): the list slot is cleared first, and
# then the only references are the local name and getrefcount's argument. It must also be
# writeable memory of its own (not a broadcast view, not a view of another array), of the
# result's dtype. It is the node's lean step (Note [lean apply], autograd/apply_lean.py,
# off with ``set_lean_apply(False)``): a shared gradient gets the row's kernel, a new
# array; every other case (hooks on the saved result, a result modified in place, which
# must raise) answers None, and the loop runs FnNode's apply_arrays, untouched.

# Note [relu's gradient, bit for bit]
# ReluBackward0 is ``threshold_backward(grad, result, 0)``: PyTorch's ``result <= 0 ? 0 :
# grad``, so where the result is NaN the gradient passes, and the zeros are +0. (``grad *
# (result > 0)`` stops NaN's gradient and gives -0. for a negative grad: both differ from
# PyTorch; ``where`` is exact but ~13× slower on a layer-sized array.) A relu result is
# +0, -0, positive or NaN, so ``result <= 0`` is ``result == 0`` there, and multiplying
# grad's *bits* (viewed as integers of its size) by ``result != 0`` keeps them or gives
# the bits of +0 — PyTorch's answer, at the speed of one multiply. Other devices: where.
_INT_OF_SIZE = {n: B.HOST_ARRAY((0,), f"int{8 * n}").dtype for n in (2, 4, 8)}
_not_equal = B.host_ufunc("not_equal")
_multiply = B.host_ufunc("multiply")
_where = B.cpu.xp.where
_xp = B.xp_of


def relu_grad_new(grad, result):
    """``relu_grad(grad, result)``, the row's kernel (ops/fast.py): a new array. For NumPy's
    builtin float32/float64 dtypes, asked by identity (Note [dtypes by identity], ops/
    lean.py), the same multiply of grad's bits by ``result != 0`` without the lookups."""
    if type(grad) is _HOST and type(result) is _HOST:
        dt = grad.dtype
        how = _IP32 if dt is _F32 else _IP64 if dt is _F64 else None
        if how is not None and result.dtype is dt:
            if grad.size <= 256 and grad.strides == result.strides:
                # (a few elements: ``where`` with the cached +0 is PyTorch's own formula,
                # the same bits, and cheaper than the cast the multiply makes; one
                # layout for both, so the result's is the multiply's)
                r = _where(_not_equal(result, how[1]), grad, how[1])
                if type(r) is _HOST:
                    return r
            r = _multiply(grad.view(how[0]), _not_equal(result, how[1]))
            if type(r) is _HOST:
                return r.view(dt)
    return relu_grad(grad, result)


def relu_grad(grad, result, out=None):
    """``threshold_backward(grad, result, 0)`` for a relu ``result`` (Note [relu's gradient,
    bit for bit]); ``out=grad`` writes into grad (a host array nobody else holds)."""
    if type(grad) is _HOST and type(result) is _HOST and grad.dtype.kind == "f":
        it = _INT_OF_SIZE[grad.dtype.itemsize]
        bits = grad.view(it)
        # (the cached 0-d zero of Note [relu on host arrays]: cheaper than converting 0)
        nonzero = _not_equal(result, _ZERO.get(result.dtype, 0))
        if out is None:
            r = _multiply(bits, nonzero)
            return r.view(grad.dtype) if type(r) is _HOST else _xp(grad).asarray(r).view(
                grad.dtype)
        _multiply(bits, nonzero, out=out.view(it))
        return out
    xp = _xp(grad)
    r = xp.where(result <= 0, xp.zeros((), dtype=grad.dtype), grad)
    if out is not None:
        out[...] = r
        return out
    return r


def _own_writeable(a):
    if a.base is not None:
        return False
    f = a.flags
    return f.writeable and f.c_contiguous


class ReluNode(FnNode):
    """ReluBackward0's class (the table makes ``ReluBackward0`` a subclass of it)."""

    __slots__ = ()
    _own_lean_apply = True   # (and the row's chain step: apply_lean.install)

    def _lean_apply(self, grads):
        """The plain backward loop's first try (Note [lean apply], autograd/apply_lean.py):
        the masked gradient, or None (then the general ``apply_arrays`` runs)."""
        g = grads[0]
        saved = self._sdict
        if type(g) is _HOST and saved is not None and _enabled[0] and _lean_on[0]:
            if type(saved) is _InNode:   # Note [saved values in the node] (graph.py)
                r = self._sv if self._svc.version == 0 else None   # (saved at version 0)
            else:
                v = saved.get("result")
                r = v.data if (type(v) is SavedTensor and v.tensor is None and v.hooks is None
                               and v.version_counter.version == v.saved_version) else None
            if r is not None:
                dt = g.dtype
                if type(r) is _HOST and (r.dtype is dt or r.dtype == dt) and (
                        g.shape == r.shape):
                    grads[0] = None
                    if sys.getrefcount(g) == 2 and _own_writeable(g):
                        how = _IP32 if dt is _F32 else _IP64 if dt is _F64 else None
                        if how is None:
                            return [relu_grad(g, r, out=g)]   # fast.py's kernel, into g
                        # the same kernel, in line: grad's bits times result != 0
                        bits = g.view(how[0])
                        _multiply(bits, _not_equal(r, how[1]), bits)
                        return [g]
                    grads[0] = g
                    return [self.OP.fast1[0](g, r)]   # the row's kernel, a new array
        return None


_lean_on = _apply_lean._enabled   # the lean steps' switch (the profiler turns it off)


# -- Note [lean linear] ------------------------------------------------------------------
# ``linear(x, W, b)`` with a 2-D x and a bias is ``addmm(b, x, W.t())`` (nnops.py): t()
# makes a view of W with a TBackward0 node (make_view, record), then addmm checks its
# operands and dispatch runs ADDMM's forward and records AddmmBackward0 (record, _save).
# For host float32/float64 tensors of one dtype and device, shapes that fit (x (n, k),
# W (m, k), b (m,)), W and b plain tensors (no view, no base, not inference tensors),
# grad mode on, no inference mode, anomaly mode, saved-tensor hooks or view observer,
# ``lean_linear`` does the same in one body: the same view Tensor and ViewInfo, the same
# two nodes with the same edges, sequence numbers (T's first), saved values (``_save``'s
# loop, blame marks included) and ``_shapes`` (the bias is broadcast), and the same
# forward (ADDMM's own); the blame mark is taken from the caller's frame, where _save
# finds it. Every other call returns None and takes the teaching path, which
# also raises every error.

# (an inference tensor's counter is an InferenceVersion, made with it; a counter nobody
# asked for yet, None, is a normal tensor's: Note [a version counter made when first
# asked], tensor.py)
_INFERENCE = InferenceVersion


def lean_linear(input, weight, bias, T, ADDMM, t_fn):
    """``addmm(bias, input, weight.t())`` (Note [lean linear]), or None."""
    if ((type(input) is not _Tensor and type(input) not in _LEAN)
            or (type(weight) is not _Tensor and type(weight) not in _LEAN)
            or (type(bias) is not _Tensor and type(bias) not in _LEAN) or not _enabled[0]):
        return None   # (a Parameter: Note [the classes the lean paths take], tensor.py)
    xd = input._data
    wd = weight._data
    bd = bias._data
    dev = input._device
    st = _st
    if (type(xd) is not _HOST or type(wd) is not _HOST or type(bd) is not _HOST
            or xd.ndim != 2 or wd.ndim != 2 or bd.ndim != 1
            or xd.shape[1] != wd.shape[1] or bd.shape[0] != wd.shape[0]
            or xd.dtype != wd.dtype or bd.dtype != wd.dtype or wd.dtype.char not in "fd"
            or weight._device is not dev or bias._device is not dev
            or weight._view_info is not None or weight._base is not None
            or bias._view_info is not None
            or type(weight._vc) is _INFERENCE or type(input._vc) is _INFERENCE
            or type(bias._vc) is _INFERENCE   # (is_inference(), without making a counter)
            or (_ODD and not st.plain)   # Note [every thread plain]
            or st.view_observer is not None):
        return None
    # weight.t(): make_view's steps for a plain tensor in grad mode
    wt = alias_tensor(weight, wd.T)
    vc = wt._vc   # (alias_tensor gave it weight's)
    wt._base = weight
    wt._view_info = ViewInfo(weight, ViewChain(None, (t_fn, ())), vc.version, DEFAULT,
                             (T.node_name, 0), None)
    ew = _edge_of(weight)
    if ew is not None:
        tn = _new(T.node_cls)
        tn.next_functions = (ew,)
        tn._seq_nr = _next_seq()
        tn._sdict = _NOTHING_SAVED
        tn._releasable = False
        wt._grad_fn = tn
        ew = (tn, 0)
    # addmm(bias, input, wt): dispatch's steps
    out = new_result(ADDMM.forward(bd, xd, wt._data, 1, 1), dev)
    eb = _edge_of(bias)
    ei = _edge_of(input)
    if eb is None and ei is None and ew is None:
        return out
    node = _new(ADDMM.node_cls)
    node.next_functions = (_NO_EDGE if eb is None else eb, _NO_EDGE if ei is None else ei,
                           _NO_EDGE if ew is None else ew)
    node._seq_nr = _next_seq()
    needs = (eb is not None, ei is not None, ew is not None)
    plan = ADDMM._plans.get(needs) or ADDMM.save_plan(needs)
    inputs = (bias, input, wt)
    if plan:   # _save's loop for ADDMM's plans (tensors, attributes, sizes, strides)
        saved = {}
        where = None
        releasable = False
        for name, kind, idx in plan:
            if kind == 0:
                s = _saved_input(inputs[idx])   # (a plain thread: no saved-tensor hooks)
                if where is None and st.blame:   # the user's line, as _save finds it
                    where = (ADDMM.node_name, _blame.user_frame(3))
                s.where = where
                saved[name] = s
                releasable = True
            elif kind == 2:
                saved[name] = 1   # beta, alpha
            elif kind == 3:
                saved[name] = inputs[idx]._data.shape   # mat1's, mat2's sizes
            else:   # (and their strides: torch_strides's, in line for a 2-D non-empty one)
                a = inputs[idx]._data
                if a.size:
                    s0, s1 = a.strides
                    size = a.itemsize
                    saved[name] = (s0 // size, s1 // size)
                else:
                    saved[name] = _torch_strides(a)
        node._sdict = saved
        node._releasable = releasable
    else:
        node._sdict = _NOTHING_SAVED
        node._releasable = False
    node._shapes = (bd.shape, xd.shape, wt._data.shape)   # the bias is broadcast
    out._grad_fn = node
    return out


# -- Note [AddmmBackward0 on arrays] -------------------------------------------------------
# FnNode.apply_arrays (nodes.py) is the general plain-backward step of a row: per input,
# its kernel's saved arguments (``_kernel_args``), the kernel, a sum back to a broadcast
# input's shape, the check that an array came back. For AddmmBackward0 (every linear
# layer) the steps are known: per input that needs a gradient, the row's own kernel
# (ops/fast.py) with its saved values by name, then the sum back to a broadcast input's
# shape (the bias: ``_sum_to_array``). ``AddmmNode._lean_apply`` runs them directly once
# it has found every saved matrix it needs unmodified, with no hooks and still attached
# (``_kernel_args``' questions); with alpha and beta 1 (a linear layer) the kernels are
# written out in the step (the same products, no lambda frames); anything else (a cast
# input, a stale saved tensor, which must raise the general step's error) answers None,
# and the loop runs FnNode's step itself (the same frames in a traceback as always). Like every lean step it is off
# while ``set_lean_apply(False)`` is (the profiler times every node's apply_arrays).

class AddmmNode(FnNode):
    """AddmmBackward0's class (the table makes ``AddmmBackward0`` a subclass of it)."""

    __slots__ = ()

    def _lean_apply(self, grads):
        """The plain backward loop's first try (Note [lean apply], autograd/apply_lean.py):
        the three gradients, or None (then the general ``apply_arrays`` runs)."""
        g = grads[0]
        saved = self._sdict   # (this row's nodes are made by lean_linear or record)
        fast = self.OP.fast
        if (type(g) is _HOST and saved is not None and self._dtypes is None and _enabled[0]
                and _lean_on[0] and fast is not None):
            e0, e1, e2 = self.next_functions
            m1 = m2 = None
            if e1[0] is not None:
                m2 = saved_array(saved["mat2"])
            if e2[0] is not None:
                m1 = saved_array(saved["mat1"])
            if (e1[0] is None or type(m2) is _HOST) and (e2[0] is None or type(m1) is _HOST):
                shapes = self._shapes
                if saved["alpha"] == 1 and saved["beta"] == 1:
                    # a linear layer's node: the row's kernels (ops/fast.py) written out,
                    # the same products, each in its matrix's layout (Note [a matrix
                    # gradient in its matrix's layout], linalg.py); mat1 and mat2 are never
                    # broadcast, the bias may be. The weight's product first, the input's
                    # last, as by hand: the input's gradient is what the next node (a
                    # relu's mask) reads, still in cache
                    gw = None
                    if m1 is not None:
                        st = saved["mat2_strides"]
                        gw = ((g.T @ m1).T if st[0] == 1 and st[1] == saved["mat2_shape"][0]
                              else m1.T @ g)
                    r = None
                    if e0[0] is not None:
                        r = g
                        if shapes is not None and g.shape != shapes[0]:
                            r = _sum_to_array(g, shapes[0])
                            if type(r) is not _HOST:
                                r = B.xp_of(g).asarray(r)   # (a 0-d bias: a NumPy scalar)
                    gx = None
                    if m2 is not None:
                        st = saved["mat1_strides"]
                        gx = ((m2 @ g.T).T if st[0] == 1 and st[1] == saved["mat1_shape"][0]
                              else g @ m2.T)
                    return [r, gx, gw]
                out = [None, None, None]
                if e0[0] is not None:
                    out[0] = fast[0][0](g, saved["beta"])
                if m2 is not None:
                    out[1] = fast[1][0](g, m2, saved["alpha"], saved["mat1_shape"],
                                        saved["mat1_strides"])
                if m1 is not None:
                    out[2] = fast[2][0](g, m1, saved["alpha"], saved["mat2_shape"],
                                        saved["mat2_strides"])
                for i in (0, 1, 2):
                    r = out[i]
                    if r is not None:
                        if shapes is not None and r.shape != shapes[i]:
                            r = _sum_to_array(r, shapes[i])
                        out[i] = r if type(r) is _HOST else B.xp_of(g).asarray(r)
                return out
        return None
