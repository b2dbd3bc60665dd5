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
    """(filename, lineno, None) of the innermost frame outside the viewgrad package.

    Cheap on purpose (it runs for every node that saves a tensor): one frame lookup at
    the usual depth, a walk only when that frame is still inside viewgrad, the "inside?"
    answer remembered per file name (``_inside``); the source text is looked up later,
    only when an error message needs it (``fmt_where``)."""
    try:
        f = _getframe(depth)
    except ValueError:
        return None
    while f is not None:
        co = f.f_code
        fn = co.co_filename
        inside = _INSIDE.get(fn)
        if inside is None:
            inside = _inside(fn)
        if not inside:
            return (fn, f.f_lineno, None)
        f = f.f_back
    return None


_INSIDE = {}  # file name -> whether it is in the viewgrad package (bounded: see _inside)
_getframe = sys._getframe


def _inside(filename):
    if len(_INSIDE) > 4096:  # a REPL or exec() makes new names ('<stdin>-12'): stay small
        _INSIDE.clear()
    inside = _INSIDE[filename] = filename.startswith(_PKG_DIR)
    return inside


def fmt_where(where) -> str:
    if where is None:
        return "<unknown>"
    fn, ln, text = where
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
