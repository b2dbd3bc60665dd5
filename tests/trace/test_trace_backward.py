"""Backward passes recorded step by step: topological order, dependency counts, the ready
queue, AccumulateGrad's layout-contract cases; and their pictures."""
import xml.etree.ElementTree as ET

from rich.console import Console

import viewgrad as vg
from viewgrad.render.dot import draw_backward_step
from viewgrad.render.svg import render_source
from viewgrad.render.terminal import render_backward


def _diamond():
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    with vg.trace() as tr:
        a = x * 2
        b = a + a
        c = (b + b).sum()
        c.backward()
    return x, tr


def test_one_step_per_node_in_topological_order():
    x, tr = _diamond()
    (bt,) = tr.backwards
    assert bt.order == ["GraphRoot", "SumBackward0", "AddBackward0", "AddBackward0",
                        "MulBackward0", "AccumulateGrad"]
    g = bt.graph
    pos = {s.node: s.index for s in bt.steps}
    assert len(pos) == len(bt.steps)                       # each node ran exactly once
    for e in g.edges:
        if e.src in pos and e.dst in pos:
            assert pos[e.src] < pos[e.dst], "a node ran before one of its users"
    assert x.grad.tolist() == [8.0, 8.0]
    assert bt.source is not None and bt.source.text == "c.backward()"


def test_dependency_counts_and_released_nodes():
    _x, tr = _diamond()
    bt = tr.backwards[0]
    deps = {bt.graph.node(n).name + "@" + n: c for n, c in bt.deps0}
    by_name = {}
    for k, c in deps.items():
        by_name.setdefault(k.split("@")[0], []).append(c)
    assert by_name["MulBackward0"] == [2]                  # a = x * 2 is used twice by b
    assert sorted(by_name["AddBackward0"]) == [1, 2]       # c's node once, b's twice
    assert by_name["SumBackward0"] == [1] and by_name["AccumulateGrad"] == [1]
    step = bt.steps[2]                                     # c's AddBackward0: both edges
    assert [(n, left) for _i, n, left in step.lowered] == [("AddBackward0", 0)]
    assert step.released == ((bt.steps[3].node, "AddBackward0"),)
    assert [g.values for g in bt.steps[3].inputs] == ["[2., 2.]"]    # summed, as torch prints
    assert bt.naive_order().count("MulBackward0") == 4     # depth first: once per path
    assert bt.order.count("MulBackward0") == 1


def test_ready_queue_holds_the_waiting_nodes():
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    w = vg.tensor([3.0, 4.0], requires_grad=True)
    with vg.trace() as tr:
        (x * w).sum().backward()
    bt = tr.backwards[0]
    mul = bt.steps[2]
    assert mul.name == "MulBackward0"
    assert [n for _i, n, _left in mul.lowered] == ["AccumulateGrad", "AccumulateGrad"]
    first_acc = bt.steps[3]
    assert first_acc.name == "AccumulateGrad" and len(first_acc.ready) == 1


def test_accumulate_grad_cases():
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    with vg.trace() as tr:
        (x * 3).sum().backward()
        (x * 3).sum().backward()
        (x * 3).sum().backward(create_graph=True)
    acts = [[(s.variable, s.accumulate) for s in bt.steps if s.name == "AccumulateGrad"]
            for bt in tr.backwards]
    assert acts[0] == [("x", "stole")]  # a fresh gradient nobody else holds
    assert acts[1] == [("x", "accumulated in place")]
    assert acts[2] == [("x", "accumulated out of place")]
    # a non-contiguous dense parameter: the gradient is copied into its strides
    p = vg.tensor([[1.0, 2.0], [3.0, 4.0]]).t().detach().requires_grad_()
    with vg.trace() as tr:
        (p * 2).sum().backward()
    (step,) = [s for s in tr.backwards[0].steps if s.name == "AccumulateGrad"]
    assert step.accumulate == "copied" and p.grad.stride() == p.stride()


def test_backward_recording_can_be_off_and_leaves_the_engine_alone():
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    with vg.trace(record_backward=False) as tr:
        (x * x).sum().backward()
    assert tr.backwards == []
    from viewgrad.autograd.state import state
    assert state.backward_observer is None


def test_backward_pictures():
    _x, tr = _diamond()
    bt = tr.backwards[0]
    con = Console(record=True, width=180, color_system=None)
    con.print(render_backward(bt))
    out = con.export_text()
    assert "x.grad: stole" in out and "→ ready" in out
    svg = render_source(draw_backward_step(bt, 3).source)
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    classes = {g.find(ns + "title").text: g.get("class") for g in root.iter(ns + "g")
               if g.find(ns + "title") is not None}
    cur = [t for t, c in classes.items() if c and "current" in c.split()]
    done = [t for t, c in classes.items() if c and "done" in c.split()]
    assert cur == [f"g_{bt.steps[3].node}"]
    assert sorted(done) == sorted(f"g_{s.node}" for s in bt.steps[:3])


def test_backward_passes_round_trip_through_json(tmp_path):
    from viewgrad.trace import TraceFormatError, load, loads
    import json
    _x, tr = _diamond()
    back = load(tr.to_json(tmp_path / "t.json"))
    assert back.backwards == tr.backwards and back.backwards[0].order == tr.backwards[0].order
    assert back.order == tr.order == [("backward", 0)]
    d = json.loads(tr.to_json())
    d["backward"][0]["steps"][1]["node"] = "n0"
    try:
        loads(json.dumps(d))
    except TraceFormatError as e:
        assert "backward[0].steps[1].node: names node 'n0'" in str(e)
    else:
        raise AssertionError("a step naming an unknown node was accepted")


def test_record_backward_helper():
    from viewgrad.trace import record_backward
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    bt = record_backward(y, retain_graph=True)
    assert bt.order[0] == "GraphRoot" and bt.order[-1] == "AccumulateGrad"
    assert x.grad.tolist() == [2.0, 4.0]
    assert record_backward(y).order == bt.order          # graph retained the first time
