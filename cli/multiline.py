"""When is typed input complete, and how far should the next line be indented?

The rule is Python's own REPL rule, decided by the compiler (``codeop``) rather than by
guessing from brackets:

* the compiler says "incomplete" (an open bracket, a ``def f():`` with no body, a trailing
  backslash) -> keep reading;
* it compiles, but the last line is indented (we are inside a block) -> keep reading until
  an empty line, because the block may go on (``else:``, more statements);
* anything else -> run it. A syntax error is "complete" too: running it shows the error.

Colon commands (``:graph x``) are always a single line.
"""
from __future__ import annotations

import codeop
import re
import warnings

_DEDENT_AFTER = re.compile(r"^\s*(return|pass|break|continue|raise)\b")


def is_complete(text: str) -> bool:
    if not text.strip() or text.lstrip().startswith(":"):
        return True
    lines = text.split("\n")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. SyntaxWarning for "is" with a literal
            code = codeop.compile_command(text, "<input>", "exec")
    except (SyntaxError, ValueError, OverflowError, MemoryError):
        return True
    if code is None:
        return False
    if len(lines) > 1 and not lines[-1].strip():
        return True  # the empty line that ends a block
    if lines[-1][:1] in (" ", "\t"):
        return False
    if len(lines) == 1 and text.rstrip().endswith(":"):
        return False  # defensive: an opened block on one line
    return True


def next_indent(text_before_cursor: str) -> str:
    """Indentation for the line after ``text_before_cursor``'s last line."""
    last = text_before_cursor.split("\n")[-1]
    indent = last[:len(last) - len(last.lstrip())]
    stripped = last.split("#")[0].rstrip()
    if stripped.endswith(":"):
        return indent + "    "
    if _DEDENT_AFTER.match(last):
        return indent[:-4] if len(indent) >= 4 else ""
    return indent
