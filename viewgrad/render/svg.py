"""SVG through a Graphviz binary: the system ``dot`` if present, else ``graphviz-pure``.

``graphviz-pure`` (a dependency, on PyPI) is a self-contained port of Graphviz's ``dot``:
it is installed next to the Python interpreter (``<venv>/bin/graphviz-pure``), so SVG works
after a plain ``pip install viewgrad`` with no system Graphviz.

Which renderer: the ``renderer`` argument, else the ``VIEWGRAD_RENDERER`` environment
variable, else automatic (system ``dot`` first). A renderer is ``"dot"``,
``"graphviz-pure"``, ``"auto"`` or a path to an executable.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

from .fontmetrics import FONT_FAMILY, SVG_FONT_FAMILY

__all__ = ["find_renderer", "render_source", "run_renderer", "write_source", "to_svg",
           "render_svg_text", "RendererNotFound", "ENV_VAR", "RENDERERS"]

ENV_VAR = "VIEWGRAD_RENDERER"
RENDERERS = ("auto", "dot", "graphviz-pure")
FIXED_LAYOUT_MARK = "viewgrad:fixed-layout"   # same as render.dot.FIXED_LAYOUT_MARK

_HOWTO = {
    "dot": "install Graphviz (e.g. `apt-get install graphviz`, `brew install graphviz`, or "
           "https://graphviz.org/download/), or use renderer='graphviz-pure'",
    "graphviz-pure": "install it with `pip install graphviz-pure` (viewgrad depends on it; "
                     "it puts a `graphviz-pure` executable next to your Python), or use "
                     "renderer='dot' with a system Graphviz",
}


class RendererNotFound(RuntimeError):
    """No Graphviz binary to turn DOT into SVG."""


def _pure():
    exe = "graphviz-pure" + (".exe" if os.name == "nt" else "")
    here = os.path.join(os.path.dirname(sys.executable), exe)
    if os.path.isfile(here) and os.access(here, os.X_OK):
        return here
    return shutil.which("graphviz-pure")


def find_renderer(renderer=None) -> tuple[str, str]:
    """``(kind, executable path)`` of the renderer to use; raises RendererNotFound."""
    choice = renderer or os.environ.get(ENV_VAR) or "auto"
    if choice == "auto":
        dot = shutil.which("dot")
        if dot:
            return "dot", dot
        pure = _pure()
        if pure:
            return "graphviz-pure", pure
        raise RendererNotFound(
            "no Graphviz renderer found to make SVG: neither a system `dot` nor the "
            f"`graphviz-pure` executable. Either {_HOWTO['graphviz-pure']}, or "
            f"{_HOWTO['dot'].split(', or use')[0]}. Meanwhile the terminal rendering works: "
            "viewgrad.viz.show(obj).")
    if choice == "dot":
        dot = shutil.which("dot")
        if not dot:
            raise RendererNotFound(f"renderer 'dot' was asked for but no `dot` is on PATH: "
                                   f"{_HOWTO['dot']}")
        return "dot", dot
    if choice == "graphviz-pure":
        pure = _pure()
        if not pure:
            raise RendererNotFound("renderer 'graphviz-pure' was asked for but its executable "
                                   f"was not found next to {sys.executable} nor on PATH: "
                                   f"{_HOWTO['graphviz-pure']}")
        return "graphviz-pure", pure
    if os.path.sep in choice or os.path.isfile(choice):
        if os.path.isfile(choice) and os.access(choice, os.X_OK):
            return "path", choice
        raise RendererNotFound(f"renderer {choice!r} is not an executable file; use one of "
                               f"{', '.join(RENDERERS)} or a path to a Graphviz `dot`")
    raise RendererNotFound(f"unknown renderer {choice!r} (from "
                           f"{'the argument' if renderer else ENV_VAR}); use one of "
                           f"{', '.join(RENDERERS)} or a path to a Graphviz `dot`")


def run_renderer(source: str, fmt="svg", renderer=None, binary=False, dpi=None,
                 timeout=300):
    """DOT text → the renderer's output in ``fmt`` (text for SVG, bytes when ``binary``)."""
    _kind, exe = find_renderer(renderer)
    args = [exe, f"-T{fmt}"]
    if dpi:
        args.append(f"-Gdpi={dpi}")
    if source.startswith("// " + FIXED_LAYOUT_MARK):
        args += ["-Kneato", "-n2"]     # positions already computed (render/layout.py)
    try:
        p = subprocess.run(args, input=source.encode("utf-8"),
                           capture_output=True, timeout=timeout, check=False)
    except OSError as e:
        raise RendererNotFound(f"could not run {exe}: {e.strerror}") from None
    if p.returncode != 0:
        raise RuntimeError(f"{os.path.basename(exe)} failed (exit {p.returncode}): "
                           f"{p.stderr.decode('utf-8', 'replace').strip()[:500]}")
    if binary:
        return p.stdout
    text = p.stdout.decode("utf-8")
    if fmt == "svg":
        # The layout measured DejaVu Sans (render/fontmetrics.py); a viewer without it
        # should fall back to a sans-serif font of similar width, not to Times.
        text = text.replace(f'font-family="{FONT_FAMILY}"', f'font-family="{SVG_FONT_FAMILY}"')
    return text


def render_source(source: str, renderer=None, timeout=300) -> str:
    """DOT text → SVG text."""
    return run_renderer(source, "svg", renderer, timeout=timeout)


def write_source(source: str, path, renderer=None) -> str:
    """Render DOT ``source`` into ``path`` in the format its extension names (.svg, .png,
    .pdf); any other extension is refused (render/export.py)."""
    from .export import write_picture
    return write_picture(source, path, renderer)


def render_svg_text(obj, renderer=None, **draw_kw) -> str:
    """SVG text of anything ``draw`` accepts (used by ``_repr_svg_``)."""
    from .dot import draw
    return render_source(draw(obj, **draw_kw).source, renderer)


def to_svg(obj, path, renderer=None, **draw_kw) -> str:
    """Draw ``obj`` and write it to ``path`` as SVG, PNG or PDF (by its extension; any
    other extension is refused); returns the path. A backward pass takes ``step=k``: the
    moment before step k (default: its end)."""
    from .dot import draw
    from .export import output_format
    output_format(path)                  # refuse a bad extension before drawing
    step = draw_kw.pop("step", None)
    if step is not None and hasattr(obj, "at"):
        obj = obj.at(step)
    if "namespace" not in draw_kw and not hasattr(obj, "before") and not hasattr(obj, "nodes"):
        f = sys._getframe(1)
        draw_kw["namespace"] = {**f.f_globals, **f.f_locals}
    return write_source(draw(obj, **draw_kw).source, path, renderer)
