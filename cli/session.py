"""One REPL session, independent of how lines arrive (prompt, script, tests).

``Session.handle(text)`` takes one complete input — a Python statement block or a colon
command — runs it in the session's namespace and prints what a person should see:

1. the value of a trailing expression (like Python's REPL; ``None`` prints nothing), with
   rich (``printing.py``);
2. if the input performed in-place ops and tracing is on, the before/after graphs of each
   (``tracing.render_after_line``);
3. an exception, concisely, with viewgrad's frames hidden — and the session goes on.

Nothing raised by user code escapes ``handle``: not exceptions, not ``KeyboardInterrupt``
during a long computation, not a failing ``__repr__``. ``exit()``/``quit()`` (SystemExit)
ends the session politely, as in Python.
"""
from __future__ import annotations

import ast
import contextlib
import math
import sys

from rich.console import Console
from rich.syntax import Syntax
from rich.text import Text

import viewgrad as vg

from . import help as helpmod
from . import printing
from .tracing import TraceSession, render_after_line, render_snapshot_of

BANNER = ("viewgrad {version} — PyTorch's autograd you can watch. `vg` is imported; "
          "tracing is on: in-place ops draw their before/after graphs.\n"
          "Try: a = vg.tensor([1.,2.,3.], requires_grad=True); b = a.clone(); x = b[2]; "
          "y = vg.tensor(4., requires_grad=True); x.mul_(y)\n"
          ":help lists the commands · Ctrl-D or :quit leaves")


def fresh_namespace(torch: bool = False) -> dict:
    """What a session starts with: ``vg`` and the few names walkthroughs use; with
    ``torch`` (``viewgrad --torch``, the import hook installed) also ``torch``, ``nn``,
    ``F`` and ``optim`` as a PyTorch user would import them."""
    import numpy as np
    ns = {"__name__": "__main__", "__builtins__": __builtins__, "vg": vg,
          "viewgrad": vg, "math": math, "np": np, "help": helpmod.HELP}
    if torch:
        import importlib
        ns.update(torch=importlib.import_module("torch"),
                  nn=importlib.import_module("torch.nn"),
                  F=importlib.import_module("torch.nn.functional"),
                  optim=importlib.import_module("torch.optim"))
    return ns


class Session:
    def __init__(self, console: Console | None = None, trace: bool = True,
                 interactive: bool = False, torch: bool = False):
        self.console = printing.protect_console(console or Console())
        self.interactive = interactive
        self.torch = torch
        self.namespace = fresh_namespace(torch)
        self.trace = TraceSession(self.namespace, enabled=trace)
        self.inputs = 0
        self.quit_requested = False
        self.errors = 0                  # exceptions shown (script mode's exit status)
        self.exit_status = None          # set by exit(N) / sys.exit(...) in user code
        self.user_builtins = printing.UserBuiltins()
        self.playback = None             # modes.TutorialPlayback while a tutorial plays
        self.stepper = None              # modes.BackwardStepper while :backward steps
        self.exercise = None             # the last played tutorial's exercise (``:check``)

    # -- entry point -------------------------------------------------------------------
    def handle(self, text: str):
        """Run one complete input. Never raises (except to end the process on purpose)."""
        from . import commands_colon
        if self.stepper is not None and self.stepper.take(text):
            return  # :backward is stepping: Enter showed the next node
        if not text.strip():
            return
        try:
            asked = helpmod.help_request(text)
            if asked is not None:  # x? shows x's help page
                helpmod.show(self, asked)
            elif text.lstrip().startswith(":"):
                commands_colon.dispatch(self, text.strip())
            else:
                self.run_python(text)
        except KeyboardInterrupt:
            self.console.print(Text("KeyboardInterrupt", style="bold red"))
        except SystemExit as e:  # from a value's __repr__, or an expression a command ran:
            self.quit_requested = True                    # the user's exit, as in Python
            self.exit_status = self._exit_status(e)
        except Exception as e:  # noqa: BLE001 - a bug in the REPL itself: report, go on
            self.errors += 1
            self.console.print(Text(f"internal error in the REPL: {type(e).__name__}: {e}",
                                    style="bold red"))

    def close(self):
        self.trace.close()

    # -- python ------------------------------------------------------------------------
    def run_python(self, source: str):
        self.inputs += 1
        filename = f"In[{self.inputs}].py"
        printing.register_source(filename, source)
        try:
            tree = ast.parse(source, filename, "exec")
            expr = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                # like the REPL's 'single' mode: the value of a trailing expression is shown
                expr = ast.Expression(tree.body.pop().value)
            body = compile(tree, filename, "exec")
            expr_code = compile(expr, filename, "eval") if expr is not None else None
        except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError) as e:
            if isinstance(e, RecursionError):   # e.g. a 100,000-term expression
                e = SyntaxError(f"the input is too deeply nested to compile ({e})")
            e.__traceback__ = None  # the frames are the compiler's; the error is the user's line
            self._show_error(e)
            return
        value, failed, error = None, False, None
        passes = self.trace.backward_count()
        with self.trace.recording() as new_events:
            try:
                with self._user_output(), self.user_builtins:
                    exec(body, self.namespace)
                    if expr_code is not None:
                        value = eval(expr_code, self.namespace)
            except SystemExit as e:
                self.quit_requested = True
                self.exit_status = self._exit_status(e)
                failed = True
            except KeyboardInterrupt:
                self.console.print(Text("KeyboardInterrupt", style="bold red"))
                failed = True
            except BaseException as e:  # noqa: BLE001 - the user's exception is shown, not raised
                error = e
                failed = True
        self._check_streams()
        if not failed and value is not None:
            self.namespace["_"] = value
            printing.print_result(self.console, value, self.namespace)
        if new_events and self.trace.enabled:
            # shown even when the line then failed: the in-place op did happen, and the
            # error reads best right after the picture of the op that caused it
            self.print_trace(new_events)
        if error is not None:
            self.show_failed_backward(passes)
            self._show_error(error)

    def _exit_status(self, e: SystemExit) -> int:
        """As Python: ``exit()`` → 0, ``exit(5)`` → 5, ``sys.exit("bye")`` prints bye on
        stderr and → 1."""
        code = e.code
        if code is None:
            return 0
        if isinstance(code, int):           # True is 1, as in Python
            # past a C long Python exits with -1 (255); otherwise the low byte counts
            return code & 0xFF if -2**63 <= code < 2**63 else 255
        try:
            self.console.file.flush()
            print(printing.clean(str(code), keep_newlines=True), file=sys.__stderr__,
                  flush=True)
        except Exception:  # noqa: BLE001 - stderr itself may be gone
            pass
        return 1

    def _check_streams(self):
        """After user code: a closed sys.stdout/stderr is reported and replaced (the REPL
        and the user's next print() still need them)."""
        f = self.console.file
        asked = getattr(f, "close_requested", False)
        for name in ("stdout", "stderr"):
            stream = getattr(sys, name)
            if getattr(stream, "closed", False) and not isinstance(stream, printing.SafeFile):
                asked = True
                fd = 1 if name == "stdout" else 2
                setattr(sys, name, open(fd, "w", encoding="utf-8", errors="replace",
                                        closefd=False, buffering=1))
        if asked:
            if hasattr(f, "close_requested"):
                f.close_requested = False
            self.console.print(Text("(sys.stdout was closed by your code: the REPL reopened "
                                    "it, since it still prints there)", style="yellow"))

    def print_trace(self, events):
        try:
            self.console.print(render_after_line(self.trace, events))
        except Exception as e:  # noqa: BLE001
            self.console.print(Text(f"(could not draw the in-place ops: {e})", style="red"))

    def _show_error(self, e: BaseException):
        self.errors += 1
        printing.print_exception(self.console, e)

    @contextlib.contextmanager
    def _user_output(self):
        """User code's print() and warnings go where the session prints (a test's buffer, a
        transcript), in order with the REPL's own output."""
        target = self.console.file
        if target is sys.stdout:
            yield
            return
        with contextlib.redirect_stdout(target), contextlib.redirect_stderr(target):
            yield

    # -- helpers for commands -------------------------------------------------------------
    def evaluate(self, expr: str):
        """Evaluate an expression typed after a colon command; errors propagate."""
        code = compile(expr.strip(), "<command>", "eval")
        with self.trace.recording() as new_events:
            with self._user_output():
                value = eval(code, self.namespace)
        if new_events and self.trace.enabled:  # e.g. ":graph x.mul_(2)" did in-place work
            self.print_trace(new_events)
        return value

    def reset(self):
        self.namespace = fresh_namespace(self.torch)
        self.trace.reset(self.namespace)
        if self.playback is not None:
            self.playback.stop()

    def show_failed_backward(self, since):
        """After a line whose backward raised: the engine's picture at the failing node."""
        bt = self.trace.failed_backward(since)
        if bt is not None:
            with contextlib.suppress(Exception):
                self.console.print(bt.at(len(bt.steps)))

    def after_step(self, step):
        """After a tutorial step ran: the graphs and storage pictures it asks for
        (``graph=y``, ``storage=v``), drawn in the terminal."""
        for kind in ("graph", "storage"):
            for name in (n for n in step.asks.get(kind, "").split(",") if n):
                obj = self.namespace.get(name)
                if not isinstance(obj, vg.Tensor):
                    continue
                if kind == "graph":
                    self.console.print(render_snapshot_of(obj, self.namespace))
                else:
                    vg.viz.show_storage(obj, console=self.console, namespace=self.namespace)

    def echo(self, code: str):
        """Show code as if typed (script mode, tutorials played without a prompt)."""
        for k, line in enumerate(code.split("\n")):
            self.echo_line(line, continuation=k > 0)

    def echo_line(self, line: str, continuation=False):
        self.console.print(Text(("... " if continuation else ">>> ") + line, style="bold"),
                           highlight=False)

    def show_code(self, code: str):
        self.console.print(Syntax(code, "python", theme="ansi_dark", background_color="default"))

    def banner(self) -> str:
        text = BANNER.format(version=vg.__version__)
        if self.torch:
            text += ("\n--torch: `torch` is viewgrad here (torch, nn, F, optim are imported); "
                     "names viewgrad does not provide say so")
        return text
