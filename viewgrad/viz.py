"""``vg.viz``: pictures of autograd graphs (re-exported from ``viewgrad.render``).

    vg.viz.draw(obj)              → graphviz.Digraph of a tensor, tensors, snapshot or event
    vg.viz.to_svg(obj, path)      → writes an SVG (system ``dot``, else ``graphviz-pure``)
    vg.viz.show(obj)              → prints the rich terminal rendering
"""
from .render.dot import draw
from .render.svg import to_svg, render_svg_text, find_renderer, RendererNotFound


def show(obj, console=None):
    """Print ``obj`` (an event, snapshot, tensor or tensors) in the terminal with rich."""
    from .render.terminal import show as _show
    _show(obj, console=console)


__all__ = ["draw", "to_svg", "render_svg_text", "find_renderer", "RendererNotFound", "show"]
