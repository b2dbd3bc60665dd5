"""Before | after on one layout: a node present in both panels sits at the same place in
both; what changed is marked (added, moved pointers, bumped versions, stale views and
their regenerated grad_fn, out-of-date saved tensors); a legend; values as torch prints
them."""
import html
import re
import xml.etree.ElementTree as ET

import pytest

import viewgrad as vg
from viewgrad.render.dot import draw
from viewgrad.render.panels import draw_event
from viewgrad.render.svg import render_source
from tests.trace.scenarios import SCENARIOS

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def events():
    return {n: SCENARIOS[n]["build"]().events[SCENARIOS[n]["event"]] for n in SCENARIOS}


def _pos(src):
    """{dot node name: (x, y)} from the fixed positions in the DOT source."""
    return {m.group(1): (float(m.group(2)), float(m.group(3)))
            for m in re.finditer(r'\t(\w+) \[[^\n]*?pos="([-\d.]+),([-\d.]+)!"', src)}


def _bb(src, cluster):
    m = re.search(rf"subgraph {cluster} {{[^}}]*?bb=\"([-\d.]+),", src, re.S)
    return float(m.group(1))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_node_in_both_panels_has_the_same_coordinates(events, name):
    ev = events[name]
    src = draw(ev).source
    pos = _pos(src)
    xb, xa = _bb(src, "cluster_before"), _bb(src, "cluster_after")
    shared = {k[2:] for k in pos if k.startswith("b_")} & {k[2:] for k in pos
                                                           if k.startswith("a_")}
    assert shared
    for k in shared:
        (bx, by), (ax, ay) = pos["b_" + k], pos["a_" + k]
        assert (round(bx - xb, 1), by) == (round(ax - xa, 1), ay), k


def test_same_coordinates_in_the_rendered_svg(events):
    ev = events["seed"]
    root = ET.fromstring(render_source(draw(ev).source, "graphviz-pure"))
    centre, clusters = {}, {}
    for g in root.iter(SVG + "g"):
        t = g.find(SVG + "title")
        shape = g.find(SVG + "polygon") if g.find(SVG + "polygon") is not None \
            else g.find(SVG + "path")
        if t is None or shape is None:
            continue
        nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?",
                                             shape.get("points") or shape.get("d"))]
        box = (min(nums[0::2]), min(nums[1::2]), max(nums[0::2]), max(nums[1::2]))
        if "cluster" in (g.get("class") or ""):
            clusters[t.text] = box
        else:
            centre[t.text] = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    for n in ev.before.nodes:
        if n.kind == "wrapped" or f"a_{n.id}" not in centre:
            continue
        b, a = centre[f"b_{n.id}"], centre[f"a_{n.id}"]
        assert b[0] - clusters["cluster_before"][0] == pytest.approx(
            a[0] - clusters["cluster_after"][0], abs=0.6)
        assert b[1] == pytest.approx(a[1], abs=0.6)


def test_changes_are_marked(events):
    ev = events["seed"]
    src = draw(ev).source
    # versions: every tensor sharing the counter shows the bump, in the after panel only
    for t in ("b", "x"):
        assert re.search(rf"a_\w+ \[[^\n]*@v0 → @v1[^\n]*bumped", src)
    assert src.count("@v0 → @v1") == 2
    # moved pointers: old dashed, new bold
    assert re.search(r'a_t\d+ -> a_n\d+ \[style="dashed"[^\n]*label="old grad_fn"', src)
    assert re.search(r'a_t\d+ -> a_n\d+ \[[^\n]*penwidth="2.5" label="new grad_fn"', src)
    # what the op removed is a faint ghost in "after", what it added invisible in "before"
    removed = [n.id for n in ev.diff.removed_nodes]
    assert all(re.search(rf'\ta_{r} \[[^\n]*class="ghost"', src) for r in removed)
    added = [n.id for n in ev.diff.added_nodes if n.kind != "wrapped"]
    assert all(re.search(rf'\tb_{a} \[[^\n]*style="invis"', src) for a in added)
    # stale views and the grad_fn they regenerate from
    st = draw(events["base_with_views"]).source
    assert 'label="stale"' in st and "read: regenerated as AsStridedBackward0 →" in st
    # out-of-date saved tensors keep the red ✗
    assert "saved result: z @v0 (now v1) ✗" in draw(events["saved_result"]).source


def test_legend_in_svg_and_html(events, tmp_path):
    ev = events["seed"]
    src = html.unescape(draw(ev).source)
    for item in ("tensor", "mutated tensor", "grad_fn node", "leaf's AccumulateGrad",
                 "CopySlices (fn inside)", "added by the op", "out of date",
                 "stale view's grad_fn", "view of: dotted"):
        assert item in src
    tr = SCENARIOS["seed"]["build"]()
    page = tr.to_html(tmp_path / "p.html")
    assert 'class="legend"' in page and "CopySlices" in page


def test_values_are_printed_as_torch_prints_them():
    a = vg.tensor([1.01, 2.0, 3.123456], requires_grad=True)
    b = a * 1
    snap = vg.trace.snapshot(b, namespace={"b": b})
    assert snap.tensor("b").values == "[1.0100, 2.0000, 3.1235]"
    big = vg.arange(100.) * 1.5
    assert vg.trace.snapshot(big[:10], namespace={}).tensors[0].values == \
        "[0.0000, 1.5000, ..., 12.0000, 13.5000]"
    src = draw(b, namespace={"b": b}).source
    assert "1.0099999" not in src and "[1.0100, 2.0000, 3.1235]" in src


def test_html_panels_share_the_layout(events, tmp_path):
    ev = events["view_of_view"]
    b = _pos(draw_event(ev, 60, sides=("before",)).source)
    a = _pos(draw_event(ev, 60, sides=("after",)).source)
    for k in {n[2:] for n in b} & {n[2:] for n in a}:
        assert b["b_" + k] == a["a_" + k]


def _cluster_boxes(svg):
    """[(title text, box left, box right)] of every cluster in a rendered SVG."""
    out = []
    root = ET.fromstring(svg)
    for g in root.iter(SVG + "g"):
        if g.get("class") != "cluster":
            continue
        xs = [float(v) for v in re.findall(r"(-?\d+(?:\.\d+)?),-?\d",
                                            (g.find(SVG + "path") if g.find(SVG + "path")
                                             is not None else g.find(SVG + "polygon"))
                                            .get("d") or "")] if g.find(SVG + "path") \
            is not None else [float(p.split(",")[0]) for p in
                              g.find(SVG + "polygon").get("points").split()]
        text = g.find(SVG + "text")
        out.append((text.text, float(text.get("x")), text.get("text-anchor"), min(xs),
                    max(xs)))
    return out


@pytest.mark.parametrize("layout", ["auto", "fast"])
def test_a_long_title_over_a_small_node_stays_inside_its_box(layout):
    """A panel is as wide as its title when the title is the wider (Graphviz does not
    widen a box it is given): "before: Linear.weight.uniform_()" over one small leaf."""
    from viewgrad.render.fontmetrics import text_width
    lin = vg.nn.Linear(1, 1)
    with vg.trace() as tr:
        with vg.no_grad():
            lin.weight.uniform_(-0.5, 0.5)
    ev = tr.events[-1]
    g = draw(ev, layout=layout)
    boxes = _cluster_boxes(render_source(g.source, "graphviz-pure"))
    assert len(boxes) == 2
    for text, x, anchor, left, right in boxes:
        w = text_width(text, 14)
        start = {"start": x, "middle": x - w / 2, "end": x - w}[anchor]
        assert left <= start and start + w <= right, (text, anchor, x, left, right)
