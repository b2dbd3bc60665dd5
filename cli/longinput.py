"""Huge inputs at the prompt stay fast: a 47 KB line, a 200 KB paste without bracketed paste.

Note [huge input]: prompt_toolkit's costs grow with the input at three places, and a
one-line 47 KB literal took ~25 s to type in (a 200 KB paste froze the prompt for minutes):

1. **Layout.** Every redraw lays out the whole buffer: a wrapped 47 KB line is ~600 screen
   rows, each asking for its continuation prefix, just to find out how tall it is.
   ``LongLineWindow`` shows a line longer than ``LONG_LINE`` characters as a window of that
   many characters around the cursor, with "…N chars…" markers for the rest: the layout
   then costs what fits on a screen, whatever the line's length.
2. **Work per keystroke.** Highlighting, completion while typing, suggestions from history
   and the signature toolbar each read the whole text; past ``BIG_INPUT`` characters
   ``small_input`` switches them off (Tab still completes), and a line longer than
   ``LONG_LINE`` is not highlighted.
   A redraw then happens at most twice a second (prompt_toolkit reads input 1 KB at a
   time and redraws after each read).
3. **Key parsing.** Without bracketed paste every character goes through the VT100
   parser's state machine (two regular expressions and a generator switch per character).
   ``fast_plain_keys`` hands runs of printable characters (and line breaks, tabs)
   straight to the key processor while the parser holds no pending escape sequence: the
   same key presses, a few microseconds each instead of ~60. The paste handler in
   ``repl.py`` then inserts them at once, and asks "complete yet?" line by line
   (``multiline.Growing``).
"""
from __future__ import annotations

import re

from prompt_toolkit.filters import Condition
from prompt_toolkit.input.ansi_escape_sequences import ANSI_SEQUENCES
from prompt_toolkit.key_binding.key_processor import KeyPress
from prompt_toolkit.layout.processors import Processor, Transformation

__all__ = ["LONG_LINE", "BIG_INPUT", "LongLineWindow", "small_input", "fast_plain_keys"]

LONG_LINE = 1000    # characters of one line shown at once (a window around the cursor)
BIG_INPUT = 5000    # characters of input past which per-keystroke extras switch off


def small_input(get_buffer) -> Condition:
    """True while the buffer holds at most ``BIG_INPUT`` characters (Note [huge input])."""
    def small():
        b = get_buffer()
        return b is None or len(b.text) <= BIG_INPUT
    return Condition(small)


class LongLineWindow(Processor):
    """A line longer than ``LONG_LINE`` is shown as ``LONG_LINE`` characters around the
    cursor (its start, on other lines) between "…N chars…" markers (Note [huge input])."""

    def apply_transformation(self, ti) -> Transformation:
        fragments = ti.fragments
        n = sum(len(f[1]) for f in fragments)
        if n <= LONG_LINE:
            return Transformation(fragments)
        doc = ti.document
        cur = ti.source_to_display(doc.cursor_position_col) \
            if ti.lineno == doc.cursor_position_row else 0
        a = max(0, min(cur - LONG_LINE // 2, n - LONG_LINE))
        b = min(n, a + LONG_LINE)
        left = f"…{a:,} chars… " if a else ""
        right = f" …{n - b:,} chars…" if b < n else ""
        out = [("class:long-line", left)] if left else []
        pos = 0
        for frag in fragments:
            text = frag[1]
            end = pos + len(text)
            if end > a and pos < b:
                out.append((frag[0], text[max(0, a - pos):b - pos], *frag[2:]))
            pos = end
        if right:
            out.append(("class:long-line", right))
        k = len(left)
        return Transformation(
            out,
            source_to_display=lambda i: k + min(max(i, a), b) - a,
            display_to_source=lambda j: a + min(max(j - k, 0), b - a))


# Printable characters, and the line breaks and tabs of pasted code: never the start of
# an escape sequence (the VT100 parser maps each to one key when nothing is pending).
_PLAIN_RUN = re.compile(r"[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x9b]+")
_CONTROL = {c: ANSI_SEQUENCES[c] for c in "\t\n\r"}


def fast_plain_keys(inp) -> bool:
    """Let ``inp``'s VT100 parser pass runs of printable characters straight through
    (Note [huge input]). False (nothing changed) when ``inp`` has no such parser."""
    parser = getattr(inp, "vt100_parser", None)
    if parser is None or getattr(parser, "_viewgrad_fast", False):
        return parser is not None
    feed, emit = parser.feed, parser.feed_key_callback
    presses = {}     # one KeyPress per character, shared: they are read, never changed

    def idle() -> bool:
        # the parser's generator waits for a character with nothing pending (no prefix
        # of an escape sequence); anything unexpected: take the slow, exact path
        try:
            frame = parser._input_parser.gi_frame
            return frame is not None and frame.f_locals.get("prefix") == "" \
                and not frame.f_locals.get("retry")
        except Exception:  # noqa: BLE001
            return False

    def fast_feed(data: str) -> None:
        i, n = 0, len(data)
        while i < n:
            if getattr(parser, "_in_bracketed_paste", True):
                feed(data[i:])          # prompt_toolkit's own fast path
                return
            m = _PLAIN_RUN.match(data, i)
            if m is not None and idle():
                for c in m.group():
                    kp = presses.get(c)
                    if kp is None:
                        kp = KeyPress(_CONTROL.get(c, c), c)
                        if len(presses) < 4096:
                            presses[c] = kp
                    emit(kp)
                i = m.end()
            else:
                feed(data[i])
                i += 1

    parser.feed = fast_feed
    parser._viewgrad_fast = True
    return True
