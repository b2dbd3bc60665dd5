"""The modules viewgrad.nn adds for PyTorch programs, against torch.nn (the test-only
oracle): same weights in, same outputs and gradients out; containers register what torch
registers; conv padding modes; gradient clipping; forward hooks."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad import nn

torch = pytest.importorskip("torch", reason="torch is the test-only oracle for these tests")
rng = np.random.default_rng(3)


def _copy_params(ours, theirs):
    for (n1, p1), (n2, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert n1 == n2
        a = rng.standard_normal(tuple(p2.shape))
        with vg.no_grad():
            p1.copy_(vg.tensor(a, dtype=p1.dtype))
        with torch.no_grad():
            p2.copy_(torch.tensor(a, dtype=p2.dtype))


MODULES = [
    ("LeakyReLU", (0.3,), {}, (2, 5)), ("ELU", (), {"alpha": 0.5}, (2, 5)),
    ("GELU", (), {}, (2, 5)), ("GELU", (), {"approximate": "tanh"}, (2, 5)),
    ("SiLU", (), {}, (2, 5)), ("Softplus", (), {"beta": 2.0}, (2, 5)), ("Mish", (), {}, (2, 5)),
    ("Hardtanh", (-0.5, 0.5), {}, (2, 5)), ("ReLU6", (), {}, (2, 5)),
    ("LogSigmoid", (), {}, (2, 5)), ("Softsign", (), {}, (2, 5)), ("SELU", (), {}, (2, 5)),
    ("Tanh", (), {}, (2, 5)), ("Sigmoid", (), {}, (2, 5)), ("Softmax", (), {"dim": 0}, (2, 5)),
    ("Softmax", (), {}, (2, 3, 4)), ("LogSoftmax", (), {"dim": 1}, (2, 5)),
    ("Softmin", (), {"dim": 1}, (2, 5)), ("GLU", (), {}, (2, 4)),
    ("Unflatten", (1, (2, 3)), {}, (4, 6)), ("Flatten", (), {}, (2, 3, 4)),
    ("LayerNorm", (5,), {}, (3, 5)), ("LayerNorm", ((2, 5),), {"elementwise_affine": False},
                                     (3, 2, 5)),
    ("GroupNorm", (2, 4), {}, (3, 4, 5)), ("BatchNorm1d", (5,), {}, (4, 5)),
    ("Identity", (), {}, (2, 3)), ("AvgPool1d", (3, 2), {}, (2, 3, 9)),
    ("MaxPool1d", (2,), {}, (2, 3, 8)), ("MaxPool3d", (2,), {}, (1, 2, 4, 4, 4)),
    ("AdaptiveAvgPool1d", (4,), {}, (2, 3, 9)), ("AdaptiveAvgPool2d", ((2, 3),), {}, (1, 2, 5, 7)),
    ("Conv1d", (2, 3, 3), {"padding": 2, "padding_mode": "circular"}, (2, 2, 6)),
    ("Conv2d", (2, 3, 3), {"padding": 1, "padding_mode": "reflect"}, (1, 2, 5, 5)),
    ("Conv2d", (2, 3, (2, 3)), {"padding": (1, 2), "padding_mode": "replicate"}, (1, 2, 4, 5)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", MODULES,
                         ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)])
def test_module_matches_torch(name, args, kwargs, shape):
    ours = getattr(nn, name)(*args, **kwargs).double()
    theirs = getattr(torch.nn, name)(*args, **kwargs).double()
    _copy_params(ours, theirs)
    x = rng.standard_normal(shape)
    a, b = vg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ya, yb = ours(a), theirs(b)
    np.testing.assert_allclose(ya.detach().cpu().numpy(), yb.detach().numpy(), rtol=1e-6,
                               atol=1e-9)
    g = rng.standard_normal(tuple(yb.shape))
    ya.backward(vg.tensor(g))
    yb.backward(torch.tensor(g))
    np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-9)
    for (n, p1), (_, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p1.grad.cpu().numpy(), p2.grad.numpy(), rtol=1e-6,
                                   atol=1e-9, err_msg=n)


LOSSES = [("BCELoss", {}, "prob"), ("BCEWithLogitsLoss", {}, "normal"),
          ("BCEWithLogitsLoss", {"reduction": "sum"}, "normal"), ("L1Loss", {}, "normal"),
          ("SmoothL1Loss", {"beta": 0.5}, "normal"), ("HuberLoss", {"delta": 0.5}, "normal"),
          ("KLDivLoss", {"reduction": "batchmean"}, "logp"), ("MSELoss", {"reduction": "none"},
                                                               "normal")]


@pytest.mark.parametrize("name,kwargs,kind", LOSSES)
def test_loss_module_matches_torch(name, kwargs, kind):
    x = rng.uniform(0.05, 0.95, (4, 3)) if kind == "prob" else rng.standard_normal((4, 3))
    t = rng.uniform(0.05, 0.95, (4, 3))
    if kind == "logp":
        x = np.log(rng.dirichlet(np.ones(3), 4))
        t = rng.dirichlet(np.ones(3), 4)
    a, b = vg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    la = getattr(nn, name)(**kwargs)(a, vg.tensor(t))
    lb = getattr(torch.nn, name)(**kwargs)(b, torch.tensor(t))
    np.testing.assert_allclose(la.detach().cpu().numpy(), lb.detach().numpy(), rtol=1e-7)
    la.sum().backward()
    lb.sum().backward()
    np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-12)


def test_cross_entropy_label_smoothing_matches_torch():
    x = rng.standard_normal((5, 4))
    t = rng.integers(0, 4, 5)
    a, b = vg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    la = nn.CrossEntropyLoss(label_smoothing=0.2)(a, vg.tensor(t))
    lb = torch.nn.CrossEntropyLoss(label_smoothing=0.2)(b, torch.tensor(t))
    assert la.item() == pytest.approx(lb.item(), rel=1e-9)
    la.backward()
    lb.backward()
    np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), rtol=1e-7, atol=1e-12)


def test_embedding_module_and_from_pretrained():
    e = nn.Embedding(6, 3, padding_idx=2)
    assert e.weight[2].tolist() == [0.0, 0.0, 0.0] and tuple(e.weight.shape) == (6, 3)
    out = e(vg.tensor([[1, 2], [2, 5]]))
    out.sum().backward()
    assert e.weight.grad[2].tolist() == [0.0, 0.0, 0.0]
    assert e.weight.grad[1].tolist() == [1.0, 1.0, 1.0]
    w = vg.tensor([[1.0, 2.0], [3.0, 4.0]])
    p = nn.Embedding.from_pretrained(w)
    assert p(vg.tensor([1])).tolist() == [[3.0, 4.0]] and not p.weight.requires_grad


def test_containers_register_like_torch():
    d = nn.ModuleDict({"enc": nn.Linear(2, 3), "dec": nn.Linear(3, 2)})
    d["norm"] = nn.LayerNorm(2)
    td = torch.nn.ModuleDict({"enc": torch.nn.Linear(2, 3), "dec": torch.nn.Linear(3, 2)})
    td["norm"] = torch.nn.LayerNorm(2)
    assert [n for n, _ in d.named_parameters()] == [n for n, _ in td.named_parameters()]
    assert list(d.keys()) == list(td.keys()) and "enc" in d and len(d) == 3
    pl = nn.ParameterList([vg.ones(2), vg.zeros(3)])
    tpl = torch.nn.ParameterList([torch.ones(2), torch.zeros(3)])
    assert [n for n, _ in pl.named_parameters()] == [n for n, _ in tpl.named_parameters()]
    assert all(p.requires_grad for p in pl) and len(pl) == 2
    pd = nn.ParameterDict({"a": vg.ones(1)})
    assert list(pd.state_dict()) == ["a"]
    holder = nn.Module()
    holder.layers = nn.ModuleList([nn.Linear(1, 1)])
    holder.extra = pl
    assert [n for n, _ in holder.named_parameters()] == ["layers.0.weight", "layers.0.bias",
                                                         "extra.0", "extra.1"]


def test_clip_grad_norm_and_value_match_torch():
    shapes = [(3, 4), (4,)]
    grads = [rng.standard_normal(s) * 3 for s in shapes]
    ours = [vg.zeros(s, dtype=vg.float64, requires_grad=True) for s in shapes]
    theirs = [torch.zeros(s, dtype=torch.float64, requires_grad=True) for s in shapes]
    for p, q, g in zip(ours, theirs, grads):
        p.grad, q.grad = vg.tensor(g), torch.tensor(g)
    na = nn.utils.clip_grad_norm_(ours, 1.5)
    nb = torch.nn.utils.clip_grad_norm_(theirs, 1.5)
    assert na.item() == pytest.approx(nb.item())
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.numpy(), rtol=1e-6)
    nn.utils.clip_grad_value_(ours, 0.1)
    torch.nn.utils.clip_grad_value_(theirs, 0.1)
    np.testing.assert_allclose(ours[0].grad.cpu().numpy(), theirs[0].grad.numpy())
    v = nn.utils.parameters_to_vector(ours)
    assert tuple(v.shape) == (16,)
    nn.utils.vector_to_parameters(v * 0 + 1, ours)
    assert ours[1].tolist() == [1.0] * 4


def test_forward_hooks():
    lin = nn.Linear(2, 2)
    seen = []
    h1 = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda m, args, out: seen.append(out.shape) or out + 1)
    out = lin(vg.ones(1, 2))
    assert seen == [(1, 2)]
    assert out.tolist() == (lin.bias + 1).detach().reshape(1, 2).tolist()
    h1.remove()
    h2.remove()
    assert lin(vg.ones(1, 2)).tolist() != out.tolist() and len(seen) == 1


def test_full_backward_hook_matches_torch():
    out = {}
    for lib in (vg, torch):
        lin = lib.nn.Linear(3, 2)
        with lib.no_grad():
            lin.weight.copy_(lib.tensor(np.arange(6.0).reshape(2, 3)))
            lin.bias.zero_()
        log = []

        def hook(m, gi, go):
            log.append(([g.tolist() for g in gi], [g.tolist() for g in go]))
            return (gi[0] * 10,)
        h = lin.register_full_backward_hook(hook)
        x = lib.ones(2, 3, requires_grad=True)
        y = lin(x)
        (y * 2).sum().backward()
        h.remove()
        lin(x).sum().backward()
        out[lib] = (log, x.grad.tolist(), y.grad_fn.name())
    assert out[vg] == out[torch]
