"""The linear-algebra functions (ops/linalg_solve.py, ops/linalg_decomp.py,
ops/linalg_names.py) against PyTorch: values, node names, gradients (singular vectors
compared through sign-free functions), named tuples and the errors for singular and
non-positive-definite matrices."""
import warnings

import pytest

from tests.helpers import assert_same_as_torch

from .test_vs_torch import compare_with_torch


def _spd(M, a):
    return a @ a.mT + M.eye(a.shape[-1], dtype=a.dtype)


def _sq(parts):
    return [p.pow(2) if p.dim() > 1 else p for p in parts]


DIFFERENTIABLE = [
    ("inv", lambda M, a, b: M.linalg.inv(a) + M.inverse(b).sum(), [(3, 3), (2, 2, 2)]),
    ("inverse_method", lambda M, a, b: a.inverse() @ b, [(3, 3), (3, 2)]),
    ("det", lambda M, a, b: M.linalg.det(a) * M.det(b).sum() + a.det(), [(3, 3), (2, 2, 2)]),
    ("slogdet", lambda M, a, b: M.linalg.slogdet(a).logabsdet + M.slogdet(b)[1].sum(), [(3, 3), (2, 2, 2)]),
    ("logdet", lambda M, a, b: M.logdet(_spd(M, a)) + b.logdet().sum(), [(3, 3), (2, 2, 2)]),
    ("solve", lambda M, a, b: M.linalg.solve(a, b), [(3, 3), (3, 2)]),
    ("solve_vec_batched", lambda M, a, b: M.linalg.solve(a, b), [(2, 3, 3), (3,)]),
    ("solve_right", lambda M, a, b: M.linalg.solve(a, b, left=False), [(3, 3), (2, 3)]),
    ("solve_right_batched", lambda M, a, b: M.linalg.solve(a, b, left=False), [(2, 3, 3), (2, 4, 3)]),
    ("cholesky", lambda M, a, b: M.linalg.cholesky(_spd(M, a)), [(3, 3), (1,)]),
    ("cholesky_upper_batched", lambda M, a, b: M.linalg.cholesky(_spd(M, a), upper=True), [(2, 3, 3), (1,)]),
    ("cholesky_legacy", lambda M, a, b: _spd(M, a).cholesky(), [(3, 3), (1,)]),
    ("qr", lambda M, a, b: M.linalg.qr(a).Q * 2 + M.linalg.qr(b)[1].sum(), [(4, 3), (3, 4)]),
    ("qr_complete_wide", lambda M, a, b: M.linalg.qr(b, mode="complete")[0], [(4, 3), (3, 4)]),
    ("svd", lambda M, a, b: M.cat([p.flatten() for p in _sq(M.linalg.svd(a, full_matrices=False))]), [(4, 3), (1,)]),
    ("svd_wide", lambda M, a, b: M.cat([p.flatten() for p in _sq(M.linalg.svd(a, full_matrices=False))]), [(3, 5), (1,)]),
    ("svd_full", lambda M, a, b: M.linalg.svd(a).S + (M.linalg.svd(a).U[:, :2] @ M.linalg.svd(a).Vh).pow(2).sum(), [(4, 2), (1,)]),
    ("svd_legacy", lambda M, a, b: M.svd(a).S * M.svd(a).V.pow(2).sum(0), [(4, 3), (1,)]),
    ("svdvals", lambda M, a, b: M.linalg.svdvals(a), [(2, 4, 3), (1,)]),
    ("eigh", lambda M, a, b: M.cat([p.flatten() for p in _sq(M.linalg.eigh(a + a.mT))]), [(3, 3), (1,)]),
    ("eigh_upper", lambda M, a, b: M.linalg.eigh(a, UPLO="U").eigenvectors.pow(2), [(3, 3), (1,)]),
    ("eigvalsh", lambda M, a, b: M.linalg.eigvalsh(a), [(2, 3, 3), (1,)]),
    ("lstsq", lambda M, a, b: M.linalg.lstsq(a, b).solution, [(4, 3), (4, 2)]),
    ("pinv", lambda M, a, b: M.linalg.pinv(a) + M.pinverse(b).sum(), [(3, 4), (4, 2)]),
    ("matrix_power", lambda M, a, b: M.linalg.matrix_power(a, 5) + M.matrix_power(a, -2) + a.matrix_power(0), [(3, 3), (1,)]),
    ("multi_dot", lambda M, a, b: M.linalg.multi_dot([a, b, b.mT, a[0]]), [(3, 4), (4, 2)]),
    ("cond", lambda M, a, b: M.linalg.cond(a) * M.linalg.cond(b, -2), [(3, 3), (3, 3)]),
]


@pytest.mark.parametrize("name,fn,shapes", DIFFERENTIABLE, ids=[c[0] for c in DIFFERENTIABLE])
def test_differentiable_matches_torch(name, fn, shapes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare_with_torch(lambda M, F, *xs: fn(M, *xs), shapes)


def _t(M, v, dtype=None):
    return M.tensor(v, dtype=dtype)


_SING = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]
_NOT_PD = [[1.0, 2.0], [2.0, 1.0]]
VALUES = [
    ("inv_singular", lambda M: M.linalg.inv(_t(M, _SING))),
    ("inv_singular_batch", lambda M: M.linalg.inv(M.stack([M.eye(3), _t(M, _SING)]))),
    ("inv_singular_first", lambda M: M.inverse(_t(M, [[0.0, 0.0], [0.0, 1.0]]))),
    ("inv_rect", lambda M: M.linalg.inv(M.ones(2, 3))),
    ("inv_int", lambda M: M.linalg.inv(M.eye(2, dtype=M.int64))),
    ("inv_1d", lambda M: M.inverse(M.ones(3))),
    ("det_rect", lambda M: M.linalg.det(M.ones(2, 3))),
    ("det_values", lambda M: [M.det(_t(M, _SING)), M.linalg.det(M.eye(3) * 2)]),
    ("solve_singular", lambda M: M.linalg.solve(_t(M, _SING), M.ones(3))),
    ("solve_shapes", lambda M: M.linalg.solve(M.eye(3), M.ones(2))),
    ("cholesky_not_pd", lambda M: M.linalg.cholesky(_t(M, _NOT_PD))),
    ("cholesky_not_pd_batch", lambda M: M.linalg.cholesky(M.stack([M.eye(2), _t(M, _NOT_PD)]))),
    ("cholesky_legacy_not_pd", lambda M: M.cholesky(_t(M, _NOT_PD))),
    ("slogdet_singular", lambda M: [float(v) for v in M.linalg.slogdet(_t(M, _SING))]),
    ("slogdet_fields", lambda M: M.linalg.slogdet(-M.eye(3) * 2)),
    ("logdet_negative", lambda M: [M.logdet(-M.eye(3)), M.logdet(_t(M, _SING))]),
    ("matrix_rank", lambda M: [M.linalg.matrix_rank(_t(M, _SING)), M.linalg.matrix_rank(_t(M, _SING), atol=1.0, rtol=0.0),
                               M.linalg.matrix_rank(M.stack([M.eye(3), _t(M, _SING)]))]),
    ("matrix_power_rect", lambda M: M.linalg.matrix_power(M.ones(2, 3), 2)),
    ("matrix_power_singular", lambda M: M.linalg.matrix_power(_t(M, _SING), -1)),
    ("multi_dot_one", lambda M: M.linalg.multi_dot([M.ones(2, 2)])),
    ("multi_dot_3d", lambda M: M.linalg.multi_dot([M.ones(2, 2, 2), M.ones(2, 2)])),
    ("multi_dot_vectors", lambda M: M.linalg.multi_dot([M.arange(3.0), M.ones(3, 2), M.arange(2.0)])),
    ("eigh_rect", lambda M: M.linalg.eigh(M.ones(2, 3))),
    ("eigh_uplo", lambda M: [M.linalg.eigvalsh(_t(M, [[1.0, 5.0], [2.0, 3.0]]), UPLO=u) for u in "LU"]),
    ("svd_int", lambda M: M.linalg.svd(M.ones(2, 2, dtype=M.int64))),
    ("svd_shapes", lambda M: [[t.shape for t in M.linalg.svd(M.ones(3, 2))],
                              [t.shape for t in M.svd(M.ones(3, 2))],
                              [t.shape for t in M.svd(M.ones(3, 2), some=False)]]),
    ("qr_bad_mode", lambda M: M.linalg.qr(M.ones(2, 2), mode="x")),
    ("qr_shapes", lambda M: [[t.shape for t in M.linalg.qr(M.ones(3, 2), mode=m)] for m in ("reduced", "r", "complete")]),
    ("lstsq_shapes", lambda M: M.linalg.lstsq(M.ones(3, 2), M.ones(2, 2))),
    ("lstsq_fields", lambda M: M.linalg.lstsq(_t(M, [[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), M.ones(3, 1))[1:]),
    ("cond_norms", lambda M: [M.linalg.cond(_t(M, [[1.0, 2.0], [3.0, 4.0]]), p) for p in ("fro", "nuc", 1, -1, float("inf"), None)]),
    ("pinv_singular", lambda M: M.linalg.pinv(_t(M, _SING))),
    ("linalg_extras", lambda M: [M.linalg.vecdot(M.ones(2, 3), M.arange(3.0)), M.linalg.diagonal(M.eye(3) * 2),
                                 M.linalg.inv_ex(M.eye(2) * 2)[0], M.linalg.solve_ex(M.eye(2), M.ones(2))[0]]),
]


@pytest.mark.parametrize("what,fn", VALUES, ids=[v[0] for v in VALUES])
def test_values_dtypes_errors_match_torch(what, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = assert_same_as_torch(fn)
    if ours[0] == "raise" and ours[1] == "_LinAlgError":
        import viewgrad as vg
        assert issubclass(vg.linalg.LinAlgError, RuntimeError)


def test_singular_messages_are_torchs():
    import viewgrad as vg
    with pytest.raises(vg.linalg.LinAlgError, match=r"^linalg.inv: \(Batch element 1\): The "
                       r"diagonal element 3 is zero, the inversion could not be completed"):
        vg.linalg.inv(vg.stack([vg.eye(3), vg.tensor(_SING)]))
    with pytest.raises(RuntimeError, match=r"leading minor of order 2 is not positive-definite"):
        vg.linalg.cholesky(vg.tensor(_NOT_PD))
