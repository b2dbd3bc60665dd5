"""``torch.optim.swa_utils`` against torch 2.13: ``AveragedModel`` (SWA and EMA, through
``avg_fn`` and ``multi_avg_fn``, with and without ``use_buffers``) over several updates,
``SWALR``'s learning rate at every step for both strategies and several
``anneal_epochs``, its state dict, ``update_bn`` on BatchNorm models, and the errors."""
import warnings

import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="PyTorch (the test-only oracle) is not installed")


def _np(t):
    return t.detach().cpu().numpy().copy()


def _rng_array(rng, shape):
    return rng.standard_normal(shape).astype(np.float32)


def _model(lib, rng):
    """Linear -> BatchNorm1d -> ReLU -> Linear, its weights drawn from ``rng``."""
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(),
                          lib.nn.Linear(4, 2))
    _set_weights(lib, m, rng)
    return m


def _set_weights(lib, m, rng):
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(_rng_array(rng, tuple(p.shape))))


def _avg_kwargs(lib, kind):
    su = lib.optim.swa_utils
    return {"swa": {}, "ema_multi": {"multi_avg_fn": su.get_ema_multi_avg_fn(0.9)},
            "swa_multi": {"multi_avg_fn": su.get_swa_multi_avg_fn()},
            "ema": {"avg_fn": su.get_ema_avg_fn(0.8)},
            "swa_fn": {"avg_fn": su.get_swa_avg_fn()}}[kind]


def _averaging_run(lib, kind, use_buffers, updates=4):
    rng = np.random.default_rng(0)
    model = _model(lib, rng)
    avg = lib.optim.swa_utils.AveragedModel(model, use_buffers=use_buffers,
                                            **_avg_kwargs(lib, kind))
    seen = []
    for _ in range(updates):
        _set_weights(lib, model, rng)   # (a "training step": new weights ...)
        model.train()
        model(lib.tensor(_rng_array(rng, (5, 3))))   # (... and new BatchNorm statistics)
        try:
            avg.update_parameters(model)
        except RuntimeError as e:   # (SWA's multi-tensor fn refuses an integer buffer)
            seen.append(str(e))
            continue
        seen.append({k: _np(v) for k, v in avg.state_dict().items()})
    x = _rng_array(rng, (6, 3))
    avg.eval()
    return seen, _np(avg(lib.tensor(x)))


@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("kind", ["swa", "ema_multi", "swa_multi", "ema", "swa_fn"])
def test_averaged_parameters_and_buffers_as_torch(kind, use_buffers):
    ours, out_v = _averaging_run(vg, kind, use_buffers)
    theirs, out_t = _averaging_run(torch, kind, use_buffers)
    for step, (sv, st) in enumerate(zip(ours, theirs)):
        if isinstance(st, str):
            assert sv == st
            continue
        assert list(sv) == list(st)
        for k in st:
            assert sv[k].dtype == st[k].dtype, (step, k)
            np.testing.assert_allclose(sv[k], st[k], rtol=1e-6, atol=1e-6,
                                       err_msg=f"update {step}: {k}")
    if kind == "swa_multi" and use_buffers:   # (num_batches_tracked: addcdiv of integers)
        # (which dtype group PyTorch averages first, before the integer one fails, is the
        # order of a C++ hash map: the parameters after the error are not compared)
        assert theirs[1].startswith("Integer division with addcdiv is no longer supported")
    else:
        np.testing.assert_allclose(out_v, out_t, rtol=1e-5, atol=1e-6)
        assert int(theirs[-1]["n_averaged"]) == 4


def test_the_average_is_a_deep_copy_with_a_counter():
    for lib in (vg, torch):
        rng = np.random.default_rng(1)
        model = _model(lib, rng)
        avg = lib.optim.swa_utils.AveragedModel(model, device="cpu")
        assert avg.module is not model and avg.module[0].weight is not model[0].weight
        assert str(avg.n_averaged.dtype).endswith("int64") and int(avg.n_averaged) == 0
        assert list(avg.state_dict())[0] == "n_averaged"   # (its own buffer first)
        assert [n for n, _ in avg.named_parameters()][0] == "module.0.weight"
        w = _np(model[0].weight).copy()
        avg.update_parameters(model)
        _set_weights(lib, model, rng)
        avg.update_parameters(model)   # equal weights: the mean of the two
        np.testing.assert_allclose(_np(avg.module[0].weight),
                                   (w + _np(model[0].weight)) / 2, rtol=1e-6)


def test_averaging_function_errors():
    for lib in (vg, torch):
        su = lib.optim.swa_utils
        for make in (su.get_ema_multi_avg_fn, su.get_ema_avg_fn):
            for bad in (-0.1, 1.5):
                with pytest.raises(ValueError, match=rf"^Invalid decay value {bad} provided\. "
                                   r"Please provide a value in \[0,1\] range\.$"):
                    make(bad)
        with pytest.raises(AssertionError,
                           match="^Only one of avg_fn and multi_avg_fn should be provided$"):
            su.AveragedModel(lib.nn.Linear(2, 2), avg_fn=su.get_swa_avg_fn(),
                             multi_avg_fn=su.get_swa_multi_avg_fn())


def _optimizer(lib, groups):
    ps = [lib.nn.Parameter(lib.zeros(2)) for _ in range(groups)]
    return lib.optim.SGD([{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(ps)],
                         lr=0.1, momentum=0.9)


def _lrs(lib, swa_lr, groups, steps=14, **kw):
    opt = _optimizer(lib, groups)
    sched = lib.optim.swa_utils.SWALR(opt, swa_lr, **kw)
    seen = [sched.get_last_lr()]
    for _ in range(steps):
        opt.step()
        sched.step()
        seen.append(sched.get_last_lr())
        assert seen[-1] == [g["lr"] for g in opt.param_groups]
    return seen, opt


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 3, 10])
@pytest.mark.parametrize("swa_lr,groups", [(0.05, 1), ([0.01, 0.3], 2)])
def test_swalr_rates_at_every_step(strategy, anneal_epochs, swa_lr, groups):
    ours, opt_v = _lrs(vg, swa_lr, groups, anneal_epochs=anneal_epochs,
                       anneal_strategy=strategy)
    theirs, opt_t = _lrs(torch, swa_lr, groups, anneal_epochs=anneal_epochs,
                         anneal_strategy=strategy)
    np.testing.assert_allclose(np.array(ours), np.array(theirs), rtol=1e-12, atol=1e-15)
    assert [g["swa_lr"] for g in opt_v.param_groups] == [g["swa_lr"] for g in opt_t.param_groups]


def test_swalr_after_another_schedule_and_its_state_dict():
    res = {}
    for lib in (vg, torch):
        opt = _optimizer(lib, 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cos = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6)
            for _ in range(3):
                opt.step()
                cos.step()
            swa = lib.optim.swa_utils.SWALR(opt, swa_lr=0.02, anneal_epochs=4,
                                            anneal_strategy="linear")
            lrs = []
            for _ in range(6):
                opt.step()
                swa.step()
                lrs.append(swa.get_last_lr()[0])
        state = swa.state_dict()
        again = lib.optim.swa_utils.SWALR(_optimizer(lib, 1), swa_lr=0.5)
        again.load_state_dict(state)
        res[lib.__name__] = (lrs, state, again._anneal_strategy,
                             again.anneal_func(0.5), again.anneal_epochs)
    ours, theirs = res["viewgrad"], res["torch"]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    assert sorted(ours[1]) == sorted(theirs[1])
    for k, v in theirs[1].items():
        assert ours[1][k] == (pytest.approx(v, rel=1e-12) if not isinstance(v, str) else v), k
    assert ours[2:] == theirs[2:] == ("linear", 0.5, 4)


def test_swalr_warns_when_get_lr_is_asked_outside_a_step():
    for lib in (vg, torch):
        sched = lib.optim.swa_utils.SWALR(_optimizer(lib, 1), swa_lr=0.05)
        with pytest.warns(UserWarning, match="To get the last learning rate computed by the "
                                             "scheduler, please use `get_last_lr\\(\\)`."):
            sched.get_lr()


@pytest.mark.parametrize("kwargs,message", [
    ({"swa_lr": 0.1, "anneal_strategy": "exp"},
     "anneal_strategy must be one of 'cos' or 'linear', instead got exp"),
    ({"swa_lr": 0.1, "anneal_epochs": -1}, "anneal_epochs must be equal or greater than 0, "
                                           "got -1"),
    ({"swa_lr": 0.1, "anneal_epochs": 2.5}, "anneal_epochs must be equal or greater than 0, "
                                            "got 2.5"),
    ({"swa_lr": [0.1, 0.2, 0.3]}, "swa_lr must have the same length as "
                                  "optimizer.param_groups. swa_lr has 3 values, param_groups "
                                  "has 2."),
])
def test_swalr_errors(kwargs, message):
    for lib in (vg, torch):
        with pytest.raises(ValueError) as e:
            lib.optim.swa_utils.SWALR(_optimizer(lib, 2), **kwargs)
        assert str(e.value) == message


def _bn_run(lib, loader_kind):
    rng = np.random.default_rng(5)
    model = lib.nn.Sequential(lib.nn.Conv2d(2, 3, 3), lib.nn.BatchNorm2d(3, momentum=0.3),
                              lib.nn.ReLU(), lib.nn.Flatten(), lib.nn.Linear(12, 4),
                              lib.nn.BatchNorm1d(4))
    _set_weights(lib, model, rng)
    batches = [_rng_array(rng, (4, 2, 4, 4)) * (i + 1) for i in range(3)]
    if loader_kind == "pairs":
        loader = [(lib.tensor(b), lib.tensor(np.zeros(4, np.float32))) for b in batches]
    else:
        loader = [lib.tensor(b) for b in batches]
    model.eval()
    where = "cpu" if lib is torch else vg.get_default_device()   # (the pass's device)
    lib.optim.swa_utils.update_bn(loader, model, device=where if loader_kind == "pairs"
                                  else None)
    state = {k: _np(v) for k, v in model.state_dict().items()}
    return state, model.training, model[1].momentum, model[5].momentum


@pytest.mark.parametrize("loader_kind", ["pairs", "tensors"])
def test_update_bn_as_torch(loader_kind):
    ours, theirs = _bn_run(vg, loader_kind), _bn_run(torch, loader_kind)
    assert ours[1:] == theirs[1:] == (False, 0.3, 0.1)
    assert list(ours[0]) == list(theirs[0])
    for k, v in theirs[0].items():
        np.testing.assert_allclose(ours[0][k], v, rtol=1e-5, atol=1e-6, err_msg=k)
    assert int(theirs[0]["1.num_batches_tracked"]) == 3


def test_update_bn_without_batchnorm_leaves_the_model_alone():
    for lib in (vg, torch):
        model = lib.nn.Linear(2, 2)
        model.eval()
        calls = []
        assert lib.optim.swa_utils.update_bn(iter(calls), model) is None
        assert model.training is False


def test_swa_utils_under_the_torch_names():
    from viewgrad.compat import torch_imports
    with torch_imports():
        import torch as shim
        from torch.optim.swa_utils import SWALR, AveragedModel, update_bn  # noqa: F401
        assert shim.optim.swa_utils.AveragedModel is vg.optim.swa_utils.AveragedModel
        assert SWALR is vg.optim.swa_utils.SWALR and update_bn is vg.optim.swa_utils.update_bn
