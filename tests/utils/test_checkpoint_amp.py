"""torch.utils.checkpoint (both variants recompute in backward and give the grads of the
plain run), torch.amp autocast / GradScaler and torch.compile as viewgrad provides them,
compared with torch (the test-only oracle)."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from viewgrad.amp import GradScaler, autocast
from viewgrad.compat.eager import compile as vg_compile
from viewgrad.utils.checkpoint import checkpoint, checkpoint_sequential

torch = pytest.importorskip("torch", reason="torch is the test-only oracle for these tests")
rng = np.random.default_rng(2)
W, X = rng.standard_normal((4, 4)), rng.standard_normal((3, 4))


def _grads(lib, ck, mode, calls):
    lin = lib.nn.Linear(4, 4).double()
    with lib.no_grad():
        lin.weight.copy_(lib.tensor(W))
        lin.bias.fill_(0.1)

    def block(x, scale=1.0):
        calls.append(1)
        return (lin(x).tanh() * x).exp().sum(-1, keepdim=True) * scale
    x = lib.tensor(X, requires_grad=True)
    y = block(x) if mode is None else ck(block, x, use_reentrant=mode)
    n_forward = len(calls)
    (y ** 2).sum().backward()
    return y, x.grad, lin.weight.grad, lin.bias.grad, n_forward, len(calls)


@pytest.mark.parametrize("mode", [True, False])
def test_checkpoint_recomputes_and_matches(mode):
    plain = _grads(vg, checkpoint, None, [])
    ours = _grads(vg, checkpoint, mode, [])
    theirs = _grads(torch, torch.utils.checkpoint.checkpoint, mode, [])
    assert ours[4:] == (1, 2) and theirs[4:] == (1, 2)      # run once, recomputed once
    for a, b, c in zip(ours[:4], plain[:4], theirs[:4]):
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().cpu().numpy())
        np.testing.assert_allclose(a.detach().cpu().numpy(), c.detach().numpy(), rtol=1e-12)


def test_checkpoint_non_reentrant_grad_and_dropout_rng():
    lin = vg.nn.Linear(4, 4).double()
    x = vg.tensor(X, requires_grad=True)

    def block(v):
        return vg.nn.functional.dropout(lin(v), 0.5, True).sin()
    vg.manual_seed(3)
    y = checkpoint(block, x, use_reentrant=False)
    g1 = vg.autograd.grad(y.sum(), [x, lin.weight])
    vg.manual_seed(3)
    g2 = vg.autograd.grad(block(x).sum(), [x, lin.weight])
    for a, b in zip(g1, g2):   # same dropout mask in the recomputation
        np.testing.assert_allclose(a.cpu().numpy(), b.cpu().numpy())


def test_checkpoint_warnings_and_sequential():
    seq = vg.nn.Sequential(vg.nn.Linear(4, 4), vg.nn.Tanh(), vg.nn.Linear(4, 2), vg.nn.ReLU())
    x = vg.tensor(X, dtype=vg.float32, requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed"):
        y = checkpoint_sequential(seq, 2, x)
    np.testing.assert_allclose(y.detach().cpu().numpy(), seq(x).detach().cpu().numpy())
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        checkpoint(seq, vg.tensor(X, dtype=vg.float32), use_reentrant=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(lambda v, scale: v, x, use_reentrant=True, scale=2)


def test_autocast_behaviour_as_torch():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        a, b = autocast("cuda"), torch.autocast("cuda")
    if vg.cuda.is_available() and torch.cuda.is_available():   # on a GPU machine: both on
        assert not w and a._enabled and b._enabled
    else:   # both warn with PyTorch's words and disable themselves
        assert [str(m.message) for m in w][0] == [str(m.message) for m in w][1]
        assert not a._enabled and not b._enabled
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        autocast("xyz")
    with autocast("cpu", enabled=False):
        assert not vg.amp.is_autocast_enabled("cpu")
    vg.amp._state["warned"] = False
    with pytest.warns(UserWarning, match="viewgrad computes in full precision"):
        with autocast("cpu", dtype=vg.float16):
            assert vg.amp.is_autocast_enabled("cpu")
            y = vg.ones(2, 2) @ vg.ones(2, 2)
    assert y.dtype == vg.float32

    @autocast("cpu", enabled=False)
    def f(v):
        return v * 2
    assert float(f(vg.ones(1))) == 2.0


XS = rng.standard_normal((6, 3)).round(2)


def _scaler_run(lib, scaler):
    w = lib.tensor([[0.5, -0.3, 0.2]], requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.1)
    x = lib.tensor(XS, dtype=lib.float32)
    scales, norms = [], []
    for i in range(6):
        loss = (x @ w.T).pow(2).mean()
        if i in (2, 3):
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        norms.append(float(lib.nn.utils.clip_grad_norm_([w], 1.0)))
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        scales.append(scaler.get_scale())
    return scales, norms, w.detach().cpu().numpy(), scaler.state_dict()


def test_grad_scaler_matches_torch():
    kw = dict(init_scale=2.0 ** 6, growth_interval=2)
    ours = _scaler_run(vg, GradScaler("cpu", **kw))
    theirs = _scaler_run(torch, torch.amp.GradScaler("cpu", **kw))
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    np.testing.assert_allclose(ours[2], theirs[2].astype(np.float32), rtol=1e-6)
    assert ours[3] == theirs[3]
    if not vg.cuda.is_available():   # 'cuda' without CUDA disables itself
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            off = vg.amp.cuda.GradScaler()
        assert not off.is_enabled() and off.get_scale() == 1.0 and off.state_dict() == {}
    s = GradScaler("cpu")
    opt = vg.optim.SGD([vg.zeros(1, requires_grad=True)], lr=0.1)
    s.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        s.unscale_(opt)


def test_compile_returns_the_model_and_flags_are_settable():
    m = vg.nn.Linear(2, 2)
    assert vg_compile(m) is m
    f = vg_compile(mode="max-autotune")(abs)
    assert f is abs
    from viewgrad.compat import torch_imports
    with torch_imports():
        import torch as t
        t.backends.cudnn.benchmark = True
        t.backends.cuda.matmul.allow_tf32 = True
        t.set_float32_matmul_precision("high")
        assert t.backends.cudnn.benchmark and t.get_float32_matmul_precision() == "high"
        assert t.compile(m) is m and t.autocast is autocast
        # nanoGPT builds {'bfloat16': torch.bfloat16, ...} and asks is_bf16_supported()
        assert repr(t.bfloat16) == "torch.bfloat16" and not t.cuda.is_bf16_supported()
        with pytest.raises(TypeError, match="torch.bfloat16"):
            t.zeros(2, dtype=t.bfloat16)
        t.set_float32_matmul_precision("highest")
