"""Text that came from outside (a trace file, a tensor's ``name``, a user's repr) made safe
for every place it is shown: HTML, SVG, Graphviz DOT and the rich terminal.

One small module that every renderer uses (Note [Untrusted text]):

* ``clean(s, limit)``: any value → a printable ``str``: lone surrogates become U+FFFD (they
  cannot be encoded, and poison rich's buffer and Graphviz's input), control characters
  (NUL, ESC, DEL, C1…) become visible escapes (``\\x1b``: an ESC must never reach a
  terminal, a NUL ends C strings inside ``dot``), and text longer than ``limit`` is cut
  with ``…``. Newlines and tabs are kept only when ``keep_newlines``.
* ``html_text(s)``: ``clean`` then HTML-escaped (quotes too: safe in text and attributes).
  Graphviz's HTML-like labels use the same escaping.
* ``dot_string(s)``: a complete double-quoted DOT string (backslashes and quotes escaped,
  so a trailing ``\\`` cannot swallow the closing quote).
* ``rich_text(s, style)``: a ``rich.text.Text`` of the cleaned string: never parsed as
  markup, so ``[/]`` or ``[nan, 2.0]`` print as written.
* ``safe_repr(obj, limit)``: ``repr`` that never raises and is cut at ``limit``.

Note [Untrusted text]: a trace file is data a stranger may have written. The loader
(``jsonio``) checks every field's type and every id's shape; what is left — free text in
names, labels, values, source lines — is passed through this module at the moment it is
drawn, never earlier (a loaded trace keeps the exact text it was given, so writing it back
out loses nothing).
"""
from __future__ import annotations

import html
import re

__all__ = ["clean", "html_text", "dot_string", "rich_text", "safe_repr", "LABEL_LIMIT",
           "SAFE_ID"]

LABEL_LIMIT = 200          # characters of one label drawn in a picture
# what the tracer writes as ids (registry.Ids): n12, t3. Anything else in a file is refused.
SAFE_ID = re.compile(r"[nt][0-9]{1,18}\Z")

# lone surrogates; C0 controls except \t \n; DEL; C1 controls; U+2028/9 (line breaks that
# would confuse a one-line label)
_BAD = re.compile("[\ud800-\udfff\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_BAD_NL = re.compile("[\ud800-\udfff\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _fix(m) -> str:
    c = m.group()
    if "\ud800" <= c <= "\udfff":
        return "\ufffd"
    o = ord(c)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}"


def clean(s, limit=None, keep_newlines=False) -> str:
    """``s`` (any value; non-strings through ``str``) as printable text: see the module
    docstring. ``limit``: the longest result, ``…`` included."""
    if not isinstance(s, str):
        s = safe_repr(s)
    if limit is not None and len(s) > limit:
        s = s[:max(0, limit - 1)] + "…"
    s = (_BAD if keep_newlines else _BAD_NL).sub(_fix, s)
    if limit is not None and len(s) > limit:      # escapes made it longer
        s = s[:max(0, limit - 1)] + "…"
    return s


def html_text(s, limit=None, keep_newlines=True) -> str:
    """``s`` cleaned and escaped for HTML/XML text or a quoted attribute value."""
    return html.escape(clean(s, limit, keep_newlines), quote=True)


def dot_string(s, limit=None) -> str:
    """``s`` as a double-quoted DOT string (for an attribute value or a node name)."""
    s = clean(s, limit)
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def rich_text(s, style="", limit=None, keep_newlines=True):
    """A rich ``Text`` holding ``s`` literally (no markup, no control characters)."""
    from rich.text import Text
    return Text(clean(s, limit, keep_newlines), style=style)


def safe_repr(obj, limit=None) -> str:
    """``repr(obj)``, or a placeholder when that raises; cut at ``limit`` characters."""
    try:
        s = repr(obj)
        if not isinstance(s, str):
            raise TypeError("__repr__ returned a non-string")
    except Exception as e:  # noqa: BLE001 - user objects can raise anything
        s = f"<{type(obj).__name__} object (repr failed: {type(e).__name__})>"
    if limit is not None and len(s) > limit:
        s = s[:max(0, limit - 1)] + "…"
    return s
