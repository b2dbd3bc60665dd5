"""scatter_reduce / index_reduce (and their in-place forms), frexp, ldexp and renorm
against torch 2.13: values, gradients for self and src, node names, dtypes, in-place on
clones and on views, and refusals in PyTorch's words. Ties and zero factors are tested
here (finite differences are invalid there); the gradcheck sweep covers the smooth cases
(tests/ops/samples_indexing.py)."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import assert_same_as_torch, raised, torch_or_skip

REDUCES = ("sum", "prod", "mean", "amax", "amin")
I_REDUCES = ("prod", "mean", "amax", "amin")

# integer-valued floats: ties with self and between src values; zeros in prod's groups
# (row 0 position 0 gets one zero, row 1 position 1 gets two)
X = [[1.0, 2.0, 0.0, 3.0], [4.0, 2.0, 5.0, 2.0], [3.0, 3.0, 1.0, 0.0]]
SRC = [[0.0, 2.0, 7.0, 2.0], [2.0, 0.0, 0.0, 4.0], [3.0, 1.0, 3.0, 3.0]]
IDX1 = [[0, 1, 0, 1], [1, 1, 1, 3], [2, 2, 0, 0]]        # dim 1
IDX0 = [[0, 1, 0, 2], [0, 1, 2, 2], [1, 1, 0, 2]]        # dim 0


def _leaves(M, dtype, a=X, b=SRC):
    x = M.tensor(a, dtype=dtype, requires_grad=True)
    s = M.tensor(b, dtype=dtype, requires_grad=True)
    return x, s


def _name(t):
    return t.grad_fn.name().split("::")[-1]   # torch spells torch::autograd::CopySlices


def _weights(M, y):
    return M.arange(float(y.numel()), dtype=y.dtype).reshape(tuple(y.shape)) * 0.5 + 1


def _run_scatter(M, reduce, include_self, dim, dtype_name, inplace=None):
    dtype = getattr(M, dtype_name)
    x, s = _leaves(M, dtype)
    idx = M.tensor(IDX1 if dim in (1, -1) else IDX0)
    if inplace is None:
        y = x.scatter_reduce(dim, idx, s, reduce, include_self=include_self)
        base = y
    elif inplace == "clone":
        y = base = (x * 1).scatter_reduce_(dim, idx, s, reduce, include_self=include_self)
    else:   # on a view: the rows 1: of a clone, transposed
        base = x.clone()
        v = base.t()
        y = v.scatter_reduce_(1 - dim if dim >= 0 else 0, idx.t(), s.t(), reduce,
                              include_self=include_self)
    (base * _weights(M, base)).sum().backward()
    return (base, x.grad, s.grad, _name(base), _name(y), base._version)


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_scatter_reduce_values_and_grads(reduce, include_self, dim, dtype):
    assert_same_as_torch(lambda M: _run_scatter(M, reduce, include_self, dim, dtype))


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("where", ["clone", "view"])
def test_scatter_reduce_inplace(reduce, include_self, where):
    assert_same_as_torch(lambda M: _run_scatter(M, reduce, include_self, 1, "float64",
                                                inplace=where))


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float16"])
def test_scatter_reduce_dtypes(reduce, include_self, dtype):
    def f(M):
        d = getattr(M, dtype)
        sign = -1 if dtype in ("int64", "int32") else 1   # negative means round down
        x = M.tensor(X, dtype=M.float64).mul(sign).to(d)
        s = M.tensor(SRC, dtype=M.float64).add(1).to(d)
        return x.scatter_reduce(1, M.tensor(IDX1), s, reduce, include_self=include_self)
    assert_same_as_torch(f, atol=1e-3)


def _run_index(M, reduce, include_self, dim, dtype_name, inplace=None):
    dtype = getattr(M, dtype_name)
    idx = M.tensor([0, 2, 0])
    if dim == 0:
        x, s = _leaves(M, dtype, X, SRC[:3])
    else:
        x, s = _leaves(M, dtype, X, [r[:3] for r in SRC])
    if inplace is None:
        y = base = x.index_reduce(dim, idx, s, reduce, include_self=include_self)
    elif inplace == "clone":
        y = base = (x * 1).index_reduce_(dim, idx, s, reduce, include_self=include_self)
    else:
        base = x.clone()
        y = base.t().index_reduce_(1 - dim, idx, s.t(), reduce, include_self=include_self)
    (base * _weights(M, base)).sum().backward()
    return (base, x.grad, s.grad, _name(base), _name(y), base._version)


@pytest.mark.parametrize("reduce", I_REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_index_reduce_values_and_grads(reduce, include_self, dim, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_as_torch(lambda M: _run_index(M, reduce, include_self, dim, dtype))


@pytest.mark.parametrize("reduce", I_REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("where", ["clone", "view"])
def test_index_reduce_inplace(reduce, include_self, where):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_as_torch(lambda M: _run_index(M, reduce, include_self, 0, "float64",
                                                  inplace=where))


@pytest.mark.parametrize("reduce", I_REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "float16"])
def test_index_reduce_dtypes(reduce, include_self, dtype):
    def f(M):
        d = getattr(M, dtype)
        sign = -1 if dtype in ("int64", "int32") else 1
        x = M.tensor(X, dtype=M.float64).mul(sign).to(d)
        s = M.tensor(SRC[:3], dtype=M.float64).add(1).to(d)
        return x.index_reduce(0, M.tensor([0, 2, 0], dtype=M.int32), s, reduce,
                              include_self=include_self)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_as_torch(f, atol=1e-3)


def test_zero_dim_and_function_forms():
    def f(M):
        a = M.tensor(3.0, requires_grad=True)
        b = M.tensor(5.0, requires_grad=True)
        y = M.scatter_reduce(a, 0, M.tensor(0), b, reduce="prod")
        z = M.index_reduce(a, 0, M.tensor(0), b, "amax", include_self=False)
        (y + z).backward()
        return y, z, a.grad, b.grad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_as_torch(f)


def test_nan_propagates_in_amax_amin():
    def f(M):
        x = M.tensor([[1.0, 2.0, 3.0]])
        n = M.tensor([[1.0, float("nan"), 3.0]])
        return (x.scatter_reduce(1, M.tensor([[0, 1, 0]]), n, "amax"),
                x.scatter_reduce(1, M.tensor([[0, 1, 0]]), n, "amin", include_self=False))
    assert_same_as_torch(f)


def test_old_names_compute_but_have_no_derivative():
    for red in ("max", "min"):
        def f(M):
            x, s = _leaves(M, M.float64)
            y = x.scatter_reduce(1, M.tensor(IDX1), s, red)
            out = [y.detach()]
            try:
                y.sum().backward()
            except RuntimeError as e:
                out.append(str(e))
            return out
        assert_same_as_torch(f)


def test_saved_tensors_and_version_checks():
    def f(M):
        x, s = _leaves(M, M.float64)
        y = (x * 1).scatter_reduce(1, M.tensor(IDX1), s, "amax")
        fn = y.grad_fn
        saved = (fn._saved_dim, fn._saved_reduce, fn._saved_include_self)
        nxt = len(fn.next_functions)
        y.mul_(2)   # the result is saved: modifying it breaks backward
        try:
            y.sum().backward()
        except RuntimeError as e:
            return saved, nxt, str(e).split("Hint")[0].split(", which is output")[0][:60]
        return saved, nxt
    ours = f(vg)
    torch = torch_or_skip()
    assert ours[:2] == f(torch)[:2]
    assert ours[2].startswith("one of the variables needed for gradient computation")


def test_double_backward_through_two_zeros_is_refused():
    def f(M, scatter):
        z = M.zeros(3, dtype=M.float64, requires_grad=True)
        if scatter:
            y = M.ones(2, dtype=M.float64).scatter_reduce(0, M.tensor([0, 0, 1]), z * 1,
                                                          "prod")
        else:
            y = M.ones(2, dtype=M.float64).index_reduce(0, M.tensor([0, 0, 1]), z * 1,
                                                        "prod")
        (g,) = M.autograd.grad(y.sum(), z, create_graph=True)
        return g.detach(), raised(lambda: M.autograd.grad(g.sum(), z))
    torch = torch_or_skip()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for scatter in (True, False):
            ours, theirs = f(vg, scatter), f(torch, scatter)
            assert ours[0].tolist() == theirs[0].tolist()
            assert ours[1] == theirs[1], (ours[1], theirs[1])


def test_index_reduce_warns_beta_once_like_torch():
    from viewgrad.ops import warn_once as W
    W._given.discard("index_reduce")   # once per process, as PyTorch's: start afresh
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vg.ones(2).index_reduce(0, vg.tensor([0]), vg.ones(1), "prod")
        vg.ones(2).index_reduce_(0, vg.tensor([0]), vg.ones(1), "amax")
    assert [str(w.message) for w in caught] == [
        "index_reduce() is in beta and the API may change at any time."]
    assert caught[0].filename == __file__   # pointing at the caller's line


REFUSALS = {
    "sr_reduce": lambda M: M.ones(2, 3).scatter_reduce(1, M.tensor([[0]]), M.ones(1, 1), "foo"),
    "sr_add": lambda M: M.ones(2, 3).scatter_reduce(1, M.tensor([[0]]), M.ones(1, 1), "add"),
    "sr_reduce_type": lambda M: M.ones(2, 3).scatter_reduce(1, M.tensor([[0]]), M.ones(1, 1), 3),
    "sr_src_number": lambda M: M.ones(2, 3).scatter_reduce(1, M.tensor([[0]]), 2.0, "sum"),
    "sr_fn_src_number": lambda M: M.scatter_reduce(M.ones(2, 3), 1, M.tensor([[0]]), 2.0, "sum"),
    "sr_include_self": lambda M: M.ones(2, 3).scatter_reduce(1, M.tensor([[0]]), M.ones(1, 1),
                                                            "sum", include_self=1),
    "sr_float_index": lambda M: M.ones(2, 3).scatter_reduce(1, M.tensor([[0.0]]), M.ones(1, 1),
                                                           "sum"),
    "sr_dtypes": lambda M: M.ones(2, 3).scatter_reduce(1, M.tensor([[0]]),
                                                      M.ones(1, 1, dtype=M.float64), "sum"),
    "sr_index_dims": lambda M: M.ones(2, 3).scatter_reduce(1, M.tensor([0]), M.ones(1, 1), "sum"),
    "sr_index_size": lambda M: M.ones(2, 3).scatter_reduce(1, M.zeros(3, 3, dtype=M.int64),
                                                          M.ones(3, 3), "sum"),
    "sr_bounds": lambda M: M.ones(2, 3).scatter_reduce(1, M.tensor([[3]]), M.ones(1, 1), "sum"),
    "sr_negative": lambda M: M.ones(2, 3).scatter_reduce(1, M.tensor([[-1]]), M.ones(1, 1), "sum"),
    "sr_dim": lambda M: M.ones(2, 3).scatter_reduce(2, M.tensor([[0]]), M.ones(1, 1), "sum"),
    "sr_bool_mean": lambda M: M.ones(2, 3, dtype=M.bool).scatter_reduce(
        1, M.tensor([[0]]), M.ones(1, 1, dtype=M.bool), "mean"),
    "sr_leaf_inplace": lambda M: M.ones(2, 3, requires_grad=True).scatter_reduce_(
        1, M.tensor([[0]]), M.ones(1, 1), "sum"),
    "sr_missing_reduce": lambda M: M.ones(2, 3).scatter_reduce(1, M.tensor([[0]]), M.ones(1, 1)),
    "ir_sum": lambda M: M.ones(4, 3).index_reduce(0, M.tensor([0]), M.ones(1, 3), "sum"),
    "ir_float_index": lambda M: M.ones(4, 3).index_reduce(0, M.tensor([0.0]), M.ones(1, 3),
                                                         "prod"),
    "ir_index_matrix": lambda M: M.ones(4, 3).index_reduce(0, M.tensor([[0]]), M.ones(1, 3),
                                                          "prod"),
    "ir_dtypes": lambda M: M.ones(4, 3).index_reduce(0, M.tensor([0]),
                                                    M.ones(1, 3, dtype=M.float64), "prod"),
    "ir_count": lambda M: M.ones(4, 3).index_reduce(0, M.tensor([0, 1]), M.ones(1, 3), "prod"),
    "ir_shape": lambda M: M.ones(4, 3).index_reduce(0, M.tensor([0]), M.ones(1, 2), "prod"),
    "ir_bounds": lambda M: M.ones(4, 3).index_reduce(0, M.tensor([4]), M.ones(1, 3), "prod"),
    "ir_negative": lambda M: M.ones(4, 3).index_reduce(0, M.tensor([-1]), M.ones(1, 3), "prod"),
    "ir_dim": lambda M: M.ones(4, 3).index_reduce(2, M.tensor([0]), M.ones(1, 3), "prod"),
    "ir_source_number": lambda M: M.ones(4, 3).index_reduce(0, M.tensor([0]), 1.0, "prod"),
    "ir_0d_source": lambda M: M.ones(4, 3).index_reduce(0, M.tensor([0, 1]), M.tensor(2.0),
                                                       "prod"),
    "ir_bool_mean": lambda M: M.ones(4, 3, dtype=M.bool).index_reduce(
        0, M.tensor([0]), M.ones(1, 3, dtype=M.bool), "mean"),
    "frexp_int": lambda M: M.frexp(M.tensor([1, 2])),
    "ldexp_number": lambda M: M.ldexp(M.ones(2), 3),
    "ldexp_method_number": lambda M: M.ones(2).ldexp(3),
    "ldexp_int_inplace": lambda M: M.tensor([1, 2]).ldexp_(M.tensor([1, 2])),
    "renorm_p0": lambda M: M.ones(2, 3).renorm(0, 1, 5),
    "renorm_negative_p": lambda M: M.ones(2, 3).renorm(-1, 1, 5),
    "renorm_maxnorm": lambda M: M.ones(2, 3).renorm(2, 1, -5),
    "renorm_1d": lambda M: M.ones(3).renorm(2, 0, 1),
    "renorm_0d": lambda M: M.tensor(1.0).renorm(2, 0, 1),
    "renorm_dim": lambda M: M.ones(2, 3).renorm(2, 3, 1),
    "renorm_int": lambda M: M.ones(2, 3, dtype=M.int64).renorm(2, 0, 1),
}


_HOUSE_WORDING = {"sr_leaf_inplace"}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusals_match_torch(name):
    torch = torch_or_skip()
    ours, theirs = raised(lambda: REFUSALS[name](vg)), raised(lambda: REFUSALS[name](torch))
    assert theirs is not None and ours is not None, (ours, theirs)
    assert ours[0] == theirs[0], (ours, theirs)
    if name in _HOUSE_WORDING:   # viewgrad's choke point names the op and says what to do
        assert theirs[1] in ours[1], (ours, theirs)
    else:
        assert ours[1] == theirs[1], (ours, theirs)


# -- frexp / ldexp / renorm ------------------------------------------------------------------

SPECIAL = [0.0, 1.5, -3.0, 1e-40, float("inf"), float("-inf"), float("nan"), 8.0, -0.0,
           1e300]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_frexp_values_dtypes_and_grad(dtype):
    def f(M):
        d = getattr(M, dtype)
        r = M.frexp(M.tensor(SPECIAL, dtype=d))
        x = M.tensor([1.5, -3.0, 0.1, 7.0], dtype=d, requires_grad=True)
        m, e = x.frexp()
        (m * M.tensor([1.0, 2.0, 3.0, 4.0], dtype=d)).sum().backward()
        return (r.mantissa, r.exponent, type(r).__name__, m.grad_fn.name(), e.requires_grad,
                x.grad, len(m.grad_fn.next_functions))
    assert_same_as_torch(f)


LDEXP_DTYPES = [("float32", "int64"), ("int64", "int64"), ("float64", "int32"),
                ("float32", "float64"), ("float16", "int64"), ("bool", "int64"),
                ("int32", "float64"), ("int64", "int8")]


@pytest.mark.parametrize("a,b", LDEXP_DTYPES)
def test_ldexp_dtypes(a, b):
    def f(M):
        x = M.tensor([1.0, 0.0, 3.0]).to(getattr(M, a))
        e = M.tensor([2.0, -1.0, 3.0]).to(getattr(M, b))
        return M.ldexp(x, e), x.ldexp(e[:1]), M.ldexp(x, e[0])
    assert_same_as_torch(f, rtol=1e-3)


def test_ldexp_grads_and_inplace():
    def f(M):
        p = M.tensor([[1.0, -2.0, 0.5]], dtype=M.float64, requires_grad=True)
        q = M.tensor([[0.5], [3.0]], dtype=M.float32, requires_grad=True)
        r = M.ldexp(p, q)
        (r * M.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=M.float64)).sum().backward()
        p2 = M.tensor([1.0, 2.0], requires_grad=True)
        r2 = M.ldexp(p2, M.tensor([1, 2]))
        r2.sum().backward()
        b = p2.detach().clone().requires_grad_()
        c = b * 1
        c[1:].ldexp_(M.tensor([3.0], dtype=M.float64))
        c.sum().backward()
        return (r, p.grad, q.grad, r.grad_fn.name(), p2.grad,
                [n is None for n, _ in r2.grad_fn.next_functions], c, b.grad,
                _name(c), c._version)
    assert_same_as_torch(f, rtol=1e-6)


@pytest.mark.parametrize("p", [1, 2, 3.5, float("inf")])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_renorm_values_and_grads(p, dim):
    def f(M):
        w = M.tensor([[1.0, -2, 3], [4, 5, -6], [0.1, 0.1, 0.1]], dtype=M.float64,
                     requires_grad=True)
        r = M.renorm(w, p, dim, 5)
        saved = r.grad_fn._saved_p, r.grad_fn._saved_maxnorm
        (r * _weights(M, r)).sum().backward()
        return r, w.grad, r.grad_fn.name(), saved
    assert_same_as_torch(f)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_renorm_dtypes_and_inplace(dtype):
    def f(M):
        d = getattr(M, dtype)
        w = M.tensor(np.arange(24.0).reshape(2, 3, 4) / 7 - 1, dtype=d)
        a = w.renorm(2, 1, 1.5)
        leaf = M.tensor([[1.0, 2], [3, 4]], requires_grad=True)
        b = leaf * 1
        b[1:].renorm_(2, 0, 1)
        b.sum().backward()
        return a, b, leaf.grad, _name(b)
    assert_same_as_torch(f, rtol=2e-3, atol=2e-3)


def test_renorm_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(3)
    w = vg.tensor(rng.standard_normal((3, 4)) * 2, dtype=vg.float64, requires_grad=True)
    for p in (1.0, 2.0, 3.0):
        fn = lambda t: vg.renorm(t, p, 0, 1.5)  # noqa: E731
        assert vg.autograd.gradcheck(fn, (w,))
        assert vg.autograd.gradgradcheck(fn, (w,))


def test_the_rounds_used_off_the_host_match_ufunc_at():
    # CuPy may lack maximum.at / minimum.at: the fallback, checked here on NumPy arrays
    from viewgrad.ops.index_reduce import _combine_in_rounds
    from viewgrad.ops.reduce import _full_index
    rng = np.random.default_rng(0)
    for uf in (np.maximum, np.minimum):
        out = rng.standard_normal((3, 5))
        index = rng.integers(0, 5, (3, 7))
        vals = rng.standard_normal((3, 7))
        vals[0, 2] = np.nan
        key = _full_index(np, index, 1)
        want = out.copy()
        uf.at(want, key, vals)
        got = out.copy()
        _combine_in_rounds(np, uf, got, key, vals)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("reduce", REDUCES)
def test_index_smaller_than_src(reduce):
    # the forward takes it; backward for src is refused (torch's engine refuses a gradient
    # of the index's shape for sum/mean; prod/amax fail inside the formula, as here)
    def f(M):
        x = M.tensor([[1.0, 2, 3], [4, 5, 6]], dtype=M.float64, requires_grad=True)
        s = M.tensor([[7.0, 8, 9, 1], [1, 2, 3, 1], [5, 5, 5, 5]], dtype=M.float64,
                     requires_grad=True)
        y = x.scatter_reduce(1, M.tensor([[0, 1], [2, 2]]), s, reduce)
        out = [y.detach()]
        try:
            y.sum().backward()
        except RuntimeError as e:
            out.append(str(e).split(" (")[0])
        return out
    assert_same_as_torch(f)
