"""Every tutorial in tutorials/ runs step by step, and each step prints what its Markdown says.

Each tutorial runs in a fresh REPL ``Session`` (``cli.tutorial_cmd.TutorialSession``: the
REPL's own namespace setup and printing, at the width the Markdown is written at, without
colour), so the ```text block under a step is exactly what a reader sees in ``:tutorial N``
minus the before/after graphs. Only object addresses, the tracer's process-wide short ids
(``#n8``: they count every graph object the process traced before) and trailing
whitespace are normalised. Steps marked ``gpu`` run only where ``vg.cuda.is_available()``.

Each exercise is checked both ways: its check must fail in the namespace the steps leave
(the reader has something to do) and pass after the written solution.

The tutorials are CPU walkthroughs whatever the pass's device, so the default device is
pinned to cpu while they run, and the tests are marked ``once``.

To refresh outputs after an intended change: ``viewgrad tutorial N --update``, then read
the diff.
"""
import difflib
import os

import pytest

from viewgrad_cli import tutorial_cmd, tutorials
from viewgrad import backend as B

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TUT_DIR = os.path.join(ROOT, "tutorials")
ALL = tutorials.discover(TUT_DIR)
EXPECTED_FILES = {1: "01-first-graph.md", 2: "02-leaves-and-grad.md",
                  3: "03-inplace-plain.md", 4: "04-views.md", 5: "05-inplace-on-a-view.md",
                  6: "06-stale-views.md", 7: "07-forbidden.md", 8: "08-higher-order.md",
                  9: "09-convolution.md", 10: "10-training.md", 11: "11-gpu.md",
                  12: "12-your-pytorch-code.md", 13: "13-strides-and-storage.md"}


@pytest.fixture
def on_cpu():
    B.set_default_device("cpu")
    yield
    B.set_default_device(None)


def _ids(t):
    return os.path.basename(t.path)


@pytest.mark.once
def test_the_walkthroughs_are_there():
    have = {t.number: os.path.basename(t.path) for t in ALL}
    missing = {n: f for n, f in EXPECTED_FILES.items() if have.get(n) != f}
    assert not missing, f"missing tutorials: {missing}"


@pytest.mark.once
@pytest.mark.parametrize("tut", ALL, ids=_ids)
def test_every_step_prints_what_the_markdown_says(tut, on_cpu):
    assert tut.steps, "a tutorial has steps"
    ran = 0
    for i, step, actual in tutorial_cmd.step_outputs(tut):
        if actual is None:
            assert step.gpu
            continue
        ran += 1
        # no ```text block: the step must print nothing
        expected = tutorial_cmd.normalise(step.expected or "")
        if actual != expected:
            diff = "\n".join(difflib.unified_diff(expected.splitlines(), actual.splitlines(),
                                                  "markdown", "actual", lineterm=""))
            pytest.fail(f"{_ids(tut)} step {i + 1}:\n{step.code}\n{diff}")
    assert ran


@pytest.mark.once
@pytest.mark.parametrize("tut", ALL, ids=_ids)
def test_the_exercise_is_checked(tut, on_cpu):
    ex = tut.exercise
    assert ex is not None and ex.check and ex.hint and ex.solution, \
        "every tutorial ends with an exercise: a check, a # hint: line and a solution"
    session = tutorial_cmd.TutorialSession(tutorial_cmd.capture_console(), show_graphs=False)
    try:
        for step in tut.steps:
            if not step.gpu or tutorials.gpu_available():
                session.handle(step.code)
        ok, msg = tutorials.check_exercise(ex, session.namespace)
        assert not ok, "the check passes before the reader has done anything"
        assert ex.hint in msg
        session.handle(ex.solution)
        ok, msg = tutorials.check_exercise(ex, session.namespace)
        assert ok and msg == "correct!", msg
    finally:
        session.close()


@pytest.mark.once
def test_tutorial_12_runs_its_pytorch_script_with_viewgrad_run_torch(tmp_path, on_cpu, capsys):
    """What tutorial 12 shows from the shell is what `viewgrad run --torch` prints."""
    from viewgrad_cli.main import main
    script = os.path.join(TUT_DIR, "scripts", "inplace_bug.py")
    assert main(["run", "--torch", script, "--svg-dir", str(tmp_path)]) == 1
    cap = capsys.readouterr()
    out = " ".join((cap.out + cap.err).split())
    text = " ".join(open(os.path.join(TUT_DIR, "12-your-pytorch-code.md"),
                         encoding="utf-8").read().split())
    for claim in ("saved by ExpBackward0 at inplace_bug.py:13",
                  "modified by add_ at inplace_bug.py:14",
                  "#0 y.add_(1): y.grad_fn is now AddBackward0",
                  "1 saved tensor is now out of date",
                  "is at version 1; expected version 0 instead"):
        assert claim in out and claim in text, claim
    assert len(os.listdir(tmp_path)) == 1 and "1 SVG file(s) written" in out
