"""The NCHW im2col convolution (ops/conv.py): one GEMM per sample over a contiguous column
buffer, per-tap GEMMs for the input gradient, and the column buffer the forward keeps for
the weight gradient (Note [conv columns kept for the weight gradient])."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad.nn import functional as F
from viewgrad.ops import conv as C


def _reference(x, w, stride, padding, dilation, groups):
    """conv2d by the definition (loops over taps): the oracle for the array kernels."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh = (h + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    ow = (wd + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    y = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                win = xp[:, g * cg:(g + 1) * cg, i * dilation:i * dilation + stride * (oh - 1) + 1:stride,
                         j * dilation:j * dilation + stride * (ow - 1) + 1:stride]
                y[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", win,
                                                       w[g * og:(g + 1) * og, :, i, j])
    return y


CASES = [  # (n, c, o, h, w, k, stride, padding, dilation, groups)
    (2, 4, 6, 7, 8, 3, 1, 1, 1, 1),
    (2, 4, 6, 9, 7, 3, 2, 1, 1, 2),
    (1, 6, 4, 8, 8, 2, 2, 0, 2, 2),
    (2, 4, 4, 10, 10, 3, 3, 2, 1, 4),
]


@pytest.mark.parametrize("case", CASES)
def test_forward_and_gradients_match_the_definition(case):
    n, c, o, h, w, k, s, p, d, g = case
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, c, h, w))
    W = rng.standard_normal((o, c // g, k, k))
    vx = vg.tensor(x, requires_grad=True)
    vw = vg.tensor(W, requires_grad=True)
    y = F.conv2d(vx, vw, stride=s, padding=p, dilation=d, groups=g)
    np.testing.assert_allclose(y.detach().cpu().numpy(), _reference(x, W, s, p, d, g), atol=1e-10)
    gy = rng.standard_normal(tuple(y.shape))
    y.backward(vg.tensor(gy))
    # <gy, conv(x, w)> is linear in x and in w: finite differences along random directions
    dx, dw = rng.standard_normal(x.shape), rng.standard_normal(W.shape)
    eps = 1e-6
    f = lambda xx, ww: float((gy * _reference(xx, ww, s, p, d, g)).sum())  # noqa: E731
    num_x = (f(x + eps * dx, W) - f(x - eps * dx, W)) / (2 * eps)
    num_w = (f(x, W + eps * dw) - f(x, W - eps * dw)) / (2 * eps)
    assert abs(num_x - (vx.grad.cpu().numpy() * dx).sum()) < 1e-6 * max(1, abs(num_x))
    assert abs(num_w - (vw.grad.cpu().numpy() * dw).sum()) < 1e-6 * max(1, abs(num_w))


def test_a_training_step_leaves_no_columns_behind():
    C._kept_cols.clear()
    x = vg.randn(2, 3, 6, 6)
    w = vg.randn(4, 3, 3, 3, requires_grad=True)
    F.conv2d(x, w, padding=1).relu().sum().backward()
    assert len(C._kept_cols) == 0          # the weight gradient took the forward's columns
    with vg.no_grad():
        F.conv2d(x, w, padding=1)
    assert len(C._kept_cols) == 0          # no graph, nothing kept


def test_kept_columns_are_bounded_and_never_matched_to_another_input():
    C._kept_cols.clear()
    w = vg.randn(4, 3, 3, 3, requires_grad=True)
    for _ in range(3 * C._KEEP):           # forwards whose backward never runs
        F.conv2d(vg.randn(1, 3, 5, 5), w, padding=1)
    assert len(C._kept_cols) <= C._KEEP
    # a fresh input never gets stale columns, even if its array reuses a freed one's id
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 3, 5, 5)).astype(np.float32)
    y = F.conv2d(vg.tensor(x), w, padding=1)
    y.backward(vg.ones_like(y))
    W = w.detach().cpu().numpy()
    ref = np.zeros(W.shape)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    for i in range(3):
        for j in range(3):
            ref[:, :, i, j] = xp[:, :, i:i + 5, j:j + 5].sum(axis=(0, 2, 3))[None, :]
    np.testing.assert_allclose(w.grad.cpu().numpy(), ref, rtol=1e-5, atol=1e-5)


def test_modifying_the_input_in_place_still_fails_backward():
    x = vg.randn(1, 2, 5, 5).clone()
    w = vg.randn(3, 2, 3, 3, requires_grad=True)
    y = F.conv2d(x, w, padding=1)
    x.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
