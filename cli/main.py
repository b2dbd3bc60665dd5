"""`viewgrad` command: the REPL by default; `viewgrad demo` draws the seed example.

    viewgrad                      the REPL (stdin a terminal) or a transcript (stdin piped)
    viewgrad repl [--script FILE] the same, explicitly; --script runs FILE as if typed
    viewgrad demo                 the seed example

Kept small on purpose: each subcommand lives in its own module (REPL: ``repl.py``,
``script.py``; others register through ``commands.py`` when present).
"""
from __future__ import annotations

import argparse
import sys


def demo(args=None) -> int:
    import viewgrad as vg
    a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    x = b[2]
    y = vg.tensor(4.0, requires_grad=True)
    print("b = a.clone(); x = b[2]; x.mul_(y)")
    print("before: b.grad_fn =", b.grad_fn, " x.grad_fn =", x.grad_fn)
    x.mul_(y)
    print("after:  b.grad_fn =", b.grad_fn, "wrapping", b.grad_fn.fn)
    print("        x.grad_fn =", x.grad_fn)
    return 0


def add_repl_parser(sub):
    p = sub.add_parser("repl", help="the interactive REPL (the default command)")
    p.add_argument("--script", metavar="FILE",
                   help="run FILE's lines as if typed and print the transcript ('-': stdin)")
    p.add_argument("--no-trace", action="store_true", help="start with tracing off")
    return p


def repl(ns) -> int:
    from .launch import start
    return start(script=getattr(ns, "script", None), trace=not getattr(ns, "no_trace", False))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(prog="viewgrad", description="An autograd engine you can watch.")
    sub = p.add_subparsers(dest="cmd")
    sub.add_parser("demo", help="draw the seed example: in-place on a view (CopySlices)")
    add_repl_parser(sub)
    ns = p.parse_args(argv)
    if ns.cmd == "demo":
        return demo(ns)
    return repl(ns)


if __name__ == "__main__":
    sys.exit(main())
