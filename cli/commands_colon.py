"""The REPL's colon commands (``:help``, ``:graph x``, ``:svg b out.svg``, ``:show 0`` …).

Each command is a function ``(session, arg_string)`` registered with ``@command``, which
also records its usage line, a one-line summary (``:help``, the completion menu) and the
kinds of its arguments (``args``: ``expr``, ``file``, ``N`` (an event), ``on|off``; read by
``completion.py``).

A command reports a mistake by raising ``UsageError``: ``dispatch`` prints the message (and
the usage line) and the prompt comes back. Errors from evaluating an expression the user
typed are shown like any user exception.
"""
from __future__ import annotations

import difflib
import os
import shlex
from dataclasses import dataclass
from typing import Callable

from rich.table import Table
from rich.text import Text

import viewgrad as vg

from . import printing, tutorials
from .modes import BackwardStepper, TutorialPlayback
from .tracing import (diff_of, explain_of, render_event, render_snapshot_of,
                      render_storage_of, summary_of, to_svg)


class UsageError(Exception):
    """A colon command was used wrongly: the message says how to use it."""


@dataclass
class Command:
    name: str
    fn: Callable
    usage: str
    summary: str
    args: str = ""
    aliases: tuple = ()


COMMANDS: dict[str, Command] = {}
ALIASES: dict[str, str] = {}


def command(name, usage, summary, args="", aliases=()):
    def deco(fn):
        COMMANDS[name] = Command(name, fn, usage, summary, args, aliases)
        for a in aliases:
            ALIASES[a] = name
        return fn
    return deco


def dispatch(session, text: str):
    body = text.strip()[1:]
    name, _, rest = body.partition(" ")
    name = name.strip().lower()
    rest = rest.strip()
    cmd = COMMANDS.get(ALIASES.get(name, name))
    if cmd is None:
        if not name:
            raise_msg = "a colon starts a command; :help lists them"
        else:
            close = difflib.get_close_matches(name, list(COMMANDS), n=1)
            raise_msg = f"unknown command :{name}" + (f" — did you mean :{close[0]}?" if close
                                                      else "") + " (:help lists the commands)"
        session.console.print(Text(raise_msg, style="yellow"))
        return
    try:
        cmd.fn(session, rest)
    except UsageError as e:
        session.console.print(Text(str(e), style="yellow"))
        session.console.print(Text(f"usage: {cmd.usage}", style="dim"))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # noqa: BLE001 - e.g. a NameError in :graph's expression
        session.errors += 1
        printing.print_exception(session.console, e)


# -- argument helpers ----------------------------------------------------------------------
def _event_number(arg: str, usage_what="N") -> int:
    a = arg.strip().lstrip("#")
    if not a:
        raise UsageError(f"which event? give its number {usage_what} (:events lists them)")
    try:
        return int(a)
    except ValueError:
        raise UsageError(f"{arg!r} is not an event number (:events lists them)") from None


def _event(session, arg):
    try:
        return session.trace.event(_event_number(arg))
    except LookupError as e:
        raise UsageError(str(e.args[0])) from None


def _split_expr_file(rest: str):
    """``EXPR FILE`` -> (expr, file); the file is the last word (quotes allowed)."""
    rest = rest.strip()
    if not rest:
        raise UsageError("missing the expression and the file name")
    if rest[-1] in "'\"":
        q = rest[-1]
        start = rest.rfind(q, 0, len(rest) - 1)
        if start < 0:
            raise UsageError("unbalanced quotes in the file name")
        expr, path = rest[:start].strip(), rest[start + 1:-1]
    else:
        parts = rest.rsplit(None, 1)
        if len(parts) < 2:
            raise UsageError("missing the file name (e.g. :svg b out.svg)")
        expr, path = parts
    if not expr:
        raise UsageError("missing the expression to draw")
    return expr, os.path.expanduser(path)


def _one_path(rest: str) -> str:
    try:
        words = shlex.split(rest)
    except ValueError as e:
        raise UsageError(f"could not read the file name: {e}") from None
    if len(words) != 1:
        raise UsageError("give exactly one file name")
    return os.path.expanduser(words[0])


def _target(session, expr: str):
    """An expression, or ``#N`` for recorded event N."""
    if expr.strip().startswith("#"):
        return _event(session, expr)
    return session.evaluate(expr)


# -- the commands ----------------------------------------------------------------------------
@command("help", ":help [COMMAND]", "list the commands, or explain one", args="cmd",
         aliases=("h", "?"))
def cmd_help(session, rest):
    name = rest.strip().lstrip(":")
    if name:
        cmd = COMMANDS.get(ALIASES.get(name, name))
        if cmd is None:
            raise UsageError(f"no command :{name}")
        session.console.print(Text(cmd.usage, style="bold"))
        session.console.print(cmd.fn.__doc__.strip() if cmd.fn.__doc__ else cmd.summary)
        return
    table = Table.grid(padding=(0, 2))
    for cmd in COMMANDS.values():
        table.add_row(Text(cmd.usage, style="bold cyan"), cmd.summary)
    session.console.print(table)
    session.console.print(Text(
        "Anything else is Python (vg is viewgrad). Incomplete statements continue on the "
        "next line; an empty line ends a block. Tab completes names and attributes, Ctrl-C "
        "cancels the line, Ctrl-D leaves.", style="dim"))


@command("graph", ":graph EXPR [--depth N]",
         "draw the autograd graph behind a tensor (or below a grad_fn) as a tree", args="expr")
def cmd_graph(session, rest):
    """Draws the graph the tensor's grad_fn starts, in the terminal. With the tracer this
    is its snapshot (tensors, nodes, saved versions); --depth N prints a plain tree cut at
    depth N, for big graphs."""
    expr, depth = rest, None
    if "--depth" in rest:
        expr, _, d = rest.partition("--depth")
        try:
            depth = int(d.strip())
        except ValueError:
            raise UsageError("--depth takes a whole number") from None
    if not expr.strip():
        raise UsageError("draw what? give an expression, e.g. :graph b")
    obj = _target(session, expr)
    if hasattr(obj, "before") and hasattr(obj, "after"):  # an event: its full picture
        session.console.print(render_event(obj, compact=False))
        return
    if not isinstance(obj, (printing._Tensor, printing._Node)):
        raise UsageError(f"{expr.strip()} is a {type(obj).__name__}, not a tensor or a "
                         "grad_fn: nothing to draw")
    if depth is None and isinstance(obj, printing._Tensor):
        session.console.print(render_snapshot_of(obj, session.namespace))
        return
    session.console.print(printing.graph_tree(obj, session.namespace, max_depth=depth))


@command("svg", ":svg EXPR FILE", "write the graph of EXPR (or event #N) as a picture: "
         "FILE.svg, .png or .pdf", args="expr file")
def cmd_svg(session, rest):
    """Writes a picture in the format the file's extension names (.svg, .png, .pdf): for a
    tensor its autograd graph, for #N the before/after of event N. The file's folder must
    exist."""
    expr, path = _split_expr_file(rest)
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".svg", ".png", ".pdf"):
        raise UsageError(f"cannot write {ext or 'a file without an extension'}: name the "
                         "picture .svg, .png or .pdf (e.g. :svg b graph.png)")
    obj = _target(session, expr)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"folder {folder} does not exist")
    to_svg(obj, path, session.namespace)
    size = os.path.getsize(path) if os.path.exists(path) else 0
    session.console.print(Text(f"wrote {path} ({size:,} bytes)", style="green"))


@command("storage", ":storage EXPR", "draw the memory behind a tensor (or event #N): "
         "its base's cells, each view's elements outlined", args="expr")
def cmd_storage(session, rest):
    """A row of cells per tensor: the base's storage with its values, then every live view
    of it with the cells it covers marked by the view's own index, and its size, stride
    and storage offset — element i of a view lives in cell offset + Σ i_k·stride_k. For an
    event #N, the cells the in-place op wrote are filled."""
    if not rest.strip():
        raise UsageError("storage of what? give a tensor expression, e.g. :storage x")
    obj = _target(session, rest)
    if not (isinstance(obj, vg.Tensor) or hasattr(obj, "before")):
        raise UsageError(f"{rest.strip()} is a {type(obj).__name__}, not a tensor or an "
                         "event")
    session.console.print(render_storage_of(obj, session.namespace))


@command("unfold", ":unfold", "draw the in-place ops that library code did under no_grad "
         "(parameter init, optimizer steps), folded into one line after the input")
def cmd_unfold(session, rest):
    """Library code works in place under no_grad (an initializer filling a new Linear's
    weight, an optimizer's step): those events are recorded, and after a line they are
    folded into one line ("2 in-place ops under no_grad: parameter init"). :unfold draws
    the last folded ones; :show N draws any event."""
    if rest.strip():
        raise UsageError(":unfold takes no arguments")
    evs = session.trace.folded
    if not evs:
        session.console.print(Text("nothing folded: library in-place work under no_grad "
                                   "(parameter init, optimizer steps) is folded after the "
                                   "line that did it", style="dim"))
        return
    for ev in evs:
        session.console.print(render_event(ev, compact=True))


@command("trace", ":trace [on|off]", "turn in-place tracing on or off (no argument: status)",
         args="on|off")
def cmd_trace(session, rest):
    """On (the default), every in-place op is recorded and, after the line, its before/
    after graphs are printed. Off stops recording and printing; events so far are kept."""
    arg = rest.strip().lower()
    if arg in ("on", "1", "yes"):
        session.trace.turn_on()
    elif arg in ("off", "0", "no"):
        session.trace.turn_off()
    elif arg:
        raise UsageError(f"tracing is on or off, not {rest.strip()!r}")
    if session.trace.error:
        session.console.print(Text(f"tracing is unavailable: {session.trace.error}",
                                   style="yellow"))
    session.console.print(Text(session.trace.status()))


EVENTS_LISTED = 200   # :events lists the last 200 kept events; ":events all" every kept one


@command("events", ":events [all]", "list the recorded in-place events (the last "
         f"{EVENTS_LISTED}; all: every one the session keeps)", args="all")
def cmd_events(session, rest):
    arg = rest.strip()
    if arg not in ("", "all"):
        raise UsageError(f":events takes no argument but 'all', not {arg!r}")
    trace = session.trace
    evs = trace.events
    dropped = trace.dropped_line()
    if not evs:
        state = "on" if trace.enabled else "off (:trace on)"
        session.console.print(Text(f"no in-place events yet; tracing is {state}.", style="dim"))
        if dropped:
            session.console.print(Text(dropped, style="dim"))
        return
    if dropped:
        session.console.print(Text(dropped, style="dim"))
    hidden = 0 if arg == "all" else max(0, len(evs) - EVENTS_LISTED)
    if hidden:
        session.console.print(Text(f"… {hidden:,} earlier kept event{'s' * (hidden != 1)} not "
                                   "listed (:events all lists them; :show N draws any)",
                                   style="dim"))
    table = Table(box=None, padding=(0, 1), show_edge=False)
    table.add_column("#", justify="right", style="bold magenta")
    table.add_column("op", style="cyan")
    table.add_column("what happened")
    for ev in evs[hidden:]:
        table.add_row(Text(str(trace.number_of(ev))),   # Text: user names are never markup
                      Text(printing.clean(str(getattr(ev, "op", "?")), 60)),
                      Text(printing.clean(summary_of(ev), 2000)))
    session.console.print(table)


@command("show", ":show N", "draw event N's before and after graphs in full", args="N")
def cmd_show(session, rest):
    session.console.print(render_event(_event(session, rest), compact=False))


@command("diff", ":diff N", "what event N changed: nodes added, grad_fns moved, stale views",
         args="N")
def cmd_diff(session, rest):
    d = diff_of(_event(session, rest))
    if hasattr(d, "__rich__") or hasattr(d, "__rich_console__"):
        session.console.print(d)
    else:
        session.console.print(Text(str(d.summary())))


@command("explain", ":explain N", "event N as the functionalized (out-of-place) rewrite",
         args="N")
def cmd_explain(session, rest):
    ev = _event(session, rest)
    session.console.print(Text(summary_of(ev), style="italic"))
    session.show_code(explain_of(ev))


@command("backward", ":backward EXPR", "run EXPR.backward() and step through the engine, "
         "one node per Enter", args="expr")
def cmd_backward(session, rest):
    """Runs the backward pass of a (scalar) tensor — it accumulates .grad, like
    EXPR.backward() — while recording the engine: which node ran, in which order, the
    gradients in and out, the ready queue and the dependency counts, and what
    AccumulateGrad did. Enter shows the next node."""
    if not rest.strip():
        raise UsageError("backward of what? give a tensor expression, e.g. :backward loss")
    t = _target(session, rest)
    if not isinstance(t, printing._Tensor):
        raise UsageError(f"{rest.strip()} is a {type(t).__name__}, not a tensor")
    from viewgrad.trace import record_backward
    before = session.trace.backward_count()
    with session._user_output():
        bt = record_backward(t, retain_graph=True, namespace=session.namespace,
                             errors="return")
    if session.trace.enabled and session.trace.backward_count() > before:
        bt = session.trace.tracer.backwards[-1]   # the session's copy: blames its events
    BackwardStepper(session, bt).start()


@command("report", ":report FILE", "write the recorded events as one self-contained web "
         "page (open it in a browser)", args="file")
def cmd_report(session, rest):
    path = _one_path(rest)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"folder {folder} does not exist")
    n = session.trace.report(path)
    session.console.print(Text(f"wrote {path}: {n} event{'s' * (n != 1)}; open it in a "
                               "browser (arrow keys step through)", style="green"))


@command("save", ":save FILE", "save the recorded events as trace JSON", args="file")
def cmd_save(session, rest):
    path = _one_path(rest)
    n = session.trace.save(path)
    session.console.print(Text(f"saved {n} event{'s' * (n != 1)} to {path}", style="green"))


@command("load", ":load FILE", "load events from a trace JSON file (for :show/:diff/:explain)",
         args="file")
def cmd_load(session, rest):
    path = _one_path(rest)
    if not os.path.exists(path):
        raise UsageError(f"no file {path}")
    first = session.trace.next_number
    n = session.trace.load(path)
    last = first + n - 1
    where = f" as #{first}" + (f"..#{last}" if n > 1 else "") if n else ""
    session.console.print(Text(f"loaded {n} event{'s' * (n != 1)}{where} from {path}",
                               style="green"))


@command("tutorial", ":tutorial [N]", "list the walkthroughs, or play number N", args="tut",
         aliases=("tut",))
def cmd_tutorial(session, rest):
    """Tutorials are Markdown files in tutorials/: every ```python block is a step (format:
    tutorials.py). Each step's prose and code are shown; Enter on the empty prompt runs it,
    the reader's own lines may come first, :next skips it, Ctrl-C stops the walkthrough."""
    found = tutorials.discover()
    if not rest.strip():
        if not found:
            where = tutorials.tutorials_dir()
            where = (f"in {where}" if where else
                     "(no tutorials/ folder next to viewgrad or in the current directory)")
            session.console.print(Text(f"no tutorials found {where}. A tutorial is a Markdown "
                                       "file (01-title.md) in tutorials/ whose ```python "
                                       "blocks are its steps; VIEWGRAD_TUTORIALS names another "
                                       "folder.", style="yellow"))
            return
        table = Table(box=None, padding=(0, 1), show_edge=False)
        table.add_column("N", justify="right", style="bold magenta")
        table.add_column("tutorial")
        table.add_column("steps", justify="right", style="dim")
        for t in found:
            table.add_row(str(t.number), t.title, str(len(t.steps)))
        session.console.print(table)
        session.console.print(Text(":tutorial N plays one", style="dim"))
        return
    try:
        n = int(rest.strip())
    except ValueError:
        raise UsageError(f"{rest.strip()!r} is not a tutorial number") from None
    tut = next((t for t in found if t.number == n), None)
    if tut is None:
        have = ", ".join(str(t.number) for t in found) or "none"
        raise UsageError(f"no tutorial {n} (available: {have})")
    if not tut.steps:
        raise UsageError(f"tutorial {n} ({tut.path}) has no ```python steps")
    session.console.print(Text(f"tutorial {n}: {tut.title} — {len(tut.steps)} steps", style="bold"))
    session.exercise = None
    session.playback = TutorialPlayback(session, tut)


@command("next", ":next", "skip the tutorial step waiting on the prompt")
def cmd_next(session, rest):
    if session.playback is None or not session.playback.skip():
        raise UsageError("no tutorial is playing (:tutorial N starts one)")


@command("check", ":check [solution]", "check your answer to the tutorial's exercise")
def cmd_check(session, rest):
    """The exercise of the last tutorial played (tutorials.py: ```python exercise)."""
    ex = session.exercise
    if ex is None:
        raise UsageError("no exercise yet: play a tutorial to its end (:tutorial N)")
    if rest.strip() == "solution":
        if ex.solution is None:
            raise UsageError("this exercise has no solution written down")
        session.console.print(Text("one solution (type it, or your own, then :check):",
                                   style="dim"))
        session.show_code(ex.solution)
        return
    ok, msg = tutorials.check_exercise(ex, session.namespace)
    session.console.print(Text(msg, style="bold green" if ok else "yellow"))


@command("reset", ":reset", "forget all variables and recorded events (vg stays imported)")
def cmd_reset(session, rest):
    session.reset()
    session.console.print(Text("fresh namespace; trace cleared.", style="green"))


@command("quit", ":quit", "leave the REPL (Ctrl-D does too)", aliases=("q", "exit"))
def cmd_quit(session, rest):
    session.quit_requested = True
