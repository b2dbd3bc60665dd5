"""What a scheduler keeps and says, against torch 2.13 (Note [a scheduler's flags],
optim/lr_scheduler.py): every scheduler's ``state_dict()`` after a few steps has
PyTorch's keys and values (its private flags ``_is_initial`` and
``_get_lr_called_within_step`` included, OneCycleLR's phases as PyTorch's dicts,
ReduceLROnPlateau's ``default_min_lr``), and the warnings PyTorch gives: ``get_lr()``
asked outside a step, ``lr_scheduler.step()`` before ``optimizer.step()``, an
``epoch`` given to ``step``."""
import warnings

import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the test-only oracle for these tests")
from tests.optim.test_lbfgs_schedulers import SCHEDULERS, _make, _optimizer  # noqa: E402

MORE = [("StepLR", dict(step_size=2), "sgd"), ("MultiStepLR", dict(milestones=[1, 2]), "sgd"),
        ("ExponentialLR", dict(gamma=0.9), "sgd"), ("CosineAnnealingLR", dict(T_max=4), "sgd"),
        ("LambdaLR", dict(lr_lambda=lambda e: 0.9 ** e), "sgd")]
ALL = SCHEDULERS + MORE


def _comparable(v):
    if callable(v) and not isinstance(v, type):
        return "a function"
    if isinstance(v, list):
        return [_comparable(x) for x in v]
    if isinstance(v, dict):
        return {k: _comparable(x) for k, x in v.items()}
    if hasattr(v, "state_dict"):   # (a scheduler inside SequentialLR/ChainedScheduler)
        return _comparable(v.state_dict())
    return v


def _state(lib, name, kw, kind, steps=3):
    opt = _optimizer(lib, kind, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = _make(lib, opt, name, kw)
        for _ in range(steps):
            opt.step()
            s.step()
    return _comparable(s.state_dict())


@pytest.mark.parametrize("name,kw,kind", ALL, ids=[f"{s[0]}-{i}" for i, s in enumerate(ALL)])
def test_state_dict_as_torch(name, kw, kind):
    ours, theirs = _state(vg, name, kw, kind), _state(torch, name, kw, kind)
    assert sorted(ours) == sorted(theirs)
    for k in theirs:
        if isinstance(theirs[k], float):
            assert ours[k] == pytest.approx(theirs[k], rel=1e-12), k
        else:
            assert ours[k] == theirs[k], k


def _plateau_state(lib):
    opt = _optimizer(lib, "sgd", 2)
    s = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, min_lr=0.001)
    for m in (1.0, 2.0, 3.0, 0.5, 0.6, 0.7):
        opt.step()
        s.step(m)
    return sorted(s.state_dict().items())


def test_reduce_on_plateau_state_as_torch():
    assert _plateau_state(vg) == _plateau_state(torch)


def _plateau_after_a_new_group(lib, min_lr):
    opt = _optimizer(lib, "sgd", 1)
    s = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=min_lr)
    opt.add_param_group({"params": [lib.zeros(1, requires_grad=True)], "lr": 0.5})
    try:
        for m in (1.0, 2.0, 3.0):
            s.step(m)
    except RuntimeError as e:
        return str(e)
    return s.min_lrs, [g["lr"] for g in opt.param_groups]


@pytest.mark.parametrize("min_lr", [0.001, [0.001]])
def test_reduce_on_plateau_after_a_param_group_is_added_as_torch(min_lr):
    assert _plateau_after_a_new_group(vg, min_lr) == _plateau_after_a_new_group(torch, min_lr)


def _said(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f()
    return [str(x.message)[:70] for x in w if x.category is UserWarning]


def _flags(lib):
    opt = _optimizer(lib, "sgd", 1)
    s = lib.optim.lr_scheduler.StepLR(opt, 2)
    return s._is_initial, s._get_lr_called_within_step, "_is_initial" in s.__dict__


def _get_lr_outside(lib):
    opt = _optimizer(lib, "sgd", 1)
    lib.optim.lr_scheduler.ExponentialLR(opt, 0.9).get_lr()


def _step_first(lib):
    opt = _optimizer(lib, "sgd", 1)
    s = lib.optim.lr_scheduler.StepLR(opt, 2)
    s.step()   # before any optimizer.step()
    opt.step()
    s.step()


def _in_order(lib):
    opt = _optimizer(lib, "sgd", 1)
    s = lib.optim.lr_scheduler.LinearLR(opt)
    for _ in range(3):
        opt.step()
        s.step()
    s.get_last_lr()


def _step_replaced(lib):
    opt = _optimizer(lib, "sgd", 1)
    s = lib.optim.lr_scheduler.StepLR(opt, 2)
    opt.step = lambda *a, **k: None   # replaced after the scheduler wrapped it
    opt.step()
    s.step()


def _with_epoch(lib):
    opt = _optimizer(lib, "sgd", 1)
    s = lib.optim.lr_scheduler.StepLR(opt, 2)
    opt.step()
    s.step(3)
    p = lib.optim.lr_scheduler.ReduceLROnPlateau(opt)
    p.step(1.0, 4)


def test_the_flags_as_torch():
    assert _flags(vg) == _flags(torch) == (False, False, True)


@pytest.mark.parametrize("case", [_get_lr_outside, _step_first, _in_order, _step_replaced,
                                  _with_epoch])
def test_warnings_as_torch(case):
    assert _said(lambda: case(vg)) == _said(lambda: case(torch))


def test_a_users_own_scheduler_is_not_warned_about():
    class Halve(vg.optim.lr_scheduler.LRScheduler):
        def get_lr(self):
            return [g["lr"] / 2 for g in self.optimizer.param_groups]
    opt = _optimizer(vg, "sgd", 1)
    s = Halve(opt)
    assert _said(s.get_lr) == []   # (PyTorch leaves the warning to the subclass)
