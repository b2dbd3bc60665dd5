"""Saved arguments shown as PyTorch shows them, where viewgrad kept something else: slices'
start and end as given, split sizes, the source's dimension of index_add/index_copy, the
dims of diag, as_strided's offset when not given, padding, and nodes that must not save
a tensor (ToCopyBackward0): each case against torch 2.13, with values and gradients."""
from __future__ import annotations

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("runs the same programs in torch on the CPU")


def _saved(fn):
    out = {}
    for a in sorted(x for x in dir(fn) if x.startswith("_saved_")):
        v = getattr(fn, a)
        if hasattr(v, "shape") and not isinstance(v, tuple):
            v = ("tensor", tuple(v.shape))
        elif isinstance(v, tuple) and v and hasattr(v[0], "shape"):
            v = tuple(("tensor", tuple(t.shape)) for t in v)
        out[a] = v
    return type(fn).__name__, out


def _both(program):
    """(torch's node and attributes, viewgrad's) of ``program(lib, x)``'s grad_fn, where x
    is the same (3, 4) float64 non-leaf in each."""
    torch = torch_or_skip()
    x0 = np.random.default_rng(0).standard_normal((3, 4))
    res = []
    for lib in (torch, vg):
        x = lib.tensor(x0, requires_grad=True) * 1
        res.append(_saved(program(lib, x).grad_fn))
    return res


SLICES = ["x[1:]", "x[::2]", "x[-3:-1]", "x[:-1]", "x[5:10]", "x[-10:2]", "x[1:2:3]",
          "x[:, 1:]", "x[..., -2:]", "x[0:0]", "x.narrow(1, 1, 2)", "x.narrow(-1, -2, 2)",
          "x[1:, 2:3]", "x[2:1]", "x[:, None, 1:]", "x[:]", "x[:, -1:]", "x.tensor_split(3, 1)[1]"]


@pytest.mark.parametrize("expr", SLICES)
def test_slice_keeps_start_and_end_as_given(expr):
    t, v = _both(lambda lib, x: eval(expr))
    assert v == t


@pytest.mark.parametrize("expr", ["x[1:]", "x[-3:-1]", "x[::2]", "x[5:10]", "x[:, -2:]"])
def test_slice_gradients_unchanged(expr):
    torch = torch_or_skip()
    x0 = np.random.default_rng(1).standard_normal((3, 4))
    grads = []
    for lib in (torch, vg):
        x = lib.tensor(x0, requires_grad=True)
        y = eval(expr, {"x": x * 2})
        (y * y).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0])


SPLITS = ["x.split(2, 1)[0]", "x.split(3, 0)[0]", "x.split([1, 3], 1)[1]", "x.chunk(3, 1)[0]",
          "x.chunk(2, 0)[1]", "x.unsafe_split(2, 1)[0]", "x.unsafe_chunk(2, 1)[1]",
          "x.unbind(1)[2]", "x.unbind(0)[0]", "x.split(2, -1)[0]", "x[:0].chunk(3, 0)[0]",
          "x[:0].split(2, 0)[0]"]


@pytest.mark.parametrize("expr", SPLITS)
def test_split_nodes_show_what_torch_shows(expr):
    t, v = _both(lambda lib, x: eval(expr))
    assert v == t


@pytest.mark.parametrize("op", ["index_add", "index_copy"])
@pytest.mark.parametrize("source_grad", [False, True])
def test_index_add_and_copy_save_the_source_dim(op, source_grad):
    def prog(lib, x):
        s = lib.ones(3, 2, dtype=lib.float64, requires_grad=source_grad) * 1
        return getattr(x, op)(1, lib.tensor([0, 2]), s)
    t, v = _both(prog)
    assert v == t


@pytest.mark.parametrize("values_grad", [False, True])
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_shows_indices_and_accumulate_only(values_grad, accumulate):
    def prog(lib, x):
        vals = lib.ones(2, 4, dtype=lib.float64, requires_grad=values_grad) * 1
        return x.index_put((lib.tensor([0, 2]),), vals, accumulate=accumulate)
    t, v = _both(prog)
    assert v == t


@pytest.mark.parametrize("expr", ["lib.diag(x[0])", "lib.diag(x[0], 1)", "lib.diagflat(x[0])",
                                  "lib.diagflat(x[:1])", "lib.diag_embed(x, dim1=0, dim2=2)",
                                  "lib.diag_embed(x, 1, -1, 0)", "lib.diag_embed(x)"])
def test_diag_embed_keeps_dims_as_given(expr):
    t, v = _both(lambda lib, x: eval(expr))
    assert v == t


@pytest.mark.parametrize("expr", ["x.as_strided((2, 2), (1, 2))", "x.as_strided((2, 2), (1, 2), 1)",
                                  "x.clone().as_strided_((2, 2), (1, 2))",
                                  "x.clone().as_strided_((2, 2), (1, 2), 3)",
                                  "x[1:].as_strided((2,), (1,))"])
def test_as_strided_offset_as_given(expr):
    t, v = _both(lambda lib, x: eval(expr))
    assert v == t


def test_regenerated_view_shows_its_offset():
    def prog(lib, x):
        v = x[1]
        v.mul_(2)
        return v
    t, v = _both(prog)
    assert v == t


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape,pad", [((2, 4, 6), (1, 2)), ((1, 2, 4, 6), (1, 2, 0, 1)),
                                       ((1, 1, 3, 4, 5), (1, 1, 1, 1, 1, 1))])
def test_pad_nodes_show_the_padding(mode, shape, pad):
    torch = torch_or_skip()
    x0 = np.random.default_rng(2).standard_normal(shape)
    res = []
    for lib in (torch, vg):
        x = lib.tensor(x0, requires_grad=True)
        y = lib.nn.functional.pad(x, pad, mode=mode)
        gy = lib.tensor(np.arange(np.prod(tuple(y.shape)), dtype=np.float64).reshape(
            tuple(y.shape)), requires_grad=True)
        g, = lib.autograd.grad(y, x, gy, create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), gy)
        res.append((_saved(y.grad_fn), _saved(g.grad_fn), g.detach().numpy(),
                    gg.detach().numpy()))
    assert res[1][:2] == res[0][:2]
    np.testing.assert_allclose(res[1][2], res[0][2])
    np.testing.assert_allclose(res[1][3], res[0][3])


def test_to_copy_does_not_save_its_source():
    """PyTorch's ToCopyBackward0 keeps only the source's options: modifying the source in
    place after ``.double()`` is fine at backward."""
    torch = torch_or_skip()
    grads = []
    for lib in (torch, vg):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 1
        z = y.double()
        y.mul_(2)
        (z * z).sum().backward()
        assert type(z.grad_fn).__name__ == "ToCopyBackward0"
        assert _saved(z.grad_fn)[1] == {}
        grads.append((x.grad.numpy(), str(x.grad.dtype).split(".")[-1]))
    np.testing.assert_allclose(grads[1][0], grads[0][0])
    assert grads[1][1] == grads[0][1]


def test_to_copy_double_backward_casts_back():
    x = vg.tensor([1.0, -2.0], dtype=vg.float64, requires_grad=True)
    z = (x * x).to(vg.float32)
    g, = vg.autograd.grad(z.sum(), x, create_graph=True)
    assert g.dtype == vg.float64
    gg, = vg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [2.0, 2.0])


def _graph(fn, depth=0):
    if fn is None or depth > 6:
        return ""
    kids = [_graph(n, depth + 1) for n, _ in fn.next_functions if n is not None]
    return type(fn).__name__ + ("(" + ",".join(kids) + ")" if kids else "")


@pytest.mark.parametrize("sa,sb,dims", [((3,), (3,), 1), ((1,), (1,), 1), ((0,), (0,), 1),
                                        ((3,), (3, 4), 1), ((4, 3), (3,), 1)])
def test_tensordot_of_vectors_is_dot_as_torch(sa, sb, dims):
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    a0, b0 = rng.standard_normal(sa), rng.standard_normal(sb)
    res = []
    for lib in (torch, vg):
        a = lib.tensor(a0, requires_grad=True)
        b = lib.tensor(b0, requires_grad=True)
        r = lib.tensordot(a, b, dims=dims)
        r.sum().backward()
        res.append((_graph(r.grad_fn), _saved(r.grad_fn), r.detach().numpy(),
                    a.grad.numpy(), b.grad.numpy()))
    assert res[1][:2] == res[0][:2]
    for i in (2, 3, 4):
        np.testing.assert_allclose(res[1][i], res[0][i], rtol=1e-12, atol=1e-12)


def test_inner_of_vectors_gradgradcheck():
    rng = np.random.default_rng(4)
    a = vg.tensor(rng.standard_normal(4), requires_grad=True)
    b = vg.tensor(rng.standard_normal(4), requires_grad=True)
    assert vg.autograd.gradcheck(vg.inner, (a, b))
    assert vg.autograd.gradgradcheck(vg.inner, (a, b))
