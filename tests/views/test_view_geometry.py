"""Note [view geometry by arithmetic] (autograd/views_fast.py): select and slice fill in
their view's geometry from their parent's, by arithmetic; it must be what the data
pointers say, for every parent layout (a base, a view, a transposed or strided view, a
view of a view, an empty view), and CopySlices built from it must give the same
gradients as one built from pointers."""
import itertools

import pytest

import viewgrad as vg
from viewgrad.autograd import views_fast as F


def _from_pointers(t):
    return (tuple(t.shape), t.stride(), t.storage_offset())


def _parents():
    base = vg.arange(4 * 5 * 6, dtype=vg.float32).reshape(4, 5, 6).requires_grad_()
    b = base.clone()
    yield "base", b
    yield "view", b[1]
    yield "transposed", b.transpose(0, 2)
    yield "strided", b[:, 1:, ::2]
    yield "view of view", b[2][1:]
    yield "permuted slice", b.permute(2, 0, 1)[1:5:3]


@pytest.mark.parametrize("which", [name for name, _ in _parents()])
def test_select_and_slice_geometry_is_what_the_pointers_say(which):
    parent = dict(_parents())[which]
    for dim in range(parent.dim()):
        n = parent.shape[dim]
        for i in (0, n - 1, -1, n // 2):
            v = parent.select(dim, i)
            assert v._view_info.geom == _from_pointers(v), (which, dim, i)
        for start, end, step in itertools.product((0, 1, n - 1, n), (None, 2, n), (1, 2, 3)):
            v = parent.slice(dim, start, end, step)
            assert v._view_info.geom == _from_pointers(v), (which, dim, start, end, step)
            if v.numel():
                w = v.select(dim, 0)   # a view of a view: from the parent's arithmetic
                assert w._view_info.geom == _from_pointers(w), (which, dim, start)


def test_untracked_views_leave_geometry_to_the_pointers():
    x = vg.arange(12.0).reshape(3, 4)          # requires no grad: no CopySlices will come
    v = x[1]
    assert v._view_info.geom is None
    assert F.geometry(v) == _from_pointers(v)


def test_row_major_is_the_stride_rule():
    def by_rule(a):
        expect = 1
        for sz, st in zip(reversed(a.shape), reversed(F.strides_of(a))):
            if sz != 1 and st != expect:
                return False
            expect *= sz
        return True

    x = vg.arange(2 * 3 * 4.0).reshape(2, 3, 4)
    for t in (x, x[:, :1], x.transpose(0, 1), x[:, :, ::2], x[:1], x[:, 0:0], x[0:0, :, ::2],
              x.unsqueeze(1), x[..., :1].expand(2, 3, 5)):
        assert F.is_row_major(t._data) == by_rule(t._data), tuple(t.shape)


def test_row_loop_gradients_match_a_pointer_geometry():
    """The same loop with the geometry forgotten (recomputed from pointers) gives the
    same CopySlices geometry and the same gradients."""
    def run(forget):
        x = vg.arange(20.0).reshape(4, 5).requires_grad_()
        w = vg.linspace(0.5, 1.5, 4).requires_grad_()
        b = x.clone()
        geoms = []
        for i in range(4):
            r = b[i, 1:]
            if forget:
                r._view_info.geom = None
            r.mul_(w)
            cs = b.grad_fn
            geoms.append((cs.view_sizes, cs.view_strides, cs.view_offset))
        b.sum().backward()
        return geoms, x.grad.tolist(), w.grad.tolist()

    assert run(False) == run(True)
