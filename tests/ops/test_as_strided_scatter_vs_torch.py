"""``as_strided_scatter`` against PyTorch: its geometry is relative to ``self``'s
storage, so PyTorch copies the whole storage and keeps ``self``'s strides and offset in
the copy (``clone_preserve_strides``): on a transposed, sliced, offset or expanded input
the region written, the values and the strides are PyTorch's; its refusals; gradients
for a contiguous input by finite differences (torch 2.13's own fail theirs)."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import raised

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares strides with torch on the CPU")


def _inputs(M):
    base = M.arange(12., dtype=M.float64).reshape(3, 4)
    return [base, base[1:, 1:], base[1:], base[:, ::2], base.t()[::2], base.t(), base[2],
            M.arange(6., dtype=M.float64).reshape(2, 3)[:, :1].expand(2, 3)]


GEOMETRIES = [((2,), (1,), 0), ((2,), (1,), 4), ((3,), (1,), 0), ((2,), (2,), 1),
              ((2, 2), (4, 1), 5), ((3,), (1,), 7), ((1,), (1,), 11), ((2,), (1,), 11),
              ((2,), (-1,), 3)]


@pytest.mark.parametrize("i", range(8))
def test_values_strides_and_refusals_as_pytorchs(i):
    for size, stride, off in GEOMETRIES:
        outs = []
        for M in (torch, vg):
            x = _inputs(M)[i]
            src = M.full(size, -1., dtype=M.float64)
            err = raised(lambda: M.as_strided_scatter(x, src, size, stride, off))
            outs.append(err[0] if err else (
                M.as_strided_scatter(x, src, size, stride, off).tolist(),
                tuple(M.as_strided_scatter(x, src, size, stride, off).stride())))
        assert outs[1] == outs[0], (i, size, stride, off)


def test_gradients_by_finite_differences():
    # (not against torch: torch 2.13's AsStridedScatterBackward0 fails its own gradcheck,
    # giving self the region's gradient instead of the rest; viewgrad's is the derivative)
    for size, stride, off in GEOMETRIES[:5]:
        a = vg.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
        b = vg.tensor(np.random.default_rng(1).standard_normal(size), requires_grad=True)
        fn = lambda a, b: vg.as_strided_scatter(a * 1, b, size, stride, off)   # noqa: E731
        assert vg.autograd.gradcheck(fn, (a, b))
        assert vg.autograd.gradgradcheck(fn, (a, b))
    for M in (torch, vg):   # a non-contiguous input that requires grad: refused
        x = M.ones(3, 4, dtype=M.float64).t().requires_grad_()
        assert raised(lambda: M.as_strided_scatter(x, M.ones(2, dtype=M.float64), (2,),
                                                   (1,), 0))[0] == "RuntimeError"


def test_the_other_view_scatters_keep_self_strides_as_pytorchs():
    # select/slice/diagonal_scatter clone self as PyTorch's clone_preserve_strides does:
    # a stepped (not dense) input's strides too
    outs = []
    for M in (torch, vg):
        base = M.arange(24., dtype=M.float64).reshape(4, 6)
        got = []
        for x in [base[:, ::2], base.t(), base[1:], base[:, :1].expand(4, 3)]:
            for r in (x.select_scatter(M.zeros(x.shape[1], dtype=M.float64), 0, 1),
                      x.slice_scatter(M.zeros(x.shape[0], 1, dtype=M.float64), 1, 0, 1),
                      x.diagonal_scatter(M.zeros(min(x.shape), dtype=M.float64))):
                got.append((tuple(r.stride()), r.tolist()))
        outs.append(got)
    assert outs[1] == outs[0]
