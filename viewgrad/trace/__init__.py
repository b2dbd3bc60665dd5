"""The tracer: watch what in-place ops do to the autograd graph (DESIGN §8).

``vg.trace()`` makes a Tracer (this package is callable: ``viewgrad.trace`` is both the
module and the function, so ``import viewgrad.trace as T`` and ``vg.trace()`` both work)::

    with vg.trace() as tr:
        x.mul_(2)
    ev = tr.events[0]             # InplaceEvent: .op, .tensor, .before, .after, .source
    print(ev.summary()); print(explain(ev)); print(diff(ev.before, ev.after).summary())

  registry.py  stable ids, live views              snapshot.py  GraphSnapshot (plain data)
  labels.py    names from the user's code          display.py   pictures, filled by render/
  tracer.py    Tracer, InplaceEvent, snapshot()    diff.py      diff(before, after)
  explain.py   functionalized rewrite, summaries   jsonio.py    JSON export / import
  callsite.py  the user's line an op came from     sanitize.py  untrusted text made safe
  backward.py  backward passes, one step per node executed
"""
import sys as _sys
import types as _types

from .snapshot import (GraphSnapshot, TensorInfo, NodeInfo, SavedInfo, EdgeInfo, Geometry)
from .tracer import (Tracer, InplaceEvent, Source, snapshot, storage_snapshot, record_backward,
                     trace as _trace)
from .diff import diff, Diff, Moved
from .explain import explain, summarize
from .jsonio import load, loads, Trace, TraceFormatError
from .backward import BackwardTrace, BackwardStep, GradInfo, Moment

trace = _trace

__all__ = ["trace", "record_backward", "storage_snapshot", "Moment", "Tracer", "InplaceEvent",
           "Source", "snapshot", "diff", "Diff", "Moved",
           "explain", "summarize", "load", "loads", "Trace", "TraceFormatError",
           "GraphSnapshot", "TensorInfo", "NodeInfo", "SavedInfo", "EdgeInfo", "Geometry",
           "BackwardTrace", "BackwardStep", "GradInfo"]


class _CallableModule(_types.ModuleType):
    """``viewgrad.trace(...)`` calls ``trace(...)``: the package doubles as the function.
    Given a tensor, it is ``torch.trace``: the sum of a matrix's diagonal
    (``Tensor.trace``), so a PyTorch user's ``vg.trace(A)`` means what it means there (a
    tracer's namespace is never a tensor)."""

    def __call__(self, namespace=None, max_nodes=None, record_backward=True, max_events=None):
        if hasattr(namespace, "_grad_fn"):   # (a Tensor: trace observes the core, never
            return namespace.trace()         # imports it)
        if max_nodes is None:
            return _trace(namespace, record_backward=record_backward, max_events=max_events)
        return _trace(namespace, max_nodes, record_backward, max_events)


_sys.modules[__name__].__class__ = _CallableModule
