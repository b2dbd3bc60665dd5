"""Random programs of views and in-place ops, runnable on viewgrad AND on torch.

A program is a list of steps over a list of live tensors. ``run(M, program, leaves)``
replays it with module ``M`` (``viewgrad`` or ``torch``: the APIs are the same), starting
from ``base = leaves[0].clone()``, and returns ``(loss, live)`` where ``loss`` is a fixed
weighted sum of every live tensor. Steps:

  ("view", i, name, args)      live.append(view op `name` of live[i])
  ("nograd_view", i, name, args)     the same, made under no_grad
  ("inference_view", i, name, args)  the same, made under inference_mode
  ("inplace", i, name, arg)    in-place op on live[i]; arg is a leaf index, a live index
                               (``*_live``), a scalar or None
  ("setitem", i, key, leaf)    live[i][key] = leaves[leaf]
  ("op", i, name)              live.append(out-of-place op of live[i])
  ("modify_operand", i, leaf, op)  c = leaves[leaf] * 1; live.append(c); live[i].op(c);
                               c.add_(1)  -- an operand modified after an op used it
                               (mul_ saved it: backward refuses; add_ did not)
  ("dirty", i, variant)        live.append(a custom Function that modifies its input in
                               place and says so with ctx.mark_dirty, applied to live[i])
  ("op2", i, j, name)           live.append(a binary op of live[i] and live[j], j's shape
                               broadcasting into i's: mul, div, maximum, atan2, hypot,
                               where, pow, lerp) -- what each saves of both
  ("index_operand", i, op, modify)
                               live.append(op of live[i] with an index, mask or condition
                               q made for its shape: x[q], x[mask], where, gather,
                               index_select, masked_fill, take); then, if ``modify``, q is
                               changed in place -- what the node saved of q must refuse
                               (Note [saved index tensors], where's condition)
  ("multi_after_inplace", i, make, args, k)
                               outs = live[i].unbind/split/chunk(*args); live[i].mul_(2);
                               live.append(outs[k]) -- multi-output views used after their
                               base was modified in place

``run`` writes the index of the step it is at into ``at[0]`` (``len(program)`` while it
builds the loss), so a caller can compare WHERE an error is raised, not only whether.
``draw_program`` builds one with hypothesis while running it on viewgrad (to know shapes).
"""
from __future__ import annotations

import numpy as np

VIEWS = ["select", "narrow", "step", "transpose", "t", "unsqueeze", "squeeze", "flatten",
         "diagonal", "permute", "unbind", "split", "alias", "as_strided"]
INPLACE = ["mul_", "add_leaf", "copy_", "tanh_", "sigmoid_", "zero_", "div_", "exp_",
           "sub_leaf", "mul_leaf",
           # aliasing operands (issue 14): what mul_ saves must be taken before the write
           "mul_self", "mul_detach", "add_self",
           # an operand that is another live tensor (perhaps a view of the written one)
           "mul_live", "add_live",
           # more in-place ops: kinks (only against torch), a mask, an index
           "relu_", "clamp_", "abs_", "pow2_", "masked_fill_", "index_fill_", "div_live"]
KINKED = ("relu_", "clamp_", "abs_")
MULTI = ["unbind", "split", "chunk"]
DIRTY = ["plain", "save"]
VIEW_KINDS = ("view", "nograd_view", "inference_view")
OPS = ["mul2", "tanh", "clone", "exp", "sigmoid", "relu", "pow3", "abs", "softmax",
       "log_softmax", "cumprod", "prod", "max_dim", "sort", "norm", "clamp", "div_self",
       "matmul_t", "sum_keep", "expand_mul",
       # rows that save their input, and two operands that both need a gradient (the
       # lean calls of ops/lean.py: unary's input rows, two_tensors)
       "sin", "residual", "product", "log1p_sq"]
OPS2 = ["mul", "div", "maximum", "atan2", "hypot", "where", "pow", "lerp", "minimum",
        "copysign"]
INDEX_OPS = ["index0", "mask", "where", "gather", "index_select", "masked_fill", "take"]

# The documented errors a random program may legitimately hit (message parts, the most
# specific first: a multi-output view's message also contains "is a view and").
DOCUMENTED = ("This view is the output of a function that returns multiple views",
              "A view was created in no_grad mode",
              "is a view of a view which was created in no_grad mode",
              "A view was created in inference mode",
              "is a view of a view which was created in inference mode",
              "is a view and", "a view of a leaf Variable",
              "a leaf Variable that requires grad", "modified by an inplace operation",
              "more than one element of the written-to tensor",
              "some elements of the input tensor and the written-to tensor")


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


def _mode(M, kind):
    if kind == "nograd_view":
        return M.no_grad()
    if kind == "inference_view":
        return M.inference_mode()
    return M.enable_grad()


_DIRTY_FUNCTIONS = {}


def dirty_function(M, variant):
    """A custom Function that doubles its input in place and marks it dirty; "save" also
    saves it (the output) for backward, so a later in-place op on it breaks backward."""
    key = (M.__name__, variant)
    fn = _DIRTY_FUNCTIONS.get(key)
    if fn is None:
        class Double(M.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                if variant == "save":
                    ctx.save_for_backward(x)
                return x

            @staticmethod
            def backward(ctx, g):
                if variant == "save":
                    ctx.saved_tensors  # unpacking checks the saved version
                return g * 2
        fn = _DIRTY_FUNCTIONS[key] = Double
    return fn


def apply_op(t, name):
    """An out-of-place op of ``t``; what each saves differs (its input, its result, both,
    indices), which is what an in-place op later in the program puts to the test."""
    nd = t.dim()
    last = nd - 1 if nd else 0
    if name == "mul2":
        return t * 2
    if name == "tanh":
        return t.tanh()
    if name == "clone":
        return t.clone()
    if name in ("exp", "sigmoid", "relu", "abs", "sin"):
        return getattr(t, name)()
    if name == "residual":
        return t + t.sin()
    if name == "product":
        return t * t.cos()
    if name == "log1p_sq":
        return (t * t).log1p()
    if name == "pow3":
        return t ** 3
    if name in ("softmax", "log_softmax"):
        return getattr(t, name)(last)
    if name == "cumprod":
        return t.cumprod(last)
    if name == "prod":
        return t.prod()
    if name == "max_dim":
        return t.max(last)[0] if nd else t * 1
    if name == "sort":
        return t.sort(last)[0] if nd else t * 1
    if name == "norm":
        return t.norm()
    if name == "clamp":
        return t.clamp(-0.3, 0.4)
    if name == "div_self":
        return t / (t.abs() + 1)
    if name == "matmul_t":
        return t @ t.transpose(-1, -2) if nd >= 2 else t * t
    if name == "sum_keep":
        return t.sum(last, keepdim=True) if nd else t.sum()
    return t.unsqueeze(0).expand(2, *t.shape) * 1.5   # expand_mul


def apply_op2(M, a, b, name):
    if name == "mul":
        return a * b
    if name == "div":
        return a / (b * b + 1)
    if name in ("maximum", "minimum", "atan2", "hypot", "copysign"):
        return getattr(M, name)(a, b)
    if name == "where":
        return M.where(a > b, a, b)
    if name == "pow":
        return (a * a + 1) ** b
    return M.lerp(a, b, 0.25)


def _long(t):
    import sys
    return sys.modules[type(t).__module__.split(".")[0]].int64


def _mask(M, shape):
    return M.tensor((np.arange(int(np.prod(shape))) % 3 != 1).reshape(shape))


def apply_index_op(M, t, op):
    """(the result of ``op`` on t, the index/mask/condition it used)."""
    shape = tuple(t.shape)
    if op == "index0":
        q = M.tensor([shape[0] - 1, 0, shape[0] // 2])
        return t[q], q
    if op == "index_select":
        q = M.tensor([shape[0] // 2, shape[0] - 1])
        return t.index_select(0, q), q
    if op == "take":
        q = M.tensor([t.numel() - 1, 0])
        return t.take(q), q
    if op == "gather":
        d = len(shape) - 1
        q = M.tensor((np.arange(int(np.prod(shape))) * 2 % shape[d]).reshape(shape))
        return t.gather(d, q), q
    q = _mask(M, shape)
    if op == "mask":
        return t[q], q
    if op == "where":
        return M.where(q, t, 0.0), q
    return t.masked_fill(q, 0.5), q


def modify_index(q):
    if str(q.dtype).endswith("bool"):
        q.logical_not_()
    else:
        q.fill_(0)


def apply_multi(t, make, args):
    if make == "unbind":
        return t.unbind(args[0])
    if make == "split":
        return t.split(args[0], args[1])
    return t.chunk(args[0], args[1])


def apply_step(M, live, step, leaves):
    """Run one step of a program on ``live`` (a list it appends to)."""
    kind = step[0]
    if kind in VIEW_KINDS:
        _, i, name, args = step
        with _mode(M, kind):
            live.append(apply_view(live[i], name, args))
    elif kind == "op":
        _, i, name = step
        live.append(apply_op(live[i], name))
    elif kind == "setitem":
        _, i, key, leaf = step
        live[i][key] = leaves[leaf]
    elif kind == "modify_operand":
        _, i, leaf, op = step
        c = leaves[leaf] * 1
        live.append(c)
        getattr(live[i], op)(c)
        c.add_(1)
    elif kind == "dirty":
        _, i, variant = step
        live.append(dirty_function(M, variant).apply(live[i]))
    elif kind == "op2":
        _, i, j, name = step
        live.append(apply_op2(M, live[i], live[j], name))
    elif kind == "index_operand":
        _, i, op, modify = step
        out, q = apply_index_op(M, live[i], op)
        live.append(out)
        if modify:
            modify_index(q)
    elif kind == "multi_after_inplace":
        _, i, make, args, k = step
        outs = apply_multi(live[i], make, args)
        live[i].mul_(2)
        live.append(outs[k])
    else:
        _apply_inplace(live, step, leaves)


def run(M, program, leaves, at=None):
    at = [0] if at is None else at
    base = leaves[0].clone()
    live = [base]
    for n, step in enumerate(program):
        at[0] = n
        apply_step(M, live, step, leaves)
    at[0] = len(program)
    loss = None
    for k, t in enumerate(live):
        w = M.tensor(weights(tuple(t.shape), k), dtype=M.float64)
        term = (t * w).sum()
        loss = term if loss is None else loss + term
    return loss, live


def _broadcasts_into(shape, target):
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


def _draw_view_args(data, st, t, name):
    """Arguments for view op ``name`` on ``t``, or None when it does not apply."""
    shape = tuple(t.shape)
    nd = len(shape)
    args = ()
    if name in ("select", "narrow", "unbind", "split", "step") and nd == 0:
        return None
    if name == "select":
        d = data.draw(st.integers(0, nd - 1))
        args = (d, data.draw(st.integers(0, shape[d] - 1)))
    elif name == "narrow":
        d = data.draw(st.integers(0, nd - 1))
        s = data.draw(st.integers(0, shape[d] - 1))
        args = (d, s, data.draw(st.integers(1, shape[d] - s)))
    elif name in ("transpose", "diagonal"):
        if nd < 2:
            return None
        d0, d1 = data.draw(st.permutations(range(nd)))[:2]
        args = (d0, d1) if name == "transpose" else (0, d0, d1)
    elif name == "t":
        if nd != 2:
            return None
    elif name == "unsqueeze":
        if nd >= 3:
            return None
        args = (data.draw(st.integers(0, nd)),)
    elif name == "squeeze":
        ones = [d for d, s in enumerate(shape) if s == 1]
        if not ones:
            return None
        args = (data.draw(st.sampled_from(ones)),)
    elif name == "flatten":
        if not t.is_contiguous():
            return None
    elif name == "permute":
        if nd < 2:
            return None
        args = tuple(data.draw(st.permutations(range(nd))))
    elif name == "unbind":
        d = data.draw(st.integers(0, nd - 1))
        args = (d, data.draw(st.integers(0, shape[d] - 1)))
    elif name == "split":
        d = data.draw(st.integers(0, nd - 1))
        size = data.draw(st.integers(1, max(1, shape[d])))
        nparts = -(-shape[d] // size)
        args = (size, d, data.draw(st.integers(0, nparts - 1)))
    return args


def draw_program(data, st, vg, max_steps=8, differentiable_only=False):
    """Draw a program with hypothesis, running it on viewgrad to know the shapes.
    ``differentiable_only``: no step whose value reaches the loss outside autograd (a
    no_grad or inference-mode view), so finite differences are an oracle too. Returns
    (program, leaf values, whether viewgrad raised at the last step)."""
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

    kinds = ["view", "view", "inplace", "inplace", "setitem", "op", "modify_operand",
             "dirty", "multi_after_inplace", "index_operand", "op2"]
    if not differentiable_only:
        kinds += ["nograd_view", "inference_view"]
    for _ in range(n):
        kind = data.draw(st.sampled_from(kinds))
        i = data.draw(st.integers(0, len(live) - 1))
        t = live[i]
        shape = tuple(t.shape)
        nd = len(shape)
        if kind in VIEW_KINDS:
            name = data.draw(st.sampled_from(VIEWS))
            args = _draw_view_args(data, st, t, name)
            if args is None:
                continue
            step = (kind, i, name, args)
        elif kind == "op":
            step = ("op", i, data.draw(st.sampled_from(OPS)))
        elif kind == "setitem":
            if nd == 0:
                continue
            d0 = data.draw(st.integers(0, shape[0] - 1))
            key = d0 if data.draw(st.booleans()) else slice(0, d0 + 1)
            step = ("setitem", i, key, new_leaf(tuple(np.empty(shape)[key].shape)))
        elif kind == "modify_operand":
            step = (kind, i, new_leaf(shape[data.draw(st.integers(0, nd)):] if nd else ()),
                    data.draw(st.sampled_from(["mul_", "add_"])))
        elif kind == "dirty":
            step = (kind, i, data.draw(st.sampled_from(DIRTY)))
        elif kind == "op2":
            fits = [j for j, o in enumerate(live) if _broadcasts_into(tuple(o.shape), shape)]
            # (finite differences: only the smooth ones; maximum, atan2 & co. have kinks
            # where a program's zero_ or copy_ makes the operands tie)
            names = ["mul", "div", "pow", "lerp"] if differentiable_only else OPS2
            step = (kind, i, data.draw(st.sampled_from(fits)), data.draw(st.sampled_from(names)))
        elif kind == "index_operand":
            ops = INDEX_OPS if nd else ["where", "masked_fill"]
            step = (kind, i, data.draw(st.sampled_from(ops)), data.draw(st.booleans()))
        elif kind == "multi_after_inplace":
            if nd == 0:
                continue
            make = data.draw(st.sampled_from(MULTI))
            d = data.draw(st.integers(0, nd - 1))
            args = (d,) if make == "unbind" else (data.draw(st.integers(1, max(1, shape[d]))), d)
            # (shapes from a fresh tensor: touching t itself may already raise)
            k = data.draw(st.integers(0, len(apply_multi(vg.empty(shape), make, args)) - 1))
            step = (kind, i, make, args, k)
        else:
            names = [n for n in INPLACE if n not in KINKED] if differentiable_only else INPLACE
            name = data.draw(st.sampled_from(names))
            arg = None
            if name in ("mul_", "div_"):
                arg = data.draw(st.sampled_from([0.5, 2.0, -1.5]))
            elif name in ("add_leaf", "sub_leaf", "mul_leaf", "copy_"):
                arg = new_leaf(shape[data.draw(st.integers(0, nd)):] if nd else ())
            elif name in ("mul_live", "add_live", "div_live"):
                fits = [j for j, o in enumerate(live) if _broadcasts_into(tuple(o.shape), shape)]
                arg = data.draw(st.sampled_from(fits))  # i itself always fits
            step = ("inplace", i, name, arg)
        program.append(step)
        try:
            apply_step(vg, live, step, leaves)
        except RuntimeError:
            # documented errors end the program (checked by the caller)
            return program, leaf_values, True
    return program, leaf_values, False


def _apply_inplace(live, step, leaves):
    _, i, name, arg = step
    t = live[i]
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
    elif name == "mul_live":
        t.mul_(live[arg])
    elif name == "add_live":
        t.add_(live[arg])
    elif name == "div_live":
        t.div_(live[arg] * live[arg] + 1)
    elif name == "clamp_":
        t.clamp_(-0.2, 0.3)
    elif name == "pow2_":
        t.pow_(2)
    elif name == "masked_fill_":
        t.masked_fill_(t > 0, 0.5)
    elif name == "index_fill_":
        if t.dim():
            t.index_fill_(0, t.new_zeros((1,), dtype=_long(t)), -0.25)
        else:
            t.mul_(0.5)
    else:
        getattr(t, name)()
