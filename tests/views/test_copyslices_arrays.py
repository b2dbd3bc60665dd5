"""Note [CopySlices on arrays] (autograd/views_fast.py): in a plain backward CopySlices
writes the region's gradient into the incoming gradient itself when nobody else holds it
(a row loop would otherwise copy the whole base once per row), and into a copy when it is
shared — with the same values either way."""
import numpy as np
import pytest

import viewgrad as vg


def _copyslices(row=1):
    x = vg.arange(12.0).reshape(3, 4).requires_grad_()
    w = vg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = x.clone()
    b[row].mul_(w)
    return b.grad_fn, w


def test_an_unshared_gradient_is_written_in_place():
    cs, _ = _copyslices()
    xp = cs.device.xp
    g = xp.ones((3, 4), dtype=cs.dtype)
    gid = id(g)
    grads = [g]
    del g                           # the list holds the only reference
    with vg.no_grad():
        res = cs.apply_arrays(grads)
    assert id(res[0]) == gid        # no copy of the base-sized gradient
    assert vg.tensor(res[0]).tolist() == [[1, 1, 1, 1], [1, 2, 3, 4], [1, 1, 1, 1]]


def test_a_shared_gradient_is_copied_first():
    cs, _ = _copyslices()
    xp = cs.device.xp
    g = xp.ones((3, 4), dtype=cs.dtype)
    with vg.no_grad():
        res = cs.apply_arrays([g])  # `g` is still held here
    assert res[0] is not g
    assert vg.tensor(g).tolist() == [[1.0] * 4] * 3          # untouched
    assert vg.tensor(res[0]).tolist() == [[1, 1, 1, 1], [1, 2, 3, 4], [1, 1, 1, 1]]


def test_region_of_a_row_and_of_a_strided_region():
    from viewgrad.autograd.views_fast import region_of
    a = vg.arange(12.0).reshape(3, 4)._data
    dev = vg.arange(1.0)._device
    assert vg.tensor(region_of(dev, a, (4,), (1,), 4).copy()).tolist() == [4, 5, 6, 7]
    if dev.as_strided is None:
        return   # CopySlices replays view_fns there: only rows are sliced
    assert vg.tensor(region_of(dev, a, (3,), (4,), 1).copy()).tolist() == [1, 5, 9]
    assert vg.tensor(region_of(dev, a, (2, 2), (4, 1), 5).copy()).tolist() == [[5, 6],
                                                                               [9, 10]]


@pytest.mark.parametrize("replay", [False, True])
@pytest.mark.parametrize("layout", ["row-major", "column-major"])
def test_a_gradient_shared_with_another_branch_is_never_written_into(replay, layout):
    """x + e hands ONE gradient array to both branches; the CopySlices of the in-place
    on b runs first and must not write into it (it did in replay mode and for a
    non-row-major base, where CopySlices.apply saw only its own wrapper Tensor: e's
    gradient came out doubled in the modified row, silently)."""
    torch = pytest.importorskip("torch", reason="the oracle is PyTorch (not installed)")

    def run(m, set_replay):
        set_replay(replay)
        try:
            x = m.tensor(np.arange(16.).reshape(4, 4), requires_grad=True)
            c = m.tensor(np.ones((4, 4)), requires_grad=True)
            e = c * 3                       # created first: its node runs last
            b = x.clone() if layout == "row-major" else x.t().clone().t()
            b[1].mul_(2)
            s = b + e
            (s * m.tensor(np.arange(16.).reshape(4, 4))).sum().backward()
            return x.grad.tolist(), c.grad.tolist()
        finally:
            set_replay(False)

    ours = run(vg, vg.autograd.set_view_replay)
    theirs = run(torch, torch._C._set_view_replay_enabled)
    assert ours == theirs
