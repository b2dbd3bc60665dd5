"""``nn.functional.ctc_loss``: the Connectionist Temporal Classification loss (Graves et
al., 2006), as PyTorch 2.13 computes it on the CPU, with its node ``CtcLossBackward0``.

CTC scores every way of reading a label sequence ``l`` (length L) out of T frames of
per-class log-probabilities: each frame emits a class or the ``blank``, repeats are merged
and blanks dropped. Its forward recursion runs over the extended sequence ``l'`` = blank,
l1, blank, l2, ..., blank (2L + 1 positions): ``alpha[t, s]`` is the log-probability of
every prefix of frames 0..t that ends in position s. A path may stay on s, step from s-1,
or jump from s-2 — the jump only between two different labels (a blank between two equal
labels is required, or they would merge). The loss of a batch element is ``-log`` of the
paths ending on the last label or the final blank at its last frame; inf when no path fits
(too few frames for the labels and their needed blanks).

The backward runs the same recursion backwards in time (``beta``) and collects, per frame
and class, the log-probability of all the paths through it (``alpha + beta`` summed over
the positions of ``l'`` holding that class). As in PyTorch's kernel the gradient it returns
is ``(exp(log_probs) - exp(collected + loss - log_probs)) * grad``: the derivative with
respect to the *logits* of a ``log_softmax`` that produced ``log_probs``, not the partial
derivative with respect to ``log_probs`` itself (that one lacks the ``exp(log_probs)``
term). Gradcheck therefore holds through ``log_softmax``, and the numbers are PyTorch's.
PyTorch has no second derivative of this loss: the backward under ``create_graph`` records
a ``NotImplemented`` node that refuses, as there.

Both recursions are a Python loop over time with array operations over the batch and the
positions of ``l'``; their log-sum-exp is written term by term as PyTorch's kernel writes
it, so the numbers agree to the last bits. The reductions, ``zero_infinity`` and the
unbatched form are differentiable ops around the node, as in PyTorch's ``ctc_loss``
(``MeanBackward0`` over ``DivBackward0`` over ``CtcLossBackward0``...).
"""
from __future__ import annotations

import contextlib
import warnings

from .. import backend as B
from ..autograd.nodes import OpDef
from ..autograd.state import state as _st
from ..ops import factories as Fa
from ..ops.args import torch_type_name
from ..ops.operands import type_name
from ..ops.pointwise import where
from ..ops.signatures import _is_int
from ..ops.table import RefusingNode, defop, record, refusing, _edges
from ..tensor import Tensor

__all__ = ["ctc_loss"]

_NEG_INF = float("-inf")
_CHECKING = " (while checking arguments for ctc_loss_allocate_outputs)"
_SIGNATURES = (
    "Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints "
    "target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity"
    " = False",
    "Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int "
    "blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False")


# -- the kernels, on arrays ------------------------------------------------------------------

def _quiet(xp):
    """log(0), -inf - -inf and the like are expected here (impossible paths): no warnings
    (the backend's own filter is per module, and a test runner may reset it)."""
    errstate = getattr(xp, "errstate", None)
    return errstate(all="ignore") if errstate is not None else contextlib.nullcontext()


def _extended(xp, targets, target_lengths, blank):
    """``l'`` of every batch element, (N, 2*Lmax + 1): blank, l1, blank, l2, ..., blank,
    with blank past each element's own 2L + 1 positions (so no gather reads a padding
    value); and the mask of those valid positions."""
    n = len(target_lengths)
    lmax = max(target_lengths, default=0)
    tl = xp.asarray(target_lengths, dtype=xp.int64)
    j = xp.arange(lmax)
    valid = j[None, :] < tl[:, None]
    if targets.ndim == 1:   # concatenated: element b's labels start after those before it
        start = xp.cumsum(tl) - tl
        labels = targets[xp.where(valid, start[:, None] + j[None, :], 0)] if lmax else \
            xp.zeros((n, 0), dtype=xp.int64)
    else:                   # padded (N, S): what lies past an element's length is ignored
        labels = targets[:, :lmax]
    ext = xp.full((n, 2 * lmax + 1), blank, dtype=xp.int64)
    ext[:, 1::2] = xp.where(valid, labels, blank)
    s = xp.arange(2 * lmax + 1)
    return ext, s[None, :] < (2 * tl + 1)[:, None]


def _can_skip(xp, ext):
    """Whether a path may jump from s-2 to s: two different entries of ``l'`` (never for
    a blank, whose s-2 is a blank too; never between two equal labels)."""
    skip = xp.zeros(ext.shape, dtype=bool)
    skip[:, 2:] = ext[:, 2:] != ext[:, :-2]
    return skip


def _emissions(xp, lp, ext):
    """``lp[t, b, l'[b, s]]`` as (N, T, 2L+1)."""
    n, t = lp.shape[1], lp.shape[0]
    return lp[xp.arange(t)[None, :, None], xp.arange(n)[:, None, None], ext[:, None, :]]


def _shifted(xp, a, k):
    """``a`` (N, S) moved k positions along S (k > 0: to higher s), -inf where nothing
    moved in."""
    out = xp.full(a.shape, _NEG_INF, dtype=a.dtype)
    m = a.shape[1] - abs(k)
    if m > 0:
        if k > 0:
            out[:, k:] = a[:, :m]
        else:
            out[:, :m] = a[:, -k:]
    return out


def _log_add3(xp, a, b, c):
    """log(e^a + e^b + e^c), as PyTorch's kernel computes it: the largest term taken out
    (0 when all are -inf, so that -inf - -inf never happens), the exps summed in order."""
    m = xp.maximum(xp.maximum(a, b), c)
    m = xp.where(m == _NEG_INF, 0, m)
    return xp.log(xp.exp(a - m) + xp.exp(b - m) + xp.exp(c - m)) + m


def _ctc_fwd(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    """(per-element loss (N,), log_alpha (N, T, 2*Lmax + 1)) of (T, N, C) log_probs."""
    xp = B.xp_of(log_probs)
    with _quiet(xp):
        return _alphas(xp, log_probs, targets, input_lengths, target_lengths, blank)


def _alphas(xp, log_probs, targets, input_lengths, target_lengths, blank):
    n = log_probs.shape[1]
    ext, valid = _extended(xp, targets, target_lengths, blank)
    skip = _can_skip(xp, ext)
    emit = _emissions(xp, log_probs, ext)
    alpha = xp.full(emit.shape, _NEG_INF, dtype=log_probs.dtype)
    # frame 0 (log_probs is never empty) starts on the first blank or the first label
    first = xp.full(ext.shape, _NEG_INF, dtype=log_probs.dtype)
    first[:, :2] = emit[:, 0, :2]
    alpha[:, 0] = xp.where(valid, first, _NEG_INF)
    for t in range(1, max(input_lengths, default=0)):
        prev = alpha[:, t - 1]
        jump = xp.where(skip, _shifted(xp, prev, 2), _NEG_INF)
        alpha[:, t] = xp.where(valid, _log_add3(xp, prev, _shifted(xp, prev, 1), jump)
                               + emit[:, t], _NEG_INF)
    il = xp.asarray(input_lengths, dtype=xp.int64)
    tl = xp.asarray(target_lengths, dtype=xp.int64)
    rows = xp.arange(n)
    last = alpha[rows, xp.maximum(il - 1, 0)]                  # (N, 2L+1) at each last frame
    end_blank = last[rows, 2 * tl]
    end_label = xp.where(tl > 0, last[rows, xp.maximum(2 * tl - 1, 0)], _NEG_INF)
    m = xp.maximum(end_blank, end_label)
    m = xp.where(m == _NEG_INF, 0, m)
    both = xp.log(xp.exp(end_blank - m) + xp.exp(end_label - m)) + m
    ll = xp.where(tl == 0, end_blank, both)
    # no frames at all: only the empty target is read, with probability 1
    ll = xp.where(il == 0, xp.where(tl == 0, 0.0, _NEG_INF), ll).astype(log_probs.dtype)
    return -ll, alpha


def _ctc_bwd(grad, log_probs, targets, neg_log_likelihood, log_alpha, input_lengths,
             target_lengths, blank, zero_infinity):
    """PyTorch's ``_ctc_loss_backward`` on arrays: (T, N, C), see the module's docstring."""
    xp = B.xp_of(log_probs)
    with _quiet(xp):
        return _gradient(xp, grad, log_probs, targets, neg_log_likelihood, log_alpha,
                         input_lengths, target_lengths, blank, zero_infinity)


def _gradient(xp, grad, log_probs, targets, neg_log_likelihood, log_alpha, input_lengths,
              target_lengths, blank, zero_infinity):
    t_max, n, c = log_probs.shape
    ext, valid = _extended(xp, targets, target_lengths, blank)
    skip_ahead = xp.zeros(ext.shape, dtype=bool)   # may a path jump from s to s+2
    skip_ahead[:, :-2] = _can_skip(xp, ext)[:, 2:]
    emit = _emissions(xp, log_probs, ext)
    il = xp.asarray(input_lengths, dtype=xp.int64)
    tl = xp.asarray(target_lengths, dtype=xp.int64)
    s = xp.arange(ext.shape[1])[None, :]
    # beta's first row, at each element's last frame: the final blank and the last label
    ends = (s == 2 * tl[:, None]) | ((s == 2 * tl[:, None] - 1) & (tl[:, None] > 0))
    beta = xp.full(emit.shape, _NEG_INF, dtype=log_probs.dtype)
    nothing = xp.full(ext.shape, _NEG_INF, dtype=log_probs.dtype)
    for t in range(max(input_lengths, default=0) - 1, -1, -1):
        nxt = beta[:, t + 1] if t + 1 < t_max else nothing
        jump = xp.where(skip_ahead, _shifted(xp, nxt, -2), _NEG_INF)
        step = xp.where(valid, _log_add3(xp, nxt, _shifted(xp, nxt, -1), jump)
                        + emit[:, t], _NEG_INF)
        start = xp.where(ends, emit[:, t], _NEG_INF)
        beta[:, t] = xp.where((il == t + 1)[:, None], start,
                              xp.where((il > t + 1)[:, None], step, _NEG_INF))
    ab = log_alpha + beta
    rows = xp.arange(n)
    # At the last frame PyTorch's kernel *assigns* the final blank's and then the last
    # label's term: a last label equal to the blank overwrites, it does not add.
    clash = (il > 0) & (tl > 0) & (ext[rows, xp.maximum(2 * tl - 1, 0)] == blank)
    if bool(clash.any()):
        b = rows[clash]
        ab[b, il[clash] - 1, 2 * tl[clash]] = _NEG_INF
    # collected[b, t, l'[s]] log-added over s (descending, as the kernel does)
    acc = xp.full((n, t_max, c), _NEG_INF, dtype=log_probs.dtype)
    for k in range(ext.shape[1] - 1, -1, -1):
        cls = ext[:, k]
        cur = acc[rows, :, cls]
        x = ab[:, :, k]
        m = xp.maximum(cur, x)
        acc[rows, :, cls] = xp.where(cur == _NEG_INF, x,
                                     xp.log(xp.exp(cur - m) + xp.exp(x - m)) + m)
    lp = xp.moveaxis(log_probs, 1, 0)                            # (N, T, C)
    nll = neg_log_likelihood[:, None, None]
    g = (xp.exp(lp) - xp.exp(acc + nll - lp)) * grad[:, None, None]
    keep = xp.arange(t_max)[None, :] < il[:, None]               # frames past a length: 0
    if zero_infinity:
        keep = keep & (neg_log_likelihood != float("inf"))[:, None]
    g = xp.where(keep[:, :, None], g, 0).astype(log_probs.dtype, copy=False)
    return xp.ascontiguousarray(xp.moveaxis(g, 0, 1))


# -- the nodes -------------------------------------------------------------------------------

def _no_second_derivative(*_):
    raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


_CTC_BACKWARD = OpDef("_ctc_loss_backward", "NotImplemented", _ctc_bwd,
                      ("grad", "log_probs", "targets", "neg_log_likelihood", "log_alpha"),
                      ("input_lengths", "target_lengths", "blank", "zero_infinity"),
                      {"grad": _no_second_derivative, "log_probs": _no_second_derivative,
                       "neg_log_likelihood": _no_second_derivative},
                      False, False, False, None, None, RefusingNode)


def _ctc_grad(grads, log_probs, targets, input_lengths, target_lengths, result0, result1,
              blank, zero_infinity):
    grad = grads[0]
    if grad is None:
        return None
    return refusing(_CTC_BACKWARD, (grad, log_probs, targets, result0, result1),
                    (input_lengths, target_lengths, blank, zero_infinity))


CTC_LOSS = defop("_ctc_loss", "CtcLossBackward0", _ctc_fwd, inputs=("log_probs", "targets"),
                 attrs=("input_lengths", "target_lengths", "blank", "zero_infinity"),
                 multi_output=("result0", "result1"), log_probs=_ctc_grad)


def _ctc_node(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    """``_ctc_loss``: (loss per element, log_alpha), both outputs of one node."""
    attrs = (input_lengths, target_lengths, blank, zero_infinity)
    dev = log_probs._device
    nll, alpha = _ctc_fwd(log_probs._data, targets._data, *attrs)
    outs = (Tensor._make(nll, dev), Tensor._make(alpha, dev))
    if _st.grad_enabled and not _st.inference:
        edges = _edges((log_probs, targets))
        if edges is not None:
            for i, o in enumerate(outs):
                o._output_nr = i   # (before record, which saves both outputs)
            node = record(CTC_LOSS, (log_probs, targets), outs, attrs, edges)
            node._n_outputs = 2
            for o in outs:
                o._grad_fn = node
    return outs[0]


# -- the argument parser's words -------------------------------------------------------------

def _shown(v):
    """An argument as PyTorch's parser names it in "didn't match" (``list of [int, int]``)."""
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, (list, tuple)):
        inner = ", ".join("Tensor" if isinstance(e, Tensor) else type_name(e) for e in v)
        return f"list of [{inner}]" if isinstance(v, list) else f"tuple of ({inner})"
    return type_name(v)


def _invalid_combination(args):
    got = ", ".join("Tensor" if isinstance(a, Tensor) else type_name(a) for a in args)
    lines = [f"ctc_loss() received an invalid combination of arguments - got ({got}), but "
             "expected one of:"]
    for i, sig in enumerate(_SIGNATURES):
        # (PyTorch's parser marks every argument that is not a Tensor it wanted as a
        # mismatch, matching or not)
        tensor_at = (0, 1) if i == 0 else (0, 1, 2, 3)
        marks = [_shown(a) if isinstance(a, Tensor) and k in tensor_at else f"!{_shown(a)}!"
                 for k, a in enumerate(args)]
        lines.append(f" * ({sig})")
        lines.append("      didn't match because some of the arguments have invalid types: "
                     f"({', '.join(marks)})")
    return TypeError("\n".join(lines) + "\n")


def _int_element(v, strict):
    """Whether ``v`` is taken as an element of a ``tuple of ints``. The parser looks at the
    first element only (``strict``); the others are unpacked later, more leniently."""
    if isinstance(v, Tensor):
        kinds = "iu" if strict else "biu"
        return v.numel() == 1 and v._data.dtype.kind in kinds
    if strict:
        return _is_int(v)
    return isinstance(v, int) or (B.is_numpy_scalar(v) and v.dtype.kind in "iu")


def _an_int_list(v):
    return isinstance(v, (list, tuple)) and (not v or _int_element(v[0], True))


def _unpacked(v, name):
    out = []
    for i, e in enumerate(v):
        if not _int_element(e, False):
            raise TypeError(f"ctc_loss(): argument '{name}' failed to unpack the object at "
                            f"pos {i + 1} with error \"type must be tuple of ints,but got "
                            f"{_shown(e)}\"")
        out.append(int(e.item()) if isinstance(e, Tensor) else int(e))
    return tuple(out)


def _lengths(log_probs, targets, input_lengths, target_lengths, blank, reduction_enum,
             zero_infinity):
    """The two length arguments as tuples of ints, after PyTorch's parser's checks."""
    args = (log_probs, targets, input_lengths, target_lengths, blank, reduction_enum,
            zero_infinity)
    common = (isinstance(log_probs, Tensor) and isinstance(targets, Tensor) and _is_int(blank)
              and type(zero_infinity) is bool)
    if common and _an_int_list(input_lengths) and _an_int_list(target_lengths):
        return (_unpacked(input_lengths, "input_lengths"),
                _unpacked(target_lengths, "target_lengths"))
    if not (common and isinstance(input_lengths, Tensor) and isinstance(target_lengths, Tensor)):
        raise _invalid_combination(args)
    for t, name in ((input_lengths, "input_lengths"), (target_lengths, "target_lengths")):
        if t._data.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
    return (tuple(int(v) for v in input_lengths.reshape(-1).tolist()),
            tuple(int(v) for v in target_lengths.reshape(-1).tolist()))


def _reduction_enum(reduction):
    """``_Reduction.get_enum``: 0 none, 1 mean, 2 sum."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use "
                      "reduction='mean' instead.", stacklevel=3)
        return 1
    enum = {"none": 0, "mean": 1, "sum": 2}.get(reduction) if isinstance(reduction, str) \
        else None
    if enum is None:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return enum


def _check(log_probs, targets, il, tl, blank):
    """``ctc_loss_allocate_outputs``'s checks, in its order, and one of viewgrad's own."""
    if log_probs.dim() != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.dim()}-"
                           f"dimensional tensor for argument #1 'log_probs'{_CHECKING}")
    if not 1 <= targets.dim() <= 2:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.dim()}-dimensional "
                           f"tensor for argument #2 'targets'{_CHECKING}")
    t_max, n, c = log_probs.shape
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    if len(il) != n:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tl) != n:
        raise RuntimeError("target_lengths must be of size batch_size")
    for v in tl:
        if v < 0:
            raise RuntimeError("Expected target_lengths to have value at least 0, but got "
                               f"value {v}{_CHECKING}")
    want = sum(tl) if targets.dim() == 1 else n
    if targets.shape[0] != want:
        raise RuntimeError(f"Expected tensor to have size {want} at dimension 0, but got "
                           f"size {targets.shape[0]} for argument #2 'targets'{_CHECKING}")
    if targets.dim() == 2 and targets.shape[1] < max(tl, default=0):
        raise RuntimeError(f"Expected tensor to have size at least {max(tl)} at dimension 1, "
                           f"but got size {targets.shape[1]} for argument #2 "
                           f"'targets'{_CHECKING}")
    for v in il:
        if v < 0:
            raise RuntimeError("Expected input_lengths to have value at least 0, but got "
                               f"value {v}{_CHECKING}")
        if v > t_max:
            raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but "
                               f"got value {v}{_CHECKING}")
    # viewgrad's own: a label outside [0, C) makes PyTorch's CPU kernel read memory out of
    # bounds (an arbitrary number, or a crash); it is refused here instead
    xp = B.xp_of(targets._data)
    ext, valid = _extended(xp, targets._data, tl, blank)
    labels = ext[:, 1::2][valid[:, 1::2]]
    if labels.size and bool(((labels < 0) | (labels >= c)).any()):
        bad = int(labels[(labels < 0) | (labels >= c)][0])
        raise RuntimeError(f"Expected targets to have values in [0, {c}), but got value "
                           f"{bad}{_CHECKING}")


# -- the function ----------------------------------------------------------------------------

def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """The CTC loss of ``log_probs`` (T, N, C) — or (T, C) unbatched, normally a
    ``log_softmax`` over C — against ``targets``, padded (N, S) or concatenated
    (sum(target_lengths),), as ``torch.nn.functional.ctc_loss``. ``input_lengths`` and
    ``target_lengths``: both tensors or both lists/tuples of ints. ``reduction='mean'``
    divides each loss by its target length (at least 1), then averages over the batch;
    ``zero_infinity`` replaces infinite losses (no alignment possible) and their gradients
    by zeros. One ``CtcLossBackward0`` node; its gradient is PyTorch's, which assumes
    ``log_probs`` came out of a ``log_softmax`` (see the module's docstring)."""
    enum = _reduction_enum(reduction)
    il, tl = _lengths(log_probs, targets, input_lengths, target_lengths, blank, enum,
                      zero_infinity)
    blank = int(blank)
    if log_probs._data.dtype.name not in ("float32", "float64"):
        raise NotImplementedError(f"\"ctc_loss_cpu\" not implemented for "
                                  f"'{torch_type_name(log_probs.dtype)}'")
    if log_probs.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    # (PyTorch's kernel reads int64 labels: other dtypes are converted, a copy; int64
    # targets are the tensor itself, saved and version-checked as given)
    targets = targets.to(lp.device, B.int64)
    _check(lp, targets, il, tl, blank)
    res = _ctc_node(lp, targets, il, tl, blank, zero_infinity)
    if zero_infinity:
        res = where(res == float("inf"), Fa.zeros((), dtype=res.dtype, device=res.device), res)
    if enum == 1:
        lengths = Fa.tensor(list(tl), dtype=res.dtype, device=res.device).clamp_min(1)
        return (res / lengths).mean()
    if enum == 2:
        return res.sum()
    return res if batched else res.squeeze(0)
