"""Every optimizer and scheduler against torch.optim (the test-only oracle): the same
parameters and gradients give the same updates, step by step, and a state_dict saved in
the middle and loaded into a fresh optimizer continues identically."""
import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the test-only oracle for these tests")

OPTIMIZERS = [
    ("SGD", dict(lr=0.1)), ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.1, weight_decay=0.01)),
    ("Adam", dict(lr=0.01)), ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    ("AdamW", dict(lr=0.01)), ("AdamW", dict(lr=0.01, amsgrad=True, betas=(0.8, 0.9))),
    ("RMSprop", dict(lr=0.01)), ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True,
                                                 weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, maximize=True)),
    ("Adagrad", dict(lr=0.1)), ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1,
                                                initial_accumulator_value=0.5)),
    ("Adadelta", dict()), ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1)),
]


def _run(lib, name, kwargs, grads, init, resume_at=None):
    params = [lib.tensor(a.copy(), requires_grad=True) for a in init]
    opt = getattr(lib.optim, name)(params, **kwargs)
    history = []
    for i, gs in enumerate(grads):
        if resume_at is not None and i == resume_at:
            sd = opt.state_dict()
            params = [lib.tensor(p.detach().cpu().numpy().copy(), requires_grad=True)
                      for p in params]
            opt = getattr(lib.optim, name)(params, **kwargs)
            opt.load_state_dict(sd)
        for p, g in zip(params, gs):
            p.grad = lib.tensor(g)
        opt.step()
        history.append([p.detach().cpu().numpy().copy() for p in params])
    return history


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(OPTIMIZERS)])
def test_optimizer_steps_match_torch(name, kwargs):
    rng = np.random.default_rng(0)
    init = [rng.standard_normal((3, 2)), rng.standard_normal(4)]
    grads = [[rng.standard_normal((3, 2)), rng.standard_normal(4)] for _ in range(6)]
    theirs = _run(torch, name, kwargs, grads, init)
    for resume in (None, 3):
        ours = _run(vg, name, kwargs, grads, init, resume_at=resume)
        for step, (a, b) in enumerate(zip(ours, theirs)):
            for x, y in zip(a, b):
                np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12,
                                           err_msg=f"{name} step {step} resume {resume}")


SCHEDULERS = [
    ("StepLR", dict(step_size=3, gamma=0.5)), ("MultiStepLR", dict(milestones=[2, 5, 5])),
    ("ExponentialLR", dict(gamma=0.9)), ("CosineAnnealingLR", dict(T_max=4, eta_min=0.01)),
    ("LambdaLR", dict(lr_lambda=lambda e: 1 / (1 + e))),
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.95)),
    ("LinearLR", dict(start_factor=0.25, total_iters=4)), ("ConstantLR", dict(factor=0.5)),
]


def _lrs(lib, name, kwargs, epochs, resume_at=None):
    p = lib.zeros(2, requires_grad=True)
    opt = lib.optim.SGD([p, ], lr=0.1)
    opt.add_param_group({"params": [lib.zeros(1, requires_grad=True)], "lr": 0.3})
    sched = getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)
    out = []
    for e in range(epochs):
        if resume_at == e:
            sd = sched.state_dict()
            sched = getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)
            sched.load_state_dict(sd)
        opt.step()
        sched.step()
        out.append(list(sched.get_last_lr()))
    return out


@pytest.mark.parametrize("name,kwargs", SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_scheduler_matches_torch(name, kwargs):
    theirs = _lrs(torch, name, kwargs, 12)
    np.testing.assert_allclose(_lrs(vg, name, kwargs, 12), theirs, rtol=1e-12)
    np.testing.assert_allclose(_lrs(vg, name, kwargs, 12, resume_at=5), _lrs(
        torch, name, kwargs, 12, resume_at=5), rtol=1e-12)


def test_reduce_on_plateau_matches_torch():
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.8, 0.85, 0.9, 0.9, 0.9, 0.9, 0.9]
    out = {}
    for lib in (vg, torch):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=1.0)
        s = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1,
                                                     min_lr=0.1)
        out[lib] = []
        for m in metrics:
            s.step(m)
            out[lib].append(opt.param_groups[0]["lr"])
    assert out[vg] == out[torch]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta",
                                  "LBFGS"])
def test_constructors_take_torchs_keywords(name):
    """Code written for torch.optim constructs viewgrad's optimizers unchanged."""
    import inspect
    theirs = set(inspect.signature(getattr(torch.optim, name).__init__).parameters)
    ours = set(inspect.signature(getattr(vg.optim, name).__init__).parameters)
    assert theirs <= ours, sorted(theirs - ours)


def test_adam_with_decoupled_weight_decay_is_adamw():
    rng = np.random.default_rng(5)
    init = [rng.standard_normal((2, 3))]
    grads = [[rng.standard_normal((2, 3))] for _ in range(5)]
    kw = dict(lr=0.05, weight_decay=0.2, decoupled_weight_decay=True, foreach=False)
    theirs = _run(torch, "Adam", kw, grads, init)
    ours = _run(vg, "Adam", kw, grads, init)
    np.testing.assert_allclose(ours[-1][0], theirs[-1][0], rtol=1e-10, atol=1e-12)
    adamw = _run(vg, "AdamW", dict(lr=0.05, weight_decay=0.2), grads, init)
    np.testing.assert_array_equal(ours[-1][0], adamw[-1][0])


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta"])
def test_a_differentiable_step_is_refused_not_silently_cut(name):
    with pytest.raises(RuntimeError, match="not recorded by autograd"):
        getattr(vg.optim, name)([vg.zeros(2, requires_grad=True)], lr=0.1,
                                differentiable=True)
