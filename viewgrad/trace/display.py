"""How trace objects get their pictures without ``trace/`` importing ``render/``.

The house rule is one-way: trace observes, render draws. A snapshot, an event or a
backward pass still wants ``_repr_svg_`` (notebooks), ``__rich__`` (the terminal) and
``to_svg``/``to_html``. So ``trace/`` keeps this small registry of *painters* and
``render/`` fills it when it is imported (``viewgrad/render/__init__.py``; ``import
viewgrad`` imports it through ``vg.viz``). A trace object asks the registry; the registry
never imports anything.

  register(kind, fmt, fn)    render/ says: ``fn(obj, **kw)`` paints ``kind`` as ``fmt``
  paint(kind, fmt, obj)      what a trace object calls
  Displayable                the mixin giving ``_repr_svg_``, ``__rich__``, ``to_svg``

kinds: "snapshot", "event", "backward", "trace"; formats: "svg" (text), "rich" (a rich
renderable), "svg_file" (writes a file), "html" (page text, or writes ``path``).
"""
from __future__ import annotations

__all__ = ["register", "paint", "painter", "Displayable", "NoPainter"]

_PAINTERS: dict = {}


class NoPainter(LookupError):
    """Nothing registered to draw this kind in this format (render/ not imported)."""


def register(kind: str, fmt: str, fn) -> None:
    _PAINTERS[(kind, fmt)] = fn


def painter(kind: str, fmt: str):
    fn = _PAINTERS.get((kind, fmt))
    if fn is None:
        raise NoPainter(f"no renderer draws a {kind} as {fmt}: import viewgrad.render "
                        "(``import viewgrad`` does it) to give trace objects their pictures")
    return fn


def paint(kind: str, fmt: str, obj, *args, **kw):
    return painter(kind, fmt)(obj, *args, **kw)


class Displayable:
    """Pictures for a trace object whose class sets ``_display_kind``."""

    __slots__ = ()
    _display_kind = ""

    def _repr_svg_(self):
        return paint(self._display_kind, "svg", self)

    def __rich__(self):
        return paint(self._display_kind, "rich", self)

    def to_svg(self, path, renderer=None, **kw):
        """Write this picture to ``path``: SVG, PNG or PDF, as the extension says."""
        return paint(self._display_kind, "svg_file", self, path, renderer=renderer, **kw)
