"""explain(event): the functionalized rewrite of an in-place op; summarize(event): one line.

PyTorch's functionalization (and the "View + Inplace update" note) reads an in-place op on
a view as pure functions: copy out, compute, scatter back into the base, re-take the
views. For ``x = b.select(0, 0); x *= 2``::

    b₀ = b
    x₀ = x
    x₁ = x₀ * 2
    b₁ = b₀.select_scatter(x₁, 0, 0)
    x₂ = b₁.select(0, 0)
    x = x₂
    b = b₁

(Subscripts mark the successive values of one variable: ``b₀`` is ``b`` before the op.
They are not Python names; read the rewrite, do not paste it.)

Each view op has a scatter that writes a region back (select → select_scatter, slice →
slice_scatter, narrow → slice_scatter, diagonal → diagonal_scatter, as_strided →
as_strided_scatter); shape-only views are undone by their inverse (view back to the
parent's shape, transpose, permute by the inverse permutation, squeeze an unsqueezed dim).
A chain of several view ops scatters step by step from the inside out. When a step has
neither (e.g. unfold), the whole chain falls back to ``as_strided_scatter`` with the view's
geometry. Everything here reads only snapshot data.
"""
from __future__ import annotations

from .snapshot import chain_text, fmt_args

__all__ = ["explain", "summarize", "functional_expr", "scatter_lines", "infer_shapes"]

_BIN = {"add_": "+", "sub_": "-", "mul_": "*", "div_": "/", "pow_": "**"}
_UNARY = {"exp_": "exp", "log_": "log", "tanh_": "tanh", "sigmoid_": "sigmoid",
          "relu_": "relu", "sqrt_": "sqrt", "abs_": "abs", "reciprocal_": "reciprocal"}


_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def copy_name(name, k) -> str:
    """``b₀``, ``x₁``: the k-th value of a variable in the rewrite. Subscripts, so a copy
    never reads like a version (``@v1``) or like a user's variable named ``b0``."""
    return f"{name}{str(k).translate(_SUB)}"


def _ident(label, fallback):
    return label if label.isidentifier() else fallback


# -- shapes through a view chain (for inverse view ops) ---------------------------------

def _norm(d, n):
    return d + n if d < 0 else d


def _step_shape(shape, name, args):
    s = list(shape)
    n = len(s)
    if name == "select":
        d = _norm(args[0], n)
        del s[d]
    elif name == "slice":
        d, start, end, step = args
        d = _norm(d, n)
        s[d] = len(range(*slice(start, end, step).indices(s[d])))
    elif name == "narrow":
        d, _start, length = args
        s[_norm(d, n)] = length
    elif name == "diagonal":
        off, d1, d2 = args
        d1, d2 = _norm(d1, n), _norm(d2, n)
        a, b = s[d1], s[d2]
        k = max(0, min(a, b - off) if off >= 0 else min(a + off, b))
        s = [x for i, x in enumerate(s) if i not in (d1, d2)] + [k]
    elif name in ("view", "reshape"):
        new = list(args[0])
        if -1 in new:
            known = 1
            for x in new:
                if x != -1:
                    known *= x
            total = 1
            for x in s:
                total *= x
            new[new.index(-1)] = total // known if known else 0
        s = new
    elif name == "transpose":
        a, b = _norm(args[0], n), _norm(args[1], n)
        s[a], s[b] = s[b], s[a]
    elif name == "t":
        s = s[::-1]
    elif name == "permute":
        s = [s[_norm(d, n)] for d in args[0]]
    elif name == "unsqueeze":
        s.insert(_norm(args[0], n + 1), 1)
    elif name == "squeeze":
        if not args:
            s = [x for x in s if x != 1]
        else:
            dims = args[0] if isinstance(args[0], tuple) else (args[0],)
            dims = {_norm(d, n) for d in dims}
            s = [x for i, x in enumerate(s) if not (i in dims and x == 1)]
    elif name == "as_strided":
        s = list(args[0])
    else:
        raise ValueError(name)
    return tuple(s)


def infer_shapes(base_shape, view_fns):
    """Shapes after each step of the chain, starting with the base's; None if unknown."""
    shapes = [tuple(base_shape)]
    try:
        for name, args in view_fns:
            shapes.append(_step_shape(shapes[-1], name, tuple(args)))
    except (ValueError, IndexError, TypeError):
        return None
    return shapes


def _scatter(parent, new, name, args, parent_shape):
    """Expression writing ``new`` back into ``parent`` through one view step, or None."""
    a = tuple(args)
    if name == "select":
        return f"{parent}.select_scatter({new}, {fmt_args(a)})"
    if name == "slice":
        return f"{parent}.slice_scatter({new}, {fmt_args(a)})"
    if name == "narrow":
        d, start, length = a
        return f"{parent}.slice_scatter({new}, {fmt_args((d, start, start + length, 1))})"
    if name == "diagonal":
        return f"{parent}.diagonal_scatter({new}, {fmt_args(a)})"
    if name == "as_strided":
        return f"{parent}.as_strided_scatter({new}, {fmt_args(a)})"
    if name in ("view", "reshape", "squeeze") and parent_shape is not None:
        return f"{new}.view({fmt_args((tuple(parent_shape),))})"
    if name == "unsqueeze":
        return f"{new}.squeeze({a[0]})"
    if name == "transpose":
        return f"{new}.transpose({fmt_args(a)})"
    if name == "t":
        return f"{new}.t()"
    if name == "permute":
        perm = list(a[0])
        inv = [0] * len(perm)
        for i, p in enumerate(perm):
            inv[p] = i
        return f"{new}.permute({fmt_args((tuple(inv),))})"
    return None


def scatter_lines(b0, b1, x1, base_info, view_info):
    """Lines that write ``x1`` into ``b0`` through the view chain, ending in ``b1 = ...``."""
    fns = view_info.view_fns
    shapes = infer_shapes(base_info.shape, fns)
    parts = []
    if shapes is not None and len(fns) >= 1:
        # forward: the intermediate views p1..p(k-1); backward: scatter from the inside out
        names = [b0] + [f"{b0}_view{i}" for i in range(1, len(fns))]
        for i in range(1, len(fns)):
            n, a = fns[i - 1]
            parts.append(f"{names[i]} = {names[i - 1]}.{n}({fmt_args(a)})")
        new = x1
        ok = True
        back = []
        for i in range(len(fns) - 1, -1, -1):
            n, a = fns[i]
            target = b1 if i == 0 else f"{names[i]}_new"
            expr = _scatter(names[i], new, n, a, shapes[i])
            if expr is None:
                ok = False
                break
            back.append(f"{target} = {expr}")
            new = target
        if ok:
            return parts + back
    # Fallback: one as_strided_scatter with the view's geometry (offset relative to base).
    off = view_info.offset - base_info.offset
    return [f"{b1} = {b0}.as_strided_scatter({x1}, {fmt_args((view_info.shape,))}, "
            f"{fmt_args((view_info.stride,))}, {off})"]


# -- the op as an out-of-place expression -------------------------------------------------

def _attr(node, name):
    if node is None:
        return None
    for k, v in node.attrs:
        if k == name:
            return v
    return None


def _first_value(tinfo):
    """The value a fill wrote (read from the after snapshot's preview), or None."""
    v = tinfo.values if tinfo is not None else None
    if not v:
        return None
    s = v.strip("[] ")
    first = s.split(",")[0].strip() if s else None
    try:
        return repr(float(first)) if first and "." in first else first   # 5. -> 5.0
    except ValueError:
        return first


def _number_text(text) -> bool:
    """Whether an operand's label is a number (a 0-d constant is labelled by its value)."""
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


def _atom(text) -> bool:
    """A name, a number or a call/attribute chain: needs no parentheses."""
    import ast
    try:
        e = ast.parse(text, mode="eval").body
    except SyntaxError:
        return False
    if isinstance(e, ast.UnaryOp) and isinstance(e.operand, ast.Constant):
        return True
    return isinstance(e, (ast.Name, ast.Constant, ast.Attribute, ast.Call, ast.Subscript))


def functional_expr(event, x0):
    """The op as an expression on ``x0`` (e.g. ``x0 * y``, ``x0.exp()``)."""
    op, ops = event.op, list(event.operands)
    after_t = event.after.tensor(event.tensor_id) if event.after.has_tensor(
        event.tensor_id) else None
    node = None
    if after_t is not None and event.grad_enabled:
        base_id = after_t.base or after_t.id
        bt = event.after.tensor(base_id)
        n = event.after.node(bt.grad_fn) if bt.grad_fn and event.after.has_node(
            bt.grad_fn) else None
        if n is not None and n.kind == "copyslices" and event.after.has_node(n.wrapped):
            n = event.after.node(n.wrapped)
        node = n
    alpha = [o[len("alpha="):] for o in ops if o.startswith("alpha=")]
    ops = [o for o in ops if not o.startswith("alpha=")]
    if op in _BIN:
        other = ops[0] if ops else (_attr(node, "exponent") or "exponent")
        if not _atom(other):
            other = f"({other})"          # x.mul_(a + b) is x0 * (a + b)
        if alpha:                          # x.add_(g, alpha=-0.05) is x0 + -0.05 * g
            other = f"{alpha[0]} * {other}"
        return f"{x0} {_BIN[op]} {other}"
    if op == "neg_":
        return f"-{x0}"
    if op in _UNARY:
        return f"{x0}.{_UNARY[op]}()"
    if op == "clamp_":
        return f"{x0}.clamp({_attr(node, 'min') or '…'}, {_attr(node, 'max') or '…'})"
    if op == "zero_":
        return f"vg.zeros_like({x0})"
    if op in ("fill_", "__setitem__") and not ops:
        return f"vg.full_like({x0}, {_first_value(after_t) or 'value'})"
    if op == "fill_" or (op == "__setitem__" and _number_text(ops[0])):
        # (``x[0] = 5.0`` copies the number as a 0-d tensor, which is labelled by its value)
        return f"vg.full_like({x0}, {ops[0]})"
    if op in ("copy_", "__setitem__"):
        return f"{ops[0]}.expand_as({x0}).clone()" if ops else f"{x0}.clone()"
    if op == "masked_fill_":
        val = ops[1] if len(ops) > 1 else (_attr(node, "value") or "value")
        return f"{x0}.masked_fill({ops[0] if ops else 'mask'}, {val})"
    if op == "index_put_":
        return f"{x0}.index_put(indices, {ops[0] if ops else 'values'})"
    base = op[:-1] if op.endswith("_") else op
    return f"{x0}.{base}({', '.join(ops)})"


# -- explain / summarize ---------------------------------------------------------------

def explain(event) -> str:
    """The functionalized rewrite of ``event`` (one statement per line, with comments)."""
    before, after = event.before, event.after
    t = before.tensor(event.tensor_id)
    lines = []
    if event.source is not None and event.source[2]:
        lines.append(f"# {event.source[2]}")
    if not event.grad_enabled:
        lines.append("# grad mode is off: autograd records nothing for this op, only the "
                     "version counter moves")
    if event.op in METADATA_OPS:
        return "\n".join(lines + _metadata_lines(event, t))
    base = before.tensor(t.base) if t.is_view and before.has_tensor(t.base) else None
    if base is not None:
        bname = _ident(base.label, "base")
        xname = _ident(t.label, "view")
        b0, b1 = copy_name(bname, 0), copy_name(bname, 1)
        x0, x1, x2 = copy_name(xname, 0), copy_name(xname, 1), copy_name(xname, 2)
        lines.append(f"{b0} = {base.label}")
        # a temporary view (``b[0] = v`` makes one) has no name: take it from b0
        lines.append(f"{x0} = {t.label}" if t.label.isidentifier()
                     else f"{x0} = {b0}{chain_text(t.view_fns)}")
        lines.append(f"{x1} = {functional_expr(event, x0)}")
        lines += scatter_lines(b0, b1, x1, base, t)
        lines.append(f"{x2} = {b1}{chain_text(t.view_fns)}")
        if t.label.isidentifier():
            lines.append(f"{t.label} = {x2}")
        lines.append(f"{base.label} = {b1}")
        root, root1 = base, b1
    else:
        xname = _ident(t.label, "t")
        x0, x1 = copy_name(xname, 0), copy_name(xname, 1)
        lines.append(f"{x0} = {t.label}")
        lines.append(f"{x1} = {functional_expr(event, x0)}")
        lines.append(f"{t.label} = {x1}")
        root, root1 = t, x1
    # every other live view of the base is re-taken from the new base
    for v in before.tensors:
        if v.base != root.id or v.id == t.id or not v.is_view:
            continue
        va = after.tensor(v.id) if after.has_tensor(v.id) else v
        vname = _ident(v.label, None)
        if vname is None:
            continue
        note = ""
        if va.stale:
            node = "replayed view ops" if after.view_replay else "AsStridedBackward0"
            note = (f"   # {v.label} is stale: its grad_fn is rebuilt as {node} on "
                    f"{root.label}'s new history when next read")
        lines.append(f"{vname} = {root1}{chain_text(v.view_fns)}{note}")
    return "\n".join(lines)


# in-place view ops: they change a tensor's shape/strides, never a value (ops/inplace_views.py)
METADATA_OPS = ("t_", "transpose_", "unsqueeze_", "squeeze_", "as_strided_")


def _metadata_lines(event, t):
    """An in-place view op rewritten: the tensor is rebound to the view; no value changes,
    so nothing is scattered and its base's history is untouched."""
    xname = _ident(t.label, "t")
    x0, x1 = copy_name(xname, 0), copy_name(xname, 1)
    where = "its base's history is untouched" if t.is_view else "its values are untouched"
    lines = [f"{x0} = {t.label}", f"{x1} = {functional_expr(event, x0)}",
             f"{t.label} = {x1}   # {event.op} changes only {t.label}'s shape and strides "
             f"(same memory); {where}, no CopySlices"]
    root = t.base if t.is_view else t.id
    for v in event.before.tensors:
        if v.base == root and v.id != t.id and v.is_view:
            va = event.after.tensor(v.id) if event.after.has_tensor(v.id) else v
            if va.stale and _ident(v.label, None):
                lines.append(f"# {v.label} keeps its values; the version moved, so its grad_fn "
                             "is rebuilt when next read")
    return lines


def summarize(event) -> str:
    """One line: what the op did to the graph."""
    d = event.diff
    call = event.call_text()
    before, after = event.before, event.after
    t = after.tensor(event.tensor_id) if after.has_tensor(event.tensor_id) else None
    if t is None:
        return call
    if not event.grad_enabled or (not d.moved and not d.added_nodes):
        ver = next(((a, b) for lab, a, b in d.versions if lab == t.label), None)
        s = f"{call}: {'under no_grad: ' if not event.grad_enabled else ''}the graph is " \
            "unchanged"
        if ver:
            s += f"; {t.label}'s version {ver[0]} → {ver[1]}"
    elif t.is_view and t.base is not None and event.op not in METADATA_OPS:
        bt = after.tensor(t.base)
        n = after.node(bt.grad_fn) if bt.grad_fn else None
        inner = ""
        if n is not None and n.wrapped and after.has_node(n.wrapped):
            inner = f"({after.node(n.wrapped).name})"
        name = n.name if n is not None else "None"
        s = f"{call}: {t.label} is a view of {bt.label} → {bt.label}.grad_fn is now " \
            f"{name}{inner}"
    else:
        n = after.node(t.grad_fn) if t.grad_fn else None
        old = before.tensor(t.id).grad_fn
        old_name = before.node(old).name if old and before.has_node(old) else "None"
        s = f"{call}: {t.label}.grad_fn is now {n.name if n else None} (its edge 0 is the " \
            f"old {old_name})"
    if d.stale:
        k = len(d.stale)
        s += f"; {k} other view{'s' if k != 1 else ''} went stale"
    if d.broken:
        k = len(d.broken)
        s += (f"; {k} saved tensor{'s are' if k != 1 else ' is'} now out of date "
              "(backward through it will fail)")
    return s
