"""Non-interactive commands: ``viewgrad demo`` and ``viewgrad run SCRIPT``.

    viewgrad demo [--svg FILE] [--renderer R] [--width N]
        The seed example (DESIGN §4): ``b = a.clone(); x = b[2]; x.mul_(y)``, traced;
        before | after in the terminal, and an SVG of the two graphs.

    viewgrad run SCRIPT [ARGS...] [--svg-dir DIR] [--json FILE] [--html FILE]
                        [--renderer R] [--show] [--torch]
        Runs SCRIPT (as ``__main__``) under a tracer; prints one line per in-place op,
        writes one before/after SVG per op into DIR, the whole trace as JSON, and a
        self-contained web page stepping through the events.
        ``--`` ends viewgrad's options: the rest goes to the script as ``sys.argv[1:]``.
        ``--torch``: a script written for PyTorch runs unchanged, its ``import torch``
        resolved to viewgrad for this run (``viewgrad.compat``).

Each returns an exit status (0 ok, 1 the script raised, 2 bad usage).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import runpy
import sys
import traceback

__all__ = ["demo", "run"]


def _console(width=None):
    """A console that prints strings as written (a tensor named "[/]" is not markup) and
    never fails on odd text (cli/printing.protect_console)."""
    from rich.console import Console
    from .printing import protect_console
    return protect_console(Console(width=width) if width else Console())


def _fail(prog, what, e) -> int:
    """One clear line on stderr for a file that could not be written; status 1."""
    from viewgrad.trace.sanitize import clean
    why = getattr(e, "strerror", None) or str(e)
    print(f"viewgrad {prog}: cannot write {clean(what)}: {clean(why)}", file=sys.stderr)
    return 1


def demo(argv=None) -> int:
    p = argparse.ArgumentParser(prog="viewgrad demo",
                                description="Trace the seed example: an in-place op on a "
                                            "view (CopySlices), before and after.")
    p.add_argument("--svg", default="viewgrad-demo.svg", help="where to write the SVG "
                   "(default: %(default)s; '' to skip)")
    p.add_argument("--renderer", default=None,
                   help="dot | graphviz-pure | auto | a path (default: $VIEWGRAD_RENDERER "
                        "or auto)")
    p.add_argument("--width", type=int, default=None, help="terminal width for the picture")
    ns = p.parse_args([] if argv is None else argv)
    import viewgrad as vg
    from viewgrad.render.terminal import render_event

    con = _console(ns.width)
    a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    x = b[2]
    y = vg.tensor(4.0, requires_grad=True)
    names = {"a": a, "b": b, "x": x, "y": y}
    from rich.text import Text
    con.print(Text("a = vg.tensor([1., 2., 3.], requires_grad=True); b = a.clone(); "
                   "x = b[2]; y = vg.tensor(4., requires_grad=True)", style="bold"))
    con.print(Text("x.mul_(y)", style="bold") + Text("   # x is a view of b: b's history "
                                                      "must change too\n"))
    with vg.trace(namespace=names) as tr:
        x.mul_(y)
    con.print(render_event(tr.events[0]))
    if ns.svg:
        from viewgrad.render.svg import RendererNotFound
        try:
            vg.viz.to_svg(tr.events[0], ns.svg, renderer=ns.renderer)
        except RendererNotFound as e:
            con.print(Text("no SVG: ", style="red") + Text(str(e)))
            return 1
        except (OSError, ValueError) as e:     # a folder that does not exist, a NUL...
            return _fail("demo", ns.svg, e)
        con.print(Text(f"\nSVG written to {ns.svg}"))
    return 0


def _event_file(ev):
    op = "".join(ch if ch.isalnum() else "_" for ch in ev.op).strip("_") or "op"
    return f"event-{ev.index:03d}-{op}.svg"


def run(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    script_args = []
    if "--" in argv:
        i = argv.index("--")
        argv, script_args = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(prog="viewgrad run",
                                description="Run a script under the tracer: one before/after "
                                            "picture per in-place op.")
    p.add_argument("script", help="a Python file using viewgrad")
    p.add_argument("--svg-dir", default=None, help="write event-NNN-OP.svg files here")
    p.add_argument("--json", default=None, help="write the whole trace as JSON here")
    p.add_argument("--html", default=None,
                   help="write a self-contained web page stepping through the events")
    p.add_argument("--renderer", default=None,
                   help="dot | graphviz-pure | auto | a path (default: $VIEWGRAD_RENDERER "
                        "or auto)")
    p.add_argument("--show", action="store_true",
                   help="print each event's before | after graphs, not just a line")
    p.add_argument("--width", type=int, default=None, help="terminal width")
    p.add_argument("--torch", action="store_true",
                   help="the script is written for PyTorch: its `import torch` (torch.nn, "
                        "torch.optim, ...) gets viewgrad for this run (viewgrad.compat)")
    ns, extra = p.parse_known_args(argv)
    script_args = extra + script_args
    if not os.path.isfile(ns.script):
        print(f"viewgrad run: no such script: {ns.script}", file=sys.stderr)
        return 2
    import viewgrad as vg
    from viewgrad.render.terminal import render_event
    from viewgrad.render.svg import RendererNotFound, find_renderer

    if ns.svg_dir or ns.html:
        try:  # fail before running the script, not after
            find_renderer(ns.renderer)
        except RendererNotFound as e:
            print(f"viewgrad run: {e}", file=sys.stderr)
            return 2
    from rich.text import Text
    from viewgrad.trace.sanitize import clean
    con = _console(ns.width)
    status = 0
    old_argv, old_path = sys.argv, list(sys.path)
    sys.argv = [ns.script] + script_args
    sys.path.insert(0, os.path.dirname(os.path.abspath(ns.script)))
    tr = vg.trace()
    from viewgrad.compat import torch_imports
    imports = torch_imports() if ns.torch else contextlib.nullcontext()
    try:
        with imports, tr:
            runpy.run_path(ns.script, run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        status = code
    except KeyboardInterrupt:
        # Ctrl-C: what was traced so far is still written; exit status 130 (as a shell)
        print("viewgrad run: interrupted (Ctrl-C); writing what was traced so far",
              file=sys.stderr)
        status = 130
    except Exception as e:  # noqa: BLE001 - the user's script failed: show it, keep the trace
        con.print(Text("the script raised:", style="red"))
        # show the traceback from the script's own frames on (not runpy's)
        tb = e.__traceback__
        script = os.path.abspath(ns.script)
        t = tb
        while t is not None and os.path.abspath(t.tb_frame.f_code.co_filename) != script:
            t = t.tb_next
        traceback.print_exception(type(e), e, t or tb)
        status = 1
    finally:
        sys.argv, sys.path[:] = old_argv, old_path
    from viewgrad.render.terminal import render_backward
    for item in tr.timeline():
        if hasattr(item, "steps"):
            con.print(render_backward(item) if ns.show else Text(clean(item.summary(), 160)),
                      highlight=False)
        elif ns.show:
            con.print(render_event(item))
        else:
            ev = item
            where = f"  ({os.path.basename(ev.source[0])}:{ev.source[1]})" if ev.source else ""
            con.print(Text(clean(f"#{ev.index} {ev.summary()}{where}", 2000)), highlight=False)
    if not tr.events:
        con.print("no in-place operations were traced")
    written = _write_outputs(tr, ns, con, vg)
    return status if written == 0 else (status or written)


def _write_outputs(tr, ns, con, vg) -> int:
    """The SVGs, page and JSON of ``viewgrad run``; 1 (after a one-line message) when one
    cannot be written."""
    try:
        if ns.svg_dir:
            os.makedirs(ns.svg_dir, exist_ok=True)
            for ev in tr.events:
                vg.viz.to_svg(ev, os.path.join(ns.svg_dir, _event_file(ev)),
                              renderer=ns.renderer)
            con.print(f"{len(tr.events)} SVG file(s) written to {ns.svg_dir}")
    except (OSError, ValueError) as e:
        return _fail("run", ns.svg_dir, e)
    try:
        if ns.html:
            tr.to_html(ns.html, title=f"viewgrad: {os.path.basename(ns.script)}",
                       renderer=ns.renderer)
            con.print(f"web page written to {ns.html}")
    except (OSError, ValueError) as e:
        return _fail("run", ns.html, e)
    try:
        if ns.json:
            tr.to_json(ns.json)
            con.print(f"trace written to {ns.json}")
    except (OSError, ValueError) as e:
        return _fail("run", ns.json, e)
    return 0
