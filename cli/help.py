"""Help at the prompt: ``x?``, ``help(x)`` and the signature toolbar while typing a call.

* ``x?`` (or ``?x``; ``x??`` too) shows what ``x`` is, its signature and its docstring,
  as IPython does. A dotted name is looked up without running code (``lookup.py``): for
  ``t.grad_fn?`` that means the *property*'s documentation, not the value it would
  compute. Any other expression is evaluated, as if typed.
* ``help(x)`` in the REPL's namespace is the same page (Python's own ``help`` opens an
  interactive pager, which a learner's REPL does not need); ``help()`` says how to get help.
* ``call_signature(text, namespace)``: while the cursor is inside ``f(…``, the signature
  of ``f`` with the argument being typed marked — the REPL's toolbar shows it, as ptpython
  does. Found without running code, like completion.
"""
from __future__ import annotations

import inspect
import re
import sys
import types

from rich.console import Console, Group
from rich.text import Text

from . import lookup

_HELP = re.compile(r"^\s*(\?{1,2})?\s*([^?\n]+?)\s*(\?{1,2})?\s*$")
_CALLEE = re.compile(r"([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*$")


def help_request(text: str) -> str | None:
    """The expression of ``x?`` / ``?x`` / ``x??``, or None when ``text`` is not one."""
    if "\n" in text.strip() or "?" not in text:
        return None
    m = _HELP.match(text)
    if not m or not (m.group(1) or m.group(3)) or text.lstrip().startswith(":"):
        return None
    return m.group(2)


def _what(obj) -> str:
    isa = lookup._isa   # never isinstance: it may ask a user object for its __class__
    if isa(obj, lookup.Instance):
        return f"a {obj.cls.__name__} (not computed)"
    if isa(obj, type):
        return "class"
    if isa(obj, types.ModuleType):
        return "module" + (", callable" if callable(obj) else "")
    if isa(obj, types.MethodType):
        return "method"
    if isa(obj, (types.FunctionType, types.BuiltinFunctionType)):
        return "function"
    if isa(obj, property):
        return "property (not computed)"
    return type(obj).__name__


def page(obj, label: str, doc_owner=None):
    """A renderable: ``label`` and what it is, its signature, its docstring."""
    title = Text.assemble((label, "bold cyan"), ("  " + _what(obj), "dim"))
    parts = [title]
    sig = lookup.signature_of(obj)
    if sig is not None:
        name = getattr(obj, "__name__", label.rsplit(".", 1)[-1])
        parts.append(Text(f"{name}{sig}", style="bold"))
    if not (lookup._isa(obj, (lookup.Instance, property, type, types.ModuleType))
            or inspect.isroutine(obj)):
        try:
            r = repr(obj)
        except Exception as e:  # noqa: BLE001 - a broken __repr__ is the user's business
            r = f"(repr failed: {type(e).__name__}: {e})"
        parts.append(Text(r if len(r) < 400 else r[:400] + " …"))
    doc = inspect.getdoc(doc_owner if doc_owner is not None else (
        obj.cls if lookup._isa(obj, lookup.Instance) else obj))
    if not doc and doc_owner is None and not (inspect.isroutine(obj) or lookup._isa(obj, type)):
        doc = inspect.getdoc(type(obj))
    parts.append(Text(doc or "(no docstring)", style=None if doc else "dim"))
    return Group(*parts)


def lookup_for_help(expr: str, namespace: dict):
    """(object, label, the object whose docstring to show) for a dotted name, without
    running code; a property gives its own docstring. Raises lookup.Unknown otherwise."""
    expr = re.sub(r"\s+", "", expr)
    if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", expr):
        raise lookup.Unknown(expr)
    try:
        obj = lookup.resolve(expr, namespace)
    except lookup.Unknown:
        # c.p? where p is a property whose type is unknown (or another descriptor): its
        # own page, never its value (IPython does the same; a looping getter froze it)
        prop = _descriptor(expr, namespace)
        return prop, expr, prop
    doc_owner = None
    if lookup._isa(obj, lookup.Instance) and "." in expr:
        prop = _descriptor(expr, namespace)
        if lookup._isa(prop, property):
            doc_owner = prop
    return obj, expr, doc_owner


def _descriptor(expr: str, namespace: dict):
    """The property (or other Python descriptor) ``expr``'s last name reads, from the
    class of what the rest resolves to; raises lookup.Unknown when there is none."""
    if "." not in expr:
        raise lookup.Unknown(expr)
    parent_expr, name = expr.rsplit(".", 1)
    parent = lookup.resolve(parent_expr, namespace)
    isa = lookup._isa
    cls = parent.cls if isa(parent, lookup.Instance) else (
        parent if isa(parent, type) else type(parent))
    d = inspect.getattr_static(cls, name, None)
    if d is None or not hasattr(type(d), "__get__"):
        raise lookup.Unknown(expr)
    return d


def show(session, expr: str):
    """``x?``: print the help page of ``expr`` in the session."""
    try:
        obj, label, doc_owner = lookup_for_help(expr, session.namespace)
    except lookup.Unknown:
        try:
            obj, label, doc_owner = session.evaluate(expr), expr.strip(), None
        except Exception as e:  # noqa: BLE001 - e.g. a NameError: shown like any error
            session._show_error(e)
            return
    session.console.print(page(obj, label, doc_owner))


class Helper:
    """``help`` in the REPL's namespace: ``help(x)`` prints ``x``'s help page."""

    def __repr__(self):
        return "Type help(object) or object? for help about an object; :help lists the commands."

    def __call__(self, obj=None):
        console = Console(file=sys.stdout, highlight=False)
        if obj is None:
            console.print(Text(repr(self)))
            return
        label = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) \
            or type(obj).__name__
        console.print(page(obj, str(label)))


HELP = Helper()


# -- the signature toolbar ---------------------------------------------------------------
def _open_call(text: str):
    """(index of the innermost unclosed '(', number of commas after it at its level, the
    text of the argument being typed), skipping strings and comments; None outside a call."""
    stack = []  # [open char, position, commas, start of the current argument]
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            triple = text[i:i + 3] in ('"""', "'''")
            q = text[i:i + 3] if triple else ch
            j = text.find(q, i + len(q))
            while j != -1 and not triple and text[j - 1] == "\\":
                j = text.find(q, j + 1)
            if j == -1:
                return None  # inside a string
            i = j + len(q)
            continue
        if ch == "#":
            j = text.find("\n", i)
            if j == -1:
                return None
            i = j
            continue
        if ch in "([{":
            stack.append([ch, i, 0, i + 1])
        elif ch in ")]}":
            if stack:
                stack.pop()
        elif ch == "," and stack:
            stack[-1][2] += 1
            stack[-1][3] = i + 1
        i += 1
    if not stack or stack[-1][0] != "(":
        return None
    _, pos, commas, start = stack[-1]
    return pos, commas, text[start:]


def call_signature(text: str, namespace: dict):
    """``(callable's name, signature, index of the parameter being typed or None)`` for the
    call the cursor is in, or None."""
    found = _open_call(text)
    if found is None:
        return None
    pos, commas, current = found
    m = _CALLEE.search(text[:pos])
    if not m:
        return None
    expr = re.sub(r"\s+", "", m.group(1))
    try:
        obj = lookup.resolve(expr, namespace)
    except Exception:  # noqa: BLE001 - not found without running code: no toolbar
        return None
    sig = lookup.signature_of(obj)
    if sig is None:
        return None
    params = list(sig.parameters.values())
    kw = re.match(r"\s*([A-Za-z_]\w*)\s*=(?!=)", current)
    index = None
    if kw:
        index = next((k for k, p in enumerate(params) if p.name == kw.group(1)), None)
    else:
        positional = [k for k, p in enumerate(params)
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        var = next((k for k, p in enumerate(params) if p.kind == p.VAR_POSITIONAL), None)
        if commas < len(positional):
            index = positional[commas]
        else:
            index = var
    return expr.rsplit(".", 1)[-1], sig, index


def signature_fragments(text: str, namespace: dict):
    """The toolbar line (prompt_toolkit formatted text) for ``call_signature``, or []."""
    found = call_signature(text, namespace)
    if found is None:
        return []
    name, sig, index = found
    params = list(sig.parameters.values())
    out = [("class:signature", f" {name}(")]
    star_done = False
    for k, p in enumerate(params):
        if k:
            out.append(("class:signature", ", "))
        if p.kind == p.KEYWORD_ONLY and not star_done and not any(
                q.kind == q.VAR_POSITIONAL for q in params):
            out.append(("class:signature", "*, "))
            star_done = True
        style = "class:signature.current" if k == index else "class:signature"
        out.append((style, str(p)))
    out.append(("class:signature", ")"))
    return out
