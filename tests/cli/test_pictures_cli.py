"""The REPL's picture commands: :storage, :svg in every format, a failing backward shown
where it fails and after the op that caused it, :report keeping backward passes."""
import pytest

from .test_commands import run

pytestmark = pytest.mark.once


def test_storage_command():
    out, _ = run("b = vg.arange(6.).reshape(2, 3).clone()", "d = b.diagonal()",
                 ":storage d", ":storage", ":storage 3")
    assert "b storage" in out and "d: size (2,) stride (4,) offset 0" in out
    assert "storage of what?" in out and "is a int, not a tensor or an event" in out


@pytest.mark.parametrize("ext, magic", [(".svg", b"<?xml"), (".png", b"\x89PNG\r\n\x1a\n"),
                                        (".pdf", b"%PDF-")])
def test_svg_writes_the_format_the_extension_names(tmp_path, ext, magic):
    path = tmp_path / f"g{ext}"
    out, _ = run("a = vg.tensor([1., 2.], requires_grad=True)", "y = (a * 2).sum()",
                 f":svg y {path}")
    assert f"wrote {path}" in out
    assert path.read_bytes()[:len(magic)] == magic


def test_svg_refuses_other_extensions(tmp_path):
    out, _ = run("a = vg.tensor([1., 2.], requires_grad=True)",
                 f":svg a {tmp_path / 'g.jpg'}", f":svg a {tmp_path / 'g'}")
    assert "cannot write .jpg: name the picture .svg, .png or .pdf" in out
    assert "cannot write a file without an extension" in out
    assert not list(tmp_path.iterdir())


def test_failing_backward_error_comes_after_the_op_picture():
    out, _ = run("a = vg.tensor([1., 2., 3.], requires_grad=True)", "b = a * 1",
                 "z = b.pow(2); b.mul_(2); z.sum().backward()")
    op = out.index("b.mul_(2)")
    failed = out.index("PowBackward0 FAILED")
    err = out.rindex("RuntimeError")
    assert op < failed < err, out
    assert "modified by event #0" in out


def test_backward_command_on_a_failing_pass_shows_the_failing_node():
    out, s = run("a = vg.tensor([1., 2., 3.], requires_grad=True)", "b = a * 1",
                 "z = b.pow(2)", "b.mul_(2)", ":backward z.sum()")
    assert "PowBackward0 FAILED" in out and "is at version 1; expected version 0" in out
    assert "FAILS" in out and "modified by event #0" in out
    assert s.stepper is None


def test_report_keeps_backward_passes(tmp_path):
    out, _ = run("a = vg.tensor([1., 2.], requires_grad=True)", "b = a * 1",
                 "b.mul_(2)", "b.sum().backward()", f":report {tmp_path / 'r.html'}")
    page = (tmp_path / "r.html").read_text()
    assert 'id="event-0"' in page and 'id="backward-0-step-0"' in page
    assert page.index('id="event-0"') < page.index('id="backward-0-step-0"')


def test_library_work_under_no_grad_is_folded_and_unfolds():
    out, s = run("lin = vg.nn.Linear(3, 2)")
    assert "2 in-place ops under no_grad: parameter init (Linear.weight.uniform_, " \
           "Linear.bias.uniform_; #0..#1) · :unfold draws them" in " ".join(out.split())
    assert "CopySlices" not in out and "╭─ before" not in out       # not drawn
    assert [e.library for e in s.trace.events] == ["parameter init"] * 2
    out2, _ = run("lin = vg.nn.Linear(3, 2)", ":unfold")
    assert out2.count("╭─ before") == 2
    out3, _ = run("lin = vg.nn.Linear(3, 2)", "opt = vg.optim.SGD(lin.parameters(), lr=0.1)",
                  "lin(vg.ones(1, 3)).sum().backward()", "opt.step()")
    assert "in-place ops under no_grad: optimizer step (lin.weight.add_, lin.bias.add_" \
        in " ".join(out3.split())
    out4, _ = run("x = vg.ones(2).clone()", "x.mul_(2)", ":unfold")
    assert "╭─ before" in out4 and "nothing folded" in out4


def test_svg_names_tensors_after_the_session_variables(tmp_path):
    path = tmp_path / "b.svg"
    run("a = vg.tensor([1., 2.], requires_grad=True)", "b = (a * 2).sum()", f":svg b {path}")
    svg = path.read_text()
    assert ">b</text>" in svg and ">obj</text>" not in svg and "leaf a" in svg
