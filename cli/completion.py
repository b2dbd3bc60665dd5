"""Tab completion over the *live* namespace (prompt_toolkit ``Completer``).

* ``na<Tab>``            names: the REPL's variables, builtins, keywords.
* ``a.cl<Tab>``          attributes of the object a dotted name refers to *now* — so a
                         Tensor offers ``clone``, ``mul_``, ``grad_fn``… and ``vg.`` offers
                         the library. Only plain dotted names are followed, and without
                         running any code (``lookup.py``): no call, no subscript, no
                         property getter — ``v.grad_fn.`` completes from the class
                         ``Node`` rather than reading a stale view's ``grad_fn``.
* ``:sh<Tab>``           colon commands; their arguments complete too (``:trace o``,
                         expressions for ``:graph``/``:svg``, file paths for ``:save``,
                         event numbers for ``:show``…).

Attributes are classified (method/property/…) from the class dictionaries, not by reading
them, so a property with a side effect (a warning from ``.grad`` on a non-leaf) never runs
just because a menu opened. Private names appear only once the user types ``_``.

How the menu behaves (``repl.py``): it opens while typing; Tab inserts a completion only
when it is the only one (or the common start of all of them) — with several, Tab shows the
menu and a second Tab walks into it, so ``t.`` + Tab never becomes ``t.T`` by itself.
"""
from __future__ import annotations

import builtins
import keyword
import re

from prompt_toolkit.completion import Completer, Completion, PathCompleter
from prompt_toolkit.document import Document

from . import lookup

_ATTR = re.compile(r"(?<![\w.'\")\]])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\.(\w*)$")
_NAME = re.compile(r"(?<![\w.'\"])([A-Za-z_]\w*)$")


class ReplCompleter(Completer):
    """Completes Python against ``get_namespace()`` and colon commands from ``commands``
    (a mapping name -> command object with an ``args`` attribute: a string naming the kind
    of each argument, e.g. ``"expr"``, ``"expr file"``, ``"file"``, ``"on|off"``)."""

    def __init__(self, get_namespace, commands=None, get_events=None):
        self.get_namespace = get_namespace
        self.commands = commands or {}
        self.get_events = get_events or (lambda: [])
        self._paths = PathCompleter(expanduser=True)

    def get_completions(self, document, complete_event):
        text = document.text_before_cursor
        try:
            if text.lstrip().startswith(":") and "\n" not in text:
                yield from self._colon(text.lstrip(), complete_event)
            else:
                yield from self._python(text)
        except Exception:  # noqa: BLE001 - completion must never break typing
            return

    # -- python -----------------------------------------------------------------------
    def _python(self, text):
        ns = self.get_namespace()
        m = _ATTR.search(text)
        if m:
            try:
                obj = lookup.resolve(m.group(1), ns)
            except Exception:  # noqa: BLE001 - any failure just means "no completions"
                return
            prefix = m.group(2)
            for name in lookup.names(obj):
                if not name.startswith(prefix):
                    continue
                if name.startswith("_") and not prefix.startswith("_"):
                    continue
                if name.startswith("__") and not prefix.startswith("__"):
                    continue
                yield Completion(name, -len(prefix), display_meta=lookup.kind(obj, name))
            return
        m = _NAME.search(text)
        if not m:
            return
        prefix = m.group(1)
        seen = set()
        for source, meta in ((ns, None), (vars(builtins), "builtin")):
            for name in sorted(source):
                if name.startswith(prefix) and name not in seen and (
                        not name.startswith("_") or prefix.startswith("_")):
                    seen.add(name)
                    yield Completion(name, -len(prefix),
                                     display_meta=meta or type(source[name]).__name__)
        for kw in keyword.kwlist:
            if kw.startswith(prefix) and kw not in seen:
                yield Completion(kw, -len(prefix), display_meta="keyword")

    # -- colon commands ---------------------------------------------------------------------
    def _colon(self, text, complete_event):
        body = text[1:]
        if " " not in body:
            for name in sorted(self.commands):
                if name.startswith(body):
                    yield Completion(":" + name, -len(text),
                                     display_meta=getattr(self.commands[name], "summary", ""))
            return
        name, rest = body.split(" ", 1)
        cmd = self.commands.get(name)
        if cmd is None:
            return
        kinds = getattr(cmd, "args", "").split()
        words = rest.split(" ")
        position = len(words) - 1
        kind = kinds[min(position, len(kinds) - 1)] if kinds else ""
        if kind == "expr":
            yield from self._python(rest)
        elif kind == "file":
            sub = Document(words[-1], len(words[-1]))
            yield from self._paths.get_completions(sub, complete_event)
        elif kind == "N":  # an event number: the most recent first, with what it was
            evs = self.get_events()
            for k in range(len(evs) - 1, max(-1, len(evs) - 31), -1):
                n = str(getattr(evs[k], "index", k))   # the session's number (a ring)
                if n.startswith(words[-1].lstrip("#")):
                    yield Completion(n, -len(words[-1]),
                                     display_meta=str(getattr(evs[k], "op", "")))
        elif "|" in kind:
            for choice in kind.split("|"):
                if choice.startswith(words[-1]):
                    yield Completion(choice, -len(words[-1]))
