"""The layout of linear-algebra results, against PyTorch: LAPACK writes matrices
column-major, and PyTorch returns its linalg results that way (batches outermost), so
``Q.stride()`` reads ``(1, m)``, ``Q.is_contiguous()`` is False and ``Q.view(-1)`` refuses
(``backend.lapack_layout``). A view of such a result, a reshape (a copy: CloneBackward0)
and the graphs built on them then follow PyTorch's too."""
import warnings

import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares strides with torch on the CPU")

_r = np.random.default_rng(0)
_A = _r.standard_normal((4, 3))
_SQ = _r.standard_normal((3, 3))
_SPD = _SQ @ _SQ.T + 3 * np.eye(3)
_B = _r.standard_normal((3, 2))


def _batch(a):
    return np.stack([a, 2 * a])


CASES = {
    "inv": lambda M, s: M.linalg.inv(M.tensor(s(_SPD))),
    "inverse": lambda M, s: M.tensor(s(_SPD)).inverse(),
    "inv_ex": lambda M, s: M.linalg.inv_ex(M.tensor(s(_SPD)))[0],
    "solve": lambda M, s: M.linalg.solve(M.tensor(s(_SPD)), M.tensor(s(_B))),
    "solve_right": lambda M, s: M.linalg.solve(M.tensor(s(_SPD)), M.tensor(s(_B.T.copy())),
                                               left=False),
    "solve_vec": lambda M, s: M.linalg.solve(M.tensor(_SPD), M.tensor(_B[:, 0].copy())),
    "solve_ex": lambda M, s: M.linalg.solve_ex(M.tensor(s(_SPD)), M.tensor(s(_B)))[0],
    "solve_triangular": lambda M, s: M.linalg.solve_triangular(
        M.tensor(s(np.triu(_SPD))), M.tensor(s(_B)), upper=True),
    "triangular_solve": lambda M, s: M.triangular_solve(M.tensor(s(_B)),
                                                        M.tensor(s(np.triu(_SPD))))[0],
    "cholesky": lambda M, s: M.linalg.cholesky(M.tensor(s(_SPD))),
    "cholesky_upper": lambda M, s: M.linalg.cholesky(M.tensor(s(_SPD)), upper=True),
    "cholesky_ex": lambda M, s: M.linalg.cholesky_ex(M.tensor(s(_SPD)))[0],
    "cholesky_legacy": lambda M, s: M.cholesky(M.tensor(s(_SPD))),
    "cholesky_solve": lambda M, s: M.cholesky_solve(M.tensor(s(_B)),
                                                    M.linalg.cholesky(M.tensor(s(_SPD)))),
    "cholesky_inverse": lambda M, s: M.cholesky_inverse(M.linalg.cholesky(M.tensor(_SPD))),
    "matrix_power_-1": lambda M, s: M.linalg.matrix_power(M.tensor(s(_SPD)), -1),
    "matrix_power_3": lambda M, s: M.linalg.matrix_power(M.tensor(s(_SQ)), 3),
    "lstsq": lambda M, s: M.linalg.lstsq(M.tensor(s(_A)), M.tensor(s(_A[:, :2].copy()))).solution,
    "pinv": lambda M, s: M.linalg.pinv(M.tensor(s(_A))),
    "matrix_exp": lambda M, s: M.linalg.matrix_exp(M.tensor(s(_SQ))),
    "qr_Q": lambda M, s: M.linalg.qr(M.tensor(s(_A)))[0],
    "qr_R": lambda M, s: M.linalg.qr(M.tensor(s(_A)))[1],
    "qr_complete_Q": lambda M, s: M.linalg.qr(M.tensor(s(_A)), mode="complete")[0],
    "qr_legacy": lambda M, s: M.qr(M.tensor(s(_A)))[0],
    "svd_U": lambda M, s: M.linalg.svd(M.tensor(s(_A)), full_matrices=False)[0],
    "svd_S": lambda M, s: M.linalg.svd(M.tensor(s(_A)), full_matrices=False)[1],
    "svd_Vh": lambda M, s: M.linalg.svd(M.tensor(s(_A)))[2],
    "svd_full_U": lambda M, s: M.linalg.svd(M.tensor(s(_A)))[0],
    "svd_legacy_V": lambda M, s: M.svd(M.tensor(s(_A)))[2],
    "eigh_vectors": lambda M, s: M.linalg.eigh(M.tensor(s(_SPD)))[1],
    "eigh_values": lambda M, s: M.linalg.eigh(M.tensor(s(_SPD)))[0],
}


@pytest.mark.parametrize("batched", [False, True], ids=["matrix", "batch"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_result_strides_are_pytorchs(name, batched):
    shape = _batch if batched else (lambda a: a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = CASES[name](torch, shape)
        except Exception as e:   # noqa: BLE001 - a batched case torch does not take
            pytest.skip(f"torch refuses it: {type(e).__name__}")
    got = CASES[name](vg, shape)
    assert got.shape == tuple(want.shape)
    assert got.stride() == want.stride(), f"{name}: viewgrad {got.stride()}, torch {want.stride()}"
    assert got.is_contiguous() == want.is_contiguous()
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), atol=1e-9) \
        if not name.startswith(("qr", "svd", "eigh_vectors")) else None


def test_a_column_major_result_refuses_view_as_pytorch():
    Q = vg.linalg.qr(vg.tensor(_A))[0]
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        Q.view(-1)
    tq = torch.linalg.qr(torch.tensor(_A))[0]
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        tq.view(-1)
    assert Q.reshape(-1).tolist() == pytest.approx(Q.contiguous().view(-1).tolist())


def test_graphs_on_decompositions_read_as_pytorchs():
    """A flatten of U (column-major) is a copy in both: CloneBackward0, then
    UnsafeViewBackward0 (the case in the module-graph sweep that used to read ViewBackward0)."""
    def names(M):
        x = M.tensor(_A, requires_grad=True)
        U = M.linalg.svd(x, full_matrices=False)[0]
        fn = (U ** 2).flatten().grad_fn
        out = []
        while fn is not None:
            out.append(fn.name())
            fn = fn.next_functions[0][0] if fn.next_functions else None
        return out
    assert names(vg) == names(torch)   # (name() with its C++ namespace, as PyTorch)
