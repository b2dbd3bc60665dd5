"""One code object per row for the hot closures (Note [a code object per row]).

Note [a code object per row]
A speed trick, fenced off here. CPython (3.11 on) specializes each attribute read and
write of a function's bytecode for the type it meets there, and the specialization lives
in the code object. The lean methods of ops/lean.py and the lean steps of
autograd/apply_lean.py are closures made once per row from one ``def``: every row's
method shares one code object, so a program of six ops meets six node classes at each
``node._sdict = ...``, and the specialized instructions keep missing and falling back to
the generic path. ``own_code(f)`` gives ``f`` a copy of its code object, its own, so each
row's instructions see one node class. Nothing else changes: the same bytecode, names,
defaults, closure cells, line numbers and tracebacks.
"""
from __future__ import annotations

__all__ = ["own_code"]


def own_code(f):
    """Give ``f`` a copy of its code object (Note [a code object per row]); returns
    ``f``."""
    f.__code__ = f.__code__.replace()
    return f
