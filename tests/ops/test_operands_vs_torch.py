"""What arithmetic and comparisons take as their other operand, against PyTorch: a Tensor
or a number (Python or NumPy) is taken; a list, tuple, ndarray, string, None or object is
refused — by an operator with Python's own "unsupported operand type(s)" (the op answers
NotImplemented; ``==`` then falls back to identity), by a method with "add(): argument
'other' (position 1) must be Tensor, not str", by a function at position 2 (Note
[operators answer NotImplemented], ops/operands.py). Each case must end as in torch: the
same values, or the same exception type and first line of its message."""
import operator

import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")


class Foo:
    pass


BAD = {"str": "a", "None": None, "list": [1.0, 2.0, 3.0], "tuple": (1.0, 2.0, 3.0),
       "object": Foo(), "ndarray0d": np.array(2.0), "dict": {1: 2}}
GOOD = {"float": 2.5, "int": 2, "bool": True, "np.float64": np.float64(1.5),
        "np.float32": np.float32(0.5), "np.int64": np.int64(3), "np.bool_": np.bool_(True),
        "tensor": "tensor", "0d_tensor": "0d"}

OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
             "**": operator.pow, "==": operator.eq, "!=": operator.ne, "<": operator.lt,
             "<=": operator.le, ">": operator.gt, ">=": operator.ge}
METHODS = ["add", "sub", "mul", "div", "pow", "eq", "ne", "lt", "le", "gt", "ge",
           "multiply", "subtract", "divide", "true_divide", "greater", "less_equal",
           "not_equal", "add_", "sub_", "mul_", "div_", "pow_", "subtract_", "multiply_",
           "divide_", "true_divide_"]
FUNCTIONS = ["add", "sub", "mul", "div", "pow", "eq", "ne", "lt", "le", "gt", "ge",
             "multiply", "subtract", "divide", "true_divide", "greater", "less",
             "not_equal"]
INPLACE_OPERATORS = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul,
                     "/=": operator.itruediv, "**=": operator.ipow}


def _value(lib, v):
    if v == "tensor":
        return lib.tensor([0.5, 2.0, 4.0])
    if v == "0d":
        return lib.tensor(3.0)
    return v


def _outcome(fn):
    try:
        r = fn()
    except (TypeError, RuntimeError, ValueError) as e:
        first = str(e).split("\n")[0].replace("viewgrad.", "torch.")
        return ("raised", type(e).__name__, first)
    if isinstance(r, (bool, type(NotImplemented))):
        return ("value", r)
    return ("value", str(r.dtype).replace("torch.", ""), np.asarray(r.tolist()).tolist())


def _both(make):
    return _outcome(lambda: make(vg)), _outcome(lambda: make(torch))


def _x(lib):
    return lib.tensor([1.0, 2.0, 3.0])


@pytest.mark.parametrize("value", sorted(BAD) + sorted(GOOD))
@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_operators(op, value):
    if value == "ndarray0d":
        pytest.skip("PyTorch hands an operator with an ndarray to NumPy: a 0-d float64 array "
                    "gives float64 there, x's dtype here (Note [operators answer "
                    "NotImplemented]); 1-d arrays: test_operator_with_an_ndarray_...")
    f = OPERATORS[op]
    v = {**BAD, **GOOD}[value]
    got, want = _both(lambda lib: f(_x(lib), _value(lib, v)))
    assert got == want
    got, want = _both(lambda lib: f(_value(lib, v), _x(lib)))   # the reflected form
    assert got == want


@pytest.mark.parametrize("value", sorted(BAD) + sorted(GOOD))
@pytest.mark.parametrize("name", METHODS)
def test_methods(name, value):
    v = {**BAD, **GOOD}[value]
    got, want = _both(lambda lib: getattr(_x(lib), name)(_value(lib, v)))
    assert got == want


@pytest.mark.parametrize("value", sorted(BAD) + ["float", "int", "tensor"])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_functions(name, value):
    v = {**BAD, **GOOD}[value]
    got, want = _both(lambda lib: getattr(lib, name)(_x(lib), _value(lib, v)))
    assert got == want
    got, want = _both(lambda lib: getattr(lib, name)(_value(lib, v), _x(lib)))
    assert got == want


@pytest.mark.parametrize("value", ["str", "None", "list", "object", "float"])
@pytest.mark.parametrize("op", sorted(INPLACE_OPERATORS))
def test_inplace_operators(op, value):
    v = {**BAD, **GOOD}[value]

    def run(lib):
        x = _x(lib)
        before = x
        x = INPLACE_OPERATORS[op](x, _value(lib, v))
        assert x is before   # in place, the same object
        return x
    got, want = _both(run)
    assert got == want


@pytest.mark.parametrize("name, kw", [("add", "other"), ("sub", "other"), ("add", "alpha"),
                                      ("sub", "alpha"), ("add_", "alpha"), ("sub_", "alpha")])
def test_keywords_and_alpha(name, kw):
    # (x.add_(other="a") says "(position 1)" where PyTorch leaves the position out)
    args = {"other": {"other": "a"}, "alpha": {"other": _x, "alpha": "a"}}[kw]

    def run(lib):
        a = {k: (v(lib) if callable(v) else v) for k, v in args.items()}
        return getattr(_x(lib), name)(**a)
    got, want = _both(run)
    assert got == want


def test_refused_inplace_operand_leaves_the_tensor_alone():
    x = vg.tensor([1.0, 2.0], requires_grad=True).clone()
    v = x._version
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        x.add_([1.0, 2.0])
    assert x._version == v and x.tolist() == [1.0, 2.0]


def test_operator_with_an_ndarray_computes_what_torch_computes():
    a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    x = vg.tensor([1.0, -2.0, 0.5], requires_grad=True)
    t = torch.tensor([1.0, -2.0, 0.5])
    for f in (operator.add, operator.mul, operator.sub, operator.truediv, operator.pow):
        np.testing.assert_allclose(f(x, a).tolist(), f(t, a).tolist())
        # the reflected form (ndarray + x) is refused by both, with NumPy's words
        assert _outcome(lambda: f(a, x)) == _outcome(lambda: f(a, t))
    y = x * a   # viewgrad keeps the graph through it
    y.sum().backward()
    assert x.grad.tolist() == a.tolist()
