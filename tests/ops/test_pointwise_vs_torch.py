"""The pointwise math ops (ops/unary.py, ops/binary.py, ops/special.py) against PyTorch:
values, node names and gradients; erf/erfc/erfinv to float64 accuracy; in-place forms;
dtypes of integer inputs."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

from .test_vs_torch import compare_with_torch


def _u(a):
    return 0.9 * a.tanh()


UNARY = ["sin", "cos", "atan", "sinh", "cosh", "asinh", "exp2", "expm1", "erf", "erfc"]
DOMAIN = {  # name -> a map of standard-normal inputs into the op's domain
    "tan": _u, "asin": _u, "acos": _u, "atanh": _u, "erfinv": _u,
    "acosh": lambda a: a * a + 1.5, "log2": lambda a: a.abs() + 0.1,
    "log10": lambda a: a.abs() + 0.1, "log1p": lambda a: a.abs(), "rsqrt": lambda a: a.abs() + 0.1,
    "logit": lambda a: a.sigmoid(), "floor": lambda a: 3 * a, "ceil": lambda a: 3 * a,
    "round": lambda a: 3 * a, "trunc": lambda a: 3 * a, "frac": lambda a: 3 * a,
}


@pytest.mark.parametrize("name", UNARY + sorted(DOMAIN))
def test_unary_matches_torch(name):
    pre = DOMAIN.get(name, lambda a: a)
    compare_with_torch(lambda M, F, a: getattr(M, name)(pre(a)) * a, [(2, 5)])
    compare_with_torch(lambda M, F, a: getattr(pre(a), name)(), [(3,)])


BINARY = [
    ("atan2", lambda M, a, b: M.atan2(a, b)),
    ("hypot", lambda M, a, b: a.hypot(b)),
    ("fmod", lambda M, a, b: M.fmod(3 * a, b.abs() + 0.5) + a.fmod(0.4)),
    ("remainder", lambda M, a, b: (3 * a) % (b.abs() + 0.5) + M.remainder(a, 0.4)),
    ("lerp", lambda M, a, b: a.lerp(b, 0.3) + M.lerp(a, b, b.sigmoid())),
    ("addcmul", lambda M, a, b: M.addcmul(a, b, a, value=0.5)),
    ("addcdiv", lambda M, a, b: a.addcdiv(a, b.abs() + 1, value=-2)),
]


@pytest.mark.parametrize("name,fn", BINARY, ids=[b[0] for b in BINARY])
def test_binary_matches_torch(name, fn):
    compare_with_torch(lambda M, F, a, b: fn(M, a, b), [(2, 3), (3,)], exact_name=False)


INPLACE = ["sin_", "cos_", "tan_", "exp2_", "expm1_", "log1p_", "erf_", "floor_", "frac_",
           "rsqrt_", "sign_", "square_"]


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_forms_match_torch(name):
    def fn(M, F, a):
        y = (a.abs() + 0.2) * 1.5
        v = y[1:]
        getattr(v, name)()
        return y * a
    compare_with_torch(fn, [(4,)], exact_name=False)


def test_inplace_binary_forms_match_torch():
    def fn(M, F, a, b):
        y = a * 1
        y.lerp_(b, 0.25).addcmul_(a, b, value=2).addcdiv_(b, a.abs() + 1)
        y.atan2_(b.abs() + 1).fmod_(0.7)
        y.remainder_(b.abs() + 0.3)
        return y.hypot_(a)   # hypot saves its result: a later in-place op would break it
    compare_with_torch(fn, [(5,), (5,)], exact_name=False)


def test_error_function_family_to_float64_accuracy():
    torch = torch_or_skip()
    x = np.concatenate([np.linspace(-6, 6, 4001), [0.0, 1e-300, 27.0, np.inf, -np.inf, np.nan]])
    for name in ("erf", "erfc"):
        ours = getattr(vg, name)(vg.tensor(x, dtype=vg.float64)).cpu().numpy()
        ref = getattr(torch, name)(torch.tensor(x)).numpy()
        np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=0, equal_nan=True)
    y = np.concatenate([np.linspace(-1, 1, 4001), [1 - 1e-15, -1 + 1e-12, 1.5, np.nan]])
    ours = vg.erfinv(vg.tensor(y, dtype=vg.float64)).cpu().numpy()
    ref = torch.erfinv(torch.tensor(y)).numpy()
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=0, equal_nan=True)


def test_integer_inputs_and_rounding_conventions_match_torch():
    torch = torch_or_skip()
    ints = [-7, -2, 0, 3, 7]
    for name in ("sin", "exp2", "rsqrt", "erf", "floor", "round", "trunc", "sign"):
        a = getattr(vg, name)(vg.tensor(ints))
        b = getattr(torch, name)(torch.tensor(ints))
        assert str(a.dtype) == str(b.dtype).replace("torch.", ""), name
    halves = [-2.5, -0.5, 0.5, 1.5, 2.5]
    assert vg.tensor(halves).round().tolist() == torch.tensor(halves).round().tolist()
    assert vg.tensor([1.2345, -2.675]).round(decimals=2).tolist() == pytest.approx(
        torch.tensor([1.2345, -2.675]).round(decimals=2).tolist())
    for a, b in [([-7, 7, 5], 2), ([-7.5, 7.5], 2.0)]:
        assert (vg.tensor(a) // b).tolist() == (torch.tensor(a) // b).tolist()
        assert (vg.tensor(a) % b).tolist() == (torch.tensor(a) % b).tolist()
        assert vg.fmod(vg.tensor(a), b).tolist() == torch.fmod(torch.tensor(a), b).tolist()


def test_floor_divide_has_no_gradient_and_out_refuses_autograd():
    x = vg.tensor([3.0, -4.0], requires_grad=True)
    assert not (x // 2).requires_grad
    out = vg.empty(2)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic"):
        vg.sin(x, out=out)
    r = vg.sin(x.detach(), out=out)
    assert r is out and out.tolist() == pytest.approx(np.sin([3.0, -4.0]).tolist(), rel=1e-6)


@pytest.mark.host_only("compared with torch CPU tensors through .numpy()")
@pytest.mark.parametrize("data", [[1, 2, 0], [True, False, True]], ids=["int64", "bool"])
@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "tanh", "sigmoid"])
def test_integer_and_bool_inputs_give_the_default_float(name, data):
    """torch.exp/log/sqrt/tanh/sigmoid of an integer or bool tensor is float32 (the
    default float dtype), never float64, float16 or the integers themselves."""
    torch = torch_or_skip()
    with np.errstate(divide="ignore"):
        v = getattr(vg.tensor(data), name)()
        f = getattr(vg, name)(vg.tensor(data))
    t = getattr(torch.tensor(data), name)()
    assert v.dtype == f.dtype == vg.float32
    np.testing.assert_allclose(v.numpy(), t.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(v.numpy(), f.numpy())


@pytest.mark.host_only("compared with torch CPU tensors through .numpy()")
@pytest.mark.parametrize("name", ["neg", "relu"])
def test_bool_negation_and_relu_are_refused_as_in_torch(name):
    torch = torch_or_skip()
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch.tensor([True, False]), name)()
    with pytest.raises(RuntimeError) as ours:
        getattr(vg.tensor([True, False]), name)()
    assert str(ours.value) == str(theirs.value)
    if name == "neg":
        with pytest.raises(RuntimeError, match="use the `~` or `logical_not\\(\\)`"):
            -vg.tensor([True])


@pytest.mark.host_only("compared with torch CPU tensors through .numpy()")
def test_sign_of_bool_is_bool():
    torch = torch_or_skip()
    v = vg.tensor([True, False]).sign()
    t = torch.tensor([True, False]).sign()
    assert str(v.dtype) == str(t.dtype).replace("torch.", "") and v.tolist() == t.tolist()
