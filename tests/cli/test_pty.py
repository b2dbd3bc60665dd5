"""End to end: the real ``viewgrad`` command in a pseudo-terminal.

A person's session, typed key by key: the seed example (an in-place op on a view), after
which the before/after graphs with CopySlices must appear on the screen; a block typed on
two lines; Tab completion; an error; Ctrl-C interrupting a running line; ``:svg b out.svg``
writing the picture; the toolbar; Ctrl-D leaving, with the history saved.
"""
import os
import re
import select
import struct
import subprocess
import sys
import time

import pytest

try:
    import fcntl
    import pty
    import termios
except ImportError:  # pragma: no cover - not on Windows
    pytest.skip("needs a POSIX pseudo-terminal", allow_module_level=True)

# the REPL does not depend on the test pass's device: run it in the first pass only
pytestmark = pytest.mark.once

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]|\x1b[=>]|\x1b\][^\x07]*\x07|\r")

SEED = ("a = vg.tensor([1.,2.,3.], requires_grad=True); b = a.clone(); x = b[2]; "
        "y = vg.tensor(4., requires_grad=True); x.mul_(y)")


def _take_terminal():
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    def __init__(self, argv, env, cwd, rows=60, cols=160):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        # a new session whose controlling terminal is the pty (as a terminal emulator does),
        # so that Ctrl-C reaches the program as SIGINT
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     cwd=cwd, start_new_session=True, close_fds=True,
                                     preexec_fn=_take_terminal)
        os.close(slave)
        self.raw = b""
        self.answered = 0

    @property
    def screen(self) -> str:
        return ANSI.sub("", self.raw.decode("utf-8", "replace"))

    def read_until(self, pattern, timeout=60.0, start=0) -> str:
        """Read until ``pattern`` (a regex) shows in the cleaned screen text after ``start``."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen[start:]
            m = re.search(pattern, text)
            if m:
                self.last_end = start + m.end()  # where the awaited output ends
                return text
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None and not self._pump(0.1):
                raise AssertionError(f"{pattern!r} did not appear; screen so far:\n"
                                     f"{self.screen[-4000:]}")
            self._pump(min(left, 0.5))

    def _pump(self, wait) -> bool:
        r, _, _ = select.select([self.master], [], [], wait)
        if not r:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:
            return False
        self.raw += data
        # Answer cursor-position requests as a real terminal does: prompt_toolkit draws the
        # bottom toolbar only once it knows how much room is below the cursor.
        asked = self.raw.count(b"\x1b[6n")
        while self.answered < asked:
            os.write(self.master, b"\x1b[1;1R")
            self.answered += 1
        return bool(data)

    def type(self, text, pause=0.02):
        for ch in text:  # key by key, as a person types
            os.write(self.master, ch.encode())
            time.sleep(pause / 10)
        time.sleep(pause)

    def wait_exit(self, timeout=60.0) -> int:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self._pump(0.2)  # keep draining and answering, or the child may block writing
        if self.proc.poll() is None:
            raise AssertionError(f"viewgrad did not exit; screen:\n{self.screen[-3000:]}")
        return self.proc.returncode

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        os.close(self.master)


@pytest.fixture
def terminal(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT, TERM="xterm-256color",
               VIEWGRAD_HISTORY=str(tmp_path / "history"), COLUMNS="160", LINES="60")
    env.pop("NO_COLOR", None)
    t = Terminal([sys.executable, "-m", "viewgrad"], env, str(tmp_path))
    yield t
    t.close()


def test_seed_example_in_a_terminal(terminal, tmp_path):
    t = terminal
    t.read_until(r">>> ", timeout=90)          # the banner and the prompt
    mark = len(t.screen)
    t.type(SEED + "\r")
    out = t.read_until(r"trace off silences this", start=mark)
    assert "CopySlices" in out            # the after graph
    assert re.search(r"before", out, re.I) and re.search(r"after", out, re.I)
    # multi-line input and Tab completion of a tensor method
    mark = len(t.screen)
    t.type("for i in range(2):\r")
    t.type("print('loop', i)\r\r")
    t.read_until(r"loop 1", start=mark)
    mark = len(t.screen)
    t.type("c = b.clo")
    t.read_until(r"clone\s+method", start=mark)   # the menu, completing while typing
    t.type("\t", pause=0.5)                        # Tab takes the (only) completion
    t.type("()\r")
    t.type("print(c.grad_fn.name() + '!')\r")
    t.read_until(r"CloneBackward0!", start=mark)
    # an error and the session goes on
    mark = len(t.screen)
    t.type("a.mul_(2)\r")
    t.read_until(r"a leaf Variable that requires grad", start=mark)
    # Ctrl-C while a line runs interrupts it (SIGINT), and the prompt comes back
    mark = len(t.screen)
    t.type("import time; print('SLEEP' + 'ING'); time.sleep(60)\r")
    t.read_until(r"SLEEPING", start=mark)
    time.sleep(0.3)
    t.type("\x03")
    t.read_until(r"KeyboardInterrupt", start=mark, timeout=30)
    mark = t.last_end
    mark = len(t.screen)
    t.type(":svg b out.svg\r")
    t.read_until(r"wrote out\.svg", start=mark)
    mark = t.last_end
    assert "<svg" in (tmp_path / "out.svg").read_text()
    # the bottom toolbar of the prompt drawn after the last output: trace state and number
    # of events. (Waiting for it also means the REPL is reading keys again: a Ctrl-D typed
    # while a line still runs goes to the terminal driver, as with any program.)
    t.read_until(r"trace on · 1 event", start=mark)
    t.type("\x04")                            # Ctrl-D leaves
    assert t.wait_exit() == 0
    hist = (tmp_path / "history").read_text()
    assert "x.mul_(y)" in hist and "a.mul_(2)" in hist


def test_completion_menu_tab_signature_toolbar_and_help(terminal):
    t = terminal
    t.read_until(r">>> ", timeout=90)
    t.type("t = vg.ones(2, 2, requires_grad=True) * 2\r")
    # the menu opens while typing; Tab with many choices and nothing in common inserts
    # nothing (t.H, the first, is not chosen for the reader); the next letters narrow it
    mark = len(t.screen)
    t.type("q = t.")
    t.read_until(r"abs_\s+method", start=mark)
    t.type("\t", pause=0.5)
    t.type("grad_f")
    t.read_until(r"grad_fn\s+property", start=mark)
    t.type("n\r")
    t.type("print('Q', q.name())\r")
    t.read_until(r"Q MulBackward0", start=mark)
    # a second Tab walks into the menu: an explicit choice (then Enter takes it, and runs)
    mark = len(t.screen)
    t.type("w = t.")
    t.read_until(r"abs_\s+method", start=mark)
    t.type("\t", pause=0.5)
    t.type("\t", pause=0.5)
    t.type("\r", pause=0.3)
    t.type("\r")
    t.type("print('W', w.shape)\r")
    t.read_until(r"W viewgrad.Size\(\[2, 2\]\)", start=mark)
    # the signature toolbar while typing a call, the current argument marked
    mark = len(t.screen)
    t.type("z = vg.zeros(2, dtype=")
    t.read_until(r"zeros\(\*size, dtype=None, device=None, requires_grad=False\)", start=mark)
    t.type("vg.float64)\r")
    # x? shows the docstring and the signature
    mark = len(t.screen)
    t.type("t.mul_?\r")
    out = t.read_until(r"CopySlices", start=mark)
    assert "mul_(other)" in out and "method" in out
    mark = len(t.screen)
    t.type("help(vg.tensor)\r")
    t.read_until(r"tensor\(data, dtype=None, device=None, requires_grad=False\)", start=mark)
    t.read_until(r"Ctrl-D quits", start=t.last_end)  # the prompt is back, reading keys
    t.type("\x04")
    assert t.wait_exit() == 0


def test_a_47kb_line_pasted_without_bracketed_paste(terminal):
    """The terminal sends the characters as typed keys (no paste markers): the line is
    taken, shown as a window around the cursor, and run (issue 15: it took ~25 s)."""
    t = terminal
    t.read_until(r">>> ", timeout=90)
    line = "big = [" + ", ".join("2.5" for _ in range(9400)) + "]; print('SUM', sum(big))"
    mark = len(t.screen)
    for i in range(0, len(line), 4096):       # as a terminal delivers a paste: in chunks
        os.write(t.master, line[i:i + 4096].encode())
        t._pump(0.01)
    t.type("\r")
    out = t.read_until(r"SUM 23500\.0", start=mark, timeout=60)
    assert "chars…" in out                    # the long line was shown as a window
    t.read_until(r"trace on · 0 events", start=t.last_end)   # reading keys again
    t.type("\x04")
    assert t.wait_exit() == 0
