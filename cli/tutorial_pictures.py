"""The pictures of the tutorials: drawn from each step's own code, embedded in the Markdown.

A step makes pictures in two ways:

* every in-place event it records (the first ``LIMIT``, as many as the REPL draws after
  one input) gives its before/after: ``NN-stepS-eventK.svg`` (K: the event's number in the
  tutorial's session, as ``:show K`` would name it);
* its info string can ask for more: ```` ```python graph=y ```` draws the autograd graph
  of the tensors named (``graph=a,b``: one picture of both), ``NN-stepS-graph.svg``;
  ``backward=all`` (or ``backward=0,2``) draws the engine's moments of each backward pass
  the step ran — the node running, those done, the ready queue —
  ``NN-stepS-backwardB-stepK.svg`` (at most ``BACKWARD_LIMIT`` per pass);
  ``storage=v`` draws the storage under tensor ``v`` — its cells, with the elements of
  every live view of it outlined — ``NN-stepS-storage-v.svg``. (An event's picture
  already shows the memory it wrote, under its panels.)

``viewgrad tutorial N --update`` (every tutorial when N is left out) writes them under
``tutorials/pictures/`` and puts one Markdown image line per picture right under the step
(after its output block)::

    ![before and after: x.mul_(y)](pictures/05-step2-event0.svg)

which ``tutorials.parse`` reads back as the step's ``pictures``. Each SVG carries, in a
comment, a hash of its *normalised DOT source* (``dot_key``): the test
(``tests/tutorials/test_pictures.py``) draws every picture again — without rendering it —
and compares hashes, so it fails when a committed picture no longer matches what the code
draws, whichever renderer wrote the SVG's bytes.
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass

LIMIT = 4  # pictures of in-place events per step, as many as the REPL draws after one input
BACKWARD_LIMIT = 8  # moments of one backward pass drawn for a step
PICTURES = "pictures"  # the folder next to the tutorials
KEY_MARK = "viewgrad-picture-dot-sha256:"

_IMAGE = re.compile(r"^!\[((?:[^\]\\]|\\.)*)\]\((" + PICTURES + r"/[^)\s]+\.svg)\)\s*$")
# ids the tracer numbers over the whole process (viewgrad/trace/registry.py: n8, t5 and
# the panels' b_/a_/g_ prefixed forms): what ran before in the process changes them
_IDS = re.compile(r"(?<![\w#])([a-z]_)?([nt])(\d+)\b")
_ADDR = re.compile(r"0x[0-9a-fA-F]{4,}")


@dataclass
class Picture:
    """One picture a step makes: where it goes, its alt text, and its DOT source."""
    name: str        # file name, e.g. 05-step2-event0.svg
    alt: str
    source: str      # the DOT source, as drawn

    @property
    def link(self) -> str:
        return f"{PICTURES}/{self.name}"

    @property
    def markdown(self) -> str:
        return f"![{self.alt}]({self.link})"

    @property
    def key(self) -> str:
        return dot_key(self.source)


def image_line(line: str):
    """``(alt, link)`` when ``line`` is a picture line written by ``--update``, else None."""
    m = _IMAGE.match(line.strip())
    return (re.sub(r"\\(.)", r"\1", m.group(1)), m.group(2)) if m else None


def normalise_dot(source: str) -> str:
    """The DOT source without what differs between two runs of the same code: the
    process-wide short ids of nodes and tensors (renumbered in order of appearance) and
    object addresses."""
    seen: dict = {}

    def renumber(m):
        key = (m.group(2), m.group(3))
        if key not in seen:
            seen[key] = sum(1 for k in seen if k[0] == m.group(2)) + 1
        return f"{m.group(1) or ''}{m.group(2)}{seen[key]}"

    text = _ADDR.sub("0x…", source)
    return "\n".join(_IDS.sub(renumber, ln).rstrip() for ln in text.splitlines()).strip()


def dot_key(source: str) -> str:
    return hashlib.sha256(normalise_dot(source).encode("utf-8")).hexdigest()


def key_of_file(path: str) -> str | None:
    """The DOT hash a picture file was written with (None: not one of ours)."""
    try:
        with open(path, encoding="utf-8") as fh:
            head = fh.read(4096)
    except OSError:
        return None
    m = re.search(re.escape(KEY_MARK) + r"\s*([0-9a-f]{64})", head)
    return m.group(1) if m else None


def _alt(text: str) -> str:
    """Alt text as Markdown writes it: brackets and backslashes escaped, one line."""
    return re.sub(r"([\\\[\]])", r"\\\1", " ".join(text.split()))


def _line_of(ev) -> str:
    """The line of code that did an in-place event (its op's name when unknown)."""
    src = getattr(ev, "source", None)
    return (getattr(src, "text", None) or str(getattr(ev, "op", "the in-place op"))).strip()


def event_picture(number: int, tag: str, ev, namespace) -> Picture:
    from viewgrad.render.dot import draw
    return Picture(f"{number:02d}-{tag}-event{ev.index}.svg",
                   _alt(f"before and after: {_line_of(ev)}"),
                   draw(ev, namespace=namespace).source)


def graph_picture(number: int, tag: str, names, namespace) -> Picture:
    """The autograd graph of the tensors ``names`` (variables of ``namespace``)."""
    from viewgrad.render.dot import draw
    tensors = [namespace[n] for n in names]
    obj = tensors[0] if len(tensors) == 1 else tensors
    return Picture(f"{number:02d}-{tag}-graph.svg", _alt(f"the graph of {', '.join(names)}"),
                   draw(obj, namespace=namespace).source)


def storage_picture(number: int, tag: str, name: str, namespace) -> Picture:
    """The storage under the tensor ``namespace[name]`` (``vg.viz.storage``)."""
    from viewgrad import viz
    return Picture(f"{number:02d}-{tag}-storage-{name}.svg", _alt(f"the storage of {name}"),
                   viz.storage(namespace[name], namespace=namespace).source)


def backward_pictures(number: int, tag: str, bt, which: str) -> list:
    """Moments of backward pass ``bt`` (a ``BackwardTrace``): ``which`` is ``all`` or step
    numbers ``0,2,…``."""
    from viewgrad.render.dot import draw_backward_step
    n = len(bt.steps)
    steps = range(n) if which == "all" else [int(k) for k in which.split(",") if k.strip()]
    return [Picture(f"{number:02d}-{tag}-backward{bt.index}-step{k}.svg",
                    _alt(f"backward #{bt.index}, step {k + 1} of {n}: {bt.steps[k].name} runs"),
                    draw_backward_step(bt, k).source)
            for k in list(steps)[:BACKWARD_LIMIT] if 0 <= k < n]


def write(picture: Picture, folder: str) -> str:
    """Render ``picture`` to ``folder/picture.name`` with its DOT hash inside; the path."""
    from viewgrad.render.svg import render_source
    svg = render_source(picture.source)
    mark = f"<!-- {KEY_MARK} {picture.key} (regenerate them with the update option of: viewgrad tutorial) -->\n"
    if svg.startswith("<?xml"):
        end = svg.index("?>") + 2
        svg = svg[:end] + "\n" + mark + svg[end:].lstrip("\n")
    else:
        svg = mark + svg
    path = os.path.join(folder, picture.name)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(svg)
    return path


def check_writable(folder: str) -> str | None:
    """None when pictures can be written into ``folder`` (created if missing), else why not."""
    try:
        os.makedirs(folder, exist_ok=True)
        probe = os.path.join(folder, ".viewgrad-write-test")
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as e:
        return f"cannot write pictures to {folder}: {e.strerror or e}"
    return None
