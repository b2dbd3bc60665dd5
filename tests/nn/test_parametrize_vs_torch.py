"""``torch.nn.utils.parametrize`` against PyTorch: the structure a user sees (class name,
repr, named_parameters, state dict keys), values and gradients through a parametrization,
``right_inverse`` (one tensor and a tuple), chaining, ``cached()``, removal both ways,
transfer, the error messages, and SGD through a parametrized Linear and Conv2d (float64:
the same numbers). The ready-made parametrizations are in test_parametrizations_vs_torch.py.
"""
import copy
import pickle

import numpy as np
import pytest

import viewgrad as vg
import viewgrad.nn as vnn
from viewgrad.nn import parametrize as VP

torch = pytest.importorskip("torch", reason="PyTorch (the test-only oracle) is not installed")
import torch.nn.utils.parametrize as TP  # noqa: E402

LIBS = {"vg": (vg, vnn, VP), "torch": (torch, torch.nn, TP)}


def _np(t):
    return t.detach().cpu().numpy()


def _to(lib, a):
    return vg.tensor(a) if lib == "vg" else torch.tensor(a)


def _classes(nn):
    """The same user-written parametrizations, built over either library's nn."""

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(0, 1)

        def right_inverse(self, A):
            return A.triu()

    class Split(nn.Module):   # two originals: right_inverse returns a tuple
        def forward(self, a, b):
            return a * 2.0 + b.tanh()

        def right_inverse(self, X):
            return X * 0.25, X * 0.5

    class Scale(nn.Module):   # no right_inverse
        def forward(self, X):
            return X * 3.0

    class Counting(nn.Module):
        calls = 0

        def forward(self, X):
            type(self).calls += 1
            return X.exp()

    class Widen(nn.Module):   # changes the shape
        def forward(self, X):
            return X.repeat(2, 1)

    class ToDouble(nn.Module):
        def forward(self, X):
            return X.double()

    return dict(Symmetric=Symmetric, Split=Split, Scale=Scale, Counting=Counting,
                Widen=Widen, ToDouble=ToDouble)


CLS = {k: _classes(v[1]) for k, v in LIBS.items()}


def _linear(lib, n_in=4, n_out=4, seed=0, dtype="float64"):
    M, nn, _ = LIBS[lib]
    rng = np.random.default_rng(seed)
    m = nn.Linear(n_in, n_out).to(getattr(M, dtype))
    with M.no_grad():
        m.weight.copy_(_to(lib, rng.standard_normal((n_out, n_in))))
        m.bias.copy_(_to(lib, rng.standard_normal(n_out)))
    return m


def _both(fn):
    """fn(lib) for viewgrad and for torch."""
    return fn("vg"), fn("torch")


def _close(a, b, tol=1e-12):
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


# -- structure ------------------------------------------------------------------------------

def test_structure_names_and_repr_as_torch():
    def build(lib):
        m = _linear(lib)
        LIBS[lib][2].register_parametrization(m, "weight", CLS[lib]["Symmetric"]())
        return m
    v, t = _both(build)
    assert type(v).__name__ == type(t).__name__ == "ParametrizedLinear"
    assert repr(v) == repr(t)
    assert [n for n, _ in v.named_parameters()] == [n for n, _ in t.named_parameters()] \
        == ["bias", "parametrizations.weight.original"]
    assert list(v.state_dict()) == list(t.state_dict())
    assert type(v.parametrizations.weight).__name__ == "ParametrizationList"
    assert type(v.parametrizations["weight"][0]).__name__ == "Symmetric"
    assert isinstance(v, vnn.Linear)
    assert VP.type_before_parametrizations(v) is vnn.Linear
    assert VP.type_before_parametrizations(vnn.ReLU()) is vnn.ReLU
    assert VP.is_parametrized(v) and VP.is_parametrized(v, "weight")
    assert not VP.is_parametrized(v, "bias") and not VP.is_parametrized(vnn.Linear(2, 2))
    assert "weight" not in v._parameters
    # the original is the module's own Parameter object, set to right_inverse(weight)
    _close(v.parametrizations.weight.original, t.parametrizations.weight.original)
    assert v.parametrizations.weight.original._version == \
        t.parametrizations.weight.original._version
    _close(v.weight, t.weight)
    _close(v.weight, v.weight.transpose(0, 1))
    # another instance of the class is untouched
    assert type(_linear("vg")).__name__ == "Linear"
    assert type(v) is not type(build("vg"))


def test_values_and_gradients_reach_the_original():
    def run(lib):
        M = LIBS[lib][0]
        m = _linear(lib, 4, 4)
        LIBS[lib][2].register_parametrization(m, "weight", CLS[lib]["Symmetric"]())
        x = _to(lib, np.random.default_rng(1).standard_normal((5, 4)))
        y = m(x)
        (y.sin() * M.arange(4.0, dtype=M.float64)).sum().backward()
        return y, m.parametrizations.weight.original.grad, m.bias.grad
    for a, b in zip(*_both(run)):
        _close(a, b)


def test_assignment_goes_through_right_inverse():
    a = np.random.default_rng(2).standard_normal((4, 4))
    a = a + a.T

    def run(lib):
        m = _linear(lib)
        LIBS[lib][2].register_parametrization(m, "weight", CLS[lib]["Symmetric"]())
        orig = m.parametrizations.weight.original
        m.weight = _to(lib, a)
        assert m.parametrizations.weight.original is orig   # written in place
        return m.weight, orig, orig._version
    v, t = _both(run)
    _close(v[0], t[0])
    _close(v[1], t[1])
    np.testing.assert_allclose(_np(v[0]), a)
    assert v[2] == t[2]


def test_a_tuple_from_right_inverse_gives_original0_original1():
    def run(lib):
        M = LIBS[lib][0]
        m = _linear(lib, 3, 2)
        LIBS[lib][2].register_parametrization(m, "weight", CLS[lib]["Split"]())
        names = [n for n, _ in m.named_parameters()]
        x = _to(lib, np.random.default_rng(3).standard_normal((4, 3)))
        m(x).pow(2).sum().backward()
        pl = m.parametrizations.weight
        out = (names, list(m.state_dict()), pl.is_tensor, pl.ntensors, hasattr(pl, "original"))
        m.weight = M.ones(2, 3, dtype=M.float64)   # right_inverse again: both originals
        return out, pl.original0, pl.original1, pl.original0.grad, pl.original1.grad, m.weight
    v, t = _both(run)
    assert v[0] == t[0]
    assert v[0][0] == ["bias", "parametrizations.weight.original0",
                       "parametrizations.weight.original1"]
    for a, b in zip(v[1:], t[1:]):
        _close(a, b)


def test_chained_parametrizations_apply_in_order():
    def run(lib):
        m = _linear(lib)
        P, C = LIBS[lib][2], CLS[lib]
        P.register_parametrization(m, "weight", C["Symmetric"]())
        P.register_parametrization(m, "weight", C["Scale"]())
        x = _to(lib, np.ones((2, 4)))
        m(x).sum().backward()
        return m.weight, m.parametrizations.weight.original.grad, repr(m)
    v, t = _both(run)
    _close(v[0], t[0])
    _close(v[1], t[1])
    assert v[2] == t[2]


def test_buffers_can_be_parametrized():
    def run(lib):
        M, nn, P = LIBS[lib]
        m = nn.BatchNorm1d(3).double()
        P.register_parametrization(m, "running_var", CLS[lib]["Scale"]())
        return list(m.state_dict()), [n for n, _ in m.named_buffers()], m.running_var, \
            [n for n, _ in m.named_parameters()]
    v, t = _both(run)
    assert v[0] == t[0] and v[1] == t[1] and v[3] == t[3]
    _close(v[2], t[2])


# -- caching ---------------------------------------------------------------------------------

def test_cached_computes_once_per_block():
    def run(lib):
        P, C = LIBS[lib][2], CLS[lib]["Counting"]
        C.calls = 0
        m = _linear(lib)
        P.register_parametrization(m, "weight", C())
        after_registration = C.calls
        with P.cached():
            w1, w2 = m.weight, m.weight
            with P.cached():
                w3 = m.weight
            w4 = m.weight
        w5 = m.weight
        return (after_registration, C.calls, w1 is w2, w1 is w3, w1 is w4, w1 is w5)
    v, t = _both(run)
    assert v == t == (1, 3, True, True, True, False)


def test_cached_values_carry_the_graph():
    def run(lib):
        m = _linear(lib)
        LIBS[lib][2].register_parametrization(m, "weight", CLS[lib]["Symmetric"]())
        x = _to(lib, np.ones((1, 4)))
        with LIBS[lib][2].cached():
            (m(x) * m(x * 2)).sum().backward()
        return m.parametrizations.weight.original.grad
    _close(*_both(run))


# -- removal ---------------------------------------------------------------------------------

@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations_both_ways(leave):
    def run(lib):
        P = LIBS[lib][2]
        m = _linear(lib)
        P.register_parametrization(m, "weight", CLS[lib]["Symmetric"]())
        P.register_parametrization(m, "weight", CLS[lib]["Scale"]())
        orig = m.parametrizations.weight.original
        P.remove_parametrizations(m, "weight", leave_parametrized=leave)
        return (type(m).__name__, repr(m), list(m.state_dict()), hasattr(m, "parametrizations"),
                m.weight is orig, type(m.weight).__name__, m.weight.requires_grad), m.weight
    v, t = _both(run)
    assert v[0] == t[0]
    assert v[0][0] == "Linear" and v[0][4] is True
    _close(v[1], t[1])


def test_removing_one_of_two_keeps_the_class():
    def run(lib):
        P, C = LIBS[lib][2], CLS[lib]
        m = _linear(lib)
        P.register_parametrization(m, "weight", C["Symmetric"]())
        P.register_parametrization(m, "bias", C["Scale"]())
        P.remove_parametrizations(m, "weight")
        first = (type(m).__name__, list(m.state_dict()), P.is_parametrized(m, "weight"))
        P.remove_parametrizations(m, "bias", leave_parametrized=False)
        return first, type(m).__name__, list(m.state_dict()), m.weight, m.bias
    v, t = _both(run)
    assert v[:3] == t[:3]
    _close(v[3], t[3])
    _close(v[4], t[4])


def test_remove_a_tuple_parametrization():
    def run(lib):
        P = LIBS[lib][2]
        m = _linear(lib, 3, 2)
        P.register_parametrization(m, "weight", CLS[lib]["Split"]())
        with pytest.raises(ValueError) as e:
            P.remove_parametrizations(m, "weight", leave_parametrized=False)
        P.remove_parametrizations(m, "weight")
        return str(e.value), list(m.state_dict()), m.weight.is_leaf, m.weight
    v, t = _both(run)
    assert v[:3] == t[:3]
    _close(v[3], t[3])


# -- errors ----------------------------------------------------------------------------------

def _error(lib, fn):
    with pytest.raises(Exception) as e:
        fn(*LIBS[lib], CLS[lib])
    return type(e.value).__name__, str(e.value)


ERRORS = {
    "no_such_tensor": lambda M, nn, P, C: P.register_parametrization(
        nn.Linear(2, 3), "foo", C["Scale"]()),
    "shape_change": lambda M, nn, P, C: P.register_parametrization(
        nn.Linear(2, 3), "weight", C["Widen"]()),
    "dtype_change": lambda M, nn, P, C: P.register_parametrization(
        nn.Linear(2, 3), "weight", C["ToDouble"]()),
    "chained_shape_change": lambda M, nn, P, C: P.register_parametrization(
        P.register_parametrization(nn.Linear(2, 3), "weight", C["Scale"]()), "weight",
        C["Widen"]()),
    "chained_dtype_change": lambda M, nn, P, C: P.register_parametrization(
        P.register_parametrization(nn.Linear(2, 3), "weight", C["Scale"]()), "weight",
        C["ToDouble"]()),
    "remove_missing": lambda M, nn, P, C: P.remove_parametrizations(nn.Linear(2, 3), "weight"),
    "assign_without_inverse": lambda M, nn, P, C: setattr(
        P.register_parametrization(nn.Linear(2, 3), "weight", C["Scale"]()), "weight",
        M.ones(3, 2)),
    "assign_a_parameter": lambda M, nn, P, C: setattr(
        P.register_parametrization(nn.Linear(2, 3), "weight", C["Scale"]()), "weight",
        nn.Parameter(M.ones(3, 2))),
    "empty_list": lambda M, nn, P, C: P.ParametrizationList([], M.ones(2)),
    "pickle": lambda M, nn, P, C: pickle.dumps(
        P.register_parametrization(nn.Linear(2, 3), "weight", C["Scale"]())),
    "copy": lambda M, nn, P, C: copy.copy(
        P.register_parametrization(nn.Linear(2, 3), "weight", C["Scale"]())),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_as_torch(case):
    v, t = _error("vg", ERRORS[case]), _error("torch", ERRORS[case])
    assert v[0] == t[0]
    assert v[1].replace("viewgrad.", "torch.") == t[1]


def test_right_inverse_returning_a_non_tensor():
    def run(lib):
        nn, P = LIBS[lib][1], LIBS[lib][2]

        class Bad(nn.Module):
            def forward(self, X):
                return X

            def right_inverse(self, X):
                return 3

        class BadItem(Bad):
            def right_inverse(self, X):
                return (X, 3)
        out = []
        for cls in (Bad, BadItem):
            with pytest.raises(ValueError) as e:
                P.register_parametrization(nn.Linear(2, 2), "weight", cls())
            out.append(str(e.value))
        return out
    v, t = _both(run)
    assert v == t


# -- copies, transfer, dtype -------------------------------------------------------------------

def test_deepcopy_is_an_independent_parametrized_module():
    m = _linear("vg")
    VP.register_parametrization(m, "weight", CLS["vg"]["Symmetric"]())
    c = copy.deepcopy(m)
    assert type(c).__name__ == "ParametrizedLinear"
    _close(c.weight, m.weight)
    with vg.no_grad():
        c.parametrizations.weight.original.zero_()
    assert float(m.weight.abs().sum()) > 0 and float(c.weight.abs().sum()) == 0


def test_transfer_parametrizations_and_params():
    def run(lib):
        P, nn = LIBS[lib][2], LIBS[lib][1]
        a = _linear(lib)
        P.register_parametrization(a, "weight", CLS[lib]["Symmetric"]())
        b = nn.Linear(4, 4).double()
        P.transfer_parametrizations_and_params(a, b)
        shared = b.parametrizations.weight.original is a.parametrizations.weight.original
        c = _linear(lib, 3, 2)
        P.register_parametrization(c, "weight", CLS[lib]["Split"]())
        d = nn.Linear(3, 2).double()
        P.transfer_parametrizations_and_params(c, d, "weight")
        return (shared, type(b).__name__, list(b.state_dict()), list(d.state_dict()),
                P.transfer_parametrizations_and_params(nn.ReLU(), nn.ReLU()).__class__.__name__
                ), b.weight, d.weight
    v, t = _both(run)
    assert v[0] == t[0] and v[0][0] is True
    _close(v[1], t[1])
    _close(v[2], t[2])


def test_to_double_converts_the_originals():
    m = _linear("vg", dtype="float32")
    VP.register_parametrization(m, "weight", CLS["vg"]["Symmetric"]())
    m.double()
    assert m.weight.dtype == vg.float64
    assert m.parametrizations.weight.original.dtype == vg.float64


def test_load_state_dict_round_trip():
    def run(lib):
        a, b = _linear(lib, seed=4), _linear(lib, seed=5)
        for m in (a, b):
            LIBS[lib][2].register_parametrization(m, "weight", CLS[lib]["Symmetric"]())
        r = b.load_state_dict(a.state_dict())
        return repr(r), b.weight
    v, t = _both(run)
    assert v[0] == t[0]
    _close(v[1], t[1])


# -- training ----------------------------------------------------------------------------------

def _train(lib, make, x_shape, steps=5):
    M, nn, P = LIBS[lib]
    rng = np.random.default_rng(7)
    model = make(nn, P, CLS[lib])
    with M.no_grad():
        for p in model.parameters():
            p.copy_(_to(lib, rng.normal(0, 0.5, tuple(p.shape))))
    opt = M.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = _to(lib, rng.standard_normal(x_shape))
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = model(x).tanh().pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [p for _, p in model.named_parameters()], model(x)


def _mlp(nn, P, C):
    net = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 2)).double()
    P.register_parametrization(net[0], "weight", C["Symmetric"]())
    P.register_parametrization(net[2], "weight", C["Split"]())
    return net


def _cnn(nn, P, C):
    net = nn.Sequential(nn.Conv2d(2, 3, 3), nn.ReLU(), nn.Flatten(), nn.Linear(12, 2)).double()
    P.register_parametrization(net[0], "weight", C["Scale"]())
    P.register_parametrization(net[3], "bias", C["Scale"]())
    return net


@pytest.mark.parametrize("make,x_shape", [(_mlp, (6, 4)), (_cnn, (3, 2, 4, 4))],
                         ids=["linear", "conv2d"])
def test_sgd_through_parametrized_layers_as_torch(make, x_shape):
    v, t = _train("vg", make, x_shape), _train("torch", make, x_shape)
    np.testing.assert_allclose(v[0], t[0], rtol=1e-12)
    assert len(v[1]) == len(t[1])
    for a, b in zip(v[1], t[1]):
        _close(a, b, 1e-11)
    _close(v[2], t[2], 1e-11)
