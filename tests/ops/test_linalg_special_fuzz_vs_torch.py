"""What a differential fuzz of linear algebra, reductions and special functions against
PyTorch found, each fixed and pinned here: values, dtypes, first and second gradients,
and errors, compared with torch on the same program.

* ``max(a, b)`` / ``min(a, b)`` are PyTorch's maximum / minimum (NaN propagates, a tie
  halves the gradient; viewgrad took a where(a >= b, a, b)).
* var / std with ``correction >= N``: PyTorch's var_backward has two branches
  (Note [var's gradient without degrees of freedom], ops/stats.py).
* a tensor exponent 0.5 reached NumPy's sqrt shortcut (NaN at -inf where pow gives
  inf); ``x ** -0.5`` is 1/sqrt, as PyTorch's (-inf at -0, NaN at -inf).
* solvers do not promote: linalg.solve(_ex), lstsq, cholesky_solve, triangular_solve,
  vecdot, multi_dot, cdist refuse mixed dtypes; solve_triangular solves in A's dtype.
* inv_ex / cholesky_ex / solve_ex of 0 x 0 matrices crashed.
* slogdet's gradient at a singular matrix raises under create_graph (PyTorch solves with
  linalg.solve there), not in a plain backward.
* the double backward of vector_norm (p < 1) and dist (p = 2, p < 1) at zero is NaN, as
  PyTorch's masked formulas make it.
* nanquantile's and var_mean's errors in PyTorch's words.
"""
import math

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import assert_same_as_torch

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these comparisons")

pytestmark = pytest.mark.host_only("compares with torch CPU tensors")

NAN, INF = math.nan, math.inf


def _grads(M, fn, arrays, second=True, seed=0):
    """fn's outputs, the gradient of a fixed random projection of them, and (``second``)
    the gradient of a projection of that gradient: all as numpy arrays."""
    rng = np.random.default_rng(seed)
    xs = [M.tensor(a, dtype=M.float64, requires_grad=True) for a in arrays]
    out = fn(M, *xs)
    outs = out if isinstance(out, tuple) else (out,)
    loss = sum((o * M.tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype)).sum()
               for o in outs)
    g = M.autograd.grad(loss, xs, create_graph=second)
    res = [o.detach().numpy() for o in outs] + [x.detach().numpy() for x in g]
    live = [x for x in g if x.requires_grad]   # (a constant gradient has no second one)
    res.append(np.array([x.requires_grad for x in g]))
    if second and live:
        loss2 = sum((x * M.tensor(rng.standard_normal(tuple(x.shape)), dtype=x.dtype)).sum()
                    for x in live)
        res += [x.numpy() for x in M.autograd.grad(loss2, xs, allow_unused=True)
                if x is not None]
    return res


def _same(fn, arrays, second=True, rtol=1e-10, atol=1e-12):
    theirs, ours = _grads(torch, fn, arrays, second), _grads(vg, fn, arrays, second)
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=f"item {i}")
        assert np.array_equal(np.isnan(a), np.isnan(b)), (i, a, b)


# -- max(a, b), min(a, b) --------------------------------------------------------------------

@pytest.mark.parametrize("name", ["max", "min"])
def test_binary_max_min_is_maximum_minimum(name):
    a = [NAN, 1.0, 2.0, 0.0, -3.0, INF]
    b = [1.0, 1.0, 0.0, -0.0, NAN, INF]
    _same(lambda M, x, y: getattr(M, name)(x, y), [np.array(a), np.array(b)], second=False)
    _same(lambda M, x, y: getattr(x, name)(y), [np.array(a), np.array(b)], second=False)
    assert_same_as_torch(lambda M: type(getattr(M, name)(
        M.tensor([1.0], requires_grad=True), M.tensor([1.0])).grad_fn).__name__)
    assert_same_as_torch(lambda M: getattr(M, name)(M.tensor([1.0, 5.0]), M.tensor([2, 3])))


# -- var / std with no degrees of freedom ----------------------------------------------------

@pytest.mark.parametrize("op", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("correction", [2, 3, 5])
@pytest.mark.parametrize("dim", [None, 0, (0, 1)])
def test_var_std_gradient_without_degrees_of_freedom(op, correction, dim):
    x = np.array([[1.0, 2.0, 4.0]]) if dim != 0 else np.array([[1.0, 2.0, 4.0],
                                                                 [3.0, 3.0, 0.5]])
    kw = {} if dim is None else {"dim": dim}
    _same(lambda M, t: getattr(M, op)(t, correction=correction, **kw), [x])


def test_var_saved_dim_is_none_without_dim():
    assert_same_as_torch(lambda M: M.var(M.ones(3, requires_grad=True)).grad_fn._saved_dim)
    assert_same_as_torch(lambda M: M.std(M.ones(3, requires_grad=True), 0).grad_fn._saved_dim)


# -- pow ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pow_minus_half_is_rsqrt(dtype):
    x = [-0.0, 0.0, -INF, INF, 4.0, -1.0, NAN]
    assert_same_as_torch(lambda M: M.tensor(x, dtype=getattr(M, dtype)) ** -0.5,
                         rtol=0, atol=0)
    assert_same_as_torch(lambda M: M.pow(M.tensor(x, dtype=getattr(M, dtype)), -0.5),
                         rtol=0, atol=0)


@pytest.mark.parametrize("make_e", [lambda M: M.tensor(0.5), lambda M: M.tensor([0.5]),
                                    lambda M: M.tensor(0.5).expand(3),
                                    lambda M: M.tensor([0.5, 2.5, 0.5])])
def test_pow_tensor_exponent_one_half_at_minus_inf(make_e):
    assert_same_as_torch(lambda M: M.pow(M.tensor([-INF, 4.0, -0.0]), make_e(M)),
                         rtol=0, atol=0)
    assert_same_as_torch(lambda M: M.pow(M.tensor(-INF), make_e(M)), rtol=0, atol=0)


# -- solvers refuse mixed dtypes ------------------------------------------------------------

_A = np.array([[3.0, 1.0, 0.5], [0.2, 2.0, 0.1], [0.3, -0.4, 4.0]])
_MIXED = {
    "solve": lambda M, A, b: M.linalg.solve(A, b),
    "solve wrong shape": lambda M, A, b: M.linalg.solve(A, M.ones(4)),
    "solve int": lambda M, A, b: M.linalg.solve(A, M.ones(3, dtype=M.int64)),
    "solve_ex": lambda M, A, b: M.linalg.solve_ex(A, b),
    "lstsq": lambda M, A, b: M.linalg.lstsq(A, b.reshape(3, 1)),
    "lstsq int": lambda M, A, b: M.linalg.lstsq(A.int(), b.reshape(3, 1)),
    "cholesky_solve": lambda M, A, b: M.cholesky_solve(b.reshape(3, 1), A),
    "cholesky_solve, b wider": lambda M, A, b: M.cholesky_solve(A, b.reshape(3, 1)),
    "triangular_solve": lambda M, A, b: M.triangular_solve(b.reshape(3, 1), A),
    "vecdot": lambda M, A, b: M.linalg.vecdot(A, b),
    "vecdot int": lambda M, A, b: M.linalg.vecdot(A, b.int()),
    "multi_dot": lambda M, A, b: M.linalg.multi_dot([A, A, b.reshape(3, 1)]),
    "cdist": lambda M, A, b: M.cdist(A, b.reshape(1, 3)),
    "cdist, matrix product": lambda M, A, b: M.cdist(
        A, b.reshape(1, 3), compute_mode="use_mm_for_euclid_dist"),
    "solve_triangular in A's dtype": lambda M, A, b: M.linalg.solve_triangular(
        A.float(), A, upper=True),
    "solve_triangular, B int": lambda M, A, b: M.linalg.solve_triangular(
        A, b.reshape(3, 1).int(), upper=False),
}


@pytest.mark.parametrize("name", list(_MIXED))
def test_solvers_refuse_mixed_dtypes(name):
    def run(M):
        A = M.tensor(_A, dtype=M.float64)
        b = M.tensor([1.0, -2.0, 0.5])   # float32
        return _MIXED[name](M, A, b)
    assert_same_as_torch(run, rtol=1e-5, atol=1e-6, wording_too=True)


# -- the _ex functions on empty matrices ----------------------------------------------------

@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 2, 2)])
@pytest.mark.parametrize("op", ["inv_ex", "cholesky_ex", "solve_ex"])
def test_ex_functions_of_empty_matrices(shape, op):
    def run(M):
        A = M.zeros(shape, dtype=M.float64) + (M.eye(shape[-1], dtype=M.float64)
                                                if shape[-1] else 0)
        if op == "solve_ex":
            return M.linalg.solve_ex(A, M.ones(shape[:-1] + (2,), dtype=M.float64))
        return getattr(M.linalg, op)(A)
    assert_same_as_torch(run)


# -- slogdet at a singular matrix -------------------------------------------------------------

def test_slogdet_gradient_at_a_singular_matrix():
    a = [[1.0, 2.0], [1.0, 2.0]]

    def plain(M):
        x = M.tensor(a, dtype=M.float64, requires_grad=True)
        return M.autograd.grad(M.linalg.slogdet(x)[1], x)[0]

    def with_graph(M):
        x = M.tensor(a, dtype=M.float64, requires_grad=True)
        return M.autograd.grad(M.linalg.slogdet(x)[1], x, create_graph=True)[0]
    assert_same_as_torch(plain)
    assert_same_as_torch(with_graph, match="singular", wording_too=True)


# -- norms' double backward at zero ---------------------------------------------------------

@pytest.mark.parametrize("p", [0.3, 0.5, -0.5, -1.0, 2.0, 3.0, 1.5])
@pytest.mark.parametrize("x", [[0.0, 0.0, 0.0], [0.0, 1.0, -2.0], [0.0, 0.0, 3.0]])
def test_norm_double_backward_at_zero(p, x):
    x = np.array(x)
    _same(lambda M, t: M.linalg.vector_norm(t, p), [x])
    _same(lambda M, t: M.linalg.vector_norm(t.reshape(1, 3), p, dim=1), [x])
    _same(lambda M, t, u: M.dist(t, u, p), [x, np.zeros(3)])
    _same(lambda M, t, u: M.dist(t, u, p), [x, x.copy()])


# -- words ---------------------------------------------------------------------------------------

def test_nanquantile_and_var_mean_errors_in_pytorchs_words():
    for fn in (lambda M: M.nanquantile(M.zeros(0), 0.5),
               lambda M: M.nanquantile(M.ones(3), 1.5),
               lambda M: M.nanquantile(M.ones(3, dtype=M.int64), 0.5),
               lambda M: M.var_mean(M.ones(2, dtype=M.bool)),
               lambda M: M.std_mean(M.ones(2, dtype=M.int64)),
               lambda M: M.var(M.ones(2, dtype=M.int64))):
        assert_same_as_torch(fn, wording_too=True)


# -- trapezoid, cumulative_trapezoid at the edges ---------------------------------------------

@pytest.mark.parametrize("shape", [(0, 0), (0,), (2, 0), (0, 3), (1,), (2, 3)])
@pytest.mark.parametrize("dim", [-1, 0])
def test_trapezoid_of_empty_and_short_dims(shape, dim):
    y = np.arange(float(np.prod(shape))).reshape(shape)
    for fn in (lambda M: M.trapezoid(M.tensor(y, requires_grad=True), dim=dim),
               lambda M: M.trapezoid(M.tensor(y, requires_grad=True), dim=dim).requires_grad,
               lambda M: M.trapezoid(M.tensor(y).int(), dim=dim),
               lambda M: M.cumulative_trapezoid(M.tensor(y), dx=2.0, dim=dim),
               lambda M: M.cumulative_trapezoid(M.tensor(y), M.tensor(y) * 2, dim=dim),
               lambda M: M.trapezoid(M.tensor(y), M.tensor(y) * 2, dim=dim)):
        assert_same_as_torch(fn)


def test_trapezoid_of_a_0d_tensor_raises():
    for fn in (lambda M: M.trapezoid(M.tensor(1.0)),
               lambda M: M.trapezoid(M.tensor(1.0), dim=0),
               lambda M: M.cumulative_trapezoid(M.tensor(1.0))):
        assert_same_as_torch(fn, wording_too=True)


# -- tolerances as tensors, matrix_power's n, cov's weights ------------------------------------

_S = np.array([[[3.0, 0, 0], [0, 0.4, 0], [0, 0, 1e-3]], [[2.0, 0, 0], [0, 1.0, 0], [0, 0, 0.05]]])


@pytest.mark.parametrize("tol", [dict(rtol=lambda M: M.tensor([0.1, 0.5], dtype=M.float64)),
                                 dict(atol=lambda M: M.tensor([0.5, 0.0], dtype=M.float64)),
                                 dict(atol=lambda M: M.tensor([0.01, 0.0]),
                                      rtol=lambda M: M.tensor(0.2)),
                                 dict(atol=lambda M: M.tensor([[0.01], [0.0]])),
                                 dict(atol=lambda M: 0.3), dict(rtol=lambda M: 0.2),
                                 dict(atol=lambda M: M.tensor([1.0, 2.0],
                                                              dtype=M.complex64))])
@pytest.mark.parametrize("hermitian", [False, True])
def test_pinv_and_matrix_rank_take_tensor_tolerances(tol, hermitian):
    def kw(M):
        return {k: v(M) for k, v in tol.items()}
    assert_same_as_torch(lambda M: M.linalg.pinv(M.tensor(_S), hermitian=hermitian, **kw(M)))
    assert_same_as_torch(lambda M: M.linalg.matrix_rank(M.tensor(_S), hermitian=hermitian,
                                                        **kw(M)))


@pytest.mark.parametrize("n", [2.0, True, None, "2", 2, -1])
def test_matrix_power_takes_an_int(n):
    assert_same_as_torch(lambda M: M.linalg.matrix_power(M.tensor([[2.0, 1], [0, 3]]), n),
                         wording_too=True)
    assert_same_as_torch(lambda M: M.linalg.matrix_power(M.tensor([[2.0, 1], [0, 3]]),
                                                         M.tensor(3)))


_WEIGHTS = {
    "fweights float": dict(fweights=lambda M: M.ones(3)),
    "fweights negative": dict(fweights=lambda M: M.tensor([1, -1, 2])),
    "fweights 2-D": dict(fweights=lambda M: M.ones(1, 3, dtype=M.int64)),
    "fweights numel": dict(fweights=lambda M: M.ones(4, dtype=M.int64)),
    "fweights zero sum": dict(fweights=lambda M: M.zeros(3, dtype=M.int64)),
    "aweights int": dict(aweights=lambda M: M.ones(3, dtype=M.int64)),
    "aweights negative": dict(aweights=lambda M: M.tensor([0.5, -1.0, 2.0], dtype=M.float64)),
    "aweights NaN": dict(aweights=lambda M: M.tensor([0.5, NAN, 2.0], dtype=M.float64)),
    "both": dict(fweights=lambda M: M.tensor([1, 2, 3]),
                 aweights=lambda M: M.tensor([0.5, 1.0, 2.0], dtype=M.float64)),
}


@pytest.mark.parametrize("name", list(_WEIGHTS))
def test_cov_checks_its_weights(name):
    x = np.array([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]])
    assert_same_as_torch(lambda M: M.cov(M.tensor(x), **{k: v(M) for k, v in
                                                         _WEIGHTS[name].items()}),
                         wording_too=True)


# -- matmul's size errors: the words of the product PyTorch reaches ---------------------------

@pytest.mark.parametrize("a,b", [((2, 2, 3), (2, 4, 4)), ((2, 2, 3), (4,)), ((3,), (2, 4, 4)),
                                 ((2, 1, 2, 3), (5, 4, 4)), ((2, 2, 3), (4, 4)),
                                 ((2, 3), (2, 4, 4)), ((2, 2, 3), (3, 4, 4)),
                                 ((2, 0, 3), (4, 4))])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_matmul_size_errors(a, b, requires_grad):
    def run(M):
        try:
            M.matmul(M.ones(a, requires_grad=requires_grad), M.ones(b))
        except RuntimeError as e:
            return str(e).split("\n")[0]
    theirs, ours = run(torch), run(vg)
    # (viewgrad names the product first: "matmul: mat1 and mat2 ...", a known difference)
    assert ours.split(": ", 1)[-1].startswith(theirs) or ours.startswith(theirs), (ours, theirs)


@pytest.mark.parametrize("pivots", [[0, 0, 0], [4, 3, 3], [-1, 3, 3], [1, 1, 1], [3, 2, 3]])
def test_lu_solve_checks_its_pivots(pivots):
    def run(M):
        LU = M.tensor(_A).double()
        return M.linalg.lu_solve(LU, M.tensor(pivots, dtype=M.int32),
                                 M.ones(3, 1, dtype=M.float64))
    assert_same_as_torch(run, wording_too=True)
