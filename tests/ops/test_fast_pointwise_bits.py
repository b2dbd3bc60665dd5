"""The pointwise backward kernels (ops/fast_pointwise.py) give the very bits of their
rows' viewgrad formulas: a plain backward (the kernels) against create_graph=True (the
formulas), on float32 and float64 inputs that hold zeros of both signs, infinities, NaNs,
the domain edges of each function and the bounds of clamp and hardtanh."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip
from viewgrad.ops.fast_pointwise import FAST_POINTWISE

F = vg.nn.functional
CALLS = {
    "sin": vg.sin, "cos": vg.cos, "tan": vg.tan, "asin": vg.asin, "acos": vg.acos,
    "atan": vg.atan, "sinh": vg.sinh, "cosh": vg.cosh, "asinh": vg.asinh,
    "acosh": vg.acosh, "atanh": vg.atanh, "exp2": vg.exp2, "expm1": vg.expm1,
    "log2": vg.log2, "log10": vg.log10, "log1p": vg.log1p, "erf": vg.erf, "erfc": vg.erfc,
    "rsqrt": vg.rsqrt, "abs": vg.abs, "silu": F.silu, "softplus": F.softplus,
    "gelu": F.gelu, "elu": F.elu, "selu": F.selu, "leaky_relu": F.leaky_relu, "hardsigmoid": F.hardsigmoid,
    "log_sigmoid": F.logsigmoid, "sign": vg.sign, "floor": vg.floor, "ceil": vg.ceil,
    "trunc": vg.trunc, "round": vg.round, "frac": vg.frac,
    "pow": lambda x: x ** 3, "hardtanh": lambda x: F.hardtanh(x, -1.0, 1.0),
    "clamp": lambda x: x.clamp(-0.5, 1.0), "clamp_min": lambda x: x.clamp(min=0.25),
    "clamp_max": lambda x: x.clamp(max=1.0),
    # both inputs need a gradient; ties where |x| <= 0.5
    "maximum": lambda x: vg.maximum(x, x.clamp(-0.5, 0.5)),
    "minimum": lambda x: vg.minimum(x * 2.0, x.clamp(-0.5, 0.5)),
}
MORE = {   # other arguments of the same rows
    "pow-half": lambda x: x ** 0.5, "pow-2": lambda x: x ** 2, "pow-0": lambda x: x ** 0,
    "pow-neg": lambda x: x ** -1.5, "elu-alpha": lambda x: F.elu(x, 0.3),
    "leaky-big": lambda x: F.leaky_relu(x, 2.5), "clamp-lo": lambda x: x.clamp(min=-1.0),
    "gelu-big": F.gelu,
    "softplus-beta": lambda x: F.softplus(x, beta=2.5, threshold=3.0),
    "softplus-low": lambda x: F.softplus(x, beta=0.5, threshold=0.25),
    "maximum-broadcast": lambda x: vg.maximum(x.reshape(-1, 1), x[:3] * 0.5).sum(1),
    "minimum-float64-other": lambda x: vg.minimum(x, vg.tensor(0.25, dtype=vg.float64,
                                                                requires_grad=True)),
}
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.25, 3.0, -3.0, 2.0, 1e-30, -1e-30, 20.0,
         -20.0, 90.0, -90.0, np.inf, -np.inf, np.nan]


def test_every_kernel_has_a_call():
    assert set(CALLS) == set(FAST_POINTWISE)


def _bits(a):
    a = np.asarray(a)
    return np.where(np.isnan(a), np.nan, a).tobytes(), np.signbit(a).tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CALLS) + sorted(MORE))
def test_kernel_bits_equal_formula(name, dtype):
    fn = CALLS.get(name) or MORE[name]
    rng = np.random.default_rng(len(name))
    data = np.concatenate([EDGES, rng.standard_normal(40) * 2, rng.uniform(-1, 1, 20)])
    x = vg.tensor(data.astype(dtype), requires_grad=True)
    g = vg.tensor(np.concatenate([[1.0, -1.0, np.inf, 0.0, -0.0, np.nan],
                                  rng.standard_normal(data.size - 6)]).astype(dtype))
    with np.errstate(all="ignore"):
        y = fn(x)
        (fast,) = vg.autograd.grad(y, x, g, retain_graph=True)
        (slow,) = vg.autograd.grad(y, x, g, create_graph=True)
    assert fast.dtype == slow.dtype == x.dtype
    assert _bits(fast.cpu().numpy()) == _bits(slow.detach().cpu().numpy()), name


def _torch_calls(torch):
    tF = torch.nn.functional
    same = ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
            "atanh", "exp2", "expm1", "log2", "log10", "log1p", "erf", "erfc", "rsqrt",
            "abs", "sign", "floor", "ceil", "trunc", "round", "frac")
    calls = {n: getattr(torch, n) for n in same}
    calls.update({
        "silu": tF.silu, "softplus": tF.softplus, "gelu": tF.gelu, "elu": tF.elu, "selu": tF.selu,
        "leaky_relu": tF.leaky_relu, "hardsigmoid": tF.hardsigmoid,
        "log_sigmoid": tF.logsigmoid, "pow": lambda x: x ** 3,
        "hardtanh": lambda x: tF.hardtanh(x, -1.0, 1.0),
        "clamp": lambda x: x.clamp(-0.5, 1.0), "clamp_min": lambda x: x.clamp(min=0.25),
        "clamp_max": lambda x: x.clamp(max=1.0),
        "maximum": lambda x: torch.maximum(x, x.clamp(-0.5, 0.5)),
        "minimum": lambda x: torch.minimum(x * 2.0, x.clamp(-0.5, 0.5))})
    return calls


@pytest.mark.host_only("compared with torch CPU tensors through .numpy()")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_kernels_give_torchs_gradients(dtype):
    """The oracle: each kernel's gradient is torch 2.13's on 1,000 random points (inside
    each function's domain), to float32's or float64's rounding."""
    torch = torch_or_skip()
    calls = _torch_calls(torch)
    assert set(calls) == set(CALLS)
    rng = np.random.default_rng(7)
    # (float32: both sides round a cancelling sum such as silu's 1 + x(1 - s) near its
    # zero, so the absolute tolerance follows the gradient's size)
    rtol, atol = (1e-4, 3e-5) if dtype == "float32" else (1e-9, 1e-12)
    for name in sorted(CALLS):
        for scale in (0.5, 3.0):
            d = rng.standard_normal(1000) * scale
            if name == "acosh":
                d = np.abs(d) + 1.0
            elif name in ("asin", "acos", "atanh"):
                d = np.clip(d, -0.99, 0.99)
            elif name in ("log2", "log10", "rsqrt", "log1p"):
                d = np.abs(d) + 0.01
            g = rng.standard_normal(1000).astype(dtype)
            x = vg.tensor(d.astype(dtype), requires_grad=True)
            CALLS[name](x).backward(vg.tensor(g))
            t = torch.tensor(d.astype(dtype), requires_grad=True)
            calls[name](t).backward(torch.tensor(g))
            np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=atol,
                                       err_msg=f"{name} {dtype} scale {scale}")
