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
    if not hasattr(r, "dtype"):   # True, NotImplemented, 'a' % x (str formatting)
        return ("value", repr(r))
    return ("value", str(r.dtype).replace("torch.", ""), np.asarray(r.tolist()).tolist())


class _Same:
    """viewgrad's outcome against torch's: the same values, or the same exception type
    whose first line starts with PyTorch's (viewgrad may add a hint after its words)."""

    def __init__(self, got, want):
        self.got, self.want = got, want

    def __bool__(self):
        g, w = self.got, self.want
        if g[0] == "raised" and w[0] == "raised":
            return g[1] == w[1] and g[2].startswith(w[2])
        if g[:2] == w[:2] and len(g) == 3 and g[1].startswith("float"):
            # pow may differ from PyTorch's in the last place: a GPU's, and NumPy's own
            # SIMD kernels on a CPU with AVX-512 (glibc's powf elsewhere, as PyTorch's)
            return np.allclose(g[2], w[2], rtol=4 * np.finfo(g[1]).eps, atol=0,
                               equal_nan=True)
        return g == w

    def __repr__(self):
        return f"viewgrad {self.got!r} vs torch {self.want!r}"


def _both(make):
    got, want = _outcome(lambda: make(vg)), _outcome(lambda: make(torch))
    return _Same(got, want)


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
    same = _both(lambda lib: f(_x(lib), _value(lib, v)))
    assert same
    same = _both(lambda lib: f(_value(lib, v), _x(lib)))   # the reflected form
    assert same


@pytest.mark.parametrize("value", sorted(BAD) + sorted(GOOD))
@pytest.mark.parametrize("name", METHODS)
def test_methods(name, value):
    v = {**BAD, **GOOD}[value]
    same = _both(lambda lib: getattr(_x(lib), name)(_value(lib, v)))
    assert same


@pytest.mark.parametrize("value", sorted(BAD) + ["float", "int", "tensor"])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_functions(name, value):
    v = {**BAD, **GOOD}[value]
    same = _both(lambda lib: getattr(lib, name)(_x(lib), _value(lib, v)))
    assert same
    same = _both(lambda lib: getattr(lib, name)(_value(lib, v), _x(lib)))
    assert same


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
    same = _both(run)
    assert same


@pytest.mark.parametrize("name, kw", [("add", "other"), ("sub", "other"), ("add", "alpha"),
                                      ("sub", "alpha"), ("add_", "alpha"), ("sub_", "alpha")])
def test_keywords_and_alpha(name, kw):
    # (x.add_(other="a") says "(position 1)" where PyTorch leaves the position out)
    args = {"other": {"other": "a"}, "alpha": {"other": _x, "alpha": "a"}}[kw]

    def run(lib):
        a = {k: (v(lib) if callable(v) else v) for k, v in args.items()}
        return getattr(_x(lib), name)(**a)
    same = _both(run)
    assert same


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


# -- the rest of the binary ops (ops/operands.py: install_methods, install_functions) --------

TENSOR_ONLY = ["maximum", "minimum", "fmax", "fmin", "atan2", "arctan2", "hypot", "isclose",
               "allclose", "equal", "nextafter", "logaddexp", "logaddexp2", "logical_and",
               "logical_or", "logical_xor", "dist", "heaviside", "mm", "matmul", "dot",
               "vdot", "inner", "outer", "ger", "mv", "kron"]
TENSOR_OR_NUMBER = ["xlogy", "copysign", "remainder", "fmod", "floor_divide", "float_power",
                    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                    "bitwise_right_shift"]
INPLACE = ["atan2_", "hypot_", "nextafter_", "heaviside_", "logical_and_", "xlogy_",
           "copysign_", "remainder_", "fmod_", "floor_divide_", "bitwise_and_", "float_power_"]
BIT_OPERATORS = {"%": operator.mod, "//": operator.floordiv, "&": operator.and_,
                 "|": operator.or_, "^": operator.xor, "<<": operator.lshift,
                 ">>": operator.rshift, "%=": operator.imod, "&=": operator.iand,
                 "//=": operator.ifloordiv}


def _operand_for(lib, name):
    if name.startswith(("bitwise", "logical")) or name in ("&", "|", "^", "<<", ">>", "&="):
        return lib.tensor([1, 2, 3])
    if name in ("mm", "kron"):
        return lib.ones(3, 3)
    if name == "mv":
        return lib.ones(3, 3)
    if name == "float_power_":
        return lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    return lib.tensor([1.0, 2.0, 3.0])


@pytest.mark.parametrize("value", ["str", "None", "list", "ndarray0d", "float", "int"])
@pytest.mark.parametrize("name", TENSOR_ONLY + TENSOR_OR_NUMBER + INPLACE)
def test_more_methods(name, value):
    v = {**BAD, **GOOD}[value]
    same = _both(lambda lib: getattr(_operand_for(lib, name), name)(_value(lib, v)))
    assert same


@pytest.mark.parametrize("value", ["str", "None", "list", "float"])
@pytest.mark.parametrize("name", TENSOR_ONLY + TENSOR_OR_NUMBER)
def test_more_functions(name, value):
    v = {**BAD, **GOOD}[value]
    same = _both(lambda lib: getattr(lib, name)(_operand_for(lib, name), _value(lib, v)))
    assert same


@pytest.mark.parametrize("value", ["str", "None", "list", "object", "int", "tensor"])
@pytest.mark.parametrize("op", sorted(BIT_OPERATORS))
def test_more_operators(op, value):
    f = BIT_OPERATORS[op]
    v = {**BAD, **GOOD}[value]
    if value == "tensor":
        v = "int_tensor"

    def val(lib):
        return lib.tensor([1, 2, 3]) if v == "int_tensor" else v
    same = _both(lambda lib: f(_operand_for(lib, op), val(lib)))
    assert same
    if "=" not in op:
        same = _both(lambda lib: f(val(lib), _operand_for(lib, op)))
        assert same
