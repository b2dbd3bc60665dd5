"""``vg.viz``: pictures of autograd graphs (re-exported from ``viewgrad.render``).

    vg.viz.draw(obj)              → graphviz.Digraph of a tensor, tensors, snapshot or event
    vg.viz.to_svg(obj, path)      → writes an SVG (system ``dot``, else ``graphviz-pure``)
    vg.viz.show(obj)              → prints the rich terminal rendering

The ``graphviz`` package is imported on first use, so ``import viewgrad`` stays light.
"""
import sys as _sys

from .render.svg import find_renderer, RendererNotFound, render_svg_text

__all__ = ["draw", "to_svg", "render_svg_text", "find_renderer", "RendererNotFound", "show"]


def _caller_namespace(obj, depth=2):
    if hasattr(obj, "before") or hasattr(obj, "nodes"):
        return None
    f = _sys._getframe(depth)
    return {**f.f_globals, **f.f_locals}


def draw(obj, max_nodes=60, namespace=None, layout="auto"):
    """A ``graphviz.Digraph`` of an InplaceEvent (before | after clusters), a GraphSnapshot,
    a Tensor or a list of Tensors (see ``viewgrad.render.dot.draw``)."""
    from .render.dot import draw as _draw
    if namespace is None:
        namespace = _caller_namespace(obj)
    return _draw(obj, max_nodes=max_nodes, namespace=namespace, layout=layout)


def to_svg(obj, path, renderer=None, **draw_kw):
    """Draw ``obj`` and write SVG to ``path`` (renderer: "dot", "graphviz-pure", "auto",
    a path; default ``$VIEWGRAD_RENDERER`` or auto). Returns the path."""
    from .render.svg import to_svg as _to_svg
    if "namespace" not in draw_kw:
        draw_kw["namespace"] = _caller_namespace(obj)
    return _to_svg(obj, path, renderer, **draw_kw)


def show(obj, console=None, compact=False):
    """Print ``obj`` (an event, snapshot, tensor or tensors) in the terminal with rich."""
    from .render.terminal import show as _show
    _show(obj, console=console, compact=compact)
