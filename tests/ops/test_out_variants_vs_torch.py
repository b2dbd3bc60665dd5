"""``out=`` on the namespace functions, against torch 2.13: the values written, the dtype
and shape ``out`` ends with (resized from empty, or from another shape with PyTorch's
warning), the one version bump, the object returned (``out`` itself, or the named tuple
of the outs), and PyTorch's refusals (an argument that requires grad; a result that
cannot be cast to out's dtype)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import viewgrad as vg
from viewgrad.ops.out_variants import OUT_FUNCTIONS
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("runs the same calls in torch on the CPU")


def _data():
    rng = np.random.default_rng(0)
    return {
        "x": rng.standard_normal((3, 4)).astype(np.float32),
        "y": rng.standard_normal((3, 4)).astype(np.float32),
        "p": (rng.random((3, 4)) * 0.8 + 0.1).astype(np.float32),     # in (0, 1)
        "m": rng.standard_normal((4, 4)).astype(np.float64),
        "b": rng.standard_normal((2, 3, 4)).astype(np.float32),
        "c": rng.standard_normal((2, 4, 5)).astype(np.float32),
        "v": rng.standard_normal(4).astype(np.float32),
        "w": rng.standard_normal(3).astype(np.float32),
        "i": rng.integers(1, 20, (3, 4)).astype(np.int64),
        "j": rng.integers(1, 20, (3, 4)).astype(np.int64),
        "idx": np.array([[0, 2], [1, 1], [3, 0]], dtype=np.int64),
        "sel": np.array([0, 2], dtype=np.int64),
        "s": np.sort(rng.standard_normal(5)).astype(np.float32),
        "x3": rng.standard_normal((3, 3)).astype(np.float32),
        "spd": None,
    }


def _spd(M, d):
    a = M.tensor(d["m"])
    return a @ a.T + 4 * M.eye(4, dtype=a.dtype)


# name -> lambda M, t: (args, kwargs); t(name) is the tensor of _data()[name] in library M
CASES = {}
for _n in ("abs", "absolute", "ceil", "cos", "cosh", "deg2rad", "erf", "erfc", "exp", "exp2",
           "expm1", "floor", "frac", "i0", "lgamma", "nan_to_num", "neg", "negative",
           "rad2deg", "round", "sgn", "sigmoid", "sign", "signbit", "sin", "sinc", "sinh",
           "square", "tanh", "trunc", "isneginf", "isposinf", "logical_not", "msort", "nonzero",
           "atan"):
    CASES[_n] = lambda M, t: ((t("x"),), {})
for _n in ("acos", "asin", "erfinv", "logit", "log", "log10", "log1p", "log2", "rsqrt", "sqrt",
           "reciprocal", "digamma"):
    CASES[_n] = lambda M, t: ((t("p"),), {})
for _n in ("add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "atan2",
           "copysign", "eq", "ne", "lt", "le", "gt", "ge", "fmax", "fmin", "fmod", "remainder",
           "hypot", "logaddexp", "logaddexp2", "logical_and", "logical_or", "logical_xor",
           "maximum", "minimum", "nextafter", "xlogy", "heaviside", "floor_divide", "kron",
           "isin"):
    CASES[_n] = lambda M, t: ((t("x"), t("y")), {})
CASES["float_power"] = lambda M, t: ((t("p"), 2), {})
CASES["pow"] = lambda M, t: ((t("x"), 2), {})
CASES["ldexp"] = lambda M, t: ((t("x"), t("i") % 4), {})
for _n in ("bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm"):
    CASES[_n] = lambda M, t: ((t("i"), t("j")), {})
CASES["bitwise_not"] = lambda M, t: ((t("i"),), {})
for _n in ("all", "any", "amax", "amin", "argmax", "argmin", "logsumexp", "mean", "nansum",
           "nanmean", "sum", "prod", "std", "var", "cumsum", "cumprod", "logcumsumexp",
           "softmax", "log_softmax"):
    CASES[_n] = lambda M, t: ((t("x"), 1), {})
for _n in ("cummax", "cummin", "max", "min", "median", "nanmedian", "mode", "sort"):
    CASES[_n] = lambda M, t: ((t("x"), 1), {})
CASES["aminmax"] = lambda M, t: ((t("x"),), {"dim": 1})
CASES["kthvalue"] = lambda M, t: ((t("x"), 2, 1), {})
CASES["topk"] = lambda M, t: ((t("x"), 2), {})
CASES["frexp"] = lambda M, t: ((t("x"),), {})
CASES["norm"] = lambda M, t: ((t("x"),), {"dim": 1})
CASES["mm"] = lambda M, t: ((t("x3"), t("x")), {})
CASES["matmul"] = lambda M, t: ((t("b"), t("c")), {})
CASES["bmm"] = lambda M, t: ((t("b"), t("c")), {})
CASES["mv"] = lambda M, t: ((t("x"), t("v")), {})
for _n in ("dot", "vdot", "inner", "outer", "ger"):
    CASES[_n] = lambda M, t: ((t("v"), t("v") * 2), {})
CASES["addmm"] = lambda M, t: ((t("x"), t("x3"), t("x")), {"beta": 0.5})
CASES["addmv"] = lambda M, t: ((t("w"), t("x"), t("v")), {})
CASES["addr"] = lambda M, t: ((t("x"), t("w"), t("v")), {})
CASES["addbmm"] = lambda M, t: ((M.zeros(3, 5), t("b"), t("c")), {})
CASES["baddbmm"] = lambda M, t: ((M.zeros(2, 3, 5), t("b"), t("c")), {"alpha": 2})
CASES["chain_matmul"] = lambda M, t: ((t("x3"), t("x3"), t("x")), {})
CASES["tensordot"] = lambda M, t: ((t("b"), t("c")), {"dims": ([2], [1])})
CASES["cross"] = lambda M, t: ((t("x")[:, :3], t("y")[:, :3]), {"dim": 1})
CASES["diag"] = lambda M, t: ((t("v"),), {})
CASES["tril"] = lambda M, t: ((t("x"),), {})
CASES["triu"] = lambda M, t: ((t("x"), 1), {})
CASES["renorm"] = lambda M, t: ((t("x"), 2, 0, 1.0), {})
CASES["matrix_power"] = lambda M, t: ((t("m"), 3), {})
CASES["inverse"] = lambda M, t: ((_spd(M, _DATA),), {})
CASES["cholesky"] = lambda M, t: ((_spd(M, _DATA),), {})
CASES["cholesky_inverse"] = lambda M, t: ((M.linalg.cholesky(_spd(M, _DATA)),), {})
CASES["cholesky_solve"] = lambda M, t: ((t("m"), M.linalg.cholesky(_spd(M, _DATA))), {})
CASES["triangular_solve"] = lambda M, t: ((t("m"), M.linalg.cholesky(_spd(M, _DATA))),
                                          {"upper": False})
CASES["lu_solve"] = lambda M, t: ((t("m"), *M.linalg.lu_factor(_spd(M, _DATA))), {})
CASES["qr"] = lambda M, t: ((_spd(M, _DATA),), {})
CASES["svd"] = lambda M, t: ((_spd(M, _DATA),), {})
CASES["slogdet"] = lambda M, t: ((t("m"),), {})
CASES["lu"] = lambda M, t: ((_spd(M, _DATA),), {})
for _n in ("cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "row_stack",
           "column_stack"):
    CASES[_n] = lambda M, t: (([t("x"), t("y")],), {})
CASES["gather"] = lambda M, t: ((t("x"), 1, t("idx")), {})
CASES["take_along_dim"] = lambda M, t: ((t("x"), t("idx"), 1), {})
CASES["index_select"] = lambda M, t: ((t("x"), 1, t("sel")), {})
CASES["index_add"] = lambda M, t: ((t("x"), 1, t("sel"), t("x")[:, :2]), {"alpha": 2})
CASES["index_copy"] = lambda M, t: ((t("x"), 1, t("sel"), t("y")[:, :2]), {})
CASES["index_reduce"] = lambda M, t: ((t("x"), 1, t("sel"), t("y")[:, :2], "prod"), {})
CASES["masked_select"] = lambda M, t: ((t("x"), t("x") > 0), {})
CASES["scatter"] = lambda M, t: ((t("x"), 1, t("idx"), t("y")[:, :2]), {})
CASES["scatter_add"] = lambda M, t: ((t("x"), 1, t("idx"), t("y")[:, :2]), {})
CASES["scatter_reduce"] = lambda M, t: ((t("x"), 1, t("idx"), t("y")[:, :2], "amax"), {})
CASES["take"] = lambda M, t: ((t("x"), t("sel")), {})
CASES["where"] = lambda M, t: ((t("x") > 0, t("x"), t("y")), {})
CASES["searchsorted"] = lambda M, t: ((t("s"), t("v")), {})
CASES["bucketize"] = lambda M, t: ((t("v"), t("s")), {})
CASES["histc"] = lambda M, t: ((t("x"),), {"bins": 4})
CASES["diff"] = lambda M, t: ((t("x"),), {"dim": 1})
CASES["narrow_copy"] = lambda M, t: ((t("x"), 1, 1, 2), {})
CASES["clamp"] = lambda M, t: ((t("x"), -0.5, 0.5), {})
CASES["clip"] = lambda M, t: ((t("x"), -0.5, 0.5), {})
CASES["clamp_min"] = lambda M, t: ((t("x"), 0.1), {})
CASES["clamp_max"] = lambda M, t: ((t("x"), 0.1), {})
CASES["lerp"] = lambda M, t: ((t("x"), t("y"), 0.25), {})
CASES["addcmul"] = lambda M, t: ((t("x"), t("y"), t("p")), {"value": 2})
CASES["addcdiv"] = lambda M, t: ((t("x"), t("y"), t("p")), {"value": 2})
CASES["quantile"] = lambda M, t: ((t("x"), 0.3), {"dim": 1})
CASES["nanquantile"] = lambda M, t: ((t("x"), 0.3), {"dim": 1})
CASES["mvlgamma"] = lambda M, t: ((t("p") + 2, 2), {})
CASES["polygamma"] = lambda M, t: ((1, t("p")), {})
CASES["conj_physical"] = lambda M, t: ((t("x"),), {})
CASES["arange"] = lambda M, t: ((1, 7, 2), {})
CASES["eye"] = lambda M, t: ((3, 4), {})
CASES["full"] = lambda M, t: (((2, 3), 1.5), {})
CASES["linspace"] = lambda M, t: ((0, 1, 5), {})
CASES["logspace"] = lambda M, t: ((0, 2, 3), {})
CASES["ones"] = lambda M, t: ((2, 3), {})
CASES["zeros"] = lambda M, t: (((2, 3),), {})
# random or unspecified values: the shape, dtype and version are compared
RANDOM = {"empty", "rand", "randn", "randint", "randperm", "normal", "multinomial"}
CASES["empty"] = lambda M, t: ((2, 3), {})
CASES["rand"] = lambda M, t: ((2, 3), {})
CASES["randn"] = lambda M, t: ((2, 3), {})
CASES["randint"] = lambda M, t: ((0, 5, (2, 3)), {})
CASES["randperm"] = lambda M, t: ((6,), {})
CASES["normal"] = lambda M, t: ((0.0, 1.0, (2, 3)), {})
CASES["multinomial"] = lambda M, t: ((t("p"), 2), {})

_DATA = _data()

# torch's composite out= kernels that write their out more or less than once (kron's
# writes a reshaped alias, nanmean's divides in place, randn's fills after a resize):
# viewgrad bumps once, as every other function
TORCH_BUMPS = {"kron": (0,), "nanmean": (2,), "randn": (2,), "svd": (1, 1, 2), "lu": (2, 2)}


def _run(M, name, out_like):
    """Call ``M.<name>`` with an ``out=`` of empty tensors of the result's dtypes; return
    (what it returned, the outs, their versions before)."""
    def t(k):
        return M.tensor(_DATA[k])
    args, kw = CASES[name](M, t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = getattr(M, name)(*args, **kw)
        refs = ref if isinstance(ref, tuple) else (ref,)
        outs = tuple(M.empty(out_like, dtype=r.dtype) for r in refs)
        before = [o._version for o in outs]
        got = getattr(M, name)(*args, **kw, out=outs if isinstance(ref, tuple) else outs[0])
    return ref, got, outs, before


def test_every_out_function_has_a_case():
    assert sorted(set(OUT_FUNCTIONS) - set(CASES)) == []


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("out_like", [(0,), (2,)], ids=["empty", "other-shape"])
def test_out_as_torch(name, out_like):
    torch = torch_or_skip()
    res = {}
    for M in (torch, vg):
        ref, got, outs, before = _run(M, name, out_like)
        if isinstance(ref, tuple):
            assert isinstance(got, tuple) and all(a is b for a, b in zip(got, outs)), name
            assert type(got).__name__.split("_out")[0] == type(ref).__name__ or (
                not hasattr(ref, "_fields"))
        else:
            assert got is outs[0], name
        res[M.__name__] = [(tuple(o.shape), str(o.dtype).split(".")[-1],
                            o._version - b, o.detach().cpu().numpy() if M is torch else
                            o.numpy()) for o, b in zip(outs, before)]
    bumps = TORCH_BUMPS.get(name, (1,) * len(res["torch"]))
    for (ts, td, tv, tval), (vs, vd, vv, vval), tb in zip(res["torch"], res["viewgrad"], bumps):
        assert (vs, vd) == (ts, td), name
        assert tv == tb and vv == 1, name
        if name not in RANDOM:
            if vval.dtype.kind == "f":
                np.testing.assert_allclose(vval, tval, rtol=2e-5, atol=2e-6, err_msg=name)
            else:
                np.testing.assert_array_equal(vval, tval, err_msg=name)


@pytest.mark.parametrize("name", ["add", "sum", "mm", "exp", "cat", "max"])
def test_out_refuses_an_argument_that_requires_grad(name):
    torch = torch_or_skip()
    words = []
    for M in (torch, vg):
        def t(k, M=M):
            return M.tensor(_DATA[k], requires_grad=_DATA[k].dtype.kind == "f")
        args, kw = CASES[name](M, t)
        ref = getattr(M, name)(*args, **kw)
        out = tuple(M.empty(0) for _ in ref) if isinstance(ref, tuple) else M.empty(0)
        with pytest.raises(RuntimeError) as e:
            getattr(M, name)(*args, **kw, out=out)
        words.append(str(e.value))
    assert words[1].startswith(words[0].rstrip("."))


def test_out_that_requires_grad_is_refused_in_grad_mode_only():
    torch = torch_or_skip()
    for M in (torch, vg):
        x = M.ones(3)
        out = M.zeros(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="out=... arguments don't support"):
            M.add(x, x, out=out)
        with M.no_grad():
            M.add(x, x, out=out)
        assert out.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("name,dtype", [("add", "int64"), ("exp", "int32"), ("mean", "int64"),
                                        ("std", "int64")])
def test_out_refuses_a_cast_torch_refuses(name, dtype):
    torch = torch_or_skip()
    words = []
    for M in (torch, vg):
        def t(k, M=M):
            return M.tensor(_DATA[k])
        args, kw = CASES[name](M, t)
        with pytest.raises(RuntimeError) as e:
            getattr(M, name)(*args, **kw, out=M.empty(0, dtype=getattr(M, dtype)))
        words.append(str(e.value))
    assert words[1] == words[0]


@pytest.mark.parametrize("name,dtype", [("zeros", "int64"), ("arange", "float64"),
                                        ("eye", "int32"), ("full", "float64"),
                                        ("ones", "bool"), ("linspace", "float64")])
def test_a_factory_makes_outs_dtype(name, dtype):
    torch = torch_or_skip()
    got = []
    for M in (torch, vg):
        args, kw = CASES[name](M, None)
        out = M.empty(0, dtype=getattr(M, dtype))
        getattr(M, name)(*args, **kw, out=out)
        got.append((str(out.dtype).split(".")[-1], out.tolist()))
    assert got[1] == got[0]


def test_out_aliasing_an_input():
    torch = torch_or_skip()
    got = []
    for M in (torch, vg):
        x = M.tensor([1.0, 2.0, 3.0])
        M.add(x, x[[2, 1, 0]], out=x)
        M.cumsum(x, 0, out=x)
        got.append((x.tolist(), x._version))
    assert got[1] == got[0]


def test_normalize_into_out():
    torch = torch_or_skip()
    got = []
    for M in (torch, vg):
        x = M.tensor(_DATA["x"])
        out = M.empty(0)
        r = M.nn.functional.normalize(x, out=out)
        got.append((r is out, out.numpy().copy()))
    assert got[0][0] and got[1][0]
    np.testing.assert_allclose(got[1][1], got[0][1], rtol=1e-6)


LINALG_CASES = {
    "cholesky_ex": lambda M: (_spd(M, _DATA),),
    "cond": lambda M: (_spd(M, _DATA),),
    "inv_ex": lambda M: (_spd(M, _DATA),),
    "matmul": lambda M: (M.tensor(_DATA["b"]), M.tensor(_DATA["c"])),
    "solve_ex": lambda M: (_spd(M, _DATA), M.tensor(_DATA["m"])),
    "vecdot": lambda M: (M.tensor(_DATA["x"]), M.tensor(_DATA["y"])),
}


def test_every_linalg_out_function_has_a_case():
    from viewgrad.ops.out_variants import LINALG_OUT_FUNCTIONS
    assert sorted(LINALG_OUT_FUNCTIONS) == sorted(LINALG_CASES)


@pytest.mark.parametrize("name", sorted(LINALG_CASES))
def test_linalg_out_as_torch(name):
    torch = torch_or_skip()
    got = []
    for M in (torch, vg):
        args = LINALG_CASES[name](M)
        ref = getattr(M.linalg, name)(*args)
        refs = ref if isinstance(ref, tuple) else (ref,)
        outs = tuple(M.empty(0, dtype=r.dtype) for r in refs)
        r = getattr(M.linalg, name)(*args, out=outs if isinstance(ref, tuple) else outs[0])
        assert all(a is b for a, b in zip(r if isinstance(ref, tuple) else (r,), outs))
        got.append([(o._version, o.numpy().copy()) for o in outs])
    for (tv, ta), (vv, va) in zip(*got):
        assert vv == tv
        tol = 1e-10 if va.dtype == np.float64 else 2e-5
        np.testing.assert_allclose(va, ta, rtol=tol, atol=tol)


def test_an_out_that_requires_grad_is_resized_under_no_grad():
    torch = torch_or_skip()
    got = []
    for M in (torch, vg):
        out = M.zeros(2, requires_grad=True)
        with M.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            M.add(M.ones(3), 1, out=out)
            with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
                out.resize_(5)
        got.append((out.tolist(), out.requires_grad, out._version))
    assert got[1] == got[0]
