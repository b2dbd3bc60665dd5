"""Note [a code object per row] (autograd/code_copies.py) and Note [dtypes by identity]
(ops/lean.py): the speed tricks change nothing a program can see. Each row's lean method
and lean step has a code object of its own (the trick is still in place), with the same
name, file, lines and tracebacks as the ``def`` it comes from; and an array whose dtype
is equal to float32/float64 but not NumPy's builtin object (byte order spelled out)
takes the general path and gives the same answers."""
import sys
import traceback

import numpy as np
import pytest

import viewgrad as vg
from viewgrad.autograd.code_copies import own_code
from viewgrad.ops.pointwise import EXP, MUL, SIGMOID, SUB, TANH
from viewgrad.tensor import Tensor

from ..helpers import both_ways


def test_each_row_has_its_own_code_object():
    methods = [Tensor.tanh, Tensor.sigmoid, Tensor.exp, Tensor.__mul__, Tensor.__sub__]
    codes = [m.__code__ for m in methods]
    assert len({id(c) for c in codes}) == len(codes)
    # ... copies of one def: the same name, file and first line
    unary = codes[:3]
    assert len({(c.co_name, c.co_filename, c.co_firstlineno) for c in unary}) == 1
    steps = [cls.__dict__["_chain_step"].__func__
             for cls in (TANH.node_cls, SIGMOID.node_cls, EXP.node_cls)]
    assert len({id(f.__code__) for f in steps}) == 3
    assert len({f.__code__.co_firstlineno for f in steps}) == 1
    assert MUL.node_cls.__dict__["_chain_step"].__func__.__code__ is not \
        SUB.node_cls.__dict__["_chain_step"].__func__.__code__


def test_own_code_keeps_the_function_as_it_was():
    def make(k):
        def f(x):
            if x is None:
                raise ValueError(f"no x ({k})")
            return x + k
        return f

    f = make(2)
    before = (f.__name__, f.__code__.co_filename, f.__code__.co_firstlineno,
              f.__code__.co_code)
    g = own_code(f)
    assert g is f and f(3) == 5
    assert (f.__name__, f.__code__.co_filename, f.__code__.co_firstlineno,
            f.__code__.co_code) == before
    try:
        f(None)
    except ValueError as e:
        frames = traceback.extract_tb(e.__traceback__)
        assert frames[-1].name == "f" and "raise ValueError" in frames[-1].line
        assert str(e) == "no x (2)"


def test_a_lean_method_in_a_traceback_is_its_def():
    # an error raised inside a copied method points at the def's line in ops/lean.py
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(TypeError) as info:
        Tensor.tanh(2.0)
    names = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert names[-1] == "method"
    assert (x * 1.0).tanh().grad_fn.name() == "TanhBackward0"


def _program(x, c):
    y = (x * 1.01 - 0.5).tanh()
    y = (y * c).sigmoid().exp() * 0.5
    return y


@pytest.mark.host_only("the byte order of a host array")
@pytest.mark.parametrize("kind", ["f4", "f8"])
def test_an_equal_but_distinct_dtype_gives_the_same_answers(kind):
    native = np.linspace(-1.0, 1.5, 7).astype(kind)
    other = "<" if sys.byteorder == "big" else ">"
    swapped = native.astype(other + kind)   # equal values, a dtype NumPy built apart
    assert swapped.dtype is not native.dtype
    c = np.linspace(0.5, 1.0, 7).astype(kind)

    def run(arr):
        x = vg.tensor(arr, requires_grad=True)
        y = _program(x, vg.tensor(c))
        y.sum().backward()
        return np.asarray(y.detach().numpy(), dtype=kind), np.asarray(x.grad.numpy(),
                                                                        dtype=kind)

    (y0, g0), (y1, g1) = run(native), run(swapped)
    np.testing.assert_allclose(y1, y0, rtol=1e-6)
    np.testing.assert_allclose(g1, g0, rtol=1e-6)


def test_inline_and_copied_paths_match_the_teaching_path():
    # the lean calls off (every op dispatched and recorded the teaching way) and on
    from viewgrad.ops import lean

    def run():
        x = vg.tensor(np.linspace(-1.0, 1.5, 9), dtype=vg.float32, requires_grad=True)
        y = _program(x, vg.tensor(np.linspace(0.5, 1.0, 9), dtype=vg.float32))
        y.sum().backward()
        return y.detach().cpu().numpy().tobytes(), x.grad.cpu().numpy().tobytes()

    on, off = both_ways(lean.set_lean_ops, run)
    assert on == off
