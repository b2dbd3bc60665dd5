"""Start the REPL in the right mode: a prompt for a person, a transcript for a pipe or file.

``start(script=None)``: with ``script`` (a path, or ``-`` for stdin) or when stdin/stdout is
not a terminal, lines are run as if typed and the transcript printed (``script.py``);
otherwise the prompt_toolkit REPL runs (``repl.py``). ``torch=True`` installs viewgrad's
``import torch`` hook for the session (``viewgrad --torch``).
"""
from __future__ import annotations

import sys

from rich.console import Console
from rich.text import Text


def start(script: str | None = None, trace: bool = True, torch: bool = False) -> int:
    if not torch:
        return _start(script, trace, torch)
    from viewgrad.compat import torch_imports
    with torch_imports():  # for the whole session: `import torch` gives viewgrad
        return _start(script, trace, torch)


def _start(script, trace, torch):
    from .session import Session
    interactive = script is None and sys.stdin.isatty() and sys.stdout.isatty()
    if not interactive:
        from .script import run_lines
        if script in (None, "-"):
            # bytes that are not UTF-8 become U+FFFD instead of ending the session
            import io
            lines = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace") \
                if hasattr(sys.stdin, "buffer") else sys.stdin
            session = Session(console=Console(highlight=False), trace=trace, torch=torch)
            return run_lines(session, lines)
        from viewgrad.trace.sanitize import clean as printing_clean
        try:
            with open(script, encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        except (OSError, UnicodeDecodeError, ValueError) as e:
            why = getattr(e, "strerror", None) or (
                f"not UTF-8 text (byte {e.start})" if isinstance(e, UnicodeDecodeError)
                else str(e))
            Console(stderr=True, markup=False).print(Text(
                f"viewgrad: cannot read {printing_clean(script)}: {why}", style="red"))
            return 2
        session = Session(console=Console(highlight=False), trace=trace, torch=torch)
        return run_lines(session, lines)
    from .repl import run_repl
    return run_repl(Session(interactive=True, trace=trace, torch=torch))
