"""Linear algebra's edges against PyTorch, found by a differential fuzz: the products'
zero alpha and beta (NaN ignored where BLAS ignores it), a triangular or Cholesky solve
with a zero on the diagonal (inf and NaN, not an error), ``pinv``/``matrix_rank`` with
``hermitian=True`` (the lower triangle's eigenvalues), ``svd(compute_uv=False)``'s
zeros, and a custom Function's gradient cast to its input's dtype."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import raised

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares values with torch on the CPU")

NAN = float("nan")


def _values(r):
    return np.asarray(r.detach().tolist(), dtype=float)


def _same(a, b):
    return np.array_equal(np.isnan(a), np.isnan(b)) and np.allclose(
        np.nan_to_num(a, posinf=1e300, neginf=-1e300),
        np.nan_to_num(b, posinf=1e300, neginf=-1e300), rtol=1e-10, atol=1e-12)


PRODUCTS = {
    "addmm": (lambda M, s, a, b, **k: M.addmm(s, a, b, **k), (2, 2), (2, 3), (3, 2)),
    "addmm_": (lambda M, s, a, b, **k: s.clone().addmm_(a, b, **k), (2, 2), (2, 3), (3, 2)),
    "addmm bcast": (lambda M, s, a, b, **k: M.addmm(s, a, b, **k), (2,), (2, 3), (3, 2)),
    "addmv": (lambda M, s, a, b, **k: M.addmv(s, a, b, **k), (2,), (2, 3), (3,)),
    "baddbmm": (lambda M, s, a, b, **k: M.baddbmm(s, a, b, **k), (2, 2, 2), (2, 2, 3),
                (2, 3, 2)),
    "addr": (lambda M, s, a, b, **k: M.addr(s, a, b, **k), (2, 3), (2,), (3,)),
    "addbmm": (lambda M, s, a, b, **k: M.addbmm(s, a, b, **k), (2, 2), (3, 2, 3), (3, 3, 2)),
    "addbmm_": (lambda M, s, a, b, **k: s.clone().addbmm_(a, b, **k), (2, 2), (3, 2, 3),
                (3, 3, 2)),
}


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_zero_alpha_and_beta_as_pytorchs(name):
    fn, *shapes = PRODUCTS[name]
    for nan_at in range(3):
        for beta, alpha in [(0, 1), (1, 0), (0, 0), (0, 2.5), (2.5, 0), (1, 1)]:
            outs = []
            for M in (torch, vg):
                ts = [M.full(s, NAN if i == nan_at else 1.5, dtype=M.float64)
                      for i, s in enumerate(shapes)]
                outs.append(_values(fn(M, *ts, beta=beta, alpha=alpha)))
            assert _same(outs[1], outs[0]), (name, nan_at, beta, alpha, outs)


def test_singular_triangular_solves_as_pytorchs():
    rng = np.random.default_rng(0)
    for _ in range(150):
        n, k = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        A = rng.standard_normal((n, n)).round(0)
        A[rng.integers(0, n), rng.integers(0, n)] = 0
        np.fill_diagonal(A, np.where(rng.random(n) < 0.5, 0, A.diagonal()))
        Bm = rng.standard_normal((n, k)).round(0)
        for upper in (True, False):
            for left in (True, False):
                outs = [_values(M.linalg.solve_triangular(
                    M.tensor(A), M.tensor(Bm if left else Bm.T), upper=upper, left=left))
                    for M in (torch, vg)]
                assert _same(outs[1], outs[0]), (A, Bm, upper, left)
            outs = [_values(M.cholesky_solve(M.tensor(Bm), M.tensor(A), upper=upper))
                    for M in (torch, vg)]
            assert _same(outs[1], outs[0]), (A, Bm, upper)


def test_a_singular_solve_keeps_its_own_error():
    # NumPy's LinAlgError is a ValueError: it must not come out as a broadcasting message
    for M in (torch, vg):
        err = raised(lambda: M.linalg.solve(M.zeros(2, 2, dtype=M.float64),
                                            M.ones(2, 3, dtype=M.float64)))
        assert err is not None and "size of tensor" not in err[1], err


def test_hermitian_pinv_and_rank_as_pytorchs():
    rng = np.random.default_rng(1)
    for _ in range(60):
        n = int(rng.integers(1, 5))
        A = rng.standard_normal((2, n, n))
        if rng.random() < 0.5:   # a rank-deficient symmetric part
            A[:, :, 0] = 0
        outs = []
        for M in (torch, vg):
            a = M.tensor(A, requires_grad=True)
            P = M.linalg.pinv(a, hermitian=True)
            (P * M.tensor(np.arange(P.numel()).reshape(P.shape) * 1.0)).sum().backward()
            outs.append((_values(P), _values(a.grad),
                         M.linalg.matrix_rank(M.tensor(A), hermitian=True).tolist(),
                         P.grad_fn.name()))
        np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-7, atol=1e-8)
        assert outs[1][2:] == outs[0][2:]
    for M in (torch, vg):
        assert raised(lambda: M.linalg.pinv(M.ones(2, 3, dtype=M.float64), hermitian=True)) \
            == ("RuntimeError", "linalg.eigh: A must be batches of square matrices, but they "
                                "are 2 by 3 matrices")


def test_svd_without_vectors_as_pytorchs():
    for shape in [(3, 5), (5, 3), (2, 3, 4)]:
        for some in (True, False):
            outs = []
            for M in (torch, vg):
                A = M.ones(shape, dtype=M.float64, requires_grad=True)
                U, S, V = M.svd(A, some=some, compute_uv=False)
                outs.append([(tuple(t.shape), tuple(t.stride()), t.requires_grad,
                              float(t.abs().sum())) for t in (U, V)] + [S.grad_fn.name()])
            assert outs[1] == outs[0], (shape, some)


def test_function_gradient_cast_to_the_input_dtype():
    def make(M, to):
        class Scale(M.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return to(g * 2)
        return Scale

    for to in (lambda g: g.long(), lambda g: g.float()):
        outs = []
        for M in (torch, vg):
            x = M.ones(3, dtype=M.float64, requires_grad=True)
            g, = M.autograd.grad(make(M, to).apply(x).sum(), x)
            outs.append((str(g.dtype).replace("torch.", ""), g.tolist()))
        assert outs[1] == outs[0]
    outs = []
    for M in (torch, vg):
        x = M.ones(3, dtype=M.float64, requires_grad=True)
        outs.append(raised(lambda: make(M, lambda g: 3).apply(x).sum().backward()))
    assert outs[1] == outs[0]


def test_two_norm_double_backward_at_zero_as_pytorchs():
    # PyTorch's formula grad * (x / norm).masked_fill(norm == 0, 0): NaN in the second
    # derivative where a norm is 0 (a divisor kept at 1 there would hide it)
    fns = [lambda M, x: M.linalg.vector_norm(x, dim=1), lambda M, x: M.linalg.matrix_norm(x),
           lambda M, x: M.linalg.norm(x), lambda M, x: x.norm(dim=0),
           lambda M, x: M.linalg.vector_norm(x)]
    for i, fn in enumerate(fns):
        outs = []
        for M in (torch, vg):
            x = M.tensor([[0., 0], [3, 4]], dtype=M.float64, requires_grad=True)
            g, = M.autograd.grad(fn(M, x).sum(), x, create_graph=True)
            outs.append((g.tolist(), _values(M.autograd.grad(g.sum(), x)[0])))
        assert outs[1][0] == outs[0][0] and _same(outs[1][1], outs[0][1]), i


SING = [[1., 2], [2, 4]]
EYE = [[1., 0], [0, 1]]
EX_CASES = [
    lambda M: M.linalg.inv_ex(M.tensor(SING, dtype=M.float64)),
    lambda M: M.linalg.inv_ex(M.tensor([SING, EYE], dtype=M.float64)),
    lambda M: M.linalg.inv_ex(M.zeros(2, 2, dtype=M.float64)),
    lambda M: M.linalg.inv_ex(M.eye(2, dtype=M.float64)),
    lambda M: M.linalg.solve_ex(M.tensor([SING, EYE], dtype=M.float64),
                                M.ones(3, 1, 2, 1, dtype=M.float64)),
    lambda M: M.linalg.solve_ex(M.tensor(SING, dtype=M.float64),
                                M.ones(3, 2, 1, dtype=M.float64)),
    lambda M: M.linalg.solve_ex(M.tensor([SING, EYE], dtype=M.float64),
                                M.ones(2, 2, dtype=M.float64)),
    lambda M: M.linalg.solve_ex(M.tensor([SING, EYE], dtype=M.float64),
                                M.ones(2, dtype=M.float64)),
    lambda M: M.linalg.solve_ex(M.tensor([SING, EYE], dtype=M.float64),
                                M.arange(8., dtype=M.float64).reshape(2, 2, 2), left=False),
    lambda M: M.linalg.cholesky_ex(M.tensor([[1., 2], [2, 1]], dtype=M.float64)),
    lambda M: M.linalg.cholesky_ex(M.tensor([[[1., 2], [2, 1]], [[-1, 2], [2, 1]],
                                             [[2, 1], [1, 2]]], dtype=M.float64), upper=True),
    lambda M: M.linalg.inv_ex(M.tensor(SING, dtype=M.float64), check_errors=True),
    lambda M: M.linalg.solve_ex(M.tensor(SING, dtype=M.float64), M.ones(2, dtype=M.float64),
                                check_errors=True),
    lambda M: M.linalg.cholesky_ex(M.tensor([SING], dtype=M.float64), check_errors=True),
    lambda M: M.linalg.solve(M.eye(3, dtype=M.float64), M.ones(3, dtype=M.float64),
                             left=False),
    lambda M: M.linalg.solve(M.eye(3, dtype=M.float64).expand(2, 3, 3),
                             M.ones(2, 3, dtype=M.float64), left=False),
]


@pytest.mark.parametrize("i", range(len(EX_CASES)))
def test_ex_functions_report_info_as_pytorchs(i):
    outs = []
    for M in (torch, vg):
        err = raised(lambda: EX_CASES[i](M))
        if err is not None:
            outs.append(err[1])
            continue
        r = EX_CASES[i](M)
        outs.append((type(r).__name__, _values(r[0]), r[1].tolist(),
                     str(r[1].dtype).replace("torch.", "")))
    if isinstance(outs[0], str):
        assert outs[1] == outs[0]
    else:
        assert outs[1][0] == outs[0][0] and outs[1][2:] == outs[0][2:]
        assert _same(outs[1][1], outs[0][1]), outs


def test_ex_functions_on_random_singular_matrices_as_pytorchs():
    rng = np.random.default_rng(4)
    for _ in range(200):
        n = int(rng.integers(1, 5))
        A = rng.standard_normal((n, n)).round(0)
        if rng.random() < 0.7 and n > 1:
            r = int(rng.integers(0, n))
            A[r] = A[(r + 1) % n] * rng.integers(-2, 3)
        S = (A + A.T).round(1)
        outs = []
        for M in (torch, vg):
            inv, info = M.linalg.inv_ex(M.tensor(A))
            L, cinfo = M.linalg.cholesky_ex(M.tensor(S))
            x, sinfo = M.linalg.solve_ex(M.tensor(A), M.tensor(A[:, :1] + 1))
            outs.append((_values(inv), info.item(), _values(L), cinfo.item(), _values(x),
                         sinfo.item()))
        for a, b in zip(outs[1], outs[0]):
            assert _same(a, b) if isinstance(a, np.ndarray) else a == b, (A, outs)


def _outcome_and_grad(M, A, fn):
    try:
        x = M.tensor(A, dtype=M.float64, requires_grad=True)
        r = fn(M, x)
    except Exception as e:   # noqa: BLE001 - compared with torch's
        return type(e).__name__.lstrip("_"), str(e)
    v = _values(r)
    try:
        r.sum().backward()
        g = None if x.grad is None else _values(x.grad)
    except Exception as e:   # noqa: BLE001 - torch 2.13's cond(ord=1) backward raises too
        g = (type(e).__name__, str(e)[:40])   # (the sentence; viewgrad may add a hint)
    return v, g, r.grad_fn is None


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, float("inf"), -float("inf"), "fro", "nuc",
                               3, "x"])
def test_cond_as_pytorchs(p):
    # PyTorch's steps: matrix_norm(A) * matrix_norm(inv_ex(A) with failures filled with
    # inf), its checks in its order, 0 for an empty matrix, and (as torch 2.13's) a
    # backward that finds inv_ex's saved inverse modified by that masked_fill_
    sing = [[1., 2], [2, 4]]
    batch = [sing, [[1., 0], [0, 2]]]
    for A in [sing, batch, [[2., 1], [1, 3]], [[0., 0], [0, 0]],
              [[1., 2, 3], [4, 5, 6]], np.zeros((0, 0)), np.zeros((0, 3)), np.zeros((2, 0, 0)),
              [1., 2]]:
        got, want = (_outcome_and_grad(M, A, lambda M, x: M.linalg.cond(x, p))
                     for M in (vg, torch))
        assert len(got) == len(want), (A, got, want)
        if isinstance(want[0], str):
            assert got == want, A
        elif p in (None, 2, -2, "nuc") and (A is sing or A is batch):
            # the singular value of a singular matrix is roundoff: its size (so the cond's
            # and its gradient's) depends on the LAPACK kernels the CPU runs, PyTorch's
            # and NumPy's alike; only "enormous (or inf), tiny, or neither" is compared
            def scale(v):
                v = np.abs(np.nan_to_num(np.asarray(v, dtype=float), posinf=np.inf))
                return np.where(v > 1e14, 2, np.where(v < 1e-14, 0, 1))
            assert np.array_equal(scale(got[0]), scale(want[0])), (A, got, want)
            assert got[2] == want[2]
        else:
            assert _same(got[0], want[0]) and got[2] == want[2], (A, got, want)
            assert (isinstance(got[1], tuple) and got[1] == want[1]) or _same(got[1], want[1])


def test_matrix_norms_of_empty_matrices_as_pytorchs():
    inf = float("inf")
    for shape in [(0, 0), (0, 3), (3, 0), (2, 0, 0), (2, 0, 3), (2, 3, 0)]:
        for o in [2, -2, 1, -1, inf, -inf, "fro", "nuc"]:
            for keepdim in (False, True):
                got, want = (_outcome_and_grad(M, np.zeros(shape), lambda M, x: M.linalg.
                                               matrix_norm(x, o, keepdim=keepdim))
                             for M in (vg, torch))
                if isinstance(want[0], str):
                    assert got == want, (shape, o)
                else:
                    assert _same(got[0], want[0]) and got[0].shape == want[0].shape
                    assert got[2] == want[2], (shape, o, keepdim)


@pytest.mark.parametrize("fname", ["vector_norm", "matrix_norm", "norm"])
def test_norm_dtype_checks_as_pytorchs(fname):
    for ind in ("int64", "float32", "float64"):
        for d in (None, "int64", "float32", "float64", "float16", "complex64"):
            outs = []
            for M in (torch, vg):
                kw = {} if d is None else {"dtype": getattr(M, d)}
                err = raised(lambda: getattr(M.linalg, fname)(M.ones(3, 3, dtype=getattr(
                    M, ind)), **kw))
                outs.append(err if err is not None else str(getattr(M.linalg, fname)(
                    M.ones(3, 3, dtype=getattr(M, ind)), **kw).dtype).replace("torch.", ""))
            assert outs[1] == outs[0], (ind, d)


def test_log_determinant_gradients_at_singular_matrices_as_pytorchs():
    # grad·A⁻ᵀ computed as PyTorch does, solve(Aᵀ, I): LAPACK's inf and NaN at a singular
    # matrix, not an error
    rng = np.random.default_rng(5)
    mats = [[[1., 2], [2, 4]], [[0., 0], [0, 0]], [[[1., 2], [2, 4]], [[2., 1], [1, 3]]]]
    for _ in range(40):
        n = int(rng.integers(1, 4))
        A = rng.standard_normal((n, n)).round(0)
        if n > 1 and rng.random() < 0.7:
            A[0] = A[-1]
        mats.append(A)
    for A in mats:
        for fn in (lambda M, x: M.linalg.slogdet(x)[1], lambda M, x: M.logdet(x)):
            got, want = (_outcome_and_grad(M, A, fn) for M in (vg, torch))
            assert _same(got[0], want[0]) and _same(got[1], want[1]), (A, got, want)


def test_qr_with_signed_zeros_and_singular_factors_as_pytorchs():
    rng = np.random.default_rng(1)
    mats = [rng.standard_normal((m, n)).round(1) for m, n in rng.integers(1, 4, (40, 2))]
    mats[0][0, 0] = -0.0   # (a Householder reflection's sign: -0.0 counts as +0.0)
    for A in mats:
        for mode in ("reduced", "complete"):
            outs = []
            for M in (torch, vg):
                x = M.tensor(A, dtype=M.float64, requires_grad=True)
                Q, R = M.linalg.qr(x, mode=mode)
                w = M.arange(float(R.numel()), dtype=M.float64).reshape(R.shape)
                err = raised(lambda: M.autograd.grad((R * w).sum() + Q.sum(), x,
                                                     retain_graph=True))
                g = err or _values(M.autograd.grad((R * w).sum() + Q.sum(), x)[0])
                outs.append((_values(Q), _values(R), g))
            assert all(_same(a, b) if isinstance(a, np.ndarray) else a == b
                       for a, b in zip(outs[1], outs[0])), (A, mode)
    # at a singular R: no error, and non-finite where PyTorch's is (LAPACK's inf/NaN)
    for A in ([[0., 0], [0, 0]], [[1., 2], [0, 0]], [[1., 0, 0], [0, 0, 0], [0, 0, 1]]):
        grads = []
        for M in (torch, vg):
            x = M.tensor(A, dtype=M.float64, requires_grad=True)
            Q, R = M.linalg.qr(x)
            grads.append(_values(M.autograd.grad(R.sum() + Q.sum(), x)[0]))
        assert np.array_equal(np.isfinite(grads[1]), np.isfinite(grads[0])), A
