"""Huge inputs at the prompt stay fast (issue 15, Note [huge input] in cli/longinput.py):
a 47 KB line, a long multi-line paste without bracketed paste. Checked by counting the
work that used to grow with the input (characters laid out, lexed, parsed key by key,
scanned, compiled), not by timing."""
import pytest

from .replkit import new_session

pytestmark = pytest.mark.once


def _drive(text, session=None):
    """Type ``text`` (\\r is Enter) into a real prompt, with completion while typing on."""
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from viewgrad_cli.repl import run_repl
    s, buf = (session, session.console.file) if session else new_session(trace=False)
    with create_pipe_input() as inp:
        inp.send_text(text)
        inp.send_text("\x04")
        run_repl(s, input=inp, output=DummyOutput(), history=InMemoryHistory(), banner=False,
                 complete_while_typing=True)
    return buf.getvalue(), s


def _long_line(n):
    return "x = [" + ", ".join("1.5" for _ in range(n // 5)) + "]; y = sum(x)"


@pytest.fixture
def work(monkeypatch):
    """Counters of the work that grew with the input."""
    from prompt_toolkit.input.vt100_parser import Vt100Parser
    from pygments.lexers.python import PythonLexer
    from viewgrad_cli import completion, help as helpmod, longinput, multiline
    w = {"slow keys": 0, "shown": 0, "lexed": 0, "completed big": 0, "signature big": 0,
         "scanned": 0}

    feed = Vt100Parser.feed

    def counted_feed(self, data):
        w["slow keys"] += len(data)       # characters through the parser's state machine
        return feed(self, data)
    monkeypatch.setattr(Vt100Parser, "feed", counted_feed)

    window = longinput.LongLineWindow.apply_transformation

    def counted_window(self, ti):
        t = window(self, ti)
        w["shown"] = max(w["shown"], sum(len(f[1]) for f in t.fragments))
        return t
    monkeypatch.setattr(longinput.LongLineWindow, "apply_transformation", counted_window)

    lex = PythonLexer.get_tokens_unprocessed

    def counted_lex(self, text, *a, **k):
        w["lexed"] += len(text)
        return lex(self, text, *a, **k)
    monkeypatch.setattr(PythonLexer, "get_tokens_unprocessed", counted_lex)

    complete = completion.ReplCompleter.get_completions

    def counted_complete(self, document, event):
        if len(document.text) > longinput.BIG_INPUT and not event.completion_requested:
            w["completed big"] += 1
        return complete(self, document, event)
    monkeypatch.setattr(completion.ReplCompleter, "get_completions", counted_complete)

    sig = helpmod.signature_fragments

    def counted_sig(text, namespace):
        if len(text) > longinput.BIG_INPUT:
            w["signature big"] += 1
        return sig(text, namespace)
    import viewgrad_cli.repl as repl
    monkeypatch.setattr(repl, "signature_fragments", counted_sig)

    scan = multiline.Scanner.feed

    def counted_scan(self, line):
        w["scanned"] += len(line)
        return scan(self, line)
    monkeypatch.setattr(multiline.Scanner, "feed", counted_scan)
    return w


def test_a_47kb_line_is_laid_out_lexed_and_parsed_in_bounded_work(work):
    from viewgrad_cli.longinput import BIG_INPUT, LONG_LINE
    line = _long_line(47_000)
    out, s = _drive(line + "\r" + "print(len(x), y)\r")
    assert f"{len(line) // 5 - 3} " in out or "9397 14095.5" in out, out[-300:]
    assert "Error" not in out
    assert work["slow keys"] < 100                      # was: every one of the 47,000
    assert 0 < work["shown"] <= LONG_LINE + 40          # was: the whole line, every redraw
    assert work["lexed"] < 40 * BIG_INPUT               # was: ~47,000 per redraw
    assert work["completed big"] == 0 and work["signature big"] == 0


def test_a_long_line_shows_as_a_window_around_the_cursor():
    from prompt_toolkit.document import Document
    from prompt_toolkit.layout.processors import TransformationInput
    from viewgrad_cli.longinput import LONG_LINE, LongLineWindow
    text = "a" * 3000 + "MIDDLE" + "b" * 3000
    doc = Document(text, 3003)

    def apply(d):
        ti = TransformationInput(None, d, 0, lambda i: i, [("", text)], 80, 24)
        return LongLineWindow().apply_transformation(ti)
    t = apply(doc)
    shown = "".join(f[1] for f in t.fragments)
    assert "MIDDLE" in shown and shown.startswith("…2,503 chars… ")
    assert shown.endswith(" …2,503 chars…") and len(shown) < LONG_LINE + 40
    # the cursor maps into the window and back
    assert t.display_to_source(t.source_to_display(3003)) == 3003
    assert t.source_to_display(0) == len("…2,503 chars… ")  # hidden text: the window's edge
    end = "".join(f[1] for f in apply(Document(text, len(text))).fragments)
    assert end.endswith("b" * 50) and "…" not in end[-10:]


def test_a_multi_line_paste_keeps_its_own_indentation():
    """Pasted lines bring their indentation: the REPL must not add its own on top (each
    line would be indented further than the last, and a dedent would change meaning)."""
    code = ("def f(n):\r    total = 0\r    for i in range(n):\r        if i % 2:\r"
            "            total += i\r    return total\r\r" "print('f', f(10))\r"
            "if True:\r    a = 1\r    b = 2\r\r" "print('ab', a + b)\r")
    out, _ = _drive(code)
    assert "f 25" in out and "ab 3" in out, out
    assert "IndentationError" not in out and "SyntaxError" not in out


def test_typed_blocks_still_indent_themselves():
    out, _ = _drive("def twice(x):\rreturn x * 2\r\rprint('t', twice(21))\r")
    assert "t 42" in out


def test_a_long_pasted_literal_is_scanned_once(work):
    """8,000 lines inside brackets: each Enter looks at its own line only (the compiler
    is asked when the input may be complete), so the scanning is linear."""
    n = 3000
    body = "".join(f"    {i}.25, {i}.5,\r" for i in range(n))
    text = "data = [\r" + body + "]\r" + "print('n', len(data))\r"
    out, _ = _drive(text)
    assert f"n {2 * n}" in out
    assert work["scanned"] < 4 * len(text), (work["scanned"], len(text))
    assert work["slow keys"] < 100


def test_the_fast_key_path_gives_the_same_keys_as_prompt_toolkit():
    from prompt_toolkit.input.vt100_parser import Vt100Parser
    from viewgrad_cli.longinput import fast_plain_keys

    class Inp:
        pass
    data = "ab\x1b[Acd\x1bxé€\r\t\x7fz\x1b[200~pa\x1b[Aste\x1b[201~end\x1b"
    for chunks in ([data], [data[i:i + 3] for i in range(0, len(data), 3)]):
        got, want = [], []
        fast = Inp()
        fast.vt100_parser = Vt100Parser(got.append)
        assert fast_plain_keys(fast)
        slow = Vt100Parser(want.append)
        for c in chunks:
            fast.vt100_parser.feed(c)
            slow.feed(c)
        fast.vt100_parser.flush()
        slow.flush()
        assert [(k.key, k.data) for k in got] == [(k.key, k.data) for k in want]
