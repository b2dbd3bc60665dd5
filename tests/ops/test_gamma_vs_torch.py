"""The gamma family and the modified Bessel functions (ops/gamma.py, ops/gamma_ops.py)
against PyTorch: lgamma, digamma, polygamma, mvlgamma, i0 and torch.special's i0e, i1,
i1e — values over wide grids (negative non-integers, tiny and huge x, the poles, ±inf,
nan) in float64 and float32, first and second derivatives, node names and what they save,
in-place forms, integer inputs, refusals word for word, and the compat torch.special names.

Where PyTorch's own kernels are less accurate the tolerance says so: its trigamma
(polygamma(1, x), also digamma's derivative) truncates an asymptotic series (~5e-10
relative error in float64) and returns finite values like 6.6e32 at the negative integers,
where this one gives the pole's inf; its float32 digamma and trigamma sum in float32
(tens of ulps). Our float32 results are therefore also compared with PyTorch's float64
ones rounded to float32. With mpmath installed, float64 accuracy is checked against it.
"""
import math

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import short, torch_or_skip
from viewgrad.ops import gamma_ops as GO


def _grid():
    """Edge cases and random points; the negative integers and poles included."""
    rng = np.random.default_rng(0)
    edges = [0.0, -0.0, 1.0, 2.0, 3.0, 0.5, 1.5, 2.5, 10.0, 9.999999, 10.000001, 1e-300,
             1e-30, 1e-8, -1e-8, 1e-3, 1.4616321449683623, -0.5, -1.5, -2.457, -2.5, -10.3,
             -100.7, -1000.25, 1e5, 1e10, 1e15, 1e17, 1e20, 1e100, 1e300, 2.6e305, -1.0,
             -2.0, -50.0, -1e20, math.inf, -math.inf, math.nan]
    return np.concatenate([edges, rng.uniform(-30, 30, 300), rng.uniform(0, 3, 150),
                           10 ** rng.uniform(-10, 10, 80), -(10 ** rng.uniform(-3, 4, 80))])


GRID = _grid()
NEG_INT = (GRID < 0) & (GRID == np.floor(GRID))

# name -> (viewgrad, torch, float64 rtol, atol)
FUNCS = {
    "lgamma": (vg.lgamma, lambda T, x: T.lgamma(x), 1e-13, 1e-15),
    "digamma": (vg.digamma, lambda T, x: T.digamma(x), 1e-13, 1e-14),
    "i0": (vg.i0, lambda T, x: T.i0(x), 1e-14, 0.0),
    "i0e": (GO.i0e, lambda T, x: T.special.i0e(x), 1e-14, 0.0),
    "i1": (GO.i1, lambda T, x: T.special.i1(x), 1e-14, 0.0),
    "i1e": (GO.i1e, lambda T, x: T.special.i1e(x), 1e-14, 0.0),
}
for _n in (0, 1, 2, 3, 4, 7, 12):
    FUNCS[f"polygamma{_n}"] = (
        (lambda n: lambda x: vg.polygamma(n, x))(_n),
        (lambda n: lambda T, x: T.polygamma(n, x))(_n),
        1e-13 if _n == 0 else 1e-8 if _n == 1 else 1e-10, 1e-14)
for _p in (1, 2, 3, 5):
    FUNCS[f"mvlgamma{_p}"] = ((lambda p: lambda x: vg.mvlgamma(x, p))(_p),
                              (lambda p: lambda T, x: T.mvlgamma(x, p))(_p), 1e-13, 1e-13)


def _np(t):
    return t.detach().cpu().numpy()


def _ours_and_torch(name, xs, dtype):
    torch = torch_or_skip()
    ours, theirs = FUNCS[name][:2]
    o = _np(ours(vg.tensor(xs, dtype=getattr(vg, dtype))))
    t = theirs(torch, torch.tensor(xs, dtype=getattr(torch, dtype))).numpy()
    return o, t


def _keep(name, xs):
    """The points compared with torch's values (torch's trigamma's artefacts aside)."""
    keep = np.ones(xs.shape, bool)
    if name == "polygamma1":
        keep &= ~((xs < 0) & (xs == np.floor(xs)))
    if name.startswith("polygamma") and name != "polygamma0":
        keep &= xs > -1e5   # torch sums ζ's terms one by one up to -x
    if name in ("polygamma7", "polygamma12"):
        # and there the terms ±0.5^-(n+1) of x = -1.5 cancel in its sum: ψ^(12)(-1.5) is
        # ψ^(12)(2.5) exactly (checked below), torch's is 1e-7 off
        keep &= xs >= 0
    return keep


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_float64_values_match_torch(name):
    keep = _keep(name, GRID)
    o, t = _ours_and_torch(name, GRID[keep], "float64")
    rtol, atol = FUNCS[name][2:]
    np.testing.assert_allclose(o, t, rtol=rtol, atol=atol, equal_nan=True)


def test_trigamma_is_inf_at_the_poles():
    # PyTorch's trigamma computes π²/sin²(πx) there: sin(-π) is 1.2e-16, so 6.6e32
    xs = np.array([0.0, -0.0, -1.0, -2.0, -50.0, -1e20])
    assert np.all(_np(vg.polygamma(1, vg.tensor(xs, dtype=vg.float64))) == math.inf)
    torch = torch_or_skip()
    assert 1e32 < torch.polygamma(1, torch.tensor(-1.0, dtype=torch.float64)).item() < math.inf


def test_polygamma_of_negative_half_integers_pairs_the_terms_off():
    # ζ(13, -1.5) = (-1.5)^-13 + (-0.5)^-13 + 0.5^-13 + 1.5^-13 + ζ(13, 2.5) = ζ(13, 2.5)
    x = vg.tensor([-1.5, 2.5], dtype=vg.float64)
    a, b = _np(vg.polygamma(12, x))
    assert abs(a - b) <= 1e-15 * abs(b)


# how many float32 ulps torch's float32 kernels are from ours (float64's, rounded once):
# its kernels compute in float32 (mvlgamma sums p float32 lgammas; i1's Chebyshev sums)
F32_ULPS = {"lgamma": 2, "mvlgamma1": 8, "mvlgamma2": 8, "mvlgamma3": 8, "mvlgamma5": 8,
            "polygamma2": 4, "polygamma3": 4, "polygamma4": 4, "polygamma7": 16,
            "polygamma12": 16, "i0": 6, "i0e": 6, "i1": 24, "i1e": 16}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_float32_values(name):
    xs32 = GRID[np.abs(GRID) < 1e30].astype(np.float32)
    xs32 = xs32[_keep(name, xs32.astype(np.float64))]
    o, t32 = _ours_and_torch(name, xs32, "float32")
    assert o.dtype == np.float32
    # every value is float64's, rounded once: within an ulp of torch's float64 one (whose
    # float32 overflows are its float32 kernel's: e^x is computed in float32)
    _, t64 = _ours_and_torch(name, xs32.astype(np.float64), "float64")
    fin = np.isfinite(t32)
    np.testing.assert_array_equal(np.isfinite(o), fin)
    np.testing.assert_array_equal(np.isnan(o), np.isnan(t32))
    if not name.startswith("mvlgamma"):   # (whose x - i/2 are rounded in float32 first)
        ref = t64[fin].astype(np.float32)
        ulp = np.spacing(np.abs(ref)).astype(np.float64)
        np.testing.assert_array_less(np.abs(o[fin].astype(np.float64) - ref),
                                     1.01 * ulp + 1e-37)
    np.testing.assert_array_equal(o[~fin], t32[~fin])   # the same infs, with their signs
    # and within a few ulps of torch's float32 kernels where those are accurate
    if name in F32_ULPS:
        # (plus a small absolute term: near lgamma's zeros on the negative axis, -2.457...,
        # torch's lgammaf is some 1e-10 off)
        tol = F32_ULPS[name] * np.spacing(np.abs(t32[fin])).astype(np.float64) + 1e-8
        np.testing.assert_array_less(np.abs(o[fin].astype(np.float64) - t32[fin]), tol)
    else:   # digamma, trigamma: torch's float32 sums lose bits near their small values,
        # and its float32 sin(πx) of the reflection many more for negative x
        pos = fin & (xs32 > 0)
        np.testing.assert_allclose(o[pos], t32[pos], rtol=5e-5, atol=1e-5)


# -- gradients ---------------------------------------------------------------------------

SMOOTH = np.concatenate([np.linspace(0.05, 25.0, 41), [-0.5, -1.3, -2.7, -7.2, -20.6]])
BESSEL = np.concatenate([np.linspace(-30.0, 30.0, 41), [0.0, 1e-20, -1e-3, 150.0, -400.0]])

GRADS = {   # name -> (ours, torch's, grid, rtol of the first and of the second derivative)
    "lgamma": (lambda M, x: M.lgamma(x), SMOOTH, 1e-12, 1e-8),
    "digamma": (lambda M, x: x.digamma(), SMOOTH, 1e-8, 1e-10),
    "polygamma0": (lambda M, x: M.polygamma(0, x), SMOOTH, 1e-8, 1e-10),
    "polygamma2": (lambda M, x: x.polygamma(2), SMOOTH, 1e-10, 1e-10),
    "polygamma5": (lambda M, x: M.polygamma(5, x), SMOOTH, 1e-10, 1e-10),
    "mvlgamma3": (lambda M, x: M.mvlgamma(x.abs() + 1.2, 3), SMOOTH, 1e-12, 1e-8),
    "i0": (lambda M, x: M.i0(x), BESSEL, 1e-13, 1e-13),
    "i0e": (lambda M, x: M.special.i0e(x) if M is not vg else GO.i0e(x), BESSEL, 1e-13, 1e-12),
    "i1": (lambda M, x: M.special.i1(x) if M is not vg else GO.i1(x), BESSEL, 1e-13, 1e-12),
    "i1e": (lambda M, x: M.special.i1e(x) if M is not vg else GO.i1e(x), BESSEL, 1e-13, 1e-12),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_first_and_second_derivatives_match_torch(name):
    torch = torch_or_skip()
    fn, xs, rtol1, rtol2 = GRADS[name]
    res = []
    for M in (vg, torch):
        x = M.tensor(xs, dtype=M.float64, requires_grad=True)
        y = fn(M, x)
        w = M.tensor(np.linspace(-1.0, 1.0, len(xs)), dtype=M.float64)
        g, = M.autograd.grad((y * w).sum(), x, create_graph=True)
        gg, = M.autograd.grad(g.sum(), x)
        res.append((y.grad_fn.name(), g.detach().cpu().numpy(), gg.detach().cpu().numpy()))
    (n, g, gg), (tn, tg, tgg) = res
    assert n == tn
    np.testing.assert_allclose(g, tg, rtol=rtol1, atol=1e-300)
    np.testing.assert_allclose(gg, tgg, rtol=rtol2, atol=1e-13 * np.abs(tgg).max())


def test_nodes_save_what_torch_saves():
    torch = torch_or_skip()
    cases = [(lambda M, x: M.polygamma(3, x), "_saved_n"),
             (lambda M, x: x.mvlgamma(2), "_saved_p")]
    for fn, attr in cases:
        vx = vg.tensor([2.5, 3.0], dtype=vg.float64, requires_grad=True)
        tx = torch.tensor([2.5, 3.0], dtype=torch.float64, requires_grad=True)
        assert getattr(fn(vg, vx).grad_fn, attr) == getattr(fn(torch, tx).grad_fn, attr)
        assert fn(vg, vx).grad_fn._saved_self is vx
    vx = vg.tensor([0.5, -2.0], dtype=vg.float64, requires_grad=True)
    y = GO.i1e(vx)
    np.testing.assert_array_equal(_np(y.grad_fn._saved_result), _np(y))
    assert vg.lgamma(vx).grad_fn._saved_self is vx


@pytest.mark.parametrize("op", ["lgamma_", "digamma_", "i0_", "polygamma_", "mvlgamma_"])
def test_inplace_forms_match_torch(op):
    torch = torch_or_skip()
    args = {"polygamma_": (2,), "mvlgamma_": (2,)}.get(op, ())
    res = []
    for M in (vg, torch):
        a = M.tensor([[1.3, 2.2, 0.7], [3.1, 4.4, 5.0]], dtype=M.float64, requires_grad=True)
        y = a * 1.5
        r = getattr(y, op)(*args)
        assert r is y
        v = y[:, 1:]                      # and on a view: CopySlices in both
        getattr(v, op)(*args)
        (y * y).sum().backward()
        res.append((_np(y), a.grad.cpu().numpy(), short(y.grad_fn.name())))
    (o, g, n), (to, tg, tn) = res
    np.testing.assert_allclose(o, to, rtol=1e-12)
    np.testing.assert_allclose(g, tg, rtol=1e-7)
    assert n == tn


@pytest.mark.parametrize("name", ["lgamma", "digamma", "i0", "polygamma1", "polygamma3",
                                  "mvlgamma2", "i1e"])
def test_integer_and_bool_inputs_give_the_default_float(name):
    torch = torch_or_skip()
    ours, theirs = FUNCS[name][:2]
    for data in ([1, 2, 3, 7], [True, False]):
        if name == "mvlgamma2" and data[0] is True:
            continue   # elements below 0.5: torch's values are inf there too, skip the bool
        o = ours(vg.tensor(data))
        t = theirs(torch, torch.tensor(data))
        assert o.dtype == vg.float32 and str(t.dtype) == "torch.float32"
        np.testing.assert_allclose(_np(o), t.numpy(), rtol=1e-6)


@pytest.mark.parametrize("op", ["lgamma_", "digamma_", "i0_", "polygamma_", "mvlgamma_"])
def test_inplace_on_an_integer_tensor_is_refused(op):
    torch = torch_or_skip()
    args = {"polygamma_": (1,), "mvlgamma_": (1,)}.get(op, ())
    for M in (vg, torch):
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            getattr(M.tensor([3, 4]), op)(*args)


REFUSALS = [
    lambda M, x: M.polygamma(-1, x),
    lambda M, x: M.polygamma(1.5, x),
    lambda M, x: M.polygamma(True, x),
    lambda M, x: M.polygamma(n=1.5, input=x),
    lambda M, x: M.polygamma(1, [1.0]),
    lambda M, x: x.polygamma(1.5),
    lambda M, x: x.polygamma(-2),
    lambda M, x: x.polygamma_(1.5),
    lambda M, x: M.mvlgamma(x, 0),
    lambda M, x: M.mvlgamma(x, 2.5),
    lambda M, x: M.mvlgamma(x, p=2.5),
    lambda M, x: M.mvlgamma([1.0], 1),
    lambda M, x: x.mvlgamma(p=2.5),
    lambda M, x: x.mvlgamma(-1),
    lambda M, x: x.mvlgamma_(2.5),
]


@pytest.mark.parametrize("i", range(len(REFUSALS)))
def test_refusals_are_worded_as_torch_words_them(i):
    torch = torch_or_skip()
    got = []
    for M in (vg, torch):
        x = M.tensor([1.5, 2.5])
        with pytest.raises((TypeError, RuntimeError)) as e:
            REFUSALS[i](M, x)
        got.append((e.type, str(e.value)))
    assert got[0] == got[1]


def test_mvlgamma_takes_elements_at_or_below_p_minus_one_over_two_like_torch():
    # torch 2.13 no longer refuses them ("All elements must be greater than (p-1)/2" is
    # gone): lgamma's values, inf at its poles
    torch = torch_or_skip()
    xs = [0.4, 0.5, 1.0, -5.0, -0.3, 2.0]
    for p in (2, 3):
        o = _np(vg.mvlgamma(vg.tensor(xs, dtype=vg.float64), p))
        t = torch.mvlgamma(torch.tensor(xs, dtype=torch.float64), p).numpy()
        np.testing.assert_allclose(o, t, rtol=1e-13, equal_nan=True)


def test_out_and_float16():
    torch = torch_or_skip()
    xs = [0.3, 1.7, 4.0, -2.5]
    o = vg.empty(4, dtype=vg.float64)
    r = vg.polygamma(2, vg.tensor(xs, dtype=vg.float64), out=o)
    assert r is o
    t = torch.polygamma(2, torch.tensor(xs, dtype=torch.float64))
    np.testing.assert_allclose(_np(o), t.numpy(), rtol=1e-12)
    for name in ("lgamma", "digamma", "i0"):
        h = getattr(vg, name)(vg.tensor(xs, dtype=vg.float16))
        th = getattr(torch, name)(torch.tensor(xs, dtype=torch.float16))
        assert h.dtype == vg.float16
        np.testing.assert_allclose(_np(h).astype(np.float64), th.float().numpy(), rtol=2e-3)


def test_the_compat_torch_special_names():
    torch = torch_or_skip()
    from viewgrad.compat.namespaces import extras
    special = extras("torch.special")
    xs = [0.3, 1.7, 4.0, -2.5, 12.0]
    vx, tx = vg.tensor(xs, dtype=vg.float64), torch.tensor(xs, dtype=torch.float64)
    for name in ("gammaln", "digamma", "psi", "i0", "i0e", "i1", "i1e"):
        np.testing.assert_allclose(_np(special[name](vx)), getattr(torch.special, name)(tx),
                                   rtol=1e-13, err_msg=name)
    np.testing.assert_allclose(_np(special["polygamma"](3, vx)), torch.special.polygamma(3, tx),
                               rtol=1e-12)
    np.testing.assert_allclose(_np(special["multigammaln"](vx.abs() + 1, 2)),
                               torch.special.multigammaln(tx.abs() + 1, 2), rtol=1e-13)


# -- float64 accuracy, against mpmath (when installed) ---------------------------------------

def test_float64_accuracy_against_mpmath():
    mp = pytest.importorskip("mpmath", reason="mpmath (the accuracy oracle) not installed")
    mp.mp.dps = 40
    rng = np.random.default_rng(3)
    xs = np.concatenate([rng.uniform(-25, 25, 60), rng.uniform(0, 3, 40),
                         10 ** rng.uniform(-8, 8, 30)])
    xs = xs[np.abs(xs - np.round(xs)) > 1e-6]
    cases = [("lgamma", vg.lgamma, lambda x: mp.log(abs(mp.gamma(x)))),
             ("digamma", vg.digamma, mp.digamma),
             ("i0", vg.i0, lambda x: mp.besseli(0, x)),
             ("i1", GO.i1, lambda x: mp.besseli(1, x)),
             ("i0e", GO.i0e, lambda x: mp.besseli(0, x) * mp.exp(-abs(x))),
             ("i1e", GO.i1e, lambda x: mp.besseli(1, x) * mp.exp(-abs(x)))]
    for n in (1, 2, 3, 4):
        cases.append((f"polygamma{n}", (lambda n: lambda t: vg.polygamma(n, t))(n),
                      (lambda n: lambda x: mp.polygamma(n, x))(n)))
    for name, ours, ref_fn in cases:
        x = xs if not name.startswith("i") else xs[np.abs(xs) < 700]
        ref = np.array([float(ref_fn(mp.mpf(float(v)))) for v in x])
        o = _np(ours(vg.tensor(x, dtype=vg.float64)))
        # relative accuracy, away from the zeros (where only absolute accuracy has meaning)
        np.testing.assert_allclose(o, ref, rtol=2e-13, atol=1e-15, err_msg=name)
