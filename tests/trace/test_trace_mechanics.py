"""The tracer's mechanics: hook slots, purity, nesting, what is recorded, labels, JSON."""
import json

import pytest

import viewgrad as vg
import viewgrad.trace as T
from viewgrad.autograd.state import state
from viewgrad.trace import TraceFormatError, load, loads, snapshot
from tests.trace.scenarios import seed, SCENARIOS


def test_vg_trace_is_callable_and_a_module():
    import importlib
    mod = importlib.import_module("viewgrad.trace")
    assert T is mod and vg.trace is mod
    assert isinstance(vg.trace(), T.Tracer)
    from viewgrad.trace import diff, explain  # noqa: F401 - the package's names import


def test_slots_are_empty_when_not_tracing():
    assert state.inplace_observer is None and state.view_observer is None
    tr = vg.trace()
    tr.start()
    assert state.inplace_observer is not None and state.view_observer is not None
    tr.stop()
    assert state.inplace_observer is None and state.view_observer is None


def test_nested_tracers_both_record_and_clear():
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    x = a * 1
    outer = vg.trace().start()
    try:
        with vg.trace() as inner:
            x.add_(1)
        x.mul_(2)
    finally:
        outer.stop()
    assert [e.op for e in inner.events] == ["add_"]
    assert [e.op for e in outer.events] == ["add_", "mul_"]
    assert [e.index for e in outer.events] == [0, 1]
    outer.clear()
    assert len(outer) == 0 and state.inplace_observer is None


def test_observer_is_pure_stale_view_stays_stale():
    a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    v = b[0]
    w = b[1:]
    old = v._grad_fn
    with vg.trace(namespace={"b": b, "v": v, "w": w}) as tr:
        w.mul_(2)
    # the tracer read v (it is in both snapshots) without regenerating its grad_fn
    assert v._grad_fn is old and v._view_info.version != v._version
    assert tr.events[0].after.tensor("v").stale
    assert v.grad_fn is not old          # reading it the public way regenerates it


def test_internal_inplace_ops_during_backward_are_not_events():
    a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with vg.trace() as tr:
        b = a.clone()
        b[1].mul_(3)        # one event
        b.sum().backward()  # CopySlices.apply and AccumulateGrad do copy_/+= inside
    assert [e.op for e in tr.events] == ["mul_"]
    assert a.grad.tolist() == [1.0, 3.0, 1.0]


def test_failed_inplace_records_nothing_and_tracing_goes_on():
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    with vg.trace() as tr:
        with pytest.raises(RuntimeError, match="leaf Variable"):
            a.mul_(2)
        x = a * 1
        x.mul_(2)
    assert [e.tensor for e in tr.events] == ["x"]


def test_labels_name_then_variable_then_id():
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    b = a.clone()
    b.name = "named"
    c = a * 1
    with vg.trace() as tr:      # no namespace: the caller's variables
        b.add_(1)
        c.add_(1)
        (a * 2).add_(1)         # an anonymous tensor: a short stable id
    labels = [e.tensor for e in tr.events]
    assert labels[:2] == ["named", "c"]
    assert labels[2].startswith("t") and labels[2][1:].isdigit()


def test_live_views_made_while_tracing_are_covered_without_names():
    a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with vg.trace(namespace={}) as tr:
        b = a.clone()
        views = [b[0], b[1:]]
        b.mul_(2)
    ev = tr.events[0]
    roles = sorted(r for t in ev.after.tensors for r in t.roles)
    assert roles == ["mutated", "view", "view"]
    assert len(ev.diff.stale) == 2
    del views


def test_snapshots_are_frozen_against_later_mutation():
    tr = seed()
    ev = tr.events[0]
    text = tr.to_json()
    x = ev.before.tensor("x")
    with pytest.raises(Exception):
        x.version = 5
    # more in-place work on the same tensors leaves the old event alone
    a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with vg.trace():
        a.clone().mul_(2)
    assert tr.to_json() == text


def test_snapshot_of_tensors():
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    y = (a * 2).exp()
    s = snapshot(y)
    assert s.tensor("y").grad_fn == s.nodes[0].id
    assert [n.name for n in s.nodes] == ["ExpBackward0", "MulBackward0", "AccumulateGrad"]
    s2 = snapshot([y, a], namespace={"out": y})
    assert s2.tensor("out").roles == ("root",)
    with pytest.raises(TypeError, match="takes tensors"):
        snapshot([y, 3])


def test_snapshot_keeps_max_nodes_and_counts_the_rest():
    a = vg.tensor([1.0], requires_grad=True)
    y = a
    for _ in range(300):
        y = y * 1.01
    s = snapshot(y, max_nodes=50)
    assert len(s.nodes) == 50
    from viewgrad.trace.snapshot import COUNT_LIMIT
    assert s.omitted == min(301 - 50, COUNT_LIMIT)    # counting is bounded
    assert sum(n.more for n in s.nodes) == 1


def test_deep_graph_is_walked_without_recursion():
    a = vg.tensor([1.0], requires_grad=True)
    y = a
    for _ in range(5000):
        y = y + 1
    s = snapshot(y, max_nodes=10_000)
    assert len(s.nodes) == 5001


# -- JSON ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_json_round_trip_is_unchanged(name, tmp_path):
    tr = SCENARIOS[name]["build"]()
    path = tr.to_json(tmp_path / "t.json")
    back = load(path)
    assert back.events == tr.events
    for a, b in zip(back.events, tr.events):
        assert a.before == b.before and a.after == b.after and a.source == b.source
        assert a.summary() == b.summary() and T.explain(a) == T.explain(b)
    assert back.to_json() == tr.to_json()


def _doc():
    return json.loads(seed().to_json())


@pytest.mark.parametrize("edit, where", [
    (lambda d: d["events"][0]["after"]["nodes"][1].pop("name"),
     "events[0].after.nodes[1].name: missing field"),
    (lambda d: d["events"][0]["before"]["tensors"][0].__setitem__("version", "one"),
     "events[0].before.tensors[0].version: expected an integer"),
    (lambda d: d["events"][0]["after"]["edges"][0].__setitem__("dst", "n999999"),
     "events[0].after.edges[0].dst: names node 'n999999'"),
    (lambda d: d["events"][0]["before"]["tensors"][0].__setitem__("grad_fn", "n424242"),
     "events[0].before.tensors[0].grad_fn: names node 'n424242'"),
    (lambda d: d["events"][0]["before"]["tensors"][0].__setitem__("grad_fn", "nope"),
     "events[0].before.tensors[0].grad_fn: expected a node id like 'n12'"),
    (lambda d: d["events"][0]["after"]["nodes"][0].__setitem__("kind", "banana"),
     "events[0].after.nodes[0].kind: expected one of"),
    (lambda d: d["events"][0].__setitem__("source", [1, 2]),
     "events[0].source: expected [file, line, text or null]"),
    (lambda d: d.__setitem__("format", "something"), "format: expected 'viewgrad-trace'"),
    (lambda d: d.__setitem__("version", 99), "version: this viewgrad reads version 1"),
    (lambda d: d.__setitem__("events", {}), "events: expected a list"),
])
def test_malformed_json_names_the_field(edit, where):
    d = _doc()
    edit(d)
    with pytest.raises(TraceFormatError) as e:
        loads(json.dumps(d))
    assert where in str(e.value)


def test_bad_json_files(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{not json")
    with pytest.raises(TraceFormatError, match="not valid JSON"):
        load(p)
    with pytest.raises(TraceFormatError, match="cannot read trace file"):
        load(tmp_path / "missing.json")
