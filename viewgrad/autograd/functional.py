"""``torch.autograd.functional``: Jacobians, Hessians and their products, built from
``autograd.grad`` (reverse mode only, as viewgrad has no forward-mode AD).

    vjp(f, x, v)    vᵀ·J        one backward with grad_outputs v
    jvp(f, x, v)    J·v         the double-backward trick: g(u) = Jᵀu is linear in u, so
                                differentiating ⟨g(u), v⟩ w.r.t. a dummy u gives J·v
    jacobian(f, x)  J           one backward per output element (rows of J)
    hessian(f, x)   H           the jacobian of the gradient (create_graph inside)
    vhp(f, x, v)    vᵀ·H        vjp of the gradient
    hvp(f, x, v)    H·v         the double-backward trick on the gradient

As in PyTorch: ``inputs`` is a Tensor or a tuple of Tensors (the results follow the same
structure), they are detached from any graph they belong to, results are detached unless
``create_graph=True``, and an input the output does not depend on gets zeros (or, with
``strict=True``, an error).
"""
from __future__ import annotations

from .engine import _stacked, grad as _grad
from .grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _as_tuple(x, arg, fn):
    from ..tensor import Tensor
    if isinstance(x, Tensor):
        return (x,), False
    if isinstance(x, (tuple, list)) and all(isinstance(t, Tensor) for t in x):
        return tuple(x), True
    raise TypeError(f"The {arg} given to {fn} must be either a Tensor or a tuple of Tensors "
                    f"but the value given has type {type(x).__name__}.")


def _prepare(inputs, create_graph):
    # PyTorch's _grad_preprocess: keep the graph only when asked (create_graph)
    return tuple(t.view_as(t) if create_graph and t.requires_grad else
                 t.detach().requires_grad_(True) for t in inputs)


def _finish(xs, create_graph):
    return tuple(None if x is None else (x if create_graph else x.detach()) for x in xs)


def _fill(grads, like, strict, fn, what="the output"):
    out = []
    for i, (g, t) in enumerate(zip(grads, like)):
        if g is None:
            if strict:
                raise RuntimeError(f"The output of the user-provided function is independent "
                                   f"of input {i}. This is not allowed in strict mode.")
            g = t.new_zeros(t.shape)
        out.append(g)
    return tuple(out)


def _call(func, inputs, fn):
    out = func(*inputs)
    outs, is_tuple = _as_tuple(out, "outputs of the user-provided function", fn)
    return outs, is_tuple


def _check_v(v, outs, fn, what):
    if v is None:
        if any(o.numel() != 1 for o in outs):
            raise RuntimeError(f"The vector v can only be None if the {what} is a single "
                               "element Tensor.")
        return tuple(o.new_ones(o.shape) for o in outs)
    vs, _ = _as_tuple(v, "v", fn)
    if len(vs) != len(outs):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(outs)} but got "
                           f"{len(vs)}.")
    for a, o in zip(vs, outs):
        if tuple(a.shape) != tuple(o.shape):
            raise RuntimeError(f"Mismatch in shape: v has size {list(a.shape)} but the "
                               f"{what} has size {list(o.shape)}.")
    return vs


def _grads(outs, ins, grad_outputs, create_graph):
    diff = [(o, g) for o, g in zip(outs, grad_outputs) if o.requires_grad]
    if not diff:
        return (None,) * len(ins)
    return _grad([o for o, _ in diff], ins, [g for _, g in diff], create_graph=create_graph,
                 retain_graph=True, allow_unused=True)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), vᵀ·J)``: the vector-Jacobian product at ``inputs``."""
    ins, in_tuple = _as_tuple(inputs, "inputs", "vjp")
    with enable_grad():
        ins = _prepare(ins, create_graph)
        outs, out_tuple = _call(func, ins, "vjp")
        vs = _check_v(v, outs, "vjp", "output of the user-provided function")
        res = _fill(_grads(outs, ins, vs, create_graph), ins, strict, "vjp")
    outs, res = _finish(outs, create_graph), _finish(res, create_graph)
    return (outs if out_tuple else outs[0]), (res if in_tuple else res[0])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J·v)``: the Jacobian-vector product, by the double-backward trick
    (as PyTorch computes it)."""
    ins, in_tuple = _as_tuple(inputs, "inputs", "jvp")
    with enable_grad():
        ins = _prepare(ins, create_graph)
        if v is None:
            if len(ins) != 1 or ins[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the "
                                   "user-provided function is a single element Tensor.")
        vs = _check_v(v, ins, "jvp", "input")
        outs, out_tuple = _call(func, ins, "jvp")
        dummies = tuple(o.new_zeros(o.shape).requires_grad_(True) for o in outs)
        g = _fill(_grads(outs, ins, dummies, True), ins, strict, "jvp")
        pairs = [(a, b) for a, b in zip(g, vs) if a.requires_grad]
        if pairs:
            res = _grad([a for a, _ in pairs], dummies, [b for _, b in pairs],
                        create_graph=create_graph, retain_graph=True, allow_unused=True)
        else:
            res = (None,) * len(outs)
        res = _fill(res, outs, strict, "jvp")
    outs, res = _finish(outs, create_graph), _finish(res, create_graph)
    return (outs if out_tuple else outs[0]), (res if out_tuple else res[0])


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: for output o and input i, a tensor of shape
    ``o.shape + i.shape``; nested tuples follow the outputs, then the inputs."""
    if strategy != "reverse-mode":
        raise ValueError("jacobian: viewgrad computes Jacobians in reverse mode only "
                         "(strategy='reverse-mode'); it has no forward-mode AD")
    ins, in_tuple = _as_tuple(inputs, "inputs", "jacobian")
    with enable_grad():
        ins = _prepare(ins, create_graph)
        outs, out_tuple = _call(func, ins, "jacobian")
        table = []
        for i, o in enumerate(outs):
            flat = o.reshape(-1)
            rows = [[] for _ in ins]
            for k in range(flat.numel()):
                if flat.requires_grad:
                    gs = _grad([flat[k]], ins, None, create_graph=create_graph,
                               retain_graph=True, allow_unused=True)
                else:
                    gs = (None,) * len(ins)
                for j, (g, x) in enumerate(zip(gs, ins)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {j}. This is not "
                                               "allowed in strict mode.")
                        g = x.new_zeros(x.shape)
                    rows[j].append(g)
            table.append(tuple(
                (_stacked(r, x, len(r)) if r else x.new_zeros((0,) + tuple(x.shape))).reshape(
                    tuple(o.shape) + tuple(x.shape)) for r, x in zip(rows, ins)))
    table = [_finish(t, create_graph) for t in table]
    if out_tuple:
        return tuple(t if in_tuple else t[0] for t in table)
    return table[0] if in_tuple else table[0][0]


def _check_scalar(func, fn):
    def scalar(*xs):
        out = func(*xs)
        outs, is_tuple = _as_tuple(out, "outputs of the user-provided function", fn)
        if is_tuple or outs[0].numel() != 1:
            raise RuntimeError(f"The function given to {fn} should return a single Tensor "
                               "with a single element")
        return outs[0].reshape(())
    return scalar


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of the scalar function ``func`` at ``inputs`` (a tuple of tuples for
    several inputs)."""
    scalar = _check_scalar(func, "hessian")
    ins, in_tuple = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*xs):
        with enable_grad():
            out = scalar(*xs)
            gs = _grad([out], xs, None, create_graph=True, retain_graph=True,
                       allow_unused=True)
        return _fill(gs, xs, strict, "hessian")

    res = jacobian(gradient, ins, create_graph=create_graph, strict=strict)
    return res if in_tuple else res[0][0]


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), vᵀ·H)`` for a scalar ``func``."""
    scalar = _check_scalar(func, "vhp")
    ins, in_tuple = _as_tuple(inputs, "inputs", "vhp")
    with enable_grad():
        ins = _prepare(ins, create_graph)
        out = scalar(*ins)
        vs = _check_v(v, ins, "vhp", "input")
        g = _fill(_grad([out], ins, None, create_graph=True, retain_graph=True,
                        allow_unused=True), ins, strict, "vhp")
        res = _fill(_grads(g, ins, vs, create_graph), ins, strict, "vhp")
    out, res = _finish((out,), create_graph)[0], _finish(res, create_graph)
    return out, (res if in_tuple else res[0])


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H·v)`` for a scalar ``func``, by the double-backward trick."""
    scalar = _check_scalar(func, "hvp")
    ins, in_tuple = _as_tuple(inputs, "inputs", "hvp")
    with enable_grad():
        ins = _prepare(ins, create_graph)
        out = scalar(*ins)
        vs = _check_v(v, ins, "hvp", "input")
        g = _fill(_grad([out], ins, None, create_graph=True, retain_graph=True,
                        allow_unused=True), ins, strict, "hvp")
        dummies = tuple(x.new_zeros(x.shape).requires_grad_(True) for x in ins)
        gu = _fill(_grads(g, ins, dummies, True), ins, strict, "hvp")
        pairs = [(a, b, d) for a, b, d in zip(gu, vs, dummies) if a.requires_grad]
        res = _grad([a for a, _, _ in pairs], dummies, [b for _, b, _ in pairs],
                    create_graph=create_graph, retain_graph=True, allow_unused=True) \
            if pairs else (None,) * len(ins)
        res = _fill(res, ins, strict, "hvp")
    out, res = _finish((out,), create_graph)[0], _finish(res, create_graph)
    return out, (res if in_tuple else res[0])
