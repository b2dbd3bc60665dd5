"""LBFGS and the schedulers of lr_scheduler_more, step by step against torch.optim (the
test-only oracle): the losses, parameters and L-BFGS state counters; every rate (and the
cycled momentum / beta1) after every step; state dict round trips; PyTorch's errors."""
import math
import warnings

import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the test-only oracle for these tests")
rng = np.random.default_rng(7)
X, Y = rng.standard_normal((16, 3)), rng.standard_normal((16, 1))


def _lbfgs(lib, dtype, **kw):
    w = lib.tensor(np.full((3, 1), 0.1), dtype=dtype, requires_grad=True)
    b = lib.tensor(np.zeros(1), dtype=dtype, requires_grad=True)
    x, y = lib.tensor(X, dtype=dtype), lib.tensor(Y, dtype=dtype)
    opt = lib.optim.LBFGS([w, b], **kw)

    def closure():
        opt.zero_grad()
        loss = ((lib.tanh(x @ w + b) - y) ** 2).mean() + (w ** 4).sum()
        loss.backward()
        return loss
    losses = [float(opt.step(closure).detach()) for _ in range(3)]
    st = opt.state[w]
    return losses, w.detach().cpu().numpy(), b.detach().cpu().numpy(), st["func_evals"], \
        st["n_iter"]


@pytest.mark.parametrize("kw", [dict(lr=0.8, history_size=3, max_iter=7),
                                dict(line_search_fn="strong_wolfe", history_size=4),
                                dict(lr=1, max_iter=4, tolerance_change=1e-3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lbfgs_matches_torch(kw, dtype):
    a = _lbfgs(vg, getattr(vg, dtype), **kw)
    b = _lbfgs(torch, getattr(torch, dtype), **kw)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(a[0], b[0], rtol=tol, atol=tol)
    np.testing.assert_allclose(a[1], b[1], rtol=tol, atol=tol)
    np.testing.assert_allclose(a[2], b[2], rtol=tol, atol=tol)
    if dtype == "float64":   # float32 losses tie at convergence by rounding: stop counts vary
        assert a[3:] == b[3:]


def test_lbfgs_errors():
    w = vg.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        vg.optim.LBFGS([w], lr=-1)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        vg.optim.LBFGS([{"params": [w]}, {"params": [vg.zeros(1, requires_grad=True)]}])
    opt = vg.optim.LBFGS([w], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = ((w - 1) ** 2).sum()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


def _optimizer(lib, kind, groups):
    ps = [lib.zeros(2, requires_grad=True) for _ in range(groups)]
    pg = [{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(ps)]
    if kind == "adam":
        return lib.optim.Adam(pg, lr=0.1)
    return lib.optim.SGD(pg, lr=0.1, momentum=0.9)


def _make(lib, opt, name, kw):
    S = lib.optim.lr_scheduler
    if name == "SequentialLR":
        subs = [S.LinearLR(opt, start_factor=0.25, total_iters=3),
                S.CosineAnnealingLR(opt, T_max=5, eta_min=0.01)]
        return S.SequentialLR(opt, subs, milestones=[3])
    if name == "SequentialLR3":
        subs = [S.ConstantLR(opt, factor=0.5, total_iters=2), S.ExponentialLR(opt, 0.8),
                S.PolynomialLR(opt, total_iters=4, power=2.0)]
        return S.SequentialLR(opt, subs, milestones=[2, 5])
    if name == "ChainedScheduler":
        return S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=3),
                                   S.ExponentialLR(opt, gamma=0.9)])
    if name == "MultiplicativeLR":
        return S.MultiplicativeLR(opt, lambda e: 0.9 if e % 2 else 0.95)
    return getattr(S, name)(opt, **kw)


SCHEDULERS = [
    ("OneCycleLR", dict(max_lr=[1.0, 2.0], total_steps=12), "sgd"),
    ("OneCycleLR", dict(max_lr=0.5, epochs=3, steps_per_epoch=4, anneal_strategy="linear",
                        three_phase=True), "adam"),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3, mode="triangular2"), "sgd"),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=3,
                      mode="exp_range", gamma=0.9), "adam"),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=2, cycle_momentum=False,
                      scale_fn=lambda x: 0.5 ** x, scale_mode="iterations"), "sgd"),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.001), "sgd"),
    ("PolynomialLR", dict(total_iters=6, power=0.5), "sgd"),
    ("LinearLR", dict(start_factor=0.2, end_factor=0.9, total_iters=4), "sgd"),
    ("ConstantLR", dict(factor=0.4, total_iters=3), "sgd"),
    ("SequentialLR", {}, "sgd"), ("SequentialLR3", {}, "adam"),
    ("ChainedScheduler", {}, "sgd"), ("MultiplicativeLR", {}, "sgd"),
]


def _trajectory(lib, name, kw, kind, steps=12):
    opt = _optimizer(lib, kind, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = _make(lib, opt, name, kw)
        out = []
        for _ in range(steps):
            opt.step()
            sched.step()
            g = opt.param_groups
            out.append([g[i]["lr"] for i in range(2)] + [
                (g[i]["betas"][0] if kind == "adam" else g[i]["momentum"]) for i in range(2)]
                + list(sched.get_last_lr()))
    return np.array(out, dtype=float), sched


@pytest.mark.parametrize("name,kw,kind", SCHEDULERS,
                         ids=[f"{s[0]}-{i}" for i, s in enumerate(SCHEDULERS)])
def test_scheduler_steps_match_torch(name, kw, kind):
    ours, sched = _trajectory(vg, name, kw, kind)
    theirs, _ = _trajectory(torch, name, kw, kind)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)
    if name not in ("SequentialLR", "SequentialLR3", "ChainedScheduler"):
        state = sched.state_dict()
        assert "optimizer" not in state and state["last_epoch"] == 12


def test_warm_restarts_fractional_epochs_match_torch():
    res = []
    for lib in (vg, torch):
        opt = _optimizer(lib, "sgd", 1)
        s = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
        lrs = []
        for epoch in range(5):
            for i in range(3):
                s.step(epoch + i / 3)
                lrs.append(opt.param_groups[0]["lr"])
        res.append(lrs)
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12)


def test_scheduler_errors_match_torch():
    def both(fn):
        msgs = []
        for lib in (vg, torch):
            with pytest.raises(ValueError) as e:
                fn(lib, _optimizer(lib, "sgd", 1))
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]
    S = "optim.lr_scheduler."
    both(lambda L, o: eval("L." + S + "OneCycleLR")(o, 0.1))
    both(lambda L, o: eval("L." + S + "OneCycleLR")(o, 0.1, total_steps=3, pct_start=1))
    both(lambda L, o: eval("L." + S + "CosineAnnealingWarmRestarts")(o, T_0=0))
    both(lambda L, o: eval("L." + S + "SequentialLR")(o, [eval("L." + S + "StepLR")(o, 2)],
                                                    milestones=[1]))
    both(lambda L, o: eval("L." + S + "CyclicLR")(o, 0.1, [0.2, 0.3]))

    def too_far(L, o):
        s = L.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=2)
        for _ in range(3):
            o.step()
            s.step()
    both(too_far)
    assert math.isfinite(1.0)
