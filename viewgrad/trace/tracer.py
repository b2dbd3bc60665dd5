"""The Tracer: one ``InplaceEvent`` (before/after GraphSnapshots) per in-place op.

``with vg.trace() as tr: ...`` (or ``tr = vg.trace(); tr.start(); ...; tr.stop()``).

How it hears about in-place ops: the in-place choke point (``autograd/views.apply_inplace``)
calls ``state.inplace_observer.before(op, tensor, others)`` before computing and
``state.inplace_observer.after(token)`` after rebasing history. While at least one Tracer is
active, ``state.inplace_observer`` is the module's ``_HUB``, which fans out to every active tracer
(the REPL's long-lived tracer and a user's ``with vg.trace()`` can nest), and
``state.view_observer`` feeds the registry of live views. With no tracer both slots are
``None``: tracing off costs one ``is None`` check per op.

The tracer only observes. It never raises into the user's program: if taking a snapshot
fails, it warns once and skips the event.

Which ops are recorded: those the user's code asked for, directly or through an optimizer
or module. In-place ops that autograd itself runs (CopySlices writing a gradient into a
buffer, AccumulateGrad's ``grad += new``, anything during a backward pass) are not events.

Which frame is the user's (an event or autograd's own op), the library code that ran an op,
its source line and its operands as written are read off the call stack by ``callsite.py``;
this module records.
"""
from __future__ import annotations

import os
import sys
import threading
import warnings

from ..autograd.state import state as _st
from .callsite import (Source, _caller, _library, _modules_in, _namespaces, _operand_text,
                       _source_of, _source_operands, _user_frame)
from .display import Displayable, paint
from .registry import IDS, LIVE_VIEWS
from .snapshot import Labeler, build, MAX_NODES, EVENT_MAX_NODES

__all__ = ["Tracer", "InplaceEvent", "trace", "snapshot", "storage_snapshot", "Source"]


class InplaceEvent(Displayable):
    """One in-place op: ``op`` (e.g. "mul_"), the mutated ``tensor``'s label, ``operands``
    (labels, or the value of a constant), the ``before`` and ``after`` snapshots, the
    user's ``source`` line, and whether grad mode was on."""

    __slots__ = ("index", "op", "tensor", "tensor_id", "operands", "before", "after",
                 "source", "grad_enabled", "library", "_diff")
    _display_kind = "event"

    def __init__(self, index, op, tensor, tensor_id, operands, before, after, source,
                 grad_enabled, library=None):
        self.index = index
        self.op = op
        self.tensor = tensor
        self.tensor_id = tensor_id
        self.operands = tuple(operands)
        self.before = before
        self.after = after
        self.source = source
        self.grad_enabled = grad_enabled
        self.library = library      # "parameter init", "optimizer step"...: library code did it
        self._diff = None

    @property
    def diff(self):
        if self._diff is None:
            from .diff import diff
            self._diff = diff(self.before, self.after)
        return self._diff

    def summary(self) -> str:
        from .explain import summarize
        return summarize(self)

    def explain(self) -> str:
        from .explain import explain
        return explain(self)

    def call_text(self) -> str:
        """``x.mul_(y)`` as it would be written."""
        if self.op == "__setitem__":
            from .explain import _first_value
            t = self.after.tensor(self.tensor_id) if self.after.has_tensor(
                self.tensor_id) else None
            value = ", ".join(self.operands) or _first_value(t) or "…"
            return f"{self.tensor} = {value}"
        return f"{self.tensor}.{self.op}({', '.join(self.operands)})"

    def __eq__(self, other):
        if not isinstance(other, InplaceEvent):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__ if k != "_diff")

    __hash__ = None

    def __repr__(self):
        return f"<InplaceEvent #{self.index} {self.call_text()}>"


class _Pending:
    __slots__ = ("tracer", "op", "tensor", "others", "roots", "labeler", "before", "source",
                 "grad_enabled", "operands", "library")


class _Hub:
    """The object in ``state.inplace_observer`` while tracers are active."""

    def __init__(self):
        self.tracers = []
        self.warned = False

    def before(self, op, tensor, others, keywords=None):
        try:
            frame, internal = _caller()
            if internal:
                return None
            pend = []
            tid = threading.get_ident()
            for tr in self.tracers:
                if tr._paused or getattr(tr, "_thread", tid) != tid:   # its own thread only
                    continue
                pend.append(tr._before(op, tensor, others, frame, keywords))
            return pend or None
        except Exception as e:  # noqa: BLE001 - an observer must never break the program
            self._warn(e)
            return None

    def after(self, token):
        for p in token:
            try:
                p.tracer._after(p)
            except Exception as e:  # noqa: BLE001
                self._warn(e)

    def _warn(self, e):
        if not self.warned:
            self.warned = True
            warnings.warn(f"viewgrad tracer: could not record an in-place op ({e!r}); "
                          "tracing goes on, this event is skipped", RuntimeWarning,
                          stacklevel=4)

    # -- the engine's slot (state.backward_observer) ----------------------------------------
    def start(self, root, deps):
        try:
            frame = _user_frame(sys._getframe(1))
            src = _source_of(frame)
            tid = threading.get_ident()
            for tr in self.tracers:
                if tr.record_backward and not tr._paused \
                        and getattr(tr, "_thread", tid) == tid:
                    ns = _namespaces(tr.namespace, frame)
                    tr._recorder.start(root, deps, Labeler(ns), src)
        except Exception as e:  # noqa: BLE001
            self._warn(e)

    def summarize(self, grads, node=None):
        from .backward import grad_infos
        for tr in self.tracers:
            tr._recorder.begin(node)
        return grad_infos(grads)

    def node(self, node, ins, outs, heap, deps, buffers=None):
        for tr in self.tracers:
            if tr._recorder.current is not None:
                try:
                    tr._recorder.node(node, ins, outs, heap, deps, buffers)
                except Exception as e:  # noqa: BLE001
                    tr._recorder.current = None
                    self._warn(e)

    def end(self):
        for tr in self.tracers:
            try:
                tr._recorder.end()
            except Exception as e:  # noqa: BLE001
                self._warn(e)

    def add(self, tr):
        if tr not in self.tracers:
            self.tracers.append(tr)
        # the slots are per thread: only the thread that starts a tracer reports to it
        tr._thread = threading.get_ident()
        _st.inplace_observer = self
        _st.backward_observer = self
        _st.view_observer = LIVE_VIEWS.add

    def remove(self, tr):
        if tr in self.tracers:
            self.tracers.remove(tr)
        me = threading.get_ident()
        if not any(getattr(t, "_thread", None) == me for t in self.tracers):
            if _st.inplace_observer is self:
                _st.inplace_observer = None
            if _st.backward_observer is self:
                _st.backward_observer = None
            if _st.view_observer == LIVE_VIEWS.add:
                _st.view_observer = None


_HUB = _Hub()


def _roots(tensor, others, namespaces):
    """The tensors a snapshot covers: the mutated tensor, its base, every live view of the
    base (registry + views found in the namespace), and the other operands."""
    from ..tensor import Tensor
    roots = [(tensor, "mutated")]
    base = tensor._base if tensor._base is not None else tensor
    if base is not tensor:
        roots.append((base, "base"))
    views = LIVE_VIEWS.views_of(base)
    seen = {id(v) for v in views}
    for ns in namespaces:
        for v in list(ns.values()):
            if isinstance(v, Tensor) and v._base is base and id(v) not in seen:
                seen.add(id(v))
                views.append(v)
    for v in views:
        if v is not tensor:
            roots.append((v, "view"))
    for o in others:
        if isinstance(o, Tensor):
            roots.append((o, "operand"))
    return roots


class EventLog:
    """What a live Tracer and a loaded Trace share: ``.events``, ``.backwards`` and
    ``.order`` (their interleaving), read as a sequence of events and written out."""

    def timeline(self) -> list:
        """Events and backward passes in the order they happened."""
        return _timeline(self)

    dropped = 0                       # events the ring dropped (Tracer.max_events)
    dropped_backwards = 0

    def __len__(self):
        return len(self.events)

    def __iter__(self):
        return iter(self.events)

    def __getitem__(self, i):
        return self.events[i]

    def to_json(self, path=None):
        """Write the trace to ``path`` (or return the JSON text when path is None)."""
        from .jsonio import dumps
        text = dumps(self.events, self.backwards, _relative_order(self), self.dropped)
        if path is None:
            return text
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def to_html(self, path=None, **kw):
        """A self-contained web page stepping through the events (render/html.py)."""
        return paint("trace", "html", self, path, **kw)


class Tracer(EventLog):
    """Records one ``InplaceEvent`` per in-place op while active.

    ``namespace``: a dict (e.g. the REPL's globals) used to label tensors by variable
    name; by default the caller's locals and globals at each op. ``max_nodes``: how many
    graph nodes a snapshot keeps in full (the rest are counted, not stored).
    """

    def __init__(self, namespace=None, max_nodes=EVENT_MAX_NODES, record_backward=True,
                 max_events=None):
        from .backward import Recorder
        self.namespace = namespace
        self.max_nodes = max_nodes
        # a ring: only the last ``max_events`` events (and backward passes) are kept
        self.max_events = max_events if max_events is not None else default_max_events()
        self.dropped = 0
        self.dropped_backwards = 0
        self.record_backward = record_backward
        self.events = []
        self.backwards = []           # BackwardTrace per backward pass (trace/backward.py)
        self.order = []               # ("event", i) / ("backward", j) as they happened
        self._recorder = Recorder(self)
        self._active = False
        self._paused = False

    # -- lifecycle -------------------------------------------------------------------
    def start(self):
        self._active = True
        _HUB.add(self)
        return self

    def stop(self):
        self._active = False
        _HUB.remove(self)
        return self

    @property
    def active(self) -> bool:
        return self._active

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def clear(self):
        self.events.clear()
        self.backwards.clear()
        self.order.clear()
        self.dropped = self.dropped_backwards = 0

    def __repr__(self):
        state = "active" if self._active else "stopped"
        return f"<Tracer {state}, {len(self.events)} events>"

    @staticmethod
    def _name_saved_copy(p):
        _name_saved_copy_impl(p)

    # -- the hub calls these ---------------------------------------------------------
    def _before(self, op, tensor, others, frame, keywords=None):
        p = _Pending()
        p.tracer = self
        p.op = op
        p.tensor = tensor
        p.others = others
        namespaces = _namespaces(self.namespace, frame)
        p.library = _library(frame)
        if p.library is not None:
            # library code working on a module being built (init) or stepped: name its
            # parameters after the module's class (Linear.weight) when nobody holds it yet
            namespaces = namespaces + [_modules_in(frame)]
        p.labeler = Labeler(namespaces)
        p.roots = _roots(tensor, others, namespaces)
        p.grad_enabled = _st.grad_enabled
        p.source = _source_of(_user_frame(frame) if frame is not None else None)
        p.operands = [_operand_text(o, p.labeler) for o in others]
        keyword_text = [f"{k}={_operand_text(v, p.labeler)}" for k, v in (keywords or {}).items()]
        # an anonymous operand (``t14``) reads better as the expression the user wrote
        written = _source_operands(p.source[2] if p.source else None, op, len(others))
        if written is not None:
            from ..tensor import Tensor
            for i, o in enumerate(others):
                if isinstance(o, Tensor) and o is not tensor and p.labeler.named(o) is None \
                        and p.operands[i] == p.labeler(o):
                    p.operands[i] = written[i]
        p.operands += keyword_text   # (after the positional ones: add_(g, alpha=-0.05))
        p.before = build(p.roots, p.labeler, self.max_nodes, p.grad_enabled, focus=tensor)
        return p

    def _after(self, p):
        self._name_saved_copy(p)
        after = build(p.roots, p.labeler, self.max_nodes, p.grad_enabled, focus=p.tensor)
        n = self.dropped + len(self.events)
        ev = InplaceEvent(n, p.op, p.labeler(p.tensor), IDS.tensor(p.tensor),
                          p.operands, p.before, after, p.source, p.grad_enabled, p.library)
        self.order.append(("event", n))
        self.events.append(ev)
        self._trim()

    def _trim(self):
        """Keep the ring: drop the oldest events/backward passes beyond ``max_events``."""
        cap = self.max_events
        if len(self.events) > cap:
            k = len(self.events) - cap
            del self.events[:k]
            self.dropped += k
        if len(self.backwards) > cap:
            k = len(self.backwards) - cap
            del self.backwards[:k]
            self.dropped_backwards += k
        if len(self.order) > 2 * cap + 64:         # amortised: forget dropped entries
            self.order = [x for x in self.order if x[1] >= (
                self.dropped if x[0] == "event" else self.dropped_backwards)]


def default_max_events() -> int:
    """``VIEWGRAD_TRACE_MAX_EVENTS`` (default 10,000): how many events a tracer keeps."""
    try:
        return max(1, int(os.environ.get("VIEWGRAD_TRACE_MAX_EVENTS", "10000")))
    except ValueError:
        return 10000


def _relative_order(tr) -> list:
    """``order`` as positions in the kept ``events``/``backwards`` (the ring dropped some)."""
    order = getattr(tr, "order", None) or []
    de, db = getattr(tr, "dropped", 0), getattr(tr, "dropped_backwards", 0)
    out = []
    for kind, i in order:
        j = i - (de if kind == "event" else db)
        if 0 <= j < len(tr.events if kind == "event" else tr.backwards):
            out.append((kind, j))
    return out


def _timeline(tr) -> list:
    order = _relative_order(tr)
    if not order or len(order) != len(tr.events) + len(tr.backwards):
        return list(tr.events) + list(tr.backwards)
    return [tr.events[i] if kind == "event" else tr.backwards[i] for kind, i in order]


def _op_node(t):
    """The node the in-place op just made: t's grad_fn, or the fn inside its base's
    CopySlices."""
    from ..autograd.views import CopySlices
    base = t._base
    n = (base if base is not None else t)._grad_fn
    return n.fn if isinstance(n, CopySlices) else n


def _name_saved_copy_impl(p):
    # mul_ and friends save a copy of self's OLD value (the op overwrites self): call it
    # "x @v0" (x as it was at version 0), rather than an anonymous id.
    n = _op_node(p.tensor)
    if n is None:
        return
    before_t = p.before.tensor(IDS.tensor(p.tensor)) if p.before.has_tensor(
        IDS.tensor(p.tensor)) else None
    if before_t is None:
        return
    for name, v in n.saved_items():
        t = getattr(v, "tensor", None)
        if name == "self" and t is not None and t is not p.tensor \
                and p.labeler.named(t) is None:
            p.labeler._cache[id(t)] = f"{before_t.label} @v{before_t.version}"


def trace(namespace=None, max_nodes=EVENT_MAX_NODES, record_backward=True,
          max_events=None) -> Tracer:
    """``with vg.trace() as tr:`` — record a before/after snapshot per in-place op
    (``tr.events``) and each backward pass step by step (``tr.backwards``). Only the last
    ``max_events`` (default ``VIEWGRAD_TRACE_MAX_EVENTS`` or 10,000) are kept;
    ``tr.dropped`` counts the earlier ones. Only the thread that started it is recorded."""
    return Tracer(namespace, max_nodes, record_backward, max_events)


def snapshot(tensors, namespace=None, max_nodes=MAX_NODES, params=None):
    """A GraphSnapshot of the graph reachable from ``tensors`` (a tensor or a list), with
    each view's base. Labels come from ``params`` (``dict(model.named_parameters())``),
    then ``namespace`` (default: the caller's variables, Modules' parameters by path)."""
    from ..tensor import Tensor
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"snapshot() takes tensors; item {i} is a "
                            f"{type(t).__name__}")
    if namespace is None:
        f = sys._getframe(1)
        namespaces = [f.f_locals, f.f_globals]
    else:
        namespaces = [namespace]
    return build([(t, "root") for t in tensors], Labeler(namespaces, params=params), max_nodes,
                 _st.grad_enabled, focus=tensors[0] if len(tensors) == 1 else None)


def storage_snapshot(tensor, namespace=None):
    """A GraphSnapshot of ``tensor``, its base and every live view of that base (the
    tracer's registry of views, and the views held by variables in ``namespace``; default:
    the caller's): what a storage picture draws (``vg.viz.storage``, ``:storage EXPR``)."""
    from ..tensor import Tensor
    if not isinstance(tensor, Tensor):
        raise TypeError(f"storage_snapshot() takes a tensor, not a {type(tensor).__name__}")
    if namespace is None:
        f = sys._getframe(1)
        namespaces = [f.f_locals, f.f_globals]
    else:
        namespaces = [namespace]
    roots = [(t, "view" if r == "view" else "root") for t, r in _roots(tensor, (), namespaces)]
    return build(roots, Labeler(namespaces), MAX_NODES, _st.grad_enabled, focus=tensor)


def record_backward(tensor, gradient=None, retain_graph=None, namespace=None,
                    errors="raise"):
    """Run ``tensor.backward(...)`` and return its ``BackwardTrace`` (one step per node the
    engine ran): what ``:backward EXPR`` in the REPL steps through. When the pass fails,
    ``errors="raise"`` re-raises; ``errors="return"`` returns the trace, whose ``.error``
    names the failing node, the message and the event to blame."""
    tr = Tracer(namespace)
    try:
        with tr:
            tensor.backward(gradient, retain_graph=retain_graph)
    except Exception:
        if errors == "raise" or not tr.backwards or tr.backwards[-1].error is None:
            raise
    if not tr.backwards:
        raise RuntimeError("the backward pass was not recorded")
    return tr.backwards[-1]
