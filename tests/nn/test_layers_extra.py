"""interpolate/Upsample, adaptive max pooling, unpooling, PReLU, Threshold, Softmax2d,
InstanceNorm, Conv3d, ConvTranspose1d, PixelShuffle, EmbeddingBag, Bilinear, AlphaDropout
and the margin/likelihood losses against torch (the test-only oracle): the same weights in
(by state_dict), the same outputs and gradients out, reprs and errors; gradcheck of the
composed functionals."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad import nn
from viewgrad.nn import functional as F

from ..helpers import assert_close_torch as _close, load_from_torch as _load

torch = pytest.importorskip("torch", reason="torch is the test-only oracle for these tests")
rng = np.random.default_rng(9)




MODULES = [
    ("Upsample", (), dict(scale_factor=2), (1, 2, 3, 4)),
    ("Upsample", (), dict(size=(5, 7), mode="bilinear"), (2, 2, 3, 4)),
    ("Upsample", (), dict(scale_factor=1.7, mode="bilinear", align_corners=True), (1, 1, 4, 5)),
    ("Upsample", (), dict(size=9, mode="linear"), (2, 3, 4)),
    ("Upsample", (), dict(scale_factor=(0.6, 1.5), mode="nearest"), (1, 2, 5, 4)),
    ("Upsample", (), dict(size=(3, 6), mode="nearest-exact"), (1, 2, 5, 4)),
    ("Upsample", (), dict(scale_factor=2, mode="bicubic"), (1, 2, 3, 4)),
    ("Upsample", (), dict(size=(2, 3, 4), mode="trilinear", align_corners=True), (1, 1, 3, 2, 3)),
    ("UpsamplingBilinear2d", (), dict(scale_factor=2), (1, 1, 3, 3)),
    ("AdaptiveMaxPool2d", ((3, 2),), {}, (2, 2, 7, 5)),
    ("AdaptiveMaxPool2d", (2,), {}, (1, 3, 4, 6)),
    ("AdaptiveMaxPool1d", (4,), {}, (2, 3, 9)),
    ("PReLU", (), {}, (2, 3, 4)), ("PReLU", (3,), dict(init=0.1), (2, 3, 4)),
    ("Threshold", (0.1, -2.0), {}, (3, 4)), ("Softmax2d", (), {}, (2, 3, 2, 2)),
    ("InstanceNorm1d", (3,), {}, (2, 3, 5)),
    ("InstanceNorm2d", (3,), dict(affine=True), (2, 3, 4, 4)),
    ("InstanceNorm2d", (3,), dict(track_running_stats=True), (2, 3, 4, 4)),
    ("Conv3d", (2, 3, 2), dict(padding=1, stride=(1, 2, 1)), (1, 2, 4, 4, 3)),
    ("ConvTranspose1d", (2, 3, 3), dict(stride=2, output_padding=1), (2, 2, 5)),
    ("PixelShuffle", (2,), {}, (1, 8, 2, 3)), ("PixelUnshuffle", (2,), {}, (1, 2, 4, 6)),
]


@pytest.mark.parametrize("name,args,kw,shape", MODULES,
                         ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)])
def test_module_matches_torch(name, args, kw, shape):
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(*args, **kw).double()
    ours = getattr(nn, name)(*args, **kw).double()
    _load(ours, theirs)
    assert repr(ours) == repr(theirs)
    x = rng.standard_normal(shape)
    a, b = vg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ya, yb = ours(a), theirs(b)
    _close(ya, yb, "output")
    g = rng.standard_normal(tuple(yb.shape))
    ya.backward(vg.tensor(g))
    yb.backward(torch.tensor(g))
    _close(a.grad, b.grad, "input grad")
    for (n, p1), (_, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
        _close(p1.grad, p2.grad, n)
    for (n, b1), (_, b2) in zip(ours.named_buffers(), theirs.named_buffers()):
        _close(b1, b2, n)


def test_max_unpool_and_adaptive_indices_match_torch():
    x = rng.standard_normal((1, 2, 4, 6))
    a, b = vg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    pa, ia = F.max_pool2d(a, 2, return_indices=True)
    pb, ib = torch.nn.functional.max_pool2d(b, 2, return_indices=True)
    ua = nn.MaxUnpool2d(2)(pa, ia)
    ub = torch.nn.MaxUnpool2d(2)(pb, ib)
    _close(ua, ub, "unpooled")
    (ua * ua).sum().backward()
    (ub * ub).sum().backward()
    _close(a.grad, b.grad, "grad through unpool")
    ya, ja = F.adaptive_max_pool2d(vg.tensor(x), (3, 4), return_indices=True)
    yb, jb = torch.nn.functional.adaptive_max_pool2d(torch.tensor(x), (3, 4), True)
    assert ja.tolist() == jb.tolist()
    _close(ya, yb, "adaptive max")


@pytest.mark.parametrize("mode,kw", [("sum", {}), ("mean", {}), ("max", {}),
                                     ("sum", {"psw": True}), ("mean", {"padding_idx": 2}),
                                     ("mean", {"include_last_offset": True}),
                                     ("sum", {"two_d": True})])
def test_embedding_bag_matches_torch(mode, kw):
    kw = dict(kw)
    psw, two_d = kw.pop("psw", False), kw.pop("two_d", False)
    torch.manual_seed(0)
    theirs = torch.nn.EmbeddingBag(6, 3, mode=mode, **kw).double()
    ours = nn.EmbeddingBag(6, 3, mode=mode, **kw).double()
    _load(ours, theirs)
    assert repr(ours) == repr(theirs)
    if two_d:
        idx, offsets = [[1, 2, 4], [4, 3, 0]], None
    else:
        idx, offsets = [1, 2, 4, 5, 4, 3, 2, 0], [0, 3, 3, 5]
        if kw.get("include_last_offset"):
            offsets = [0, 3, 3, 5, 8]
    args_a = [vg.tensor(idx)] + ([vg.tensor(offsets)] if offsets else [])
    args_b = [torch.tensor(idx)] + ([torch.tensor(offsets)] if offsets else [])
    wa = wb = None
    if psw:
        w = rng.standard_normal(np.array(idx).size)
        wa, wb = vg.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    ya = ours(*args_a, per_sample_weights=wa)
    yb = theirs(*args_b, per_sample_weights=wb)
    _close(ya, yb, "bags")
    g = rng.standard_normal(tuple(yb.shape))
    ya.backward(vg.tensor(g))
    yb.backward(torch.tensor(g))
    _close(ours.weight.grad, theirs.weight.grad, "weight grad")
    if psw:
        _close(wa.grad, wb.grad, "per-sample weight grad")


def test_bilinear_and_alpha_dropout():
    torch.manual_seed(0)
    theirs = torch.nn.Bilinear(3, 4, 2).double()
    ours = nn.Bilinear(3, 4, 2).double()
    _load(ours, theirs)
    assert repr(ours) == repr(theirs)
    x1, x2 = rng.standard_normal((5, 3)), rng.standard_normal((5, 4))
    a1, a2 = vg.tensor(x1, requires_grad=True), vg.tensor(x2, requires_grad=True)
    b1, b2 = torch.tensor(x1, requires_grad=True), torch.tensor(x2, requires_grad=True)
    ya, yb = ours(a1, a2), theirs(b1, b2)
    _close(ya, yb, "bilinear")
    ya.sum().backward()
    yb.sum().backward()
    _close(a1.grad, b1.grad, "x1 grad")
    _close(ours.weight.grad, theirs.weight.grad, "weight grad")
    drop = nn.AlphaDropout(0.2)
    assert repr(drop) == repr(torch.nn.AlphaDropout(0.2))
    x = vg.randn(20000, dtype=vg.float64)
    y = drop(x)
    assert abs(float(y.mean())) < 0.05 and abs(float(y.std()) - 1) < 0.05
    assert drop.eval()(x) is x


LOSSES = [
    ("margin_ranking_loss", "MarginRankingLoss", dict(margin=0.3), "pair_pm1"),
    ("hinge_embedding_loss", "HingeEmbeddingLoss", dict(margin=0.8), "one_pm1"),
    ("soft_margin_loss", "SoftMarginLoss", {}, "one_pm1"),
    ("multilabel_soft_margin_loss", "MultiLabelSoftMarginLoss", {}, "one_01"),
    ("cosine_embedding_loss", "CosineEmbeddingLoss", dict(margin=0.2), "pair_row_pm1"),
    ("triplet_margin_loss", "TripletMarginLoss", dict(margin=0.5, swap=True), "triple"),
    ("poisson_nll_loss", "PoissonNLLLoss", dict(full=True), "one_count"),
    ("poisson_nll_loss", "PoissonNLLLoss", dict(log_input=False), "one_count_pos"),
    ("gaussian_nll_loss", "GaussianNLLLoss", dict(full=True), "gauss"),
]


def _loss_inputs(kind):
    x = rng.standard_normal((4, 3))
    if kind == "pair_pm1":
        return [x, rng.standard_normal((4, 3))], rng.choice([-1.0, 1.0], (4, 3))
    if kind == "one_pm1":
        return [x], rng.choice([-1.0, 1.0], (4, 3))
    if kind == "one_01":
        return [x], rng.integers(0, 2, (4, 3)).astype(float)
    if kind == "pair_row_pm1":
        return [x, rng.standard_normal((4, 3))], rng.choice([-1.0, 1.0], 4)
    if kind == "triple":
        return [x, rng.standard_normal((4, 3)), rng.standard_normal((4, 3))], None
    if kind == "one_count":
        return [x], rng.integers(0, 5, (4, 3)).astype(float)
    if kind == "one_count_pos":
        return [np.abs(x) + 0.1], rng.integers(0, 5, (4, 3)).astype(float)
    return [x, rng.standard_normal((4, 3))], np.abs(rng.standard_normal((4, 1))) + 0.05


@pytest.mark.parametrize("fn,mod,kw,kind", LOSSES, ids=[f"{c[0]}-{i}" for i, c in
                                                        enumerate(LOSSES)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_match_torch(fn, mod, kw, kind, reduction):
    inputs, extra = _loss_inputs(kind)
    ta = [vg.tensor(v, requires_grad=True) for v in inputs]
    tb = [torch.tensor(v, requires_grad=True) for v in inputs]
    if kind == "gauss":   # (input, target, var): var is a third tensor with a grad
        ea, eb = vg.tensor(extra, requires_grad=True), torch.tensor(extra, requires_grad=True)
        la = getattr(nn, mod)(reduction=reduction, **kw)(*ta, ea)
        lb = getattr(torch.nn, mod)(reduction=reduction, **kw)(*tb, eb)
        leaves = list(zip(ta, tb)) + [(ea, eb)]
    else:
        ea = [vg.tensor(extra)] if extra is not None else []
        eb = [torch.tensor(extra)] if extra is not None else []
        la = getattr(nn, mod)(reduction=reduction, **kw)(*ta, *ea)
        lb = getattr(torch.nn, mod)(reduction=reduction, **kw)(*tb, *eb)
        fa = getattr(F, fn)(*ta, *ea, reduction=reduction, **kw)
        _close(fa, lb, "functional form")
        leaves = list(zip(ta, tb))
    _close(la, lb, "loss")
    g = rng.standard_normal(tuple(lb.shape))
    la.backward(vg.tensor(g))
    lb.backward(torch.tensor(g))
    for i, (a, b) in enumerate(leaves):
        _close(a.grad, b.grad, f"grad {i}")


def test_errors_match_torch():
    def both(fn, kind=Exception):
        msgs = []
        for lib in (vg, torch):
            with pytest.raises(kind) as e:
                fn(lib)
            msgs.append((type(e.value), str(e.value)))
        assert msgs[0] == msgs[1]
    x = lambda L: L.zeros(1, 1, 2, 2)  # noqa: E731
    both(lambda L: L.nn.functional.interpolate(x(L), size=3, scale_factor=2))
    both(lambda L: L.nn.functional.interpolate(x(L)))
    both(lambda L: L.nn.functional.interpolate(x(L), scale_factor=2, align_corners=True))
    both(lambda L: L.nn.functional.interpolate(L.zeros(1, 1, 2), scale_factor=2,
                                               mode="bilinear"))
    both(lambda L: L.nn.Softmax2d()(L.zeros(2, 2)))
    both(lambda L: L.nn.functional.pixel_shuffle(L.zeros(1, 3, 2, 2), 2))
    both(lambda L: L.nn.functional.gaussian_nll_loss(L.zeros(3, 2), L.zeros(3, 2),
                                                     L.ones(2, 2)))
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
        F.embedding_bag(vg.tensor([[1, 2]]), vg.zeros(3, 2), vg.tensor([0]))


def test_gradcheck_composed_functionals():
    x = vg.randn(1, 1, 3, 4, dtype=vg.float64, requires_grad=True)
    assert vg.autograd.gradcheck(lambda v: F.interpolate(v, scale_factor=1.5,
                                                         mode="bilinear"), (x,))
    assert vg.autograd.gradcheck(lambda v: F.interpolate(v, size=(4, 5), mode="bicubic",
                                                         align_corners=True), (x,))
    w = vg.tensor([0.2], dtype=vg.float64, requires_grad=True)
    assert vg.autograd.gradgradcheck(lambda v, a: F.prelu(v, a) ** 2, (x, w))
    assert vg.autograd.gradgradcheck(lambda v: F.instance_norm(v), (x,))
    y = vg.randn(3, 2, dtype=vg.float64, requires_grad=True)
    t = vg.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=vg.float64)
    assert vg.autograd.gradgradcheck(lambda v: F.multilabel_soft_margin_loss(v, t), (y,))
