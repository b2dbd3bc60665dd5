"""The MLP step as a PyTorch user writes it: ``nn.Sequential`` of ``nn.Linear`` and
``nn.ReLU``, ``F.cross_entropy``, ``optim.SGD`` with ``zero_grad()`` and ``step()`` — the
same math as ``workloads.mlp_step_numpy``, timed against it and against torch's same code.

Not one of issue 19's targets (their MLP is the functional step of ``workloads.py``); it
is here because a Module's parameters are ``nn.Parameter``s and an optimizer updates them
through ``add_(grad, alpha=-lr)``, paths the functional step does not take (Note [the
classes the lean paths take], viewgrad/tensor.py).
"""
from __future__ import annotations

import viewgrad as vg

from .harness import Engine
from .workloads import MAXABS, Spec, _maxabs, _rel, _torch_skip, mlp_data, mlp_step_numpy

__all__ = ["build_mlp_modules", "check_mlp_modules"]


def _model(lib, P, lr):
    """(model, optimizer) of library ``lib`` (viewgrad or torch) holding parameters P."""
    nn = lib.nn
    sizes = [P[0].shape[1]] + [w.shape[0] for w in P[0::2]]
    layers = []
    for i in range(len(sizes) - 1):
        layers += [nn.Linear(sizes[i], sizes[i + 1]), nn.ReLU()]
    model = nn.Sequential(*layers[:-1])
    with lib.no_grad():
        for p, a in zip(model.parameters(), P):
            p.copy_(lib.tensor(a))
    return model, lib.optim.SGD(model.parameters(), lr=lr)


def modules_step(model, opt, X, y, F, update=True):
    """One training step of ``model`` the way a PyTorch user writes it."""
    opt.zero_grad()
    loss = F.cross_entropy(model(X), y)
    loss.backward()
    if update:
        opt.step()
    return loss


def build_mlp_modules(cfg, ctx):
    P, X, y = mlp_data(cfg)
    lr = cfg["lr"]
    vm, vo = _model(vg, P, lr)
    vX, vy = vg.tensor(X), vg.tensor(y)
    nP = [p.copy() for p in P]
    engs = [Engine("viewgrad", lambda: modules_step(vm, vo, vX, vy, vg.nn.functional)),
            Engine("numpy", lambda: mlp_step_numpy(nP, X, y, lr))]
    t = ctx.torch
    if t is not None:
        tm, to = _model(t, P, lr)
        tX, ty = t.tensor(X), t.tensor(y)
        engs.append(Engine("torch", lambda: modules_step(tm, to, tX, ty, t.nn.functional)))
    s = "-".join(map(str, cfg["sizes"]))
    return Spec(engs, [("viewgrad", "numpy"), ("viewgrad", "torch"), ("torch", "numpy")],
                targets=[], skipped=_torch_skip(ctx), unit="step",
                note=f"batch {cfg['batch']}, {s}: nn.Sequential(Linear, ReLU, ...), "
                     "F.cross_entropy, optim.SGD (zero_grad, step); float32; no target "
                     "(issue 19's MLP is the functional step)")


def check_mlp_modules(cfg, ctx):
    P, X, y = mlp_data(cfg, seed=3)
    _, g_n = mlp_step_numpy([p.copy() for p in P], X, y, 0.0, update=False)
    vm, vo = _model(vg, P, cfg["lr"])
    modules_step(vm, vo, vg.tensor(X), vg.tensor(y), vg.nn.functional, update=False)
    vgrads = [p.grad.cpu().numpy() for p in vm.parameters()]
    out = {"viewgrad-numpy grads": max(_rel(a, b) for a, b in zip(vgrads, g_n))}
    t = ctx.torch
    if t is not None:
        tm, to = _model(t, P, cfg["lr"])
        modules_step(tm, to, t.tensor(X), t.tensor(y), t.nn.functional, update=False)
        tgrads = [p.grad.numpy() for p in tm.parameters()]
        out["torch-numpy grads"] = max(_rel(a, b) for a, b in zip(tgrads, g_n))
        out[MAXABS] = max(_maxabs(a, b) for a, b in zip(vgrads, tgrads))
    # and one real update, the same on both sides of the comparison
    P2 = [p.copy() for p in P]
    mlp_step_numpy(P2, X, y, cfg["lr"])
    vm2, vo2 = _model(vg, P, cfg["lr"])
    modules_step(vm2, vo2, vg.tensor(X), vg.tensor(y), vg.nn.functional)
    out["viewgrad-numpy after a step"] = max(
        _rel(p.detach().cpu().numpy(), q) for p, q in zip(vm2.parameters(), P2))
    return out
