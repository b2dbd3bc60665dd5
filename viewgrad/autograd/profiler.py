"""``torch.autograd.profiler`` (and ``torch.profiler``): where does the time go?

    with vg.autograd.profiler.profile() as prof:
        with vg.autograd.profiler.record_function("forward"):
            loss = model(x).sum()
        loss.backward()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))

While a ``profile`` block is open, every op of the derivatives table is timed under its
name (``mul``, ``mm``, ``convolution``...), every backward node under its node name
(``MulBackward0``, ``AccumulateGrad``...), and every ``record_function`` range under the
name given. Nested work is subtracted to give the SELF time (a backward node's time
without the ops its formula ran; a range's time without the ops inside), as PyTorch's
table shows. ``prof.export_chrome_trace(path)`` writes the events for chrome://tracing.

How, with no cost when not profiling: entering ``profile`` swaps each table op's array
forward and each node class's ``apply`` for a timing wrapper, and leaving it puts them
back (Note [Profiler wrappers]). Only the thread that opened the block is recorded.
Times are wall-clock on the host; on a GPU, CuPy is asynchronous, so an op's time is
when its kernel was queued unless ``use_cuda=True`` synchronises after each op.
"""
from __future__ import annotations

import enum
import json
import threading
import time

from .apply_lean import set_lean_apply

__all__ = ["profile", "record_function", "EventList", "FunctionEventAvg", "FunctionEvent",
           "ProfilerActivity"]


class ProfilerActivity(enum.Enum):
    """``torch.profiler.ProfilerActivity``: what to record (viewgrad records CPU time;
    CUDA is accepted and timed on the host, synchronised)."""
    CPU = "cpu"
    CUDA = "cuda"


class FunctionEvent:
    """One timed call: name, start and end (µs since the profile began), self time,
    nesting depth and kind ('op', 'backward', 'user')."""

    __slots__ = ("name", "start_us", "end_us", "self_us", "depth", "kind", "shapes")

    def __init__(self, name, start_us, kind, depth, shapes=None):
        self.name, self.start_us, self.kind, self.depth = name, start_us, kind, depth
        self.end_us, self.self_us, self.shapes = start_us, 0.0, shapes

    @property
    def cpu_time_total(self):
        return self.end_us - self.start_us

    def __repr__(self):
        return (f"<FunctionEvent {self.name} total={self.cpu_time_total:.1f}us "
                f"self={self.self_us:.1f}us>")


class FunctionEventAvg:
    """All calls of one name: count, total and self times (µs), as PyTorch's rows."""

    def __init__(self, key):
        self.key, self.count = key, 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0

    def add(self, ev):
        self.count += 1
        self.cpu_time_total += ev.cpu_time_total
        self.self_cpu_time_total += ev.self_us

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} calls={self.count} "
                f"self={self.self_cpu_time_total:.1f}us total={self.cpu_time_total:.1f}us>")


def _fmt(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class EventList(list):
    """A list of FunctionEvent (or FunctionEventAvg) with ``table()`` and
    ``key_averages()``."""

    def key_averages(self, group_by_input_shape=False):
        rows = {}
        for ev in self:
            key = (ev.name, str(ev.shapes)) if group_by_input_shape else ev.name
            if key not in rows:
                rows[key] = FunctionEventAvg(ev.name)
                rows[key].input_shapes = ev.shapes
            rows[key].add(ev)
        return EventList(rows.values())

    def total_average(self):
        total = FunctionEventAvg("Total")
        for ev in self:
            total.add(ev)
        return total

    def table(self, sort_by=None, row_limit=100, max_name_column_width=55, header=None,
              top_level_events_only=False):
        """The per-name time table: Name, Self CPU %, Self CPU, CPU total %, CPU total,
        CPU time avg, # of Calls. ``sort_by``: 'self_cpu_time_total', 'cpu_time_total',
        'cpu_time', 'count' (PyTorch's keys; 'cuda_*' keys sort by CPU time here)."""
        rows = list(self if self and isinstance(self[0], FunctionEventAvg)
                    else self.key_averages())
        key = {"self_cpu_time_total": "self_cpu_time_total", "cpu_time_total": "cpu_time_total",
               "cpu_time": "cpu_time", "count": "count",
               "self_cuda_time_total": "self_cpu_time_total",
               "cuda_time_total": "cpu_time_total", "cuda_time": "cpu_time"}.get(sort_by)
        if sort_by is not None and key is None:
            raise ValueError(f"table: unknown sort_by {sort_by!r} (use self_cpu_time_total, "
                             "cpu_time_total, cpu_time or count)")
        if key is not None:
            rows.sort(key=lambda r: getattr(r, key), reverse=True)
        if row_limit is not None and row_limit > 0:
            rows = rows[:row_limit]
        self_total = sum(r.self_cpu_time_total for r in
                         (self if self and isinstance(self[0], FunctionEventAvg)
                          else self.key_averages())) or 1.0
        width = min(max([len("Name")] + [len(r.key) for r in rows]), max_name_column_width)
        cols = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
                "# of Calls"]
        line = "-" * width + ("  " + "-" * 12) * len(cols)
        out = [line, f"{'Name':<{width}}" + "".join(f"  {c:>12}" for c in cols), line]
        for r in rows:
            name = r.key if len(r.key) <= width else r.key[:width - 3] + "..."
            out.append(f"{name:<{width}}"
                       f"  {100 * r.self_cpu_time_total / self_total:>11.2f}%"
                       f"  {_fmt(r.self_cpu_time_total):>12}"
                       f"  {100 * r.cpu_time_total / self_total:>11.2f}%"
                       f"  {_fmt(r.cpu_time_total):>12}"
                       f"  {_fmt(r.cpu_time):>12}"
                       f"  {r.count:>12}")
        out.append(line)
        out.append(f"Self CPU time total: {_fmt(self_total)}")
        return "\n".join(out) + "\n"


# -- recording -------------------------------------------------------------------------------

_active = {"prof": None}


class _Recorder:
    """The open profile: a stack of running events; closed ones go to ``events``."""

    def __init__(self, record_shapes, sync):
        self.events, self.stack = [], []
        self.t0 = time.perf_counter_ns()
        self.thread = threading.get_ident()
        self.record_shapes, self.sync = record_shapes, sync

    def now(self):
        return (time.perf_counter_ns() - self.t0) / 1e3

    def push(self, name, kind, shapes=None):
        ev = FunctionEvent(name, self.now(), kind, len(self.stack), shapes)
        self.stack.append([ev, 0.0])
        return ev

    def pop(self):
        if self.sync:
            from .. import backend
            backend.synchronize("cuda")
        ev, children = self.stack.pop()
        ev.end_us = self.now()
        ev.self_us = ev.cpu_time_total - children
        if self.stack:
            self.stack[-1][1] += ev.cpu_time_total
        self.events.append(ev)


def _recorder():
    rec = _active["prof"]
    if rec is None or threading.get_ident() != rec.thread:
        return None
    return rec


# Note [Profiler wrappers]
# ~~~~~~~~~~~~~~~~~~~~~~~~
# The ops call ``op.forward(arrays...)`` and the engine calls ``node.apply(grads)``: while a
# profile is open these attributes are replaced by wrappers that time the call, and the
# originals are put back when it closes. Nothing on the hot path checks for a profiler.

def _timed_forward(op, fwd):
    def forward(*args):
        rec = _recorder()
        if rec is None:
            return fwd(*args)
        shapes = [list(getattr(a, "shape", ())) for a in args] if rec.record_shapes else None
        rec.push(op.name, "op", shapes)
        try:
            return fwd(*args)
        finally:
            rec.pop()
    return forward


_RUNNING = set()   # ids of the nodes being timed (apply_arrays may call apply: time once)


def _timed_apply(name, apply):
    def wrapped(self, grads):
        rec = _recorder()
        if rec is None or id(self) in _RUNNING:
            return apply(self, grads)
        rec.push(self.name() if name is None else name, "backward")
        _RUNNING.add(id(self))
        try:
            return apply(self, grads)
        finally:
            _RUNNING.discard(id(self))
            rec.pop()
    return wrapped


def _node_classes():
    from .graph import Node
    seen, todo = [], [Node]
    while todo:
        c = todo.pop()
        for sub in c.__subclasses__():
            if sub not in seen:
                seen.append(sub)
                todo.append(sub)
    return seen


def _install():
    from .graph import Node
    from .nodes import OPS     # (the table ops fill: autograd never imports ops)
    saved_fwd = {}
    for op in OPS.values():
        saved_fwd[op] = (op.forward, op.host, op.lean1, op.lean2)
        op.forward = _timed_forward(op, op.forward)
        # every forward through the timed one: not the host ufunc (Note [host ufuncs]), not
        # the lean calls (Note [lean ops]), which run the same numbers without it
        op.host = None
        op.lean1 = op.lean2 = False
    saved_apply = [set_lean_apply(False)]   # every node through apply_arrays (timed)
    for cls in [Node] + _node_classes():
        for meth in ("apply", "apply_arrays"):  # (a plain backward runs apply_arrays)
            if meth in cls.__dict__:   # subclasses inherit the wrapper (named by node)
                own = cls.__dict__[meth]
                saved_apply.append((cls, meth, own))
                setattr(cls, meth, _timed_apply(None, own))
    return saved_fwd, saved_apply


def _uninstall(saved):
    saved_fwd, saved_apply = saved
    for op, (f, host, lean1, lean2) in saved_fwd.items():
        op.forward, op.host, op.lean1, op.lean2 = f, host, lean1, lean2
    set_lean_apply(saved_apply[0])
    for cls, meth, own in saved_apply[1:]:
        setattr(cls, meth, own)


class profile:  # noqa: N801 - PyTorch's name
    """``with profile() as prof:`` times the ops, backward nodes and record_function ranges
    run inside (see the module docstring); then ``prof.key_averages().table()``.
    Arguments PyTorch takes for its other profilers (profile_memory, with_stack, ...) are
    accepted and have no effect."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False,
                 with_modules=False, use_kineto=False, use_cpu=True, experimental_config=None,
                 activities=None, schedule=None, on_trace_ready=None, acc_events=False):
        self.enabled = enabled
        acts = set(activities or ())
        self.sync = bool(use_cuda or use_device == "cuda" or ProfilerActivity.CUDA in acts)
        self.record_shapes = record_shapes
        self.function_events = None
        self._rec = self._saved = None

    def __enter__(self):
        if not self.enabled:
            return self
        if _active["prof"] is not None:
            raise RuntimeError("Profiler is already enabled on this thread")
        self._rec = _Recorder(self.record_shapes, self.sync)
        self._saved = _install()
        _active["prof"] = self._rec
        return self

    def __exit__(self, *exc):
        if not self.enabled:
            return False
        _active["prof"] = None
        _uninstall(self._saved)
        while self._rec.stack:         # ranges left open by an exception
            self._rec.pop()
        self.function_events = EventList(sorted(self._rec.events, key=lambda e: e.start_us))
        return False

    # torch.profiler.profile's scheduling API: one profiling window, stepping is a no-op
    def start(self):
        return self.__enter__()

    def stop(self):
        self.__exit__(None, None, None)

    def step(self):
        pass

    def _events(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def events(self):
        return self._events()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """One row per name (op, backward node, or record_function range)."""
        return self._events().key_averages(group_by_input_shape)

    def table(self, sort_by=None, row_limit=100, **kw):
        return self.key_averages().table(sort_by=sort_by, row_limit=row_limit, **kw)

    def total_average(self):
        return self._events().total_average()

    def export_chrome_trace(self, path):
        """Write the events in the Chrome trace format (open in chrome://tracing or
        Perfetto)."""
        trace = [{"name": e.name, "ph": "X", "ts": e.start_us, "dur": e.cpu_time_total,
                  "pid": 0, "tid": 0, "cat": e.kind} for e in self._events()]
        with open(path, "w", encoding="utf-8") as fh:
            json.dump({"traceEvents": trace}, fh)

    def __str__(self):
        return self.table() if self.function_events is not None else "<unfinished profile>"


class record_function:  # noqa: N801
    """``with record_function("name"):`` — a named range of user code in the profile (its
    own row; the ops inside are subtracted from its self time). A decorator too."""

    def __init__(self, name, args=None):
        self.name = name
        self._open = False

    def __enter__(self):
        rec = _recorder()
        if rec is not None:
            rec.push(self.name, "user")
            self._open = rec
        return self

    def __exit__(self, *exc):
        if self._open and self._open is _active["prof"]:
            self._open.pop()
        self._open = False
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)
        return wrapper
