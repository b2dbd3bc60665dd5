"""Sessions driven in-process through prompt_toolkit's pipe input: results are printed with
rich, in-place lines are followed by their before/after graphs (and other lines are not),
and nothing typed ends the session."""
import os
import sys

import pytest

from .replkit import drive, new_session

# the REPL does not depend on the test pass's device: run it in the first pass only
pytestmark = pytest.mark.once

SEED = ("a = vg.tensor([1.,2.,3.], requires_grad=True); b = a.clone(); x = b[2]; "
        "y = vg.tensor(4., requires_grad=True); x.mul_(y)")
HINT = ":trace off silences this"  # the last line printed after a traced in-place line


def test_tensor_results_show_autograd_facts():
    out, _ = drive("a = vg.tensor([1.,2.,3.], requires_grad=True)\r", "a\r", "b = a * 2\r",
                   "b\r", "b.grad_fn\r")
    assert "tensor([1., 2., 3.], requires_grad=True)" in out
    assert "shape (3,) · float32 · requires_grad=True · leaf · version 0" in out
    assert "grad_fn=MulBackward0" in out
    assert "AccumulateGrad (a)" in out  # the graph tree of b.grad_fn, leaf labelled by name


def test_trace_appears_after_inplace_line_only():
    out, s = drive("a = vg.tensor([1.,2.,3.], requires_grad=True)\r", "b = a.clone()\r",
                   "c = b * 2\r", "print('MARK')\r")
    assert HINT not in out and len(s.trace) == 0
    out, s = drive(SEED + "\r", "print('AFTER')\r")
    before_mark, after_mark = out.split("AFTER", 1)
    assert "CopySlices" in before_mark and HINT in before_mark and "#0" in before_mark
    assert HINT not in after_mark
    assert len(s.trace) == 1


def test_trace_off_silences_and_on_resumes():
    out, s = drive(":trace off\r", SEED + "\r", ":trace on\r", "x.mul_(2)\r", ":trace\r")
    assert "trace off · 0 events" in out
    assert out.count(HINT) == 1
    assert "trace on · 1 event" in out


def test_exception_does_not_end_the_session():
    out, s = drive("1/0\r", "undefined_name\r", "x = (\r)\r", "def f(:\r",
                   "class R:\r", "def __repr__(self): raise ValueError('bad repr')\r", "\r",
                   "R()\r", "raise KeyboardInterrupt\r",
                   "a = vg.tensor([1.], requires_grad=True)\r", "a.mul_(2)\r",
                   "print('still here')\r")
    assert "ZeroDivisionError: division by zero" in out
    assert "NameError" in out and "SyntaxError" in out
    assert "bad" in out and "KeyboardInterrupt" in out
    assert "a leaf Variable that requires grad" in out and "hint:" in out
    assert "still here" in out
    assert s.errors >= 4
    # viewgrad's own frames are hidden from the traceback
    assert "viewgrad/ops" not in out and "inplace.py" not in out


def test_exit_ends_session_and_history_is_kept(tmp_path):
    from viewgrad_cli.repl import make_history
    hist = make_history(str(tmp_path / "h" / "history"))
    out, s = drive("v = 41\r", "1/0\r", "exit()\r", "print('not run')\r", history=hist)
    assert "not run" not in out
    # ThreadedHistory writes through to the file at once
    text = (tmp_path / "h" / "history").read_text()
    assert "v = 41" in text and "1/0" in text and "exit()" in text


def test_ctrl_c_cancels_the_line():
    out, s = drive("print('CANCELLED')\x03", "print('RAN')\r")
    assert "RAN" in out and "CANCELLED" not in out


def test_user_print_and_result_order():
    s, buf = new_session()
    s.handle("print('one'); 2")
    assert buf.getvalue().splitlines()[:2] == ["one", "2"]


def test_a_tracer_that_fails_to_start_means_a_message_not_a_crash(monkeypatch):
    from viewgrad_cli import tracing

    def broken(ns):
        raise RuntimeError("another tracer holds the hook")
    monkeypatch.setattr(tracing, "make_tracer", broken)
    out, s = drive(SEED + "\r", ":trace\r", ":events\r")
    assert "tracing is unavailable" in out and "trace off" in out
    assert os.environ["VIEWGRAD_HISTORY"]


def test_history_write_failure_keeps_the_line(tmp_path):
    from viewgrad_cli.repl import SafeFileHistory
    s, buf = new_session()
    hist = SafeFileHistory(str(tmp_path / "missing-dir" / "history"), s.console)
    out, _ = drive("print('typed' + 'line')\r", session=s, history=hist)
    assert "typedline" in out and "history not saved" in out


def test_history_lives_in_the_user_data_dir(monkeypatch, tmp_path):
    import platformdirs
    from viewgrad_cli.repl import history_path
    monkeypatch.delenv("VIEWGRAD_HISTORY")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = history_path()
    assert path == os.path.join(platformdirs.user_data_dir("viewgrad", appauthor=False),
                                "history")
    if sys.platform.startswith("linux"):  # XDG_DATA_HOME is the Linux convention
        assert path.startswith(str(tmp_path / "data"))
