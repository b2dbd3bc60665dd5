"""Every colon command works, and a wrong one gets a short message while the prompt comes
back."""
import pytest

from .replkit import drive, new_session

# the REPL does not depend on the test pass's device: run it in the first pass only
pytestmark = pytest.mark.once

SEED = ("a = vg.tensor([1.,2.,3.], requires_grad=True); b = a.clone(); x = b[2]; "
        "y = vg.tensor(4., requires_grad=True); x.mul_(y)")


def run(*lines, trace=True):
    s, buf = new_session(trace=trace)
    for line in lines:
        s.handle(line)
    return buf.getvalue(), s


def test_help():
    out, _ = run(":help", ":help svg", ":h")
    for c in (":graph EXPR", ":svg EXPR FILE", ":trace", ":events", ":show N", ":diff N",
              ":explain N", ":save FILE", ":load FILE", ":tutorial [N]", ":reset", ":quit"):
        assert c in out
    assert "Writes a picture" in out


def test_graph():
    out, _ = run("a = vg.tensor([1.,2.], requires_grad=True)", "b = (a * 2).sum()",
                 ":graph b", ":graph b --depth 1", ":graph b.grad_fn", ":graph 3",
                 ":graph nope", ":graph")
    assert "SumBackward0" in out
    assert "is a int, not a tensor" in out
    assert "NameError" in out
    assert "draw what?" in out and "usage: :graph EXPR" in out


def test_svg_writes_the_picture(tmp_path):
    out, _ = run(SEED, ":svg b out.svg", ":svg #0 event.svg", ":svg b", ":svg b /no/such/dir/x.svg")
    assert "wrote out.svg" in out and "wrote event.svg" in out
    svg = (tmp_path / "out.svg").read_text()
    assert "<svg" in svg
    assert "missing the file name" in out and "does not exist" in out


def test_events_show_diff_explain():
    out, s = run(":events", SEED, ":events", ":show 0", ":show #0", ":show -1", ":diff 0",
                 ":explain 0", ":show 5", ":show x", ":diff", ":explain")
    assert "no in-place events yet" in out
    assert "mul_" in out
    assert "no event #5" in out and "is not an event number" in out and "which event?" in out
    assert out.count("usage: :diff N") == 1 and out.count("usage: :explain N") == 1


def test_save_and_load(tmp_path):
    out, s = run(SEED, ":save trace.json", ":load trace.json", ":events", ":show 1",
                 ":load missing.json", ":save")
    assert (tmp_path / "trace.json").exists()
    assert "saved 1 event to trace.json" in out
    assert "loaded 1 event as #1 from trace.json" in out
    assert "no file missing.json" in out and "give exactly one file name" in out
    assert len(s.trace.events) == 2


def test_trace_bad_argument():
    out, s = run(":trace maybe", ":trace off", ":trace")
    assert "not 'maybe'" in out and "usage: :trace [on|off]" in out
    assert "trace off" in out and not s.trace.enabled


def test_reset():
    out, s = run("v = vg.ones(2)", SEED, ":reset", "v", "vg.ones(1)")
    assert "fresh namespace" in out and "NameError" in out and len(s.trace) == 0
    assert "tensor([1.])" in out


def test_unknown_and_quit():
    out, s = drive(":nope\r", ":grap b\r", ":\r", "print('back')\r", ":quit\r", "print('gone')\r")
    assert "unknown command :nope" in out and "did you mean :graph?" in out
    assert "back" in out and "gone" not in out


def test_tutorial_none():
    out, _ = run(":tutorial", ":tutorial 1")
    assert "no tutorials found" in out and "no tutorial 1" in out


TUTORIAL = """# Views and in-place

A view shares memory with its base.

```python
a = vg.tensor([1., 2., 3.], requires_grad=True)
b = a.clone()
```

Now change the view in place:

```python
x = b[2]
x.mul_(2)
```

```text
# not a heading, not a step
```

That was CopySlices at work.
"""


def test_tutorial_lists_and_plays(tmp_path, monkeypatch):
    d = tmp_path / "tuts"
    d.mkdir()
    (d / "01-views.md").write_text(TUTORIAL)
    (d / "02-empty.md").write_text("# Nothing here\n")
    monkeypatch.setenv("VIEWGRAD_TUTORIALS", str(d))
    out, s = run(":tutorial", ":tutorial 2", ":tutorial x")
    assert "Views and in-place" in out and "Nothing here" in out
    assert "has no ```python" in out and "not a tutorial number" in out
    # interactive: each step's code is put on the prompt; Enter runs it
    out, s = drive(":tutorial 1\r", "\r", "\r", "print(b.grad_fn.name())\r")
    assert "step 1/2" in out and "step 2/2" in out
    assert "Now change the view in place" in out and "That was CopySlices at work" in out
    assert "end of tutorial 1" in out
    assert "CopySlices" in out.split("end of tutorial 1")[1]
    # Ctrl-C on a step's prompt stops the walkthrough
    out, s = drive(":tutorial 1\r", "\x03", "print('free')\r")
    assert "tutorial stopped" in out and "free" in out and "step 2/2" not in out


def test_tutorial_format_parser():
    from viewgrad_cli.tutorials import parse
    t = parse(TUTORIAL, "01-views.md", 1)
    assert t.title == "Views and in-place"
    assert [st.code for st in t.steps] == [
        "a = vg.tensor([1., 2., 3.], requires_grad=True)\nb = a.clone()",
        "x = b[2]\nx.mul_(2)"]
    assert t.steps[0].prose == "A view shares memory with its base."
    assert "CopySlices at work" in t.outro and "# not a heading" in t.outro


def test_backward_steps_one_node_per_enter():
    s, buf = new_session(trace=True)
    s.interactive = True  # stepping waits for Enter only at a real prompt
    for line in ("x = vg.tensor(1.0, requires_grad=True)", "a = x * 2; b = a + a; c = b + b",
                 ":backward c"):
        s.handle(line)
    out = buf.getvalue()
    assert "backward #0: 5 nodes ran" in out and "step 1/5" in out
    assert s.stepper is not None
    for _ in range(4):
        s.handle("")            # Enter: the next node
    out = buf.getvalue()
    assert "x.grad: stole" in out and "A naive depth-first walk would have run" in out
    assert s.stepper is None
    s.handle("x.grad")
    assert "tensor(8.)" in buf.getvalue()


def test_backward_in_a_transcript_and_bad_arguments():
    out, s = run("x = vg.tensor([1.0, 2.0], requires_grad=True)", ":backward (x * x).sum()",
                 ":backward", ":backward 3", ":backward (x * 2)")
    assert "AccumulateGrad" in out and "x.grad: stole" in out and s.stepper is None
    assert "backward of what?" in out and "is a int, not a tensor" in out
    assert "grad can be implicitly created only for scalar outputs" in out


def test_report_writes_a_page(tmp_path):
    out, _ = run(SEED, ":report page.html", ":report", ":report /no/such/dir/p.html")
    assert "wrote page.html: 1 event" in out
    html = (tmp_path / "page.html").read_text()
    assert "<html" in html.lower() and "event-0" in html
    assert "missing the file name" in out or "usage: :report FILE" in out
    assert "does not exist" in out


def test_modes_are_small_objects_with_one_job():
    from viewgrad_cli.modes import BackwardStepper, TutorialPlayback
    s, buf = new_session(trace=False)
    s.interactive = True
    s.handle("x = vg.tensor(1.0, requires_grad=True); c = (x * 2).sum()")
    s.handle(":backward c")
    assert isinstance(s.stepper, BackwardStepper) and s.playback is None
    s.handle("1 + 1")  # any other input ends the stepping, and runs
    assert s.stepper is None and "2" in buf.getvalue()
    assert not hasattr(s, "pending") and not hasattr(s, "stepping")
    assert TutorialPlayback.take.__doc__ and BackwardStepper.take.__doc__
