"""DOT and SVG pictures: both clusters, the expected labels, the highlight on exactly the
added nodes, saved versions in red, collapse of big graphs, both renderers, bad renderers.
"""
import shutil
import xml.etree.ElementTree as ET

import graphviz
import pytest

import viewgrad as vg
from viewgrad.render import svg as S
from viewgrad.render.dot import ADDED_FILL, draw
from tests.trace.scenarios import SCENARIOS

SVG = "{http://www.w3.org/2000/svg}"


def _available(r):
    try:
        S.find_renderer(r)
        return True
    except S.RendererNotFound:
        return False


RENDERERS = [pytest.param(r, marks=pytest.mark.skipif(
    not _available(r), reason=f"renderer {r!r} not installed here "
    f"({'apt-get install graphviz' if r == 'dot' else 'pip install graphviz-pure'})"))
    for r in ("dot", "graphviz-pure")]


@pytest.fixture(scope="module")
def events():
    return {n: SCENARIOS[n]["build"]().events[SCENARIOS[n]["event"]] for n in SCENARIOS}


def _parse(svg_text):
    root = ET.fromstring(svg_text)
    groups = {}
    for g in root.iter(SVG + "g"):
        title = g.find(SVG + "title")
        if title is not None:
            groups[title.text] = g
    return root, groups


def _texts(g):
    return " ".join(t.text or "" for t in g.iter(SVG + "text"))


def _classes(g):
    return set((g.get("class") or "").split())


@pytest.mark.parametrize("renderer", RENDERERS)
@pytest.mark.parametrize("name", ["seed", "view_of_view", "setitem", "saved_result",
                                  "base_with_views"])
def test_event_svg(events, name, renderer, tmp_path):
    ev = events[name]
    path = vg.viz.to_svg(ev, tmp_path / "ev.svg", renderer=renderer)
    _root, groups = _parse(open(path, encoding="utf-8").read())
    # both clusters
    assert "cluster_before" in groups and "cluster_after" in groups
    # the expected node labels, in each cluster
    for prefix, snap in (("b", ev.before), ("a", ev.after)):
        for n in snap.nodes:
            if n.kind == "wrapped":
                continue       # drawn inside its CopySlices
            g = groups[f"{prefix}_{n.id}"]
            assert n.name in _texts(g)
            if n.kind == "copyslices":
                assert snap.node(n.wrapped).name in _texts(g)
        for t in snap.tensors:
            assert t.label in _texts(groups[f"{prefix}_{t.id}"])
    # the highlight is on exactly the nodes the op added
    added = {f"a_{n.id}" for n in ev.diff.added_nodes if n.kind != "wrapped"}
    highlighted = {title for title, g in groups.items() if "added" in _classes(g)}
    assert highlighted == added and added
    filled = {title for title, g in groups.items()
              if title != f"event{ev.index}"        # the graph itself: its legend's sample
              and any(p.get("fill", "").lower() == ADDED_FILL
                      for p in g.findall(SVG + "path") + g.findall(SVG + "polygon"))}
    assert filled == added


@pytest.mark.parametrize("renderer", RENDERERS)
def test_moved_saved_version_is_red(events, renderer):
    ev = events["saved_result"]
    svg = S.render_svg_text(ev, renderer=renderer)
    _root, groups = _parse(svg)
    exp = ev.after.grad_fn("z")
    exp = ev.after.node(ev.after.out_edges(exp.id)[0].dst)
    g = groups[f"a_{exp.id}"]
    red = [t.text for t in g.iter(SVG + "text") if (t.get("fill") or "").lower() == "#c62828"]
    assert any("saved result: z @v0 (now v1)" in (t or "") for t in red)
    before = groups[f"b_{exp.id}"]
    assert not [t for t in before.iter(SVG + "text") if t.get("fill") == "#c62828"]


@pytest.mark.parametrize("renderer", RENDERERS)
def test_stale_link_dashed(events, renderer):
    ev = events["base_with_views"]
    _root, groups = _parse(S.render_svg_text(ev, renderer=renderer))
    v = ev.after.tensor("v")
    edge = groups[f"a_{v.id}->a_{v.grad_fn}"]
    path = edge.find(SVG + "path")
    assert path.get("stroke-dasharray") and "stale" in _texts(edge)
    edge0 = groups[f"b_{v.id}->b_{v.grad_fn}"]
    assert not edge0.find(SVG + "path").get("stroke-dasharray")


def test_draw_returns_a_digraph_for_every_kind(events):
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    y = (a * 2).sum()
    for obj in (events["seed"], events["seed"].after, y, [y, a]):
        g = draw(obj)
        assert isinstance(g, graphviz.Digraph)
    assert "cluster_graph" in draw(y).source
    assert "<B>y</B>" in draw(y).source and "<B>y</B>" in vg.viz.draw(y).source  # caller's name
    assert 'label=<<TABLE' in draw(y).source
    with pytest.raises(TypeError, match="cannot draw a int"):
        draw(3)


def test_repr_svg(events):
    ev = events["seed"]
    for obj in (ev, ev.after, draw(ev)):
        svg = obj._repr_svg_()
        assert svg.lstrip().startswith("<?xml") or "<svg" in svg[:400]
        ET.fromstring(svg)


def test_big_graph_collapses_with_a_marker():
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    b = a
    for i in range(400):        # a long history upstream of b
        b = (b * 1.01 + a) if i % 2 else b.tanh()
    x = b[0]
    with vg.trace(namespace={"b": b, "x": x}) as tr:
        x.mul_(2)
    ev = tr.events[0]
    g = draw(ev, max_nodes=30)
    src = g.source
    assert "more nodes" in src
    _root, groups = _parse(S.render_svg_text(ev, max_nodes=30))
    nodes = [t for t, gg in groups.items() if "gnode" in _classes(gg)]
    assert len([t for t in nodes if t.startswith("a_")]) <= 30
    assert "a_more" in groups and "more nodes" in _texts(groups["a_more"])
    added = {f"a_{n.id}" for n in ev.diff.added_nodes if n.kind != "wrapped"}
    assert added <= set(nodes)          # what the op added is always shown


def test_renderer_choice_and_errors(monkeypatch):
    monkeypatch.setenv(S.ENV_VAR, "graphviz-pure")
    if _available("graphviz-pure"):
        assert S.find_renderer()[0] == "graphviz-pure"
    monkeypatch.setenv(S.ENV_VAR, "nonsense")
    with pytest.raises(S.RendererNotFound, match=f"unknown renderer 'nonsense' .*{S.ENV_VAR}"):
        S.find_renderer()
    monkeypatch.delenv(S.ENV_VAR)
    with pytest.raises(S.RendererNotFound, match="not an executable"):
        S.find_renderer("/no/such/dot")
    # no binary at all: the message says how to get one
    monkeypatch.setattr(S, "_pure", lambda: None)
    monkeypatch.setattr(shutil, "which", lambda *_a, **_k: None)
    with pytest.raises(S.RendererNotFound, match="pip install graphviz-pure"):
        S.find_renderer()
    with pytest.raises(S.RendererNotFound, match="apt-get install graphviz"):
        S.find_renderer("dot")
    with pytest.raises(S.RendererNotFound, match="pip install graphviz-pure"):
        S.find_renderer("graphviz-pure")


def test_graphviz_pure_is_found_next_to_python():
    exe = S._pure()
    if exe is None:
        pytest.skip("graphviz-pure is not installed in this environment")
    assert exe.endswith("graphviz-pure")


def test_big_graph_fast_layout_draws_every_node():
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    y = a
    for i in range(200):
        y = (y * 1.01 + a) if i % 2 else y.tanh()
    g = draw(y, max_nodes=None)                 # > 150 nodes: viewgrad's own layout
    assert g.source.startswith("// viewgrad:fixed-layout") and 'pos="' in g.source
    _root, groups = _parse(S.render_svg_text(y, max_nodes=None))
    assert "cluster_graph" in groups
    assert len([t for t, gg in groups.items() if "gnode" in _classes(gg)]) == 301
    with pytest.raises(ValueError, match="layout must be"):
        draw(y, layout="spring")
