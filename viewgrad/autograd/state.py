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
attribute read (about 0.1 µs) per op to ask whether to record.
"""
from __future__ import annotations

import threading

__all__ = ["state", "AutogradState"]


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

    def __setattr__(self, name, value):
        _set(self, name, value)
        if name in _PLAIN_FIELDS:
            _set(self, "plain", (1 + bool(self.blame)) if (
                self.grad_enabled and not self.inference and not self.anomaly
                and not self.saved_tensors_hooks) else 0)

    def enter_backward(self, grad_enabled, graph_task):
        """Set grad mode and the running graph task at once, as a backward starts and
        ends (``plain`` follows); returns the previous pair, to give back to this."""
        prev = (self.grad_enabled, self.graph_task)
        _set(self, "grad_enabled", grad_enabled)
        _set(self, "graph_task", graph_task)
        _set(self, "plain", (1 + bool(self.blame)) if (
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


state = AutogradState()
