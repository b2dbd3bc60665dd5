"""Note [lean apply] (autograd/apply_lean.py): a row's specialized plain-backward step
computes what the general step ``FnNode.apply_arrays`` computes. Every program runs its
backward both ways (``set_lean_apply(False)`` gives every node class the general step
back) and the gradients (bit for bit) and errors (word for word) are compared, in the
cases the specialized steps hand back to the general one too: a saved value modified in
place, freed by an earlier backward, under saved-tensor hooks, a broadcast or cast input,
a hooked node."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.autograd import apply_lean
from viewgrad.ops.pointwise import MUL, SUB, TANH

from ..helpers import both_ways, general_steps
from .test_lean_record import PROGRAMS, _const


def _both_ways(run):
    """run() with the trick on, then off."""
    return both_ways(apply_lean.set_lean_apply, run)


def _grad_or_error(fn):
    try:
        g = fn()
        return ("ok", None if g is None else (g.dtype, np.asarray(g.tolist()).tobytes()))
    except RuntimeError as e:
        return ("error", str(e))


def _x(dtype):
    return vg.tensor(np.linspace(-1.5, 2.0, 6), dtype=dtype, requires_grad=True)


CASES = {
    # the plain backward, twice with retain_graph, then once more through a freed graph
    "plain": lambda p, x: p(x * 1.0).sum().backward(),
    "freed": lambda p, x: [z.sum().backward(), z.sum().backward()]
    if (z := p(x * 1.0)) is not None else None,
    "retained": lambda p, x: [z.sum().backward(retain_graph=True), z.sum().backward()]
    if (z := p(x * 1.0)) is not None else None,
    # the input modified in place after the op saved it (or its result)
    "modified_input": lambda p, x: [z := p(y := x * 1.0), y.mul_(2),
                                    z.sum().backward()],
    "modified_result": lambda p, x: [z := p(x * 1.0), z.add_(1), z.sum().backward()],
    "saved_hooks": lambda p, x: _with_hooks(lambda: p(x * 1.0).sum().backward()),
    "hooked_node": lambda p, x: [z := p(x * 1.0), z.register_hook(lambda g: g * 2),
                                 z.sum().backward()],
    "retain_grad": lambda p, x: [z := p(x * 1.0), z.retain_grad(), z.sum().backward()],
    "broadcast": lambda p, x: p(x.reshape(2, 3) * vg.ones(4, 1, 3, dtype=x.dtype))
    .sum().backward(),
}


def _with_hooks(fn):
    with vg.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        return fn()


def _compare(program, case, dtype):
    def run():
        x = _x(dtype)
        try:
            CASES[case](program, x)
        except RuntimeError as e:
            return ("error", str(e))
        return _grad_or_error(lambda: x.grad)

    lean, general = _both_ways(run)
    assert lean == general


@pytest.mark.parametrize("dtype", [vg.float32, vg.float64])
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_lean_apply_is_the_general_step(name, case, dtype):
    _compare(PROGRAMS[name], case, dtype)


def test_a_constant_modified_in_place_raises_both_ways():
    def run():
        x = _x(vg.float32)
        c = _const(x, 1.5)
        z = (x * 1.0) * c
        c.add_(1)
        return _grad_or_error(lambda: z.sum().backward())
    lean, general = _both_ways(run)
    assert lean == general and lean[0] == "error" and "inplace" in lean[1]


def test_a_detached_constant_raises_both_ways():
    def run():
        x = _x(vg.float32)
        w = _x(vg.float32)
        c = w * 1.0
        z = (x * 1.0) * c
        c.detach_()
        return _grad_or_error(lambda: z.sum().backward(inputs=[x]))
    lean, general = _both_ways(run)
    assert lean == general


@pytest.mark.host_only("the lean steps are installed per row; checked on host tensors")
def test_the_lean_steps_are_installed_and_taken(monkeypatch):
    for op in (TANH, MUL, SUB):
        assert "_lean_apply" in op.node_cls.__dict__, op
        assert "_chain_step" in op.node_cls.__dict__, op
    calls = []
    for op in (TANH, MUL, SUB):
        for attr, tag in (("_lean_apply", ""), ("_chain_step", " (chain run)")):
            real = op.node_cls.__dict__[attr]
            spy = (lambda self, g, real=real, tag=tag:
                   calls.append(self.name() + tag) or real(self, g))
            # (the chain step is a staticmethod: run_chain calls step(node, g))
            monkeypatch.setattr(op.node_cls, attr,
                                staticmethod(spy) if attr == "_chain_step" else spy)
        # (Note [inline steps], engine_chain.py: the run does a step's commonest case
        # itself; without it, the run calls the step, which the spy sees)
        monkeypatch.setattr(op.node_cls, "_chain_inline", None)
    x = _x(vg.float32)
    ((x * 1.0).tanh() * _const(x, 2.0) - 1.0).sum().backward()
    # SumBackward0 has no step: the loop runs it, then Note [chain run] takes the rest
    assert calls == [n + " (chain run)" for n in
                     ("SubBackward0", "MulBackward0", "TanhBackward0", "MulBackward0")]
    calls.clear()
    y = (x * 1.0).tanh()
    (y * 2.0 + y).sum().backward()   # a branch: y's node waits for both, in the loop
    assert "TanhBackward0" in calls and "TanhBackward0 (chain run)" not in calls
    prev = apply_lean.set_lean_apply(False)
    try:
        assert all("_lean_apply" not in op.node_cls.__dict__ for op in (TANH, MUL, SUB))
        assert all("_chain_step" not in op.node_cls.__dict__ for op in (TANH, MUL, SUB))
        assert all(op.node_cls._chain_inline is None for op in (TANH, MUL, SUB))
    finally:
        apply_lean.set_lean_apply(prev)


@pytest.mark.host_only("the inline steps run on host arrays")
def test_inline_steps_are_taken_and_give_the_steps_gradients(monkeypatch):
    # Note [inline steps] (engine_chain.py): y * 1.01, y - 1.65 and y.tanh() are done by
    # the run itself (no step called) and give, bit for bit, what the steps give
    assert TANH.node_cls._chain_inline[0] == 1
    assert MUL.node_cls._chain_inline[0] == 2
    assert SUB.node_cls._chain_inline[0] == 3
    x = _x(vg.float64)

    def grads():
        x.grad = None
        y = x
        for _ in range(5):
            y = ((y * 1.01).tanh() - 1.65).exp() * 0.5
        y.sum().backward()
        return x.grad.numpy().copy()

    inline = grads()
    calls = []
    for op in (TANH, MUL, SUB):
        real = op.node_cls.__dict__["_chain_step"]
        monkeypatch.setattr(op.node_cls, "_chain_step", staticmethod(
            lambda self, g, real=real: calls.append(1) or real(self, g)))
    assert np.array_equal(grads(), inline) and not calls
    for op in (TANH, MUL, SUB):
        monkeypatch.setattr(op.node_cls, "_chain_inline", None)
    assert np.array_equal(grads(), inline) and len(calls) == 20   # (two muls a round)
    # a saved result modified in place: not the inline case; the general step raises
    y = (x * 1.0).tanh()
    z = y * 2.0
    y.add_(1.0)
    monkeypatch.undo()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


@pytest.mark.host_only("the lean steps' ufuncs are host ufuncs")
def test_a_kernel_that_is_one_ufunc_is_not_called_in_a_chain():
    # Note [a kernel that is one ufunc] (ops/fast.py): the steps call the ufunc, or hand
    # the gradient on, themselves; the kernels' own frames never run on host arrays
    import sys
    from viewgrad.ops import fast
    kernels = {f.__code__: f.__name__ for f in (fast._times_other, fast._times_self,
                                                 fast._times_result, fast._same)}
    ran = []

    def watch(frame, event, arg):
        if event == "call" and frame.f_code in kernels:
            ran.append(kernels[frame.f_code])
    for dtype in (vg.float32, vg.float64):
        x = _x(dtype)
        c = _const(x, 2.0)
        y = ((x * 1.01).exp() * c - 1.65 + 0.5).clone()
        sys.setprofile(watch)
        try:
            y.sum().backward()
        finally:
            sys.setprofile(None)
        assert ran == [], ran
        got = x.grad.numpy().copy()
        x.grad = None
        prev = apply_lean.set_lean_apply(False)
        try:
            ((x * 1.01).exp() * c - 1.65 + 0.5).clone().sum().backward()
            want = x.grad.numpy()
        finally:
            apply_lean.set_lean_apply(prev)
        assert got.tobytes() == want.tobytes()


def test_the_profiler_sees_every_op_and_node_the_lean_ways_run():
    """The profiler times ``op.forward`` and ``apply_arrays``: while it runs, the lean
    calls and steps hand everything to them (and come back after)."""
    P = vg.autograd.profiler
    x = _x(vg.float32)
    with P.profile() as prof:
        ((x * 1.0).tanh() * _const(x, 2.0) - 1.0).sigmoid().sum().backward()
    rows = {r.key: r.count for r in prof.key_averages()}
    for key in ("tanh", "mul", "sub", "sigmoid", "TanhBackward0", "MulBackward0",
                "SubBackward0", "SigmoidBackward0"):
        assert rows.get(key), (key, rows)
    assert rows["mul"] == 2 and rows["MulBackward0"] == 2
    assert all(op.node_cls.__dict__.get("_lean_apply") for op in (TANH, MUL, SUB))


# The lean steps of Note [lean apply]'s last two shapes: a kernel that takes nothing
# (TBackward0, NegBackward0, CloneBackward0) and one that takes the saved result and a
# dim (LogSoftmaxBackward0, SoftmaxBackward0); each program ends in a step that reads its
# input's gradient, so the steps run in the loop and in Note [chain run] both.
SHAPED = {
    "t": lambda y: y.reshape(-1, 3).t() * 1.5,
    "neg": lambda y: (-y) * 1.5,
    "clone": lambda y: y.clone() * 1.5,
    "log_softmax": lambda y: y.reshape(-1, 3).log_softmax(-1) * 1.5,
    "softmax": lambda y: y.reshape(-1, 3).softmax(0) * 1.5,
    "t_log_softmax": lambda y: y.reshape(-1, 3).t().log_softmax(1).t().tanh(),
    # several saved values that are not tensors (sum(dim), mean(dim), the views' numbers)
    "sum_dim": lambda y: y.reshape(2, 3).sum(1) * 1.5,
    "sum_dim_keepdim": lambda y: y.reshape(2, 3).sum(-1, keepdim=True) * 1.5,
    "mean_dim": lambda y: y.reshape(2, 3).mean(0) * 1.5,
    "transpose": lambda y: y.reshape(1, 2, 3).transpose(0, 2) * 1.5,
    "select": lambda y: y.reshape(2, 3)[1] * 1.5,
    "slice": lambda y: y[1:5:2] * 1.5,
    # the saved input and numbers (pow, leaky_relu, hardtanh, clamp, elu)
    "pow": lambda y: y ** 3 * 1.5,
    "leaky_relu": lambda y: vg.nn.functional.leaky_relu(y, 0.2) * 1.5,
    "hardtanh": lambda y: vg.nn.functional.hardtanh(y, -0.5, 1.25) * 1.5,
    "clamp": lambda y: y.clamp(-0.5, 1.0) * 1.5,
    "clamp_min": lambda y: y.clamp(min=-0.25) * 1.5,
    "clamp_max": lambda y: y.clamp(max=0.75) * 1.5,
    "elu": lambda y: vg.nn.functional.elu(y, 0.5) * 1.5,
    # two inputs that both need a gradient (both_of_two), and the cases it hands on
    "mul_both": lambda y: y * y.sin(),
    "div_both": lambda y: y / (y * y + 1.0),
    "sub_both": lambda y: y.exp() - y,
    "mm_both": lambda y: y.reshape(2, 3) @ y.reshape(3, 2).tanh(),
    "bmm_both": lambda y: y.reshape(1, 2, 3).bmm(y.reshape(1, 3, 2) * 2.0),
    "maximum_both": lambda y: vg.maximum(y, y.cos()),
    "add_alpha_both": lambda y: vg.add(y, y.sin(), alpha=2.5),   # (a row with no kernels)
    "mul_broadcast_both": lambda y: y.reshape(2, 3) * y[:3].sin(),
    "mul_cast_both": lambda y: y * y.double().sin() if y.dtype == vg.float32
    else y * y.float().sin(),
    # both operands one tensor: a chain goes on through them (Note [a node fed twice])
    "mul_self": lambda y: (y * y) * 1.5,
    "add_self": lambda y: (y + y).tanh(),
    "sub_self": lambda y: (y - y) * 1.5,
    "div_self": lambda y: (y / y).exp(),
    "mul_self_twice": lambda y: _square(_square(y.tanh())) * 1.5,
    "mul_self_broadcast": lambda y: (lambda a: a * a)(y.reshape(2, 3)).sum(0) * 1.5,
}


def _square(a):
    return a * a


@pytest.mark.parametrize("dtype", [vg.float32, vg.float64])
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("name", sorted(SHAPED))
def test_the_new_lean_shapes_are_the_general_step(name, case, dtype):
    _compare(SHAPED[name], case, dtype)


@pytest.mark.host_only("the lean steps are installed per row; checked on host tensors")
def test_the_new_lean_shapes_are_installed():
    from viewgrad.ops import nnops, views
    from viewgrad.ops.pointwise import NEG
    for op, kind in ((views.T, "nothing_saved"), (NEG, "nothing_saved"),
                     (nnops.LOG_SOFTMAX, "result_and_attribute")):
        step = op.node_cls.__dict__["_chain_step"]
        assert step.__func__.__qualname__.startswith(kind), op


# One plain program per node class that has a lean step (apply_lean._INSTALLED), run
# through a plain backward: the class must answer from its lean step, not the general
# ``FnNode.apply_arrays``. A lean step lost by an edit still gives the right numbers, so
# only a count sees it (_NllNode's once became dead code, tests/test_dead_code.py).
def _pos(x):
    return x.abs() + 0.25


def _unit(x):
    return (x * 1.0).tanh() * 0.5


TAKEN = {
    "AddBackward0": lambda x: x * 1.0 + 1.5,
    "SubBackward0": lambda x: x * 1.0 - _const(x, 0.5),
    "MulBackward0": lambda x: x * 1.0 * _const(x, 0.5),
    "DivBackward0": lambda x: x * 1.0 / 1.5,
    "NegBackward0": lambda x: -(x * 1.0),
    "ReciprocalBackward0": lambda x: _pos(x).reciprocal(),
    "ExpBackward0": lambda x: (x * 1.0).exp(),
    "LogBackward0": lambda x: _pos(x).log(),
    "SqrtBackward0": lambda x: _pos(x).sqrt(),
    "TanhBackward0": lambda x: (x * 1.0).tanh(),
    "SigmoidBackward0": lambda x: (x * 1.0).sigmoid(),
    "ReluBackward0": lambda x: (x * 1.0).relu(),
    "SumBackward0": lambda x: (x * 1.0).sum() * x,
    "MeanBackward0": lambda x: (x * 1.0).mean() * x,
    "MmBackward0": lambda x: (x * 1.0).reshape(2, 3) @ vg.ones(3, 2, dtype=x.dtype),
    "BmmBackward0": lambda x: (x * 1.0).reshape(1, 2, 3).bmm(vg.ones(1, 3, 2, dtype=x.dtype)),
    "CloneBackward0": lambda x: (x * 1.0).clone(),
    "ViewBackward0": lambda x: (x * 1.0).view(2, 3),
    "ReshapeAliasBackward0": lambda x: (x * 1.0).reshape(2, 3).t().reshape(3, 1, 2),
    "UnsafeViewBackward0": lambda x: (x * 1.0).reshape(2, 3).t().reshape(6) * 1.5,
    "AliasBackward0": lambda x: (x * 1.0)[...],
    "TBackward0": lambda x: (x * 1.0).reshape(2, 3).t(),
    "PermuteBackward0": lambda x: (x * 1.0).reshape(1, 2, 3).permute(2, 0, 1),
    "UnsqueezeBackward0": lambda x: (x * 1.0).unsqueeze(0),
    "SqueezeBackward0": lambda x: (x * 1.0).reshape(1, 6).squeeze(),
    "SqueezeBackward1": lambda x: (x * 1.0).reshape(1, 6).squeeze(0),
    "SoftmaxBackward0": lambda x: (x * 1.0).reshape(2, 3).softmax(-1),
    "LogSoftmaxBackward0": lambda x: (x * 1.0).reshape(2, 3).log_softmax(1),
    "WhereBackward0": lambda x: vg.where(_const(x, 1.0) > 0, x * 1.0, _const(x, 0.5)),
    "SinBackward0": lambda x: (x * 1.0).sin(),
    "CosBackward0": lambda x: (x * 1.0).cos(),
    "TanBackward0": lambda x: _unit(x).tan(),
    "AsinBackward0": lambda x: _unit(x).asin(),
    "AcosBackward0": lambda x: _unit(x).acos(),
    "AtanBackward0": lambda x: (x * 1.0).atan(),
    "SinhBackward0": lambda x: (x * 1.0).sinh(),
    "CoshBackward0": lambda x: (x * 1.0).cosh(),
    "AsinhBackward0": lambda x: (x * 1.0).asinh(),
    "AcoshBackward0": lambda x: (_pos(x) + 1.0).acosh(),
    "AtanhBackward0": lambda x: _unit(x).atanh(),
    "Exp2Backward0": lambda x: (x * 1.0).exp2(),
    "Expm1Backward0": lambda x: (x * 1.0).expm1(),
    "Log2Backward0": lambda x: _pos(x).log2(),
    "Log10Backward0": lambda x: _pos(x).log10(),
    "Log1PBackward0": lambda x: _pos(x).log1p(),
    "ErfBackward0": lambda x: (x * 1.0).erf(),
    "ErfcBackward0": lambda x: (x * 1.0).erfc(),
    "RsqrtBackward0": lambda x: _pos(x).rsqrt(),
    "AbsBackward0": lambda x: (x * 1.0).abs(),
    "SiluBackward0": lambda x: vg.nn.functional.silu(x * 1.0),
    "SoftplusBackward0": lambda x: vg.nn.functional.softplus(x * 1.0, beta=2.0, threshold=1.5),
    "GeluBackward0": lambda x: vg.nn.functional.gelu(x * 1.0),
    "EluBackward0": lambda x: vg.nn.functional.selu(x * 1.0),
    "HardsigmoidBackward0": lambda x: vg.nn.functional.hardsigmoid(x * 1.0),
    "LogSigmoidBackward0": lambda x: vg.nn.functional.logsigmoid(x * 1.0),
    "SignBackward0": lambda x: (x * 1.0).sign(),
    "FloorBackward0": lambda x: (x * 1.0).floor(),
    "CeilBackward0": lambda x: (x * 1.0).ceil(),
    "TruncBackward0": lambda x: (x * 1.0).trunc(),
    "RoundBackward0": lambda x: (x * 1.0).round(),
    "FracBackward0": lambda x: (x * 1.0).frac(),
    "SumBackward1": lambda x: (x * 1.0).reshape(2, 3).sum(1),
    "MeanBackward1": lambda x: (x * 1.0).reshape(2, 3).mean(-1, keepdim=True),
    "TransposeBackward0": lambda x: (x * 1.0).reshape(2, 3).transpose(0, 1),
    "SelectBackward0": lambda x: (x * 1.0).reshape(2, 3)[1],
    "SliceBackward0": lambda x: (x * 1.0)[1:4],
    "AsStridedBackward0": lambda x: (x * 1.0).as_strided((2, 2), (1, 2), 1),
    "CopyBackwards": lambda x: (x * 1.0).copy_(x * 2.0),
    "PowBackward0": lambda x: (x * 1.0) ** 2,
    "LeakyReluBackward0": lambda x: vg.nn.functional.leaky_relu(x * 1.0, 0.1),
    "HardtanhBackward0": lambda x: vg.nn.functional.hardtanh(x * 1.0),
    "ClampBackward1": lambda x: (x * 1.0).clamp(-1.0, 1.0),
    "ClampMinBackward0": lambda x: (x * 1.0).clamp_min(0.5),
    "ClampMaxBackward0": lambda x: (x * 1.0).clamp_max(0.5),
    "MaximumBackward0": lambda x: vg.maximum(x * 1.0, (x * 1.0).cos()),
    "MinimumBackward0": lambda x: vg.minimum(x * 1.0, (x * 1.0).cos()),
    "GridSampler2DBackward0": lambda x: vg.nn.functional.grid_sample(
        x.reshape(1, 1, 2, 3) * 1.0, (x[:4] * 0.3).reshape(1, 1, 2, 2), align_corners=False),
    "GridSampler3DBackward0": lambda x: vg.nn.functional.grid_sample(
        x.reshape(1, 1, 1, 2, 3) * 1.0, (x * 0.3).reshape(1, 1, 1, 2, 3),
        align_corners=True),
}


@pytest.mark.host_only("the lean steps are installed per row; checked on host tensors")
def test_every_installed_lean_step_is_taken_in_its_plain_case(monkeypatch):
    installed = sorted({cls.__name__ for cls in apply_lean._INSTALLED})
    assert sorted(set(installed) - set(TAKEN)) == [], "a program for each new lean step"
    general = general_steps(monkeypatch)
    for name in installed:
        for dtype in (vg.float32, vg.float64):
            x = _x(dtype)
            out = TAKEN[name](x)
            seen = []
            stack = [out.grad_fn]
            while stack:   # the program makes a node of the class it is for
                n = stack.pop()
                if n is not None and n not in seen:
                    seen.append(n)
                    stack.extend(e[0] for e in n.next_functions)
            assert name in [n.name() for n in seen], name
            general.clear()
            out.sum().backward()
            assert name not in general, (name, dtype)


@pytest.mark.host_only("the lean steps are installed per row; checked on host tensors")
@pytest.mark.parametrize("name", ["mul_both", "div_both", "sub_both", "mm_both", "bmm_both",
                                  "maximum_both"])
def test_two_inputs_that_need_a_gradient_take_the_lean_step(name, monkeypatch):
    general = general_steps(monkeypatch)
    x = _x(vg.float32)
    SHAPED[name](x * 1.0).sum().backward()
    assert general == []


@pytest.mark.host_only("the chain run is checked on host tensors")
@pytest.mark.parametrize("make", [_square, lambda a: a + a, lambda a: a - a])
def test_a_chain_goes_on_through_a_node_fed_twice(make, monkeypatch):
    """Note [a node fed twice] (engine_chain.py): a chain of ``y * y`` (both operands one
    tensor) runs in the chain run, with no input buffer, and its gradient is the
    general loop's, bit for bit."""
    from viewgrad.autograd import engine_plain

    def run():
        x = _x(vg.float32)
        y = x * 0.5
        for _ in range(6):
            y = make(y).tanh()
        y.sum().backward()
        return x.grad.numpy().tobytes()

    added = []
    real = engine_plain._add_input
    monkeypatch.setattr(engine_plain, "_add_input", lambda *a: added.append(a[1]) or real(*a))
    lean, general = _both_ways(run)
    assert lean == general
    n_general = len(added)
    added.clear()
    run()
    assert added == [] and n_general >= 6   # (the loop sums each pair in a buffer)
