"""``add``/``sub`` with ``alpha`` round once, as torch 2.13's CPU kernel does
(``fma(alpha, other, self)``): Note [alpha as one fused multiply-add] (viewgrad/blas.py).

``self + other * alpha`` rounds twice. For float32 with alpha 2.5 that is a different
number in about a quarter of the elements, and the optimizers' ``p.add_(g, alpha=-lr)`` is
one. Checked three ways:
  * against exact arithmetic (``fractions.Fraction``, correctly rounded), with no torch;
  * against torch, bit for bit: out of place, in place (grad mode, no_grad's optimizer
    path, a view's CopySlices), the forms, broadcasting, layouts, special values, the
    backward;
  * the SGD optimizer's steps (momentum, nesterov, weight decay) against torch's, bit for
    bit.
With NumPy's BLAS unavailable (``blas.AXPY`` None) the formula is the two-rounding one;
``test_without_blas_the_two_rounding_formula`` pins that fallback.
"""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import viewgrad as vg
from viewgrad import blas
from tests.helpers import torch_or_skip

pytestmark = [
    pytest.mark.host_only("NumPy's BLAS axpy runs on host arrays (blas.py)"),
    pytest.mark.skipif(blas.AXPY is None,
                       reason="this NumPy's BLAS has no axpy viewgrad knows (blas.py): "
                              "add/sub with alpha round twice here"),
]

DTYPES = {"float32": np.float32, "float64": np.float64}
ALPHAS = [2.5, 1e-3, -0.7, 0.1, 3, -1.0]


# -- exact arithmetic -----------------------------------------------------------------------

def _round_to(fr, dtype):
    """The exact rational ``fr`` rounded to nearest (ties to even) in ``dtype``."""
    if dtype == np.float64:
        return np.float64(float(fr))   # int/int true division is correctly rounded
    near = np.float32(float(fr))      # within one float32 step of the answer
    cands = {near, np.nextafter(near, np.float32(np.inf)),
             np.nextafter(near, np.float32(-np.inf))}
    cands = [c for c in cands if np.isfinite(c)]
    best = min(abs(Fraction(float(c)) - fr) for c in cands)
    ties = [c for c in cands if abs(Fraction(float(c)) - fr) == best]
    return min(ties, key=lambda c: int(c.view(np.uint32)) & 1)


def _exact(a, b, alpha, dtype, sign=1):
    al = Fraction(float(dtype(alpha))) * sign   # torch casts alpha to the tensor's type
    a, b = np.broadcast_arrays(a, b)
    out = [_round_to(Fraction(float(x)) + al * Fraction(float(y)), dtype)
           for x, y in zip(a.ravel(), b.ravel())]
    return np.array(out, dtype).reshape(a.shape)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(list(DTYPES)), st.sampled_from(["add", "sub", "add_", "sub_"]),
       st.floats(-8, 8, allow_nan=False).filter(lambda v: v != 0),
       st.integers(0, 2**32 - 1), st.sampled_from([(7,), (3, 5), (4, 1), ()]))
def test_rounds_once_as_exact_arithmetic(dtype, form, alpha, seed, shape):
    dt = DTYPES[dtype]
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 10 ** rng.uniform(-3, 3, shape)).astype(dt)
    b = (rng.standard_normal(shape) * 10 ** rng.uniform(-3, 3, shape)).astype(dt)
    x, y = vg.tensor(a), vg.tensor(b)
    sign = -1 if form.startswith("sub") else 1
    if form.endswith("_"):
        with vg.no_grad():
            r = getattr(x, form)(y, alpha=alpha)
    else:
        r = getattr(vg, form)(x, y, alpha=alpha)
    assert np.array_equal(r.numpy(), _exact(a, b, alpha, dt, sign))


def test_without_blas_the_two_rounding_formula(monkeypatch):
    monkeypatch.setattr(blas, "AXPY", None)
    a = np.linspace(-3, 3, 40, dtype=np.float32)
    b = np.linspace(1, 2, 40, dtype=np.float32)
    assert np.array_equal(vg.add(vg.tensor(a), vg.tensor(b), alpha=2.5).numpy(),
                          a + b * np.float32(2.5))
    with vg.no_grad():
        p = vg.tensor(a.copy())
        p.sub_(vg.tensor(b), alpha=0.1)
    assert np.array_equal(p.numpy(), a - b * np.float32(0.1))


# -- against torch --------------------------------------------------------------------------

PAIRS = {   # name -> (self's shape, other's shape, how other is laid out)
    "same": ((1000,), (1000,), None),
    "short": ((3,), (3,), None),
    "matrix": ((17, 5), (17, 5), None),
    "row": ((64, 33), (33,), None),
    "outer": ((5, 1), (1, 7), None),
    "scalars": ((), (), None),
    "scalar_self": ((), (9,), None),   # the result is other's shape
    "transposed": ((6, 11), (11, 6), "t"),
    "strided": ((20,), (40,), "step"),
    "empty": ((0, 3), (0, 3), None),
    "float64_other": ((40,), (40,), "f64"),   # computed in float64 (then cast, in place)
}


def _operands(M, pair, dt, seed=0):
    sa, sb, lay = PAIRS[pair]
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(sa).astype(dt)
    b = rng.standard_normal(sb).astype(dt)
    x, y = M.tensor(a), M.tensor(b)
    if lay == "t":
        y = y.t()
    elif lay == "step":
        y = y[::2]
    elif lay == "f64":
        y = y.double()
    return x, y


def _out_of_place(M, pair, dt, op, alpha, form):
    x, y = _operands(M, pair, dt)
    x.requires_grad_(True)
    y.requires_grad_(True)
    if form == "function":
        r = getattr(M, op)(x, y, alpha=alpha)
    else:
        r = getattr(x, op)(y, alpha=alpha)
    g = M.tensor(np.random.default_rng(1).standard_normal(tuple(r.shape)).astype(dt))
    r.backward(g)
    return [t.detach().numpy().copy() for t in (r, x.grad, y.grad)]


@pytest.mark.parametrize("form", ["function", "method"])
@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("op", ["add", "sub"])
@pytest.mark.parametrize("pair", sorted(PAIRS))
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_out_of_place_and_backward_as_torch(dtype, pair, op, alpha, form):
    torch = torch_or_skip()
    dt = DTYPES[dtype]
    ours = _out_of_place(vg, pair, dt, op, alpha, form)
    theirs = _out_of_place(torch, pair, dt, op, alpha, form)
    _same(ours, theirs, dt, summed=[i for i in (1, 2) if ours[i].shape != ours[0].shape])


def _same(ours, theirs, dt, summed=()):
    """Bit for bit, but for the outputs in ``summed``: a broadcast input's gradient is a
    sum, whose order is not alpha's business."""
    for i, (o, t) in enumerate(zip(ours, theirs)):
        assert o.dtype == t.dtype and o.shape == t.shape
        if i in summed:
            tol = 1e-4 if dt == np.float32 else 1e-12
            np.testing.assert_allclose(o, t, rtol=tol, atol=tol)
        else:
            assert np.array_equal(o, t), np.argwhere(o != t)[:10]


def _in_place(M, pair, dt, op, alpha, mode):
    x, y = _operands(M, pair, dt)
    if mode == "no_grad":
        with M.no_grad():
            getattr(x, op + "_")(y, alpha=alpha)
        return [x.numpy().copy()]
    w = x.clone().requires_grad_(True) if mode == "grad" else None
    if mode == "grad":
        z = w * 1.0
        getattr(z, op + "_")(y.requires_grad_(True), alpha=alpha)
    else:   # a view of a bigger base: CopySlices
        base = M.zeros((2,) + tuple(x.shape), dtype=x.dtype)
        w = base.clone().requires_grad_(True)
        z = w * 1.0
        z[1].copy_(x)
        getattr(z[1], op + "_")(y.requires_grad_(True), alpha=alpha)
    g = M.tensor(np.random.default_rng(2).standard_normal(tuple(z.shape)).astype(dt))
    z.backward(g)
    return [t.detach().numpy().copy() for t in (z, w.grad, y.grad)]


@pytest.mark.parametrize("mode", ["no_grad", "grad", "view"])
@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("op", ["add", "sub"])
@pytest.mark.parametrize("pair", ["same", "short", "matrix", "row", "scalars", "transposed",
                                  "strided", "empty", "float64_other"])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_in_place_as_torch(dtype, pair, op, alpha, mode):
    torch = torch_or_skip()
    dt = DTYPES[dtype]
    ours = _in_place(vg, pair, dt, op, alpha, mode)
    theirs = _in_place(torch, pair, dt, op, alpha, mode)
    broadcast = PAIRS[pair][1] != PAIRS[pair][0] and PAIRS[pair][2] is None
    _same(ours, theirs, dt, summed=[2] if broadcast else [])


SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 3e38, -3e38, 1e-45, 1.0, -2.5, 1e308]


@pytest.mark.parametrize("alpha", [2.5, -0.5, 1e-3, 1e30, 0.0, -0.0])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_special_values_as_torch(dtype, alpha):
    # fma(2.5, 3e38, -3e38) is finite in float32; rounding the product first overflows
    torch = torch_or_skip()
    dt = DTYPES[dtype]
    with np.errstate(all="ignore"):
        s = np.array(SPECIAL, dt)
    a, b = (v.ravel() for v in np.meshgrid(s, s))
    for op in ("add", "sub"):
        ours = getattr(vg, op)(vg.tensor(a), vg.tensor(b), alpha=alpha).numpy()
        theirs = getattr(torch, op)(torch.tensor(a), torch.tensor(b), alpha=alpha).numpy()
        assert np.array_equal(ours, theirs, equal_nan=True), [
            (x, y, o, t) for x, y, o, t in zip(a, b, ours, theirs)
            if not (o == t or (o != o and t != t))]
        with vg.no_grad():
            p = vg.tensor(a.copy())
            getattr(p, op + "_")(vg.tensor(b), alpha=alpha)
        assert np.array_equal(p.numpy(), theirs, equal_nan=True)


def test_a_0d_other_rounds_once_everywhere():
    # torch's loop for a 0-d ``other`` rounds a few of its last elements twice (its
    # scalar-operand kernel's tail): viewgrad rounds once everywhere, so it is compared
    # with exact arithmetic, and with torch everywhere but there
    torch = torch_or_skip()
    rng = np.random.default_rng(7)
    a = rng.standard_normal(1000).astype(np.float32)
    b = rng.standard_normal(()).astype(np.float32)
    ours = vg.add(vg.tensor(a), vg.tensor(b), alpha=2.7).numpy()
    assert np.array_equal(ours, _exact(a, b, 2.7, np.float32))
    theirs = torch.add(torch.tensor(a), torch.tensor(b), alpha=2.7).numpy()
    differ = np.nonzero(ours != theirs)[0]
    assert len(differ) <= 16 and (differ >= len(a) - 16).all(), differ
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6)


# -- optimizers -----------------------------------------------------------------------------

SGD_CONFIGS = [dict(lr=0.1), dict(lr=0.05, momentum=0.9), dict(lr=0.05, momentum=0.9,
               nesterov=True), dict(lr=0.1, weight_decay=0.01),
               dict(lr=0.03, momentum=0.5, dampening=0.2, weight_decay=1e-3),
               dict(lr=0.1, maximize=True, weight_decay=0.1)]


def _sgd_steps(M, cfg, dt, steps=4):
    rng = np.random.default_rng(11)
    w = M.tensor(rng.standard_normal((13, 7)).astype(dt), requires_grad=True)
    c = M.tensor(rng.standard_normal((13, 7)).astype(dt))
    opt = M.optim.SGD([w], **cfg)
    for _ in range(steps):
        opt.zero_grad()
        ((w * c) ** 2).sum().backward()
        opt.step()
    return w.detach().numpy().copy()


@pytest.mark.parametrize("cfg", range(len(SGD_CONFIGS)))
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_sgd_steps_as_torch(dtype, cfg):
    torch = torch_or_skip()
    dt = DTYPES[dtype]
    ours = _sgd_steps(vg, SGD_CONFIGS[cfg], dt)
    theirs = _sgd_steps(torch, SGD_CONFIGS[cfg], dt)
    assert np.array_equal(ours, theirs), np.argwhere(ours != theirs)[:10]


# -- the routine itself ---------------------------------------------------------------------

def test_axpy_into_refuses_what_it_cannot_do_in_one_pass():
    f = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert not blas.axpy_into(f, 2.0, f)                      # the same memory
    assert not blas.axpy_into(f[:, 1:], 2.0, f[:, :3].copy())  # not dense
    assert not blas.axpy_into(f, 2.0, f.T.copy().T)            # C against F order
    assert not blas.axpy_into(f, 2.0, f.astype(np.float64))    # two dtypes
    assert not blas.axpy_into(f.astype(np.int64), 2, f.astype(np.int64))
    y = f.copy()
    assert blas.axpy_into(y, -0.5, f)
    assert np.array_equal(y, f - 0.5 * f)
    assert f.flags.writeable and np.array_equal(f, np.arange(12).reshape(3, 4))


@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_axpy_rounds_once_at_every_length(dtype):
    # Note [axpy's blocks and threads]: OpenBLAS's own tail rounds twice; ours is run as a
    # padded block; past 8,192 elements with several BLAS threads, the calls are chunked
    dt = DTYPES[dtype]
    rng = np.random.default_rng(3)
    for n in list(range(1, 70)) + [8191, 8192, 8193, 20001]:
        a, b = (rng.standard_normal(n).astype(dt) for _ in range(2))
        y = a.copy()
        assert blas.axpy_into(y, 0.7, b)
        idx = np.r_[0:min(n, 70), max(0, n - 40):n]
        assert np.array_equal(y[idx], _exact(a[idx], b[idx], 0.7, dt)), n


@pytest.mark.parametrize("other", [0.1, 2, -3.7, 1e30])
@pytest.mark.parametrize("alpha", [3, 0.7, -2.5])
@pytest.mark.parametrize("op", ["add", "sub"])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_a_number_other_is_a_0d_tensor_as_torch(dtype, op, alpha, other):
    # torch wraps the number: one rounding of x + alpha * other (not other * alpha first,
    # in double, then x + that), and its AddBackward0/SubBackward0 saves alpha. Its
    # scalar-operand loop rounds a few last elements twice (test_a_0d_other_...)
    torch = torch_or_skip()
    a = np.random.default_rng(9).standard_normal(1000).astype(DTYPES[dtype])

    def run(M):
        x = M.tensor(a, requires_grad=True)
        y = getattr(x, op)(other, alpha=alpha)
        y.backward(M.ones_like(y))
        return (y.detach().numpy(), x.grad.numpy(), y.grad_fn.name(), y.grad_fn._saved_alpha,
                len(y.grad_fn.next_functions), str(y.dtype).split(".")[-1])
    ours, theirs = run(vg), run(torch)
    assert ours[2:] == theirs[2:]
    assert np.array_equal(ours[1], theirs[1])
    assert np.array_equal(ours[0][:-16], theirs[0][:-16])
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)


@pytest.mark.parametrize("weight", [0.3, -0.2, 0.5, 0.7, 1.0, 1.5, 0.0, 0.1])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_lerp_with_a_number_weight_as_torch(dtype, weight):
    # torch's vector loop: fma(w, end - self, self) for |w| < 0.5, else
    # fma(w - 1, end - self, end); out of place, in place, and the gradients
    torch = torch_or_skip()
    dt = DTYPES[dtype]
    rng = np.random.default_rng(12)
    a, b = (rng.standard_normal(1024).astype(dt) for _ in range(2))
    with np.errstate(all="ignore"):
        s = np.array(SPECIAL, dt)
    a[:len(s)], b[len(s):2 * len(s)] = s, s

    def run(M):
        x, e = M.tensor(a, requires_grad=True), M.tensor(b, requires_grad=True)
        y = M.lerp(x, e, weight)
        y.backward(M.ones_like(y))
        z = M.tensor(a)
        z.lerp_(M.tensor(b), weight)
        return [t.detach().numpy() for t in (y, z, x.grad, e.grad)]
    with np.errstate(all="ignore"):
        for o, t in zip(run(vg), run(torch)):
            assert np.array_equal(o, t, equal_nan=True), np.argwhere(
                ~((o == t) | (np.isnan(o) & np.isnan(t))))[:10]


def test_fma_float32_rounds_once_where_float64_would_round_twice():
    # 1 + x*y with x*y = 2**-24 (1 + 2**-30) exactly: the float64 sum drops the 2**-54
    # and lands on a float32 midpoint, which ties to 1.0; the exact sum rounds up
    x = np.array([np.float32(1321) * np.float32(2.0 ** -30)], np.float32)
    y = np.array([np.float32(812825) * np.float32(2.0 ** -24)], np.float32)
    one = np.ones(1, np.float32)
    assert np.float32(np.float64(1) + np.float64(x[0]) * np.float64(y[0])) == 1.0
    assert blas.fma_float32(x, y, one)[0] == _round_to(
        Fraction(1) + Fraction(float(x[0])) * Fraction(float(y[0])), np.float32)
    assert blas.fma_float32(x.astype(np.float64), y, one) is None


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_fma_float32_as_exact_arithmetic(seed):
    rng = np.random.default_rng(seed)
    a, b, c = ((rng.standard_normal(9) * 10 ** rng.uniform(-8, 8, 9)).astype(np.float32)
               for _ in range(3))
    want = [_round_to(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)),
                      np.float32) for x, y, z in zip(a, b, c)]
    assert np.array_equal(blas.fma_float32(a, b, c), np.array(want, np.float32))


@pytest.mark.parametrize("value", [0.3, 1, -2.5])
def test_addcmul_float32_as_torch(value):
    # torch's vector loop: fma(value * t1, t2, self)
    torch = torch_or_skip()
    rng = np.random.default_rng(13)
    a, b, c = (rng.standard_normal(1024).astype(np.float32) for _ in range(3))

    def run(M):
        x, t1, t2 = (M.tensor(v, requires_grad=True) for v in (a, b, c))
        y = M.addcmul(x, t1, t2, value=value)
        y.backward(M.ones_like(y))
        z = M.tensor(a)
        z.addcmul_(M.tensor(b), M.tensor(c), value=value)
        return [t.detach().numpy() for t in (y, z, x.grad, t1.grad, t2.grad)]
    for o, t in zip(run(vg), run(torch)):
        assert np.array_equal(o, t), np.argwhere(o != t)[:10]


def test_lerp_float32_with_a_tensor_weight_as_torch():
    torch = torch_or_skip()
    rng = np.random.default_rng(14)
    a, b = (rng.standard_normal(1024).astype(np.float32) for _ in range(2))
    w = (rng.standard_normal(1024) * 0.8).astype(np.float32)
    w[:4] = [0.5, -0.5, 1.0, 0.0]
    ours = vg.lerp(vg.tensor(a), vg.tensor(b), vg.tensor(w)).numpy()
    theirs = torch.lerp(torch.tensor(a), torch.tensor(b), torch.tensor(w)).numpy()
    assert np.array_equal(ours, theirs), np.argwhere(ours != theirs)[:10]


ADAM_CONFIGS = [("Adam", dict(lr=1e-2)), ("Adam", dict(lr=1e-2, weight_decay=0.1)),
                ("AdamW", dict(lr=1e-2)), ("Adam", dict(lr=1e-3, betas=(0.8, 0.9))),
                ("Adam", dict(lr=1e-2, amsgrad=True))]


@pytest.mark.parametrize("cfg", range(len(ADAM_CONFIGS)))
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_adam_moments_as_torch(dtype, cfg):
    # torch's single-tensor Adam: exp_avg.lerp_(g, 1 - b1), exp_avg_sq.mul_(b2)
    # .addcmul_(g, g, value=1 - b2), p.addcdiv_(m, denom, value=-step_size). The moments
    # match bit for bit; the parameters up to torch's float32 sqrt, which is not always
    # the correctly rounded one that NumPy's (and so viewgrad's) is
    torch = torch_or_skip()
    name, kw = ADAM_CONFIGS[cfg]
    dt = DTYPES[dtype]

    def run(M):
        rng = np.random.default_rng(11)
        w = M.tensor(rng.standard_normal((13, 7)).astype(dt), requires_grad=True)
        c = M.tensor(rng.standard_normal((13, 7)).astype(dt))
        opt = getattr(M.optim, name)([w], **kw)
        out = []
        for _ in range(4):
            opt.zero_grad()
            ((w * c) ** 2).sum().backward()
            opt.step()
            st = opt.state[w]
            out.append((st["exp_avg"].numpy().copy(), st["exp_avg_sq"].numpy().copy(),
                        w.detach().numpy().copy()))
        return out
    for step, (o, t) in enumerate(zip(run(vg), run(torch))):
        if step == 0:   # before any sqrt difference can feed back
            assert np.array_equal(o[0], t[0]) and np.array_equal(o[1], t[1])
        tol = 1e-6 if dt == np.float32 else 1e-14
        np.testing.assert_allclose(o[2], t[2], rtol=tol, atol=tol)


ALPHA_CHECKS = [
    "M.ones(3).add(M.ones(3), alpha=True)", "M.ones(3).sub(M.ones(3), alpha=True)",
    "M.ones(3).add(2.0, alpha=True)", "M.ones(3).add_(M.ones(3), alpha=True)",
    "M.ones(3).sub_(M.ones(3), alpha=True)",
    "M.ones(3, dtype=M.bool).add(M.ones(3, dtype=M.bool), alpha=2)",
    "M.ones(3, dtype=M.bool).add(M.ones(3, dtype=M.bool), alpha=True)",
    "M.ones(3, dtype=M.bool).add(M.zeros(3, dtype=M.bool), alpha=0)",
    "M.ones(3).add(1, alpha=1j)", "M.ones(3).add(M.ones(3), alpha=1j)",
    "M.ones(3).add_(1, alpha=1j)", "M.ones(3).sub(True, alpha=3)",
    "M.ones(3).sub_(True, alpha=2)", "M.ones(3).sub(M.ones(3, dtype=M.bool), alpha=2)",
    "M.ones(3, dtype=M.int64).add(M.ones(3, dtype=M.int64), alpha=2.5)",
    "M.ones(3, dtype=M.int32).add(2, alpha=3)", "M.ones(3, dtype=M.int32).add(0.5, alpha=3)",
]


@pytest.mark.parametrize("expr", ALPHA_CHECKS)
def test_alpha_checks_as_torch(expr):
    # torch's alpha_check against the result dtype (bool alpha only for bool results, no
    # complex alpha for real ones, no float alpha for integers) and sub's bool refusal
    # before it — True == 1, so a bool alpha must not pass as "no alpha"
    torch = torch_or_skip()

    def run(M):
        try:
            r = eval(expr, {"M": M})
        except Exception as e:  # noqa: BLE001 - the error is what we compare
            return ("raise", type(e).__name__, str(e).split("\n")[0][:60])
        return ("ok", str(r.dtype).split(".")[-1], r.numpy().tolist())
    assert run(vg) == run(torch)


def test_fma_float32_blocks_keep_one_rounding_everywhere():
    """Note [one rounding of a float32 fma]: the array runs in blocks; midpoint cases
    planted in every block (and at the block edges) still round once, exactly."""
    n = 2 * blas._FMA_BLOCK + 7
    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    x = np.float32(1321) * np.float32(2.0 ** -30)
    y = np.float32(812825) * np.float32(2.0 ** -24)
    planted = [0, 1, blas._FMA_BLOCK - 1, blas._FMA_BLOCK, blas._FMA_BLOCK + 3, n - 1]
    for i in planted:
        a[i], b[i], c[i] = x, y, 1.0
    a[5], b[5], c[5] = np.float32(1e-30), np.float32(1e-15), np.float32(1e-44)   # subnormal
    got = blas.fma_float32(a, b, c)
    for i in planted + [5] + list(rng.integers(0, n, 200)):
        want = _round_to(Fraction(float(a[i])) * Fraction(float(b[i]))
                         + Fraction(float(c[i])), np.float32)
        assert got[i] == want, i
    assert got[planted[0]] != np.float32(1.0)   # (the exact sum rounds up, not to even)
