"""A minimal stand-in for the tracer contract (cli/tracing.py's docstring), used by the REPL
tests only while the real tracer (viewgrad.trace / render / viz) is not in this checkout.

It hooks the same slot as the real tracer (``viewgrad.autograd.state.state.inplace_observer``) and
records, per in-place op, the grad_fn names of the mutated tensor and of its base, before
and after: enough for the REPL's wiring (events, numbering, rendering after a line,
save/load) to be tested for real.
"""
from __future__ import annotations

import json
import types

from rich.text import Text

from viewgrad.autograd.state import state


def _names(t):
    base = t._base if t._is_view() else None
    return {"tensor": t.grad_fn.name() if t.grad_fn is not None else None,
            "base": base.grad_fn.name() if base is not None and base.grad_fn is not None
            else None}


class FakeEvent:
    def __init__(self, index, op, tensor, before, after=None):
        self.index, self.op, self.tensor = index, op, tensor
        self.before, self.after, self.source = before, after, None

    def summary(self):
        return f"{self.op}: base grad_fn {self.before['base']} -> {self.after['base']}"


class FakeTracer:
    def __init__(self, namespace=None):
        self.namespace = namespace
        self.events = []

    def start(self):
        state.inplace_observer = self

    def stop(self):
        if state.inplace_observer is self:
            state.inplace_observer = None

    def clear(self):
        self.events.clear()

    def before(self, op, tensor, others):
        return (op, tensor, _names(tensor))

    def after(self, token):
        op, tensor, before = token
        self.events.append(FakeEvent(len(self.events), op, tensor, before, _names(tensor)))

    def to_json(self, path):
        with open(path, "w") as fh:
            json.dump([{"op": e.op, "before": e.before, "after": e.after} for e in self.events], fh)


def load(path):
    with open(path) as fh:
        return [FakeEvent(i, d["op"], None, d["before"], d["after"])
                for i, d in enumerate(json.load(fh))]


class FakeDiff:
    def __init__(self, before, after):
        self.before, self.after = before, after

    def summary(self):
        return f"base grad_fn moved: {self.before['base']} -> {self.after['base']}"


def render_event(event, compact=False):
    return Text(f"#{event.index} {event.summary()}\nbefore: {event.before}\n"
                f"after: {event.after}")


def render_snapshot(snap):
    return Text(f"snapshot of {snap}")


def to_svg(obj, path):
    with open(path, "w") as fh:
        fh.write("<svg xmlns='http://www.w3.org/2000/svg'><!-- fake --></svg>")


MODULES = {
    "viewgrad.trace": types.SimpleNamespace(
        load=load, diff=FakeDiff, explain=lambda ev: f"# {ev.op}\nx1 = x0.{ev.op}(...)",
        snapshot=lambda tensors, namespace=None: tensors),
    "viewgrad.render.terminal": types.SimpleNamespace(render_event=render_event,
                                                      render_snapshot=render_snapshot),
    "viewgrad.viz": types.SimpleNamespace(to_svg=to_svg),
}
