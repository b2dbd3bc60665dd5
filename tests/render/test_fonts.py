"""Every label fits its box, measured with a REAL font file of the family the SVG names.

Pictures name "DejaVu Sans" (then Verdana, then sans-serif) and lay out with its metrics
(viewgrad/render/fontmetrics.py). Here each <text> of each picture is measured with
DejaVuSans.ttf / DejaVuSans-Bold.ttf (read by tests/render/ttf.py, independently of
viewgrad's table) and must lie inside the smallest shape of its node or cluster that
contains it. Skipped, saying why, where the font file is not on the machine.
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

import pytest

import viewgrad as vg
from viewgrad.render import svg as S
from viewgrad.render.fontmetrics import FONT_FAMILY, text_width

sys.path.insert(0, os.path.dirname(__file__))
from ttf import TTF  # noqa: E402

pytestmark = pytest.mark.once

SVG = "{http://www.w3.org/2000/svg}"
FONT_DIRS = [os.environ.get("VIEWGRAD_TEST_FONT_DIR", ""), "/usr/share/fonts/truetype/dejavu",
             "/usr/share/fonts/TTF", "/usr/share/fonts/dejavu", "/usr/local/share/fonts",
             os.path.expanduser("~/.fonts"), "/Library/Fonts", "C:/Windows/Fonts"]


def _font(name):
    for d in FONT_DIRS:
        if d:
            hits = glob.glob(os.path.join(d, "**", name), recursive=True)
            if hits:
                return hits[0]
    return None


REGULAR, BOLD = _font("DejaVuSans.ttf"), _font("DejaVuSans-Bold.ttf")
needs_font = pytest.mark.skipif(
    not (REGULAR and BOLD), reason="DejaVuSans.ttf / DejaVuSans-Bold.ttf not found on this "
    "machine (set VIEWGRAD_TEST_FONT_DIR, or install fonts-dejavu to run this check)")
needs_pure = pytest.mark.skipif(S._pure() is None, reason="graphviz-pure is not installed")


def _points(el):
    if el.tag == SVG + "polygon":
        nums = re.findall(r"-?\d+(?:\.\d+)?", el.get("points", ""))
    else:
        nums = re.findall(r"-?\d+(?:\.\d+)?", el.get("d", ""))
    xs, ys = [float(v) for v in nums[0::2]], [float(v) for v in nums[1::2]]
    return min(xs), min(ys), max(xs), max(ys)


def _boxes(g):
    return [_points(el) for el in list(g.iter(SVG + "polygon")) + list(g.iter(SVG + "path"))
            if (el.get("points") or el.get("d"))]


def _measure(t, fonts):
    size = float(t.get("font-size", "14"))
    bold = t.get("font-weight") == "bold"
    return fonts[bold].width(t.text or "", size)


def misfits(svg_text, fonts):
    """[(group title, text, overflow in points)] of labels that spill out of their box."""
    root = ET.fromstring(svg_text)
    out = []
    for g in root.iter(SVG + "g"):
        cls = (g.get("class") or "").split()
        if not ({"node", "cluster"} & set(cls)) or "ghost" in cls:
            continue
        title = g.find(SVG + "title").text
        family = None
        boxes = _boxes(g)
        for t in g.findall(SVG + "text"):
            family = (t.get("font-family") or "").split(",")[0].strip()
            assert family == FONT_FAMILY, f"{title}: text in {family!r}, laid out for DejaVu"
            if not (t.text or "").strip() or not boxes:
                continue
            x, y = float(t.get("x")), float(t.get("y"))
            w = _measure(t, fonts)
            anchor = t.get("text-anchor", "start")
            left = x - w / 2 if anchor == "middle" else (x - w if anchor == "end" else x)
            inside = [b for b in boxes if b[0] - 0.5 <= x <= b[2] + 0.5
                      and b[1] - 0.5 <= y <= b[3] + 0.5]
            if not inside:
                out.append((title, t.text, float("inf")))
                continue
            b = min(inside, key=lambda b: (b[2] - b[0]) * (b[3] - b[1]))
            over = max(b[0] - left, (left + w) - b[2])
            if over > 0.5:
                out.append((title, t.text, round(over, 1)))
    return out


def _pictures():
    from tests.trace.scenarios import SCENARIOS
    from viewgrad.render.storage import draw_storage
    from viewgrad.render.svg import render_source
    out = {}
    for name in ("seed", "view_of_view", "base_with_views", "saved_result", "setitem"):
        ev = SCENARIOS[name]["build"]().events[SCENARIOS[name]["event"]]
        out[f"event {name}"] = render_source(vg.viz.draw(ev).source, "graphviz-pure")
        out[f"storage {name}"] = render_source(draw_storage(ev).source, "graphviz-pure")
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    with vg.trace() as tr:
        a = x * 2
        (a * 3 + a.exp()).sum().backward()
    bt = tr.backwards[0]
    for k in range(len(bt.steps)):
        out[f"moment {k}"] = render_source(vg.viz.draw(bt.at(k)).source, "graphviz-pure")
    model = vg.nn.Sequential(vg.nn.Linear(3, 2), vg.nn.Tanh())
    loss = model(vg.randn(4, 3)).sum()
    out["mlp"] = render_source(vg.viz.draw(loss, namespace={"model": model, "loss": loss})
                               .source, "graphviz-pure")
    return out


@needs_font
@needs_pure
def test_every_label_fits_its_box_with_the_real_font():
    fonts = {False: TTF(REGULAR), True: TTF(BOLD)}
    bad = {}
    for name, svg in _pictures().items():
        m = misfits(svg, fonts)
        if m:
            bad[name] = m[:5]
    assert not bad, f"labels spilling out of their boxes (points): {bad}"


@needs_font
def test_bundled_metrics_match_the_font_file():
    fonts = {False: TTF(REGULAR), True: TTF(BOLD)}
    sample = "MulBackward0 saved self: x @v0 (now v1) ✗ [1.0100, 2.0000] → ⋯ model.0.weight"
    for bold in (False, True):
        assert text_width(sample, 12, bold) == pytest.approx(fonts[bold].width(sample, 12),
                                                             rel=1e-3)


@needs_font
def test_the_checker_catches_a_spilling_label():
    fonts = {False: TTF(REGULAR), True: TTF(BOLD)}
    svg = ('<svg xmlns="http://www.w3.org/2000/svg"><g class="node"><title>n</title>'
           '<polygon points="0,0 40,0 40,-20 0,-20 0,0"/><text text-anchor="middle" x="20" '
           'y="-5" font-family="DejaVu Sans,sans-serif" font-size="14">AccumulateGrad</text>'
           "</g></svg>")
    assert misfits(svg, fonts) and misfits(svg, fonts)[0][0] == "n"
