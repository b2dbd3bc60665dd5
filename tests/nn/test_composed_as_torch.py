"""Functions that PyTorch composes of other ops are composed the same way here, so the
graph a user draws is PyTorch's and the same in-place programs are refused: instance_norm
(a view, batch_norm over N·C channels with repeated parameters, a view back),
adaptive_avg_pool2d to 1x1 (a mean), kron (``_unsafe_view`` of each input). And the
arguments PyTorch has no derivative for (a loss's class weights, ``pos_weight``) are
refused when they require grad, in PyTorch's words."""
import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares graphs with torch on the CPU")


def _names(fn, depth=4):
    out = []

    def walk(n, d):
        if n is None or d > depth:
            return
        out.append((d, n.name().split("::")[-1]))
        for f, _ in n.next_functions:
            walk(f, d + 1)
    walk(fn, 0)
    return out


def _both(build):
    return [build(lib) for lib in (vg, torch)]


@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 2, 3, 3)])
def test_instance_norm_graph_values_and_gradients(shape, affine):
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal(shape)
    w0, b0 = rng.standard_normal(shape[1]), rng.standard_normal(shape[1])
    res = []
    for lib in (vg, torch):
        x = lib.tensor(x0, requires_grad=True)
        w = lib.tensor(w0, requires_grad=True) if affine else None
        b = lib.tensor(b0, requires_grad=True) if affine else None
        y = lib.nn.functional.instance_norm(x * 1, weight=w, bias=b)
        (y * lib.tensor(np.arange(y.numel(), dtype=np.float64).reshape(shape))).sum().backward()
        res.append((_names(y.grad_fn), np.asarray(y.tolist()), np.asarray(x.grad.tolist()),
                    None if w is None else (np.asarray(w.grad.tolist()),
                                            np.asarray(b.grad.tolist()))))
    (na, ya, ga, pa), (nb, yb, gb, pb) = res
    assert na == nb
    np.testing.assert_allclose(ya, yb, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ga, gb, rtol=1e-9, atol=1e-9)
    if pa is not None:
        for a, b in zip(pa, pb):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


def test_instance_norm_running_statistics_and_refusals():
    x0 = (np.arange(24.0).reshape(2, 3, 4) * 1.3).astype(np.float32)
    got = []
    for lib in (vg, torch):
        F = lib.nn.functional
        rm, rv = lib.zeros(3), lib.ones(3)
        F.instance_norm(lib.tensor(x0), rm, rv, momentum=0.2)
        F.instance_norm(lib.tensor(x0), rm, rv, use_input_stats=False)   # no update
        errors = []
        for bad in (lambda: F.instance_norm(lib.ones(2, 3, 1)),
                    lambda: F.instance_norm(lib.tensor(x0), use_input_stats=False)):
            with pytest.raises((ValueError, RuntimeError)) as e:
                bad()
            errors.append((e.type, str(e.value).split("got input size")[0]))
        got.append((rm._version, rv._version, np.asarray(rm.tolist()),
                    np.asarray(rv.tolist()), errors))
    (va, wa, ma, sa, ea), (vb, wb, mb, sb, eb) = got
    assert (va, wa) == (vb, wb) == (1, 1)
    np.testing.assert_allclose(ma, mb, rtol=1e-6)
    np.testing.assert_allclose(sa, sb, rtol=1e-6)
    assert ea == eb


def test_adaptive_avg_pool_to_one_is_a_mean():
    for lib in (vg, torch):
        F = lib.nn.functional
        x = lib.arange(32.0, requires_grad=True).reshape(1, 2, 4, 4) * 1
        assert F.adaptive_avg_pool2d(x, 1).grad_fn.name() == "MeanBackward1"
        assert F.adaptive_avg_pool2d(x[0], (1, 1)).grad_fn.name() == "MeanBackward1"
        assert F.adaptive_avg_pool2d(x, 2).grad_fn.name() == "AdaptiveAvgPool2DBackward0"
        y = F.adaptive_avg_pool2d(x, 1)
        x.mul_(2)   # a mean saves no input: fine
        y.sum().backward()


def test_kron_views_are_unsafe_views():
    got = _both(lambda lib: _names(lib.kron(lib.ones(2, 3, requires_grad=True) * 1,
                                            lib.ones(3, 2, requires_grad=True) * 1).grad_fn))
    assert got[0] == got[1]
    for lib in (vg, torch):
        a = lib.ones(2, 3, requires_grad=True) * 1
        k = lib.kron(a, lib.ones(2))
        a.mul_(1)   # not a view of a to autograd: fine
        k.sum().backward()
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            lib.kron(lib.ones(3, 2).t(), lib.ones(2, 2))


_REFUSED = {
    "bce_logits_weight": lambda F, lib, a, w: F.binary_cross_entropy_with_logits(
        a, lib.full((2, 3), 0.5), weight=w),
    "bce_logits_pos_weight": lambda F, lib, a, w: F.binary_cross_entropy_with_logits(
        a, lib.full((2, 3), 0.5), pos_weight=w * 1),
    "bce_weight": lambda F, lib, a, w: F.binary_cross_entropy(a.sigmoid(),
                                                              lib.full((2, 3), 0.5), weight=w),
    "nll_weight": lambda F, lib, a, w: F.nll_loss(a, lib.tensor([0, 1]), weight=w),
    "cross_entropy_weight": lambda F, lib, a, w: F.cross_entropy(a, lib.tensor([0, 1]),
                                                                 weight=w),
    "nll2d_weight": lambda F, lib, a, w: F.nll_loss(a.reshape(1, 3, 2, 1),
                                                    lib.zeros(1, 2, 1, dtype=lib.long),
                                                    weight=w),
    "multi_margin_weight": lambda F, lib, a, w: F.multi_margin_loss(a, lib.tensor([0, 1]),
                                                                    weight=w),
}


@pytest.mark.parametrize("case", list(_REFUSED))
def test_weights_that_require_grad_are_refused(case):
    messages = []
    for lib in (vg, torch):
        a = lib.zeros(2, 3, requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            _REFUSED[case](lib.nn.functional, lib, a, w)
        messages.append(str(e.value))
        with lib.no_grad():   # no graph, no refusal
            _REFUSED[case](lib.nn.functional, lib, a, w)
    assert messages[0] == messages[1]
    assert "is not differentiable with respect to argument" in messages[0]


@pytest.mark.parametrize("shape,groups", [((2, 4, 3), 2), ((3, 6, 2, 2), 3), ((2, 4), 4),
                                          ((2, 4, 5), 1)])
def test_group_norm_is_one_native_node(shape, groups):
    rng = np.random.default_rng(2)
    x0, w0, b0 = (rng.standard_normal(shape), rng.standard_normal(shape[1]),
                  rng.standard_normal(shape[1]))
    gy = rng.standard_normal(shape)
    res = []
    for lib in (vg, torch):
        x, w, b = (lib.tensor(a, requires_grad=True) for a in (x0, w0, b0))
        y = lib.nn.functional.group_norm(x * 1, groups, w, b)
        (y * lib.tensor(gy)).sum().backward()
        res.append((_names(y.grad_fn), [np.asarray(t.tolist()) for t in (y, x.grad, w.grad,
                                                                           b.grad)]))
    assert res[0][0] == res[1][0]
    assert res[0][0][0] == (0, "NativeGroupNormBackward0")
    for a, b in zip(res[0][1], res[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


def test_group_norm_gradgradcheck_and_saved_inputs():
    rng = np.random.default_rng(3)
    x = vg.tensor(rng.standard_normal((2, 4, 3)), requires_grad=True)
    w = vg.tensor(rng.standard_normal(4), requires_grad=True)
    b = vg.tensor(rng.standard_normal(4), requires_grad=True)
    fn = lambda x, w, b: vg.nn.functional.group_norm(x, 2, w, b)   # noqa: E731
    assert vg.autograd.gradcheck(fn, (x, w, b))
    assert vg.autograd.gradgradcheck(fn, (x, w, b))
    for lib in (vg, torch):   # input and weight saved, bias not: as PyTorch
        for i, want in ((0, True), (1, True), (2, False)):
            ins = [lib.ones(2, 4, 3, requires_grad=True) * 1, lib.ones(4, requires_grad=True) * 1,
                   lib.ones(4, requires_grad=True) * 1]
            y = lib.nn.functional.group_norm(ins[0], 2, ins[1], ins[2])
            with lib.no_grad():
                ins[i].mul_(2)
            if want:
                with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                    y.sum().backward()
            else:
                y.sum().backward()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_soft_margin_loss_is_one_node(reduction):
    rng = np.random.default_rng(4)
    x0 = rng.standard_normal(6) * 3
    x0[0] = 800.0   # exp overflows: an infinite loss, as PyTorch's log1p(exp(.))
    t0 = np.sign(rng.standard_normal(6))
    t0[0] = -1.0
    res = []
    for lib in (vg, torch):
        x = lib.tensor(x0, requires_grad=True)
        loss = lib.nn.functional.soft_margin_loss(x * 1, lib.tensor(t0), reduction=reduction)
        g, = lib.autograd.grad(loss.sum(), x, create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), x)
        res.append((loss.grad_fn.name(), loss.grad_fn._saved_reduction,
                    [np.asarray(t.tolist()) for t in (loss, g, gg)]))
    assert res[0][:2] == res[1][:2]
    for a, b in zip(res[0][2], res[1][2]):
        np.testing.assert_allclose(a, b, rtol=1e-12, equal_nan=True)
    for lib in (vg, torch):
        with pytest.raises(RuntimeError, match="not differentiable with respect to argument "
                                               "'target'"):
            lib.nn.functional.soft_margin_loss(lib.zeros(2), lib.ones(2, requires_grad=True))


_RESIZE = [((1, 2, 3), "nearest", dict(scale_factor=2)),
           ((1, 1, 3, 3), "nearest", dict(size=(5, 4))),
           ((1, 1, 2, 2, 2), "nearest", dict(scale_factor=2)),
           ((1, 1, 3, 3), "nearest-exact", dict(scale_factor=1.5)),
           ((2, 1, 3), "linear", dict(scale_factor=2)),
           ((1, 2, 3, 3), "bilinear", dict(scale_factor=2, align_corners=True)),
           ((1, 1, 3, 3), "bilinear", dict(size=(5, 7))),
           ((1, 1, 3, 3), "bicubic", dict(size=(4, 5))),
           ((1, 1, 2, 2, 2), "trilinear", dict(scale_factor=2)),
           ((1, 1, 4, 4), "nearest", dict(scale_factor=0.5)),
           ((1, 1, 5), "linear", dict(size=3, align_corners=True))]


@pytest.mark.parametrize("shape,mode,kw", _RESIZE,
                         ids=[f"{m}-{len(s) - 2}d-{i}" for i, (s, m, _) in enumerate(_RESIZE)])
def test_interpolate_is_one_upsample_node(shape, mode, kw):
    """interpolate records PyTorch's Upsample<Mode><n>DBackward0, whose gradient is the
    backward op (Upsample...BackwardBackward0 when the gradient itself requires grad);
    values, first and second derivatives as torch's; the input is not saved."""
    rng = np.random.default_rng(6)
    x0 = rng.standard_normal(shape)
    res = []
    for lib in (vg, torch):
        x = lib.tensor(x0, requires_grad=True)
        h = x * 1
        y = lib.nn.functional.interpolate(h, mode=mode, **kw)
        gy = lib.tensor(np.arange(y.numel(), dtype=np.float64).reshape(tuple(y.shape)),
                        requires_grad=True)
        g, = lib.autograd.grad(y, h, gy, create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), gy)
        n = y.grad_fn
        res.append((n.name(), n._saved_output_size, n._saved_self_sym_sizes,
                    g.grad_fn.name(), [np.asarray(t.tolist()) for t in (y, g, gg)]))
        with lib.no_grad():
            h.mul_(2)   # nothing saved the input: backward runs
        y.sum().backward()
    assert res[0][:4] == res[1][:4]
    for a, b in zip(res[0][4], res[1][4]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("xs,ws", [((2, 3), (1,)), ((2, 3), (3,)), ((2, 3, 4), (3,)), ((3,), (1,)),
                                   ((), (1,)), ((3,), (3,)), ((2, 3), ())])
def test_prelu_is_one_kernel_node(xs, ws):
    rng = np.random.default_rng(7)
    x0, w0 = rng.standard_normal(xs), rng.uniform(0.1, 0.5, ws)
    res = []
    for lib in (vg, torch):
        x, w = lib.tensor(x0, requires_grad=True), lib.tensor(w0, requires_grad=True)
        try:
            y = lib.nn.functional.prelu(x * 1, w)
        except RuntimeError as e:
            res.append(("refused", str(e)))
            continue
        gs = lib.autograd.grad((y * y).sum(), [x, w], create_graph=True)
        ggs = lib.autograd.grad(sum((g * g).sum() for g in gs), [x, w])
        res.append((_names(y.grad_fn, 1), [np.asarray(t.tolist()) for t in (y,) + gs + ggs]))
    assert res[0][0] == res[1][0]
    if res[0][0] != "refused":
        for a, b in zip(res[0][1], res[1][1]):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    else:
        assert res[0][1] == res[1][1]


@pytest.mark.parametrize("shape,out", [((1, 2, 4, 4), 2), ((2, 1, 5, 7), (3, 2)),
                                       ((1, 1, 5, 5), (2, 3)), ((2, 3, 4), (3, None)),
                                       ((3, 5, 5), 1)])
def test_adaptive_max_pool_is_one_node(shape, out):
    """AdaptiveMaxPool2DBackward0 on the input as given (an unbatched one too), the
    indices PyTorch's kernel picks (the first maximum, or the last NaN)."""
    rng = np.random.default_rng(9)
    x0 = rng.standard_normal(shape)
    x0.flat[3] = x0.flat[5] = np.nan
    res = []
    for lib in (vg, torch):
        x = lib.tensor(x0, requires_grad=True)
        y, i = lib.nn.functional.adaptive_max_pool2d(x * 1, out, return_indices=True)
        y.backward(lib.tensor(np.arange(y.numel(), dtype=np.float64).reshape(tuple(y.shape))))
        res.append((y.grad_fn.name(), i.tolist(),
                    np.nan_to_num(np.asarray(y.tolist()), nan=-999.0).tolist(),
                    np.asarray(x.grad.tolist()).tolist()))
    assert res[0] == res[1]


def test_max_pool_of_an_unbatched_input_is_one_node():
    for lib in (vg, torch):
        x = lib.arange(32.0, requires_grad=True).reshape(2, 4, 4) * 1
        y = lib.nn.functional.max_pool2d(x, 2)
        assert y.grad_fn.name() == "MaxPool2DWithIndicesBackward0"
        y.sum().backward()


_MML = [((3, 4), [0, 2, 1], dict(p=2)), ((3, 4), [0, 2, 1], dict()),
        ((3, 4), [3, 3, 0], dict(margin=0.5, reduction="sum")),
        ((3, 4), [0, 2, 1], dict(reduction="none", weight=[1.0, 2.0, 0.5, 3.0])),
        ((4,), 2, dict()), ((4,), 2, dict(reduction="none"))]


@pytest.mark.parametrize("xs,t,kw", _MML)
def test_multi_margin_loss_is_one_node_without_a_second_derivative(xs, t, kw):
    rng = np.random.default_rng(10)
    x0 = rng.standard_normal(xs) * 0.5
    res = []
    for lib in (vg, torch):
        x = lib.tensor(x0, requires_grad=True)
        kw2 = dict(kw)
        if "weight" in kw2:
            kw2["weight"] = lib.tensor(kw2["weight"], dtype=lib.float64)
        loss = lib.nn.functional.multi_margin_loss(x * 1, lib.tensor(t), **kw2)
        g, = lib.autograd.grad(loss.sum(), x, create_graph=True)
        with pytest.raises(RuntimeError, match="derivative for aten::multi_margin_loss_backward "
                                               "is not implemented"):
            lib.autograd.grad(g.sum(), x)
        res.append((loss.grad_fn.name(), tuple(loss.shape), np.asarray(loss.tolist()),
                    np.asarray(g.tolist())))
    assert res[0][:2] == res[1][:2]
    for a, b in zip(res[0][2:], res[1][2:]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
    x = vg.tensor(x0, requires_grad=True)
    assert vg.autograd.gradcheck(lambda x: vg.nn.functional.multi_margin_loss(
        x, vg.tensor(t), **{k: v for k, v in kw.items() if k != "weight"}), (x,))
