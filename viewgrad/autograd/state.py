"""Every autograd switch in one place: grad mode, inference mode, anomaly mode, blame, view
replay, and the tracer's observer slots.

``state`` is one object whose fields are **per thread**, as PyTorch's grad mode is
(``c10::AutogradState`` is thread-local): ``no_grad`` in one thread, or a ``backward()``
running in it (the engine turns recording off while it runs), never switches recording off
in another thread. A new thread starts with the defaults below, whatever the thread that
started it had: in PyTorch too a fresh thread has grad mode on and inference mode off.

The fields (read as ``state.grad_enabled`` etc.; set them through the public functions
named beside each, which also restore them on exit):

  grad_enabled      ops record a graph (``no_grad``, ``enable_grad``, ``set_grad_enabled``;
                    the engine sets it to ``create_graph`` while a backward runs)
  inference         inference mode: tensors made now are inference tensors
                    (``inference_mode``; implies ``grad_enabled`` False)
  anomaly           nodes remember their forward stack (``detect_anomaly``,
                    ``set_detect_anomaly``)
  anomaly_check_nan with anomaly on, a backward returning NaN raises
  blame             version bumps and saved tensors remember the user's line
                    (``autograd.set_blame``; on by default, off for speed)
  view_replay       CopySlices / regenerated views replay view_fns instead of as_strided
                    (``autograd.set_view_replay``; PyTorch's ``_set_view_replay_enabled``)
  warn_nonleaf_grad reading ``.grad`` of a non-leaf warns (as PyTorch does)
  inplace_observer  the tracer's slots, ``None`` unless a tracer is active *in this
  backward_observer thread*: ops and the engine call them (see ``autograd.observe``), so
  view_observer     a tracer records only the thread it runs in
  saved_tensors_hooks  the (pack, unpack) pairs of ``autograd.graph.saved_tensors_hooks``
                    blocks, innermost last (a tuple: empty means "none", one falsy read)
  saved_tensors_hooks_disabled  the message of ``disable_saved_tensors_hooks`` (or None)
  graph_task        the backward running in this thread (which nodes it will execute), for
                    ``register_multi_grad_hook``; None outside backward
  plain             derived, never set by hand: 0 unless grad mode is on and inference
                    mode, anomaly mode and saved-tensor hooks are off; then 2 with blame
                    on, 1 with it off (Note [one plain flag])

Why a ``threading.local`` subclass with class attributes: each thread sees the class
defaults until it sets a field, so a new thread needs no set-up, and the hot path pays one
attribute read (about 0.05 µs) per op to ask whether to record — or none: while every
thread is plain, the lean paths read the set ``odd_threads`` instead (Note [every
thread plain], below).
"""
from __future__ import annotations

import os
import threading
import weakref

__all__ = ["state", "AutogradState", "odd_threads"]


_set = threading.local.__setattr__
_del = threading.local.__delattr__


class AutogradState(threading.local):
    grad_enabled = True
    inference = False
    anomaly = False
    anomaly_check_nan = True
    blame = True
    view_replay = False
    warn_nonleaf_grad = True
    inplace_observer = None
    backward_observer = None
    view_observer = None
    saved_tensors_hooks = ()         # stack of (pack, unpack): autograd/saved_hooks.py
    saved_tensors_hooks_disabled = None   # the error message while disabled
    graph_task = None                # the running backward's GraphTask (saved_hooks.py)
    plain = 2                        # Note [one plain flag]
    _odd = False                     # Note [every thread plain]: this thread in the set,
    _ref = None                      # and the weak reference to its token there

    def __setattr__(self, name, value):
        _set(self, name, value)
        if name in _PLAIN_FIELDS:
            _set_plain(self, (1 + bool(self.blame)) if (
                self.grad_enabled and not self.inference and not self.anomaly
                and not self.saved_tensors_hooks) else 0)

    def enter_backward(self, grad_enabled, graph_task):
        """Set grad mode and the running graph task at once, as a backward starts and
        ends (``plain`` follows); returns the previous pair, to give back to this."""
        prev = (self.grad_enabled, self.graph_task)
        _set(self, "grad_enabled", grad_enabled)
        _set(self, "graph_task", graph_task)
        _set_plain(self, (1 + bool(self.blame)) if (
            grad_enabled and not self.inference and not self.anomaly
            and not self.saved_tensors_hooks) else 0)
        return prev

    def __delattr__(self, name):   # (back to the class default)
        _del(self, name)
        if name in _PLAIN_FIELDS:
            self.__setattr__(name, getattr(self, name))


# Note [one plain flag]
# A speed trick: the lean recording paths (ops/lean.py) may run only when grad mode is
# on and inference mode, anomaly mode and saved-tensor hooks are all off. Each read of a
# field of this thread-local object costs ~55 ns, so asking four questions per op costs
# more than the op's bookkeeping. ``plain`` is the answer to all four, recomputed
# whenever one of them is set (a setting is rare: a ``no_grad`` block, a backward), so
# the hot path asks once. Reading the four fields themselves is unchanged. A plain op that
# saves a value also asks whether to mark it with the user's line (blame): ``plain`` is 2
# then, 1 with blame off, so that question is answered by the same read.
_PLAIN_FIELDS = frozenset(("grad_enabled", "inference", "anomaly", "saved_tensors_hooks",
                           "blame"))


# Note [every thread plain]
# A speed trick on top of Note [one plain flag]. Reading ``plain`` from the thread-local
# object still costs ~50 ns per op. ``odd_threads`` is a set of the threads whose
# ``plain`` is not the default 2 (a token of each): empty while *every* thread is plain,
# so the hot path asks ``state.plain if odd_threads else 2``, a global read; a non-empty
# set sends it to its own thread-local answer. The set may be non-empty when the reading
# thread is plain (a slower op, never a different one), and is never empty while the
# reading thread is not: that thread put its token in before it read, and only it takes
# the token out. Adding and discarding one element are each one step under the GIL, and
# the question is the set itself (no flag kept beside it that two threads could write in
# the wrong order), so no lock is taken: a ``no_grad`` block or a backward pays two set
# operations. A thread that ends while not plain (a worker that called
# ``set_grad_enabled(False)`` and returned) frees its thread-local state, and with it its
# token: the weak reference's callback takes it out of the set. A forked child starts the
# set afresh from the one thread it has.
odd_threads = set()              # weak references to the tokens of the threads not plain
_ODD = odd_threads


class _Token:
    """The mark of one thread whose ``plain`` is not 2 (Note [every thread plain])."""
    __slots__ = ("__weakref__",)


def _gone(ref):
    """A token's thread ended (its state freed): it no longer holds the gate shut."""
    odd = _ODD
    if odd is not None:   # (None: the interpreter is shutting down, globals are gone)
        odd.discard(ref)


def _set_plain(st, p):
    """Set this thread's ``plain`` to ``p`` and keep ``odd_threads`` (Note [every thread
    plain])."""
    _set(st, "plain", p)
    odd = p != 2
    if odd is st._odd:
        return   # (the commonest case: no change of side)
    ref = st._ref
    if ref is None:   # this thread's token, made once, held by its state alone
        token = _Token()
        ref = weakref.ref(token, _gone)
        _set(st, "_token", token)
        _set(st, "_ref", ref)
    if odd:   # (in before the thread's next op asks)
        _ODD.add(ref)
    else:
        _ODD.discard(ref)
    _set(st, "_odd", odd)


def _after_fork_in_child():
    """A forked child has only the thread that forked: the other threads' tokens may
    still be in ``odd_threads``. Start it afresh from this thread's own side."""
    _ODD.clear()
    if state._odd:
        _ODD.add(state._ref)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


state = AutogradState()
