"""``kl_divergence`` against PyTorch for every pair of the provided distributions (the
registered formulas, the dispatch, the errors of unregistered pairs), with first- and
second-order gradients; and sampling, which cannot match PyTorch's random numbers: shapes,
dtypes, support, loose moments, and the reparameterisation identities of ``rsample``'s
gradients (d sample / d loc = 1, d sample / d scale = the noise...).
"""
import math
import warnings

import numpy as np
import pytest

import viewgrad as vg

from ._compare import compare

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")
pytestmark = pytest.mark.host_only("compares with torch CPU tensors")

NAMES = ["Normal", "Laplace", "Uniform", "Exponential", "Gamma", "Beta", "Dirichlet",
         "Bernoulli", "Categorical", "OneHotCategorical", "MultivariateNormal", "Independent"]


def _params(name, rng, b, pre):
    k = 3
    if name in ("Normal", "Laplace", "Independent"):
        return {pre + "a": (rng.randn(*b), "f", True),
                pre + "b": (np.exp(rng.randn(*b) * 0.5), "f", True)}
    if name == "Uniform":
        lo = rng.uniform(-0.5, 0.6, size=b)
        return {pre + "a": (lo, "f", True), pre + "b": (lo + rng.uniform(0.1, 1.5, size=b),
                                                        "f", True)}
    if name == "Exponential":
        return {pre + "a": (np.exp(rng.randn(*b) * 0.5), "f", True)}
    if name in ("Gamma", "Beta"):
        return {pre + "a": (np.exp(rng.randn(*b) * 0.5), "f", True),
                pre + "b": (np.exp(rng.randn(*b) * 0.5), "f", True)}
    if name == "Dirichlet":
        return {pre + "a": (np.exp(rng.randn(*(b + (k,))) * 0.5), "f", True)}
    if name == "Bernoulli":
        p = rng.uniform(0, 1, size=b)
        if b and rng.rand() < 0.4:
            p.flat[0] = [0.0, 1.0][rng.randint(2)]
        return {pre + "a": (p, "f", True)}
    if name in ("Categorical", "OneHotCategorical"):
        p = rng.uniform(0, 1, size=b + (k,))
        if rng.rand() < 0.4:
            p[..., 0] = 0
        return {pre + "a": (p, "f", True)}
    a = rng.randn(*(b + (k, k)))
    return {pre + "a": (rng.randn(*(b + (k,))), "f", True),
            pre + "b": (a @ np.swapaxes(a, -1, -2) + k * np.eye(k), "f", True)}


def _build(name, lib, t, pre):
    D = lib.distributions
    a, b = t.get(pre + "a"), t.get(pre + "b")
    return {"Normal": lambda: D.Normal(a, b), "Laplace": lambda: D.Laplace(a, b),
            "Independent": lambda: D.Independent(D.Normal(a, b), 1 if a.dim() else 0),
            "Uniform": lambda: D.Uniform(a, b), "Exponential": lambda: D.Exponential(a),
            "Gamma": lambda: D.Gamma(a, b), "Beta": lambda: D.Beta(a, b),
            "Dirichlet": lambda: D.Dirichlet(a), "Bernoulli": lambda: D.Bernoulli(probs=a),
            "Categorical": lambda: D.Categorical(probs=a),
            "OneHotCategorical": lambda: D.OneHotCategorical(probs=a),
            "MultivariateNormal": lambda: D.MultivariateNormal(a, covariance_matrix=b)}[name]()


@pytest.mark.parametrize("p_name", NAMES)
def test_kl_divergence_matches_torch_for_every_pair(p_name):
    failures = []
    for j, q_name in enumerate(NAMES):
        for i in range(2):
            seed = 100 * NAMES.index(p_name) + 10 * j + i
            rng = np.random.RandomState(seed)
            bp = [(), (3,), (2, 3)][rng.randint(3)]
            bq = [bp, bp[1:], (1,) + bp][rng.randint(3)] if p_name == q_name else bp
            params = dict(_params(p_name, rng, bp, "p"), **_params(q_name, rng, bq, "q"))
            build = lambda lib, t, q_name=q_name: (_build(p_name, lib, t, "p"),
                                                   _build(q_name, lib, t, "q"))
            calls = {"kl": lambda d, lib, t: lib.distributions.kl_divergence(*d)}
            fails = compare(build, params, calls, ["f32", "f64"][i], seed)
            failures += [(q_name, seed, f) for f in fails]
    assert not failures, failures[:4]


def test_register_kl_dispatch_and_ambiguity_warning():
    D = vg.distributions

    class MyNormal(D.Normal):
        pass

    saved = dict(D.kl._KL_REGISTRY)
    try:
        _dispatch(D, MyNormal)
    finally:   # leave the registry as it was
        D.kl._KL_REGISTRY.clear()
        D.kl._KL_REGISTRY.update(saved)
        D.kl._KL_MEMOIZE.clear()


def _dispatch(D, MyNormal):
    p, q = MyNormal(0.0, 1.0), D.Normal(1.0, 2.0)
    want = torch.distributions.kl_divergence(torch.distributions.Normal(0.0, 1.0),
                                             torch.distributions.Normal(1.0, 2.0))
    assert abs(float(D.kl_divergence(p, q)) - float(want)) < 1e-6   # subclass dispatch

    @D.register_kl(MyNormal, D.Normal)
    def _kl(p, q):
        return vg.tensor(7.0)
    assert float(D.kl_divergence(p, q)) == 7.0   # the more specific pair wins (memo reset)

    class A(D.Normal):
        pass

    class B(D.Normal):
        pass

    D.register_kl(A, D.Normal)(lambda p, q: vg.tensor(1.0))
    D.register_kl(D.Normal, B)(lambda p, q: vg.tensor(2.0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert float(D.kl_divergence(A(0.0, 1.0), B(0.0, 1.0))) == 1.0
    assert any("Ambiguous kl_divergence(A, B)" in str(w.message) for w in caught)


def _check_rsample_identity(dist, params, expected, n=4):
    """d(sum(x * w))/dparam against ``expected(x, params) * w`` summed as torch would."""
    x = dist.rsample((n,))
    w = vg.randn(*x.shape, dtype=x.dtype)
    grads = vg.autograd.grad((x * w).sum(), params)
    for g, e in zip(grads, expected(x.detach(), w)):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-9, atol=1e-12)


def test_rsample_gradients_are_the_reparameterisation():
    vg.manual_seed(0)
    D = vg.distributions
    f64 = dict(dtype=vg.float64)
    loc = vg.tensor([0.5, -1.0], requires_grad=True, **f64)
    scale = vg.tensor([2.0, 0.5], requires_grad=True, **f64)
    # Normal and Laplace: x = loc + scale * eps
    for cls in (D.Normal, D.Laplace):
        _check_rsample_identity(cls(loc, scale), [loc, scale], lambda x, w: (
            w.sum(0), (w * (x - loc.detach()) / scale.detach()).sum(0)))
    low = vg.tensor([0.0, 1.0], requires_grad=True, **f64)
    high = vg.tensor([1.0, 3.0], requires_grad=True, **f64)
    _check_rsample_identity(D.Uniform(low, high), [low, high], lambda x, w: (
        (w * (1 - (x - low.detach()) / (high - low).detach())).sum(0),
        (w * (x - low.detach()) / (high - low).detach()).sum(0)))
    rate = vg.tensor([0.5, 3.0], requires_grad=True, **f64)
    _check_rsample_identity(D.Exponential(rate), [rate], lambda x, w: (
        (-w * x / rate.detach()).sum(0),))
    _check_rsample_identity(D.Gamma(vg.tensor([0.5, 3.0], **f64), rate), [rate],
                            lambda x, w: ((-w * x / rate.detach()).sum(0),))
    # MultivariateNormal: x = loc + L eps, d/dloc = 1
    mloc = vg.tensor([0.5, -1.0], requires_grad=True, **f64)
    mvn = D.MultivariateNormal(mloc, vg.tensor([[2.0, 0.3], [0.3, 1.0]], **f64))
    _check_rsample_identity(mvn, [mloc], lambda x, w: (w.sum(0),))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_concentration_gradients_of_a_draw_are_torchs(dtype):
    """The implicit-reparameterisation gradients PyTorch approximates (_standard_gamma_grad,
    _dirichlet_grad): the same numbers on a grid of shapes and draws, every branch."""
    from viewgrad.distributions.dirichlet_grad import dirichlet_grad
    from viewgrad.distributions.gamma_grad import standard_gamma_grad
    rng = np.random.RandomState(5)
    n = 1500
    a, b = np.exp(rng.randn(n) * 1.5), np.exp(rng.randn(n) * 1.5)
    x = np.concatenate([rng.gamma(a[:n // 2]), rng.uniform(0.01, 30, n - n // 2)])
    u = np.clip(np.concatenate([rng.beta(a[:n // 2], b[:n // 2]),
                                rng.uniform(0.001, 0.999, n - n // 2)]), 1e-6, 1 - 1e-6)
    T = lambda v: torch.tensor(v, dtype=getattr(torch, dtype))
    V = lambda v: vg.tensor(v, dtype=getattr(vg, dtype))
    rtol = 1e-6 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(standard_gamma_grad(V(a), V(x)).numpy(),
                               torch._standard_gamma_grad(T(a), T(x)).numpy(), rtol=rtol)
    # the Dirichlet's float32 Taylor branches round as PyTorch's float32 code does only
    # to about 1e-3 (PyTorch's own float32 answer is that far from its float64 one)
    np.testing.assert_allclose(dirichlet_grad(V(u), V(a), V(a + b)).numpy(),
                               torch._dirichlet_grad(T(u), T(a), T(a + b)).numpy(),
                               rtol=1e-6 if dtype == "float64" else 2e-3)


def test_rsample_backward_is_torchs_for_the_same_draw():
    from torch.distributions.dirichlet import _Dirichlet_backward
    vg.manual_seed(1)
    D = vg.distributions
    c = vg.tensor([[0.3, 2.0, 12.0], [1.0, 0.7, 9.0]], dtype=vg.float64, requires_grad=True)
    r = vg.tensor([1.0, 0.5, 2.0], dtype=vg.float64, requires_grad=True)
    x = D.Gamma(c, r).rsample((5,))
    w = vg.randn(*x.shape, dtype=vg.float64)
    gc, gr = vg.autograd.grad((x * w).sum(), [c, r])
    tx = torch.tensor((x * r).detach().numpy())   # the standard gamma draws
    tc = torch.tensor(c.detach().numpy()).expand(tx.shape)
    tr, tw = torch.tensor(r.detach().numpy()), torch.tensor(w.numpy())
    np.testing.assert_allclose(gc.numpy(), (torch._standard_gamma_grad(tc, tx) / tr * tw)
                               .sum(0).numpy(), rtol=1e-9)
    np.testing.assert_allclose(gr.numpy(), (-tx / tr ** 2 * tw).sum((0, 1)).numpy(),
                               rtol=1e-9)
    x = D.Dirichlet(c).rsample((4,))
    assert bool(D.Dirichlet(c).support.check(x).all())
    w = vg.randn(*x.shape, dtype=vg.float64)
    got = vg.autograd.grad((x * w).sum(), [c])[0]
    want = _Dirichlet_backward(torch.tensor(x.detach().numpy()),
                               torch.tensor(c.detach().numpy()).expand(x.shape),
                               torch.tensor(w.numpy())).sum(0)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-9)
    # Beta: d E[x] / d c1 = c0 / (c1 + c0)^2, by Monte Carlo through the Dirichlet's draw
    c1, c0 = (vg.tensor(v, dtype=vg.float64, requires_grad=True) for v in (2.0, 3.0))
    g1, g0 = vg.autograd.grad(D.Beta(c1, c0).rsample((100000,)).mean(), [c1, c0])
    assert abs(float(g1) - 3 / 25) < 0.01 and abs(float(g0) + 2 / 25) < 0.01


SAMPLING = [   # (build, mean, variance) with the exact moments
    (lambda D: D.Normal(vg.tensor([1.0, -2.0]), vg.tensor([0.5, 2.0])), None, None),
    (lambda D: D.Laplace(vg.tensor([1.0, -2.0]), vg.tensor([0.5, 2.0])), None, None),
    (lambda D: D.Uniform(vg.tensor([0.0, -2.0]), vg.tensor([1.0, 5.0])), None, None),
    (lambda D: D.Exponential(vg.tensor([0.5, 4.0])), None, None),
    (lambda D: D.Gamma(vg.tensor([0.3, 1.0, 7.5]), vg.tensor([1.0, 2.0, 0.5])), None, None),
    (lambda D: D.Beta(vg.tensor([0.5, 2.0]), vg.tensor([0.7, 5.0])), None, None),
    (lambda D: D.Dirichlet(vg.tensor([0.5, 2.0, 3.0])), None, None),
    (lambda D: D.Bernoulli(probs=vg.tensor([0.1, 0.7])), None, None),
    (lambda D: D.Categorical(probs=vg.tensor([0.2, 0.5, 0.3])),
     2 * 0.3 + 0.5, 0.5 + 4 * 0.3 - (2 * 0.3 + 0.5) ** 2),
    (lambda D: D.OneHotCategorical(logits=vg.tensor([0.2, -0.5, 1.0])), None, None),
    (lambda D: D.MultivariateNormal(vg.tensor([1.0, 0.0]),
                                    vg.tensor([[2.0, 0.5], [0.5, 1.0]])), None, None),
    (lambda D: D.Independent(D.Normal(vg.zeros(3), vg.ones(3) * 2), 1), None, None),
]


@pytest.mark.parametrize("case", range(len(SAMPLING)))
def test_samples_have_the_shape_dtype_support_and_moments(case):
    vg.manual_seed(case)
    build, mean, var = SAMPLING[case]
    d = build(vg.distributions)
    n = 20000
    x = d.sample((n,))
    assert tuple(x.shape) == (n,) + tuple(d.batch_shape) + tuple(d.event_shape)
    want_dtype = vg.int64 if isinstance(d, vg.distributions.Categorical) else vg.float32
    assert x.dtype == want_dtype and not x.requires_grad
    assert bool(d.support.check(x).all())
    mean = d.mean if mean is None else vg.tensor(mean)
    var = d.variance if var is None else vg.tensor(var)
    xf = x.double()
    sd = var.double().sqrt()
    # 6 standard errors of the mean; the variance within 10 %
    assert bool(((xf.mean(0) - mean.double()).abs() <= 6 * sd / math.sqrt(n) + 1e-9).all())
    assert bool(((xf.var(0) - var.double()).abs() <= 0.1 * var.double() + 1e-9).all())
    with pytest.warns(FutureWarning):
        assert d.sample_n(3).shape[0] == 3
