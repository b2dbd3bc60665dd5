"""How the REPL shows things: results, autograd graphs and a user's exceptions (rich).

* A ``Tensor`` result is its PyTorch-style repr plus one dim line with what autograd knows
  about it: shape, dtype, requires_grad, grad_fn, version, and whose view it is.
* A graph ``Node`` (a ``grad_fn``) is drawn as a rich ``Tree`` following
  ``next_functions``. A graph is a DAG and rich only draws trees, so a node reached a second
  time is printed as a back-reference (``↑ #3``) instead of being expanded again.
* Anything else goes through ``rich.pretty``; a ``__repr__`` that raises is reported, never
  propagated (nothing a user types may crash the REPL).
* Exceptions are shown as a rich traceback *without* viewgrad's and the REPL's own frames:
  a learner needs the line they typed and the message, not the engine's internals.
"""
from __future__ import annotations

import builtins
import linecache
import os
import re
import sys

from rich.console import Console, Group
from rich.pretty import Pretty
from rich.text import Text
from rich.traceback import Traceback
from rich.tree import Tree

import viewgrad as vg
from viewgrad.autograd.graph import Node as _Node
from viewgrad.tensor import Tensor as _Tensor
from viewgrad.trace.snapshot import node_label
from viewgrad.trace.sanitize import clean, safe_repr

# Private references (Note [The REPL keeps its own tools]): a user may rebind vg.Tensor or
# builtins; the REPL's own checks use these.

_VIEWGRAD_DIR = os.path.dirname(os.path.abspath(vg.__file__))
_CLI_DIR = os.path.dirname(os.path.abspath(__file__))


# -- labels --------------------------------------------------------------------------
def label_of(t, namespace=None) -> str | None:
    """A tensor's label, as DESIGN §8 says: its ``name`` if set, else the REPL variable that
    holds it (first one, in definition order), else ``None``."""
    name = getattr(t, "_name", None)
    if name:
        return clean(name, 200)
    if namespace:
        for k, v in namespace.items():
            if v is t and not k.startswith("_"):
                return k
    return None


# -- tensors -----------------------------------------------------------------------
def tensor_info(t, namespace=None) -> Text:
    """The dim line under a tensor: ``shape (3,) · float32 · requires_grad=True · ...``."""
    parts = [f"shape {tuple(t.shape)}", str(t.dtype).replace("viewgrad.", "")]
    parts.append(f"requires_grad={t.requires_grad}")
    try:
        fn = t.grad_fn
    except Exception as e:  # a stale grad_fn regenerates on read; never let that crash a print
        fn, parts = None, parts + [f"grad_fn=<error: {e}>"]
    if fn is not None:
        parts.append(f"grad_fn={node_label(fn)}")
    elif t.requires_grad:
        parts.append("leaf")
    parts.append("inference tensor" if t.is_inference() else f"version {t._version}")
    if t._is_view():
        base = label_of(t._base, namespace)
        parts.append(f"view of {base}" if base else "a view")
    text = Text("  " + " · ".join(parts), style="dim")
    return text


def render_tensor(t, namespace=None):
    return Group(Text(repr(t)), tensor_info(t, namespace))


# -- graphs ------------------------------------------------------------------------
def _node_label(node, namespace=None) -> Text:
    name = node_label(node)   # (without PyTorch's C++ namespace: "AccumulateGrad")
    text = Text(name, style="bold cyan" if name == "CopySlices" else "cyan")
    if name == "AccumulateGrad":
        var = getattr(node, "variable", None)
        lab = label_of(var, namespace) if var is not None else None
        if lab:
            text.append(f" ({lab})", style="green")
    fn = getattr(node, "fn", None) if name == "CopySlices" else None
    if fn is not None:
        text.append(f" wraps {node_label(fn)}", style="magenta")
    return text


def graph_tree(root, namespace=None, title=None, max_nodes=200, max_depth=None) -> Tree:
    """A rich Tree of the graph below ``root`` (a Node, or a Tensor: its grad_fn).

    Iterative depth-first walk (deep graphs must not hit the recursion limit); a node seen
    before becomes ``↑ #k`` so shared subgraphs print once.
    """
    if isinstance(root, _Tensor):
        lab = label_of(root, namespace) or "tensor"
        title = title or f"{lab}  {tuple(root.shape)}"
        node = root.grad_fn
        if node is None:
            tree = Tree(Text(title, style="bold"))
            tree.add(Text("leaf (no grad_fn)" if root.requires_grad
                          else "does not require grad: no graph", style="dim"))
            return tree
        tree = Tree(Text(title, style="bold"))
        start = [(tree, node, None, 0)]
    else:
        tree = None
        start = [(None, root, None, 0)]
    numbers: dict[int, int] = {}
    stack = list(start)
    count = 0
    while stack:
        parent, node, input_nr, depth = stack.pop()
        if node is None:
            parent.add(Text("None (input needs no grad)", style="dim"))
            continue
        key = id(node)
        prefix = f"[{input_nr}] " if input_nr is not None else ""
        if key in numbers:
            parent.add(Text(f"{prefix}↑ #{numbers[key]} {node_label(node)}", style="dim"))
            continue
        count += 1
        numbers[key] = count
        label = Text(prefix, style="dim") + Text(f"#{count} ", style="dim") + \
            _node_label(node, namespace)
        if parent is None:
            tree = Tree(label)
            here = tree
        else:
            here = parent.add(label)
        if count >= max_nodes:
            here.add(Text("… graph truncated", style="dim"))
            break
        edges = list(getattr(node, "next_functions", ()) or ())
        if max_depth is not None and depth >= max_depth and edges:
            here.add(Text("… (deeper: raise --depth)", style="dim"))
            continue
        # push in reverse so input 0 is printed first
        for i in range(len(edges) - 1, -1, -1):
            nxt = edges[i][0]
            stack.append((here, nxt, i, depth + 1))
    return tree


# -- any result --------------------------------------------------------------------
def render_result(obj, namespace=None):
    """The renderable the REPL prints for an expression's value."""
    from .tracing import trace_renderable  # late: the tracer may not be installed yet
    if isinstance(obj, _Tensor):
        return render_tensor(obj, namespace)
    if isinstance(obj, _Node):
        return graph_tree(obj, namespace)
    special = trace_renderable(obj)
    if special is not None:
        return special
    if hasattr(obj, "__rich__") or hasattr(obj, "__rich_console__"):
        return obj
    # Capped (Python's reprlib): a 10**6-element list or a 10 MB repr costs milliseconds;
    # rich.pretty lays out small values only (it would take minutes on big ones).
    short = _SHORT.repr(obj)
    if len(short) <= 4000 and "..." not in short:
        return Pretty(obj)
    return Text(clean(short, keep_newlines=True))


def _short_repr():
    import reprlib
    r = reprlib.Repr()
    r.maxlist = r.maxtuple = r.maxset = r.maxfrozenset = r.maxdeque = r.maxarray = 200
    r.maxdict = 100
    r.maxlevel = 12
    r.maxstring = 5000
    r.maxlong = 4000
    r.maxother = 20000
    return r


_SHORT = _short_repr()


def print_result(console, obj, namespace=None):
    """Print a value; a failing ``__repr__`` is reported, not raised."""
    try:
        with console.capture() as cap:  # render fully first: a repr error must not leave half a line
            console.print(render_result(obj, namespace))
        console.file.write(cap.get())
        console.file.flush()
    except Exception as e:  # noqa: BLE001 - user objects can raise anything from __repr__
        console.print(Text(f"(could not print the result: {type(e).__name__}: {e})",
                           style="red"))


# -- exceptions --------------------------------------------------------------------
HINTS = {
    # the more specific message first: the view-of-leaf text also contains the leaf one
    "a view of a leaf Variable": (
        "the view shares memory with a leaf that requires grad. Clone the leaf first "
        "(b = a.clone(); b[0].mul_(2)) or use no_grad for a deliberate update."),
    "a leaf Variable that requires grad": (
        "a leaf that requires grad may not be changed in place (its .grad would lose track "
        "of the value it belongs to). Work on a copy: b = a.clone(), or wrap a deliberate "
        "change of parameters in `with vg.no_grad():`."),
    "modified by an inplace operation": (
        "a tensor that a node saved for backward was changed afterwards. `:events` lists the "
        "in-place ops of this session; `:show N` draws the one that bumped the version."),
    "backward through the graph a second time": (
        "the first backward freed the saved tensors. Pass retain_graph=True to the first "
        "backward, or rebuild the graph by re-running the forward lines."),
}


_TYPED: dict[str, None] = {}   # typed inputs' file names, oldest first (a ring)
SOURCES_KEPT = 10_000           # a long session keeps the sources of its last inputs only


def register_source(filename: str, source: str):
    """Make typed code visible to tracebacks (they read sources through linecache)."""
    _TYPED.pop(filename, None)              # the newest goes last (sessions reuse names)
    _TYPED[filename] = None
    while len(_TYPED) > SOURCES_KEPT:       # bounded: an hour-long script stays small
        old = next(iter(_TYPED))
        del _TYPED[old]
        linecache.cache.pop(old, None)
    if not source.endswith("\n"):
        source += "\n"  # rich reads the first line with code.index("\n")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)


def _internal(filename: str) -> bool:
    path = os.path.abspath(filename) if not filename.startswith("<") else filename
    return path.startswith(_VIEWGRAD_DIR + os.sep) or path.startswith(_CLI_DIR + os.sep)


def render_exception(exc: BaseException, width=100):
    """A concise rich traceback of ``exc`` with viewgrad's and the REPL's frames removed,
    followed by a hint for the errors learners meet most."""
    trace = Traceback.extract(type(exc), exc, exc.__traceback__, show_locals=False)
    hidden = 0
    for stack in trace.stacks:
        kept = []
        for f in stack.frames:
            if _internal(f.filename):
                # the REPL's own exec frame is machinery, not worth a mention; viewgrad's are
                hidden += not os.path.abspath(f.filename).startswith(_CLI_DIR + os.sep)
                continue
            base = os.path.basename(f.filename)
            if base in _TYPED and not os.path.exists(f.filename):
                f.filename = base  # rich made "In[3]" absolute; linecache knows the short name
            kept.append(f)
        stack.frames = kept
    tb = Traceback(trace, width=width, extra_lines=0, max_frames=8, word_wrap=True)
    parts = [tb]
    if hidden:
        parts.append(Text(f"({hidden} frame{'s' * (hidden != 1)} inside viewgrad hidden)",
                          style="dim"))
    msg = str(exc)
    for needle, hint in HINTS.items():
        if needle in msg:
            parts.append(Text("hint: ", style="bold yellow") + Text(hint, style="yellow"))
            break
    return Group(*parts)


def _trim_syntax_error(exc):
    """A SyntaxError in a huge line (a million-digit literal) shows 400 characters around
    the error: rich highlighting the whole line froze the REPL."""
    text = getattr(exc, "text", None)
    if isinstance(exc, SyntaxError) and isinstance(text, str) and len(text) > 1000:
        off = max(0, (exc.offset or 1) - 1)
        a = min(max(0, off - 200), max(0, len(text) - 400))
        exc.text = ("…" if a else "") + text[a:a + 400] + "…"
        exc.offset, exc.end_offset = off - a + 1 + (1 if a else 0), None


def print_exception(console, exc: BaseException):
    _trim_syntax_error(exc)
    try:
        console.print(render_exception(exc, width=min(console.width, 120)))
    except Exception:  # noqa: BLE001 - a broken exception object must not break the REPL
        console.print(Text(f"{type(exc).__name__}: {exc!s}", style="bold red"))


# -- the REPL's own output stream ---------------------------------------------------------
_SURROGATES = re.compile("[\ud800-\udfff]")


class SafeFile:
    """The stream a REPL console writes to. It never raises for text the terminal cannot
    encode (a lone surrogate in a tensor's name would otherwise stay in rich's buffer and
    fail every later print), and a user's ``sys.stdout.close()`` does not close it: the
    REPL still needs its output (``close_requested`` lets the session say so)."""

    def __init__(self, stream):
        self._stream = stream
        self.close_requested = False
        try:
            self._fd = stream.fileno()
        except Exception:  # noqa: BLE001 - a StringIO has none
            self._fd = None

    def write(self, s):
        s = _SURROGATES.sub("\ufffd", s)
        try:
            return self._stream.write(s)
        except UnicodeEncodeError:
            enc = getattr(self._stream, "encoding", None) or "utf-8"
            return self._stream.write(s.encode(enc, "replace").decode(enc))
        except ValueError:      # the stream was closed under us: reopen its descriptor
            if self._fd is None:
                raise
            self._stream = open(self._fd, "w", encoding="utf-8", errors="replace",
                                closefd=False, buffering=1)
            return self._stream.write(s)

    def flush(self):
        try:
            self._stream.flush()
        except (ValueError, OSError):
            pass

    def close(self):
        self.close_requested = True

    @property
    def closed(self):
        return False

    def __getattr__(self, name):
        return getattr(self._stream, name)


def protect_console(console: Console) -> Console:
    """Make ``console`` safe for anything a user or a trace file says: strings are printed
    as written, never parsed as rich markup (a tensor named ``[/]``), and its stream never
    fails on odd text (``SafeFile``)."""
    console._markup = False
    if not isinstance(console.file, SafeFile):
        console.file = SafeFile(console.file)
    return console


# Note [The REPL keeps its own tools]: user code may rebind anything, builtins included
# (``builtins.len = None``, ``vg.Tensor = 5``). The REPL's checks use private references
# (``_Tensor``, ``_Node`` above), and user code runs with its own changes to builtins while
# everything else (printing, tracing, rich) runs with Python's: ``user_builtins`` swaps them.
_ORIGINAL_BUILTINS = dict(builtins.__dict__)
_MISSING = object()


class UserBuiltins:
    """The user's changes to ``builtins``, applied only while their code runs."""

    def __init__(self):
        self.changes = {}

    def __enter__(self):
        d = builtins.__dict__
        for k, v in self.changes.items():
            if v is _MISSING:
                d.pop(k, None)
            else:
                d[k] = v
        return self

    def __exit__(self, *exc):
        d = builtins.__dict__
        changes = {}
        for k, v in list(d.items()):
            if _ORIGINAL_BUILTINS.get(k, _MISSING) is not v:
                changes[k] = v
        for k in _ORIGINAL_BUILTINS:
            if k not in d:
                changes[k] = _MISSING
        self.changes = changes
        for k, v in changes.items():       # Python's own back, for the REPL's code
            if v is not _MISSING and k not in _ORIGINAL_BUILTINS:
                del d[k]
        d.update(_ORIGINAL_BUILTINS)
        return False
