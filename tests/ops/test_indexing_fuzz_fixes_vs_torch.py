"""Keys read as PyTorch reads them, and gradients the differential fuzzer found off:
a bool mask (0-d, or k-d) beside integers, uint8 index tensors (legacy masks, with the
deprecation warning), lists that are tuples of indices, 0-d integer tensors as selects,
masked_fill with a mask larger than self, index_fill with repeated indices, and values
with extra leading size-1 dims put through an advanced index. Compared with torch: values,
shapes, whether the result is a view, warnings, errors, gradients."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

LIBS = ("torch", "vg")


def _lib(name):
    return torch_or_skip() if name == "torch" else vg


def _run(f, lib):
    """What ``f(lib)`` gives: ('ok', value, warning texts) or ('err', type name, message),
    the library's name taken out."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            out = f(lib)
        except Exception as e:
            return ("err", type(e).__name__, str(e))
    texts = [str(x.message).split(" (Triggered internally")[0] for x in w
             if issubclass(x.category, UserWarning)]
    return ("ok", out, texts)


def _same(f):
    t, v = _run(f, _lib("torch")), _run(f, vg)
    assert t == v, (t, v)


def _x(L, shape=(2, 3)):
    n = int(np.prod(shape))
    return L.arange(float(n)).reshape(*shape)


def _got(r):
    return (list(r.shape), r.tolist())


# 1. a bool mask beside integers: a k-d mask takes k dims, a 0-d one none
MASK_INT_KEYS = {
    "0d_true_int": lambda L: (L.tensor(True), -1),
    "0d_false_int": lambda L: (L.tensor(False), -1),
    "0d_true_two_ints": lambda L: (L.tensor(True), 0, 1),
    "int_0d_int": lambda L: (0, L.tensor(True), 1),
    "int_list_0d": lambda L: (0, L.tensor([1]), L.tensor(True)),
    "2d_mask_int": lambda L: (L.tensor([[True, False, True], [False, False, True]]),),
}


@pytest.mark.parametrize("name", sorted(MASK_INT_KEYS))
def test_mask_beside_integers_getitem(name):
    _same(lambda L: _got(_x(L)[MASK_INT_KEYS[name](L)]))


@pytest.mark.parametrize("mask", [[[True], [False]], [[False], [False]]])
@pytest.mark.parametrize("rest", [(slice(None), -2), (slice(None), 1), (0,),
                                  (slice(None), slice(None), 0)])
def test_2d_mask_then_integer(mask, rest):
    _same(lambda L: _got(_x(L, (2, 1, 2, 3))[(L.tensor(mask),) + rest]))


@pytest.mark.parametrize("name", sorted(MASK_INT_KEYS))
def test_mask_beside_integers_setitem(name):
    def f(L):
        x = _x(L)
        x[MASK_INT_KEYS[name](L)] = -1.0
        return x.tolist()
    _same(f)


def test_2d_mask_then_integer_setitem_grad():
    def f(L):
        x = L.zeros(2, 1, 2, 3, dtype=L.float64, requires_grad=True)
        v = L.tensor([5.0, 6.0], dtype=L.float64, requires_grad=True)
        y = x.clone()
        y[L.tensor([[True], [False]]), :, -2] = v
        gx, gv = L.autograd.grad((y * y).sum(), [x, v])
        return y.tolist(), gx.tolist(), gv.tolist()
    _same(f)


# 2. uint8 index tensors are deprecated bool masks; int8 and int16 ones are refused
UINT8_KEYS = {
    "tensor_1d": lambda L: L.tensor([1, 0], dtype=L.uint8),
    "tensor_2d": lambda L: L.tensor([[1, 0, 1], [0, 0, 1]], dtype=L.uint8),
    "numpy_1d": lambda L: np.array([1, 0], dtype=np.uint8),
    "two": lambda L: (L.tensor([1, 0], dtype=L.uint8), L.tensor([0, 1, 1], dtype=L.uint8)),
    "tensor_0d_1": lambda L: L.tensor(1, dtype=L.uint8),
    "tensor_0d_0": lambda L: L.tensor(0, dtype=L.uint8),
    "int16": lambda L: L.tensor([1, 0], dtype=L.int16),
    "int8": lambda L: L.tensor([1, 0], dtype=L.int8),
    "int16_0d": lambda L: L.tensor(1, dtype=L.int16),
    "int32": lambda L: L.tensor([1, 0], dtype=L.int32),
    "numpy_int16": lambda L: np.array([1, 0], dtype=np.int16),
}


@pytest.mark.parametrize("name", sorted(UINT8_KEYS))
def test_index_dtypes(name):
    _same(lambda L: _got(_x(L)[UINT8_KEYS[name](L)]))


def test_uint8_mask_setitem_and_index_put():
    def f(L):
        x = _x(L)
        x[L.tensor([0, 1], dtype=L.uint8)] = L.tensor([7.0, 8.0, 9.0])
        x[L.tensor([1, 0], dtype=L.uint8), [0]] = 5.0
        y = _x(L).index_put_((L.tensor([1, 0], dtype=L.uint8),), L.tensor([-1.0, -2, -3]))
        z = _x(L).index_put_((L.tensor([1, 0], dtype=L.uint8),), L.tensor([-1.0]),
                             accumulate=True)
        return x.tolist(), y.tolist(), z.tolist()
    _same(f)


# (one element put through a lone mask is masked_fill_ in PyTorch, which takes no uint8)
BYTE_FILLS = {
    "number": lambda L, x: x.__setitem__(L.tensor([0, 1], dtype=L.uint8), 5.0),
    "one_element": lambda L, x: x.__setitem__(L.tensor([0, 1], dtype=L.uint8),
                                              L.tensor([[5.0]])),
    "after_slice": lambda L, x: x.__setitem__((slice(None), L.tensor([1, 0, 1],
                                                                     dtype=L.uint8)), 5.0),
    "after_int": lambda L, x: x.__setitem__((L.tensor([1, 0], dtype=L.uint8), 1), 5.0),
    "numpy": lambda L, x: x.__setitem__(np.array([1, 0], dtype=np.uint8), 5.0),
    "index_put_": lambda L, x: x.index_put_((L.tensor([1, 0], dtype=L.uint8),),
                                            L.tensor(5.0)),
}


@pytest.mark.parametrize("name", sorted(BYTE_FILLS))
def test_uint8_mask_one_element_put_is_refused(name):
    _same(lambda L: BYTE_FILLS[name](L, _x(L)))


# 3. a list holding tensors, lists or slices is a tuple of indices
LIST_KEYS = {
    "tensors": lambda L: [L.tensor([0, 1]), L.tensor([1, 2])],
    "nested": lambda L: [[0, 1]],
    "int_slice": lambda L: [0, slice(None, 2)],
    "int_none": lambda L: [0, None],
    "int_ellipsis": lambda L: [0, Ellipsis],
    "ints": lambda L: [1, 0],
    "bools": lambda L: [True, False],
    "empty": lambda L: [],
    "nested_empty": lambda L: [[]],
    "two_empty": lambda L: ([], []),
    "floats": lambda L: [0.7, 1.2],
    "numpy_float": lambda L: np.array([0.0, 1.0]),
    "numpy_0d_in_list": lambda L: [np.array(0), 1],
}


@pytest.mark.parametrize("name", sorted(LIST_KEYS))
def test_list_keys(name):
    _same(lambda L: _got(_x(L, (3, 4))[LIST_KEYS[name](L)]))


@pytest.mark.parametrize("name", ["tensors", "int_slice", "nested"])
def test_list_keys_setitem(name):
    def f(L):
        x = _x(L, (3, 4))
        x[LIST_KEYS[name](L)] = -1.0
        return x.tolist()
    _same(f)


# 4. a 0-d integer tensor is a select: a view of x
ZERO_D_KEYS = {
    "tensor": lambda L: L.tensor(1),
    "numpy": lambda L: np.array(1),
    "int_tensor": lambda L: (0, L.tensor(1)),
    "beside_list": lambda L: (L.tensor(1), [0, 2]),
    "int32": lambda L: L.tensor(1, dtype=L.int32),
}


@pytest.mark.parametrize("name", sorted(ZERO_D_KEYS))
def test_0d_integer_tensor_is_a_select(name):
    def f(L):
        x = _x(L)
        r = x[ZERO_D_KEYS[name](L)]
        view = r._base is x
        r.mul_(10)
        return x.tolist(), view, r.storage_offset() if view else None
    _same(f)


def test_0d_integer_tensor_grad_fn_and_range():
    def f(L):
        x = _x(L).requires_grad_()
        return type(x[L.tensor(1)].grad_fn).__name__, type(x[0, L.tensor(2)].grad_fn).__name__
    _same(f)
    _same(lambda L: _x(L)[L.tensor(5)])


def test_0d_integer_tensor_setitem():
    def f(L):
        x = _x(L)
        x[L.tensor(1)] = 5.0
        x[0, L.tensor(-1)] = 7.0
        return x.tolist()
    _same(f)


# 5. masked_fill with a mask larger than self, and a tensor value
@pytest.mark.parametrize("value", ["tensor", "number"])
def test_masked_fill_broadcast_mask_grad(value):
    def f(L):
        x = L.zeros(2, dtype=L.float64, requires_grad=True)
        v = L.tensor(2.0, dtype=L.float64, requires_grad=True)
        y = x.masked_fill(L.tensor([[True, False]] * 3), v if value == "tensor" else 2.0)
        gs = L.autograd.grad((y * y).sum() + x.sum(), [x, v] if value == "tensor" else [x],
                             allow_unused=True)
        return list(y.shape), [g.tolist() for g in gs]
    _same(f)


# 6. index_fill with repeated indices: the value's gradient counts each element once
@pytest.mark.parametrize("index", [[0, 0], [1, -2], [2, 0, 2, 2]])
def test_index_fill_repeated_indices_value_grad(index):
    def f(L):
        x = L.zeros(3, 2, dtype=L.float64, requires_grad=True)
        v = L.tensor(5.0, dtype=L.float64, requires_grad=True)
        y = x.index_fill(0, L.tensor(index), v)
        return y.tolist(), [g.tolist() for g in L.autograd.grad((y * 3).sum(), [x, v])]
    _same(f)


# 7. advanced-index setitem with a value with extra leading size-1 dims
@pytest.mark.parametrize("case", ["list", "int_list_ellipsis"])
def test_setitem_value_with_leading_ones_grad(case):
    def f(L):
        if case == "list":
            x0 = L.zeros(4, 3, dtype=L.float64, requires_grad=True)
            v = L.arange(3., dtype=L.float64).reshape(1, 1, 3).requires_grad_()
            x = x0.clone()
            x[[1]] = v
        else:
            x0 = L.zeros(3, 4, 3, 2, dtype=L.float64, requires_grad=True)
            v = L.arange(6., dtype=L.float64).reshape(1, 1, 1, 3, 2).requires_grad_()
            x = x0.clone()
            x[::2][-2, [-1], ...] = v
        gx, gv = L.autograd.grad((x * x).sum(), [x0, v])
        return x.tolist(), gx.tolist(), list(gv.shape), gv.tolist()
    _same(f)


@pytest.mark.parametrize("case", ["mask", "0d_true_ints", "0d_false_int"])
def test_put_through_a_mask_with_leading_ones(case):
    # (NumPy refuses leading size-1 dims of a value put through a bool mask; PyTorch drops
    # them as broadcasting does)
    def f(L):
        x = L.zeros(2, 3, dtype=L.float64, requires_grad=True).clone()
        v = L.ones(1, 1, 3, dtype=L.float64, requires_grad=True)
        if case == "mask":
            x[L.tensor([True, False])] = v
        elif case == "0d_true_ints":
            x[L.tensor(True), 0, 2] = v[..., :1]
        else:
            x[L.tensor(False), 0] = v
        return x.tolist(), list(L.autograd.grad(x.sum(), v)[0].shape)
    _same(f)
