"""The tutorial machinery: the Markdown format (expected outputs, gpu steps, exercises), the
REPL playing a walkthrough (own lines between steps, :next, :check), and
``viewgrad tutorial N`` (play, --svg-dir, --check, --update)."""
import io
import os

import pytest
from rich.console import Console

from tests.cli.replkit import drive, new_session
from viewgrad_cli import tutorial_cmd, tutorial_pictures, tutorials
from viewgrad_cli.main import main
from viewgrad_cli.script import run_lines
from viewgrad import backend as B

pytestmark = pytest.mark.once

DEMO = """# Demo walkthrough

Intro prose.

```python
a = vg.tensor([1., 2., 3.], requires_grad=True)
b = a.clone()
b._version
```
```text
0
```

Second step, in place on a view.

```python
b[0].mul_(10)
type(b.grad_fn).__name__
```
```text
'CopySlices'
```

```python gpu
g = a.cuda()
```
```text
nothing checked without a GPU
```

```text
a text fence after a blank line is prose
```

Now your turn.

```python exercise
# hint: multiply b[1] by 3 in place
b.tolist() == [10., 6., 3.]
```

<details><summary>Solution</summary>

```python solution
b[1].mul_(3)
```

</details>
"""


@pytest.fixture
def demo_dir(tmp_path, monkeypatch):
    d = tmp_path / "tuts"
    d.mkdir()
    (d / "01-demo.md").write_text(DEMO)
    monkeypatch.setenv("VIEWGRAD_TUTORIALS", str(d))
    B.set_default_device("cpu")
    yield d
    B.set_default_device(None)


def test_format():
    t = tutorials.parse(DEMO, "01-demo.md", 1)
    assert t.title == "Demo walkthrough" and len(t.steps) == 3
    s1, s2, s3 = t.steps
    assert s1.prose == "Intro prose." and s1.expected == "0" and not s1.gpu
    assert s2.expected == "'CopySlices'" and s2.prose.startswith("Second step")
    assert s3.gpu and s3.code == "g = a.cuda()"
    ex = t.exercise
    assert ex.hint == "multiply b[1] by 3 in place"
    assert ex.check == "b.tolist() == [10., 6., 3.]" and ex.solution == "b[1].mul_(3)"
    assert "a text fence after a blank line is prose" in ex.prose
    assert "Now your turn." in ex.prose and "<details>" not in t.outro


def test_check_exercise():
    ex = tutorials.Exercise("", "x == 2", "x must be 2", None)
    assert tutorials.check_exercise(ex, {"x": 2}) == (True, "correct!")
    ok, msg = tutorials.check_exercise(ex, {"x": 3})
    assert not ok and "hint: x must be 2" in msg
    ok, msg = tutorials.check_exercise(ex, {})
    assert not ok and "NameError" in msg and "hint" in msg


def test_script_mode_skips_gpu_steps_with_a_reason(demo_dir, monkeypatch):
    monkeypatch.setattr(tutorials, "gpu_available", lambda: False)
    s, buf = new_session(trace=False)
    run_lines(s, [":tutorial 1"])
    out = buf.getvalue()
    assert "step 3/3" in out and "skipped: this step needs a GPU" in out
    assert "'CopySlices'" in out and "type your answer at the prompt, then :check" in out
    assert "Now your turn." in out and "end of tutorial 1" in out


def test_repl_own_lines_between_steps_next_and_check(demo_dir, monkeypatch):
    monkeypatch.setattr(tutorials, "gpu_available", lambda: False)
    out, s = drive(":tutorial 1\r",
                   "mine = 41 + 1\r",       # the reader's own line: step 1 keeps waiting
                   "\r",                    # Enter on the empty prompt runs step 1
                   ":next\r",               # skip step 2
                   ":check\r",              # wrong (nothing done yet)
                   "b[0].mul_(10)\r",
                   "b[1].mul_(3)\r",
                   ":check\r",
                   ":check solution\r")
    assert s.namespace["mine"] == 42 and s.namespace["b"].tolist() == [10., 6., 3.]
    assert out.count("step 1/3") == 1  # the prose is not shown twice
    assert out.index("mine") > out.index("step 1/3") if "mine" in out else True
    assert ">>> a = vg.tensor([1., 2., 3.], requires_grad=True)" in out  # the step, echoed
    assert "step 2 skipped" in out and "skipped: this step needs a GPU" in out
    assert "not yet — hint: multiply b[1] by 3 in place" in out
    assert "correct!" in out and "one solution" in out


def test_check_and_update_commands(demo_dir, monkeypatch, capsys):
    monkeypatch.setattr(tutorials, "gpu_available", lambda: False)
    assert main(["tutorial", "1", "--check"]) == 0
    path = demo_dir / "01-demo.md"
    path.write_text(DEMO.replace("'CopySlices'\n```", "'Wrong'\n```"))
    assert main(["tutorial", "1", "--check"]) == 1
    assert "step 2: output differs" in capsys.readouterr().out
    assert main(["tutorial", "1", "--update"]) == 0
    text = path.read_text()
    assert "'CopySlices'" in text and "'Wrong'" not in text
    assert "nothing checked without a GPU" in text  # a skipped gpu step keeps its text
    assert main(["tutorial", "1", "--check"]) == 0


def test_tutorial_command_writes_the_pictures(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    tut = tutorials.find(5, os.path.join(root, "tutorials"))
    buf = io.StringIO()
    console = Console(file=buf, width=100, color_system=None)
    B.set_default_device("cpu")
    try:
        assert tutorial_cmd.play(tut, console, svg_dir=str(tmp_path), solve=True) == 0
    finally:
        B.set_default_device(None)
    out = buf.getvalue()
    files = sorted(os.listdir(tmp_path))
    events = [f for f in files if "event" in f]
    assert events == ["05-solution-event2.svg", "05-step2-event0.svg", "05-step4-event1.svg"]
    assert [f for f in files if "backward" in f] == [  # step 6 asks for backward=all
        f"05-step6-backward0-step{k}.svg" for k in range(len(files) - 3)]
    assert all("<svg" in (tmp_path / f).read_text() for f in files)
    assert "CopySlices" in out and "before" in out and "after" in out  # the graphs are shown
    assert ">>> x.mul_(y)" in out and "correct!" in out
    assert f"{len(files)} pictures written" in out


def test_svg_dir_that_cannot_be_written_is_a_clear_error(tmp_path, demo_dir, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert main(["tutorial", "1", "--svg-dir", str(blocker / "pics")]) == 2
    out = capsys.readouterr().out
    assert "cannot write pictures to" in out and "Traceback" not in out
    if hasattr(os, "geteuid") and os.geteuid() != 0:  # root writes anywhere
        ro = tmp_path / "read-only"
        ro.mkdir()
        ro.chmod(0o500)
        try:
            assert main(["tutorial", "1", "--svg-dir", str(ro)]) == 2
            assert "Permission denied" in capsys.readouterr().out
        finally:
            ro.chmod(0o700)


PICTURED = """# Pictured

```python graph=b
a = vg.tensor([1., 2.], requires_grad=True)
b = a * 3
```

Then in place.

```python
c = b.clone()
c[0].mul_(2)
```

![an old picture](pictures/01-step2-event7.svg)

The end.
"""


def test_update_embeds_the_pictures_under_their_steps(tmp_path, monkeypatch):
    d = tmp_path / "tuts"
    d.mkdir()
    path = d / "01-pictured.md"
    path.write_text(PICTURED)
    (d / "pictures").mkdir()
    (d / "pictures" / "01-step2-event7.svg").write_text("<svg/>")  # drawn no more
    monkeypatch.setenv("VIEWGRAD_TUTORIALS", str(d))
    B.set_default_device("cpu")
    try:
        assert main(["tutorial", "--update"]) == 0
        text = path.read_text()
        t = tutorials.parse(text, str(path), 1)
        assert t.steps[0].asks == {"graph": "b"}
        assert t.steps[0].pictures == [("the graph of b", "pictures/01-step1-graph.svg")]
        assert t.steps[1].pictures == [("before and after: c[0].mul_(2)",
                                        "pictures/01-step2-event0.svg")]
        assert "![" not in t.steps[1].prose and "The end." in t.outro
        assert sorted(os.listdir(d / "pictures")) == ["01-step1-graph.svg",
                                                      "01-step2-event0.svg"]
        svg = (d / "pictures" / "01-step2-event0.svg").read_text()
        assert "<svg" in svg and "CopySlices" in svg
        assert tutorial_pictures.key_of_file(str(d / "pictures" / "01-step2-event0.svg"))
        assert main(["tutorial", "--update"]) == 0  # a second run changes nothing
        assert path.read_text() == text
    finally:
        B.set_default_device(None)


def test_a_step_that_asks_for_a_graph_draws_it_when_played(tmp_path, monkeypatch):
    d = tmp_path / "tuts"
    d.mkdir()
    (d / "01-pictured.md").write_text(PICTURED)
    monkeypatch.setenv("VIEWGRAD_TUTORIALS", str(d))
    s, buf = new_session(trace=False)
    run_lines(s, [":tutorial 1"])
    out = buf.getvalue()
    assert "MulBackward0" in out and "AccumulateGrad" in out  # the graph of b, drawn
    assert "end of tutorial 1" in out and s.playback is None


def test_a_step_that_asks_for_a_storage_picture_draws_it(tmp_path, monkeypatch):
    d = tmp_path / "tuts"
    d.mkdir()
    (d / "01-storage.md").write_text("# Storage\n\n```python storage=v\nb = vg.arange(6.)\n"
                                     "v = b[::2]\n```\n")
    monkeypatch.setenv("VIEWGRAD_TUTORIALS", str(d))
    s, buf = new_session(trace=False)
    run_lines(s, [":tutorial 1"])
    assert "stride (2,) offset 0" in buf.getvalue()   # the cells of b, v's outlined
    B.set_default_device("cpu")
    try:
        assert main(["tutorial", "--update"]) == 0
    finally:
        B.set_default_device(None)
    t = tutorials.parse((d / "01-storage.md").read_text(), str(d / "01-storage.md"), 1)
    assert t.steps[0].pictures == [("the storage of v", "pictures/01-step1-storage-v.svg")]
    assert "<svg" in (d / "pictures" / "01-step1-storage-v.svg").read_text()
