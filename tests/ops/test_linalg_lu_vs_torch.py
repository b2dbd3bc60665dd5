"""The LU family (ops/linalg_lu.py) against PyTorch and finite differences: values,
pivots, strides, node names and saved values, gradients for square, wide, tall and
batched matrices through every entry point (Note [LU derivatives]), double backward, and
the errors."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import assert_same_as_torch

from .test_vs_torch import compare_with_torch


def _parts(M, r):
    return M.cat([p.flatten() for p in r if p.is_floating_point()])


def _solve(M, a, b, left, adjoint):
    LU, piv = M.linalg.lu_factor(a)
    return M.linalg.lu_solve(LU, piv, b if left else b.mT, left=left, adjoint=adjoint)


SHAPES = [(3, 3), (2, 4, 4), (3, 5), (5, 3), (2, 2, 3, 4), (1, 1)]
DIFFERENTIABLE = [(f"lu_factor{s}", lambda M, a, b: M.linalg.lu_factor(a).LU, [s, (1,)])
                  for s in SHAPES]
DIFFERENTIABLE += [(f"lu{s}", lambda M, a, b: _parts(M, M.linalg.lu(a)), [s, (1,)])
                   for s in SHAPES]
DIFFERENTIABLE += [(f"lu_L{s}", lambda M, a, b: M.linalg.lu(a).L, [s, (1,)]) for s in SHAPES]
DIFFERENTIABLE += [(f"lu_U{s}", lambda M, a, b: M.linalg.lu(a).U, [s, (1,)]) for s in SHAPES]
DIFFERENTIABLE += [(f"lu_unpack{s}", lambda M, a, b: _parts(M, M.lu_unpack(
    *M.linalg.lu_factor(a))), [s, (1,)]) for s in SHAPES]
DIFFERENTIABLE += [(f"lu_factor_ex{s}", lambda M, a, b: M.linalg.lu_factor_ex(a)[0] * 2,
                    [s, (1,)]) for s in SHAPES[:3]]
DIFFERENTIABLE += [
    (f"lu_solve_left{left}_adjoint{adj}_{sa}_{sb}",
     lambda M, a, b, left=left, adj=adj: _solve(M, a, b, left, adj), [sa, sb])
    for left in (True, False) for adj in (False, True)
    for sa, sb in (((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 3)), ((4, 4), (2, 4, 1)))]


@pytest.mark.parametrize("name,fn,shapes", DIFFERENTIABLE, ids=[c[0] for c in DIFFERENTIABLE])
def test_values_nodes_and_gradients_match_torch(name, fn, shapes):
    compare_with_torch(lambda M, F, *xs: fn(M, *xs), shapes)


def _torch():
    return pytest.importorskip("torch", reason="torch is the oracle of these comparisons")


@pytest.mark.host_only("compares strides and pivots with torch on the CPU")
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 5), (5, 3), (2, 4, 4)])
def test_pivots_strides_and_saved_values_as_torch(shape):
    torch = _torch()
    a = np.random.default_rng(3).standard_normal(shape)
    got, want = [], []
    for M, out in ((vg, got), (torch, want)):
        A = M.tensor(a, requires_grad=True)
        LU, piv, info = M.linalg.lu_factor_ex(A)
        P, L, U = M.linalg.lu(A)
        P2, L2, U2 = M.lu_unpack(LU, piv)
        out.append([tuple(t.stride()) for t in (LU, piv, info, P, L, U, P2, L2, U2)])
        out.append([str(t.dtype).split(".")[-1] for t in (piv, info, P)])
        out.append([t.requires_grad for t in (LU, piv, info, P, L, U, P2, L2, U2)])
        out.append(piv.tolist())
        out.append(sorted(n for n in dir(LU.grad_fn) if n.startswith("_saved_")))
        out.append(sorted(n for n in dir(L.grad_fn) if n.startswith("_saved_")))
        out.append(sorted(n for n in dir(L2.grad_fn) if n.startswith("_saved_")))
        out.append([LU.grad_fn._saved_pivots.tolist(), L.grad_fn._saved_pivot,
                    L2.grad_fn._saved_LU_data_sym_argsize_minus_2])
        np_p = P.numpy()
        out.append(np.abs(np_p @ L.detach().numpy() @ U.detach().numpy() - a).max() < 1e-12)
    assert got == want


def test_a_singular_matrix_as_torch():
    _torch()
    sing = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]

    def cases(M):
        A = M.tensor(sing, dtype=M.float64)
        r = M.linalg.lu_factor_ex(A)
        P, L, U = M.linalg.lu(A)
        batch = M.stack([M.eye(3, dtype=M.float64), A, M.zeros(3, 3, dtype=M.float64)])
        return [r.LU, r.pivots, r.info, P, L, U, M.linalg.lu_factor_ex(batch).info,
                M.linalg.lu_factor_ex(M.zeros(2, 3, dtype=M.float64)).info]
    assert_same_as_torch(cases)


ERRORS = [
    ("lu_factor_singular", lambda M: M.linalg.lu_factor(M.tensor([[1.0, 2.0], [2.0, 4.0]]))),
    ("lu_factor_singular_batch", lambda M: M.linalg.lu_factor(M.zeros(2, 3, 3))),
    ("lu_factor_ex_check", lambda M: M.linalg.lu_factor_ex(M.zeros(3, 3), check_errors=True)),
    ("lu_factor_1d", lambda M: M.linalg.lu_factor(M.ones(3))),
    ("lu_factor_ex_1d", lambda M: M.linalg.lu_factor_ex(M.ones(3))),
    ("lu_1d", lambda M: M.linalg.lu(M.ones(3))),
    ("lu_int", lambda M: M.linalg.lu(M.ones(3, 3, dtype=M.int64))),
    ("lu_factor_int", lambda M: M.linalg.lu_factor(M.ones(3, 3, dtype=M.int64))),
    ("lu_solve_shapes", lambda M: M.linalg.lu_solve(*M.linalg.lu_factor(M.eye(3)), M.ones(4, 2))),
    ("lu_solve_pivots_dtype", lambda M: M.linalg.lu_solve(
        M.linalg.lu_factor(M.eye(3))[0], M.linalg.lu_factor(M.eye(3))[1].long(), M.ones(3, 2))),
    ("lu_solve_1d", lambda M: M.linalg.lu_solve(*M.linalg.lu_factor(M.eye(3)), M.ones(3))),
    ("lu_solve_rect", lambda M: M.linalg.lu_solve(M.ones(3, 4), M.linalg.lu_factor(M.eye(3))[1],
                                                  M.ones(3, 2))),
    ("lu_solve_dtypes", lambda M: M.linalg.lu_solve(*M.linalg.lu_factor(M.eye(3)),
                                                    M.ones(3, 2, dtype=M.float64))),
    ("lu_unpack_pivots_dtype", lambda M: M.lu_unpack(M.eye(3), M.tensor([1, 2, 3]))),
    ("lu_legacy", lambda M: M.lu(M.tensor([[4.0, 3.0], [6.0, 3.0]]))),
    ("lu_legacy_1d", lambda M: M.lu(M.ones(3))),
    ("lu_legacy_infos", lambda M: M.lu(M.zeros(2, 2), get_infos=True)),
    ("lu_method_and_solve", lambda M: M.ones(2, 1).lu_solve(*M.tensor([[4.0, 3.0], [6.0, 3.0]]).lu())),
    ("lu_unpack_flags", lambda M: [t.shape for t in M.lu_unpack(*M.linalg.lu_factor(M.eye(3)),
                                                               unpack_data=False)]
     + [t.shape for t in M.lu_unpack(*M.linalg.lu_factor(M.eye(3)), unpack_pivots=False)]),
]


@pytest.mark.parametrize("what,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_values_and_errors_match_torch(what, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_as_torch(fn)


@pytest.mark.host_only("PyTorch's CPU refuses LU without pivoting (its GPU computes it)")
@pytest.mark.parametrize("fn", [lambda M: M.linalg.lu(M.eye(3), pivot=False),
                                lambda M: M.linalg.lu_factor(M.eye(3), pivot=False),
                                lambda M: M.linalg.lu_factor_ex(M.eye(3), pivot=False)])
def test_no_pivoting_is_refused_on_the_cpu_as_torch(fn):
    assert_same_as_torch(fn)


def test_no_pivoting_on_a_device_factors_a_as_it_stands():
    """Off the CPU (PyTorch's GPU, viewgrad's 'strict' test device), pivot=False is LU
    without row exchanges: P is the identity, the pivots are 1, 2, ..., and L U = A."""
    a = np.array([[1.0, 2.0, 0.5], [3.0, 1.0, 2.0], [0.5, 4.0, 1.0]])
    A = vg.tensor(a, device="strict", requires_grad=True)
    P, L, U = vg.linalg.lu(A, pivot=False)
    LU, piv = vg.linalg.lu_factor(A, pivot=False)
    assert piv.cpu().tolist() == [1, 2, 3]
    np.testing.assert_allclose(P.cpu().numpy(), np.eye(3))
    np.testing.assert_allclose((L @ U).detach().cpu().numpy(), a, atol=1e-12)
    assert abs(L.detach().cpu().numpy()[1, 0] - 3.0) < 1e-12   # (no exchange: a[1,0] / a[0,0])
    (L.sum() + U.sum()).backward()
    assert A.grad is not None


def test_the_old_entry_points_warn_as_torch():
    with pytest.warns(UserWarning, match="torch.lu is deprecated"):
        vg.lu(vg.eye(2))
    with pytest.warns(UserWarning, match="torch.lu_solve is deprecated"):
        vg.lu_solve(vg.ones(2, 1), *vg.linalg.lu_factor(vg.eye(2)))


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 4), (4, 3)])
def test_gradcheck_and_gradgradcheck(shape):
    rng = np.random.default_rng(11)
    A = vg.tensor(rng.standard_normal(shape), dtype=vg.float64, requires_grad=True)
    assert vg.autograd.gradcheck(lambda a: vg.linalg.lu_factor(a).LU, (A,))
    assert vg.autograd.gradcheck(lambda a: _parts(vg, vg.linalg.lu(a)), (A,))
    assert vg.autograd.gradgradcheck(lambda a: _parts(vg, vg.linalg.lu(a)), (A,))
    assert vg.autograd.gradgradcheck(lambda a: vg.linalg.lu_factor(a).LU, (A,))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_gradcheck_and_gradgradcheck(left, adjoint):
    rng = np.random.default_rng(12)
    A = vg.tensor(rng.standard_normal((3, 3)) + 3 * np.eye(3), dtype=vg.float64,
                  requires_grad=True)
    Bm = vg.tensor(rng.standard_normal((3, 2) if left else (2, 3)), dtype=vg.float64,
                   requires_grad=True)

    def f(a, b):
        LU, piv = vg.linalg.lu_factor(a)
        return vg.linalg.lu_solve(LU, piv, b, left=left, adjoint=adjoint)
    assert vg.autograd.gradcheck(f, (A, Bm))
    assert vg.autograd.gradgradcheck(f, (A, Bm))


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (2, 0, 3), (0, 2, 2)])
def test_empty_matrices_as_torch(shape):
    """An empty matrix (or batch) factors to empty results of PyTorch's shapes (NumPy's
    reshape to (-1, m, n) refused an empty one: the batch's size is given now)."""
    torch = _torch()
    got = []
    for M in (vg, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = M.zeros(*shape)
            LU, piv = M.linalg.lu_factor(x)
            outs = (LU, piv, *M.linalg.lu(x), *M.lu_unpack(LU, piv), *M.lu(x))
        got.append([(tuple(t.shape), str(t.dtype).split(".")[-1]) for t in outs])
    assert got[0] == got[1]
