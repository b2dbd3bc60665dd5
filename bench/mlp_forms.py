"""Issue 19's MLP step written the ways PyTorch users write it, each timed against the same
code under torch and against ``bench.workloads.mlp_step_numpy``: a form that leaves the
lean paths shows here as a viewgrad/torch ratio well above the others.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONPATH=. .venv/bin/python -m bench.mlp_forms

Not one of the issue's targets (their step is ``workloads.mlp_step_autograd``). It found
``x @ W.t() + b`` at 1.18-1.19x torch (MmBackward0 computed the weight's gradient
row-major, so AccumulateGrad copied it to the weight's layout every step: Note [a matrix
gradient in its matrix's layout], viewgrad/ops/linalg.py); results in bench/README.md.
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402

import viewgrad as vg  # noqa: E402

from bench.harness import Engine, measure  # noqa: E402
from bench.workloads import mlp_data, mlp_step_numpy  # noqa: E402

LR = 1e-3


def _forward(M, form, P, X):
    F = M.nn.functional
    W1, b1, W2, b2, W3, b3 = P
    if form == "matmul":
        h = M.relu(X @ W1.T + b1)
        h = M.relu(h @ W2.T + b2)
        return h @ W3.T + b3
    h = F.relu(F.linear(X, W1, b1))
    h = F.relu(F.linear(h, W2, b2))
    return F.linear(h, W3, b3)


def _step(M, form, P, X, y, opt):
    if opt is not None:
        opt.zero_grad()
    z = _forward(M, "matmul" if form == "matmul" else "linear", P, X)
    if form == "log_softmax":
        loss = M.nn.functional.nll_loss(M.nn.functional.log_softmax(z, dim=1), y)
    else:
        loss = M.nn.functional.cross_entropy(z, y)
    loss.backward()
    if opt is not None:
        opt.step()
        return
    with M.no_grad():
        for p in P:
            if form == "zero_grad":
                p.add_(p.grad, alpha=-LR)
            else:
                p -= LR * p.grad
    for p in P:
        if form == "zero_grad":
            p.grad.zero_()
        else:
            p.grad = None


FORMS = {
    "linear": "F.linear, F.relu, F.cross_entropy; p -= lr * p.grad; p.grad = None",
    "matmul": "relu(x @ W.T + b); the rest as linear",
    "log_softmax": "nll_loss(log_softmax(z)) for the loss",
    "zero_grad": "p.add_(p.grad, alpha=-lr); p.grad.zero_() (the gradient kept)",
    "sgd": "optim.SGD: zero_grad(), step()",
    "sgd_momentum": "optim.SGD(momentum=0.9)",
    "adam": "optim.Adam",
}


def _optimizer(M, form, P):
    if form == "sgd":
        return M.optim.SGD(P, lr=LR)
    if form == "sgd_momentum":
        return M.optim.SGD(P, lr=LR, momentum=0.9)
    if form == "adam":
        return M.optim.Adam(P, lr=LR)
    return None


def main(argv=None):
    """Time every form given (all by default) and print one row of ratios each."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--small", action="store_true", help="tiny sizes (a smoke run)")
    ap.add_argument("forms", nargs="*", default=list(FORMS), help=", ".join(FORMS))
    args = ap.parse_args(argv)
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    cfg = ({"batch": 6, "sizes": (12, 8, 8, 5)} if args.small
           else {"batch": 256, "sizes": (784, 512, 512, 10)})
    P, X, y = mlp_data(cfg)
    nP = [p.copy() for p in P]
    for form in args.forms:
        engines = [Engine("numpy", lambda: mlp_step_numpy(nP, X, y, LR))]
        for M in (vg, torch):
            if M is None:
                continue
            mP = [M.tensor(p.copy(), requires_grad=True) for p in P]
            mX, my = M.tensor(X), M.tensor(y)
            opt = _optimizer(M, form, mP)
            engines.append(Engine(M.__name__, lambda M=M, mP=mP, mX=mX, my=my, opt=opt:
                                  _step(M, form, mP, mX, my, opt)))
        r = measure(engines, args.rounds, [("viewgrad", "numpy"), ("viewgrad", "torch"),
                                           ("torch", "numpy")])
        print(f"{form:13s} " + "  ".join(f"{k} {v['median']:.3f}"
                                          for k, v in r["ratios"].items())
              + f"   ({FORMS[form]})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
