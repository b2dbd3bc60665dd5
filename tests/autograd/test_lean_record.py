"""Note [lean record] (autograd/record_lean.py) and Note [lean ops] (ops/lean.py): the
nodes recorded the lean ways are the nodes ``dispatch`` and ``record`` make — names, edges,
sequence order, saved values, the errors they raise (blame lines included) and the
gradients. Each program runs twice, lean and with both lean paths replaced by the
teaching path (``record`` itself, ``set_lean_ops(False)``), and everything observable is
compared."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.autograd.graph import _NO_EDGE
from viewgrad.autograd.recording import record
from viewgrad.ops import lean, table

from ..helpers import graph_nodes, saved_values


@pytest.fixture(autouse=True)
def _lean_ops_back_on():
    yield
    lean.set_lean_ops(True)   # whatever a test switched off


def _teaching_record_one(op, inputs, out, attrs, x):
    e = (x._grad_fn, x._output_nr)
    return record(op, inputs, out, attrs, (e,) if len(inputs) == 1 else (e, _NO_EDGE), x)


PROGRAMS = {
    "tanh": lambda y: y.tanh(),
    "exp": lambda y: y.exp(),
    "sigmoid": lambda y: y.sigmoid(),
    "relu": lambda y: y.relu(),
    "sqrt": lambda y: (y * y + 1.0).sqrt(),
    "log": lambda y: (y * y + 1.0).log(),
    "neg_abs": lambda y: (-y).abs(),
    "mul_float": lambda y: y * 1.5,
    "rmul_float": lambda y: 2.5 * y,
    "sub_float": lambda y: y - 0.25,
    "add_float": lambda y: y + 2.5,
    "div_float": lambda y: y / 3.0,
    "pow_float": lambda y: y ** 2.0,
    "chain": lambda y: ((y * 1.01 - 1.65).tanh() * 0.5).sigmoid().exp(),
    # rows that save their input (Note [saved values in the node]: 'history' and 'input')
    "sin": lambda y: y.sin(),
    "cos_fn": lambda y: vg.cos(y),
    "erf": lambda y: vg.erf(y),
    "atan_log1p": lambda y: (y * y).log1p().atan(),
    "tan_expm1": lambda y: (y * 0.5).tan().expm1(),
    "chain_inputs": lambda y: (y.sin() * 1.01).cos().asinh().sinh(),
    # activations without arguments (activations.py's _run: lean.unary)
    "silu": lambda y: vg.nn.functional.silu(y),
    "gelu": lambda y: vg.nn.functional.gelu(y * 2.0),
    "mish_hardswish": lambda y: vg.nn.functional.hardswish(vg.nn.functional.mish(y)),
    "logsigmoid_hardsigmoid": lambda y: vg.nn.functional.logsigmoid(
        vg.nn.functional.hardsigmoid(y)),
    # reductions with no arguments (lean.reduction_method)
    "sum_all": lambda y: y.sin().sum() * y,
    "mean_all": lambda y: (y * y).mean() + y,
    # two operands that need a gradient (ops/lean.py: two_tensors)
    "mul_tensors": lambda y: y * (y + 1.0),
    "mul_itself": lambda y: y * y,
    "add_itself_2d": lambda y: (lambda a: a + a)(y.reshape(2, 3) * 1.0),
    "sub_itself": lambda y: (y - y) * 1.5,
    "div_itself_transposed": lambda y: (lambda a: a / a)(y.reshape(2, 3).t()),
    "add_tensors": lambda y: (y * 2.0) + y,
    "sub_tensors": lambda y: y - y.tanh(),
    "div_tensors": lambda y: y / (y * y + 1.0),
    "residual": lambda y: ((y * 0.5).sin() + y) * (y - 0.25).exp(),
    "times_parameter": lambda y: y * vg.nn.Parameter(vg.full(tuple(y.shape), 0.5,
                                                             dtype=y.dtype)),
    # ... broadcast (record's _shapes: the gradient summed back to each input's shape)
    "add_broadcast": lambda y: (y.reshape(2, 3) * 1.0) + (y[:3] * 2.0),
    "add_broadcast_first": lambda y: (y[:3] * 2.0) + (y.reshape(2, 3) * 1.0),
    "sub_mean": lambda y: (y.reshape(2, 3) * 1.0) - (y.reshape(2, 3) * 1.0).mean(
        -1, keepdim=True),
    "mul_by_a_0d": lambda y: y * (y * y).sum(),
    "div_broadcast": lambda y: (y.reshape(3, 2) * 1.0) / ((y[:2] * y[:2]) + 1.0),
    "both_broadcast": lambda y: (y.reshape(2, 1, 3) * 1.0) * (y.reshape(1, 6, 1) * 0.5),
    "bias_parameter": lambda y: (y.reshape(2, 3) * 1.0) + vg.nn.Parameter(
        vg.full((3,), 0.5, dtype=y.dtype)),
    # a constant Tensor operand: no history, no grad, y's shape and dtype
    "mul_const": lambda y: y * _const(y, 1.5),
    "sub_const": lambda y: y - _const(y, 0.25),
    "add_const": lambda y: y + _const(y, 2.5),
    "div_const": lambda y: y / _const(y, 3.0),
    "pow_const": lambda y: (y * y + 1.0) ** _const(y, 1.5),
    "chain_const": lambda y: ((y * _const(y, 1.01) - 1.65).tanh() * _const(y, 0.5)).exp(),
}


def _const(y, v):
    return vg.full(tuple(y.shape), v, dtype=y.dtype)


def _describe(t):
    """Everything observable about t's graph, node by node (newest first)."""
    return [(fn.name(), [(None if f is None else f.name(), nr) for f, nr in fn.next_functions],
             {name: v.tolist() if isinstance(v, vg.Tensor) else v
              for name, v in saved_values(fn)})
            for fn in graph_nodes(t)]


def _run(program, lean_way, monkeypatch, dtype, leaf=False):
    if not lean_way:
        monkeypatch.setattr(table, "record_one", _teaching_record_one)
        lean.set_lean_ops(False)
    x = vg.tensor(np.linspace(-1.5, 2.0, 6), dtype=dtype, requires_grad=True)
    # y saves nothing: the errors below are the program's own nodes; or the leaf itself
    y = x if leaf else x + 0.0
    z = program(y)
    seq = [fn._seq_nr for fn in (z.grad_fn, y.grad_fn or z.grad_fn)]
    desc = _describe(z)
    z.sum().backward(retain_graph=True)
    grad = x.grad.tolist()
    # what a second backward through a freed graph says (or that it works: no tensors)
    z3 = program(y)
    s3 = z3.sum()
    s3.backward(retain_graph=True)
    s3.backward(retain_graph=True)
    z3.sum().backward()
    try:
        z3.sum().backward()
        freed = None
    except RuntimeError as e:
        freed = str(e)[:60]
    # the same error, the same words (blame's "saved by ... at <line>" included)
    z2 = program(y)
    if leaf:
        with vg.no_grad():   # (a leaf that requires grad: in place only under no_grad)
            y.mul_(2)
    else:
        y.mul_(2)
    try:
        z2.sum().backward()
        err = None
    except RuntimeError as e:
        err = str(e)
    monkeypatch.undo()
    lean.set_lean_ops(True)
    return desc, seq[0] >= seq[1], grad, err, freed


@pytest.mark.parametrize("dtype", [vg.float32, vg.float64])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_lean_record_is_record(name, dtype, monkeypatch):
    lean = _run(PROGRAMS[name], True, monkeypatch, dtype)
    teaching = _run(PROGRAMS[name], False, monkeypatch, dtype)
    assert lean == teaching


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_lean_record_is_record_on_a_leaf(name, monkeypatch):
    """The programs on the leaf itself: the lean methods take a leaf too, with the edge to
    its AccumulateGrad (Note [lean methods])."""
    lean = _run(PROGRAMS[name], True, monkeypatch, vg.float64, leaf=True)
    teaching = _run(PROGRAMS[name], False, monkeypatch, vg.float64, leaf=True)
    assert lean == teaching


def _count_calls(monkeypatch):
    """(record_one calls, dispatch calls made by ops/lean.py), by op name."""
    calls, dcalls = [], []
    real, real_d = table.record_one, lean.dispatch
    counted = (lambda *a: calls.append(a[0].name) or real(*a))
    monkeypatch.setattr(table, "record_one", counted)
    monkeypatch.setattr(lean, "_record_one", counted)   # (y.sum(): Note [lean methods])
    monkeypatch.setattr(lean, "dispatch",
                        lambda op, *a: dcalls.append(op.name) or real_d(op, *a))
    return calls, dcalls


@pytest.mark.host_only("Note [lean ops] is for host arrays; other devices go to dispatch")
def test_the_lean_paths_are_taken(monkeypatch):
    y = vg.tensor([1.0, 2.0], requires_grad=True) * 1.0
    c = vg.tensor([3.0, 4.0])
    calls, dcalls = _count_calls(monkeypatch)
    (y.tanh() * 2.0 - 1.0).sum()
    (y * c).sum()
    # tanh, * 2.0, - 1.0 and * c in one body each (Note [lean ops]); sum by record_one
    assert dcalls == [] and calls == ["sum", "sum"]
    del calls[:]
    lean.set_lean_ops(False)
    (y.tanh() * 2.0 - 1.0).sum()
    assert dcalls == ["tanh", "mul", "sub"] and calls == ["tanh", "mul", "sub", "sum"]


@pytest.mark.host_only("Note [lean ops] is for host arrays; other devices go to dispatch")
@pytest.mark.parametrize("case", ["leaf", "view", "int", "float16", "anomaly",
                                  "saved_hooks", "no_grad", "zero_dim"])
def test_lean_ops_hand_everything_else_to_dispatch(case, monkeypatch):
    """What Note [lean ops] does not cover goes to dispatch, with dispatch's results."""
    x = vg.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    y = {"leaf": lambda: x, "view": lambda: (x * 1.0)[0],
         "int": lambda: vg.tensor([1, 2]), "float16": lambda: x.half() * 1.0,
         "zero_dim": lambda: (x * 1.0)[0, 0].clone()}.get(case, lambda: x * 1.0)()
    calls, dcalls = _count_calls(monkeypatch)
    ctx = {"anomaly": lambda: vg.autograd.detect_anomaly(),
           "saved_hooks": lambda: vg.autograd.graph.saved_tensors_hooks(lambda t: t,
                                                                          lambda t: t),
           "no_grad": lambda: vg.no_grad()}.get(case)
    import contextlib
    with (ctx() if ctx else contextlib.nullcontext()):
        outs = [y.exp(), y * 1.5, y - 0.5]
    # a leaf's methods are lean too (the edge to its AccumulateGrad: Note [lean methods])
    expect = {"leaf": [], "view": ["exp", "mul", "sub"],
              # float16 with a number: dispatch (Note [float16 with a number], table.py)
              "int": ["exp", "mul", "sub"], "float16": ["mul", "sub"],
              "anomaly": ["exp", "mul", "sub"],
              "saved_hooks": ["exp", "mul", "sub"], "no_grad": ["exp", "mul", "sub"], "zero_dim": []}[case]
    assert dcalls == expect
    yd = y.detach().numpy()
    with np.errstate(all="ignore"):
        ref = [np.exp(yd), yd * 1.5, yd - 0.5]
    for o, r in zip(outs, ref):
        if case not in ("int", "no_grad"):
            assert o.dtype == y.dtype and o.grad_fn is not None
        np.testing.assert_allclose(o.detach().numpy().astype(float), np.asarray(r, float),
                                   rtol=1e-3)


@pytest.mark.parametrize("lean", [True, False])
def test_a_constant_modified_in_place_is_refused_both_ways(lean, monkeypatch):
    if not lean:
        monkeypatch.setattr(table, "record_one", _teaching_record_one)
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    c = vg.tensor([3.0, 4.0])
    z = (x * 1.0) * c          # MulBackward0 saves c (for x's gradient)
    c.add_(1.0)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0 instead"):
        z.sum().backward()


@pytest.mark.parametrize("other", ["view", "requires_grad", "broadcast", "dtype"])
def test_other_tensors_take_the_teaching_path(other, monkeypatch):
    calls = []
    real = table.record_one
    monkeypatch.setattr(table, "record_one",
                        lambda *a: calls.append(a[0].name) or real(*a))
    y = vg.tensor([[1.0, 2.0]], requires_grad=True) * 1.0
    c = {"view": lambda: vg.tensor([[3.0, 4.0]]).t().t(),
         "requires_grad": lambda: vg.tensor([[3.0, 4.0]], requires_grad=True),
         "broadcast": lambda: vg.tensor([3.0, 4.0]),
         "dtype": lambda: vg.tensor([[3.0, 4.0]], dtype=vg.float64)}[other]()
    z = y * c
    assert calls == []
    z.sum().backward()
    assert z.grad_fn.name() == "MulBackward0"


def test_a_float64_lean_node_hands_a_float32_leaf_its_own_dtype():
    w = vg.tensor([1.0, 2.0], requires_grad=True)
    y = w * 1.0
    z = y.double() * 2.5      # float64 through the lean path, float32 leaf
    z.sum().backward()
    assert w.grad.dtype == vg.float32 and w.grad.tolist() == [2.5, 2.5]


def _saved_result_error(lean_way, monkeypatch, make):
    lean.set_lean_ops(lean_way)
    y = vg.tensor([1.0, 2.0], requires_grad=True) * 1.0
    z = make(y)
    z.mul_(2)
    with pytest.raises(RuntimeError) as e:
        z.sum().backward()
    return str(e.value)


@pytest.mark.parametrize("name", ["tanh", "exp", "sigmoid", "sqrt"])
def test_a_modified_saved_result_blames_the_same_line_both_ways(name, monkeypatch):
    make = {"tanh": lambda y: y.tanh(), "exp": lambda y: y.exp(),
            "sigmoid": lambda y: y.sigmoid(), "sqrt": lambda y: y.sqrt()}[name]
    lean_err = _saved_result_error(True, monkeypatch, make)
    teaching_err = _saved_result_error(False, monkeypatch, make)
    assert lean_err == teaching_err
    assert "is at version 1; expected version 0" in lean_err
    assert "test_lean_record.py" in lean_err   # blamed on the user's line, here


def test_shapes_that_do_not_broadcast_raise_the_same_words_both_ways(monkeypatch):
    def run():
        x = vg.randn(6, requires_grad=True)
        try:
            (x.reshape(2, 3) * 1.0) + (x[:2] * 1.0)
        except RuntimeError as e:
            return str(e)
        return None
    lean_words = run()
    monkeypatch.setattr(table, "record_one", _teaching_record_one)
    lean.set_lean_ops(False)
    assert lean_words is not None and lean_words == run()
