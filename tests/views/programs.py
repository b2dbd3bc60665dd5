"""Random programs of views and in-place ops, runnable on viewgrad AND on torch.

A program is a list of steps over a list of live tensors. ``run(M, program, leaves)``
replays it with module ``M`` (``viewgrad`` or ``torch``: the APIs are the same), starting
from ``base = leaves[0].clone()``, and returns ``(loss, live)`` where ``loss`` is a fixed
weighted sum of every live tensor. Steps:

  ("view", i, name, args)      live.append(view op `name` of live[i])
  ("nograd_view", i, name, args)  the same, made under no_grad
  ("inplace", i, name, arg)    in-place op on live[i]; arg is a leaf index, a scalar or None
  ("setitem", i, key, leaf)    live[i][key] = leaves[leaf]
  ("op", i, name)              live.append(out-of-place op of live[i])

``draw_program`` builds one with hypothesis while running it on viewgrad (to know shapes).
"""
from __future__ import annotations

import numpy as np

VIEWS = ["select", "narrow", "step", "transpose", "t", "unsqueeze", "squeeze", "flatten",
         "diagonal", "permute", "unbind", "split", "alias", "as_strided"]
INPLACE = ["mul_", "add_leaf", "copy_", "tanh_", "sigmoid_", "zero_", "div_", "exp_",
           "sub_leaf", "mul_leaf",
           # aliasing operands (issue 14): what mul_ saves must be taken before the write
           "mul_self", "mul_detach", "add_self"]
OPS = ["mul2", "tanh", "clone"]

# The documented errors a random program may legitimately hit.
DOCUMENTED = ("is a view and", "a view of a leaf Variable",
              "a leaf Variable that requires grad", "modified by an inplace operation",
              "more than one element of the written-to tensor",
              "A view was created in no_grad mode",
              "is a view of a view which was created in no_grad mode")  # message parts


def apply_view(t, name, args):
    if name == "select":
        return t.select(*args)
    if name == "narrow":
        return t.narrow(*args)
    if name == "step":
        return t[::2]
    if name == "transpose":
        return t.transpose(*args)
    if name == "t":
        return t.t()
    if name == "unsqueeze":
        return t.unsqueeze(args[0])
    if name == "squeeze":
        return t.squeeze(args[0])
    if name == "flatten":
        return t.view(-1)
    if name == "diagonal":
        return t.diagonal(*args)
    if name == "permute":
        return t.permute(*args)
    if name == "unbind":
        return t.unbind(args[0])[args[1]]
    if name == "split":
        return t.split(args[0], args[1])[args[2]]
    if name == "alias":
        return t[...]
    if name == "as_strided":
        return t.as_strided(tuple(t.shape), t.stride(), t.storage_offset())
    raise ValueError(name)


def weights(shape, k):
    rng = np.random.default_rng(1000 + k)
    return rng.standard_normal(shape)


def run(M, program, leaves):
    base = leaves[0].clone()
    live = [base]
    for step in program:
        kind = step[0]
        if kind == "view":
            _, i, name, args = step
            live.append(apply_view(live[i], name, args))
        elif kind == "nograd_view":
            _, i, name, args = step
            with M.no_grad():
                live.append(apply_view(live[i], name, args))
        elif kind == "op":
            _, i, name = step
            t = live[i]
            live.append(t * 2 if name == "mul2" else t.tanh() if name == "tanh" else t.clone())
        elif kind == "setitem":
            _, i, key, leaf = step
            live[i][key] = leaves[leaf]
        else:
            _apply_inplace(live[step[1]], step, leaves)
    loss = None
    for k, t in enumerate(live):
        w = M.tensor(weights(tuple(t.shape), k), dtype=M.float64)
        term = (t * w).sum()
        loss = term if loss is None else loss + term
    return loss, live


def draw_program(data, st, vg, max_steps=8, differentiable_only=False):
    """Draw a program with hypothesis, running it on viewgrad to know the shapes.
    ``differentiable_only``: no step whose value reaches the loss outside autograd (a
    no_grad view), so finite differences are an oracle too."""
    rng_seed = data.draw(st.integers(0, 2**16), label="seed")
    rng = np.random.default_rng(rng_seed)
    leaf_values = [rng.standard_normal((3, 4)) * 0.5]
    leaves = [vg.tensor(leaf_values[0], dtype=vg.float64, requires_grad=True)]
    live = [leaves[0].clone()]
    program = []
    n = data.draw(st.integers(1, max_steps), label="n_steps")

    def new_leaf(shape):
        v = rng.standard_normal(shape) * 0.5
        leaf_values.append(v)
        leaves.append(vg.tensor(v, dtype=vg.float64, requires_grad=True))
        return len(leaves) - 1

    for _ in range(n):
        kinds = ["view", "view", "inplace", "inplace", "setitem", "op"]
        kind = data.draw(st.sampled_from(kinds if differentiable_only else
                                         kinds + ["nograd_view"]))
        i = data.draw(st.integers(0, len(live) - 1))
        t = live[i]
        shape = tuple(t.shape)
        nd = len(shape)
        try:
            if kind in ("view", "nograd_view"):
                name = data.draw(st.sampled_from(VIEWS))
                args = ()
                if name in ("select", "narrow", "unbind", "split") and nd == 0:
                    continue
                if name == "select":
                    d = data.draw(st.integers(0, nd - 1))
                    args = (d, data.draw(st.integers(0, shape[d] - 1)))
                elif name == "narrow":
                    d = data.draw(st.integers(0, nd - 1))
                    s = data.draw(st.integers(0, shape[d] - 1))
                    args = (d, s, data.draw(st.integers(1, shape[d] - s)))
                elif name == "step":
                    if nd == 0:
                        continue
                elif name in ("transpose", "diagonal"):
                    if nd < 2:
                        continue
                    d0, d1 = data.draw(st.permutations(range(nd)))[:2]
                    args = (d0, d1) if name == "transpose" else (0, d0, d1)
                elif name == "t":
                    if nd != 2:
                        continue
                elif name == "unsqueeze":
                    if nd >= 3:
                        continue
                    args = (data.draw(st.integers(0, nd)),)
                elif name == "squeeze":
                    ones = [d for d, s in enumerate(shape) if s == 1]
                    if not ones:
                        continue
                    args = (data.draw(st.sampled_from(ones)),)
                elif name == "flatten":
                    if not t.is_contiguous():
                        continue
                elif name == "permute":
                    if nd < 2:
                        continue
                    args = tuple(data.draw(st.permutations(range(nd))))
                elif name == "unbind":
                    d = data.draw(st.integers(0, nd - 1))
                    args = (d, data.draw(st.integers(0, shape[d] - 1)))
                elif name == "split":
                    d = data.draw(st.integers(0, nd - 1))
                    size = data.draw(st.integers(1, max(1, shape[d])))
                    nparts = -(-shape[d] // size)
                    args = (size, d, data.draw(st.integers(0, nparts - 1)))
                step = (kind, i, name, args)
                if kind == "view":
                    live.append(apply_view(t, name, args))
                else:
                    with vg.no_grad():
                        live.append(apply_view(t, name, args))
            elif kind == "op":
                name = data.draw(st.sampled_from(OPS))
                step = ("op", i, name)
                live.append(t * 2 if name == "mul2" else t.tanh() if name == "tanh" else
                            t.clone())
            elif kind == "setitem":
                if nd == 0:
                    continue
                d0 = data.draw(st.integers(0, shape[0] - 1))
                key = d0 if data.draw(st.booleans()) else slice(0, d0 + 1)
                target_shape = tuple(t[key].shape)
                leaf = new_leaf(target_shape)
                step = ("setitem", i, key, leaf)
                t[key] = leaves[leaf]
            else:
                name = data.draw(st.sampled_from(INPLACE))
                arg = None
                if name in ("mul_", "div_"):
                    arg = data.draw(st.sampled_from([0.5, 2.0, -1.5]))
                elif name in ("add_leaf", "sub_leaf", "mul_leaf", "copy_"):
                    bshape = shape[data.draw(st.integers(0, nd)):] if nd else ()
                    arg = new_leaf(bshape)
                step = ("inplace", i, name, arg)
                program.append(step)
                # run it; documented errors end the program (checked by the caller)
                run_step = step
                _apply_inplace(t, run_step, leaves)
                continue
        except RuntimeError:
            if not program or program[-1] is not step:
                program.append(step)
            return program, leaf_values, True
        program.append(step)
    return program, leaf_values, False


def _apply_inplace(t, step, leaves):
    _, i, name, arg = step
    if name == "mul_":
        t.mul_(arg)
    elif name == "div_":
        t.div_(arg)
    elif name == "add_leaf":
        t.add_(leaves[arg])
    elif name == "sub_leaf":
        t.sub_(leaves[arg])
    elif name == "mul_leaf":
        t.mul_(leaves[arg])
    elif name == "copy_":
        t.copy_(leaves[arg])
    elif name == "mul_self":
        t.mul_(t)
    elif name == "add_self":
        t.add_(t)
    elif name == "mul_detach":
        t.mul_(t.detach())
    else:
        getattr(t, name)()
