"""Pictures of snapshots, events and backward passes (render only: never touches graphs).

  dot.py       DOT via the ``graphviz`` package: ``draw`` (snapshot / tensors: one cluster;
               a backward moment: ``draw_moment``), the legend
  panels.py    an event's before | after on ONE layout of the union graph, changes marked
  storage.py   the storage as cells, each view's elements outlined, the written region
  layout.py    viewgrad's own layered layout (font-metric node sizes)
  fold.py      long chains collapsed, wide fans grouped
  fontmetrics.py  DejaVu Sans advance widths: what the pictures name and measure with
  svg.py       which binary turns DOT into SVG (system ``dot`` or ``graphviz-pure``)
  export.py    .svg / .png / .pdf by the file's extension (PDF from PNG without dot)
  terminal.py  rich: a tree per tensor, before | after (stacked when narrow), moments
  html.py      one self-contained web page stepping through a whole trace
  common.py    what to draw, and the neighbourhood of a big graph to keep
"""
# Trace objects get their pictures from here: ``trace/`` never imports ``render/``; it
# keeps a registry (trace/display.py) that this package fills. The painters import the
# drawing modules lazily, so ``import viewgrad`` stays light.
from ..trace import display as _display


def _svg(obj, **kw):
    from .svg import render_svg_text
    return render_svg_text(obj, **kw)


def _svg_file(obj, path, renderer=None, **kw):
    from .svg import to_svg
    return to_svg(obj, path, renderer, **kw)


def _rich(obj, **kw):
    from .terminal import render
    return render(obj, **kw)


def _html(trace, path=None, **kw):
    from .html import to_html
    return to_html(trace, path, **kw)


for _kind in ("snapshot", "event", "backward", "moment"):
    _display.register(_kind, "svg", _svg)
    _display.register(_kind, "svg_file", _svg_file)
    _display.register(_kind, "rich", _rich)
_display.register("trace", "html", _html)
del _kind
