"""Type promotion follows PyTorch, not NumPy (issue 14): a differential sweep over dtype
pairs x ops x operand kinds (dimensioned tensor, 0-d tensor, Python scalar), compared
with torch 2.13 on the result's dtype and values, or on the exception type.

NumPy would give float64 for float32 * int64 and for int64 * 2.5, and let a 0-d float64
tensor promote a float32 matrix; PyTorch gives float32 in all three.
"""
import itertools

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import assert_same_as_torch, outcome, torch_or_skip

DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64"]
OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a ** b,
    "radd": lambda a, b: b + a,
    "rsub": lambda a, b: b - a,
    "rmul": lambda a, b: b * a,
    "rdiv": lambda a, b: b / a,
}


def _operand(M, kind, dtype):
    dt = getattr(M, dtype)
    if kind == "tensor":
        vals = [[1, 0, 1], [0, 1, 1]] if dtype == "bool" else [[1, 2, 3], [2, 1, 3]]
        return M.tensor(vals, dtype=dt)
    return M.tensor(True if dtype == "bool" else 2, dtype=dt)  # 0-d


SCALARS = [True, 3, 2.5]


def _cases():
    for a, b in itertools.product(DTYPES, DTYPES):
        for kind in ("tensor", "0d"):
            yield a, ("dtype", kind, b)
    for a in DTYPES:
        for s in SCALARS:
            yield a, ("scalar", s)


def _run(M, a, other, op):
    x = _operand(M, "tensor", a)
    y = _operand(M, other[1], other[2]) if other[0] == "dtype" else other[1]
    return OPS[op](x, y)


def _sweep(ops, run):
    """``run(M, a, other, op)`` over dtype pairs x operand kinds x ``ops`` with both
    libraries: the same exception type when torch refuses, else the same dtype, shape and
    values. Returns (number of cases, those that differ)."""
    torch = torch_or_skip()
    bad = []
    n = 0
    for (a, other), op in itertools.product(list(_cases()), ops):
        n += 1
        ours = outcome(vg, lambda M: run(M, a, other, op))
        theirs = outcome(torch, lambda M: run(M, a, other, op))
        if theirs[0] == "raise" or ours[0] == "raise":
            # torch refuses (bool - bool, ...): viewgrad must refuse too, the same way
            if ours[:2] != theirs[:2]:
                bad.append((a, other, op, ours[:3], theirs[:3]))
            continue
        (od, oshape, ov), (td, tshape, tv) = ours[1], theirs[1]
        if od != td or oshape != tshape or not np.allclose(
                ov.astype(np.float64), tv.astype(np.float64), rtol=1e-3, equal_nan=True):
            bad.append((a, other, op, od, td))
    return n, bad


@pytest.mark.once
def test_binary_ops_promote_like_pytorch():
    n, bad = _sweep(OPS, _run)
    assert n > 1000
    assert not bad, f"{len(bad)} of {n} differ from torch, e.g. {bad[:8]}"


@pytest.mark.parametrize("a,b", [("float32", "int64"), ("float32", "float64"),
                                 ("int64", "float32"), ("int32", "int64")])
@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_"])
def test_inplace_ops_keep_self_dtype_or_refuse(a, b, op):
    def f(M):
        x = M.tensor([4, 6], dtype=getattr(M, a))
        getattr(x, op)(M.tensor([2, 3], dtype=getattr(M, b)))
        return x
    assert_same_as_torch(f)


@pytest.mark.parametrize("make", [
    lambda M: M.Tensor([1, 1]),
    lambda M: M.Tensor(2, 3).shape,
    lambda M: M.Tensor(2, 3).dtype,
    lambda M: M.Tensor(M.Size([2, 1])).shape,
    lambda M: M.Tensor((2, 3)),
    lambda M: M.Tensor([[True, False]]),
    lambda M: M.Tensor().shape,
])
def test_legacy_constructor(make):
    assert_same_as_torch(make)


def test_zero_dim_tensors_do_not_promote_dimensioned_ones():
    def f(M):
        x = M.ones(2, 3)
        return (x * M.tensor(2.0, dtype=M.float64), x + M.tensor(3), M.tensor([1, 2]) +
                M.tensor(2.5, dtype=M.float64), M.tensor(2.5, dtype=M.float64) * M.tensor(2.0))
    assert_same_as_torch(f)


def test_float32_model_gets_float32_grads_from_mixed_inputs():
    def f(M):
        w = M.ones(3, 2, requires_grad=True)
        x = M.tensor([[1, 2, 3]])             # int64 input
        t = M.tensor(0.5, dtype=M.float64)    # 0-d float64 target
        loss = ((w * x.t() - t) ** 2).sum()
        loss.backward()
        return loss.dtype, w.grad
    assert_same_as_torch(f)


# -- where, comparisons, cat and stack ----------------------------------------------------

def _operands(M, a, other):
    """A (2, 3) tensor of dtype ``a`` and the other operand: ("tensor"|"0d", dtype) or a
    Python scalar."""
    x = _operand(M, "tensor", a)
    y = _operand(M, other[1], other[2]) if other[0] == "dtype" else other[1]
    return x, y


def _cond(M):
    return M.tensor([[True, False, True], [False, True, False]])


JOINS = {
    "eq": lambda M, x, y: x == y, "ne": lambda M, x, y: x.ne(y), "lt": lambda M, x, y: x < y,
    "le": lambda M, x, y: x <= y, "gt": lambda M, x, y: x > y, "ge": lambda M, x, y: x.ge(y),
    "where": lambda M, x, y: M.where(_cond(M), x, y),
    "where_swapped": lambda M, x, y: M.where(_cond(M), y, x),
    "cat": lambda M, x, y: M.cat([x, y if isinstance(y, M.Tensor) and y.dim() else x]),
    "stack": lambda M, x, y: M.stack([x, y.expand(2, 3) if isinstance(y, M.Tensor) else x]),
}


@pytest.mark.once
def test_where_comparisons_cat_stack_promote_like_pytorch():
    """dtype pairs x (dimensioned, 0-d, Python scalar) x ops: the result dtype and values
    are PyTorch's (cat of float32 and int64 is float32; a 0-d float64 tensor compared with
    a float32 one compares as float32; where of a uint8 tensor and 3 is uint8)."""
    n, bad = _sweep(JOINS, lambda M, a, other, op: JOINS[op](M, *_operands(M, a, other)))
    assert n > 1000
    assert not bad, f"{len(bad)} of {n} differ from torch, e.g. {bad[:8]}"


@pytest.mark.parametrize("s1,s2", [(1, 2.5), (True, 2), (1, 2), (2.5, True)])
def test_where_of_two_python_scalars(s1, s2):
    assert_same_as_torch(lambda M: M.where(_cond(M), s1, s2))


def _names(fn):
    return None if fn is None else (fn.name(), tuple(
        None if f is None else f.name().rsplit("::", 1)[-1] for f, _ in fn.next_functions))


@pytest.mark.parametrize("op", ["where", "where_scalar", "cat", "stack"])
def test_mixed_dtype_gradients_come_back_in_each_inputs_dtype(op):
    def f(M):
        x = M.ones(2, 3, requires_grad=True)
        y = M.ones(2, 3, dtype=M.float64, requires_grad=True)
        r = {"where": lambda: M.where(_cond(M), x, y),
             "where_scalar": lambda: M.where(_cond(M), 0.5, x),
             "cat": lambda: M.cat([x, y]), "stack": lambda: M.stack([y, x], 1)}[op]()
        (r * 3).sum().backward()
        return r.dtype, _names(r.grad_fn), x.grad, y.grad
    assert_same_as_torch(f)


# -- matrix products never promote -------------------------------------------------------

PRODUCT_DTYPES = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64"]
PRODUCTS = {
    "mm": lambda M, a, b: M.mm(a((2, 3)), b((3, 2))),
    "bmm": lambda M, a, b: M.bmm(a((1, 2, 3)), b((1, 3, 2))),
    "mv": lambda M, a, b: M.mv(a((2, 3)), b((3,))),
    "dot": lambda M, a, b: M.dot(a((3,)), b((3,))),
    "1@1": lambda M, a, b: a((3,)) @ b((3,)),
    "2@1": lambda M, a, b: a((2, 3)) @ b((3,)),
    "1@2": lambda M, a, b: M.matmul(a((3,)), b((3, 2))),
    "2@2": lambda M, a, b: a((2, 3)) @ b((3, 2)),
    "3@2": lambda M, a, b: a((2, 2, 3)) @ b((3, 2)),
    "3t@2": lambda M, a, b: a((2, 2, 3)).transpose(0, 1) @ b((3, 2)),
    "3t@1": lambda M, a, b: a((2, 2, 3)).transpose(0, 1) @ b((3,)),
    "3@1": lambda M, a, b: a((2, 2, 3)) @ b((3,)),
    "2@3": lambda M, a, b: a((2, 3)) @ b((2, 3, 2)),
    "3@3": lambda M, a, b: a((2, 2, 3)) @ b((2, 3, 2)),
    "1@3": lambda M, a, b: a((3,)) @ b((2, 3, 2)),
    "1@3t": lambda M, a, b: a((3,)) @ b((2, 2, 3)).mT,
    "addmm": lambda M, a, b: M.addmm(b((2, 2)), a((2, 3)), a((3, 2))),
    "addmm_mats": lambda M, a, b: M.addmm(a((2, 2)), a((2, 3)), b((3, 2))),
    "addmv": lambda M, a, b: M.addmv(b((2,)), a((2, 3)), a((3,))),
    "baddbmm": lambda M, a, b: M.baddbmm(b((2, 2)), a((1, 2, 3)), a((1, 3, 2))),
    "linear_bias": lambda M, a, b: M.nn.functional.linear(a((2, 3)), a((2, 3)), b((2,))),
}


@pytest.mark.parametrize("form", sorted(PRODUCTS))
@pytest.mark.parametrize("grad", ["none", "left", "right"])
def test_matrix_products_refuse_mixed_dtypes_like_pytorch(form, grad):
    """Each product raises PyTorch's exception type and message, which depend on the kernel
    matmul picks (dot, mv, mm or bmm: it folds a batched operand when the other requires
    grad or when folding needs no copy)."""
    torch = torch_or_skip()
    bad = []
    for da, db in itertools.product(PRODUCT_DTYPES, PRODUCT_DTYPES):
        if da != db and "float32" not in (da, db) and {da, db} != {"int64", "float64"}:
            continue
        if grad != "none" and "float" not in (da if grad == "left" else db):
            continue

        def f(M):
            def make(dt, rg):
                return lambda shape: M.ones(*shape, dtype=getattr(M, dt), requires_grad=rg)
            return PRODUCTS[form](M, make(da, grad == "left"), make(db, grad == "right"))
        ours, theirs = outcome(vg, f), outcome(torch, f)
        if theirs[0] == "raise":
            # torch's sentence first; viewgrad may add what to do instead
            if ours[0] != "raise" or ours[1] != theirs[1] or not ours[2].startswith(theirs[2]):
                bad.append((da, db, ours, theirs))
        elif ours[0] != "ok" or ours[1][0] != theirs[1][0] or ours[1][1] != theirs[1][1]:
            bad.append((da, db, ours[:2], theirs[:2]))
    assert not bad, bad[:4]


@pytest.mark.parametrize("dts", [("float32", "float32", "float64"), ("float64", "float32",
                                 "float32"), ("float32", "int64", "int64")])
def test_addr_promotes(dts):
    def f(M):
        i, a, b = (getattr(M, d) for d in dts)
        vec1 = M.ones(2, dtype=a, requires_grad=a is M.float32)
        r = M.addr(M.ones(2, 3, dtype=i), vec1, M.arange(3).to(b))
        if vec1.requires_grad:
            r.sum().backward()
        return r, vec1.grad
    assert_same_as_torch(f)
