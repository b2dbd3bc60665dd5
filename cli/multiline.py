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


COMPILE_ALWAYS_BELOW = 300    # characters: typed input gets its syntax errors at once


_LAST = ["", True]    # the last big input asked about and its answer (asked twice on Enter)


def is_complete(text: str) -> bool:
    if len(text) <= COMPILE_ALWAYS_BELOW:
        return _is_complete(text)
    if text != _LAST[0]:
        _LAST[:] = [text, _is_complete(text)]
    return _LAST[1]


def _is_complete(text: str) -> bool:
    if not text.strip() or text.lstrip().startswith(":"):
        return True
    nl = text.rfind("\n")
    lines = [text] if nl < 0 else ["", text[nl + 1:]]   # only the last line is needed
    # Linear in the input (Note [Linear completeness]): past a few thousand characters the
    # compiler is asked only when the text may be complete; inside brackets, a triple-
    # quoted string, after a backslash, or on an indented line of a block the answer is
    # "keep reading" without compiling (a syntax error there shows when the input ends).
    if len(text) > COMPILE_ALWAYS_BELOW:
        if open_brackets(text):
            return False
        if len(lines) > 1 and lines[-1][:1] in (" ", "\t") and lines[-1].strip():
            return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. SyntaxWarning for "is" with a literal
            code = codeop.compile_command(text, "<input>", "exec")
    except (SyntaxError, ValueError, OverflowError, MemoryError, RecursionError):
        return True  # RecursionError: a 100,000-term expression; running it says so
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
    last = text_before_cursor[text_before_cursor.rfind("\n") + 1:]
    indent = last[:len(last) - len(last.lstrip())]
    stripped = last.split("#")[0].rstrip()
    if stripped.endswith(":"):
        return indent + "    "
    if _DEDENT_AFTER.match(last):
        return indent[:-4] if len(indent) >= 4 else ""
    return indent


# Note [Linear completeness]: pasting 8,000 lines of a list literal (or feeding them to
# script mode) asks "complete yet?" after every line. Compiling the whole open text each
# time is quadratic (87 s for 8,000 lines). ``Scanner`` reads each line once and keeps the
# bracket depth and any open string; ``open_brackets`` resumes from the state cached for the
# text's longest already-scanned prefix of whole lines, so a growing input costs O(length).

class Scanner:
    __slots__ = ("depth", "quote", "backslash")

    def __init__(self, depth=0, quote=None, backslash=False):
        self.depth = depth          # open (, [, {
        self.quote = None if quote is None else quote   # an open triple-quoted string
        self.backslash = backslash  # the last line ended with a continuation backslash

    def copy(self):
        return Scanner(self.depth, self.quote, self.backslash)

    def feed(self, line: str):
        i, n = 0, len(line)
        quote = self.quote
        depth = self.depth
        while i < n:
            c = line[i]
            if quote is not None:
                if c == "\\":
                    i += 2
                    continue
                if line.startswith(quote, i):
                    i += len(quote)
                    quote = None
                    continue
                i += 1
                continue
            if c == "#":
                break
            if c in "\"'":
                q3 = c * 3
                quote = q3 if line.startswith(q3, i) else c
                i += len(quote)
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth = max(0, depth - 1)
            i += 1
        self.backslash = line.endswith("\\") and quote is None or (
            quote is not None and len(quote) == 1 and line.endswith("\\"))
        if quote is not None and len(quote) == 1 and not self.backslash:
            quote = None            # an unterminated one-line string: a syntax error
        self.quote = quote
        self.depth = depth

    @property
    def open(self) -> bool:
        return self.depth > 0 or self.quote is not None or self.backslash


_SCAN_CACHE: list = ["", Scanner()]   # (scanned prefix ending in "\n", its state)


def scan_lines(text: str) -> Scanner:
    """The scanner's state after ``text``'s whole lines (all but the text after its last
    newline): a copy the caller may feed. Amortised linear over a growing input."""
    prefix, state = _SCAN_CACHE
    if not (prefix and text.startswith(prefix)):
        prefix, state = "", Scanner()
    cut = text.rfind("\n") + 1
    if cut > len(prefix):
        state = state.copy()
        for line in text[len(prefix):cut - 1].split("\n"):
            state.feed(line)
        prefix = text[:cut]
        _SCAN_CACHE[:] = [prefix, state]
    return state.copy()


def open_brackets(text: str) -> bool:
    """Is ``text`` certainly unfinished: an open bracket, an open triple-quoted string or a
    trailing backslash? Amortised linear over a growing input."""
    last = scan_lines(text)
    last.feed(text[text.rfind("\n") + 1:])
    return last.open


class Growing:
    """``is_complete`` for an input that grows a line at a time (a paste, key by key): the
    cheap rules run on the new line only, with the scanner carried along, and the compiler
    is asked (about the whole text) only where they cannot tell — so a pasted literal of
    8,000 lines costs O(length), not O(length x lines)."""

    def __init__(self, text: str):
        self.state = scan_lines(text)     # after text's whole lines
        self.multiline = "\n" in text

    def ends_line(self, line: str, length: int, text) -> bool:
        """Enter after ``line`` (the input's last line), the input ``length`` characters
        long; ``text()`` builds it (only when needed). Is the input complete?"""
        self.state.feed(line)
        cheap = length > COMPILE_ALWAYS_BELOW and (self.state.open or (
            self.multiline and line[:1] in (" ", "\t") and line.strip() != ""))
        self.multiline = True
        return False if cheap else is_complete(text())
