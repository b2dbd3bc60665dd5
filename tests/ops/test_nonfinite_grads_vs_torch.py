"""Gradients where something is infinite or NaN, against torch 2.13: an infinite or NaN
gradient coming into a node (``b.zero_(); (1 / b).sum()`` sends -inf into ZeroBackward0),
and infinite or NaN inputs. A formula written ``grad * mask`` or ``grad * 0`` turns an
infinite gradient into NaN where PyTorch's ``where`` / ``zeros_like`` gives 0 — a wrong
gradient that raises nothing; these found zero_/fill_/copy_/uniform_..., pow(x, 0),
max()/min(), cumprod, hardsigmoid and hardswish doing that, hardswish's gradient at
x = ±3, xlogy's at x = 0, celu's and the in-place elus' at +inf, and sign(NaN)."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors through .numpy()")

X0 = np.array([-3.0, -2.5, -1.0, -0.3, 0.0, 0.4, 1.0, 3.0])
Y0 = np.array([0.5, -1.0, 0.7, 2.0, 1.5, -3.0, 2.5, 1.0])


def ops(M):
    F = M.nn.functional

    def t(v, x):
        return M.tensor(v, dtype=x.dtype)
    return {
        "clamp": lambda x: x.clamp(-1.0, 1.0), "clamp_min": lambda x: x.clamp(min=0.2),
        "hardtanh": lambda x: F.hardtanh(x), "relu6": lambda x: F.relu6(x),
        "relu": lambda x: F.relu(x), "leaky_relu": lambda x: F.leaky_relu(x, 0.1),
        "threshold": lambda x: F.threshold(x, 0.5, 0.0), "hardshrink": lambda x: F.hardshrink(x),
        "softshrink": lambda x: F.softshrink(x), "abs": lambda x: x.abs(),
        "sign": lambda x: x.sign(), "floor": lambda x: x.floor(),
        "maximum": lambda x: M.maximum(x, t(Y0, x)), "fmin": lambda x: M.fmin(x, t(Y0, x)),
        "where": lambda x: M.where(x > 0, x, t(Y0, x)),
        "masked_fill": lambda x: x.masked_fill(x > 0, 0.0),
        "hardsigmoid": lambda x: F.hardsigmoid(x), "hardswish": lambda x: F.hardswish(x),
        "elu": lambda x: F.elu(x), "celu": lambda x: F.celu(x), "selu": lambda x: F.selu(x),
        "elu_": lambda x: F.elu(x * 1.0, inplace=True),
        "max": lambda x: x.max().reshape(1), "min": lambda x: x.min().reshape(1),
        "max_dim": lambda x: x.reshape(2, 4).max(1)[0], "amax": lambda x: x.reshape(2, 4).amax(1),
        "sort": lambda x: x.sort()[0], "cummax": lambda x: x.cummax(0)[0],
        "cumprod": lambda x: x.cumprod(0), "prod": lambda x: x.prod().reshape(1),
        "zero_": lambda x: (x * 1.0).zero_() + x, "fill_": lambda x: (x * 1.0).fill_(2.0) * x,
        "copy_": lambda x: (x * 1.0).copy_(t(Y0, x)) + x,
        "pow0": lambda x: x.pow(0.0) * x, "xlogy": lambda x: M.xlogy(x, t(np.abs(Y0), x)),
        "smooth_l1": lambda x: F.smooth_l1_loss(x, M.zeros(8, dtype=x.dtype), reduction="none"),
        "huber": lambda x: F.huber_loss(x, M.zeros(8, dtype=x.dtype), reduction="none"),
        "norm_inf": lambda x: x.norm(float("inf")).reshape(1),
        "logsumexp": lambda x: x.logsumexp(0).reshape(1), "softmax": lambda x: x.softmax(0),
    }


NAMES = sorted(ops(vg))


def _grad(M, name, x0, incoming, dtype):
    x = M.tensor(x0, dtype=getattr(M, dtype), requires_grad=True)
    y = ops(M)[name](x)
    g = np.ones(tuple(y.shape))
    if incoming is not None:
        pos, value = incoming
        g.reshape(-1)[pos % g.size] = value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y.backward(M.tensor(g, dtype=y.dtype))
    return y.detach().numpy().copy(), x.grad.detach().numpy().copy()


def _same(a, b):
    return a.shape == b.shape and np.array_equal(np.isnan(a), np.isnan(b)) and np.allclose(
        np.nan_to_num(a, nan=0, posinf=1e300, neginf=-1e300),
        np.nan_to_num(b, nan=0, posinf=1e300, neginf=-1e300), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan])
def test_an_infinite_or_nan_gradient_coming_in(name, value):
    torch = torch_or_skip()
    for pos in range(8):
        ours = _grad(vg, name, X0, (pos, value), "float64")
        theirs = _grad(torch, name, X0, (pos, value), "float64")
        assert _same(ours[1], theirs[1]), (name, pos, ours[1], theirs[1])


# NaN inputs where torch's float32 and float64 kernels disagree with each other (the
# float32 vector kernels let the gradient pass, the float64 ones give 0 or NaN), and prod
# of an inf (torch: grad * result / x = inf / inf = NaN; here the product of the others)
LANE_QUIRKS = {"hardswish"}
KERNEL_QUIRKS = {"prod", "hardtanh", "relu6", "hardshrink", "softshrink", "elu", "celu", "selu",
                 "elu_", "clamp"}


@pytest.mark.parametrize("name", sorted(set(NAMES) - KERNEL_QUIRKS))
@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan, 1e308, -0.0])
def test_an_infinite_or_nan_input(name, value):
    torch = torch_or_skip()
    for pos in (0, 4, 7):
        x0 = X0.copy()
        x0[pos] = value
        ours = _grad(vg, name, x0, None, "float64")
        theirs = _grad(torch, name, x0, None, "float64")
        if name in LANE_QUIRKS and np.isnan(value):
            # torch's own answer at the NaN depends on whether its element falls in the
            # vector loop (NaN) or the scalar tail (the grad), so on the CPU's vector width
            keep = np.arange(len(x0)) != pos
            ours = (ours[0], ours[1][keep])
            theirs = (theirs[0], theirs[1][keep])
        assert _same(ours[0], theirs[0]) and _same(ours[1], theirs[1]), (name, x0, ours, theirs)


def test_hardswish_at_its_corners_and_sign_of_nan():
    torch = torch_or_skip()
    for M in (vg, torch):
        x = M.tensor([-3.0, 3.0, -0.0, 2.5], dtype=M.float64, requires_grad=True)
        M.nn.functional.hardswish(x).sum().backward()
        M.__dict__.setdefault("_probe", []).append(x.grad.tolist())
    ours, theirs = vg.__dict__.pop("_probe"), torch.__dict__.pop("_probe")
    assert ours == theirs   # [[0, 1, 0.5, 4/3]]: 0 at -3 and 1 at 3, torch's corners
    s = vg.tensor([float("nan"), -0.0, 0.0, -2.0, 5.0]).sign()
    assert s.tolist() == [0.0, 0.0, 0.0, -1.0, 1.0] and not np.signbit(s.numpy()[1])


# Binary ops over pairs of special values (ties included): atan2's gradient at the origin
# was NaN (torch: 0, its 1 / (x² + y²) zeroed where the sum is 0); lerp took one formula
# for every weight (torch: end - (end - self)(1 - w) for |w| >= 0.5, so lerp(x, inf, 0.9)
# is NaN and lerp(x, y, 1) is y exactly); div(NaN, 0, rounding_mode=...) was ±inf (torch:
# NaN), and with it remainder's and fmod's gradient for other.
SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, np.inf, -np.inf, np.nan, 3.0, -2.0, 1e-200]


def binary_ops(M):
    return {
        "maximum": lambda a, b: M.maximum(a, b), "fmin": lambda a, b: M.fmin(a, b),
        "div": lambda a, b: a / b, "atan2": lambda a, b: M.atan2(a, b),
        "hypot": lambda a, b: M.hypot(a, b), "remainder": lambda a, b: M.remainder(a, b),
        "fmod": lambda a, b: M.fmod(a, b), "copysign": lambda a, b: M.copysign(a, b),
        "xlogy": lambda a, b: M.xlogy(a, b), "logaddexp": lambda a, b: M.logaddexp(a, b),
        "lerp": lambda a, b: M.lerp(a, b, 0.3), "lerp_high": lambda a, b: M.lerp(a, b, 0.9),
        "lerp_t": lambda a, b: M.lerp(a, b, b.sigmoid()),
        "div_floor": lambda a, b: M.div(a, b, rounding_mode="floor"),
        "div_trunc": lambda a, b: M.div(a, b, rounding_mode="trunc"),
        "clamp_t": lambda a, b: a.clamp(min=b), "pow": lambda a, b: a.abs().pow(b),
    }


@pytest.mark.parametrize("name", sorted(binary_ops(vg)))
def test_binary_ops_over_special_values(name):
    torch = torch_or_skip()
    rng = np.random.default_rng(7)
    for trial in range(60):
        a0 = rng.choice(SPECIAL, 6)
        b0 = a0.copy() if trial % 3 == 0 else rng.choice(SPECIAL, 6)
        got = []
        for M in (vg, torch):
            a = M.tensor(a0, dtype=M.float64, requires_grad=True)
            b = M.tensor(b0, dtype=M.float64, requires_grad=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                y = binary_ops(M)[name](a, b)
                y.backward(M.ones(tuple(y.shape), dtype=M.float64))
            got.append([y.detach().numpy().copy()] + [
                np.zeros(6) if t.grad is None else t.grad.numpy().copy() for t in (a, b)])
        for ours, theirs in zip(*got):
            assert _same(ours, theirs), (name, a0, b0, got)
