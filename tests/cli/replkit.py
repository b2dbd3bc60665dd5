"""Helpers for the REPL tests: a session printing into a buffer, and ``drive()`` which types
into a real prompt_toolkit REPL through a pipe input."""
from __future__ import annotations

import io

from rich.console import Console


OPEN_SESSIONS: list = []  # closed after each test by conftest (their tracers stop)


def new_session(trace=True, width=110):
    from viewgrad_cli.session import Session
    buf = io.StringIO()
    s = Session(console=Console(file=buf, width=width, color_system=None, highlight=False),
                trace=trace)
    OPEN_SESSIONS.append(s)
    return s, buf


def close_sessions():
    while OPEN_SESSIONS:
        OPEN_SESSIONS.pop().close()


def drive(*chunks, session=None, trace=True, history=None):
    """Type ``chunks`` (strings; use \\r for Enter) into a REPL; Ctrl-D is sent at the end.
    Returns (output text, session)."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from prompt_toolkit.history import InMemoryHistory
    from viewgrad_cli.repl import run_repl
    if session is None:
        session, buf = new_session(trace=trace)
    else:
        buf = session.console.file
    with create_pipe_input() as inp:
        for c in chunks:
            inp.send_text(c)
        inp.send_text("\x04")
        run_repl(session, input=inp, output=DummyOutput(),
                 history=history if history is not None else InMemoryHistory(),
                 banner=False, complete_while_typing=False)
    return buf.getvalue(), session
