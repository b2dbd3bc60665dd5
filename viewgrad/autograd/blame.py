"""Blame: which op at which line moved a tensor's version (for the version error).

When blame is on (the default), every in-place op records ``(op name, file, line, text,
new version)`` on the storage's ``VersionCounter`` (only the last few), and every saved
tensor remembers where it was saved. ``describe`` turns that into the extra lines of the
"modified by an inplace operation" error. ``set_blame(False)`` turns it off for speed.
"""
from __future__ import annotations

import linecache
import os
import sys

from .state import state as _st

__all__ = ["set_blame", "is_blame_enabled", "user_frame", "describe", "KEEP"]

KEEP = 4  # bumps remembered per storage
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def set_blame(enabled: bool):
    """Turn blame recording on or off (on by default)."""
    _st.blame = bool(enabled)


def is_blame_enabled() -> bool:
    return _st.blame


def user_frame(depth=2):
    """Where the user is: ``(code, lasti)`` of the innermost frame outside the viewgrad
    package (Note [blame marks]); ``fmt_where`` turns it into "file:line (text)".

    Cheap on purpose (it runs for every node that saves a tensor): one frame lookup at
    the usual depth, a walk only when that frame is still inside viewgrad, the "inside?"
    answer remembered per file name."""
    try:
        f = _getframe(depth)
    except ValueError:
        return None
    while f is not None:
        co = f.f_code
        inside = _INSIDE.get(co.co_filename)
        if inside is None:
            inside = _inside(co.co_filename)
        if not inside:
            return (co, f.f_lasti)
        f = f.f_back
    return None


# Note [blame marks]
# A speed trick: blame is on by default and marks every saving node and every version
# bump, so the mark must cost next to nothing. It keeps the frame's code object and the
# offset of the instruction running in it (``f_lasti``): reading ``f_lineno`` decodes the
# code's line table on every call, and the file name, line number and source text are
# needed only when an error message is written (``_resolve``). A code object holds no
# frame and no locals, so a mark keeps nothing else alive and makes no cycle.
_INSIDE = {}  # file name -> whether it is in the viewgrad package (bounded: see _inside)
_getframe = sys._getframe


def _inside(filename):
    if len(_INSIDE) > 4096:  # a REPL or exec() makes new names ('<stdin>-12'): stay small
        _INSIDE.clear()
    inside = _INSIDE[filename] = filename.startswith(_PKG_DIR)
    return inside


def _resolve(where):
    """(filename, lineno, text or None) of a mark made by ``user_frame``."""
    if len(where) == 3:
        return where
    co, lasti = where
    line = co.co_firstlineno
    for start, end, ln in co.co_lines():
        if start <= lasti < end and ln is not None:
            line = ln
            break
    return (co.co_filename, line, None)


def fmt_where(where) -> str:
    if where is None:
        return "<unknown>"
    fn, ln, text = _resolve(where)
    if text is None:
        text = linecache.getline(fn, ln).strip()
    short = os.path.basename(fn)
    return f"{short}:{ln} ({text})" if text else f"{short}:{ln}"


def describe(saved, current) -> str:
    """The blame lines for a saved tensor now at version ``current``."""
    parts = []
    node_name = None
    if saved.where is not None:
        node_name, where = saved.where
        parts.append(f"saved by {node_name} at {fmt_where(where)} at version "
                     f"{saved.saved_version}")
    bumps = [b for b in (saved.version_counter.bumps or ())
             if b[3] > saved.saved_version]
    for op, where, _, version in bumps:
        parts.append(f"modified by {op} at {fmt_where(where)} -> version {version}")
    return "; ".join(parts)


def describe_view(t, vi) -> str:
    """Blame lines for a forbidden in-place on a view: where it was made, and what
    modified its base since (for views made under no_grad)."""
    parts = []
    if vi.where is not None:
        parts.append(f"the view was made by {vi.made_by[0] if vi.made_by else 'a view op'} "
                     f"at {fmt_where(vi.where)}")
    bumps = t._version_counter.bumps or ()
    for op, where, _, version in bumps:
        parts.append(f"its base was modified by {op} at {fmt_where(where)} -> version "
                     f"{version}")
    return "; ".join(parts)
