"""Learning-rate schedulers and random fills against PyTorch, found by a differential
fuzz: a scheduler made with ``last_epoch`` (resuming) leaves the rate as it is in its
constructor's step (``_is_initial``, not ``last_epoch == 0``), so does MultiplicativeLR
inside SequentialLR; CyclicLR keeps its scale function through a state-dict round trip;
MultiplicativeLR checks its functions at once and is not a LambdaLR; a param group added
after the scheduler is refused as by zip(strict=True); float32 ``uniform_`` with bounds
that are not symmetric draws torch's values; ``dirac_`` checks its groups."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import raised

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

pytestmark = pytest.mark.host_only("compares with torch CPU tensors")


def _opt(M, lr=0.1, initial=None):
    o = M.optim.SGD([M.nn.Parameter(M.ones(2))], lr=lr)
    if initial is not None:
        o.param_groups[0]["initial_lr"] = initial
    return o


RESUMED = [("ExponentialLR", dict(gamma=0.5)), ("CosineAnnealingLR", dict(T_max=10)),
           ("LinearLR", {}), ("PolynomialLR", {}), ("StepLR", dict(step_size=2)),
           ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.5)),
           ("LambdaLR", dict(lr_lambda=lambda e: 0.9 ** e)), ("ConstantLR", {})]


@pytest.mark.parametrize("name,kw", RESUMED, ids=[r[0] for r in RESUMED])
def test_a_resumed_scheduler_as_pytorchs(name, kw):
    def run(M):
        o = _opt(M, 0.1, 0.2)
        s = getattr(M.optim.lr_scheduler, name)(o, last_epoch=3, **kw)
        lrs = [s.get_last_lr()]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(5):
                o.step()
                s.step()
                lrs.append(s.get_last_lr())
        return np.round(lrs, 12).tolist()
    assert run(vg) == run(torch)


def test_sequential_with_multiplicative_and_cyclic_round_trip_as_pytorchs():
    def run(M):
        L = M.optim.lr_scheduler
        out = []
        o = _opt(M)
        s = L.SequentialLR(o, [L.ConstantLR(o, 1.0, 1), L.MultiplicativeLR(o, lambda e: .5)],
                           [2])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(5):
                out.append(round(o.param_groups[0]["lr"], 12))
                o.step()
                s.step()
            o = _opt(M)
            s = L.CyclicLR(o, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: .5 ** x,
                           scale_mode="iterations")
            s.load_state_dict(s.state_dict())
            for _ in range(4):
                o.step()
                s.step()
                out.append(round(o.param_groups[0]["lr"], 12))
        return out
    assert run(vg) == run(torch)


def test_scheduler_refusals_as_pytorchs():
    for M in (torch, vg):
        L = M.optim.lr_scheduler
        assert not issubclass(L.MultiplicativeLR, L.LambdaLR)
    cases = [lambda M: M.optim.lr_scheduler.MultiplicativeLR(_opt(M), 3),
             lambda M: M.optim.lr_scheduler.MultiplicativeLR(_opt(M), [None])]

    def added_group(M):
        o = _opt(M)
        s = M.optim.lr_scheduler.LambdaLR(o, lambda e: .5 ** e)
        o.add_param_group({"params": [M.nn.Parameter(M.ones(1))], "lr": 0.3})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            o.step()
            s.step()
    for fn in cases + [added_group]:
        assert raised(lambda: fn(vg)) == raised(lambda: fn(torch))


def test_float32_uniform_with_any_bounds_as_pytorchs():
    for lo, hi in [(-2.0, -0.5964956674111217), (-3.3, 0.7), (0.1, 0.35), (-1e-3, 5.0)]:
        for dt in ("float32", "float64"):
            got = []
            for M in (torch, vg):
                M.manual_seed(0)
                got.append(M.empty(500, dtype=getattr(M, dt)).uniform_(lo, hi).tolist())
            assert got[0] == got[1], (lo, hi, dt)
        torch.manual_seed(1027)
        vg.manual_seed(1027)
        a = torch.nn.init.trunc_normal_(torch.empty(3, 4, 3, 2, 2), 0., .02, lo, hi)
        b = vg.nn.init.trunc_normal_(vg.empty(3, 4, 3, 2, 2), 0., .02, lo, hi)
        np.testing.assert_allclose(b.tolist(), a.tolist(), rtol=1e-6, atol=1e-7)


def test_dirac_groups_as_pytorchs():
    for g in (1, 2, 0):
        assert raised(lambda: vg.nn.init.dirac_(vg.empty(5, 2, 3), groups=g)) == raised(
            lambda: torch.nn.init.dirac_(torch.empty(5, 2, 3), groups=g))


def test_float_samplers_refuse_integer_tensors_as_pytorchs():
    for f in (lambda M: M.zeros(3, dtype=M.int64).uniform_(),
              lambda M: M.zeros(3, dtype=M.int64).normal_(),
              lambda M: M.zeros(3, dtype=M.bool).uniform_(),
              lambda M: M.nn.init.uniform_(M.zeros(3, dtype=M.int64))):
        assert raised(lambda: f(vg)) == raised(lambda: f(torch))


def test_sparse_init_and_the_deprecated_names_as_pytorchs():
    got = []
    for M in (torch, vg):
        M.manual_seed(3)
        w = M.nn.init.sparse_(M.empty(7, 3, dtype=M.float64), 0.3, std=2.)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            M.nn.init.uniform(M.empty(2))
            M.nn.init.kaiming_normal(M.empty(2, 3))
        got.append((w.tolist(), [(r.category.__name__, str(r.message)) for r in rec],
                    raised(lambda: M.nn.init.sparse_(M.empty(2, 2, 2), 0.1))))
    assert got[1] == got[0]
