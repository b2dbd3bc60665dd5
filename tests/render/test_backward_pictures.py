"""A backward pass you can step through: every moment as the engine holds it (partial
sums, ready queue, counts), its pictures (terminal, DOT/SVG), a failing pass; picture
files in every format; the display registry through which trace objects draw."""
import xml.etree.ElementTree as ET

import pytest
from rich.console import Console

import viewgrad as vg
from viewgrad.render.dot import draw, draw_moment
from viewgrad.render.svg import render_source
from viewgrad.trace import backward as TB

SVG = "{http://www.w3.org/2000/svg}"


def _text(renderable, width=100):
    con = Console(record=True, width=width, color_system=None)
    con.print(renderable)
    return con.export_text()


def _classes(svg):
    root = ET.fromstring(svg)
    out = {}
    for g in root.iter(SVG + "g"):
        t = g.find(SVG + "title")
        if t is not None:
            out[t.text] = set((g.get("class") or "").split())
    return out


def _two_paths():
    """a's node gets its gradient in two deliveries, from two different steps."""
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    with vg.trace() as tr:
        a = x * 2
        b = a * 3
        c = a.exp()
        (b + c).sum().backward()
    return x, a, tr.backwards[0]


def test_each_moment_holds_what_the_engine_holds(monkeypatch):
    # what the engine's own buffers, ready queue and counts are after each node ran
    seen = []
    real = TB.Recorder.node

    def spy(self, node, ins, outs, heap, deps, buffers=None):
        seen.append(({TB.IDS.node(fn): tuple(TB._grad_info(g) for g in buf)
                      for fn, buf in buffers.items()},
                     [TB.IDS.node(n) for _p, _c, n in sorted(heap)],
                     {TB.IDS.node(fn): c for fn, c in deps.items()}))
        return real(self, node, ins, outs, heap, deps, buffers)

    monkeypatch.setattr(TB.Recorder, "node", spy)
    _x, a, bt = _two_paths()
    assert len(seen) == len(bt.steps)
    for k, (buffers, queue, counts) in enumerate(seen):
        m = bt.at(k + 1)              # the moment after step k = before step k + 1
        if m.node is not None:
            assert [nid for nid, _n in m.queue] == queue
            assert m.node == queue[0]
        assert {n: b for n, b in m.buffers.items()} == buffers, k
        for nid, c in counts.items():
            assert m.counts[nid] == c
    # the partial sum is visible: exp's node ran first (newer), so a's MulBackward0 holds
    # exp's share, exp(a), while b's share (3) has not arrived yet
    nid = TB.IDS.node(a._grad_fn)
    partial = [m for m in bt.moments() if nid in m.buffers and m.counts[nid] == 1]
    share = a.detach().exp().tolist()
    assert partial and partial[0].buffers[nid][0].values == _fmt(share)
    full = next(m for m in bt.moments() if m.node == nid)
    assert full.buffers[nid][0].values == _fmt([v + 3 for v in share])


def _fmt(vals):
    return "[" + ", ".join(f"{v:.4f}" for v in vals) + "]"


def test_moment_pictures_terminal_and_dot():
    _x, a, bt = _two_paths()
    nid = TB.IDS.node(a._grad_fn)
    k = next(m.k for m in bt.moments() if nid in m.buffers and m.counts.get(nid) == 1)
    m = bt.at(k)
    out = _text(m)
    share = _fmt(a.detach().exp().tolist())
    assert m.title() in out and f"partial: {share}" in out and "ready queue" in out
    src = draw_moment(m).source
    assert f"partial sum: {share}" in src and "waiting for 1 of 2 edges" in src
    assert "runs now" in src and "legend:" in src
    classes = _classes(render_source(src))
    assert "current" in classes[f"g_{m.node}"]
    assert {t for t, c in classes.items() if "done" in c} == {f"g_{d}" for d in m.done}
    # AccumulateGrad's case, with its strides, at the moment it runs
    acc = next(mm for mm in bt.moments() if mm.name == "AccumulateGrad")
    assert "x.grad: stole" in _text(acc) and "x.grad stride (1,)" in _text(acc)
    assert "x.grad: stole" in draw_moment(acc).source


def test_failing_backward_picture_names_node_error_and_blame():
    a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with vg.trace() as tr:
        b = a * 1
        z = b.pow(2)
        b.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()
    bt = tr.backwards[0]
    assert bt.error is not None and bt.error.name == "PowBackward0"
    assert bt.error.blame == 0 and "is at version 1; expected version 0" in bt.error.message
    end = bt.at(len(bt.steps))
    assert end.failing and end.node == bt.failed == TB.IDS.node(z._grad_fn)
    out = _text(end)
    assert "PowBackward0 FAILED" in out and "modified by event #0" in out and "FAILS" in out
    src = draw(bt).source                         # a whole pass draws its end: the failure
    assert "PowBackward0 FAILED" in src
    classes = _classes(render_source(src))
    assert {"current", "failed"} <= classes[f"g_{bt.failed}"]
    # the failure survives a round trip through JSON
    from viewgrad.trace import loads
    back = loads(tr.to_json()).backwards[0]
    assert back.error == bt.error


def test_to_svg_accepts_a_backward_step(tmp_path):
    _x, _a, bt = _two_paths()
    p1 = vg.viz.to_svg(bt, tmp_path / "s2.svg", step=2)
    p2 = vg.viz.to_svg(bt.at(2), tmp_path / "m2.svg")
    one, two = open(p1).read(), open(p2).read()
    assert one == two and f"step 3 of {len(bt.steps)}" in one
    with pytest.raises(IndexError, match="has moments 0 to"):
        bt.at(99)


@pytest.mark.parametrize("ext, magic", [("svg", b"<?xml"), ("png", b"\x89PNG\r\n\x1a\n"),
                                        ("pdf", b"%PDF-1.")])
def test_picture_files_in_every_format(tmp_path, ext, magic):
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    p = vg.viz.to_svg(y, tmp_path / f"y.{ext}")
    data = open(p, "rb").read()
    assert data[:len(magic)] == magic
    if ext == "pdf":
        assert data.rstrip().endswith(b"%%EOF") and b"/Subtype /Image" in data


def test_refuses_an_unknown_extension(tmp_path):
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(ValueError, match=r"cannot write a '\.jpg' file: .*\.svg, \.png or \.pdf"):
        vg.viz.to_svg(x, tmp_path / "x.jpg")
    assert not list(tmp_path.iterdir())


def test_digraph_render_needs_no_system_dot(tmp_path, monkeypatch):
    import shutil
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which",
                        lambda name, *a, **k: None if name == "dot" else real_which(name, *a, **k))
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    out = vg.viz.draw(y).render(tmp_path / "g")
    assert out.endswith("g.svg") and open(out, "rb").read(5) == b"<?xml"
    png = vg.viz.draw(y).render(outfile=tmp_path / "g.png")
    assert open(png, "rb").read(4) == b"\x89PNG"


def test_png_to_pdf_unfilters_every_filter_type():
    import struct
    import zlib
    from viewgrad.render.export import png_to_pdf, _unfilter
    # 2x2 RGB, one row per filter type 0..3 exercised through the decoder
    rows = [bytes([0, 10, 20, 30, 40, 50, 60]), bytes([1, 1, 2, 3, 4, 5, 6]),
            bytes([2, 1, 1, 1, 1, 1, 1]), bytes([3, 0, 0, 0, 0, 0, 0]),
            bytes([4, 0, 0, 0, 0, 0, 0])]
    pix = _unfilter(b"".join(rows), 2, 5, 3)
    assert list(pix[:6]) == [10, 20, 30, 40, 50, 60]
    assert list(pix[6:12]) == [1, 2, 3, 5, 7, 9]          # sub
    assert list(pix[12:18]) == [2, 3, 4, 6, 8, 10]        # up
    assert list(pix[18:24]) == [1, 1, 2, 3, 4, 6]          # average of left and up
    raw = b"".join(rows[:2])
    png = (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
           + _chunk(b"IDAT", zlib.compress(raw)) + _chunk(b"IEND", b""))
    pdf = png_to_pdf(png)
    assert pdf.startswith(b"%PDF-1.4") and b"/Width 2 /Height 2" in pdf


def _chunk(tag, body):
    import struct
    import zlib
    return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))


def test_trace_objects_draw_through_the_display_registry():
    from viewgrad.trace import display
    _x, _a, bt = _two_paths()
    assert "<svg" in bt.at(1)._repr_svg_()[:600]
    assert "runs now" in _text(bt.at(1))
    with pytest.raises(display.NoPainter, match="import viewgrad.render"):
        display.paint("nothing", "svg", bt)


def test_a_copyslices_moment_shows_its_buffer():
    a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with vg.trace() as tr:
        b = a.clone()
        b[1:].mul_(2)
        (b * b).sum().backward()
    bt = tr.backwards[0]
    m = next(m for m in bt.moments() if m.name == "CopySlices")
    src = draw_moment(m).source
    assert "CopySlices" in src and "runs now" in src and "buffer: [2., 8., 12.]" in src
