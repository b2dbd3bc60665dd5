"""`viewgrad` command: the REPL by default.

    viewgrad                      the REPL (stdin a terminal) or a transcript (stdin piped)
    viewgrad repl [--script FILE] the same, explicitly; --script runs FILE as if typed
    viewgrad --torch              the REPL where `import torch` gives viewgrad (viewgrad.compat)
    viewgrad demo                 the seed example, traced and drawn (cli/commands.py)
    viewgrad run SCRIPT ...       trace a script, write its pictures (cli/commands.py)
    viewgrad tutorial N [--svg-dir DIR]  play a walkthrough (cli/tutorial_cmd.py)

Kept small on purpose: each subcommand lives in its own module (the REPL: ``launch.py``,
``repl.py``, ``script.py``; demo and run: ``commands.py``).
"""
from __future__ import annotations

import argparse
import sys


def add_repl_parser(sub):
    p = sub.add_parser("repl", help="the interactive REPL (the default command)")
    p.add_argument("--script", metavar="FILE",
                   help="run FILE's lines as if typed and print the transcript ('-': stdin)")
    p.add_argument("--no-trace", action="store_true", help="start with tracing off")
    p.add_argument("--torch", action="store_true",
                   help="`import torch` gives viewgrad in this session (torch is imported)")
    return p


def repl(ns) -> int:
    from .launch import start
    return start(script=getattr(ns, "script", None), trace=not getattr(ns, "no_trace", False),
                 torch=getattr(ns, "torch", False) or getattr(ns, "top_torch", False))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("demo", "run"):  # the tracer's commands (cli/commands.py)
        from . import commands
        return getattr(commands, argv[0])(list(argv[1:]))
    if argv and argv[0] == "tutorial":
        from . import tutorial_cmd
        return tutorial_cmd.main(list(argv[1:]))
    p = argparse.ArgumentParser(prog="viewgrad", description="An autograd engine you can watch.")
    p.add_argument("--torch", dest="top_torch", action="store_true",
                   help="the REPL with `import torch` resolved to viewgrad")
    sub = p.add_subparsers(dest="cmd")
    sub.add_parser("demo", help="draw the seed example: in-place on a view (CopySlices)")
    sub.add_parser("run", help="trace a script: run SCRIPT [--svg-dir DIR] [--json FILE] "
                              "[--torch]")
    sub.add_parser("tutorial", help="play a walkthrough: tutorial N [--svg-dir DIR] [--check]")
    add_repl_parser(sub)
    ns = p.parse_args(argv)
    return repl(ns)


if __name__ == "__main__":
    sys.exit(main())
