"""Where an in-place op came from in the user's code, read off the Python call stack.

What the tracer (``tracer.py``) asks of the frames around an op, and of the line the user
wrote:

  _caller()             the first frame outside viewgrad's op machinery, or "internal":
                        autograd's own in-place ops are not events
                        (Note [the user's frame])
  _library(frame)       which library code did the op ("optimizer step", "parameter
                        init"...), or None: the user's own line
  _modules_in(frame)    the Modules whose methods are running (to name their parameters)
  _user_frame(frame)    the nearest frame outside the package (an optimizer's step() →
                        the user's loop)
  _namespaces(...)      whose variables name the tensors: the user's locals and globals
  _source_of(frame)     ``Source``: (file, line, text) of that frame's line
  _operand_text(o, lb)  an operand as an event shows it: a label, or a constant's value
  _source_operands(...) the operand expressions as written on the line (``lr * p.grad``)

Nothing here records or snapshots anything; it only reads frames and source text.
"""
from __future__ import annotations

import ast
import linecache
import os
import sys

__all__ = ["Source"]

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # .../viewgrad
# Note [the user's frame]: between the user's line and the in-place choke point there are
# only frames in _SKIP (the op wrappers, Tensor's methods, views.apply_inplace) and the
# tracer's own (the hub, this module). That is why all of trace/ is in _SKIP, and why this
# module must stay in trace/. The first frame past them is the user's, or library code
# (optim, nn...: _library), or autograd's own (_INTERNAL: not an event).
# the op machinery between the user and the choke point (apply_inplace lives in views.py)
_SKIP = (os.path.join(_PKG, "ops"), os.path.join(_PKG, "tensor.py"),
         os.path.join(_PKG, "trace"), os.path.join(_PKG, "autograd", "views.py"))
_INTERNAL = (os.path.join(_PKG, "autograd"),)
_ENGINE = os.path.join(_PKG, "autograd", "engine.py")


class Source(tuple):
    """(file, line, text) of the user's line that did the op; ``text`` may be None."""
    __slots__ = ()

    def __new__(cls, file, line, text):
        return super().__new__(cls, (file, line, text))

    file = property(lambda s: s[0])
    line = property(lambda s: s[1])
    text = property(lambda s: s[2])


def _caller():
    """(user frame or None, internal?) for the op being run now.

    Walk out of viewgrad's op machinery; if the first frame beyond it is autograd's own
    code, or a backward pass is running anywhere up the stack, the op is internal."""
    f = sys._getframe(2)
    user = None
    while f is not None:
        fn = f.f_code.co_filename
        if fn == _ENGINE and f.f_code.co_name == "run_backward":
            return None, True
        if user is None and not fn.startswith(_SKIP):
            if fn.startswith(_INTERNAL):
                return None, True
            user = f
        f = f.f_back
    return user, False


_LIBRARY = (("optim", "optimizer step"), (os.path.join("nn", "init.py"), "parameter init"),
            (os.path.join("nn", "layers.py"), "parameter init"),
            (os.path.join("nn", "module.py"), "module code"), ("nn", "nn code"))


def _library(frame):
    """What library code did the op (the REPL folds these), or None: the user's own line.

    ``frame`` is the first frame outside viewgrad's op machinery (``_caller``): inside the
    package it is an initializer, an optimizer's ``step``, a module's method."""
    if frame is None:
        return None
    fn = frame.f_code.co_filename
    if not fn.startswith(_PKG):
        return None
    rel = os.path.relpath(fn, _PKG)
    for prefix, what in _LIBRARY:
        if rel.startswith(prefix):
            return what
    return "library code"


def _modules_in(frame) -> dict:
    """{class name: module} for the ``self`` of viewgrad's frames around an op."""
    from ..nn.module import Module
    out = {}
    f = frame
    while f is not None and f.f_code.co_filename.startswith(_PKG):
        me = f.f_locals.get("self")
        if isinstance(me, Module):
            out.setdefault(type(me).__name__, me)
        f = f.f_back
    return out


def _source_of(frame):
    if frame is None:
        return None
    fn, ln = frame.f_code.co_filename, frame.f_lineno
    text = linecache.getline(fn, ln).strip() or None
    return Source(fn, ln, text)


def _user_frame(frame):
    """Nearest frame outside the viewgrad package (optimizer code → the user's step())."""
    f = frame
    while f is not None and f.f_code.co_filename.startswith(_PKG):
        f = f.f_back
    return f or frame


def _namespaces(namespace, frame):
    if namespace is not None:
        return [namespace]
    if frame is None:
        return []
    frame = _user_frame(frame)
    return [frame.f_locals, frame.f_globals]


def _operand_text(o, labeler):
    from ..tensor import Tensor
    if not isinstance(o, Tensor):
        return repr(o)
    lab = labeler.named(o)
    if lab is not None:
        return labeler(o)
    if o._grad_fn is None and not o._requires_grad and o._data.size == 1:
        v = o._data.reshape(-1)[0].item()       # a constant such as the 2 in x.mul_(2)
        text = repr(v)
        # (a computed one, an optimizer's scaled buffer: four digits, as a tensor prints
        # them, not the last bits a CPU's kernels decide)
        return text if len(text) <= 8 or not isinstance(v, float) else f"{v:.4g}"
    return labeler(o)


_AUG_OPS = {"add_": ast.Add, "sub_": ast.Sub, "mul_": ast.Mult, "div_": ast.Div,
            "pow_": ast.Pow}


def _source_operands(text, op, n):
    """The argument expressions of ``op`` as written on the user's line (``lr * p.grad``
    in ``p.sub_(lr * p.grad)``, ``2`` in ``x *= 2``), or None when the line is not one
    clear call of it."""
    if not text or n == 0:
        return None
    try:
        tree = ast.parse(text.strip())
    except SyntaxError:
        return None
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == op and len(node.args) >= n:
            found.append(node.args[:n])
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, _AUG_OPS.get(op, ())) \
                and n == 1:
            found.append([node.value])
        elif op == "__setitem__" and isinstance(node, ast.Assign) and n == 1 \
                and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
            found.append([node.value])
    if len(found) != 1:
        return None
    out = [ast.get_source_segment(text.strip(), a) for a in found[0]]
    return out if all(out) else None
