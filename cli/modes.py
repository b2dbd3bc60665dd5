"""The two things the prompt can be in the middle of, each a small object with one job.

* ``TutorialPlayback`` plays one walkthrough (``:tutorial N``): which step waits, showing
  its prose and code once, running it when the reader presses Enter on the empty prompt
  (their own lines run as usual and the step keeps waiting), skipping ``gpu`` steps
  without a GPU, ``:next``, Ctrl-C, and at the end the outro and the exercise that
  ``:check`` checks. Without a prompt (script mode, ``viewgrad tutorial N``) ``run_all``
  plays every step in order.
* ``BackwardStepper`` steps through one recorded backward pass (``:backward EXPR``), one
  node per Enter; any other input ends it.

The session holds at most one of each (``session.playback``, ``session.stepper``); the
REPL's loop (``repl.run_repl``) only asks them what an input means. While both are active,
Enter belongs to the backward stepper.
"""
from __future__ import annotations

import os
from collections import deque

from rich.markdown import Markdown
from rich.text import Text

from . import tutorials


class TutorialPlayback:
    def __init__(self, session, tut):
        self.session = session
        self.tut = tut
        self.pending = deque(enumerate(tut.steps))  # (index, step) not yet run
        self._shown = None                          # the step whose prose is on screen

    # -- which step waits --------------------------------------------------------------
    def waiting(self):
        """``(index, step)`` waiting to run, after skipping gpu steps without a GPU (saying
        so); None when the walkthrough is over."""
        while self.pending and self.pending[0][1].gpu and not tutorials.gpu_available():
            i, step = self.pending.popleft()
            self.show(i, step)
            self.session.show_code(step.code)
            self.session.console.print(Text("skipped: this step needs a GPU "
                                            "(vg.cuda.is_available() is False here)",
                                            style="yellow"))
            self.finish(i)
        return self.pending[0] if self.pending else None

    def status(self) -> str:
        """For the toolbar: where the walkthrough stands."""
        if not self.pending:
            return ""
        i = self.pending[0][0]
        return (f"tutorial {self.tut.number} step {i + 1}/{len(self.tut.steps)} "
                "(Enter runs it · Ctrl-C stops)")

    # -- at a prompt ------------------------------------------------------------------
    def announce(self):
        """Show the waiting step's prose and code, once (not again after the reader's own
        lines)."""
        current = self.waiting()
        if current is None or current is self._shown:
            return
        self._shown = current
        i, step = current
        self.show(i, step)
        self.session.show_code(step.code)
        self.session.console.print(Text(
            "Enter runs this step · or type your own lines first · :next skips it · "
            "Ctrl-C stops", style="dim"))

    def take(self, text: str) -> bool:
        """An input typed while a step waits: Enter on the empty prompt (or the step's own
        code, typed out) runs the step — True; anything else is the reader's own line —
        False, and the step keeps waiting."""
        current = self.waiting()
        if current is None:
            return False
        i, step = current
        if text.strip() and text.strip() != step.code.strip():
            return False
        if not text.strip():
            self.session.echo(step.code)
        self._run(i, step)
        return True

    def skip(self):
        """``:next``: the waiting step is not run."""
        current = self.waiting()
        if current is None:
            return False
        i, _ = self.pending.popleft()
        self.session.console.print(Text(f"step {i + 1} skipped", style="yellow"))
        self.finish(i)
        return True

    def stop(self):
        """Ctrl-C: the walkthrough ends where it is."""
        if self.pending:
            self.pending.clear()
            self.session.console.print(Text(f"tutorial stopped (:tutorial {self.tut.number} "
                                            "starts it again)", style="yellow"))
        self._end()

    # -- without a prompt ---------------------------------------------------------------
    def run_all(self, echo=True, before_step=None):
        """Play every step in order (script mode, ``viewgrad tutorial N``)."""
        while not self.session.quit_requested:
            current = self.waiting()
            if current is None:
                break
            i, step = current
            self.show(i, step)
            if echo:
                self.session.echo(step.code)
            if before_step is not None:
                before_step(i, step)
            self._run(i, step)

    # -- the parts ----------------------------------------------------------------------
    def _run(self, i, step):
        self.pending.popleft()
        try:
            self.session.handle(step.code)
            self.session.after_step(step)
        finally:
            self.finish(i)

    def show(self, i, step):
        console = self.session.console
        console.rule(Text(f"tutorial {self.tut.number} · {self.tut.title} · step {i + 1}/"
                          f"{len(self.tut.steps)}", style="bold"))
        if step.prose:
            console.print(Markdown(step.prose))

    def finish(self, i):
        """After step ``i``; after the last one: the outro, the exercise, what comes next."""
        if i != len(self.tut.steps) - 1:
            return
        tut, console = self.tut, self.session.console
        if tut.outro:
            console.print(Markdown(tut.outro))
        ex = tut.exercise
        if ex is not None:
            self.session.exercise = ex
            console.rule(Text(f"tutorial {tut.number} · exercise", style="bold"))
            if ex.prose:
                console.print(Markdown(ex.prose))
            console.print(Text("type your answer at the prompt, then :check "
                               "(:check solution shows one)", style="cyan"))
        console.print(Text(f"end of tutorial {tut.number}.", style="bold green"))
        nxt = tutorials.find(tut.number + 1, os.path.dirname(tut.path) or None)
        if nxt is not None:  # from tutorial 1 to the last without leaving the REPL
            console.print(Text(f":tutorial {nxt.number} plays the next one: {nxt.title}",
                               style="dim"))
        self._end()

    def _end(self):
        if self.session.playback is self:
            self.session.playback = None


class BackwardStepper:
    """One recorded backward pass (``viewgrad.trace.record_backward``), one node per Enter."""

    def __init__(self, session, bt):
        self.session = session
        self.bt = bt
        self.next = 0

    def start(self):
        """Print the pass's summary; at a prompt show the engine before its first node and
        wait for Enter, else (a transcript) the whole pass at once, then its end (or the
        node where it failed)."""
        from viewgrad.render.terminal import render_backward
        console = self.session.console
        console.print(Text(self.bt.summary(), style="bold"))
        if not self.bt.steps and self.bt.error is None:
            return
        if not self.session.interactive:
            console.print(render_backward(self.bt))
            console.print(self.bt.at(len(self.bt.steps)))
            return
        self.session.stepper = self
        self.step()

    def take(self, text: str) -> bool:
        """Enter shows the next node (True); any other input ends the stepping (False)."""
        if text.strip():
            self._end()
            return False
        self.step()
        return True

    def step(self):
        """The engine just before step i (trace/backward.py ``Moment``, drawn by
        render/terminal.py): the node about to run, the input buffers with their partial
        sums, the ready queue, the dependency counts."""
        bt, i, console = self.bt, self.next, self.session.console
        console.print(bt.at(i))
        last = len(bt.steps) if bt.error is not None else len(bt.steps) - 1
        if i < last:
            self.next = i + 1
            console.print(Text(f"step {i + 1}/{len(bt.steps)} · Enter: next node · "
                               "any other input stops", style="dim"))
            return
        self._end()
        if bt.error is not None:
            return
        naive = bt.naive_order()
        console.print(Text(
            f"done: {len(bt.steps)} nodes, each ran once with its whole gradient. A naive "
            f"depth-first walk would have run {len(naive)} (once per path).", style="dim"))

    def _end(self):
        if self.session.stepper is self:
            self.session.stepper = None
