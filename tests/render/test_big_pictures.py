"""Big graphs and small terminals: long chains collapse, wide fans group, trees stop at a
depth, panels stack at 80 columns, tables never cut a node name, SVGs stay readable."""
import re

from rich.console import Console

import viewgrad as vg
from viewgrad.render.dot import draw
from viewgrad.render.svg import render_source
from viewgrad.render.terminal import render_backward, render_event, render_snapshot


def _text(renderable, width):
    con = Console(record=True, width=width, color_system=None)
    con.print(renderable)
    return con.export_text()


def _chain(n=200):
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    y = a
    for _ in range(n):
        y = y + 1
    return a, y


def _svg_size(svg):
    w, h = re.search(r'width="(\d+)pt" height="(\d+)pt"', svg).groups()
    return int(w), int(h)


def test_a_long_chain_collapses_into_one_box():
    _a, y = _chain()
    src = draw(y, namespace={"y": y}).source
    boxes = re.findall(r'label="… (\d+) more AddBackward0 …"', src)
    assert len(boxes) == 1 and int(boxes[0]) > 40
    assert src.count("<B>AddBackward0</B>") == 4          # two kept at each end
    assert 'class="collapsed"' in src
    w, h = _svg_size(render_source(src, "graphviz-pure"))
    assert w < 600 and h < 900
    full = draw(y, namespace={"y": y}, max_nodes=None).source   # everything: no folding
    assert "more AddBackward0" not in full and full.count("<B>AddBackward0</B>") == 200


def test_a_wide_fan_is_grouped():
    xs = [vg.tensor([float(i)], requires_grad=True) for i in range(200)]
    s = vg.stack([x * 2 for x in xs]).sum()
    src = draw(s, namespace={"s": s}).source
    m = re.search(r'label="… (\d+) more inputs: (\d+) × MulBackward0"', src)
    assert m and m.group(1) == m.group(2)
    assert src.count("<B>MulBackward0</B>") == 6 and 'class="fan"' in src
    w, _h = _svg_size(render_source(src, "graphviz-pure"))
    assert w < 1400                                        # was 7,641 pt


def test_terminal_trees_fold_chains_and_stop_at_a_depth():
    _a, y = _chain()
    out = _text(render_snapshot(vg.trace.snapshot(y, namespace={"y": y})), 80)
    assert re.search(r"… \d+ more AddBackward0 …", out)
    assert max(len(ln) for ln in out.splitlines()) <= 80
    assert out.count("AddBackward0") <= 6
    b = vg.tensor([1.0], requires_grad=True)
    z = b
    for i in range(60):                                    # no chain: alternating ops
        z = z.tanh() if i % 2 else z * 1.5
    out = _text(render_snapshot(vg.trace.snapshot(z, namespace={"z": z}), max_nodes=200),
                200)
    assert "deeper than 24 levels" in out


def test_panels_stack_at_80_columns_and_sit_side_by_side_when_wide():
    from tests.trace.scenarios import SCENARIOS
    ev = SCENARIOS["seed"]["build"]().events[0]
    narrow = _text(render_event(ev), 80)
    lines = narrow.splitlines()
    top = next(i for i, ln in enumerate(lines) if "before" in ln)
    below = next(i for i, ln in enumerate(lines) if ln.startswith("╭─ after"))
    assert below > top and "after" not in lines[top]
    assert "AsStridedBackwa\n" not in narrow and "AsStridedBackward0" in narrow
    wide = _text(render_event(ev), 160)
    header = next(ln for ln in wide.splitlines() if "before" in ln)
    assert "after" in header


def test_tables_never_cut_node_names():
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    with vg.trace() as tr:
        (x * 3).sum().backward()
    bt = tr.backwards[0]
    for width in (80, 120):
        out = _text(render_backward(bt), width)
        assert "…" not in out.replace("→ ready", "")
        assert out.count("AccumulateGrad") >= 2
        assert max(len(ln) for ln in out.splitlines()) <= width
    out = _text(bt.at(3), 80)
    assert "AccumulateGrad → x.grad" in out and "…" not in out


def test_html_report_can_expand_a_collapsed_chain(tmp_path):
    _a, y = _chain(40)
    b = y.clone()
    v = b[0]
    with vg.trace(namespace={"b": b, "v": v}) as tr:
        v.mul_(2)
    page = tr.to_html(tmp_path / "p.html")
    assert "more AddBackward0" in page and '<details class="expand">' in page
    full = page.split('<details class="expand">', 1)[1]
    assert "more AddBackward0" not in full and full.count(">AddBackward0<") >= 40
