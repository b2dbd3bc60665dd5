"""A long REPL session stays bounded (issue 15): the session's own event log is a ring of
the tracer's size, ``:events`` says how many earlier events were dropped, and the work per
line does not grow with the session's history (checked by counting, not timing)."""
import linecache

import pytest

from .replkit import new_session

pytestmark = pytest.mark.once

SEED = "x = vg.tensor([1.0, 2.0]).clone()"


@pytest.fixture
def small_ring(monkeypatch):
    monkeypatch.setenv("VIEWGRAD_TRACE_MAX_EVENTS", "50")


def test_the_session_log_is_a_ring_and_events_says_what_was_dropped(small_ring):
    s, buf = new_session()
    s.handle(SEED)
    s.handle("for _ in range(300):\n    x.add_(1.0)\n")
    assert s.trace.tracer.max_events == 50
    assert len(s.trace.log) == 50 and s.trace.dropped == 250
    assert len(s.trace.tracer.events) <= 50
    s.handle("x.mul_(2.0)")    # the tracer's ring is full: a new event still arrives
    assert [e.index for e in s.trace.events][-2:] == [299, 300]
    assert "#300" in buf.getvalue()
    s.handle(":events")
    out = buf.getvalue()
    assert "… 251 earlier events dropped (ring of 50" in out
    assert "trace on · 50 events (the last 50; 251 earlier dropped)" in s.trace.status()
    buf.seek(0)
    buf.truncate()
    for cmd in (":show 10", ":show 300", ":show -1", ":show 301", ":diff 251"):
        s.handle(cmd)
    out = buf.getvalue()
    assert "event #10 was dropped: the session keeps the last 50 events (#251 to #300)" in out
    assert "no event #301: events are numbered 251 to 300" in out
    assert "internal error" not in out


def test_each_event_is_synced_once_whatever_the_history(small_ring, monkeypatch):
    """The per-line cost: a line takes only its own events from the tracer. Counted: the
    session numbers each event once, and a line that records nothing touches none."""
    from viewgrad_cli import tracing
    s, _ = new_session()
    s.handle(SEED)
    taken = []
    real = tracing.TraceSession._append

    def counting(self, evs):
        evs = list(evs)
        taken.append(len(evs))
        return real(self, evs)
    monkeypatch.setattr(tracing.TraceSession, "_append", counting)
    for _ in range(40):
        s.handle("for _ in range(10):\n    x.add_(1.0)\n")
        s.handle("y = x + 1")              # no in-place op: nothing to take
    assert sum(taken) == 400               # each event once, never the whole history again
    assert max(taken) == 10
    assert len(s.trace.log) == 50 and s.trace.dropped == 350
    assert len(s.trace.folded) <= 50


def test_a_line_recording_more_than_the_ring_keeps_the_last(small_ring):
    s, buf = new_session()
    s.handle(SEED)
    s.handle("for _ in range(120):\n    x.add_(1.0)\n")
    assert [e.index for e in s.trace.log] == list(range(70, 120))
    assert "… and 46 more in-place ops" in buf.getvalue()    # 50 kept, 4 drawn
    s.handle(":report r.html")
    assert "internal error" not in buf.getvalue()


def test_loading_past_the_ring_keeps_the_last_events(small_ring, tmp_path):
    s, buf = new_session()
    s.handle(SEED)
    s.handle("for _ in range(30):\n    x.add_(1.0)\n")
    s.handle(":save t.json")
    s.handle(":load t.json")
    s.handle(":load t.json")
    assert len(s.trace.log) == 50 and s.trace.dropped == 40
    assert "loaded 30 events as #60..#89" in buf.getvalue()


def test_typed_sources_are_a_ring(monkeypatch):
    from viewgrad_cli import printing
    monkeypatch.setattr(printing, "SOURCES_KEPT", 20)
    s, _ = new_session(trace=False)
    first = s.inputs + 1
    for i in range(60):
        s.handle(f"v{i} = {i}")
    assert len(printing._TYPED) <= 20
    assert f"In[{first}].py" not in linecache.cache
    assert f"In[{s.inputs}].py" in linecache.cache


def test_show_completes_the_kept_events_numbers(small_ring):
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document
    from viewgrad_cli.commands_colon import COMMANDS
    from viewgrad_cli.completion import ReplCompleter
    s, _ = new_session()
    s.handle(SEED)
    s.handle("for _ in range(80):\n    x.add_(1.0)\n")
    c = ReplCompleter(lambda: s.namespace, COMMANDS, lambda: s.trace.events)
    got = [x.text for x in c.get_completions(Document(":show 7", 7), CompleteEvent(True))]
    assert got[:2] == ["79", "78"] and "7" not in got
