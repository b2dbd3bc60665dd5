"""as_strided's backward (Note [as_strided's backward], ops/views.py) against torch, over
random geometries: the output's and the input's (a view of a clone, so that it may have
an offset, repeat elements with stride 0, or overlap itself), each taken the plain way (a
write and a view) or the general way (scatter with accumulation, division by the input's
repeat count). The plain backward's array kernel and the differentiable formula
(``create_graph=True``) must both give torch's gradient; the formula's plain way also
passes gradgradcheck."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import viewgrad as vg
from tests.helpers import torch_or_skip
from viewgrad.ops.views import as_strided_plan

pytestmark = pytest.mark.host_only("compares as_strided gradients with torch's CPU")

N = 40   # the clone's storage
SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


@st.composite
def geometry(draw, max_dims=3):
    nd = draw(st.integers(0, max_dims))
    size = tuple(draw(st.integers(0, 4)) for _ in range(nd))
    stride = tuple(draw(st.integers(0, 6)) for _ in range(nd))
    offset = draw(st.integers(0, 5))
    reach = offset + (sum((a - 1) * b for a, b in zip(size, stride)) if all(size) else 0)
    if reach >= N:
        offset, stride = 0, tuple(min(s, 1) for s in stride)
    return size, stride, offset


def _grad(M, in_geom, out_geom, create_graph):
    leaf = M.tensor(np.linspace(-1, 1, N), dtype=M.float64, requires_grad=True)
    inp = leaf.clone().as_strided(*in_geom)
    n_in = 1 + (sum((a - 1) * b for a, b in zip(in_geom[0], in_geom[1])) if all(in_geom[0])
                else 0)
    size, stride, offset = out_geom
    need = offset + 1 + (sum((a - 1) * b for a, b in zip(size, stride)) if all(size) else 0)
    if need > N - in_geom[2] or n_in > N - in_geom[2]:
        return None
    y = inp.as_strided(size, stride, offset)
    g = M.tensor(np.arange(1, y.numel() + 1, dtype=np.float64).reshape(tuple(size)) / 3)
    (r,) = M.autograd.grad((y * g).sum(), leaf, create_graph=create_graph,
                           allow_unused=True)
    return None if r is None else r.detach().numpy()


@settings(max_examples=300, **SETTINGS)
@given(geometry(), geometry())
def test_as_strided_gradient_as_torch(in_geom, out_geom):
    torch = torch_or_skip()
    want = _grad(torch, in_geom, out_geom, False)
    if want is None:
        return
    for create_graph in (False, True):
        got = _grad(vg, in_geom, out_geom, create_graph)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12,
                                   err_msg=f"{in_geom} -> {out_geom} ({create_graph})")


@pytest.mark.parametrize("in_geom,out_geom,plain", [
    (((4, 5), (5, 1), 0), ((5,), (1,), 7), True),          # a row of a matrix
    (((4, 5), (5, 1), 0), ((3, 2), (0, 5), 2), True),       # an expanded dim: summed first
    (((4, 5), (1, 4), 0), ((2, 2), (4, 1), 1), True),       # a transposed input
    (((4, 5), (5, 1), 0), ((3, 3), (1, 1), 0), False),      # the output overlaps itself
    (((3, 4), (0, 1), 0), ((4,), (1,), 0), False),          # an expanded input
    (((0, 3), (3, 1), 0), ((2,), (1,), 0), False),          # an empty input
])
def test_which_way_each_geometry_takes(in_geom, out_geom, plain):
    """The plain way exactly where neither geometry overlaps itself (after the output's
    expanded dims are summed away), as PyTorch's as_strided_backward decides."""
    plan = as_strided_plan(*out_geom, in_geom)
    assert (plan is not None) == plain


@pytest.mark.parametrize("out_geom", [((5,), (1,), 7), ((3, 2), (0, 5), 2),
                                      ((2, 2), (4, 1), 1)])
def test_the_plain_way_passes_gradgradcheck(out_geom):
    x = vg.randn(4, 5, dtype=vg.float64, requires_grad=True)
    f = lambda t: (t * 1).as_strided(*out_geom)   # noqa: E731 (a non-leaf's view)
    assert vg.autograd.gradcheck(f, (x,))
    assert vg.autograd.gradgradcheck(f, (x,))


def test_a_stale_rows_gradient_takes_the_plain_way(monkeypatch):
    """``b[i] *= w`` regenerates b[i]'s grad_fn as AsStridedBackward0 over the whole of b
    (a row of a 256-row base): its backward writes the row into a zero storage and views
    it, with no index arrays of the base's size."""
    from viewgrad.ops import views
    calls = []
    real = views._geometry_indices
    monkeypatch.setattr(views, "_geometry_indices",
                        lambda *a: calls.append(a) or real(*a))
    x = vg.randn(256, 8, requires_grad=True)
    w = vg.randn(8, requires_grad=True)
    b = x.clone()
    for i in range(256):
        b[i] *= w
    b.sum().backward()
    assert calls == []
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(w.detach().numpy(), (256, 8)),
                               rtol=1e-6)
