"""Non-interactive mode: run lines as if typed, print the transcript.

``viewgrad repl --script FILE`` (or any ``viewgrad`` whose stdin is not a terminal) feeds
the lines to a ``Session`` exactly as a person would type them and prints a transcript:
each input echoed after ``>>> `` / ``... ``, followed by what the REPL printed. It is how
tests and docs show a session.

Grouping lines into inputs follows the interactive rule (``multiline.is_complete``), with
one forgiveness that script files need: a line at column 0 that cannot continue the open
block (anything but ``else:``/``elif``/``except``/``finally``/a closing bracket…) ends the
block even without an empty line, as it would in a ``.py`` file.

A tutorial started with ``:tutorial N`` plays all its steps at once (``gpu`` steps are
skipped, with the reason, where there is no GPU). The exit status is 1
when any input raised (so CI can run a transcript as a check), else 0.
"""
from __future__ import annotations

import re

from .multiline import COMPILE_ALWAYS_BELOW, Scanner, is_complete
from .session import Session

_CONTINUES_BLOCK = re.compile(r"^(else|elif|except|finally|case)\b|^[)\]}]")


def run_lines(session: Session, lines, echo=True) -> int:
    buf: list[str] = []
    scan = [Scanner(), 0]    # the open input's bracket/string state and length: linear

    def flush():
        scan[:] = [Scanner(), 0]
        if buf:
            text = "\n".join(buf).rstrip("\n")
            buf.clear()
            run(text)

    def surely_open(line):
        """Certainly unfinished without compiling (Note [Linear completeness])."""
        if scan[1] <= COMPILE_ALWAYS_BELOW:
            return False
        return scan[0].open or (len(buf) > 1 and line[:1] in (" ", "\t") and line.strip())

    def run(text):
        session.handle(text)
        drain_tutorial()

    def drain_tutorial():
        if session.playback is not None:
            session.playback.run_all(echo=echo)

    lines = iter(lines)
    while not session.quit_requested:   # exit() closes stdin: never read past it
        raw = next(lines, None)
        if raw is None:
            break
        line = raw.rstrip("\r\n")
        if buf and line and not line[0].isspace() and not _CONTINUES_BLOCK.match(line) \
                and buf[-1][:1].isspace() and is_complete("\n".join(buf) + "\n"):
            flush()  # a script's dedented line ends the open block
        if not buf and not line.strip():
            continue
        if echo:
            session.echo_line(line, continuation=bool(buf))
        buf.append(line)
        scan[0].feed(line)
        scan[1] += len(line) + 1
        if not surely_open(line) and is_complete("\n".join(buf)):
            flush()
    if not session.quit_requested:
        flush()
    session.close()
    if session.exit_status is not None:      # exit(N) / sys.exit(...) in the script
        return session.exit_status
    return 1 if session.errors else 0
