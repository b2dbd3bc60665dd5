"""The aliases and dtype helpers (ops/aliases.py) and the triangular / Cholesky solves and
small products (ops/linalg_tri.py) against PyTorch: values, node names, gradients, errors."""
import warnings

import pytest

from tests.helpers import assert_same_as_torch

from .test_vs_torch import compare_with_torch


def _tri(M, a):
    return a + 3 * M.eye(a.shape[-1], dtype=a.dtype)


DIFFERENTIABLE = [
    ("solve_triangular", lambda M, a, b: M.linalg.solve_triangular(_tri(M, a), b, upper=True), [(3, 3), (3, 2)]),
    ("solve_triangular_lower_right_unit", lambda M, a, b: M.linalg.solve_triangular(
        _tri(M, a), b, upper=False, left=False, unitriangular=True), [(2, 3, 3), (2, 4, 3)]),
    ("triangular_solve", lambda M, a, b: M.triangular_solve(b, _tri(M, a), upper=False, transpose=True).solution, [(3, 3), (3, 2)]),
    ("cholesky_solve", lambda M, a, b: M.cholesky_solve(b, _tri(M, a).tril()) + b.cholesky_solve(_tri(M, a).triu(), upper=True), [(3, 3), (3, 2)]),
    ("cholesky_inverse", lambda M, a, b: M.cholesky_inverse(_tri(M, a).tril()) + _tri(M, a).triu().cholesky_inverse(upper=True), [(3, 3), (1,)]),
    ("vdot_inner", lambda M, a, b: M.vdot(a, b) * M.inner(a, b) + M.inner(a.view(3, 1), b.view(3, 1)).sum(), [(3,), (3,)]),
    ("inner_nd", lambda M, a, b: M.inner(a, b), [(2, 3), (4, 3)]),
    ("dist", lambda M, a, b: M.dist(a, b) + a.dist(b, 1) + M.dist(a, b, 3) + M.dist(a, b, 0.5) + M.dist(a, b, float("inf")), [(2, 3), (3,)]),
    ("matrix_exp", lambda M, a, b: M.linalg.matrix_exp(a) + M.matrix_exp(3 * b).sum() + a.matrix_exp(), [(3, 3), (2, 3, 3)]),
    ("cov", lambda M, a, b: M.cov(a) + M.cov(a, correction=0).sum() + M.cov(b[0]) + M.corrcoef(a).sum(), [(3, 5), (2, 4)]),
    ("cov_weights", lambda M, a, b: M.cov(a, fweights=M.tensor([1, 2, 1, 3, 1]), aweights=b.abs()[0, :5] + 0.1), [(3, 5), (2, 5)]),
    ("trapezoid", lambda M, a, b: M.trapezoid(a) + M.trapz(a, dx=0.5) + M.trapezoid(a, b[0].cumsum(0) * 0 + M.arange(5.0)).sum()
     + M.trapezoid(a, dim=0).sum(), [(3, 5), (2, 5)]),
    ("cumulative_trapezoid", lambda M, a, b: M.cumulative_trapezoid(a) + M.cumulative_trapezoid(a, dx=2.0)
     + M.cumulative_trapezoid(a, M.arange(5.0) ** 2), [(3, 5), (1,)]),
    ("chain_matmul", lambda M, a, b: M.chain_matmul(a, b, b.t()), [(2, 3), (3, 4)]),
    ("aliases", lambda M, a, b: M.multiply(a, b) + M.subtract(a, b, alpha=2) + M.negative(a) + M.absolute(b) + M.positive(a)
     + M.sgn(a) * a + M.rsub(a, b) + M.rsub(a, 2.0), [(2, 3), (3,)]),
    ("broadcast_tensors", lambda M, a, b: M.broadcast_tensors(a, b)[1] * M.broadcast_tensors(a, b)[0], [(2, 1), (3,)]),
]


@pytest.mark.parametrize("name,fn,shapes", DIFFERENTIABLE, ids=[c[0] for c in DIFFERENTIABLE])
def test_differentiable_matches_torch(name, fn, shapes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare_with_torch(lambda M, F, *xs: fn(M, *xs), shapes, exact_name=name not in ("aliases", "trapezoid", "cumulative_trapezoid"))


def _t(M, v, dtype=None):
    return M.tensor(v, dtype=dtype)


VALUES = [
    ("comparisons", lambda M: [f(_t(M, [1.0, 2.0, 3.0]), 2) for f in (M.eq, M.ne, M.lt, M.le, M.gt, M.ge, M.greater,
                                                                     M.greater_equal, M.less, M.less_equal, M.not_equal)]),
    ("comparison_methods", lambda M: [_t(M, [1, 2]).greater(_t(M, [2, 1])), _t(M, [1, 2]).less_equal(1)]),
    ("broadcast_shapes", lambda M: [tuple(M.broadcast_shapes((2, 1), (3,), 1)), tuple(M.broadcast_shapes())]),
    ("broadcast_shapes_bad", lambda M: M.broadcast_shapes((2,), (3,))),
    ("dtype_helpers", lambda M: [M.result_type(_t(M, [1]), 2.5) == M.float32, M.result_type(_t(M, [1.0]), _t(M, [1], M.float64)) == M.float64,
                                 M.result_type(_t(M, 1.0, M.float64), _t(M, [1.0])) == M.float32, M.promote_types(M.int32, M.float32) == M.float32,
                                 M.promote_types(M.uint8, M.int8) == M.int16, M.can_cast(M.float32, M.int32), M.can_cast(M.int64, M.float32),
                                 M.can_cast(M.float64, M.float32), M.can_cast(M.bool, M.uint8)]),
    ("predicates", lambda M: [_t(M, [1]).is_signed(), _t(M, [1], M.uint8).is_signed(), M.is_complex(_t(M, [1.0])),
                              M.is_nonzero(_t(M, [0.5])), M.is_same_size(M.ones(2), M.ones(2, 1)), M.scalar_tensor(3)]),
    ("is_nonzero_many", lambda M: M.is_nonzero(M.ones(2))),
    ("positive_bool", lambda M: M.positive(_t(M, [True]))),
    ("isin", lambda M: [M.isin(_t(M, [1, 2, 3]), _t(M, [2, 5])), M.isin(_t(M, [1, 2, 3]), 2, invert=True),
                        M.isin(_t(M, [[1.0, 2.0]]), _t(M, [2.0]))]),
    ("vdot_2d", lambda M: M.vdot(M.ones(2, 2), M.ones(2, 2))),
    ("inner_mismatch", lambda M: M.inner(M.ones(2, 3), M.ones(2))),
    ("dist_int", lambda M: M.dist(_t(M, [1.0, 2.0]), _t(M, [4.0, 6.0]), 0)),
    ("matrix_exp_values", lambda M: [M.linalg.matrix_exp(M.zeros(2, 2)), M.matrix_exp(_t(M, [[0.0, 1.0], [-1.0, 0.0]])),
                                     M.matrix_exp(_t(M, [[10.0, 2.0], [0.5, -3.0]])), M.matrix_exp(M.ones(2, 3))]),
    ("cov_edges", lambda M: [M.cov(_t(M, [[1, 2, 4], [3, 1, 0]])), M.cov(_t(M, [1.0, 2.0, 4.0])),
                             M.corrcoef(_t(M, [1.0, 2.0, 4.0])), M.cov(_t(M, [[1.0, 2.0]]), correction=2),
                             M.trapezoid(M.ones(0)), M.trapezoid(_t(M, [1.0, 2.0, 3.0]), _t(M, [0.0, 1.0, 3.0]))]),
    ("cov_3d", lambda M: M.cov(M.ones(2, 2, 2))),
    ("triangular_fields", lambda M: [t.shape for t in M.triangular_solve(M.ones(3, 1), M.eye(3) * 2)]),
]


@pytest.mark.parametrize("what,fn", VALUES, ids=[v[0] for v in VALUES])
def test_values_dtypes_errors_match_torch(what, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_as_torch(fn)
