"""Tutorial walkthroughs: Markdown files the REPL lists and plays (``:tutorial [N]``).

Format (one file per tutorial, in the top-level ``tutorials/`` folder)::

    tutorials/01-inplace-on-a-view.md

    # In-place on a view              <- the first level-1 heading is the title
    Some prose, shown before step 1.
    ```python
    a = vg.tensor([1., 2., 3.], requires_grad=True)   <- step 1: one ```python fence
    ```
    More prose, shown before step 2.
    ```python
    x = a.clone()[2]; x.mul_(2)                       <- step 2
    ```
    Closing words, shown after the last step.

* The number is the file name's leading digits (``01-…`` is tutorial 1); files without one
  are numbered after the others, in name order.
* Every ```python (or ```py) fence is one step, run as if typed at the prompt, in the
  REPL's namespace (so ``vg`` is there and each step sees the previous ones' variables).
  Other fences (```text, plain ```) are prose.
* In an interactive session each step's code is put on the prompt: Enter runs it (edit it
  first if you like), Ctrl-C stops the walkthrough. In script mode the steps simply run.

Where tutorials are looked for: ``$VIEWGRAD_TUTORIALS``, else ``tutorials/`` next to the
``cli/`` folder (a source checkout), else ``./tutorials``.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

_FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)[^\n]*$")


@dataclass
class Step:
    prose: str
    code: str


@dataclass
class Tutorial:
    number: int
    title: str
    path: str
    steps: list = field(default_factory=list)
    outro: str = ""


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
    steps, prose, code = [], [], None
    fence = None
    for line in text.splitlines():
        if code is None:
            m = _FENCE.match(line)
            if m and m.group(2).lower() in ("python", "py", "python3", "pycon"):
                fence, code = m.group(1), []
                continue
            if m:  # a non-python fence: prose, but its lines must not be read as headings
                fence = None if fence else m.group(1)
                prose.append(line)
                continue
            if title is None and fence is None and line.startswith("# "):
                title = line[2:].strip()
                continue
            prose.append(line)
        else:
            if line.strip().startswith(fence) and line.strip().strip(fence[0]) == "":
                steps.append(Step("\n".join(prose).strip(), "\n".join(code).rstrip()))
                prose, code, fence = [], None, None
                continue
            code.append(line)
    if code is not None:  # unterminated fence: keep the step rather than lose it
        steps.append(Step("\n".join(prose).strip(), "\n".join(code).rstrip()))
        prose = []
    name = os.path.splitext(os.path.basename(path))[0]
    return Tutorial(number, title or name, path, steps, "\n".join(prose).strip())


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
