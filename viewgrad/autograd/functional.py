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
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _as_tuple(x, arg, fn):
    """(is_tuple, tensors): a tuple of Tensors, or one Tensor. As PyTorch, only a tuple
    counts as several (a list is one wrong-typed value)."""
    from ..tensor import Tensor
    is_tuple = isinstance(x, tuple)
    xs = x if is_tuple else (x,)
    for i, t in enumerate(xs):
        if not isinstance(t, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg}"
            raise TypeError(f"The {arg} given to {fn} must be either a Tensor or a tuple of "
                            f"Tensors but the {where} has type {type(t)}.")
    return is_tuple, xs


def _prepare(inputs, create_graph, need_graph=True):
    # PyTorch's _grad_preprocess: keep the graph only when asked (create_graph)
    return tuple(t.view_as(t) if create_graph and t.requires_grad else
                 t.detach().requires_grad_(need_graph) for t in inputs)


def _finish(xs, create_graph):
    """Results leave the graph unless create_graph (nested tuples for jacobian tables)."""
    return tuple(_finish(x, create_graph) if isinstance(x, tuple) else
                 (x if create_graph else x.detach()) for x in xs)


def _unpack(res, is_tuple):
    return res if is_tuple else res[0]


def _validate_v(v, fn, other, other_is_tuple, create_graph):
    """``v`` as a tuple shaped like ``other`` (PyTorch's _validate_v), off the graph."""
    _, vs = _as_tuple(v, "v", fn)
    vs = _prepare(vs, create_graph, need_graph=False)
    if len(vs) != len(other):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                           f"{len(vs)}." if other_is_tuple
                           else "The given v should contain a single Tensor.")
    for i, (a, o) in enumerate(zip(vs, other)):
        if tuple(a.shape) != tuple(o.shape):
            where = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {o.size()} but got "
                               f"{a.size()}.")
    return vs


_REQUIRES_GRAD_MSG = {
    "hessian": "The hessian of the user-provided function with respect to input {i} is "
               "independent of the input. This is not allowed in strict mode. You should "
               "ensure that your function is thrice differentiable and that the hessian "
               "depends on the inputs.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
                "function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of "
                   "the user-provided function. This is not allowed in strict mode.",
    "outputs": "Output {i} of the user-provided function does not require gradients. The "
               "outputs must be computed in a differentiable manner from the input when "
               "running in strict mode.",
}


def _check_requires_grad(xs, kind, strict):
    """strict mode: every one of ``xs`` must exist and be on the graph."""
    if not strict:
        return
    for i, x in enumerate(xs):
        if x is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not x.requires_grad:
            raise RuntimeError(_REQUIRES_GRAD_MSG[kind].format(i=i))


def _grads(outs, ins, grad_outputs=None, create_graph=False):
    """``autograd.grad`` over the outputs that are on the graph (None for an input none of
    them reaches; all None when no output is)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outs)
    diff = [(o, g) for o, g in zip(outs, grad_outputs) if o is not None and o.requires_grad]
    if not diff:
        return (None,) * len(ins)
    gos = [g for _, g in diff]
    return _grad([o for o, _ in diff], ins, None if all(g is None for g in gos) else gos,
                 create_graph=create_graph, retain_graph=True, allow_unused=True)


_ZERO_MSG = {
    "back": "The output of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
                         "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward "
                         "mode AD.",
}


def _fill(grads, refs, strict, create_graph, stage):
    """PyTorch's _fill_in_zeros: a missing gradient becomes zeros like its reference (an
    error in strict mode); with strict and create_graph a gradient off the graph (the
    function was linear at this stage) is an error too."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_MSG[stage].format(i=i))
            g = refs[i].new_zeros(refs[i].shape)
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        out.append(g)
    return tuple(out)


def _single_output(out, fn, strict):
    """vhp / hvp / hessian take a function of one single-element Tensor."""
    is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", fn)
    _check_requires_grad(outs, "outputs", strict)
    if is_tuple:
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn} should "
                           "contain a single element")
    return outs[0]


def _v_for_single_input(v, fn, ins, in_tuple, create_graph):
    if v is not None:
        return _validate_v(v, fn, ins, in_tuple, create_graph)
    if len(ins) != 1 or ins[0].numel() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided "
                           "function is a single Tensor with a single element.")
    return None


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), vᵀ·J)``: the vector-Jacobian product at ``inputs``."""
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "vjp")
        ins = _prepare(ins, create_graph)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function",
                                    "vjp")
        _check_requires_grad(outs, "outputs", strict)
        if v is not None:
            vs = _validate_v(v, "vjp", outs, out_tuple, create_graph)
        elif len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
        else:
            vs = None
    with set_grad_enabled(create_graph or is_grad_enabled()):
        res = _fill(_grads(outs, ins, vs, create_graph), ins, strict, create_graph, "back")
    return (_unpack(_finish(outs, create_graph), out_tuple),
            _unpack(_finish(res, create_graph), in_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J·v)``: the Jacobian-vector product, by the double-backward trick
    (as PyTorch computes it): g(u) = Jᵀu is linear in a dummy u, so the gradient of
    ⟨g(u), v⟩ with respect to u is J·v."""
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "jvp")
        ins = _prepare(ins, create_graph)
        vs = _v_for_single_input(v, "jvp", ins, in_tuple, create_graph)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function",
                                    "jvp")
        _check_requires_grad(outs, "outputs", strict)
        dummies = tuple(o.new_zeros(o.shape).requires_grad_(True) for o in outs)
        g = _grads(outs, ins, dummies, create_graph=True)
        _check_requires_grad(g, "grad_inputs", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        res = _fill(_grads(g, dummies, vs, create_graph), outs, strict, create_graph,
                    "back_trick")
    return (_unpack(_finish(outs, create_graph), out_tuple),
            _unpack(_finish(res, create_graph), out_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: for output o and input i, a tensor of shape
    ``o.shape + i.shape``; nested tuples follow the outputs, then the inputs."""
    if strategy != "reverse-mode":
        raise ValueError("jacobian: viewgrad computes Jacobians in reverse mode only "
                         "(strategy='reverse-mode'); it has no forward-mode AD")
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
        ins = _prepare(ins, create_graph)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function",
                                    "jacobian")
        _check_requires_grad(outs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either "
                               "set `strict=False` or `vectorize=False`.")
        table = tuple(_jacobian_of(i, o, ins, create_graph, strict) for i, o in enumerate(outs))
    table = _finish(table, create_graph)
    return _unpack(tuple(_unpack(t, in_tuple) for t in table), out_tuple)


def _jacobian_of(i, out, ins, create_graph, strict):
    """Output ``i``'s Jacobian blocks, one per input: one backward per element of it."""
    rows = [[] for _ in ins]
    flat = out.reshape(-1)
    for k in range(flat.numel()):
        gs = _grads((flat[k],), ins, create_graph=create_graph)
        for j, (g, x) in enumerate(zip(gs, ins)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is "
                                       f"independent of input {j}. This is not allowed in "
                                       "strict mode.")
                g = x.new_zeros(x.shape)
            elif strict and create_graph and not g.requires_grad:
                # (PyTorch names the output's index here, not the input's)
                raise RuntimeError(f"The jacobian of the user-provided function is "
                                   f"independent of input {i}. This is not allowed in strict "
                                   "mode when create_graph=True.")
            rows[j].append(g)
    return tuple(_stacked(r, x, len(r)).reshape(tuple(out.shape) + tuple(x.shape))
                 for r, x in zip(rows, ins))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of the scalar function ``func`` at ``inputs`` (a tuple of tuples for
    several inputs): the Jacobian of its gradient."""
    in_tuple, ins = _as_tuple(inputs, "inputs", "hessian")

    def scalar(*xs):
        return _single_output(func(*xs), "hessian", strict).squeeze()

    def gradient(*xs):
        # (not strict: a part that does not reach the output is zeros here, and strict
        # mode's check is that the gradient is on the graph at all)
        jac = jacobian(scalar, xs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(gradient, ins, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _unpack(tuple(_unpack(r, in_tuple) for r in res), in_tuple)


def _gradient_of_single(func, inputs, v, create_graph, strict, fn):
    """Shared start of vhp / hvp: (in_tuple, inputs, v, output, its gradient)."""
    in_tuple, ins = _as_tuple(inputs, "inputs", fn)
    ins = _prepare(ins, create_graph)
    vs = _v_for_single_input(v, fn, ins, in_tuple, create_graph)
    out = _single_output(func(*ins), fn, strict)
    jac = _grads((out,), ins, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return in_tuple, ins, vs, out, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), vᵀ·H)`` for a single-element ``func``: the vjp of its gradient."""
    with enable_grad():
        in_tuple, ins, vs, out, jac = _gradient_of_single(func, inputs, v, create_graph,
                                                          strict, "vhp")
    with set_grad_enabled(create_graph or is_grad_enabled()):
        res = _fill(_grads(jac, ins, vs, create_graph), ins, strict, create_graph,
                    "double_back")
    return _finish((out,), create_graph)[0], _unpack(_finish(res, create_graph), in_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H·v)`` for a single-element ``func``, by the double-backward trick
    on its gradient."""
    with enable_grad():
        in_tuple, ins, vs, out, jac = _gradient_of_single(func, inputs, v, create_graph,
                                                          strict, "hvp")
        dummies = tuple(x.new_zeros(x.shape).requires_grad_(True) for x in ins)
        double_back = _grads(jac, ins, dummies, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)   # (PyTorch checks jac here)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        res = _fill(_grads(double_back, dummies, vs, create_graph), ins, strict,
                    create_graph, "double_back_trick")
    return _finish((out,), create_graph)[0], _unpack(_finish(res, create_graph), in_tuple)
