"""Non-interactive mode: lines run as if typed, the transcript is printed."""
import os
import subprocess
import sys

import pytest

from .replkit import new_session

from viewgrad_cli.script import run_lines

# the REPL does not depend on the test pass's device: run it in the first pass only
pytestmark = pytest.mark.once

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = """\
a = vg.tensor([1., 2., 3.], requires_grad=True)
def f(t):
    return t * 2
s = f(a).sum()
s
if s.item() > 0:
    print("positive")
else:
    print("not")
1/0
print("after the error")
"""


def test_transcript_groups_lines_like_typing():
    s, buf = new_session()
    rc = run_lines(s, SCRIPT.splitlines())
    out = buf.getvalue()
    assert rc == 1  # an input raised: CI can tell
    assert ">>> def f(t):\n...     return t * 2\n>>> s = f(a).sum()" in out  # no blank line needed
    assert "tensor(12., grad_fn=<SumBackward0>)" in out
    assert "positive" in out and "ZeroDivisionError" in out and "after the error" in out


def test_quit_stops_the_script():
    s, buf = new_session()
    assert run_lines(s, ["x = 1", ":quit", "print('never')"]) == 0
    assert "never" not in buf.getvalue().replace(">>> print('never')", "")


def _env(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT, VIEWGRAD_HISTORY=str(tmp_path / "h"),
               COLUMNS="100", NO_COLOR="1")
    return env


def test_command_script_and_piped_stdin(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("b = vg.tensor([1., 2.], requires_grad=True).clone()\nb\n:trace off\n"
                      "b[0].mul_(3)\nb.grad_fn.name()\n")
    r = subprocess.run([sys.executable, "-m", "viewgrad", "repl", "--script", str(script)],
                       capture_output=True, text=True, timeout=60, env=_env(tmp_path),
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert ">>> b\ntensor([1., 2.], grad_fn=<CloneBackward0>)" in r.stdout
    assert "'torch::autograd::CopySlices'" in r.stdout   # (PyTorch's name() of its C++ node)
    r = subprocess.run([sys.executable, "-m", "viewgrad"], input="print(6 * 7)\n",
                       capture_output=True, text=True, timeout=60, env=_env(tmp_path),
                       cwd=tmp_path)
    assert r.returncode == 0 and ">>> print(6 * 7)\n42" in r.stdout
    r = subprocess.run([sys.executable, "-m", "viewgrad", "repl", "--script", "missing.py"],
                       capture_output=True, text=True, timeout=60, env=_env(tmp_path),
                       cwd=tmp_path)
    assert r.returncode == 2 and "cannot read missing.py" in r.stderr
