"""Tutorial walkthroughs: Markdown files the REPL lists and plays (``:tutorial [N]``,
``viewgrad tutorial N``) and the tests execute (``tests/tutorials``).

Format (one file per tutorial, in the top-level ``tutorials/`` folder)::

    tutorials/01-first-graph.md

    # Your first graph                <- the first level-1 heading is the title
    Some prose, shown before step 1.
    ```python
    a = vg.tensor([1., 2., 3.], requires_grad=True)   <- step 1: one ```python fence
    a * 2                                             <- a trailing expression is printed
    ```
    ```text
    tensor([2., 4., 6.], grad_fn=<MulBackward0>)      <- optional: what step 1 prints
      shape (3,) · float32 · ...
    ```
    More prose, shown before step 2.
    ```python gpu
    c = a.cuda()                                      <- a step that needs a GPU
    ```
    ![before and after: c.mul_(2)](pictures/01-step2-event0.svg)   <- the step's pictures
    Closing words, shown after the last step.
    ```python exercise
    # hint: shown when the check fails
    type(b.grad_fn).__name__ == "CopySlices"          <- the exercise's check
    ```
    ```python solution
    b = a.clone(); b[0].mul_(2)                       <- one answer (tests run it)
    ```

* The number is the file name's leading digits (``01-…`` is tutorial 1); files without one
  are numbered after the others, in name order.
* Every ```python (or ```py) fence is one step, run as if typed at the prompt, in the
  REPL's namespace (so ``vg`` is there and each step sees the previous ones' variables).
  Other fences (plain ```, ```text not right after a step) are prose.
* **Expected output** (optional): a ```text fence that follows a step's closing fence on
  the very next line (no blank line: a ```text fence after a blank line is prose, as it
  always was) is what the step prints in the REPL — user ``print``s, the value of a
  trailing expression as the REPL shows it, or the error it shows — *without* the
  before/after graphs that tracing draws after an in-place op (those are pictures:
  ``viewgrad tutorial N --svg-dir DIR``). It is printed at width ``WIDTH`` without colour.
  The tests compare it with the real output (a step without one must print nothing); the
  REPL does not show it (it runs the step).
* **Pictures**: image lines ``![alt](pictures/NN-….svg)`` right under a step (after its
  expected output; blank lines between them are fine) are the step's ``pictures``: the
  before/after of each in-place event it records and what it asks for in its info string:
  ``graph=NAME[,NAME…]`` (the autograd graph), ``storage=NAME`` (the storage under a
  tensor, its views outlined), ``backward=all|0,2…`` (the engine's moments of the
  backward passes it runs), e.g. ```` ```python graph=y ````. They are
  written by ``viewgrad tutorial --update`` from the step's own code, never by hand
  (``tutorial_pictures.py``).
* **Info-string words** after ``python``: ``gpu`` marks a step that needs a GPU
  (``vg.cuda.is_available()``): without one it is skipped with a visible reason, so later
  steps must not depend on it. ``exercise`` makes the fence the tutorial's **exercise
  check** instead of a step: lines ``# hint: …`` are its hint, the rest is code whose last
  expression is evaluated in the reader's namespace after their own lines; true means
  solved (``correct!``), false or an exception shows the hint. ``solution`` is one answer
  to the exercise: never played as a step; tests run it and then the check (the REPL shows
  it with ``:check solution``). Put it in a ``<details>`` block so readers of the Markdown
  do not see it at once. ``python`` fences with any other word are steps as before.
* In an interactive session each step's prose and code are shown above an empty prompt:
  Enter runs the step. Anything typed instead runs as the reader's own input and the step
  keeps waiting; ``:next`` skips it, Ctrl-C stops the walkthrough. After the last step the
  exercise is shown: type lines, then ``:check``. In script mode (and ``viewgrad tutorial
  N``) the steps simply run, and the exercise is shown but not checked.

Where tutorials are looked for: ``$VIEWGRAD_TUTORIALS``, else ``tutorials/`` next to the
``cli/`` folder (a source checkout), else ``./tutorials``.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

_FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)([^\n]*)$")
_PYTHON = ("python", "py", "python3", "pycon")

WIDTH = 88  # the console width expected outputs are written at (tests, `viewgrad tutorial`)


@dataclass
class Step:
    prose: str
    code: str
    expected: str | None = None   # the ```text fence right after the step, if any
    gpu: bool = False             # ```python gpu: needs vg.cuda.is_available()
    asks: dict = field(default_factory=dict)      # info-string words key=value (graph=y)
    pictures: list = field(default_factory=list)  # (alt, link) image lines under the step


@dataclass
class Exercise:
    prose: str                    # the prose before the ```python exercise fence
    check: str                    # code whose last expression is true when solved
    hint: str = ""
    solution: str | None = None


@dataclass
class Tutorial:
    number: int
    title: str
    path: str
    steps: list = field(default_factory=list)
    outro: str = ""
    exercise: Exercise | None = None


def _fence_end(line: str, fence: str) -> bool:
    s = line.strip()
    return s.startswith(fence) and s.strip(fence[0]) == ""


def tutorials_dir() -> str | None:
    env = os.environ.get("VIEWGRAD_TUTORIALS")
    if env:
        return env
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for cand in (os.path.join(here, "tutorials"), os.path.join(os.getcwd(), "tutorials")):
        if os.path.isdir(cand):
            return cand
    return None


def parse(text: str, path: str = "<tutorial>", number: int = 0) -> Tutorial:
    title = None
    steps, prose = [], []
    exercise_prose, check, solution = None, None, None
    lines = text.splitlines()
    i, n = 0, len(lines)
    in_other = None  # the opening of a non-python fence we are inside (its lines are prose)

    def block(start, fence):
        """Lines of the fence opened at ``start`` and the index after its closing line."""
        j, body = start + 1, []
        while j < n and not _fence_end(lines[j], fence):
            body.append(lines[j])
            j += 1
        return "\n".join(body).rstrip(), j + 1

    while i < n:
        line = lines[i]
        m = _FENCE.match(line)
        if in_other is not None:
            prose.append(line)
            if _fence_end(line, in_other):
                in_other = None
            i += 1
            continue
        if m and m.group(2).lower() in _PYTHON:
            words = m.group(3).lower().replace(",", " ").split()
            code, i = block(i, m.group(1))
            if "exercise" in words:
                exercise_prose, check = "\n".join(prose).strip(), code
                prose = []
                continue
            if "solution" in words:
                solution = code
                continue
            expected = None
            j = i  # the expected output must follow at once: a ```text fence after a blank
            if j < n:  # line stays prose, as in the format's first version
                m2 = _FENCE.match(lines[j])
                if m2 and m2.group(2).lower() in ("text", "output", "console"):
                    expected, i = block(j, m2.group(1))
            pictures, i = _pictures_at(lines, i)
            asks = dict(w.split("=", 1) for w in m.group(3).split() if "=" in w)
            steps.append(Step(_tidy(prose), code, expected, "gpu" in words, asks, pictures))
            prose = []
            continue
        if m:  # a non-python fence: prose, but its lines must not be read as headings
            in_other = m.group(1)
            prose.append(line)
            i += 1
            continue
        if title is None and line.startswith("# "):
            title = line[2:].strip()
        else:
            prose.append(line)
        i += 1
    name = os.path.splitext(os.path.basename(path))[0]
    exercise = None
    if check is not None:
        hint = " ".join(ln.split("hint:", 1)[1].strip() for ln in check.splitlines()
                        if ln.strip().startswith("# hint:"))
        code = "\n".join(ln for ln in check.splitlines()
                         if not ln.strip().startswith("# hint:")).strip()
        exercise = Exercise(exercise_prose or "", code, hint, solution)
    outro = _tidy(prose)
    return Tutorial(number, title or name, path, steps, outro, exercise)


def _pictures_at(lines, i):
    """The picture lines (``tutorial_pictures.image_line``) right under a step, blank lines
    between them allowed: ``([(alt, link)…], index after them)``."""
    from .tutorial_pictures import image_line
    found, j = [], i
    while j < len(lines):
        if not lines[j].strip():
            j += 1
            continue
        pic = image_line(lines[j])
        if pic is None:
            break
        found.append(pic)
        j += 1
        i = j
    return found, i


def _tidy(prose_lines) -> str:
    """Prose as shown: without the HTML a Markdown file uses to fold solutions away."""
    keep = [ln for ln in prose_lines
            if not re.match(r"\s*</?(details|summary)\b.*>\s*$", ln)]
    return "\n".join(keep).strip()


def check_exercise(ex: Exercise, namespace: dict) -> tuple[bool, str]:
    """Evaluate the exercise's check in ``namespace``: (solved, message)."""
    import ast
    try:
        tree = ast.parse(ex.check, "<exercise>", "exec")
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, "<exercise>", "exec"), namespace)
        ok = bool(eval(compile(ast.Expression(last.value), "<exercise>", "eval"), namespace)) \
            if last is not None else False
    except Exception as e:  # noqa: BLE001 - e.g. a NameError: the reader has not answered yet
        return False, (f"not yet ({type(e).__name__}: {e})" +
                       (f" — hint: {ex.hint}" if ex.hint else ""))
    if ok:
        return True, "correct!"
    return False, "not yet" + (f" — hint: {ex.hint}" if ex.hint else "")


def gpu_available() -> bool:
    """Whether ```python gpu steps can run (a CUDA device through CuPy)."""
    try:
        import viewgrad as vg
        return bool(vg.cuda.is_available())
    except Exception:  # noqa: BLE001
        return False


def discover(directory: str | None = None) -> list[Tutorial]:
    """Tutorials in ``directory`` (default: ``tutorials_dir()``), sorted by number."""
    directory = directory or tutorials_dir()
    if not directory or not os.path.isdir(directory):
        return []
    files = sorted(f for f in os.listdir(directory) if f.endswith(".md")
                   and f.lower() != "readme.md")
    numbered, unnumbered = [], []
    for f in files:
        m = re.match(r"(\d+)", f)
        (numbered if m else unnumbered).append((int(m.group(1)) if m else None, f))
    numbered.sort()
    out, used = [], set()
    for n, f in numbered:
        used.add(n)
        out.append((n, f))
    nxt = max(used, default=0) + 1
    for _, f in unnumbered:
        out.append((nxt, f))
        nxt += 1
    result = []
    for n, f in out:
        path = os.path.join(directory, f)
        try:
            with open(path, encoding="utf-8") as fh:
                result.append(parse(fh.read(), path, n))
        except OSError:
            continue
    return result


def find(number: int, directory: str | None = None) -> Tutorial | None:
    for t in discover(directory):
        if t.number == number:
            return t
    return None
