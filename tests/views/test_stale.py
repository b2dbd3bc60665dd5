"""Stale views: after an in-place op through one view, every other live view (and the
base) gets a correct grad_fn and correct gradients; _version values are PyTorch's."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import short, torch_or_skip


def scenario(M):
    a = M.tensor(np.arange(12.0).reshape(3, 4) / 10, dtype=M.float64, requires_grad=True)
    y = M.tensor([1.0, -1.0, 2.0, 0.5], dtype=M.float64, requires_grad=True)
    b = a.clone()
    row0, row1, col, diag, vv = b[0], b[1], b[:, 2], b.diagonal(), b[1:].t()[1]
    row1.mul_(y)                      # in place through one view
    snap = [(short(t.grad_fn.name()), t._version) for t in (b, row0, row1, col, diag, vv)]
    col.add_(1.0)                     # and through another, overlapping the first
    snap += [(short(t.grad_fn.name()), t._version) for t in (b, row0, row1, col, diag, vv)]
    loss = sum(((t * (k + 1)) ** 2).sum() for k, t in enumerate((b, row0, row1, col, diag, vv)))
    loss.backward()
    return snap, a.grad, y.grad


@pytest.mark.parametrize("replay", [False, True], ids=["geometry", "replay"])
def test_stale_views_match_torch(replay):
    torch = torch_or_skip()
    torch._C._set_view_replay_enabled(replay)
    vg.autograd.set_view_replay(replay)
    try:
        tsnap, tga, tgy = scenario(torch)
        snap, ga, gy = scenario(vg)
    finally:
        torch._C._set_view_replay_enabled(False)
        vg.autograd.set_view_replay(False)
    assert snap == tsnap
    np.testing.assert_allclose(ga.cpu().numpy(), tga.cpu().numpy())
    np.testing.assert_allclose(gy.cpu().numpy(), tgy.cpu().numpy())


def test_stale_view_regenerated_lazily_and_visible():
    b = vg.randn(3, 4, dtype=vg.float64, requires_grad=True).clone()
    other = b[0]
    assert other.grad_fn.name() == "SelectBackward0"
    b[1].mul_(2)
    # the raw slot is still the old node until someone reads grad_fn
    assert other._grad_fn.name() == "SelectBackward0"
    assert other._view_info.version != other._version
    fn = other.grad_fn
    assert fn.name() == "AsStridedBackward0"
    assert fn.next_functions[0][0] is b.grad_fn and b.grad_fn.name() == "torch::autograd::CopySlices"


def test_stale_view_in_replay_mode_gets_replayed_chain():
    vg.autograd.set_view_replay(True)
    try:
        b = vg.randn(3, 4, dtype=vg.float64, requires_grad=True).clone()
        v = b[1:].t()
        b.mul_(2)
        assert v.grad_fn.name() == "TBackward0"
        assert v.grad_fn.next_functions[0][0].name() == "SliceBackward0"
    finally:
        vg.autograd.set_view_replay(False)


def test_base_without_grad_starts_requiring_grad():
    b = vg.zeros(3, 4, dtype=vg.float64)
    v = b[1]
    other = b[:, 0]
    w = vg.randn(4, dtype=vg.float64, requires_grad=True)
    assert not b.requires_grad
    v.copy_(w)
    assert b.requires_grad and b.grad_fn.name() == "torch::autograd::CopySlices"
    assert b.grad_fn.next_functions[0] == (None, 0) and b.grad_fn.fn.name() == "CopyBackwards"
    assert other.grad_fn.name() == "AsStridedBackward0"
    (other.sum() * 3 + b.sum()).backward()
    np.testing.assert_allclose(w.grad.cpu().numpy(), [4.0, 1.0, 1.0, 1.0])


def test_non_contiguous_base_and_views_of_views():
    def f(a, y):
        b = a.t().clone(memory_format=vg.preserve_format)  # a transposed (non-contiguous) base
        assert not b.is_contiguous()
        v = b[1:][0]          # a view of a view: _base is the root
        assert v._base is b
        v.mul_(y)
        return (b * b).sum() + v.sum()
    a = vg.randn(4, 3, dtype=vg.float64, requires_grad=True)
    y = vg.randn(4, dtype=vg.float64, requires_grad=True)
    for replay in (False, True):
        vg.autograd.set_view_replay(replay)
        try:
            assert vg.autograd.gradcheck(f, (a, y))
        finally:
            vg.autograd.set_view_replay(False)


@pytest.mark.parametrize("replay", [False, True], ids=["geometry", "replay"])
def test_gradgradcheck_through_copyslices_and_regenerated_view(replay):
    def f(a, y):
        b = a.clone()
        other = b[:, 1]
        b[0].mul_(y)                     # CopySlices
        return (other * other).sum() + (b ** 2).sum()   # other: regenerated view
    a = vg.randn(2, 3, dtype=vg.float64, requires_grad=True)
    y = vg.randn(3, dtype=vg.float64, requires_grad=True)
    vg.autograd.set_view_replay(replay)
    try:
        assert vg.autograd.gradgradcheck(f, (a, y))
    finally:
        vg.autograd.set_view_replay(False)


def test_grad_needs_copyslices_but_not_the_views_old_history():
    # exec_info note: autograd.grad wrt y needs CopySlices, whose wrapped fn's first edge
    # (x's old SelectBackward0) is not needed; fn must still compute the region's grad.
    a = vg.randn(3, dtype=vg.float64, requires_grad=True)
    y = vg.tensor(3.0, dtype=vg.float64, requires_grad=True)
    b = a.clone()
    b[1].mul_(y)
    b[1].mul_(y)
    (gy,) = vg.autograd.grad(b.sum(), y)
    np.testing.assert_allclose(gy.item(), 2 * 3.0 * a[1].item())
    assert a.grad is None


def test_undefined_grad_from_fn_is_zeros_in_region():
    class NoGradForInput(vg.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            x.mul_(w)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return None, g.sum()

    a = vg.randn(4, dtype=vg.float64, requires_grad=True)
    w = vg.tensor(2.0, dtype=vg.float64, requires_grad=True)
    b = a.clone()
    NoGradForInput.apply(b[1:3], w)
    assert b.grad_fn.name() == "torch::autograd::CopySlices"
    b.sum().backward()
    np.testing.assert_allclose(a.grad.cpu().numpy(), [1.0, 0.0, 0.0, 1.0])
    np.testing.assert_allclose(w.grad.item(), 2.0)


def test_retain_grad_follows_a_regenerated_stale_view():
    """A view that retains its grad, made stale by an in-place op through another view
    and regenerated when its grad_fn is read, still gets its .grad (PyTorch moves the
    retains_grad hook to the new grad_fn: update_tensor_hooks_on_new_gradfn)."""
    def run(M):
        x = M.arange(12.0).reshape(3, 4).requires_grad_()
        w = M.linspace(0.5, 1.5, 4).requires_grad_()
        b = x.clone()
        views = []
        for i in range(3):
            r = b[i]
            if i == 1:
                r.retain_grad()
            r.mul_(w)
            r.add_(0.5)
            views.append(r)
        names = [v.grad_fn.name() for v in views]    # regenerates the stale ones
        (b.sum() + 2 * views[1].sum()).backward()
        return names, views[1].grad.tolist(), x.grad.tolist(), w.grad.tolist()

    ours = run(vg)
    assert ours[1] == [2.0] * 4
    torch = pytest.importorskip("torch", reason="PyTorch oracle not installed")
    theirs = run(torch)
    assert ours[1:] == theirs[1:]
    assert ours[0] == ["AsStridedBackward0"] * 3 == theirs[0]
