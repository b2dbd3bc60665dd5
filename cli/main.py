"""`viewgrad` command: the REPL by default; `viewgrad demo` draws the seed example."""
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


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("demo", "run"):  # the tracer's commands (cli/commands.py)
        from . import commands
        return getattr(commands, argv[0])(list(argv[1:]))
    p = argparse.ArgumentParser(prog="viewgrad", description="An autograd engine you can watch.")
    sub = p.add_subparsers(dest="cmd")
    sub.add_parser("demo", help="draw the seed example: in-place on a view (CopySlices)")
    sub.add_parser("run", help="trace a script: run SCRIPT [--svg-dir DIR] [--json FILE]")
    ns = p.parse_args(argv)
    if ns.cmd in (None, "demo"):
        return demo(ns)
    return 0


if __name__ == "__main__":
    sys.exit(main())
