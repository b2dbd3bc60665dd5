"""``vg.distributions`` against ``torch.distributions``: for seeded random parameters
(broadcast shapes, Python numbers, float32 and float64, invalid values with validation
on, off and default), every deterministic quantity — log_prob, cdf, icdf, entropy,
perplexity, mean, mode, variance, stddev, the other parametrisation (probs/logits,
covariance/precision/scale_tril), enumerate_support, expand — must give PyTorch's values,
dtypes and shapes, its first- and second-order gradients, and its errors.
"""
import numpy as np
import pytest

import viewgrad as vg

from ._compare import compare

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")
pytestmark = pytest.mark.host_only("compares with torch CPU tensors")

SHAPES = [(), (3,), (2, 3), (1, 3), (2, 1), (4, 1, 3)]
CASES = 6   # per class and dtype


def _shapes(rng, k):
    sh = [SHAPES[rng.randint(len(SHAPES))] for _ in range(k)]
    try:
        np.broadcast_shapes(*sh)
        return sh
    except ValueError:
        return [sh[0]] * k


def _validate(rng):
    return [None, True, False][rng.randint(3)]


def _moments(extra=()):
    calls = {"mean": lambda d, lib, t: d.mean, "variance": lambda d, lib, t: d.variance,
             "stddev": lambda d, lib, t: d.stddev, "entropy": lambda d, lib, t: d.entropy(),
             "perplexity": lambda d, lib, t: d.perplexity(), "mode": lambda d, lib, t: d.mode,
             "log_prob": lambda d, lib, t: d.log_prob(t["value"]),
             "expanded": lambda d, lib, t: d.expand((2,) + tuple(d.batch_shape)).log_prob(
                 t["value"]),
             "sample_shape": lambda d, lib, t: lib.zeros(tuple(d.sample((2,)).shape))}
    if "cdf" in extra:
        calls["cdf"] = lambda d, lib, t: d.cdf(t["value"])
        calls["icdf"] = lambda d, lib, t: d.icdf(t["q"])
    return calls


def _loc_scale(name):
    def case(rng):
        validate = _validate(rng)
        s1, s2, s3 = _shapes(rng, 3)
        scale = np.exp(rng.randn(*s2) * 0.7)
        if rng.rand() < 0.2:
            scale = -scale
        params = {"loc": (rng.randn(*s1) * 2, "f", True), "scale": (scale, "f", True),
                  "value": (rng.randn(*s3) * 2, "f", True),
                  "q": (rng.uniform(0.01, 0.99, size=s3), "f", True)}
        if rng.rand() < 0.25:
            params["loc"] = (float(rng.randn()), "f", False)
        return params, lambda lib, t: getattr(lib.distributions, name)(
            t["loc"], t["scale"], validate_args=validate), _moments(("cdf",))
    return case


def _uniform(rng):
    validate = _validate(rng)
    s1, s2, s3 = _shapes(rng, 3)
    low = rng.randn(*s1)
    high = low + np.exp(rng.randn(*s2)) - (3 if rng.rand() < 0.15 else 0)
    params = {"low": (low, "f", True), "high": (high, "f", True),
              "value": (rng.uniform(-1, 2, size=s3), "f", True),
              "q": (rng.uniform(0, 1, size=s3), "f", True)}
    return params, lambda lib, t: lib.distributions.Uniform(
        t["low"], t["high"], validate_args=validate), _moments(("cdf",))


def _exponential(rng):
    validate = _validate(rng)
    s1, s3 = _shapes(rng, 2)
    rate = np.exp(rng.randn(*s1)) * (-1 if rng.rand() < 0.1 else 1)
    value = np.abs(rng.randn(*s3)) * (1 if rng.rand() < 0.85 else -1)
    params = {"rate": (rate, "f", True), "value": (value, "f", True),
              "q": (rng.uniform(0, 0.99, size=s3), "f", True)}
    return params, lambda lib, t: lib.distributions.Exponential(
        t["rate"], validate_args=validate), _moments(("cdf",))


def _gamma(rng):
    validate = _validate(rng)
    s1, s2, s3 = _shapes(rng, 3)
    value = np.abs(rng.randn(*s3)) * 2 - (3 if rng.rand() < 0.1 else 0)
    params = {"c": (np.exp(rng.randn(*s1)), "f", True), "r": (np.exp(rng.randn(*s2)), "f", True),
              "value": (value if rng.rand() < 0.9 else np.zeros(s3), "f", True)}
    return params, lambda lib, t: lib.distributions.Gamma(
        t["c"], t["r"], validate_args=validate), _moments()


def _beta(rng):
    validate = _validate(rng)
    s1, s2, s3 = _shapes(rng, 3)
    c0 = np.exp(rng.randn(*s2)) * (-1 if rng.rand() < 0.1 else 1)
    value = rng.uniform(0.001, 0.999, size=s3) + (1 if rng.rand() < 0.1 else 0)
    params = {"c1": (np.exp(rng.randn(*s1)), "f", True), "c0": (c0, "f", True),
              "value": (value, "f", True)}
    return params, lambda lib, t: lib.distributions.Beta(
        t["c1"], t["c0"], validate_args=validate), _moments()


def _dirichlet(rng):
    validate = _validate(rng)
    b = [(), (2,), (3, 1)][rng.randint(3)]
    k = rng.randint(2, 5)
    value = rng.dirichlet(np.ones(k), size=b or None) * (1.1 if rng.rand() < 0.1 else 1)
    params = {"c": (np.exp(rng.randn(*(b + (k,)))), "f", True), "value": (value, "f", True)}
    return params, lambda lib, t: lib.distributions.Dirichlet(
        t["c"], validate_args=validate), _moments()


def _discrete_calls(bernoulli=False):
    calls = {"log_prob": lambda d, lib, t: d.log_prob(t["value"]),
             "entropy": lambda d, lib, t: d.entropy(), "mean": lambda d, lib, t: d.mean,
             "variance": lambda d, lib, t: d.variance, "mode": lambda d, lib, t: d.mode,
             "probs": lambda d, lib, t: d.probs, "logits": lambda d, lib, t: d.logits,
             "perplexity": lambda d, lib, t: d.perplexity(),
             "enumerate": lambda d, lib, t: d.enumerate_support(),
             "enumerate_unexpanded": lambda d, lib, t: d.enumerate_support(False),
             "expanded": lambda d, lib, t: d.expand((2,) + tuple(d.batch_shape)).probs,
             # (negative probs: vg.multinomial's message differs from torch's, not ours)
             "sample_shape": lambda d, lib, t: lib.zeros(
                 tuple(d.sample((2, 3)).shape) if bool((d.probs >= 0).all()) else ())}
    if bernoulli:
        calls["stddev"] = lambda d, lib, t: d.stddev
    return calls


def _bernoulli(rng):
    validate = _validate(rng)
    b = [(), (3,), (2, 3), (2, 1)][rng.randint(4)]
    use_logits = rng.rand() < 0.5
    p = rng.uniform(0, 1, size=b)
    if b and rng.rand() < 0.3:
        p.flat[0] = [0.0, 1.0, 0.5][rng.randint(3)]
    arr = rng.randn(*b) * 3 if use_logits else p + (1 if rng.rand() < 0.1 else 0)
    vs = [(), b][rng.randint(2)]
    value = np.asarray(rng.rand(*vs) < 0.5, dtype=np.float64) + (0.5 if rng.rand() < 0.1 else 0)
    kw = "logits" if use_logits else "probs"
    return ({"p": (arr, "f", True), "value": (value, "f", False)},
            lambda lib, t: lib.distributions.Bernoulli(**{kw: t["p"]}, validate_args=validate),
            _discrete_calls(True))


def _categorical(name):
    def case(rng):
        validate = _validate(rng)
        b = [(), (3,), (2, 3), (2, 1)][rng.randint(4)]
        k = rng.randint(2, 5)
        use_logits = rng.rand() < 0.5
        p = rng.uniform(0, 1, size=b + (k,))
        if rng.rand() < 0.25:
            p[..., 0] = 0
        if rng.rand() < 0.1:
            p[..., 0] = -0.5
        arr = rng.randn(*(b + (k,))) * 2 if use_logits else p
        idx = np.asarray(rng.randint(0, k + (1 if rng.rand() < 0.1 else 0),
                                     size=[(), b][rng.randint(2)]))
        kw = "logits" if use_logits else "probs"
        value = (idx, "i", False) if name == "Categorical" else (
            np.eye(k)[np.minimum(idx, k - 1)], "f", False)
        return ({"p": (arr, "f", True), "value": value},
                lambda lib, t: getattr(lib.distributions, name)(**{kw: t["p"]},
                                                                 validate_args=validate),
                _discrete_calls())
    return case


def _mvn(rng):
    validate = _validate(rng)
    n = rng.randint(1, 4)
    bm = [(), (2,), (3, 1)][rng.randint(3)]
    bl = [(), (2,), (1, 2)][rng.randint(3)]
    try:
        np.broadcast_shapes(bm, bl)
    except ValueError:
        bl = bm
    a = rng.randn(*(bm + (n, n)))
    cov = a @ np.swapaxes(a, -1, -2) + n * np.eye(n) * 0.5
    kind = ["covariance_matrix", "precision_matrix", "scale_tril"][rng.randint(3)]
    m = np.linalg.cholesky(cov) if kind == "scale_tril" else cov
    if rng.rand() < 0.15:
        m = m.copy()
        m[..., 0, 0] = -1
    vb = [(), (4,), (5, 1)][rng.randint(3)] + np.broadcast_shapes(bm, bl)
    params = {"loc": (rng.randn(*(bl + (n,))), "f", True), "m": (m, "f", True),
              "value": (rng.randn(*(vb + (n,))), "f", True)}
    calls = {"log_prob": lambda d, lib, t: d.log_prob(t["value"]),
             "entropy": lambda d, lib, t: d.entropy(), "mean": lambda d, lib, t: d.mean,
             "variance": lambda d, lib, t: d.variance, "mode": lambda d, lib, t: d.mode,
             "covariance": lambda d, lib, t: d.covariance_matrix,
             "precision": lambda d, lib, t: d.precision_matrix,
             "scale_tril": lambda d, lib, t: d.scale_tril,
             "expanded": lambda d, lib, t: d.expand((2,) + tuple(d.batch_shape)).log_prob(
                 t["value"]),
             "sample_shape": lambda d, lib, t: lib.zeros(tuple(d.sample((2,)).shape))}
    return params, lambda lib, t: lib.distributions.MultivariateNormal(
        t["loc"], **{kind: t["m"]}, validate_args=validate), calls


def _independent(rng):
    validate = _validate(rng)
    b = [(3,), (2, 3), (4, 2, 3)][rng.randint(3)]
    r = rng.randint(0, len(b) + 1)
    params = {"loc": (rng.randn(*b), "f", True), "scale": (np.exp(rng.randn(*b)), "f", True),
              "value": (rng.randn(*b), "f", True)}
    calls = {"log_prob": lambda d, lib, t: d.log_prob(t["value"]),
             "entropy": lambda d, lib, t: d.entropy(), "mean": lambda d, lib, t: d.mean,
             "variance": lambda d, lib, t: d.variance,
             "expanded": lambda d, lib, t: d.expand((2,) + tuple(d.batch_shape)).log_prob(
                 t["value"])}
    return params, lambda lib, t: lib.distributions.Independent(
        lib.distributions.Normal(t["loc"], t["scale"]), r, validate_args=validate), calls


GENERATORS = {"Normal": _loc_scale("Normal"), "Laplace": _loc_scale("Laplace"),
              "Uniform": _uniform, "Exponential": _exponential, "Gamma": _gamma,
              "Beta": _beta, "Dirichlet": _dirichlet, "Bernoulli": _bernoulli,
              "Categorical": _categorical("Categorical"),
              "OneHotCategorical": _categorical("OneHotCategorical"),
              "MultivariateNormal": _mvn, "Independent": _independent}


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_deterministic_quantities_match_torch(name, dtype):
    failures = []
    for i in range(CASES):
        seed = 1000 * sorted(GENERATORS).index(name) + 10 * i + (dtype == "f64")
        params, build, calls = GENERATORS[name](np.random.RandomState(seed))
        failures += [(seed, f) for f in compare(build, params, calls, dtype, seed)]
    assert not failures, failures[:5]


def test_the_comparison_can_fail():
    # a distribution that differs from torch's by one ulp-scale term must be caught
    def build(lib, t):
        d = lib.distributions.Normal(t["loc"], t["scale"])
        return d if lib is torch else lib.distributions.Normal(t["loc"] * (1 + 1e-6),
                                                               t["scale"])
    params = {"loc": (np.array([0.5, 1.0]), "f", True), "scale": (np.ones(2), "f", True),
              "value": (np.array([0.1, 0.2]), "f", True)}
    calls = {"log_prob": lambda d, lib, t: d.log_prob(t["value"])}
    assert compare(build, params, calls, "f64", 0)


def test_validation_default_and_switch():
    D = vg.distributions
    assert D.Distribution._validate_args is True
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args(2)
    try:
        D.Distribution.set_default_validate_args(False)
        D.Normal(vg.tensor([0.0]), vg.tensor([-1.0]))   # no check
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError, match="GreaterThan"):
        D.Normal(vg.tensor([0.0]), vg.tensor([-1.0]))


@pytest.mark.parametrize("make", [
    lambda lib: lib.distributions.Normal(lib.tensor([0.0, 1.0]), lib.tensor([1.0, -2.0])),
    lambda lib: lib.distributions.Normal(0.0, -1.0),
    lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([0.2, 1.5])),
    lambda lib: lib.distributions.Bernoulli(probs=0.3, logits=0.1),
    lambda lib: lib.distributions.Bernoulli(),
    lambda lib: lib.distributions.Categorical(probs=lib.tensor(0.5)),
    lambda lib: lib.distributions.Categorical(logits=lib.tensor([[0.1, float("nan")]])),
    lambda lib: lib.distributions.Categorical(probs=lib.tensor([[0.1, -0.2]])),
    lambda lib: lib.distributions.Uniform(lib.tensor([1.0]), lib.tensor([0.5])),
    lambda lib: lib.distributions.Beta(1.0, -2.0),
    lambda lib: lib.distributions.Gamma(lib.tensor([1.0]), lib.tensor([0.0])),
    lambda lib: lib.distributions.Dirichlet(lib.tensor(1.0)),
    lambda lib: lib.distributions.MultivariateNormal(lib.tensor(0.0), lib.eye(2)),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2)),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.tensor([1.0, 2.0])),
    lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(2), lib.tensor([[1.0, 2.0], [0.0, 1.0]])),
    lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(2), scale_tril=lib.tensor([[1.0, 2.0], [0.0, 1.0]])),
    lambda lib: lib.distributions.Independent(lib.distributions.Normal(0.0, 1.0), 1),
    lambda lib: lib.distributions.Normal(lib.zeros(2), lib.ones(2)).log_prob(
        lib.zeros(3)),
    lambda lib: lib.distributions.Normal(lib.zeros(2), lib.ones(2)).log_prob([0.0]),
    lambda lib: lib.distributions.Exponential(lib.ones(2)).log_prob(lib.tensor([-1.0, 1.0])),
    lambda lib: lib.distributions.Categorical(logits=lib.zeros(3)).log_prob(lib.tensor(3)),
    lambda lib: lib.distributions.OneHotCategorical(probs=lib.ones(3)).log_prob(
        lib.tensor([1.0, 1.0, 0.0])),
    lambda lib: lib.distributions.Normal(0.0, 1.0).mode.new_zeros(1) + lib.distributions
    .Categorical(logits=lib.zeros(3)).mean.sum().isnan().float(),
    lambda lib: lib.distributions.Exponential(1.0).enumerate_support(),
    lambda lib: lib.distributions.Independent(
        lib.distributions.Bernoulli(lib.ones(2) / 2), 1).enumerate_support(),
    lambda lib: lib.distributions.Laplace(0.0, 1.0).expand((2,)).batch_shape,
])
def test_errors_and_messages_match_torch(make):
    def outcome(lib):
        try:
            r = make(lib)
        except Exception as e:   # noqa: BLE001 - the error itself is compared
            return type(e).__name__, str(e).replace("viewgrad.", "torch.")
        return "ok", str(r).replace("viewgrad.", "torch.")
    assert outcome(vg) == outcome(torch)


def test_reprs_match_torch():
    def reprs(lib):
        D, C = lib.distributions, lib.distributions.constraints
        t = lib.tensor([0.5, 0.25])
        return [repr(x) for x in (
            D.Normal(0.0, 1.0), D.Normal(t, 1.0), D.Bernoulli(logits=t),
            D.Categorical(probs=t), D.OneHotCategorical(logits=t), D.Uniform(0.0, t),
            D.Beta(1.0, 2.0), D.Gamma(t, t), D.Dirichlet(t), D.Exponential(2.0),
            D.Laplace(t, t), D.MultivariateNormal(t, lib.eye(2)),
            D.Independent(D.Normal(t, t), 1), C.real, C.positive, C.nonnegative,
            C.unit_interval, C.simplex, C.boolean, C.integer_interval(0, 3), C.interval(1, 2),
            C.half_open_interval(-1, 1), C.greater_than(2), C.real_vector, C.lower_cholesky,
            C.positive_definite, C.independent(C.positive, 2), C.dependent,
            D.Uniform(0.0, 1.0).support, D.Categorical(logits=t).support)]
    assert [r.replace("viewgrad.", "torch.") for r in reprs(vg)] == reprs(torch)


def test_constraints_check_like_torch():
    rng = np.random.RandomState(3)
    values = [rng.randn(2, 3, 3), np.tril(rng.rand(2, 3, 3)) + 0.1,
              np.array([[0.2, 0.8], [0.5, 0.6]]), np.array([0.0, 1.0, 2.0, -1.0, 0.5]),
              np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([[1.0, 2.0], [2.0, 1.0]]),
              np.array([float("nan"), 1.0])]
    names = ["real", "positive", "nonnegative", "unit_interval", "simplex", "boolean",
             "real_vector", "lower_cholesky", "positive_definite", "lower_triangular"]
    for v in values:
        for name in names:
            c_t = getattr(torch.distributions.constraints, name)
            c_v = getattr(vg.distributions.constraints, name)
            if v.ndim < c_t.event_dim:
                continue
            want = c_t.check(torch.tensor(v)).numpy()
            got = c_v.check(vg.tensor(v)).numpy()
            assert np.array_equal(got, want), (name, v)
        for c in ("integer_interval", "interval", "half_open_interval"):
            want = getattr(torch.distributions.constraints, c)(0, 1).check(torch.tensor(v))
            got = getattr(vg.distributions.constraints, c)(0, 1).check(vg.tensor(v))
            assert np.array_equal(got.numpy(), want.numpy()), (c, v)
