"""Fixes for disagreements a fuzzer found in torch.nn.functional, each checked against
PyTorch: values, gradients, dtypes and error words (adaptive average pooling with inf,
duplicate multilabel targets, fully masked attention rows, embedding_bag's
scale_grad_by_freq and empty input, softmin/mse/bce dtypes, interpolate's same-size
shortcuts and size checks, max_unpool's output_size and max pooling's padding check)."""
import math

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .numpy()")


def _both(fn, *arrays, grad=True):
    """fn(lib, F, *tensors) in torch and viewgrad: (outputs, gradients wrt the float
    arrays, with a fixed random upstream gradient), for each library."""
    torch = torch_or_skip()
    res = []
    g = None
    for L in (torch, vg):
        ts = [L.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
        out = fn(L, L.nn.functional, *ts)
        wrt = [t for t in ts if t.requires_grad]
        grads = []
        if wrt:
            if g is None:
                g = np.random.default_rng(0).standard_normal(tuple(out.shape))
            grads = L.autograd.grad(out, wrt, L.tensor(g, dtype=out.dtype),
                                    allow_unused=True)
            grads = [None if x is None else x.numpy() for x in grads]
        res.append((out.detach().numpy(), str(out.dtype).replace("torch.", "")
                    .replace("viewgrad.", ""), grads))
    return res


def _assert_same(fn, *arrays, grad=True, rtol=1e-7, atol=1e-10):
    (to, tdt, tg), (vo, vdt, vgr) = _both(fn, *arrays, grad=grad)
    assert tdt == vdt
    np.testing.assert_allclose(vo, to, rtol=rtol, atol=atol)
    for a, b in zip(vgr, tg):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _same_error(fn):
    torch = torch_or_skip()
    errs = []
    for L in (torch, vg):
        with pytest.raises(Exception) as e:
            fn(L, L.nn.functional)
        errs.append(e)
    assert type(errs[1].value) is type(errs[0].value)
    assert str(errs[1].value) == str(errs[0].value)


# -- adaptive average pooling ---------------------------------------------------------------

@pytest.mark.parametrize("fn, shape", [
    (lambda L, F, x: F.adaptive_avg_pool1d(x, 2), (1, 1, 4)),
    (lambda L, F, x: F.adaptive_avg_pool1d(x, 3), (2, 1, 7)),
    (lambda L, F, x: F.adaptive_avg_pool2d(x, (3, 2)), (1, 2, 5, 4)),
    (lambda L, F, x: F.adaptive_avg_pool2d(x, (7, 5)), (1, 2, 4, 3)),
    (lambda L, F, x: F.adaptive_avg_pool3d(x, (2, 3, 2)), (1, 1, 4, 5, 3)),
])
def test_adaptive_avg_pool_inf_stays_in_its_windows(fn, shape):
    x = np.random.default_rng(1).standard_normal(shape)
    x.reshape(-1)[0] = math.inf
    (to, _, _), (vo, _, _) = _both(fn, x, grad=False)
    np.testing.assert_allclose(vo, to, rtol=1e-12)
    assert np.isnan(vo).sum() == np.isnan(to).sum() == 0


@pytest.mark.parametrize("out", [(3, 2), (7, 5), (4, 4), (1, 3)])
def test_adaptive_avg_pool2d_values_grads_and_node(out):
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 5))
    _assert_same(lambda L, F, t: F.adaptive_avg_pool2d(t, out), x)
    y = vg.nn.functional.adaptive_avg_pool2d(vg.tensor(x, requires_grad=True), out)
    assert y.grad_fn.name() == "AdaptiveAvgPool2DBackward0"


def test_adaptive_avg_pool2d_double_backward():
    x = vg.tensor(np.random.default_rng(3).standard_normal((1, 2, 5, 4)), requires_grad=True)
    fn = lambda t: vg.nn.functional.adaptive_avg_pool2d(t, (3, 3))  # noqa: E731
    assert vg.autograd.gradcheck(fn, (x,))
    assert vg.autograd.gradgradcheck(fn, (x,))


# -- multilabel_margin_loss -----------------------------------------------------------------

@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_multilabel_margin_duplicate_targets_count_each_time(reduction):
    x = np.array([[0.1, 0.2, 0.4, 0.8], [0.3, -1.0, 2.0, 0.5]])
    t = np.array([[3, 3, -1, 1], [0, 2, 0, -1]])
    _assert_same(lambda L, F, a, b: F.multilabel_margin_loss(a, b, reduction=reduction), x, t)


def test_multilabel_margin_1d_with_duplicates():
    _assert_same(lambda L, F, a, b: F.multilabel_margin_loss(a, b),
                 np.array([0.1, 0.9, -0.3]), np.array([1, 1, 2]))


# -- scaled_dot_product_attention -----------------------------------------------------------

def _masks():
    m = np.array([[True, True, False], [False, False, False], [True, False, True]])
    fm = np.where(m, 0.0, -np.inf)
    fm[0, 1] = 0.5
    return m, fm


@pytest.mark.parametrize("which", [0, 1])
def test_sdpa_fully_masked_row_is_zero_with_zero_grad(which):
    q = np.random.default_rng(4).standard_normal((2, 3, 4))
    k = np.random.default_rng(5).standard_normal((2, 3, 4))
    v = np.random.default_rng(6).standard_normal((2, 3, 4))
    mask = _masks()[which]
    _assert_same(lambda L, F, a, b, c, m: F.scaled_dot_product_attention(a, b, c, attn_mask=m),
                 q, k, v, mask, atol=1e-9)


def test_sdpa_all_rows_masked():
    q = np.random.default_rng(7).standard_normal((3, 2))
    _assert_same(lambda L, F, a, m: F.scaled_dot_product_attention(a, a, a, attn_mask=m),
                 q, np.zeros((3, 3), dtype=bool))


# -- embedding_bag --------------------------------------------------------------------------

@pytest.mark.parametrize("idx, off, mode, pad", [
    ([1, 1, 0, 2, 1, 3, 0], [0, 3, 5], "sum", None),
    ([1, 1, 0, 2, 1, 3, 0], [0, 3, 5], "mean", None),
    ([0, 0, 1, 1, 1, 2], [0, 2], "sum", None),
    ([0, 0, 0, 1, 1, 2], [0], "mean", 1),
    ([3, 3, 3, 0], [0, 1], "sum", 0),
    ([4, 2, 4], [0], "sum", None),
])
def test_embedding_bag_scale_grad_by_freq(idx, off, mode, pad):
    w = np.random.default_rng(8).standard_normal((5, 2))
    _assert_same(lambda L, F, weight, i, o: F.embedding_bag(
        i, weight, o, mode=mode, scale_grad_by_freq=True, padding_idx=pad),
        w, np.array(idx), np.array(off))


def test_embedding_bag_scale_grad_by_freq_2d_input():
    w = np.random.default_rng(9).standard_normal((4, 3))
    _assert_same(lambda L, F, weight, i: F.embedding_bag(i, weight, mode="mean",
                                                         scale_grad_by_freq=True),
                 w, np.array([[1, 1, 2], [0, 1, 3]]))


def test_embedding_bag_max_refuses_scale_grad_by_freq():
    _same_error(lambda L, F: F.embedding_bag(L.tensor([[0, 1]]), L.ones(3, 2), mode="max",
                                             scale_grad_by_freq=True))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_empty_input_keeps_the_graph(mode):
    torch = torch_or_skip()
    for L in (torch, vg):
        w = L.ones(3, 2, dtype=L.float64, requires_grad=True)
        o = L.nn.functional.embedding_bag(L.tensor(np.array([], dtype=np.int64)), w,
                                          L.tensor([0, 0]), mode=mode)
        assert o.requires_grad
        assert o.detach().numpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]
        assert L.autograd.grad(o.sum(), w)[0].numpy().tolist() == [[0.0, 0.0]] * 3


# -- dtypes ---------------------------------------------------------------------------------

def test_softmin_dtype():
    _assert_same(lambda L, F, x: F.softmin(x, 0, dtype=L.float64),
                 np.array([1.0, 2.0, 0.5], np.float32), rtol=1e-6)


def test_mse_loss_float32_with_int64_target():
    _assert_same(lambda L, F, x, t: F.mse_loss(x, t), np.array([1.0, 0.5], np.float32),
                 np.array([1, 2]), rtol=1e-6)


@pytest.mark.parametrize("xdt, tdt", [(np.float32, np.float64), (np.float64, np.float32)])
@pytest.mark.parametrize("kw", [{}, {"reduction": "none"}, {"pos_weight": True}])
def test_bce_with_logits_result_has_the_target_dtype(xdt, tdt, kw):
    x = np.array([0.3, -1.2, 2.0], xdt)
    t = np.array([0.2, 0.7, 1.0], tdt)
    if kw.get("pos_weight"):
        _assert_same(lambda L, F, a, b: F.binary_cross_entropy_with_logits(
            a, b, pos_weight=L.tensor([2.0, 1.0, 0.5])), x, t, rtol=1e-5)
    else:
        _assert_same(lambda L, F, a, b: F.binary_cross_entropy_with_logits(a, b, **kw), x, t,
                     rtol=1e-5)


def test_bce_with_logits_integer_target_refused():
    _same_error(lambda L, F: F.binary_cross_entropy_with_logits(L.ones(2), L.tensor([0, 1])))


# -- interpolate ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape, kw", [
    ((1, 1, 3, 4), dict(scale_factor=1.3, mode="bilinear")),
    ((1, 1, 3, 4), dict(scale_factor=(1.2, 2.0), mode="bilinear", align_corners=True)),
    ((1, 1, 3, 2), dict(scale_factor=1.3, mode="nearest")),
    ((1, 1, 3, 1), dict(scale_factor=(2.3, 1.0), mode="nearest")),
    ((1, 1, 5, 3), dict(scale_factor=(2.1, 1.4), mode="nearest")),
    ((1, 1, 3), dict(scale_factor=1.3, mode="linear")),
    ((1, 1, 3), dict(scale_factor=1.3, mode="nearest")),
    ((1, 1, 3), dict(scale_factor=2.3, mode="nearest")),
    ((1, 1, 3, 2), dict(scale_factor=1.3, mode="nearest-exact")),
    ((1, 1, 3, 2), dict(scale_factor=1.3, mode="bicubic")),
    ((1, 1, 3, 2, 1), dict(scale_factor=1.3, mode="trilinear")),
    ((1, 1, 3, 2, 1), dict(scale_factor=(2.3, 1.0, 1.0), mode="nearest")),
    ((1, 1, 3, 2, 2), dict(scale_factor=(1.3, 2.5, 1.0), mode="trilinear")),
])
def test_interpolate_same_and_double_size_shortcuts(shape, kw):
    x = np.random.default_rng(10).standard_normal(shape)
    _assert_same(lambda L, F, t: F.interpolate(t, **kw), x)


@pytest.mark.parametrize("shape, kw", [
    ((1, 1, 4, 4), dict(scale_factor=-1.0)),
    ((1, 1, 1, 4), dict(scale_factor=0.5)),
    ((1, 1, 1, 4), dict(scale_factor=0.5, recompute_scale_factor=True)),
    ((1, 1, 1, 4), dict(size=0, mode="bilinear")),
    ((1, 1, 1), dict(scale_factor=0.5, mode="linear")),
    ((1, 1, 1, 1, 4), dict(size=(0, 1, 2), mode="trilinear")),
])
def test_interpolate_refuses_non_positive_sizes(shape, kw):
    _same_error(lambda L, F: F.interpolate(L.ones(*shape), **kw))


# -- max_unpool -----------------------------------------------------------------------------

@pytest.mark.parametrize("output_size", [(9, 9), (2, 2), [6, 4], (1, 2, 3)])
def test_max_unpool2d_bad_output_size(output_size):
    _same_error(lambda L, F: F.max_unpool2d(
        *F.max_pool2d(L.arange(16.0).reshape(1, 1, 4, 4), 2, return_indices=True), 2,
        output_size=output_size))


@pytest.mark.parametrize("output_size", [(5, 4), (1, 1, 4, 5), [5, 5]])
def test_max_unpool2d_good_output_size(output_size):
    _assert_same(lambda L, F, x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2,
                                                output_size=output_size),
                 np.random.default_rng(11).standard_normal((1, 1, 4, 4)))


def test_max_unpool1d_and_3d_bad_output_size():
    _same_error(lambda L, F: F.max_unpool1d(
        *F.max_pool1d(L.arange(8.0).reshape(1, 1, 8), 2, return_indices=True), 2,
        output_size=[11]))
    _same_error(lambda L, F: F.max_unpool3d(
        *F.max_pool3d(L.arange(64.0).reshape(1, 1, 4, 4, 4), 2, return_indices=True), 2,
        output_size=(4, 4, 7)))


# -- max pooling's padding check ------------------------------------------------------------

@pytest.mark.parametrize("fn, shape, kw", [
    ("max_pool1d", (1, 1, 15), dict(kernel_size=3, padding=2, dilation=2)),
    ("max_pool1d", (1, 1, 15), dict(kernel_size=3, padding=2, dilation=2, return_indices=True)),
    ("max_pool1d", (1, 1, 15), dict(kernel_size=3, padding=3, dilation=2)),
    ("max_pool2d", (1, 1, 5, 5), dict(kernel_size=3, padding=2, dilation=2)),
    ("max_pool2d", (1, 1, 15, 15), dict(kernel_size=(3, 5), padding=(2, 1), dilation=2)),
    ("max_pool2d", (1, 1, 15, 15), dict(kernel_size=3, padding=3, dilation=2)),
    ("max_pool3d", (1, 1, 9, 9, 9), dict(kernel_size=3, padding=2, dilation=2)),
    ("max_pool3d", (1, 1, 9, 9, 9), dict(kernel_size=(3, 5, 5), padding=(2, 1, 1),
                                         dilation=2)),
    ("max_pool3d", (1, 1, 15, 15, 15), dict(kernel_size=3, padding=3, dilation=2)),
])
def test_max_pool_padding_checked_against_the_undilated_kernel(fn, shape, kw):
    _same_error(lambda L, F: getattr(F, fn)(L.ones(*shape), **kw))


@pytest.mark.parametrize("fn, shape", [("max_pool1d", (1, 1, 9)), ("max_pool2d", (1, 1, 9, 9)),
                                       ("max_pool3d", (1, 1, 9, 9, 9))])
def test_max_pool_dilated_padding_within_half_kernel_still_works(fn, shape):
    x = np.random.default_rng(12).standard_normal(shape)
    _assert_same(lambda L, F, t: getattr(F, fn)(t, 3, padding=1, dilation=2), x)


def test_max_unpool2d_empty_output_volume_is_not_an_index_error():
    torch = torch_or_skip()
    shapes = []
    for L in (torch, vg):
        x = L.tensor(np.random.default_rng(13).standard_normal((1, 2, 2, 5)))
        o = L.nn.functional.max_unpool2d(
            *L.nn.functional.max_pool2d(x, 2, stride=3, padding=1, return_indices=True), 2,
            stride=3, padding=1)
        shapes.append(tuple(o.shape))
    assert shapes[0] == shapes[1]
