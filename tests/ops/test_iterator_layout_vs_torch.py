"""The layout of an elementwise result, against PyTorch's TensorIterator (Note [an
elementwise result's layout], viewgrad/layouts.py): random operands — transposed,
permuted, sliced with steps, expanded, unsqueezed, broadcast, mixed dtypes, Python
numbers — through the elementwise ops, in PyTorch and in viewgrad, and the result's
strides compared. Strides decide whether ``.view()`` works (``kron`` of two transposed
matrices is such a view), so they are behaviour."""
import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares strides with torch on the CPU")


def _layout(rng, shape):
    """A random recipe that turns a fresh row-major tensor into one of ``shape`` laid out
    otherwise: (stored shape, steps applied in both libraries)."""
    nd = len(shape)
    kind = rng.integers(0, 6)
    if kind == 0 or nd == 0:   # row-major as it is
        return shape, []
    if kind == 1 and nd >= 2:   # stored with its dims in a random order, permuted back
        perm = [int(p) for p in rng.permutation(nd)]
        inv = [perm.index(i) for i in range(nd)]
        return tuple(shape[p] for p in perm), [("permute", inv)]
    if kind == 2:   # every other element along one dim
        d = int(rng.integers(0, nd))
        stored = list(shape)
        stored[d] = 2 * shape[d]
        return tuple(stored), [("step", d)]
    if kind == 3 and 1 in shape:   # a size-1 dim made by unsqueeze
        d = shape.index(1)
        return shape[:d] + shape[d + 1:], [("unsqueeze", d)]
    if kind == 4 and nd >= 2:   # a transpose of the last two dims
        return shape[:-2] + (shape[-1], shape[-2]), [("transpose", (nd - 2, nd - 1))]
    if kind == 5 and 1 in shape:   # a dim of size 1 expanded to the same size: stride kept
        return shape, [("expand", shape)]
    return shape, []


def _make(M, data, steps, dtype):
    t = M.tensor(data, dtype=dtype)
    for name, arg in steps:
        if name == "permute":
            t = t.permute(*arg)
        elif name == "step":
            idx = [slice(None)] * t.dim()
            idx[arg] = slice(None, None, 2)
            t = t[tuple(idx)]
        elif name == "unsqueeze":
            t = t.unsqueeze(arg)
        elif name == "transpose":
            t = t.transpose(*arg)
        elif name == "expand":
            t = t.expand(*arg)
    return t


def _operand(rng, out_shape):
    """A shape broadcasting to ``out_shape``: some dims 1, perhaps fewer dims."""
    shape = [s if rng.random() < 0.7 else 1 for s in out_shape]
    drop = int(rng.integers(0, len(shape))) if rng.random() < 0.3 else 0
    return tuple(shape[drop:])


OPS = {
    "add": lambda M, a, b: a + b,
    "mul": lambda M, a, b: a * b,
    "sub": lambda M, a, b: M.sub(a, b, alpha=2),
    "div": lambda M, a, b: a / b,
    "maximum": lambda M, a, b: M.maximum(a, b),
    "atan2": lambda M, a, b: M.atan2(a, b),
    "number_first": lambda M, a, b: 2.5 - a + b * 0.5,
    "where": lambda M, a, b: M.where(a > b, a, b),
    "where_cond_first": lambda M, a, b: M.where(b > 0, a, 1.5),
    "addcmul": lambda M, a, b: M.addcmul(a, a, b, value=0.5),
    "addcmul_third": lambda M, a, b: M.addcmul(b * 1.0, a, b.t() if b.dim() == 2 else b),
    "lerp": lambda M, a, b: M.lerp(a, b, 0.25),
    "lerp_tensor": lambda M, a, b: M.lerp(a, b, b * 0.5),
    "gt": lambda M, a, b: a > b,
    "eq_number": lambda M, a, b: (a + b) == 0.5,
    "logical_and": lambda M, a, b: M.logical_and(a > 0, b),
    "bitwise_and": lambda M, a, b: (a > 0) & (b < 0),
    "bitwise_or_ints": lambda M, a, b: M.bitwise_or(a, b),
    "to_then_and": lambda M, a, b: (a > 0).to(M.int32) & (b < 0).to(M.int32),
    "clone": lambda M, a, b: a.clone() + b.clone(),
    "clone_alone": lambda M, a, b: a.clone(),
    "to_alone": lambda M, a, b: b.to(M.float32),
    "flip_alone": lambda M, a, b: a.flip(0),
    "sort_alone": lambda M, a, b: a.sort(-1)[0],
    "mixed_dtypes_where": lambda M, a, b: M.where(b > 0, a.to(M.float32), b),
    "number_tensor": lambda M, a, b: a * M.tensor(2.0, dtype=a.dtype) + b,
}


def _case(seed):
    rng = np.random.default_rng(seed)
    nd = int(rng.integers(2, 5))
    out = tuple(int(s) for s in rng.integers(1, 4, nd))
    shapes = [out, _operand(rng, out)]
    if rng.random() < 0.5:
        shapes.reverse()   # the broadcast operand first, sometimes
    recipes = [_layout(rng, s) for s in shapes]
    datas = [rng.standard_normal(st) for st, _ in recipes]
    dts = ["float64", "float64"] if rng.random() < 0.7 else ["float32", "float64"]
    return recipes, datas, dts


def _ints(recipes, datas, dts):
    return recipes, [np.round(d * 8) for d in datas], ["int64", "int32"]


def _run(M, recipes, datas, dts, op):
    a, b = (_make(M, d, steps, getattr(M, dt)) for (_, steps), d, dt in zip(recipes, datas, dts))
    return OPS[op](M, a, b)


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("block", range(4))
def test_an_elementwise_result_is_laid_out_as_tensoriterator_lays_it_out(op, block):
    checked = 0
    for seed in range(block * 60, block * 60 + 60):
        recipes, datas, dts = _case(seed)
        if op == "bitwise_or_ints":
            recipes, datas, dts = _ints(recipes, datas, dts)
        try:
            want = _run(torch, recipes, datas, dts, op)
        except RuntimeError:
            continue   # (shapes that do not broadcast the way round this op takes them)
        got = _run(vg, recipes, datas, dts, op)
        assert tuple(got.shape) == tuple(want.shape)
        assert tuple(got.stride()) == tuple(want.stride()), (seed, recipes, dts)
        if op == "clone_alone":   # (a copy laid out afresh owns its memory, as torch's)
            assert got._data.flags.owndata or got._data.base.base is None
        assert got.is_contiguous() == want.is_contiguous()
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-12)
        checked += 1
    assert checked > 30


def test_kron_of_two_transposed_matrices_as_pytorchs():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((4, 2))
    outs = []
    for M in (torch, vg):
        x = M.tensor(a, requires_grad=True)
        y = M.tensor(b, requires_grad=True)
        k = M.kron(x.t(), y.t())
        (k * k).sum().backward()
        outs.append((k.detach().numpy(), tuple(k.stride()), x.grad.numpy(), y.grad.numpy()))
    (kt, st, gxt, gyt), (kv, sv, gxv, gyv) = outs
    np.testing.assert_allclose(kv, kt)
    assert sv == st
    np.testing.assert_allclose(gxv, gxt)
    np.testing.assert_allclose(gyv, gyt)


def test_the_same_shapes_take_tensoriterators_fast_set_up():
    rng = np.random.default_rng(6)
    base = rng.standard_normal((2, 3, 4, 5))
    cases = {
        "both channels_last": lambda M, t: t.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),
        "both permuted alike": lambda M, t: t.permute(2, 0, 3, 1).contiguous().permute(1, 3, 0, 2),
        "transposed and row-major": lambda M, t: t.transpose(0, 3).contiguous().transpose(0, 3),
    }
    for name, make in cases.items():
        got = want = None
        for M in (torch, vg):
            x = make(M, M.tensor(base))
            y = make(M, M.tensor(base * 2)) if name != "transposed and row-major" else \
                M.tensor(base * 2)
            r = x + y
            if M is torch:
                want = tuple(r.stride())
            else:
                got = tuple(r.stride())
        assert got == want, name


_LAYOUTS = {
    "row-major": lambda M, t: t,
    "transposed": lambda M, t: t.t(),
    "stepped": lambda M, t: t[:, ::3],
    "permuted": lambda M, t: t.reshape(2, 3, 12).permute(2, 0, 1),
    "expanded": lambda M, t: t[:1].expand(4, 12),
    # a size-1 dim that keeps its stride (NumPy's reshape renumbered it: fuzz-found)
    "narrowed to one column": lambda M, t: t.narrow(1, 0, 1),
    "one row": lambda M, t: t[2:3],
}


@pytest.mark.parametrize("layout", sorted(_LAYOUTS))
def test_a_new_size_1_dim_has_pytorchs_stride(layout):
    # inferUnsqueezeGeometry: 1 at the end, else size times stride of the dim it precedes
    # (NumPy's reshape picks another for a transposed array); unsqueeze, x[:, None] and
    # unsqueeze_ alike, and an elementwise op of the result keeps it
    d = np.random.default_rng(7).standard_normal((6, 12))
    make = _LAYOUTS[layout]
    forms = [(f"unsqueeze({k})", lambda M, x, k=k: x.unsqueeze(k)) for k in range(-3, 3)]
    forms += [("[:, None]", lambda M, x: x[:, None]), ("[..., None]", lambda M, x: x[..., None]),
              ("unsqueeze(-1) * 2", lambda M, x: x.unsqueeze(-1) * 2.0),
              ("unsqueeze(-1).exp()", lambda M, x: x.unsqueeze(-1).exp()),
              ("vg.tanh(unsqueeze(1))", lambda M, x: M.tanh(x.unsqueeze(1))),
              ("unsqueeze(0).abs()", lambda M, x: x.unsqueeze(0).abs()),
              ("(unsqueeze(-1) * 1.0).relu(), with a history",
               lambda M, x: (x.unsqueeze(-1).requires_grad_() * 1.0).relu()),
              ("unsqueeze_(-1)", lambda M, x: x.clone().unsqueeze_(-1))]
    for name, form in forms:
        want, got = (tuple(form(M, make(M, M.tensor(d))).stride()) for M in (torch, vg))
        assert got == want, (layout, name)


_VIEWED = dict(_LAYOUTS, **{
    "a column": lambda M, t: t[:, :1],
    "a row": lambda M, t: t[:1],
    "a transposed column": lambda M, t: t[:, :1].t(),
    "unsqueezed": lambda M, t: t.t().unsqueeze(1),
})


def _new_shapes(s):
    n = int(np.prod(s))
    squeezed = tuple(x for x in s if x != 1) or (1,)
    return [s + (1,), (1,) + s, s[:1] + (1,) + s[1:], squeezed, (1, 1) + s,
            s[:1] + (1, 1) + s[1:], (-1,), (n,), (n, 1), (1, n)]


@pytest.mark.parametrize("layout", sorted(_VIEWED))
@pytest.mark.parametrize("method", ["view", "reshape"])
def test_a_view_has_pytorchs_strides(layout, method):
    # computeStride (layouts.view_strides): a new size-1 dim of a tensor that is not
    # row-major gets its stride from its place in the chunk; the same refusals
    d = np.random.default_rng(8).standard_normal((6, 12))
    make = _VIEWED[layout]
    for shape in _new_shapes(tuple(make(torch, torch.tensor(d)).shape)):
        outs = []
        for M in (torch, vg):
            x = make(M, M.tensor(d))
            try:
                y = getattr(x, method)(*shape)
                outs.append((tuple(y.stride()), y.is_contiguous(), y._base is not None))
            except RuntimeError as e:
                outs.append(("refused", "view size is not compatible" in str(e)))
        assert outs[1] == outs[0], (layout, method, shape)
