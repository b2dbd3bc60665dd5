"""A matrix product's gradients come out in each matrix's own layout, as PyTorch's
``mm_mat1_backward``/``mm_mat2_backward`` make them (Note [a matrix gradient in its
matrix's layout], ops/linalg.py): a column-major operand (``W.t()``) gets a column-major
gradient, so the weight behind it gets a row-major one that AccumulateGrad keeps without a
copy. Compared with torch: the strides of the gradient each operand's hook receives, the
``.grad`` a leaf ends with, the values, and the sizes and strides the node saves
(``_saved_mat2_sym_sizes``, ``_saved_mat2_sym_strides``...), before and after backward."""
import itertools

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compares strides and saved attributes with torch's CPU")

_LAYOUTS = ("row", "col", "strided")


def _matrix(M, a, layout, rg):
    """A leaf with ``a``'s values laid out as ``layout``: row-major, column-major (the
    transpose of a row-major tensor), or every other column of a wider one."""
    if layout == "row":
        t = M.tensor(a)
    elif layout == "col":
        t = M.tensor(np.ascontiguousarray(a.T)).t()
    else:
        wide = np.zeros((a.shape[0], 2 * a.shape[1]), a.dtype)
        wide[:, ::2] = a
        t = M.tensor(wide)[:, ::2]
    return t.requires_grad_(rg) if rg else t


def _run(M, op, a, b, la, lb, ra, rb):
    x, w = _matrix(M, a, la, ra), _matrix(M, b, lb, rb)
    seen = {}
    for name, t in (("mat1", x), ("mat2", w)):
        if t.requires_grad:
            t.register_hook(lambda g, name=name: seen.__setitem__(name, (g.stride(),
                                                                         g.detach())))
    if op == "mm":
        y = M.mm(x, w)
    elif op == "matmul":
        y = x @ w
    else:
        y = M.addmm(M.ones(b.shape[1], dtype=M.float64), x, w, beta=0.5, alpha=2.0)
    node = y.grad_fn
    names = sorted(n for n in dir(node) if "_sym_" in n)
    before = {n: tuple(getattr(node, n)) for n in names}
    y.backward(M.tensor(np.arange(y.numel(), dtype=np.float64).reshape(y.shape) / 7))
    after = {n: tuple(getattr(node, n)) for n in names}
    grads = {k: (t.grad.stride(), t.grad) for k, t in (("mat1", x), ("mat2", w))
             if t.requires_grad}
    return type(node).__name__, before, after, seen, grads


_NEEDS = ((True, True), (True, False), (False, True))


@pytest.mark.parametrize("op", ["mm", "matmul", "addmm"])
@pytest.mark.parametrize("la,lb", list(itertools.product(_LAYOUTS, _LAYOUTS)))
@pytest.mark.parametrize("needs", _NEEDS, ids=["both", "mat1", "mat2"])
def test_gradient_layouts_and_saved_geometry_as_torch(op, la, lb, needs):
    torch = torch_or_skip()
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    t = _run(torch, op, a, b, la, lb, *needs)
    v = _run(vg, op, a, b, la, lb, *needs)
    assert v[0] == t[0]
    assert v[1] == t[1]          # sizes and strides saved (() for an input needing none)
    assert v[2] == t[2]          # still readable once the node is freed
    assert sorted(v[3]) == sorted(t[3])
    for k in t[3]:
        assert v[3][k][0] == t[3][k][0], f"stride of the gradient {k}'s hook receives"
        np.testing.assert_allclose(v[3][k][1].numpy(), t[3][k][1].numpy(), rtol=1e-12)
    for k in t[4]:
        assert v[4][k][0] == t[4][k][0], f"{k}.grad's strides"
        np.testing.assert_allclose(v[4][k][1].numpy(), t[4][k][1].numpy(), rtol=1e-12)


@pytest.mark.parametrize("form", ["linear", "matmul_t"])
def test_a_layers_weight_gradient_is_kept_without_a_copy(form):
    """``F.linear(x, W, b)`` and ``x @ W.t() + b``: the product's gradient for ``W.t()``
    is column-major (torch's hook sees the same strides), so ``W.grad`` is that very
    array, transposed back: AccumulateGrad steals it, and no other array of W's size is
    made for it."""
    torch = torch_or_skip()
    rng = np.random.default_rng(1)
    X, W, b = rng.standard_normal((6, 4)), rng.standard_normal((5, 4)), rng.standard_normal(5)
    out = {}
    for M in (torch, vg):
        x = M.tensor(X, requires_grad=True)
        w, bb = M.tensor(W, requires_grad=True), M.tensor(b, requires_grad=True)
        wt = w.t()
        strides = []
        wt.register_hook(lambda g: strides.append(g.stride()))
        y = M.nn.functional.linear(x, w, bb) if form == "linear" else x @ wt + bb
        if form == "linear":   # (linear makes its own transpose)
            strides.append(y.grad_fn._saved_mat2_sym_strides)
        y.sum().backward()
        out[M.__name__] = (strides, w.grad.stride(), w.grad.numpy().copy())
    assert out["viewgrad"][:2] == out["torch"][:2]
    np.testing.assert_allclose(out["viewgrad"][2], out["torch"][2], rtol=1e-12)


def test_the_weight_gradient_is_the_products_own_array():
    """No copy for the layout contract: ``W.grad`` is a view of the product ``g.T @ x``
    (the column-major gradient of ``W.t()`` seen transposed back), not a copy of it."""
    x = vg.randn(6, 4, dtype=vg.float64)
    w = vg.randn(5, 4, dtype=vg.float64, requires_grad=True)
    (x @ w.t()).sum().backward()
    g = w.grad
    assert g.stride() == (4, 1) and g.is_contiguous()
    base = g._data.base
    assert base is not None and base.shape == (5, 4) and base.flags.c_contiguous


@pytest.mark.parametrize("la,lb", [("col", "row"), ("row", "col"), ("col", "col")])
def test_layout_formulas_pass_gradcheck_and_gradgradcheck(la, lb):
    rng = np.random.default_rng(2)
    a = _matrix(vg, rng.standard_normal((3, 4)), la, True)
    b = _matrix(vg, rng.standard_normal((4, 2)), lb, True)
    bias = vg.tensor(rng.standard_normal(2), requires_grad=True)
    assert vg.autograd.gradcheck(vg.mm, (a, b))
    assert vg.autograd.gradgradcheck(vg.mm, (a, b))
    f = lambda c, m1, m2: vg.addmm(c, m1, m2, beta=0.5, alpha=1.5)   # noqa: E731
    assert vg.autograd.gradcheck(f, (bias, a, b))
    assert vg.autograd.gradgradcheck(f, (bias, a, b))
