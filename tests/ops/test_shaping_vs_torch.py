"""Joining, diagonals, cdist and counting (ops/shaping.py, ops/diag.py, ops/distance.py,
ops/counting.py) against PyTorch: values, node names, gradients, dtypes and errors."""
import warnings

import pytest

from tests.helpers import assert_same_as_torch

from .test_vs_torch import compare_with_torch

DIFFERENTIABLE = [
    ("hstack", lambda M, a, b: M.hstack([a, b]), [(2, 3), (2, 2)]),
    ("hstack_1d", lambda M, a, b: M.hstack((a[0], b[0], a[1, 0])), [(2, 3), (2, 2)]),
    ("vstack", lambda M, a, b: M.vstack([a[0], b]) + M.row_stack([b]).sum(), [(2, 3), (2, 3)]),
    ("column_stack", lambda M, a, b: M.column_stack([a, b[0], b.t()]) + M.column_stack([b[0, 0], a[1]]).sum(), [(3,), (2, 3)]),
    ("dstack", lambda M, a, b: M.dstack([a, b]), [(2, 3), (2, 3)]),
    ("atleast", lambda M, a, b: M.atleast_3d(a)[0].sum() + M.atleast_2d(a[0])
     + M.atleast_1d(b.sum()) + M.atleast_2d(a, b)[1], [(2, 3), (2, 3)]),
    ("diff", lambda M, a, b: M.diff(a) + a.diff(n=2, dim=0, prepend=b).sum(), [(3, 4), (1, 4)]),
    ("diff_append", lambda M, a, b: M.diff(a, dim=0, append=b, prepend=b), [(3, 4), (2, 4)]),
    ("kron", lambda M, a, b: M.kron(a, b), [(2, 3), (3, 2)]),
    ("kron_mixed", lambda M, a, b: a.kron(b), [(2,), (2, 3)]),
    ("tensordot", lambda M, a, b: M.tensordot(a, b, dims=2), [(2, 3, 4), (3, 4, 2)]),
    ("tensordot_lists", lambda M, a, b: M.tensordot(a, b, dims=([0, 2], [2, 1])), [(2, 3, 4), (3, 4, 2)]),
    ("tensordot_0", lambda M, a, b: M.tensordot(a, b, dims=0), [(2,), (3,)]),
    ("meshgrid_ij", lambda M, a, b: M.meshgrid(a, b, indexing="ij")[1] * M.meshgrid([a, b], indexing="ij")[0], [(3,), (4,)]),
    ("meshgrid_xy", lambda M, a, b: M.meshgrid(a, b, a, indexing="xy")[0], [(3,), (4,)]),
    ("cartesian_prod", lambda M, a, b: M.cartesian_prod(a, b), [(3,), (2,)]),
    ("diag", lambda M, a, b: M.diag(a) + M.diag(b, 0).sum(), [(3,), (3, 4)]),
    ("diag_k", lambda M, a, b: M.diag(b, -1) * b.diag(2).sum() + a.diag(1).sum(), [(3,), (3, 4)]),
    ("diag_embed", lambda M, a, b: M.diag_embed(b, offset=-1, dim1=0, dim2=2), [(3,), (2, 3)]),
    ("diagflat", lambda M, a, b: M.diagflat(b, 1), [(3,), (2, 2)]),
    ("trace", lambda M, a, b: b.trace() * a, [(3,), (3, 4)]),
    ("block_diag", lambda M, a, b: M.block_diag(b, a, b[0, 0]), [(3,), (2, 3)]),
    ("cross", lambda M, a, b: M.cross(a, b, dim=0) + M.linalg.cross(a.t(), b.t()).t(), [(3, 2), (3, 2)]),
    ("cross_bcast", lambda M, a, b: M.linalg.cross(a, b), [(2, 3), (1, 3)]),
    ("cdist", lambda M, a, b: M.cdist(a, b), [(3, 2), (4, 2)]),
    ("cdist_batched_p1", lambda M, a, b: M.cdist(a, b, p=1), [(2, 3, 2), (2, 4, 2)]),
    ("cdist_p", lambda M, a, b: M.cdist(a, b, p=3) + M.cdist(a, b, p=0.5) + M.cdist(a, b, p=float("inf")), [(3, 2), (4, 2)]),
    ("cdist_mm", lambda M, a, b: M.cdist(a, b), [(30, 3), (4, 3)]),
    ("cdist_mm_forced", lambda M, a, b: M.cdist(a, b, compute_mode="use_mm_for_euclid_dist"), [(3, 3), (4, 3)]),
]


@pytest.mark.parametrize("name,fn,shapes", DIFFERENTIABLE, ids=[c[0] for c in DIFFERENTIABLE])
def test_differentiable_matches_torch(name, fn, shapes):
    compare_with_torch(lambda M, F, *xs: fn(M, *xs), shapes)


def _t(M, v, dtype=None):
    return M.tensor(v, dtype=dtype)


VALUES = [
    ("diff_bool", lambda M: M.diff(_t(M, [True, False, False]))),
    ("diff_int_prepend", lambda M: M.diff(_t(M, [1, 3, 6]), prepend=_t(M, [0]))),
    ("diff_0d", lambda M: M.diff(_t(M, 1.0))),
    ("hstack_ints", lambda M: M.hstack([_t(M, [1, 2]), _t(M, [3])])),
    ("kron_ints", lambda M: M.kron(_t(M, [[1, 2], [3, 4]]), _t(M, [1, -1]))),
    ("tensordot_mismatch", lambda M: M.tensordot(M.ones(2, 3), M.ones(2, 3), dims=1)),
    ("meshgrid_2d", lambda M: M.meshgrid(M.ones(2, 2), M.ones(2), indexing="ij")),
    ("meshgrid_bad", lambda M: M.meshgrid(M.ones(2), M.ones(2), indexing="yx")),
    ("diag_3d", lambda M: M.diag(M.ones(2, 2, 2))),
    ("trace_int", lambda M: _t(M, [[1, 2], [3, 4]]).trace()),
    ("trace_1d", lambda M: M.ones(3).trace()),
    ("block_diag_3d", lambda M: M.block_diag(M.ones(2, 2, 2))),
    ("block_diag_ints", lambda M: M.block_diag(_t(M, [[1, 2]]), _t(M, 3))),
    ("cross_len", lambda M: M.linalg.cross(M.ones(2, 4), M.ones(2, 4))),
    ("cross_ndim", lambda M: M.linalg.cross(M.ones(3), M.ones(2, 3))),
    ("cdist_1d", lambda M: M.cdist(M.ones(3), M.ones(3))),
    ("cdist_cols", lambda M: M.cdist(M.ones(2, 3), M.ones(2, 4))),
    ("cdist_int", lambda M: M.cdist(_t(M, [[1, 2]]), _t(M, [[1, 2]]))),
    ("cdist_zero_dist", lambda M: M.cdist(_t(M, [[1.0, 2.0], [0.0, 0.0]]), _t(M, [[1.0, 2.0]]), p=0)),
    ("unique", lambda M: M.unique(_t(M, [3, 1, 2, 1, 3]), return_inverse=True, return_counts=True)),
    ("unique_2d", lambda M: _t(M, [[2.0, 1.0], [1.0, 5.0]]).unique(sorted=False, return_inverse=True)),
    ("unique_dim", lambda M: M.unique(_t(M, [[1, 2], [1, 2], [0, 1]]), dim=0, return_inverse=True, return_counts=True)),
    ("unique_consecutive", lambda M: M.unique_consecutive(_t(M, [1, 1, 2, 2, 3, 1]), return_inverse=True, return_counts=True)),
    ("unique_consecutive_dim", lambda M: M.unique_consecutive(_t(M, [[1, 1], [1, 1], [2, 0], [1, 1]]), dim=0, return_counts=True)),
    ("bincount", lambda M: [M.bincount(_t(M, [1, 1, 3])), _t(M, [1, 1, 3]).bincount(minlength=6),
                            M.bincount(_t(M, [1, 1, 3]), weights=_t(M, [0.5, 1.0, 2.0])),
                            M.bincount(_t(M, [1, 1, 3]), weights=_t(M, [0.5, 1.0, 2.0], M.float64))]),
    ("bincount_negative", lambda M: M.bincount(_t(M, [1, -1]))),
    ("bincount_float", lambda M: M.bincount(_t(M, [1.0]))),
    ("histc", lambda M: [M.histc(_t(M, [1.0, 2, 1, 4]), bins=4, min=0, max=3),
                         _t(M, [1.0, 2, 1, 4]).histc(bins=4), M.histc(M.linspace(-1, 1, 101), bins=7)]),
    ("histc_int", lambda M: M.histc(_t(M, [1, 2]), bins=4)),
    ("searchsorted", lambda M: [M.searchsorted(_t(M, [1, 3, 5]), 3),
                                M.searchsorted(_t(M, [1, 3, 5]), _t(M, [[3, 6]]), right=True),
                                M.searchsorted(_t(M, [[1, 3, 5], [2, 4, 6]]), _t(M, [[3], [3]]), side="right"),
                                M.searchsorted(_t(M, [1.0, 3.0]), _t(M, [2.0]), out_int32=True),
                                M.searchsorted(_t(M, [5, 1, 3]), _t(M, [2, 4]), sorter=_t(M, [1, 2, 0]))]),
    ("searchsorted_side_conflict", lambda M: M.searchsorted(_t(M, [1, 3]), _t(M, [2]), right=True, side="left")),
    ("bucketize", lambda M: [M.bucketize(_t(M, [3, 6, 0]), _t(M, [1, 3, 5])),
                             M.bucketize(_t(M, [[3.0, 1.0]]), _t(M, [1.0, 3.0]), right=True)]),
    ("new_full_empty", lambda M: [_t(M, [1, 2]).new_full((2, 3), 7), _t(M, [1.0]).new_full([1], 2.5, dtype=M.float64),
                                  _t(M, [1.0]).new_empty((2, 1)).shape, _t(M, [1.0]).new_empty(2, dtype=M.int64).dtype]),
]


@pytest.mark.parametrize("what,fn", VALUES, ids=[v[0] for v in VALUES])
def test_values_dtypes_errors_match_torch(what, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_as_torch(fn)


def test_meshgrid_and_cross_warn_as_torch():
    import viewgrad as vg
    with pytest.warns(UserWarning, match="indexing argument"):
        vg.meshgrid(vg.ones(2), vg.ones(3))
    with pytest.warns(UserWarning, match="without specifying the dim arg is deprecated"):
        vg.cross(vg.ones(2, 3), vg.ones(2, 3))


def test_torch_trace_is_the_matrix_trace_under_the_hook():
    """``vg.trace`` starts the tracer; a torch script's ``torch.trace`` is the matrix trace."""
    from viewgrad.compat.hook import TorchModule
    import viewgrad as vg
    torch_ns = TorchModule("torch")
    x = vg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = torch_ns.trace(x)
    assert y.item() == 5.0 and y.grad_fn.name() == "TraceBackward0"
