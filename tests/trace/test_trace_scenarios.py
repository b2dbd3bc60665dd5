"""The tracer on the canonical scenarios: snapshot contents, diff, explain, summary."""
import pytest

from tests.trace.scenarios import SCENARIOS
from viewgrad.trace import diff, explain

NAMES = sorted(SCENARIOS)


@pytest.fixture(scope="module")
def traces():
    return {name: SCENARIOS[name]["build"]() for name in NAMES}


def _event(traces, name):
    spec = SCENARIOS[name]
    return spec, traces[name].events[spec["event"]]


def _grad_fn_name(snap, label):
    n = snap.grad_fn(label)
    return None if n is None else n.name


@pytest.mark.parametrize("name", NAMES)
def test_event_identity(traces, name):
    spec, ev = _event(traces, name)
    assert ev.op == spec["op"]
    assert ev.tensor == spec["tensor"]
    assert ev.index == spec["event"]
    assert ev.before.focus == ev.after.focus == ev.tensor_id


@pytest.mark.parametrize("name", NAMES)
def test_grad_fn_pointers_before_and_after(traces, name):
    spec, ev = _event(traces, name)
    for label, want in spec["before"].items():
        assert _grad_fn_name(ev.before, label) == want, f"before: {label}.grad_fn"
    for label, want in spec["after"].items():
        assert _grad_fn_name(ev.after, label) == want, f"after: {label}.grad_fn"


@pytest.mark.parametrize("name", NAMES)
def test_edges_after(traces, name):
    spec, ev = _event(traces, name)
    for label, want in spec["after_edges"].items():
        node = ev.after.grad_fn(label)
        assert ev.after.next_names(node.id) == want, f"{label}.grad_fn.next_functions"
    if "wrapped" in spec:
        base = ev.after.tensor(ev.after.tensor(ev.tensor_id).base)
        cs = ev.after.grad_fn(base.label)
        assert cs.kind == "copyslices"
        fn = ev.after.node(cs.wrapped)
        assert fn.name == spec["wrapped"] and fn.kind == "wrapped" and fn.parent == cs.id
        # CopySlices' edge 0 is the base's OLD grad_fn; fn's hidden edge 0 the view's old one
        assert ev.after.out_edges(cs.id)[0].dst == ev.before.tensor(base.id).grad_fn
        hidden = [e for e in ev.after.out_edges(fn.id, hidden=True) if e.hidden]
        assert hidden and hidden[0].dst == ev.before.tensor(ev.tensor_id).grad_fn
        g = cs.geometry
        t = ev.after.tensor(ev.tensor_id)
        assert g.view_sizes == t.shape and g.view_strides == t.stride
        assert g.view_offset == t.offset - base.offset and g.base_sizes == base.shape


@pytest.mark.parametrize("name", NAMES)
def test_diff(traces, name):
    spec, ev = _event(traces, name)
    d = diff(ev.before, ev.after)
    assert sorted(n.name for n in d.added_nodes) == sorted(spec["added"])
    assert sorted(n.name for n in d.removed_nodes) == sorted(spec["removed"])
    assert sorted(t.label for t in d.stale) == sorted(spec["stale"])
    moved = {m.tensor: (m.before_name, m.after_name) for m in d.moved}
    for label, want in spec["after"].items():
        old = spec["before"].get(label)
        b = ev.before.tensor(label).grad_fn
        a = ev.after.tensor(label).grad_fn
        assert (label in moved) == (a != b)
        if label in moved:
            assert moved[label] == (old, want)
    assert isinstance(d.summary(), str) and d.summary()
    assert ev.diff == d


@pytest.mark.parametrize("name", NAMES)
def test_summary_and_explain(traces, name):
    spec, ev = _event(traces, name)
    assert spec["summary"] in ev.summary()
    text = explain(ev)
    statements = [ln.split("#")[0].strip() for ln in text.splitlines()]
    statements = [s for s in statements if s]
    for line in spec["explain"]:
        assert line in statements, f"{line!r} not in:\n{text}"
    assert ev.explain() == text


def test_spec_example_exact_rewrite(traces):
    ev = traces["spec_example"].events[0]
    body = [ln for ln in explain(ev).splitlines() if not ln.startswith("#")]
    assert "; ".join(body) == ("b₀ = b; x₀ = x; x₁ = x₀ * 2; b₁ = b₀.select_scatter(x₁, 0, 0);"
                               " x₂ = b₁.select(0, 0); x = x₂; b = b₁")


def test_seed_snapshot_contents(traces):
    ev = traces["seed"].events[0]
    x = ev.before.tensor("x")
    assert (x.is_view, x.base_label, x.shape, x.offset, x.version) == (True, "b", (), 2, 0)
    assert x.view_fns == (("select", (0, 2)),) and x.roles == ("mutated",)
    b = ev.before.tensor("b")
    assert (b.is_view, b.shape, b.stride, b.roles) == (False, (3,), (1,), ("base",))
    y = ev.before.tensor("y")
    assert y.is_leaf and y.requires_grad and y.roles == ("operand",)
    assert ev.before.node(y.accumulator).name == "AccumulateGrad"
    assert ev.before.node(y.accumulator).variable_label == "y"
    assert ev.after.tensor("x").version == 1 and ev.after.tensor("b").version == 1
    fn = ev.after.node(ev.after.grad_fn("b").wrapped)
    saved = {s.name: s for s in fn.saved}
    assert saved["other"].tensor_label == "y" and saved["other"].saved_version == 0
    assert saved["self"].tensor_label == "x @v0"      # the copy of x's old value (x₀)
    assert saved["self"].text() == "saved self: x @v0"
    assert not fn.broken
    assert ev.source is not None and ev.source.text == "x.mul_(y)"
    assert ev.source.file.endswith("scenarios.py")


def test_base_with_views_stale_links_keep_old_history(traces):
    ev = traces["base_with_views"].events[0]
    for label in ("v", "w"):
        t = ev.after.tensor(label)
        assert t.stale and t.roles == ("view",)
        assert t.grad_fn == ev.before.tensor(label).grad_fn
    assert not ev.before.tensor("v").stale


def test_view_of_view_points_at_the_root_base(traces):
    ev = traces["view_of_view"].events[0]
    s = ev.before.tensor("s")
    assert s.base_label == "m" and s.view_fns == (("select", (0, 0)), ("slice", (0, 1, 3, 1)))
    geo = ev.after.grad_fn("m").geometry
    assert (geo.view_sizes, geo.view_offset, geo.base_sizes) == ((2,), 1, (2, 3))
    exp = ev.after.node(ev.after.grad_fn("m").wrapped)
    (res,) = exp.saved
    assert res.name == "result" and res.is_output and not res.moved


def test_stale_view_before_its_own_op(traces):
    tr = traces["stale_views"]
    first, second = tr.events
    assert [t.label for t in first.diff.stale] == ["v"]
    v = first.after.tensor("v")
    assert v.stale and first.after.node(v.grad_fn).name == "SliceBackward0"
    # v.add_ reads v's history first, which rebuilds it (AsStrided over the first CopySlices)
    v2 = second.before.tensor("v")
    assert not v2.stale and second.before.next_names(v2.grad_fn) == ["CopySlices"]
    assert second.before.grad_fn("b").id == first.after.grad_fn("b").id
    assert not second.after.tensor("v").stale and second.after.tensor("w").stale


def test_optimizer_step_changes_no_graph(traces):
    ev = traces["optimizer_step"].events[0]
    assert not ev.grad_enabled
    d = ev.diff
    assert d.empty and d.versions == (("p", 0, 1),)
    assert ev.before.tensor("p").accumulator == ev.after.tensor("p").accumulator
    assert "grad mode is off" in explain(ev)


def test_saved_result_goes_out_of_date(traces):
    ev = traces["saved_result"].events[0]
    exp_before = ev.before.grad_fn("z")
    assert not exp_before.broken
    exp_after = ev.after.node(exp_before.id)
    (res,) = exp_after.saved
    assert res.moved and (res.saved_version, res.current_version) == (0, 1)
    assert "(now v1) ✗" in res.text()
    assert [(name, s.name) for _nid, name, s in ev.diff.broken] == [("ExpBackward0", "result")]
