"""grid_sample and affine_grid (viewgrad/ops/grid_sample.py) against PyTorch: values and
gradients for input and grid in every mode x padding_mode x align_corners, points outside
[-1, 1], exactly on pixel centres and edges, nearest's ties (half to even), NaN points,
second derivatives, node names and saved values, errors and warnings; gradcheck in
float64."""
import itertools
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .numpy()")

MODES = {2: ("bilinear", "nearest", "bicubic"), 3: ("bilinear", "nearest")}
PADS = ("zeros", "border", "reflection")
COMBOS = [(nd, m, p, a) for nd in (2, 3) for m in MODES[nd] for p in PADS for a in (False, True)]
IDS = [f"{nd}d-{m}-{p}-{'ac' if a else 'noac'}" for nd, m, p, a in COMBOS]


def _np(t):
    return t.detach().numpy()


def _tol(dtype):
    return dict(rtol=2e-5, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)


def _case(nd, rng, dtype):
    """A random input, and grid points: random ones in [-1.6, 1.6] (outside the image too)
    and the corners' and edges' own coordinates."""
    shape = (2, 3, 4, 5) if nd == 2 else (2, 2, 3, 4, 5)
    x = rng.standard_normal(shape).astype(dtype)
    pts = rng.uniform(-1.6, 1.6, (2, 14, nd))
    special = np.array(list(itertools.product((-1.0, 1.0, 0.0, -1.25), repeat=nd)))[:6]
    grid = np.concatenate([pts, np.broadcast_to(special, (2,) + special.shape)], 1)
    grid = grid.reshape((2, 4, 5, nd) if nd == 2 else (2, 2, 2, 5, nd)).astype(dtype)
    return x, grid


def _sample(M, x, g, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return M.nn.functional.grid_sample(x, g, *args, **kw)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("nd,mode,pad,align", COMBOS, ids=IDS)
def test_values_and_gradients(nd, mode, pad, align, dtype):
    torch = torch_or_skip()
    rng = np.random.default_rng(hash((nd, mode, pad, align)) % 2 ** 32)
    x, g = _case(nd, rng, dtype)
    kw = dict(mode=mode, padding_mode=pad, align_corners=align)
    tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
    ty = _sample(torch, tx, tg, **kw)
    go = rng.standard_normal(tuple(ty.shape)).astype(dtype)
    tgx, tgg = torch.autograd.grad(ty, (tx, tg), torch.tensor(go))
    vx, vgr = vg.tensor(x, requires_grad=True), vg.tensor(g, requires_grad=True)
    y = _sample(vg, vx, vgr, **kw)
    assert y.dtype == vg.float32 if dtype == np.float32 else vg.float64
    assert tuple(y.shape) == tuple(ty.shape) and y.is_contiguous()
    np.testing.assert_allclose(_np(y), _np(ty), **_tol(dtype))
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
    n = y.grad_fn
    assert (n._saved_interpolation_mode, n._saved_padding_mode, n._saved_align_corners) == (
        ty.grad_fn._saved_interpolation_mode, ty.grad_fn._saved_padding_mode, align)
    assert n._saved_input is vx and n._saved_grid is vgr
    # a plain backward (the array kernels) and one that builds a graph (the formulas)
    for create_graph in (False, True):
        gx, gg = vg.autograd.grad(y, (vx, vgr), vg.tensor(go), retain_graph=True,
                                  create_graph=create_graph)
        np.testing.assert_allclose(_np(gx), _np(tgx), **_tol(dtype))
        np.testing.assert_allclose(_np(gg), _np(tgg), **_tol(dtype))


@pytest.mark.parametrize("nd,mode,pad,align", COMBOS, ids=IDS)
def test_pixel_centres_edges_and_ties(nd, mode, pad, align):
    """Every point on a 1/8 lattice over [-2.5, 2.5]: on the sizes below the source
    coordinates land exactly on pixel centres, edges and the halfway points between (nearest's
    ties, rounded half to even), and on the reflection and clip borders (the gradients'
    kinks, where PyTorch's conventions decide)."""
    torch = torch_or_skip()
    rng = np.random.default_rng(7)
    lattice = np.arange(-2.5, 2.5001, 1 / 8)
    sizes = [(4, 8), (5, 3), (1, 4), (2, 2)] if nd == 2 else [(2, 4, 3), (1, 5, 2)]
    axes = [lattice] * 2 if nd == 2 else [lattice, lattice[::3], lattice[::5]]
    pts = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape((1, -1) + (1,) * (nd - 1)
                                                                   + (nd,))
    for size, dtype in itertools.product(sizes, (np.float32, np.float64)):
        x = rng.standard_normal((1, 2) + size).astype(dtype)
        g = pts.astype(dtype)
        kw = dict(mode=mode, padding_mode=pad, align_corners=align)
        tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
        ty = _sample(torch, tx, tg, **kw)
        go = rng.standard_normal(tuple(ty.shape)).astype(dtype)
        tgx, tgg = torch.autograd.grad(ty, (tx, tg), torch.tensor(go))
        vx, vgr = vg.tensor(x, requires_grad=True), vg.tensor(g, requires_grad=True)
        y = _sample(vg, vx, vgr, **kw)
        gx, gg = vg.autograd.grad(y, (vx, vgr), vg.tensor(go))
        if mode == "nearest":
            np.testing.assert_array_equal(_np(y), _np(ty))   # the same pixel every time
            np.testing.assert_array_equal(_np(gg), 0)
        else:
            np.testing.assert_allclose(_np(y), _np(ty), **_tol(dtype))
        # (the input gradient sums ~1700 points into a few pixels: float32 sums differ)
        tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else _tol(dtype)
        np.testing.assert_allclose(_np(gx), _np(tgx), **tol)
        np.testing.assert_allclose(_np(gg), _np(tgg), **tol)


@pytest.mark.parametrize("nd,mode,pad,align", COMBOS, ids=IDS)
def test_second_derivatives(nd, mode, pad, align):
    """Double backward through both gradients, into the input, the grid and the incoming
    gradient (PyTorch's GridSampler2DBackwardBackward0 / 3D)."""
    torch = torch_or_skip()
    rng = np.random.default_rng(11)
    x, g = _case(nd, rng, np.float64)
    go = rng.standard_normal((x.shape[0], x.shape[1]) + g.shape[1:-1])
    w1, w2 = rng.standard_normal(x.shape), rng.standard_normal(g.shape)

    def run(M):
        tx, tg = M.tensor(x, requires_grad=True), M.tensor(g, requires_grad=True)
        tgo = M.tensor(go, requires_grad=True)
        y = _sample(M, tx, tg, mode=mode, padding_mode=pad, align_corners=align)
        a, b = M.autograd.grad(y, (tx, tg), tgo, create_graph=True)
        s = (a * M.tensor(w1)).sum() + (b * M.tensor(w2)).sum()
        if not s.requires_grad:
            return [np.zeros(x.shape), np.zeros(g.shape), np.zeros(go.shape)]
        r = M.autograd.grad(s, (tx, tg, tgo), allow_unused=True)
        return [np.zeros(v.shape) if t is None else _np(t) for t, v in zip(r, (x, g, go))]

    for mine, theirs in zip(run(vg), run(torch)):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-9)


SMOOTH = [(nd, m, p, a) for nd, m, p, a in COMBOS if m != "nearest"]


@pytest.mark.parametrize("nd,mode,pad,align", SMOOTH,
                         ids=[f"{nd}d-{m}-{p}-{a}" for nd, m, p, a in SMOOTH])
def test_gradcheck(nd, mode, pad, align):
    """float64 gradcheck and gradgradcheck at random points (away from the kinks: the
    points are drawn so that no source coordinate is within 1e-3 of a pixel boundary)."""
    rng = np.random.default_rng(3)
    shape = (1, 2, 3, 4) if nd == 2 else (1, 1, 2, 3, 3)
    x = rng.standard_normal(shape)
    g = rng.uniform(-1.3, 1.3, (1, 2, 3, nd) if nd == 2 else (1, 2, 1, 2, nd))
    sizes = shape[2:][::-1]                        # W, H[, D]: the grid's x, y[, z]
    for j, size in enumerate(sizes):
        c = (g[..., j] + 1) * (size - 1) / 2 if align else ((g[..., j] + 1) * size - 1) / 2
        off = c - np.round(c * 2) / 2              # distance to the nearest half pixel
        c = np.where(np.abs(off) < 1e-3, c + 0.1, c)
        g[..., j] = 2 * c / (size - 1) - 1 if align else (2 * c + 1) / size - 1
    xs = vg.tensor(x, requires_grad=True)
    gs = vg.tensor(g, requires_grad=True)

    def f(a, b):
        return vg.nn.functional.grid_sample(a, b, mode=mode, padding_mode=pad,
                                            align_corners=align)
    assert vg.autograd.gradcheck(f, (xs, gs))
    assert vg.autograd.gradgradcheck(f, (xs, gs))


def test_nan_points_as_torch():
    """A NaN coordinate: clipped to 0 by the vectorized (4-D) kernel, to the last pixel by
    the scalar (5-D) one, skipped by the 5-D kernel with zeros padding."""
    torch = torch_or_skip()
    x = np.arange(1, 1 + 2 * 3 * 4 * 5, dtype=np.float32).reshape(1, 2, 3, 4, 5)
    pts = np.array([np.nan, 0.3, 0.2, 0.1, np.nan, 0.4, np.nan, np.nan, np.nan, 0.5, 0.5, 0.5],
                   dtype=np.float32).reshape(4, 3)
    for nd in (2, 3):
        xx = x[:, 0] if nd == 2 else x
        g = np.ascontiguousarray(pts[:, :nd].reshape((1, 1, 4, nd) if nd == 2 else
                                                     (1, 1, 1, 4, nd)))
        for mode, pad in itertools.product(MODES[nd], PADS):
            kw = dict(mode=mode, padding_mode=pad, align_corners=False)
            want = _np(_sample(torch, torch.tensor(xx), torch.tensor(g), **kw))
            got = _np(_sample(vg, vg.tensor(xx), vg.tensor(g), **kw))
            np.testing.assert_allclose(got, want, rtol=1e-5, equal_nan=True)


def test_spatial_transformer_vs_torch():
    """affine_grid into grid_sample: the gradient reaches theta through both nodes."""
    torch = torch_or_skip()
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 5, 6))
    theta = np.array([[[0.9, 0.2, 0.1], [-0.3, 1.1, 0.05]], [[1.2, 0, -0.2], [0.1, 0.8, 0.3]]])
    outs = []
    for M in (vg, torch):
        tx, th = M.tensor(x, requires_grad=True), M.tensor(theta, requires_grad=True)
        grid = M.nn.functional.affine_grid(th, (2, 3, 4, 7), align_corners=False)
        y = M.nn.functional.grid_sample(tx, grid, mode="bicubic", padding_mode="reflection",
                                        align_corners=False)
        outs.append([_np(y)] + [_np(t) for t in M.autograd.grad((y * y).sum(), (tx, th))])
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("align", [False, True])
def test_affine_grid_vs_torch(nd, align):
    torch = torch_or_skip()
    rng = np.random.default_rng(nd + 2 * align)
    sizes = [(2, 3, 4, 5), (2, 1, 1, 5), (2, 3, 4, 1)] if nd == 2 else \
        [(2, 3, 2, 4, 5), (2, 1, 1, 3, 2)]
    for size, dtype in itertools.product(sizes, (np.float32, np.float64)):
        theta = rng.standard_normal((2, nd, nd + 1)).astype(dtype)
        res = []
        for M in (vg, torch):
            th = M.tensor(theta, requires_grad=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = M.nn.functional.affine_grid(th, size, align_corners=align)
            go = M.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)),
                          dtype=out.dtype, requires_grad=True)
            gth, = M.autograd.grad(out, th, go, create_graph=True)
            ggo, = M.autograd.grad((gth * gth).sum(), go)
            res.append((out, gth, ggo))
        (o, g1, g2), (to, tg1, tg2) = res
        assert o.dtype == (vg.float32 if dtype == np.float32 else vg.float64)
        assert type(o.grad_fn).__name__ == type(to.grad_fn).__name__
        assert o.grad_fn._saved_size == to.grad_fn._saved_size
        assert o.grad_fn._saved_align_corners == to.grad_fn._saved_align_corners
        tol = _tol(dtype)
        for a, b in ((o, to), (g1, tg1), (g2, tg2)):
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_allclose(_np(a), _np(b), **tol)


def test_empty_sizes_vs_torch():
    torch = torch_or_skip()
    for xs, gs in [((2, 0, 3, 4), (2, 5, 6, 2)), ((0, 3, 3, 4), (0, 5, 6, 2)),
                   ((2, 3, 3, 4), (2, 0, 6, 2)), ((1, 0, 2, 2, 2), (1, 1, 2, 3, 3))]:
        res = []
        for M in (vg, torch):
            x = M.zeros(xs, dtype=M.float64, requires_grad=True)
            g = M.zeros(gs, dtype=M.float64, requires_grad=True)
            y = _sample(M, x, g, align_corners=False)
            a, b = M.autograd.grad(y.sum(), (x, g))
            res.append((tuple(y.shape), tuple(a.shape), _np(b)))
        assert res[0][:2] == res[1][:2]
        np.testing.assert_array_equal(res[0][2], res[1][2])


def test_modified_grid_fails_backward():
    """The grid is saved: writing into it before backward fails, as in PyTorch."""
    x = vg.randn(1, 1, 3, 3, requires_grad=True)
    g = vg.rand(1, 2, 2, 2) * 2 - 1
    y = vg.nn.functional.grid_sample(x, g, align_corners=True)
    g.mul_(0.5)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def _errors(F, M):
    x = M.randn(2, 3, 4, 5)
    g = M.rand(2, 6, 7, 2) * 2 - 1
    x5, g5 = M.randn(2, 3, 4, 5, 6), M.rand(2, 1, 6, 7, 3)
    th = M.randn(2, 2, 3)
    return {
        "mode": lambda: F.grid_sample(x, g, mode="bicubicx", align_corners=False),
        "mode number": lambda: F.grid_sample(x, g, mode=3, align_corners=False),
        "padding": lambda: F.grid_sample(x, g, padding_mode="foo", align_corners=False),
        "bicubic 5-D": lambda: F.grid_sample(x5, g5, mode="bicubic", align_corners=False),
        "batch": lambda: F.grid_sample(x, M.rand(3, 6, 7, 2), align_corners=False),
        "last dim": lambda: F.grid_sample(x, M.rand(2, 6, 7, 3), align_corners=False),
        "grid rank": lambda: F.grid_sample(x, M.rand(2, 6, 2), align_corners=False),
        "unbatched": lambda: F.grid_sample(x[0], g[0], align_corners=False),
        "3-D input": lambda: F.grid_sample(M.randn(2, 3, 4), M.rand(2, 4, 1),
                                           align_corners=False),
        "5-D input 4-D grid": lambda: F.grid_sample(x5, M.rand(2, 4, 5, 3),
                                                    mode="bicubic", align_corners=False),
        "empty spatial": lambda: F.grid_sample(M.randn(2, 3, 0, 5), g, align_corners=False),
        "dtypes": lambda: F.grid_sample(x, g.double(), align_corners=False),
        "dtypes 5-D": lambda: F.grid_sample(x5.double(), g5, align_corners=False),
        "integer input": lambda: F.grid_sample(x.long(), g, align_corners=False),
        "integer input 5-D": lambda: F.grid_sample(x5.long(), g5.long(), align_corners=False),
        "integer grid": lambda: F.grid_sample(x, g.long(), align_corners=False),
        "align int": lambda: F.grid_sample(x, g, align_corners=1),
        "grid list": lambda: F.grid_sample(x, [[1.0]], align_corners=False),
        "input list": lambda: F.grid_sample([[1.0]], g, align_corners=False),
        "theta int": lambda: F.affine_grid(th.long(), (2, 3, 4, 5), align_corners=False),
        "theta 2-D for 5-D": lambda: F.affine_grid(th, (2, 3, 4, 5, 6), align_corners=False),
        "theta 3-D for 4-D": lambda: F.affine_grid(M.randn(2, 3, 4), (2, 3, 4, 5),
                                                   align_corners=False),
        "size rank": lambda: F.affine_grid(th, (2, 3, 4), align_corners=False),
        "size zero": lambda: F.affine_grid(th, (2, 3, 0, 5), align_corners=False),
        "size negative": lambda: F.affine_grid(th, [2, 3, -4, 5], align_corners=True),
        "theta batch": lambda: F.affine_grid(th, (3, 3, 4, 5), align_corners=False),
        "theta batch 3-D": lambda: F.affine_grid(M.randn(2, 3, 4), (3, 3, 4, 5, 6),
                                                 align_corners=False),
        "theta list": lambda: F.affine_grid([[1.0]], (2, 3, 4, 5), align_corners=True),
    }


def test_errors_as_torch():
    torch = torch_or_skip()
    mine, theirs = _errors(vg.nn.functional, vg), _errors(torch.nn.functional, torch)
    for name in mine:
        with pytest.raises(Exception) as want:
            theirs[name]()
        with pytest.raises(Exception) as got:
            mine[name]()
        assert type(got.value) is type(want.value), name
        assert str(got.value).replace("viewgrad.Size", "torch.Size") == str(want.value), name


def test_align_corners_warnings_as_torch():
    torch = torch_or_skip()
    for M in (vg, torch):
        F = M.nn.functional
        x, th = M.randn(1, 1, 2, 2), M.randn(1, 2, 3)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            F.grid_sample(x, M.zeros(1, 1, 1, 2))
            F.affine_grid(th, (1, 1, 2, 2))
            F.affine_grid(th, (1, 1, 1, 3), align_corners=True)   # a unit-size grid
        assert [str(r.message) for r in w] == [
            "Default grid_sample and affine_grid behavior has changed to align_corners=False "
            "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
            "See the documentation of grid_sample for details."] * 2 + [
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details."]
        assert all(r.category is UserWarning and r.filename == __file__ for r in w)
