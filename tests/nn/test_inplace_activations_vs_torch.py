"""``F.<activation>(x, inplace=True)``, ``F.<activation>_(x)`` and ``nn.<Activation>(inplace=
True)`` write into x, as in PyTorch: the same object back, one version bump, the same
values, gradients and node (the ``*Backward1`` rows of elu_/selu_/celu_/leaky_relu_ save
the result). Before, ``inplace=True`` was accepted and ignored by most of them."""
import numpy as np
import pytest

import viewgrad as vg
import viewgrad.nn.functional as VF
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors through .numpy()")

CASES = [("relu", {}), ("relu6", {}), ("elu", {"alpha": 0.7}), ("leaky_relu", {}),
         ("hardtanh", {"min_val": -0.5, "max_val": 1.5}), ("selu", {}), ("celu", {"alpha": 0.7}),
         ("mish", {}), ("hardsigmoid", {}), ("hardswish", {}), ("silu", {}),
         ("threshold", {"threshold": 0.1, "value": -0.5})]
# threshold is written as masked_fill_ (MaskedFillBackward0; PyTorch: ThresholdBackward1)
NODE_DIFFERS = {"threshold"}
# the ones torch.nn.functional also spells with a trailing underscore (F.elu_(x))
UNDERSCORED = {"relu", "elu", "leaky_relu", "hardtanh", "selu", "celu", "threshold"}
SPELLINGS = [(name, kw, s) for name, kw in CASES
             for s in (("kw", "underscore") if name in UNDERSCORED else ("kw",))]


def _run(M, F, name, kw, spelling, dtype):
    x = np.random.default_rng(1).standard_normal((3, 4)) * 3
    leaf = M.tensor(x, dtype=getattr(M, dtype), requires_grad=True)
    y = leaf * 1.0
    v0 = y._version
    r = getattr(F, name)(y, inplace=True, **kw) if spelling == "kw" else \
        getattr(F, name + "_")(y, **kw)
    node = r.grad_fn.name()
    r.backward(M.tensor(np.arange(12.0).reshape(3, 4), dtype=r.dtype))
    return r is y, y._version - v0, r.detach().numpy(), leaf.grad.numpy(), node


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kw,spelling", SPELLINGS,
                         ids=[f"{n}-{s}" for n, _, s in SPELLINGS])
def test_inplace_activation_matches_torch(name, kw, spelling, dtype):
    torch = torch_or_skip()
    TF = torch.nn.functional
    t = _run(torch, TF, name, kw, spelling, dtype)
    v = _run(vg, VF, name, kw, spelling, dtype)
    assert v[0] is True and t[0] is True       # the input itself comes back
    assert v[1] == t[1] == 1                   # one version bump
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(v[2], t[2], rtol=tol, atol=tol)
    np.testing.assert_allclose(v[3], t[3], rtol=tol, atol=tol)
    if name not in NODE_DIFFERS:
        assert v[4] == t[4]


def test_an_inplace_leaky_relu_with_a_negative_slope_refuses_backward_as_torch():
    torch = torch_or_skip()
    msgs = []
    for M in (torch, vg):
        y = M.tensor([1.0, -2.0], requires_grad=True) * 1.0
        M.nn.functional.leaky_relu(y, -0.1, inplace=True)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        msgs.append(str(e.value).split(" File an issue")[0])
    assert msgs[1] == msgs[0]


def test_inplace_on_a_leaf_is_refused():
    x = vg.tensor([1.0, -2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        VF.elu(x, inplace=True)


@pytest.mark.parametrize("cls,args", [("ELU", (0.5,)), ("LeakyReLU", (0.2,)), ("ReLU6", ()),
                                      ("SELU", ()), ("CELU", (0.7,)), ("Hardtanh", (-0.5, 0.5)),
                                      ("Hardswish", ()), ("Hardsigmoid", ()), ("Mish", ()),
                                      ("SiLU", ())])
def test_modules_with_inplace_write_into_their_input(cls, args):
    torch = torch_or_skip()
    out = []
    for M in (torch, vg):
        m = getattr(M.nn, cls)(*args, inplace=True)
        y = M.tensor([[1.5, -2.0, 0.25]], requires_grad=True) * 1.0
        r = m(y)
        out.append((r is y, y._version, repr(m), r.detach().numpy().tolist()))
    assert out[1][:3] == out[0][:3]
    np.testing.assert_allclose(out[1][3], out[0][3], rtol=1e-6)


@pytest.mark.parametrize("fn", ["dropout1d", "dropout2d", "alpha_dropout",
                                "feature_alpha_dropout"])
def test_dropouts_with_inplace_write_into_their_input(fn):
    shape = (2, 3, 4) if fn == "dropout1d" else (2, 3, 4, 5)
    x = vg.randn(*shape)
    vg.manual_seed(3)
    expected = getattr(VF, fn)(x, 0.4, True)
    vg.manual_seed(3)
    y = x.clone()
    r = getattr(VF, fn)(y, 0.4, True, inplace=True)
    # one write (input.mul_(mask)); alpha dropouts two (mul_, then add_), as PyTorch's
    assert r is y and y._version == (2 if "alpha" in fn else 1)
    np.testing.assert_allclose(y.numpy(), expected.numpy(), rtol=1e-6, atol=1e-7)
