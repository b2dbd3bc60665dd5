"""Two of issue 19's workloads written the ways PyTorch users write them, each timed
against the same code under torch (and the MLP step against ``mlp_step_numpy``): a form
that leaves the lean paths shows here as a viewgrad/torch ratio well above the others.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONPATH=. .venv/bin/python -m bench.forms

Not the issue's targets (their steps are ``workloads.mlp_step_autograd`` and
``workloads.inplace_autograd``). What it found, and fixed (bench/README.md, twenty-sixth
pass): ``x @ W.t() + b`` at 1.18x torch (MmBackward0 made the weight's gradient row-major,
so AccumulateGrad copied it every step: Note [a matrix gradient in its matrix's layout],
viewgrad/ops/linalg.py); ``b[i] *= w`` at 6.9x torch (the regenerated AsStridedBackward0
built index arrays of the whole base per row: Note [as_strided's backward],
viewgrad/ops/views.py); ``b[i:i + 2].mul_(w)`` at 1.1x and ``b.narrow(0, i, 1).mul_(w)``
at 1.4x torch (an operand broadcast to the view left the lean in-place path).
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402

import viewgrad as vg  # noqa: E402

from bench.harness import Engine, measure  # noqa: E402
from bench.workloads import inplace_data, mlp_data, mlp_step_numpy  # noqa: E402

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


MLP_FORMS = {
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


# -- the view + in-place loop ---------------------------------------------------------------

def _rows(b, w, form):
    n = b.shape[0]
    if form == "rows_augmented":
        for i in range(n):
            b[i] *= w
            b[i] += 0.5
    elif form == "rows_chained":
        for i in range(n):
            b[i].mul_(w).add_(0.5)
    elif form == "rows_select":
        for i in range(n):
            r = b.select(0, i)
            r.mul_(w)
            r.add_(0.5)
    elif form == "rows_narrow":
        for i in range(n):
            r = b.narrow(0, i, 1)
            r.mul_(w)
            r.add_(0.5)
    elif form == "rows_slices":
        for i in range(0, n, 2):
            r = b[i:i + 2]
            r.mul_(w)
            r.add_(0.5)
    else:   # rows_columns
        for i in range(b.shape[1]):
            r = b[:, i]
            r.mul_(w)
            r.add_(0.5)


def _row_step(x, w, form):
    x.grad = None
    w.grad = None
    b = x.clone()
    _rows(b, w, form)
    b.sum().backward()


ROW_FORMS = {
    "rows_augmented": "b[i] *= w; b[i] += 0.5 (getitem, in place, setitem)",
    "rows_chained": "b[i].mul_(w).add_(0.5)",
    "rows_select": "r = b.select(0, i); r.mul_(w); r.add_(0.5)",
    "rows_narrow": "b.narrow(0, i, 1) written with w broadcast",
    "rows_slices": "b[i:i + 2] written with w broadcast",
    "rows_columns": "b[:, i] (strided views)",
}
FORMS = {**MLP_FORMS, **ROW_FORMS}


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
    libs = [M for M in (vg, torch) if M is not None]
    cfg = ({"batch": 6, "sizes": (12, 8, 8, 5)} if args.small
           else {"batch": 256, "sizes": (784, 512, 512, 10)})
    P, X, y = mlp_data(cfg)
    nP = [p.copy() for p in P]
    rows = inplace_data({"rows": 8 if args.small else 256, "width": 8 if args.small else 256})
    for form in args.forms:
        if form in ROW_FORMS:
            engines = []
            for M in libs:
                x, w = (M.tensor(a, requires_grad=True) for a in rows)
                engines.append(Engine(M.__name__, lambda x=x, w=w: _row_step(x, w, form)))
            pairs = [("viewgrad", "torch")]
        else:
            engines = [Engine("numpy", lambda: mlp_step_numpy(nP, X, y, LR))]
            for M in libs:
                mP = [M.tensor(p.copy(), requires_grad=True) for p in P]
                mX, my = M.tensor(X), M.tensor(y)
                opt = _optimizer(M, form, mP)
                engines.append(Engine(M.__name__, lambda M=M, mP=mP, mX=mX, my=my, opt=opt:
                                      _step(M, form, mP, mX, my, opt)))
            pairs = [("viewgrad", "numpy"), ("viewgrad", "torch"), ("torch", "numpy")]
        r = measure(engines, args.rounds, pairs)
        print(f"{form:15s} " + "  ".join(f"{k} {v['median']:.3f}"
                                          for k, v in r["ratios"].items())
              + f"   ({FORMS[form]})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
