"""Every view op × every kind of in-place op: the whole program's gradients w.r.t. its
leaves by finite differences, in both CopySlices modes, and the two modes agree."""
import numpy as np
import pytest

import viewgrad as vg

# name -> view function on a (4, 6) float64 tensor (a clone of the leaf)
VIEWS = {
    "view": lambda b: b.view(2, 12),
    "reshape": lambda b: b.reshape(24),
    "narrow": lambda b: b.narrow(1, 1, 3),
    "select": lambda b: b.select(0, 2),
    "getitem_slice": lambda b: b[1:3, ::2],
    "getitem_int_none": lambda b: b[2, None, 1:],
    "getitem_ellipsis": lambda b: b[..., 3],
    "squeeze": lambda b: b[1:2].squeeze(0),
    "unsqueeze": lambda b: b.unsqueeze(1),
    "unfold": lambda b: b.unfold(1, 2, 2),  # non-overlapping windows
    "transpose": lambda b: b.transpose(0, 1),
    "t": lambda b: b.t(),
    "permute": lambda b: b.view(2, 2, 6).permute(2, 0, 1),
    "movedim": lambda b: b.view(2, 2, 6).movedim(0, 2),
    "diagonal": lambda b: b.diagonal(1),
    "as_strided": lambda b: b.as_strided((2, 3), (6, 2), 1),
    "flatten": lambda b: b.flatten(),
    "view_as": lambda b: b.view_as(vg.zeros(6, 4)),
    "view_of_view": lambda b: b[1:].t()[2],
}
MULTI = {
    "split": lambda b: b.split(2)[1],
    "chunk": lambda b: b.chunk(3, 1)[0],
    "unbind": lambda b: b.unbind(1)[4],
}
OVERLAPPING = {
    "expand": lambda b: b[0:1].expand(3, 6),
    "expand_as": lambda b: b[:, 0:1].expand_as(b),
}


def _inplace(kind, v, w):
    if kind == "mul_":
        v.mul_(w)
    elif kind == "add_":
        v.add_(w * 2)
    elif kind == "copy_":
        v.copy_(w)
    elif kind == "exp_":
        v.exp_()
    elif kind == "zero_":
        v.zero_()
    elif kind == "setitem":
        if v.dim() == 0:
            v[...] = w
        else:
            v[0] = w[0] if w.dim() else w
    return v


KINDS = ["mul_", "add_", "copy_", "exp_", "zero_", "setitem"]


def program(view_fn, kind):
    def f(a, w):
        b = a.clone()
        v = view_fn(b)
        _inplace(kind, v, w)
        wb = vg.tensor(np.linspace(-1, 1, b.numel()).reshape(tuple(b.shape)), dtype=vg.float64)
        wv = vg.tensor(np.linspace(2, -1, v.numel()).reshape(tuple(v.shape)), dtype=vg.float64)
        return (b * wb).sum() + (v * wv).sum() + (v.sum() * b[0, 0])
    return f


def _leaves(view_fn):
    rng = np.random.default_rng(0)
    a = vg.tensor(rng.standard_normal((4, 6)) * 0.5, dtype=vg.float64, requires_grad=True)
    with vg.no_grad():
        vshape = tuple(view_fn(a.detach().clone()).shape)
    w = vg.tensor(rng.standard_normal(vshape) * 0.5, dtype=vg.float64, requires_grad=True)
    return a, w


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_view_inplace_matrix(view, kind):
    view_fn = VIEWS[view]
    f = program(view_fn, kind)
    a, w = _leaves(view_fn)
    grads = []
    for replay in (False, True):
        vg.autograd.set_view_replay(replay)
        try:
            assert vg.autograd.gradcheck(f, (a, w))
            a.grad = w.grad = None
            f(a, w).backward()
            grads.append((a.grad.cpu().numpy().copy(),
                          None if w.grad is None else w.grad.cpu().numpy().copy()))
        finally:
            vg.autograd.set_view_replay(False)
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-12, atol=1e-12)
    if grads[0][1] is not None:
        np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("view", sorted(MULTI))
def test_multi_output_views_refuse_inplace(view, kind):
    a, w = _leaves(MULTI[view])
    with pytest.raises(RuntimeError, match="is a view and is being modified inplace"):
        program(MULTI[view], kind)(a, w)


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "setitem"])  # v[0] has no overlap
@pytest.mark.parametrize("view", sorted(OVERLAPPING))
def test_overlapping_views_refuse_inplace(view, kind):
    a, w = _leaves(OVERLAPPING[view])
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        program(OVERLAPPING[view], kind)(a, w)
