"""``vg.viz``: pictures of autograd graphs (re-exported from ``viewgrad.render``).

    vg.viz.draw(obj)              → graphviz.Digraph of a tensor, tensors, snapshot, event,
                                    backward pass or one moment of it (``bt.at(k)``)
    vg.viz.to_svg(obj, path)      → writes .svg / .png / .pdf (system ``dot``, else
                                    ``graphviz-pure``); a backward pass takes ``step=k``
    vg.viz.show(obj)              → prints the rich terminal rendering
    vg.viz.storage(t)             → graphviz.Digraph of t's storage, its views outlined
    vg.viz.show_storage(t)        → the same in the terminal, a row of cells per tensor

Names: tensors are named after the caller's variables, parameters by module path
(``model.0.weight``, found through the Modules among the caller's variables), or by
``params=dict(model.named_parameters())`` as torchviz's ``make_dot`` takes them.

The ``graphviz`` package is imported on first use, so ``import viewgrad`` stays light.
"""
import sys as _sys

from .render.svg import find_renderer, RendererNotFound, render_svg_text

__all__ = ["draw", "to_svg", "render_svg_text", "find_renderer", "RendererNotFound", "show",
           "storage", "show_storage"]


def _caller_namespace(obj, depth=2):
    if hasattr(obj, "before") or hasattr(obj, "nodes"):
        return None
    f = _sys._getframe(depth)
    return {**f.f_globals, **f.f_locals}


def draw(obj, max_nodes=60, namespace=None, layout="auto", params=None):
    """A ``graphviz.Digraph`` of an InplaceEvent (before | after clusters), a GraphSnapshot,
    a Tensor or a list of Tensors, a backward pass or one moment of it (see
    ``viewgrad.render.dot.draw``). Like torchviz's ``make_dot(y, params=dict(
    model.named_parameters()))``, ``params`` names parameters; without it they are named
    by module path through the Modules among the caller's variables."""
    from .render.dot import draw as _draw
    if namespace is None:
        namespace = _caller_namespace(obj)
    return _draw(obj, max_nodes=max_nodes, namespace=namespace, layout=layout, params=params)


def to_svg(obj, path, renderer=None, **draw_kw):
    """Draw ``obj`` and write SVG to ``path`` (renderer: "dot", "graphviz-pure", "auto",
    a path; default ``$VIEWGRAD_RENDERER`` or auto). Returns the path."""
    from .render.svg import to_svg as _to_svg
    if "namespace" not in draw_kw:
        draw_kw["namespace"] = _caller_namespace(obj)
    return _to_svg(obj, path, renderer, **draw_kw)


def show(obj, console=None, compact=False, namespace=None, params=None):
    """Print ``obj`` (an event, snapshot, tensor or tensors, a backward moment) in the
    terminal with rich; tensors are named as in ``draw``."""
    from .render.terminal import show as _show
    if namespace is None:
        namespace = _caller_namespace(obj)
    _show(obj, console=console, compact=compact, namespace=namespace, params=params)


def _storage_target(obj, namespace):
    from .tensor import Tensor
    if isinstance(obj, Tensor):
        from .trace import storage_snapshot
        return storage_snapshot(obj, namespace)
    return obj


def storage(obj, namespace=None):
    """A ``graphviz.Digraph`` of the storage behind ``obj`` (a tensor, a snapshot or an
    in-place event): the base's cells with their values, each live view's elements
    outlined with its sizes, strides and storage offset, the region an event wrote
    filled. (PyTorch has no picture of this; ``t.stride()`` and ``t.storage_offset()``
    are the numbers it shows.)"""
    from .render.storage import draw_storage
    if namespace is None:
        namespace = _caller_namespace(obj)
    return draw_storage(_storage_target(obj, namespace))


def show_storage(obj, console=None, namespace=None):
    """Print the storage picture of ``obj`` in the terminal (a row of cells per tensor)."""
    from rich.console import Console
    from .render.storage import render_storage
    if namespace is None:
        namespace = _caller_namespace(obj)
    (console or Console()).print(render_storage(_storage_target(obj, namespace)))
