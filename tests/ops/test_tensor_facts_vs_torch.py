"""ops/tensor_facts.py against torch 2.13: in-place comparisons (values, dtype, version,
node, zero gradients, refusals), dim_order, the dense-tensor facts, angle, isreal,
adjoint, H, new_empty_strided, and the cov/corrcoef methods."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("runs the same programs in torch on the CPU")

COMPARES = ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_", "less_",
            "less_equal_", "not_equal_"]


def _x(M, dtype="float32"):
    return M.tensor(np.array([[1.0, -2.0, 0.5], [0.0, 3.0, 0.5]]), dtype=getattr(M, dtype))


@pytest.mark.parametrize("name", COMPARES)
@pytest.mark.parametrize("other", ["number", "row", "tensor", "int_number"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_compare_in_place_as_torch(name, other, dtype):
    torch = torch_or_skip()
    res = []
    for M in (torch, vg):
        x = _x(M, dtype)
        o = {"number": 0.5, "int_number": 1, "row": M.tensor([0.5, 3.0, 0.0]),
             "tensor": _x(M).flip(1)}[other]
        r = getattr(x, name)(o)
        res.append((r is x, str(x.dtype).split(".")[-1], x.tolist(), x._version))
    assert res[1] == res[0]


@pytest.mark.parametrize("name", COMPARES)
@pytest.mark.parametrize("tensor_other", [False, True])
def test_compare_in_place_records_a_zero_gradient(name, tensor_other):
    torch = torch_or_skip()
    res = []
    for M in (torch, vg):
        x = M.tensor([1.0, -2.0, 0.5], requires_grad=True)
        o = M.tensor([0.0, 0.0, 1.0], requires_grad=True)
        y = x * 2
        getattr(y, name)(o if tensor_other else 0.5)
        (y * 3).sum().backward()
        res.append((type(y.grad_fn).__name__, y.tolist(), x.grad.tolist(),
                    None if o.grad is None else o.grad.tolist(),
                    sorted(a for a in dir(y.grad_fn) if a.startswith("_saved_"))))
    assert res[1] == res[0]


def test_compare_in_place_on_a_view_and_its_refusals():
    torch = torch_or_skip()
    res = []
    for M in (torch, vg):
        w = M.ones(3, 2, requires_grad=True)
        b = w * 1
        b[:, 0].lt_(2.0)
        b.sum().backward()
        leaf = M.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            leaf.eq_(1.0)
        with pytest.raises(RuntimeError) as e:
            M.ones(2).eq_(M.ones(2, 2))
        res.append((type(b.grad_fn).__name__, b.tolist(), w.grad.tolist(), str(e.value)))
    assert res[1] == res[0]


def _layouts(M, rng):
    base = M.tensor(rng.standard_normal((2, 3, 4)))
    yield base
    for p in itertools.permutations(range(3)):
        yield base.permute(*p)
    yield base[:, :1]
    yield base[:, :, ::2]
    yield base[:1].permute(2, 0, 1)
    yield M.tensor(rng.standard_normal((3, 1))).expand(3, 4)
    yield M.tensor(rng.standard_normal((1, 4))).t()
    yield M.tensor(rng.standard_normal((2, 2)))[:, :1]
    yield M.tensor(3.0)
    yield M.tensor(rng.standard_normal((4, 1, 1))).permute(1, 2, 0)


def test_dim_order_as_torch():
    torch = torch_or_skip()
    got = []
    for M in (torch, vg):
        got.append([tuple(t.dim_order()) for t in _layouts(M, np.random.default_rng(0))])
    assert got[1] == got[0]


def test_the_facts_of_a_dense_tensor():
    torch = torch_or_skip()
    names = ["is_sparse", "is_sparse_csr", "is_quantized", "is_meta", "is_mkldnn", "is_nested",
             "is_xla", "is_xpu", "is_mps", "is_ipu", "is_vulkan", "is_maia", "is_mtia"]
    for M in (torch, vg):
        x = M.ones(2)
        assert [getattr(x, n) for n in names] == [False] * len(names)
        assert repr(x.layout) == "torch.strided" and x.layout is M.strided
        assert isinstance(M.strided, M.layout)
        assert not x.is_shared()
        assert x.share_memory_() is x and x.is_shared()


@pytest.mark.parametrize("values", [[1.0, -2.0, 0.0, -0.0, float("nan"), float("inf"),
                                     -float("inf")], [3, -1, 0]])
def test_angle_as_torch(values):
    torch = torch_or_skip()
    res = []
    for M in (torch, vg):
        r = M.angle(M.tensor(values))
        res.append((str(r.dtype).split(".")[-1], r.tolist(), M.tensor(values).angle().tolist(),
                    M.isreal(M.tensor(values)).tolist()))
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-7)
    assert (res[1][0], res[1][3]) == (res[0][0], res[0][3])


def test_angle_gradient_is_zero_and_gradchecks():
    x = vg.tensor([1.5, -2.0, 0.3], dtype=vg.float64, requires_grad=True)
    y = x.angle()
    assert type(y.grad_fn).__name__ == "AngleBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    assert vg.autograd.gradcheck(vg.angle, (x,))
    assert vg.autograd.gradgradcheck(vg.angle, (x,))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
def test_adjoint_and_H_as_torch(shape):
    """(Their 0-D warnings are given once per process: tests/ops/test_warn_once_vs_torch.py
    checks the texts.)"""
    torch = torch_or_skip()
    res = []
    for M in (torch, vg):
        x = M.tensor(np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape),
                     requires_grad=True)
        out = []
        for f in (lambda: M.adjoint(x), lambda: x.adjoint(), lambda: x.H):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    r = f()
                    out.append((tuple(r.shape), r.tolist(), r.grad_fn is not None and
                                type(r.grad_fn).__name__))
                except RuntimeError as e:
                    out.append(str(e))
        res.append(out)
    assert res[1] == res[0]


def test_adjoint_and_H_of_a_complex_tensor_are_refused_not_unconjugated():
    z = vg.tensor([[1 + 2j, 3 - 1j], [0.5j, 2.0]])
    for f in (lambda: z.mH, lambda: z.H, lambda: vg.adjoint(z), lambda: z.adjoint()):
        with pytest.raises(RuntimeError, match="no conjugate bit"):
            f()
    np.testing.assert_array_equal(z.mT.conj_physical().numpy(), z.numpy().conj().T)
    np.testing.assert_allclose(vg.angle(z).numpy(), np.angle(z.numpy()), rtol=1e-6)


def test_new_empty_strided_and_the_statistics_methods():
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    x0 = rng.standard_normal((3, 5))
    res = []
    for M in (torch, vg):
        x = M.tensor(x0)
        e = x.new_empty_strided((2, 3), (1, 2))
        res.append((tuple(e.shape), e.stride(), str(e.dtype).split(".")[-1],
                    np.round(x.cov().numpy(), 12).tolist(),
                    np.round(x.cov(correction=0).numpy(), 12).tolist(),
                    np.round(x.corrcoef().numpy(), 12).tolist()))
    assert res[1] == res[0]


@pytest.mark.parametrize("prog", [
    "x = M.tensor([1., 2., 3.]); r = x.apply_(lambda a: a * 2)",
    "x = M.tensor([1, 2, 3]); r = x.apply_(lambda a: a / 2)",
    "x = M.tensor([True, False]); r = x.apply_(lambda a: not a)",
    "x = M.arange(6.).reshape(2, 3).t(); r = x.apply_(lambda a: a + 1)",
    "x = M.tensor([1., 2., 3.]); r = x.map_(M.tensor([10., 20., 30.]), lambda a, b: a + b)",
    "x = M.tensor([1., 2., 3.]); r = x.map_(M.tensor([10.]), lambda a, b: a * b)",
    "x = M.tensor([1., 2., 3.]); r = x.map2_(x, M.tensor([1.]), lambda a, b, c: a + b - c)",
    "x = M.tensor([1., 2.]); r = x.apply_(lambda a: 'a')",
    "x = M.tensor([1., 2.], requires_grad=True); r = x.apply_(lambda a: a)",
    "x = M.tensor([1., 2.], requires_grad=True) * 1; r = x.map_(x, lambda a, b: a)",
])
def test_python_maps_as_torch(prog):
    torch = torch_or_skip()
    res = []
    for M in (torch, vg):
        ns = {"M": M}
        try:
            exec(prog, ns)
            res.append((ns["r"] is ns["x"], ns["x"].tolist(), ns["x"]._version))
        except (RuntimeError, TypeError) as e:
            res.append((type(e).__name__, str(e)))
    assert res[1] == res[0]
