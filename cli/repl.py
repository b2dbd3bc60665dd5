"""The interactive prompt: a prompt_toolkit ``PromptSession`` around a ``Session``.

What the prompt adds to a plain ``input()`` (the parts of ptpython's ``PythonInput`` that a
learner needs, no more):

* Python syntax highlighting (pygments' lexer; colon commands are left plain);
* completion from the live namespace without running code (``completion.py``): a menu
  while typing; Tab inserts only what is certain (the single completion, or the common
  start) and a second Tab walks into the menu; Tab indents at a line's start;
* help: ``x?`` and ``help(x)`` show the signature and docstring (``help.py``), and while
  the cursor is inside a call a toolbar shows the callee's signature with the argument
  being typed marked, as ptpython does;
* multi-line input: Enter runs the input when the compiler says it is complete
  (``multiline.is_complete``) and otherwise opens an indented continuation line;
  Meta-Enter (Esc Enter) runs it regardless;
* persistent history (``history_path()``), suggestions from it (→ accepts);
* Ctrl-C cancels the line (or stops a tutorial), Ctrl-D on an empty line leaves;
* tutorials (``:tutorial N``) and ``:backward`` stepping, each a small object in
  ``modes.py`` that the loop asks what an input means;
* a bottom toolbar with the trace state and the number of recorded events.

``run_repl`` takes ``input``/``output`` so tests can drive it with
``prompt_toolkit.input.create_pipe_input()`` and ``DummyOutput``.
"""
from __future__ import annotations

import os

from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory, ConditionalAutoSuggest
from prompt_toolkit.completion.base import get_common_complete_suffix
from prompt_toolkit.filters import Condition, emacs_insert_mode, vi_insert_mode
from prompt_toolkit.formatted_text import HTML, to_formatted_text
from prompt_toolkit.history import FileHistory, InMemoryHistory, ThreadedHistory
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import Keys
from prompt_toolkit.lexers import DynamicLexer, PygmentsLexer, SimpleLexer
from prompt_toolkit.styles import Style
from pygments.lexers.python import PythonLexer
from rich.text import Text

from .commands_colon import COMMANDS
from .completion import ReplCompleter
from .help import signature_fragments
from .longinput import BIG_INPUT, LONG_LINE, LongLineWindow, fast_plain_keys, small_input
from .multiline import Growing, is_complete, next_indent
from .session import Session

STYLE = Style.from_dict({
    "bottom-toolbar": "noreverse bg:#303030 #d0d0d0",
    "bottom-toolbar.on": "bold #5fd75f",
    "bottom-toolbar.off": "bold #d75f5f",
    "prompt": "bold #5fafff",
    "continuation": "#5f87af",
    "signature": "noreverse bg:#1c1c1c #bcbcbc",
    "signature.current": "noreverse bg:#1c1c1c bold underline #ffd75f",
    "long-line": "#5f87af italic",
})


def history_path() -> str:
    """``$VIEWGRAD_HISTORY``, else ``history`` in the user's data dir (platformdirs)."""
    env = os.environ.get("VIEWGRAD_HISTORY")
    if env:
        return env
    import platformdirs
    return os.path.join(platformdirs.user_data_dir("viewgrad", appauthor=False), "history")


class SafeFileHistory(FileHistory):
    """A FileHistory whose write failures (disk full, file removed read-only…) cost the
    persistence of that entry, never the line the user just typed."""

    def __init__(self, filename, console=None):
        super().__init__(filename)
        self._console = console
        self._warned = False

    def store_string(self, string: str) -> None:
        try:
            super().store_string(string)
        except OSError as e:
            if not self._warned and self._console is not None:
                self._warned = True
                self._console.print(Text(f"(history not saved: {e})", style="dim"))


def make_history(path: str | None = None, console=None):
    """A file history; if the file can't be used, an in-memory one and a warning (losing
    persistence beats losing the session)."""
    path = path or history_path()
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "ab"):
            pass
        return ThreadedHistory(SafeFileHistory(path, console))
    except OSError as e:
        if console is not None:
            console.print(Text(f"(history not saved: cannot write {path}: {e})", style="dim"))
        return InMemoryHistory()


def _brings_indentation(queue) -> bool:
    """Do the queued keys (a paste) hold a line that starts with a space or a tab?"""
    after_enter = False
    for kp in queue:
        k = kp.key
        if type(k) is str:                  # a plain character (Keys are an enum)
            if after_enter and (k == " " or k == "\t"):
                return True
            after_enter = False
        else:
            if after_enter and k == Keys.Tab:
                return True
            after_enter = k == Keys.ControlM or k == Keys.ControlJ
    return False


def _key_bindings(session: Session) -> KeyBindings:
    kb = KeyBindings()

    @kb.add("enter")
    @kb.add("c-j")
    def _(event):
        b = event.current_buffer
        if b.complete_state is not None and b.complete_state.current_completion is not None:
            b.complete_state = None  # Enter picks the highlighted completion; it doesn't run
            return
        doc = b.document
        # editing an earlier line of a block: Enter splits the line, as in an editor
        if "\n" in doc.text and not doc.is_cursor_at_the_end and doc.text_after_cursor.strip():
            b.insert_text("\n" + next_indent(doc.text_before_cursor))
            return
        if is_complete(doc.text):
            b.validate_and_handle()
        else:
            b.insert_text("\n" + next_indent(doc.text_before_cursor))

    @kb.add(Keys.Any, filter=emacs_insert_mode | vi_insert_mode)
    def _(event):
        # A paste without bracketed paste arrives as thousands of key presses; handled one
        # by one they cost prompt_toolkit milliseconds each (a 200 KB paste froze the
        # prompt for minutes). Take the keys already queued behind this one at once:
        # plain characters, and Enters that do not complete the input (each indents as
        # the Enter binding would — unless the pasted lines bring their own indentation:
        # adding ours would indent each line further than the last). The Enter that
        # runs the input keeps its binding.
        b = event.current_buffer
        if not b.document.is_cursor_at_the_end:
            b.insert_text(event.data * event.arg)
            return
        old = b.text
        text = old + event.data * event.arg
        queue = event.key_processor.input_queue
        if not old:
            b.pasted_indent = False          # a new input
        if not getattr(b, "pasted_indent", False) and _brings_indentation(queue):
            b.pasted_indent = True           # sticks for the rest of this input
        auto = not getattr(b, "pasted_indent", False)
        first = event.data * event.arg
        parts = [first]                      # what to insert
        line = [old[old.rfind("\n") + 1:], first]   # the input's last line, in pieces
        length = len(old) + len(first)
        growing = None                       # is_complete, line by line (on the first Enter)
        popleft = queue.popleft
        while queue:
            k = queue[0].key
            if type(k) is str:               # a plain character (Keys are an enum)
                c = popleft().data
                parts.append(c)
                line.append(c)
                length += len(c)
                continue
            if k not in (Keys.ControlM, Keys.ControlJ) or len(queue) < 2:
                break
            if growing is None:
                growing = Growing(old)
            last = "".join(line)
            if growing.ends_line(last, length, lambda: old + "".join(parts)):
                break
            popleft()
            indent = next_indent(last) if auto else ""
            parts += ["\n", indent]
            line = [indent]
            length += 1 + len(indent)
        b.insert_text("".join(parts))

    @kb.add("escape", "enter")
    def _(event):
        event.current_buffer.validate_and_handle()

    at_line_start = Condition(
        lambda: not _current_line_before_cursor().strip())

    def _current_line_before_cursor():
        from prompt_toolkit.application.current import get_app
        return get_app().current_buffer.document.current_line_before_cursor

    @kb.add("tab", filter=at_line_start)
    def _(event):
        event.current_buffer.insert_text("    ")

    @kb.add("tab", filter=~at_line_start)
    def _(event):
        """Tab completes what is certain — the only completion, or the common start of
        all — and otherwise shows the menu; a second Tab (or an arrow) walks into it. So
        ``t.`` + Tab never turns into ``t.T`` just because ``T`` sorts first."""
        b = event.current_buffer
        state = b.complete_state
        if state is None:  # no menu yet: prompt_toolkit's own Tab does exactly that
            b.start_completion(insert_common_part=True)
        elif state.complete_index is not None or event.is_repeat:
            b.complete_next()
        elif len(state.completions) == 1:
            b.apply_completion(state.completions[0])
        else:
            common = get_common_complete_suffix(b.document, state.completions)
            if common:
                b.insert_text(common)

    return kb


def make_prompt_session(session: Session, input=None, output=None, history=None,
                        complete_while_typing=True) -> PromptSession:
    python = PygmentsLexer(PythonLexer)
    plain = SimpleLexer()
    ps: PromptSession = None  # type: ignore[assignment]
    small = small_input(lambda: ps.default_buffer if ps is not None else None)

    def lexer():
        if ps is None:
            return plain
        doc = ps.default_buffer.document
        # Note [huge input]: re-lexing a big paste or a long line per redraw froze the prompt
        if len(doc.text) > BIG_INPUT or len(doc.current_line) > LONG_LINE:
            return plain
        return plain if doc.text.lstrip().startswith(":") else python

    def toolbar():
        try:
            before = ps.default_buffer.document.text_before_cursor if ps is not None else ""
            sig = signature_fragments(before, session.namespace) \
                if before and len(before) <= BIG_INPUT else []   # Note [huge input]
        except Exception:  # noqa: BLE001 - a toolbar must never take the prompt down
            sig = []
        try:
            tr = session.trace
            n = len(tr)
            state = ("<on>on</on>" if tr.enabled else "<off>off</off>")
            tut = session.playback.status() if session.playback is not None else ""
            tut = f" · {tut}" if tut else ""
            status = HTML(f" trace {state} · {n} event{'s' * (n != 1)}{tut} · "
                          ":help · x? explains x · Tab completes · Ctrl-D quits ")
        except Exception:  # noqa: BLE001
            status = " :help · Ctrl-D quits "
        if not sig:
            return status
        return sig + [("", "\n")] + to_formatted_text(status)

    ps = PromptSession(
        input=input, output=output,
        history=history if history is not None else make_history(console=session.console),
        lexer=DynamicLexer(lexer),
        completer=ReplCompleter(lambda: session.namespace, COMMANDS,
                                lambda: session.trace.events),
        # Note [huge input]: past BIG_INPUT characters, no per-keystroke extras, and a long
        # line shows as a window around the cursor
        complete_while_typing=Condition(lambda: bool(complete_while_typing)) & small,
        auto_suggest=ConditionalAutoSuggest(AutoSuggestFromHistory(), small),
        input_processors=[LongLineWindow()],
        multiline=True,
        key_bindings=_key_bindings(session),
        bottom_toolbar=toolbar,
        # "... " starts a new line of a block; a long line that merely wraps gets none
        prompt_continuation=lambda width, line_number, wrap: (
            "" if wrap else [("class:continuation", "... ".rjust(width))]),
        style=STYLE,
        include_default_pygments_style=True,
        enable_history_search=False,
        mouse_support=False,
    )
    # at most ~20 redraws a second: a paste without bracketed paste arrives in many small
    # reads, and each redraw lays out the whole input
    ps.app.min_redraw_interval = 0.05
    fast_plain_keys(ps.app.input)   # Note [huge input]: typed/pasted text skips the parser

    def redraw_rate(buffer):        # a huge input: a redraw at most twice a second
        ps.app.min_redraw_interval = 0.05 if len(buffer.text) <= BIG_INPUT else 0.5
    ps.default_buffer.on_text_changed += redraw_rate
    return ps


def run_repl(session: Session | None = None, input=None, output=None, history=None,
             banner=True, complete_while_typing=True) -> int:
    """Read-eval-print until Ctrl-D or :quit. Returns the exit status (0).

    The loop only reads: what an input means while a tutorial plays or ``:backward``
    steps is the business of ``session.playback`` / ``session.stepper`` (``modes.py``)."""
    session = session or Session(interactive=True)
    ps = make_prompt_session(session, input=input, output=output, history=history,
                             complete_while_typing=complete_while_typing)
    if banner:
        session.console.print(Text(session.banner(), style="dim"))
    failures = 0
    try:
        while not session.quit_requested:
            if session.playback is not None:
                session.playback.announce()  # the waiting step shows itself, once
            try:
                text = ps.prompt([("class:prompt", ">>> ")])
            except KeyboardInterrupt:
                if session.playback is not None:
                    session.playback.stop()
                continue
            except EOFError:
                break
            except Exception as e:  # noqa: BLE001 - the terminal or prompt_toolkit failed
                failures += 1
                session.console.print(Text(f"(prompt error: {type(e).__name__}: {e})",
                                           style="red"))
                if failures >= 3:  # it keeps failing: leave rather than spin
                    return 1
                continue
            failures = 0
            try:
                if session.stepper is None and session.playback is not None \
                        and session.playback.take(text):
                    continue  # Enter ran the waiting tutorial step
                session.handle(text)
            except KeyboardInterrupt:
                session.console.print(Text("KeyboardInterrupt", style="bold red"))
    finally:
        session.close()
    return session.exit_status or 0
