"""Terminal rendering (rich) and the `viewgrad demo` / `viewgrad run` commands."""
import os
import xml.etree.ElementTree as ET

import pytest
from rich.console import Console

import viewgrad as vg
from viewgrad.render.terminal import render_event, render_snapshot
from viewgrad.trace import load, snapshot
from tests.trace.scenarios import SCENARIOS


def _text(renderable, width=170):
    con = Console(record=True, width=width, color_system=None)
    con.print(renderable)
    return con.export_text()


@pytest.fixture(scope="module")
def seed_event():
    return SCENARIOS["seed"]["build"]().events[0]


def test_event_before_after_columns_with_marks(seed_event):
    out = _text(render_event(seed_event))
    lines = out.splitlines()
    header = next(ln for ln in lines if "before" in ln and "after" in ln)
    assert header.index("before") < header.index("after")   # side by side
    assert "+ CopySlices(fn=MulBackward0)" in out
    assert "+ AsStridedBackward0" in out
    assert "- SelectBackward0" in out
    assert "↑ CloneBackward0" in out                          # shared node: back-reference
    assert "b₁ = b₀.select_scatter(x₁, 0, 2)" in out          # the explanation
    assert seed_event.summary() in " ".join(out.split())


def test_compact_event_shows_only_the_tensor_and_its_base(seed_event):
    out = _text(render_event(seed_event, compact=True))
    assert "CopySlices" in out and "functionalized" not in out
    assert "y  []" not in out


def test_stale_view_and_out_of_date_saved_tensor_are_marked():
    out = _text(render_event(SCENARIOS["base_with_views"]["build"]().events[0]))
    assert "stale grad_fn → SelectBackward0" in out
    out = _text(render_event(SCENARIOS["saved_result"]["build"]().events[0]))
    assert "saved result: z @v0 (now v1) ✗" in out


def test_snapshot_tree_is_collapsed_and_iterative():
    a = vg.tensor([1.0], requires_grad=True)
    y = a
    for _ in range(3000):
        y = y + 1
    s = snapshot(y, max_nodes=5000)
    out = _text(render_snapshot(s))
    assert "more node" in out and out.count("AddBackward0") <= 60
    out = _text(render_snapshot(s, max_nodes=None), width=400)  # 3000 deep, no recursion
    assert out.count("AddBackward0") >= 50


def test_rich_protocol_on_events_and_snapshots(seed_event):
    assert "CopySlices" in _text(seed_event)
    assert "CopySlices" in _text(seed_event.after)


# -- commands ---------------------------------------------------------------------------

def _commands():
    import viewgrad_cli.commands as C
    return C


def test_demo_prints_and_writes_svg(tmp_path, capsys):
    path = tmp_path / "demo.svg"
    assert _commands().demo(["--svg", str(path), "--width", "160"]) == 0
    out = capsys.readouterr().out
    assert "CopySlices" in out and str(path) in out
    ET.parse(path)


def test_main_dispatches_demo_and_run(tmp_path, capsys):
    from viewgrad_cli.main import main
    assert main(["demo", "--svg", ""]) == 0
    assert "MulBackward0" in capsys.readouterr().out


SCRIPT = """
import sys
import viewgrad as vg
a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.clone()
x = b[1]
x.mul_(2)
b.add_(float(sys.argv[1]))
"""


def test_run_traces_a_script(tmp_path, capsys):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    svgs, js = tmp_path / "svg", tmp_path / "t.json"
    rc = _commands().run([str(script), "--svg-dir", str(svgs), "--json", str(js),
                          "--width", "200", "--", "5"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "#0 x.mul_(2): x is a view of b" in out and "#1 b.add_(5.0)" in out
    files = sorted(os.listdir(svgs))
    assert files == ["event-000-mul.svg", "event-001-add.svg"]
    for f in files:
        ET.parse(svgs / f)
    tr = load(js)
    assert [e.op for e in tr.events] == ["mul_", "add_"]
    assert tr.events[0].source.text == "x.mul_(2)"


def test_run_reports_a_failing_script_and_keeps_the_trace(tmp_path, capsys):
    script = tmp_path / "bad.py"
    script.write_text(SCRIPT + "raise ValueError('boom')\n")
    js = tmp_path / "t.json"
    assert _commands().run([str(script), "--json", str(js), "--", "1"]) == 1
    captured = capsys.readouterr()
    assert "ValueError: boom" in captured.err and "runpy" not in captured.err
    assert len(load(js).events) == 2


def test_run_bad_usage(tmp_path, capsys):
    assert _commands().run([str(tmp_path / "nope.py")]) == 2
    assert "no such script" in capsys.readouterr().err
