"""The REPL never dies and never freezes (issue 15): hostile input, driven through script
mode, a session, the prompt (pipe input) and the real command."""
import os
import subprocess
import sys
import time

import pytest

from .replkit import drive, new_session

from viewgrad_cli.multiline import is_complete
from viewgrad_cli.script import run_lines

pytestmark = pytest.mark.once

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _viewgrad(*args, stdin=None, timeout=120):
    env = dict(os.environ, PYTHONIOENCODING="utf-8", COLUMNS="120")
    return subprocess.run([sys.executable, "-m", "viewgrad", *args], input=stdin,
                          capture_output=True, timeout=timeout, cwd=ROOT, env=env)


def test_lone_surrogate_name_does_not_kill_the_session():
    s, buf = new_session()
    rc = run_lines(s, ['t = vg.tensor([1., 2.]).clone()', 't.name = "\\ud800"', 't.mul_(2)',
                       't', 'print("alive")'])
    out = buf.getvalue()
    assert "alive" in out and "\ufffd" in out
    assert rc == 0


def test_markup_in_names_and_values_is_printed_as_written():
    s, buf = new_session()
    run_lines(s, ['t = vg.tensor([1., 2.]).clone()', 't.name = "[/]"', 't.mul_(2)',
                  ':events', '"[bold]x[/bold]"', 'a = vg.tensor([float("nan"), 2.], '
                  'requires_grad=True)', 'l = (a * a).sum()', ':backward l'])
    out = buf.getvalue()
    assert "[/]" in out and "internal error" not in out
    assert "'[bold]x[/bold]'" in out
    import re
    assert re.search(r"\[nan, 4\.0?\]", out)    # the :backward table shows the values


def test_viewgrad_run_with_markup_and_nul_names(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import viewgrad as vg\nt = vg.tensor([1., 2.]).clone()\n"
                      "t.name = '[/]\\x00\\x1b[31m'\nt.mul_(2)\n")
    r = _viewgrad("run", str(script), "--json", str(tmp_path / "t.json"))
    assert r.returncode == 0, r.stderr
    assert b"[/]" in r.stdout and b"\x1b[31m" not in r.stdout
    assert (tmp_path / "t.json").exists()


def test_huge_expression_line_is_an_error_not_a_crash():
    line = "x = " + "+".join(["1"] * 100_000)
    assert is_complete(line) is True
    s, buf = new_session(trace=False)
    rc = run_lines(s, [line, 'print("alive")'], echo=False)
    out = buf.getvalue()
    assert "alive" in out and rc == 1


def _script_cost(n):
    s, _ = new_session(trace=False)
    lines = ["x = ["] + [f"    {i}," for i in range(n)] + ["]"]
    t = time.perf_counter()
    run_lines(s, lines, echo=False)
    return time.perf_counter() - t


def test_script_mode_is_linear_in_a_long_literal():
    _script_cost(200)
    small, big = min(_script_cost(1000) for _ in range(2)), min(_script_cost(8000)
                                                                for _ in range(2))
    # 8x the lines: linear is ~8x; the old quadratic grouping was ~64x
    assert big < 20 * small, (small, big)


def test_paste_without_bracketed_paste_is_batched():
    """Keys queued behind one key are inserted at once: the cost of a paste grows
    linearly, not with the (per key) cost of prompt_toolkit's key processing."""
    def cost(n):
        text = "x = [\r" + "".join(f"{i},\r" for i in range(n)) + "]\r" + "len(x)\r"
        t = time.perf_counter()
        out, _ = drive(text, trace=False)
        assert str(n) in out
        return time.perf_counter() - t
    cost(50)
    small, big = cost(500), cost(4000)
    assert big < 20 * small, (small, big)


def test_big_values_are_summarised():
    s, buf = new_session(trace=False)
    t = time.perf_counter()
    run_lines(s, ["list(range(10**6))", "'q' * 10**7"], echo=False)
    assert time.perf_counter() - t < 30
    out = buf.getvalue()
    assert "999999" not in out and "..." in out
    assert len(out) < 100_000


def test_overwriting_builtins_and_vg_tensor_does_not_break_the_repl():
    import viewgrad as vg
    keep = vg.Tensor
    s, buf = new_session()
    try:
        run_lines(s, ["import builtins", "builtins.len = None", "builtins.isinstance = None",
                       "builtins.repr = None", "t = vg.tensor([1., 2.]).clone()", "t.mul_(2)",
                      "t", "vg.Tensor = 5", "vg.tensor([3.])", "del builtins.len",
                      "print('alive')"])
    finally:
        vg.Tensor = keep
    out = buf.getvalue()
    assert "alive" in out and "tensor([3.])" in out and "internal error" not in out
    import builtins
    assert builtins.len is len and callable(builtins.isinstance)
    # the user's code still sees its own change
    s2, buf2 = new_session(trace=False)
    run_lines(s2, ["import builtins", "builtins.abs = lambda x: 42", "print(abs(-1))"],
              echo=False)
    assert "42" in buf2.getvalue() and abs(-1) == 1



def test_closing_stdout_is_reported_not_fatal():
    r = _viewgrad("repl", "--script", "-",
                  stdin=b"import sys\nsys.stdout.close()\nprint('after')\n1 + 1\n")
    assert r.returncode in (0, 1), r.stderr
    assert b"reopened" in r.stdout and b"2" in r.stdout


@pytest.mark.parametrize("code, status, message", [
    ("exit(5)", 5, b""), ("import sys; sys.exit('bye')", 1, b"bye"), ("exit()", 0, b""),
    ("raise SystemExit(3)", 3, b"")])
def test_exit_status_and_message_as_python(code, status, message):
    r = _viewgrad("repl", "--script", "-", stdin=(code + "\nprint('not run')\n").encode())
    assert r.returncode == status
    assert b"not run" not in r.stdout.replace(b">>> print('not run')", b"")
    assert message in r.stderr


def test_non_utf8_script_is_a_clear_error(tmp_path):
    p = tmp_path / "bad.py"
    p.write_bytes(b"x = '\xff\xfe'\n")
    r = _viewgrad("repl", "--script", str(p))
    assert r.returncode == 2
    assert b"not UTF-8" in r.stderr and b"Traceback" not in r.stderr
    r = _viewgrad("repl", "--script", "-", stdin=b"x = '\xff'\nprint('ok')\n")
    assert b"ok" in r.stdout and b"Traceback" not in r.stderr


def test_demo_svg_to_a_bad_path(tmp_path):
    (tmp_path / "file").write_text("")
    r = _viewgrad("demo", "--svg", str(tmp_path / "file" / "x.svg"))
    assert r.returncode == 1
    assert b"cannot write" in r.stderr and b"Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_ctrl_c_in_viewgrad_run_writes_the_trace(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import viewgrad as vg\nt = vg.tensor([1., 2.]).clone()\nt.mul_(2)\n"
                      "raise KeyboardInterrupt\n")
    out = tmp_path / "t.json"
    r = _viewgrad("run", str(script), "--json", str(out))
    assert r.returncode == 130
    assert b"interrupted" in r.stderr and b"Traceback" not in r.stderr
    import viewgrad.trace as T
    assert len(T.load(out).events) == 1


HOSTILE_CLASSES = '''
class DictProp:
    @property
    def __dict__(self): RAN.append("__dict__ property"); return {"zz": 1}
class ClassProp:
    @property
    def __class__(self): RAN.append("__class__ property"); return int
class GetAttr:
    def __getattr__(self, n): RAN.append("getattr " + n); return self
    def __getattribute__(self, n):
        RAN.append("getattribute " + n); return object.__getattribute__(self, n)
class Ann:
    @property
    def p(self) -> "RAN_HOOK()":
        RAN.append("property p"); return 1
class Desc:
    def __get__(self, o, t): RAN.append("descriptor"); return 1
class HasDesc:
    d = Desc()
def wrapped(a): pass
wrapped.__wrapped__ = GetAttr()
dp, cp, ga, an, hd = DictProp(), ClassProp(), GetAttr(), Ann(), HasDesc()
'''


def test_completion_help_and_toolbar_never_run_user_code():
    """isinstance() asks an object for __class__ (a property or __getattribute__ runs),
    a __dict__ property, a __wrapped__ chain through objects, a string annotation that
    typing would eval: none of them may run while the user only types."""
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document
    from viewgrad_cli import help as helpmod
    from viewgrad_cli.commands_colon import COMMANDS
    from viewgrad_cli.completion import ReplCompleter
    from viewgrad_cli.session import fresh_namespace
    ran = []
    ns = fresh_namespace()
    ns.update(RAN=ran, RAN_HOOK=lambda: ran.append("annotation evaluated") or int)
    exec(HOSTILE_CLASSES, ns)
    ran.clear()
    c = ReplCompleter(lambda: ns, COMMANDS, lambda: [])
    for text in ["dp.", "dp.z", "cp.", "ga.", "ga.x.", "an.", "an.p.", "hd.", "hd.d.",
                 ":graph an.p.", ":graph ga.x."]:
        list(c.get_completions(Document(text, len(text)), CompleteEvent(True)))
    for text in ["wrapped(", "ga.x(", "an.p(", "hd.d(", "cp("]:
        helpmod.signature_fragments(text, ns)
    for expr in ["dp.zz", "an.p", "ga.x", "hd.d", "cp", "wrapped"]:
        try:
            helpmod.lookup_for_help(expr, ns)
        except LookupError:
            pass
    assert ran == []


def test_help_on_a_property_shows_the_property_not_its_value():
    s, buf = new_session(trace=False)
    s.namespace["calls"] = []
    s.handle("class C:\n    @property\n    def p(self):\n        'The p of C.'\n"
             "        calls.append(1)\n        while True: pass\n")
    s.handle("c = C()")
    s.handle("c.p?")
    out = buf.getvalue()
    assert "property (not computed)" in out and "The p of C." in out
    assert s.namespace["calls"] == []


def test_system_exit_from_a_repr_or_a_command_ends_the_session_as_exit_does():
    s, _ = new_session(trace=False)
    s.handle("class B:\n    def __repr__(self): raise SystemExit(3)\n")
    s.handle("B()")
    assert s.quit_requested and s.exit_status == 3
    s2, _ = new_session(trace=False)
    s2.handle(":graph (lambda: exec('raise SystemExit(2)'))()")
    assert s2.quit_requested and s2.exit_status == 2


@pytest.mark.parametrize("code, status", [(True, 1), (False, 0), (300, 44), (-1, 255),
                                          (2 ** 70, 255), (None, 0)])
def test_exit_codes_as_python_counts_them(code, status, capfd):
    s, _ = new_session(trace=False)
    assert s._exit_status(SystemExit(code)) == status
    assert capfd.readouterr().err == ""      # an int (a bool too) prints nothing


def test_a_syntax_error_in_a_huge_line_shows_a_window_of_it():
    """A million-digit literal is a SyntaxError: rich highlighting the whole 1 MB line in
    the error froze the REPL; the error shows 400 characters around the caret."""
    s, buf = new_session(trace=False)
    s.handle("x = " + "1" * 1_000_000)
    s.handle("print('alive')")
    out = buf.getvalue()
    assert "Exceeds the limit" in out and "alive" in out
    assert len(out) < 20_000
