"""The REPL's side of the tracer: one place that talks to ``viewgrad.trace``/``render``/``viz``.

The REPL only *uses* the tracer (``viewgrad.trace``, always part of viewgrad): this module
keeps the session's tracing state and turns events into what the commands print, so the
rest of ``cli/`` does not care how the tracer is built.

One ``Tracer`` lives as long as the session: started when tracing is on, stopped by
``:trace off`` (which also stops recording), replaced by ``:reset``. Events get numbers in
the order they arrive, recorded or loaded from a file with ``:load``, and keep them.
"""
from __future__ import annotations

import collections
import contextlib
import itertools

from rich.console import Group
from rich.text import Text

import viewgrad as vg
from viewgrad import trace as vtrace, viz
from viewgrad.render import terminal


def make_tracer(namespace):
    return vg.trace(namespace=namespace)


def trace_renderable(obj):
    """A rich renderable for tracer objects (events, snapshots), or None for anything else."""
    if isinstance(obj, vtrace.InplaceEvent):
        return terminal.render_event(obj)
    if isinstance(obj, vtrace.GraphSnapshot):
        return terminal.render_snapshot(obj)
    return None


class TraceSession:
    """Tracing state of one REPL session: on/off, the tracer, and the events so far.

    Note [session ring]: tracing is on by default and a learner may loop for an hour, so
    the session keeps only the last ``max_events`` events (the tracer's ring size,
    ``VIEWGRAD_TRACE_MAX_EVENTS``, default 10,000), recorded and ``:load``-ed alike. Events
    keep the number they got when they arrived (``ev.index``, "#N" in drawings and for
    ``:show N``); ``dropped`` counts the ones that fell off the front. Syncing with the
    tracer reads only what is new, by the tracer's running total (its own ring drops too),
    so a line costs what it recorded, never what the session holds.
    """

    def __init__(self, namespace, enabled=True):
        self.namespace = namespace
        self.enabled = False
        self.tracer = None
        self.max_events = vtrace.tracer.default_max_events()
        self.log = collections.deque(maxlen=self.max_events)  # the ring (Note above)
        self._numbered = 0        # session numbers handed out: the next event is #_numbered
        self._seen = 0            # the tracer's running total of events already synced
        self.error = None         # why tracing could not start, shown by :trace
        self.folded = []          # library events under no_grad last folded (:unfold)
        if enabled:
            self.turn_on()

    # -- state -----------------------------------------------------------------------
    def turn_on(self):
        if self.enabled:
            return
        try:
            if self.tracer is None:
                self.tracer = make_tracer(self.namespace)
            self.tracer.start()
        except Exception as e:  # noqa: BLE001 - a broken tracer must not take the REPL down
            self.error = f"the tracer failed to start: {type(e).__name__}: {e}"
            return
        self.error = None
        self.enabled = True

    def turn_off(self):
        if self.enabled and self.tracer is not None:
            try:
                self.tracer.stop()
            finally:
                self.enabled = False
        self.enabled = False

    def reset(self, namespace):
        """A fresh tracer for a fresh namespace (``:reset``)."""
        was_on = self.enabled or self.tracer is None
        self.turn_off()
        self.tracer = None
        self.log.clear()
        self._numbered = self._seen = 0
        self.folded = []
        self.namespace = namespace
        if was_on:
            self.turn_on()

    def close(self):
        with contextlib.suppress(Exception):
            self.turn_off()

    @property
    def dropped(self) -> int:
        """How many of the session's events fell off the ring (Note [session ring])."""
        return self._numbered - len(self.log)

    def _sync(self):
        """Take the tracer's new events into the log (only the new ones: Note above)."""
        tr = self.tracer
        if tr is None:
            return
        recorded = tr.events
        total = getattr(tr, "dropped", 0) + len(recorded)
        new = total - self._seen
        self._seen = total
        if new <= 0:
            return
        fresh = list(itertools.islice(reversed(recorded), new))[::-1]
        self._numbered += new - len(fresh)  # fell off the tracer's ring before we looked
        self._append(fresh)

    @property
    def events(self) -> list:
        """The kept events, oldest first (at most ``max_events``)."""
        self._sync()
        return list(self.log)

    def _append(self, evs):
        for ev in evs:
            ev.index = self._numbered  # the session's number: "#N" in drawings is :show N
            self._numbered += 1
            self.log.append(ev)

    def __len__(self):
        self._sync()
        return len(self.log)

    def status(self) -> str:
        state = "on" if self.enabled else "off"
        n = len(self)
        dropped = f" (the last {n:,}; {self.dropped:,} earlier dropped)" if self.dropped else ""
        return f"trace {state} · {n:,} event{'s' * (n != 1)}{dropped}"

    def dropped_line(self) -> str | None:
        """"… 1,234 earlier events dropped (ring of N)", or None when none were."""
        k = self.dropped
        if not k:
            return None
        return (f"… {k:,} earlier event{'s' * (k != 1)} dropped (ring of {self.max_events:,}; "
                "VIEWGRAD_TRACE_MAX_EVENTS keeps more)")

    # -- recording around one input ---------------------------------------------------
    @contextlib.contextmanager
    def recording(self):
        """Yields a list that, after the block, holds the events the block recorded (the
        last ``max_events`` of them, if it recorded more)."""
        new: list = []
        self._sync()
        before = self._numbered
        try:
            yield new
        finally:
            self._sync()
            k = min(self._numbered - before, len(self.log))
            new.extend(list(itertools.islice(reversed(self.log), k))[::-1])

    # -- lookup and the commands' work --------------------------------------------------
    def event(self, n: int):
        self._sync()
        if not self.log:
            raise LookupError("no in-place events recorded yet (tracing is "
                              f"{'on' if self.enabled else 'off'}; try x.mul_(2) on a tensor)")
        first, last = self.log[0].index, self._numbered - 1
        if n < 0:
            n += self._numbered
        if first <= n <= last:
            pos = n - first
            if pos < len(self.log) and self.log[pos].index == n:
                return self.log[pos]
            for ev in self.log:  # a gap (the tracer's ring dropped some): look it up
                if ev.index == n:
                    return ev
        if 0 <= n < first:
            raise LookupError(f"event #{n} was dropped: the session keeps the last "
                              f"{self.max_events:,} events (#{first} to #{last}); "
                              "VIEWGRAD_TRACE_MAX_EVENTS keeps more")
        raise LookupError(f"no event #{n}: events are numbered {first} to {last} "
                          "(:events lists them)")

    def number_of(self, event) -> int:
        return event.index

    def save(self, path):
        if self.tracer is None:
            self.tracer = make_tracer(self.namespace)
        self.tracer.to_json(path)
        return len(self.tracer.events)

    def report(self, path) -> int:
        """The session's events (recorded and loaded) and backward passes, in the order
        they happened, as a self-contained HTML page (as ``viewgrad run --html``)."""
        from viewgrad.trace.jsonio import Trace
        evs = self.events
        pos = {id(e): k for k, e in enumerate(evs)}
        tr = self.tracer
        backs = list(getattr(tr, "backwards", ()) or ())
        de, db = getattr(tr, "dropped", 0), getattr(tr, "dropped_backwards", 0)
        order = []
        for kind, i in getattr(tr, "order", ()) or ():   # the tracer's running numbers
            if kind == "backward":
                if 0 <= i - db < len(backs):
                    order.append(("backward", i - db))
            elif 0 <= i - de < len(tr.events) and id(tr.events[i - de]) in pos:
                order.append(("event", pos[id(tr.events[i - de])]))
        placed = {i for k, i in order if k == "event"}
        order += [("event", i) for i in range(len(evs)) if i not in placed]   # loaded ones
        Trace(evs, backs, order).to_html(path)
        return len(evs)

    def backward_count(self) -> int:
        return len(getattr(self.tracer, "backwards", ()) or ())

    def failed_backward(self, since=0):
        """The last backward pass recorded after the first ``since`` if it failed."""
        backs = getattr(self.tracer, "backwards", None) if self.enabled else None
        if backs and len(backs) > since and getattr(backs[-1], "error", None) is not None:
            return backs[-1]
        return None

    @property
    def next_number(self) -> int:
        """The number the next event will get."""
        self._sync()
        return self._numbered

    def load(self, path) -> int:
        loaded = vtrace.load(path)
        evs = list(loaded.events)
        self._sync()  # first, so loaded events come after recorded ones
        self._append(evs)
        return len(evs)


# -- renderables for the commands ------------------------------------------------------
def summary_of(event) -> str:
    try:
        return str(event.summary())
    except Exception as e:  # noqa: BLE001
        return f"{getattr(event, 'op', '?')} (no summary: {e})"


def render_event(event, compact=False):
    return terminal.render_event(event, compact=compact)


def split_library(events):
    """(drawn, folded): in-place work done under no_grad by library code (parameter init,
    an optimizer's step) is recorded but not drawn after the line: one line says what it
    was, ``:unfold`` draws it."""
    drawn, lib = [], []
    for ev in events:
        (lib if getattr(ev, "library", None) and not getattr(ev, "grad_enabled", True)
         else drawn).append(ev)
    return drawn, lib


def render_after_line(trace: TraceSession, events, limit=4):
    """What appears after a line that did in-place work: each event's before/after graphs
    in compact form, headed by its one-line explanation (the renderer prints
    ``event.summary()`` above the graphs). Long runs (a loop) are cut to ``limit`` events;
    library work under no_grad is folded into one line per kind."""
    parts = []
    events, lib = split_library(events)
    trace.folded = lib or trace.folded
    for ev in events[:limit]:
        n = trace.number_of(ev)
        try:
            parts.append(render_event(ev, compact=True))
            continue
        except Exception as e:  # noqa: BLE001 - a renderer bug must not eat the user's line
            parts.append(Text(f"(could not draw event #{n}: {type(e).__name__}: {e})",
                              style="red"))
        parts.append(Text.assemble((f"#{n} ", "bold magenta"), (summary_of(ev), "italic")))
    if len(events) > limit:
        parts.append(Text(f"… and {len(events) - limit} more in-place ops (:events lists them)",
                          style="dim"))
    kinds = {}
    for ev in lib:
        kinds.setdefault(ev.library, []).append(ev)
    for kind, evs in kinds.items():
        nums = [trace.number_of(e) for e in evs]
        where = f"#{nums[0]}" + (f"..#{nums[-1]}" if len(nums) > 1 else "")
        what = ", ".join(f"{e.tensor}.{e.op}" for e in evs[:3]) + (", …" if len(evs) > 3
                                                                    else "")
        parts.append(Text(f"{len(evs)} in-place op{'s' * (len(evs) != 1)} under no_grad: "
                          f"{kind} ({what}; {where}) · :unfold draws them", style="dim"))
    if events:
        first = trace.number_of(events[0])
        parts.append(Text(f":show {first} full picture · :diff {first} what changed · "
                          f":explain {first} the rewrite · :trace off silences this",
                          style="dim"))
    return Group(*parts)


def render_snapshot_of(obj, namespace):
    return terminal.render_snapshot(vtrace.snapshot([obj], namespace=namespace))


def render_storage_of(obj, namespace):
    """The storage picture of a tensor (with its base's live views) or of an event."""
    from viewgrad.render.storage import render_storage
    if isinstance(obj, vg.Tensor):
        obj = vtrace.storage_snapshot(obj, namespace)
    return render_storage(obj)


def diff_of(event):
    return vtrace.diff(event.before, event.after)


def explain_of(event) -> str:
    return str(vtrace.explain(event))


def to_svg(obj, path, namespace=None):
    """Write the picture of ``obj``, tensors named after the session's variables (not
    after this function's own ``obj``)."""
    return viz.to_svg(obj, path, namespace=namespace if namespace is not None else {})
