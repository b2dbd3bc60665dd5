"""Tensor methods PyTorch has that were missing: ``addmm`` / ``addmm_``, ``cumsum_`` /
``cumprod_``, the in-place spellings ``fix_`` and ``arc*_``, and the small attributes
``ndimension()``, ``itemsize``, ``nbytes``, ``is_cpu``, ``get_device()``, ``short()``.
Values, gradients and node names against torch."""
import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares with torch on the CPU")

CASES = {
    "addmm": lambda y, m, n: y.addmm(m, n, alpha=3),
    "addmm_beta": lambda y, m, n: y.addmm(m, n, beta=0.5, alpha=2),
    "addmm_": lambda y, m, n: y.addmm_(m, n, beta=0.5, alpha=2),
    "addmm_on_view": lambda y, m, n: _on_view(y, lambda v: v.addmm_(m, n[:, :3])),
    "cumsum_": lambda y, m, n: y.cumsum_(1),
    "cumprod_": lambda y, m, n: y.cumprod_(0),
    "cumsum_neg_dim": lambda y, m, n: y.cumsum_(-1),
    "fix_": lambda y, m, n: y.mul_(3).fix_(),
    "arcsin_": lambda y, m, n: y.mul_(0.3).arcsin_(),
    "arccos_": lambda y, m, n: y.mul_(0.3).arccos_(),
    "arctan_": lambda y, m, n: y.arctan_(),
}


def _on_view(base, op):
    op(base[:, :3])
    return base


REFUSED = {   # PyTorch records these as <Op>Backward1 nodes whose backward refuses
    "asinh_": lambda y: y.asinh_(), "arcsinh_": lambda y: y.arcsinh_(),
    "acosh_": lambda y: y.abs_().add_(1.5).acosh_(),
    "arccosh_": lambda y: y.abs_().add_(1.5).arccosh_(),
    "atanh_": lambda y: y.mul_(0.3).atanh_(), "arctanh_": lambda y: y.mul_(0.3).arctanh_(),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_inverse_hyperbolic_in_place_refuses_backward(case):
    got = []
    for lib in (vg, torch):
        x = lib.tensor([0.1, 0.2, 0.3], requires_grad=True)
        y = REFUSED[case](x * 1)
        with pytest.raises(NotImplementedError) as e:
            y.sum().backward()
        got.append((y.grad_fn.name(), str(e.value), np.asarray(y.tolist())))
        with lib.no_grad():   # no graph: values only
            REFUSED[case](lib.tensor([0.1, 0.2, 0.3]))
    assert got[0][:2] == got[1][:2]
    np.testing.assert_allclose(got[0][2], got[1][2], rtol=1e-6)
    assert vg.tensor([0.5]).asinh().grad_fn is None   # (and out of place they differentiate)
    x = vg.tensor([0.5], requires_grad=True)
    x.asinh().sum().backward()
    assert x.grad is not None


@pytest.mark.parametrize("case", list(CASES))
def test_method_matches_torch(case):
    rng = np.random.default_rng(5)
    a0, m0, n0 = rng.standard_normal((3, 4)), rng.standard_normal((3, 2)), \
        rng.standard_normal((2, 4))
    res = []
    for lib in (vg, torch):
        a, m, n = (lib.tensor(v, requires_grad=True) for v in (a0, m0, n0))
        out = CASES[case](a * 1, m, n)
        out.sum().backward()
        res.append((out.grad_fn.name().split("::")[-1], np.asarray(out.tolist()),
                    [np.asarray(t.grad.tolist()) if t.grad is not None else None
                     for t in (a, m, n)]))
    assert res[0][0] == res[1][0]
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-12, atol=1e-12)
    for g, h in zip(res[0][2], res[1][2]):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_allclose(g, h, rtol=1e-12, atol=1e-12)


def test_small_attributes():
    for shape, dt in (((2, 3), "float32"), ((), "float64"), ((4, 0), "int16")):
        a, b = vg.zeros(shape, dtype=getattr(vg, dt)), torch.zeros(shape, dtype=getattr(torch, dt))
        assert (a.ndimension(), a.itemsize, a.nbytes, a.is_cpu, a.get_device()) == \
            (b.ndimension(), b.itemsize, b.nbytes, b.is_cpu, b.get_device())
        assert str(a.short().dtype).split(".")[-1] == str(b.short().dtype).split(".")[-1]


def test_addmm_in_place_refuses_a_wrong_shape():
    with pytest.raises(RuntimeError, match=r"\[2, 3\].*\[2, 2\]"):
        vg.ones(2, 2).addmm_(vg.ones(2, 3), vg.ones(3, 3))


def test_sgn_is_its_own_node():
    """torch.sgn records SgnBackward0, saving self and the result: the input modified in
    place before backward is refused, as in PyTorch (sign saves nothing)."""
    for lib in (vg, torch):
        x = lib.tensor([-2.0, 0.0, 3.0], requires_grad=True)
        for make in (lambda h: h.sgn(), lambda h: lib.sgn(h), lambda h: h.sgn_()):
            h = x * 1
            y = make(h)
            assert y.grad_fn.name() == "SgnBackward0"
            if y is not h:
                with lib.no_grad():
                    h.mul_(2)
                with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                    y.sum().backward()


def test_unsafe_split_and_chunk():
    """One UnsafeSplitBackward0 for all pieces; the pieces are not views to autograd, so
    modifying one in place is allowed (split's pieces refuse it), as in PyTorch."""
    rng = np.random.default_rng(8)
    a0 = rng.standard_normal((2, 7))
    res = []
    for lib in (vg, torch):
        a = lib.tensor(a0, requires_grad=True)
        pieces = (a * 1).unsafe_chunk(3, 1)
        more = (a * 1).unsafe_split(3, 1)
        pieces[1].mul_(2)
        out = sum((p * (i + 1)).sum() for i, p in enumerate(pieces + more))
        out.backward()
        res.append(([p.grad_fn.name() for p in pieces], [tuple(p.shape) for p in pieces + more],
                    np.asarray(a.grad.tolist())))
    assert res[0][:2] == res[1][:2]
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-12)
