"""Every label of every committed tutorial picture lies inside its box: each text of a
node or cluster group is measured with the font the picture names (DejaVu Sans advance
widths: viewgrad/render/fontmetrics.py) and compared with the group's own outline. (A
picture whose long cluster title ran past its box, 11-step7-event3, is what this
catches.)"""
import glob
import os
import re
import xml.etree.ElementTree as ET

import pytest

from viewgrad.render.fontmetrics import text_width

SVG = "{http://www.w3.org/2000/svg}"
PICTURES = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "..", "tutorials",
                                         "pictures", "*.svg")))
SLACK = 1.0   # points: rounding in Graphviz's output


def spills(svg_text):
    """[(group class, text, text extent, box extent)] for each text outside its box."""
    out = []
    for g in ET.fromstring(svg_text).iter(SVG + "g"):
        kind = g.get("class")
        if kind not in ("cluster", "node"):
            continue
        outline = next((c for c in g if c.tag in (SVG + "polygon", SVG + "path")), None)
        if outline is None:
            continue
        xs = [float(v) for v in re.findall(r"(-?\d+(?:\.\d+)?),-?\d",
                                            outline.get("points") or outline.get("d") or "")]
        if not xs:
            continue
        left, right = min(xs), max(xs)
        for t in g.iter(SVG + "text"):
            if not t.text:
                continue
            w = text_width(t.text, float(t.get("font-size", "14")),
                           bold=t.get("font-weight") == "bold")
            x = float(t.get("x"))
            start = {"start": x, "middle": x - w / 2, "end": x - w}[t.get("text-anchor",
                                                                          "start")]
            if start < left - SLACK or start + w > right + SLACK:
                out.append((kind, t.text, (round(start), round(start + w)),
                            (round(left), round(right))))
    return out


def test_the_check_sees_a_title_past_its_box():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg"><g class="cluster">'
           '<polygon points="9,-8 9,-130 193,-130 193,-8 9,-8"/>'
           '<text text-anchor="start" x="17" y="-110" font-size="14.00">'
           'before: Linear.weight.uniform_()</text></g></svg>')
    assert [s[1] for s in spills(svg)] == ["before: Linear.weight.uniform_()"]


@pytest.mark.host_only("reads committed files; the device does not matter")
@pytest.mark.parametrize("path", PICTURES, ids=os.path.basename)
def test_every_label_lies_inside_its_box(path):
    with open(path, encoding="utf-8") as f:
        assert spills(f.read()) == []
