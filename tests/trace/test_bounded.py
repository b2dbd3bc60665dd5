"""Long sessions stay bounded (issue 15): an event's cost does not grow with the
history, the tracer keeps a ring of the last N events, it records only its own thread."""
import json
import threading
import time

import viewgrad as vg
from viewgrad.trace import loads


def _event_cost(tr, x, k=20):
    """Seconds per traced in-place op, the best of ``k``."""
    best = float("inf")
    for _ in range(k):
        t = time.perf_counter()
        x.mul_(1.0)
        best = min(best, time.perf_counter() - t)
    return best


def test_event_cost_does_not_grow_with_history():
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    x = a.clone()
    with vg.trace(namespace={"x": x}, max_events=50) as tr:
        for _ in range(100):
            x.mul_(1.0)
        early = _event_cost(tr, x)
        with vg.trace_off() if hasattr(vg, "trace_off") else _paused(tr):
            for _ in range(10_000):
                x.mul_(1.0)          # 10,000 more nodes of history, not traced
        late = _event_cost(tr, x)
    # the history is 100x longer; a snapshot walks a bounded neighbourhood and counts
    # at most COUNT_LIMIT omitted nodes (the work is bounded: checked on what it kept; the
    # time only loosely, machines are noisy)
    from viewgrad.trace.snapshot import COUNT_LIMIT, EVENT_MAX_NODES
    ev = tr.events[-1]
    assert len(ev.before.nodes) <= EVENT_MAX_NODES + 1
    assert 0 < ev.before.omitted <= COUNT_LIMIT + 2
    assert late < 10 * early + 0.05, (early, late)
    assert len(tr.events) == 50 and tr.dropped > 0


class _paused:
    def __init__(self, tr):
        self.tr = tr

    def __enter__(self):
        self.tr._paused = True

    def __exit__(self, *exc):
        self.tr._paused = False


def test_ring_keeps_the_last_events_and_says_how_many_dropped():
    x = vg.tensor([1.0, 2.0]).clone()
    with vg.trace(namespace={"x": x}, max_events=5) as tr:
        for _ in range(12):
            x.add_(1.0)
        (x * 1).sum()
    assert len(tr.events) == 5 and tr.dropped == 7
    assert [e.index for e in tr.events] == [7, 8, 9, 10, 11]
    assert [e.index for e in tr.timeline()] == [7, 8, 9, 10, 11]
    back = loads(tr.to_json())
    assert back.dropped == 7 and len(back.events) == 5
    assert "7 earlier events dropped" in tr.to_html()
    assert json.loads(tr.to_json())["dropped"] == 7


def test_ring_with_backward_passes_keeps_the_order():
    w = vg.tensor([1.0, 2.0], requires_grad=True)
    with vg.trace(max_events=3) as tr:
        for _ in range(6):
            h = w * 2
            h.mul_(3)
            h.sum().backward()
    assert len(tr.events) == 3 and len(tr.backwards) == 3
    kinds = [("steps" in dir(x)) for x in tr.timeline()]
    assert kinds == [False, True] * 3
    assert loads(tr.to_json()).timeline()[0].index == tr.events[0].index


def test_tracer_records_only_its_own_thread():
    x = vg.tensor([1.0, 2.0]).clone()
    with vg.trace() as tr:
        x.mul_(2)
        t = threading.Thread(target=lambda: vg.tensor([1.0]).clone().mul_(2))
        t.start()
        t.join()
    assert len(tr.events) == 1


def test_many_inplace_ops_stay_usable():
    """A loop of in-place ops with tracing on: kept events bounded by the ring."""
    x = vg.tensor([1.0, 2.0]).clone()
    with vg.trace(namespace={"x": x}, max_events=100) as tr:
        for _ in range(3000):
            x.add_(1.0)
    assert len(tr.events) == 100 and tr.dropped == 2900
