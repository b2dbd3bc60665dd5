"""``torch.nn.utils.parametrizations`` against PyTorch: ``weight_norm`` (g and v, old
checkpoints), ``spectral_norm`` (the same ``_u``/``_v`` from the same seed, power iterations
in train mode only, values and gradients, transposed convolutions), ``orthogonal`` (the
three maps, tall/wide/square/batched, with and without the trivialization, assignment),
the Householder helpers, SGD steps, errors, and the ``torch.nn.utils.parametriz*`` imports.
"""
import numpy as np
import pytest

import viewgrad as vg
import viewgrad.nn as vnn
from viewgrad.nn import parametrizations as VPs
from viewgrad.nn import parametrize as VP

torch = pytest.importorskip("torch", reason="PyTorch (the test-only oracle) is not installed")
import torch.nn.utils.parametrizations as TPs  # noqa: E402
import torch.nn.utils.parametrize as TP  # noqa: E402

LIBS = {"vg": (vg, vnn, VP, VPs), "torch": (torch, torch.nn, TP, TPs)}


def _np(t):
    return t.detach().cpu().numpy()


def _to(lib, a):
    return vg.tensor(a) if lib == "vg" else torch.tensor(a)


def _close(a, b, tol=1e-11):
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


def _filled(lib, make, seed=0):
    """``make(nn)`` in float64 with every parameter drawn from one NumPy seed."""
    M, nn = LIBS[lib][:2]
    m = make(nn).double()
    rng = np.random.default_rng(seed)
    with M.no_grad():
        for _, p in sorted(m.named_parameters()):
            p.copy_(_to(lib, rng.standard_normal(tuple(p.shape))))
    return m


def _both(fn):
    return fn("vg"), fn("torch")


# -- weight_norm -----------------------------------------------------------------------------

MAKERS = {"linear": (lambda nn: nn.Linear(3, 5), (4, 3)),
          "conv2d": (lambda nn: nn.Conv2d(2, 3, 3), (2, 2, 5, 5))}


@pytest.mark.parametrize("dim", [0, 1, None, -1])
@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_weight_norm_values_and_gradients(kind, dim):
    make, x_shape = MAKERS[kind]

    def run(lib):
        M, nn, P, Ps = LIBS[lib]
        m = Ps.weight_norm(_filled(lib, make), dim=dim)
        x = _to(lib, np.random.default_rng(1).standard_normal(x_shape))
        m(x).sin().sum().backward()
        pl = m.parametrizations.weight
        return ((type(m).__name__, repr(m), list(m.state_dict()),
                 [n for n, _ in m.named_parameters()], tuple(pl.original0.shape)),
                m.weight, pl.original0, pl.original1, pl.original0.grad, pl.original1.grad,
                m.bias.grad)
    v, t = _both(run)
    assert v[0] == t[0]
    for a, b in zip(v[1:], t[1:]):
        _close(a, b)


@pytest.mark.filterwarnings("ignore:`torch.nn.utils.weight_norm` is deprecated")
def test_weight_norm_reads_an_old_style_checkpoint():
    make = MAKERS["linear"][0]
    old = torch.nn.utils.weight_norm(_filled("torch", make, seed=3))   # (deprecated API)
    sd = {k: v.detach().numpy() for k, v in old.state_dict().items()}
    assert sorted(sd) == ["bias", "weight_g", "weight_v"]

    def run(lib):
        M, nn, P, Ps = LIBS[lib]
        m = Ps.weight_norm(_filled(lib, make))
        r = m.load_state_dict({k: _to(lib, a) for k, a in sd.items()})
        return repr(r), m.weight, m.parametrizations.weight.original0
    v, t = _both(run)
    assert v[0] == t[0]
    _close(v[1], t[1])
    _close(v[2], t[2])
    _close(v[1], old.weight)


def test_weight_norm_nested_in_a_sequential_reads_old_keys():
    def run(lib):
        M, nn, P, Ps = LIBS[lib]
        net = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 3)).double()
        Ps.weight_norm(net[1])
        sd = {"0.weight": M.ones(2, 2, dtype=M.float64), "0.bias": M.zeros(2, dtype=M.float64),
              "1.weight_g": M.full((3, 1), 2.0, dtype=M.float64),
              "1.weight_v": M.ones(3, 2, dtype=M.float64),
              "1.bias": M.zeros(3, dtype=M.float64)}
        return repr(net.load_state_dict(sd)), net[1].weight
    v, t = _both(run)
    assert v[0] == t[0]
    _close(v[1], t[1])


def test_weight_norm_removal_and_the_old_api_still_work():
    def run(lib):
        M, nn, P, Ps = LIBS[lib]
        m = Ps.weight_norm(_filled(lib, MAKERS["linear"][0]))
        w = m.weight
        P.remove_parametrizations(m, "weight")
        return (type(m).__name__, list(m.state_dict()), type(m.weight).__name__), m.weight, w
    v, t = _both(run)
    assert v[0] == t[0]
    _close(v[1], t[1])
    _close(v[1], v[2])
    with pytest.warns(FutureWarning):
        old = vnn.utils.weight_norm(vnn.Linear(3, 4))
    assert sorted(old.state_dict()) == ["bias", "weight_g", "weight_v"]


# -- spectral_norm ---------------------------------------------------------------------------

SN_MAKERS = {"linear": (lambda nn: nn.Linear(6, 5), (4, 6)),
             "conv2d": (lambda nn: nn.Conv2d(2, 3, 3), (2, 2, 5, 5)),
             "convT2d": (lambda nn: nn.ConvTranspose2d(3, 2, 3), (2, 3, 4, 4))}


def _sn(lib, kind, seed=11, **kw):
    M, nn, P, Ps = LIBS[lib]
    m = _filled(lib, SN_MAKERS[kind][0])
    M.manual_seed(seed)   # _u and _v are drawn from the global generator
    return Ps.spectral_norm(m, **kw)


@pytest.mark.parametrize("n_iter", [1, 3])
@pytest.mark.parametrize("kind", sorted(SN_MAKERS))
def test_spectral_norm_train_mode_as_torch(kind, n_iter):
    x_shape = SN_MAKERS[kind][1]

    def run(lib):
        m = _sn(lib, kind, n_power_iterations=n_iter)
        sn = m.parametrizations.weight[0]
        start = (sn._u.clone(), sn._v.clone())
        w1 = m.weight             # every read in training mode iterates once more
        w2 = m.weight
        x = _to(lib, np.random.default_rng(2).standard_normal(x_shape))
        m(x).pow(2).sum().backward()
        return ((list(m.state_dict()), repr(m), sn.dim),
                *start, w1, w2, sn._u, sn._v, m.parametrizations.weight.original.grad,
                m.bias.grad)
    v, t = _both(run)
    assert v[0] == t[0]
    for a, b in zip(v[1:], t[1:]):
        _close(a, b)


def test_spectral_norm_eval_mode_does_not_iterate():
    def run(lib):
        m = _sn(lib, "linear").eval()
        sn = m.parametrizations.weight[0]
        u = sn._u.clone()
        w = m.weight
        x = _to(lib, np.ones((2, 6)))
        m(x).sum().backward()
        moved = float((sn._u - u).abs().max())
        return moved, w, sn._u, m.parametrizations.weight.original.grad
    v, t = _both(run)
    assert v[0] == t[0] == 0.0
    for a, b in zip(v[1:], t[1:]):
        _close(a, b)


def test_spectral_norm_sigma_is_the_largest_singular_value():
    m = _sn("vg", "linear", n_power_iterations=1).eval()
    w = np.asarray(_np(m.weight))   # (16 power iterations: an estimate, close to 1)
    assert abs(np.linalg.svd(w, compute_uv=False)[0] - 1.0) < 1e-5


def test_spectral_norm_on_a_vector_normalises_it():
    def run(lib):
        m = LIBS[lib][3].spectral_norm(_filled(lib, SN_MAKERS["linear"][0]), "bias")
        return list(m.state_dict()), m.bias
    v, t = _both(run)
    assert v[0] == t[0]
    _close(v[1], t[1])


def test_spectral_norm_removal_in_train_mode_iterates_once_more():
    def run(lib):
        m = _sn(lib, "conv2d")
        LIBS[lib][2].remove_parametrizations(m, "weight")
        return list(m.state_dict()), m.weight
    v, t = _both(run)
    assert v[0] == t[0]
    _close(v[1], t[1])


SN_ERRORS = {
    "iterations": lambda nn, Ps: Ps.spectral_norm(nn.Linear(2, 3), n_power_iterations=0),
    "dim": lambda nn, Ps: Ps.spectral_norm(nn.Linear(2, 3), dim=2),
    "negative_dim": lambda nn, Ps: Ps.spectral_norm(nn.Linear(2, 3), dim=-3),
    "name": lambda nn, Ps: Ps.spectral_norm(nn.Linear(2, 3), "nope"),
    "wn_name": lambda nn, Ps: Ps.weight_norm(nn.Linear(2, 3), "nope"),
    "orth_name": lambda nn, Ps: Ps.orthogonal(nn.Linear(2, 3), "nope"),
    "orth_vector": lambda nn, Ps: Ps.orthogonal(nn.Linear(2, 3), "bias"),
    "orth_map": lambda nn, Ps: Ps.orthogonal(nn.Linear(2, 3), orthogonal_map="qr"),
    "orth_shape": lambda nn, Ps: setattr(Ps.orthogonal(nn.Linear(2, 3)), "weight",
                                         nn.Linear(3, 3).weight.detach()),
    "orth_no_inverse": lambda nn, Ps: setattr(
        Ps.orthogonal(nn.Linear(3, 3), use_trivialization=False), "weight",
        nn.Linear(3, 3).weight.detach()),
}


@pytest.mark.parametrize("case", sorted(SN_ERRORS))
def test_errors_as_torch(case):
    out = []
    for lib in ("vg", "torch"):
        with pytest.raises(Exception) as e:
            SN_ERRORS[case](LIBS[lib][1], LIBS[lib][3])
        out.append((type(e.value).__name__, str(e.value)))
    assert out[0] == out[1]


def _train(lib, register, steps=4):
    M, nn, P, Ps = LIBS[lib]
    net = _filled(lib, lambda nn: nn.Sequential(nn.Linear(5, 4), nn.Tanh(), nn.Linear(4, 3)))
    M.manual_seed(5)
    register(net, Ps)
    opt = M.optim.SGD(net.parameters(), lr=0.05, momentum=0.5)
    x = _to(lib, np.random.default_rng(9).standard_normal((7, 5)))
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = net(x).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    net.eval()
    return losses, [p for _, p in net.named_parameters()], net(x)


REGISTRATIONS = {
    "spectral": lambda net, Ps: (Ps.spectral_norm(net[0]), Ps.spectral_norm(net[2], dim=1)),
    "weight_norm": lambda net, Ps: (Ps.weight_norm(net[0]), Ps.weight_norm(net[2], dim=None)),
    "orthogonal": lambda net, Ps: (Ps.orthogonal(net[0]),
                                   Ps.orthogonal(net[2], orthogonal_map="cayley")),
    "householder": lambda net, Ps: Ps.orthogonal(net[0], use_trivialization=False),
}


@pytest.mark.parametrize("name", sorted(REGISTRATIONS))
def test_sgd_steps_as_torch(name):
    v, t = _train("vg", REGISTRATIONS[name]), _train("torch", REGISTRATIONS[name])
    np.testing.assert_allclose(v[0], t[0], rtol=1e-10)
    assert len(v[1]) == len(t[1])
    for a, b in zip(v[1], t[1]):
        _close(a, b, 1e-9)
    _close(v[2], t[2], 1e-9)


# -- orthogonal ------------------------------------------------------------------------------

def _orth_module(nn, shape):
    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(vg.zeros(*shape) if nn is vnn else torch.zeros(*shape))

        def forward(self, x):
            return x @ self.weight
    return Holder()


@pytest.mark.parametrize("triv", [True, False])
@pytest.mark.parametrize("omap", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 4, 3)])
def test_orthogonal_values_and_gradients(shape, omap, triv):
    def run(lib):
        M, nn, P, Ps = LIBS[lib]
        m = _filled(lib, lambda nn: _orth_module(nn, shape))
        M.manual_seed(4)   # (a non-square base is completed with random columns)
        Ps.orthogonal(m, orthogonal_map=omap, use_trivialization=triv)
        Q = m.weight
        w = _to(lib, np.random.default_rng(6).standard_normal(tuple(Q.shape)))
        (Q * w).sum().backward()
        pl = m.parametrizations.weight
        return (list(m.state_dict()), repr(m)), Q, pl.original, pl.original.grad
    v, t = _both(run)
    assert v[0] == t[0]
    for a, b in zip(v[1:], t[1:]):
        _close(a, b, 1e-9)
    Q = _np(v[1])
    if shape[-2] < shape[-1]:
        Q = np.swapaxes(Q, -1, -2)
    gram = np.swapaxes(Q, -1, -2) @ Q
    np.testing.assert_allclose(gram, np.broadcast_to(np.eye(Q.shape[-1]), gram.shape),
                               atol=1e-10)


@pytest.mark.parametrize("omap", ["matrix_exp", "cayley", "householder"])
def test_orthogonal_assignment(omap):
    q = np.linalg.qr(np.random.default_rng(8).standard_normal((5, 3)))[0]
    not_orth = np.random.default_rng(9).standard_normal((5, 3))

    def run(lib):
        M, nn, P, Ps = LIBS[lib]
        m = _filled(lib, lambda nn: nn.Linear(3, 5))
        M.manual_seed(1)
        Ps.orthogonal(m, orthogonal_map=omap)
        m.weight = _to(lib, q)
        first = m.weight
        m.weight = _to(lib, not_orth)
        return first, m.weight, m.parametrizations.weight[0].base
    v, t = _both(run)
    np.testing.assert_allclose(_np(v[0]), q, atol=1e-12)
    for a, b in zip(v, t):
        _close(a, b, 1e-10)


def test_orthogonal_default_map_and_repr():
    def run(lib):
        Ps = LIBS[lib][3]
        sq = Ps.orthogonal(_filled(lib, lambda nn: nn.Linear(4, 4)))
        tall = Ps.orthogonal(_filled(lib, lambda nn: nn.Linear(3, 6)))
        return (sq.parametrizations.weight[0].orthogonal_map.name,
                tall.parametrizations.weight[0].orthogonal_map.name, repr(tall))
    assert run("vg") == run("torch")


# -- the Householder helpers -----------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (2, 6, 2)])
def test_geqrf_and_householder_product_as_torch(shape):
    a = np.random.default_rng(12).standard_normal(shape)
    if shape == (4, 4):
        a[1:, 0] = 0.0   # a column already reduced: tau = 0, the identity reflector
    A, tau = VPs._geqrf(vg.tensor(a))
    tA, ttau = torch.geqrf(torch.tensor(a))
    _close(A, tA, 1e-12)
    _close(tau, ttau, 1e-12)
    va, vt = vg.tensor(a, requires_grad=True), vg.tensor(_np(tau), requires_grad=True)
    ta, tt = torch.tensor(a, requires_grad=True), torch.tensor(_np(tau), requires_grad=True)
    w = np.random.default_rng(13).standard_normal(shape)
    Q = VPs._householder_product(va, vt)
    tQ = torch.linalg.householder_product(ta, tt)
    (Q * vg.tensor(w)).sum().backward()
    (tQ * torch.tensor(w)).sum().backward()
    _close(Q, tQ, 1e-12)
    _close(va.grad, ta.grad, 1e-10)
    _close(vt.grad, tt.grad, 1e-10)


# -- through ``import torch`` ----------------------------------------------------------------

def test_the_torch_names_resolve_to_viewgrad():
    from viewgrad.compat import torch_imports
    with torch_imports():
        import torch as T
        import torch.nn.utils.parametrize as P
        from torch.nn.utils.parametrizations import orthogonal, spectral_norm, weight_norm
        assert P.register_parametrization is VP.register_parametrization
        assert P.cached is VP.cached and P.ParametrizationList is VP.ParametrizationList
        assert (weight_norm, spectral_norm, orthogonal) == \
            (VPs.weight_norm, VPs.spectral_norm, VPs.orthogonal)
        assert T.nn.utils.parametrize.remove_parametrizations is VP.remove_parametrizations
        assert T.nn.utils.parametrizations.weight_norm is VPs.weight_norm
        assert T.nn.utils.weight_norm is vnn.utils.weight_norm   # the deprecated one
        m = weight_norm(T.nn.Linear(2, 3))
        assert type(m).__name__ == "ParametrizedLinear"
