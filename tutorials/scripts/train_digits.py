"""Train a small CNN on scikit-learn's bundled handwritten digits (8x8 images, 10 classes,
1797 samples, shipped inside the package: no download) and report test accuracy.

    pip install 'viewgrad[digits]'          # the optional extra: scikit-learn
    python tutorials/scripts/train_digits.py [--epochs 10] [--seed 0] [--save model.npz]

Everything a PyTorch user expects is here, in viewgrad: ``nn.Sequential`` of Conv2d,
BatchNorm2d, ReLU, MaxPool2d, Flatten, Dropout and Linear; ``CrossEntropyLoss``; ``Adam``;
``model.train()`` / ``model.eval()``; ``no_grad`` for evaluation; ``model.save`` to an .npz.
Without scikit-learn the script says so and exits without error.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import viewgrad as vg
from viewgrad import nn, optim


def load_digits_split(seed=0, test_fraction=0.2):
    """(x_train, y_train, x_test, y_test) as viewgrad tensors; pixels scaled to [0, 1]."""
    from sklearn.datasets import load_digits
    d = load_digits()
    x = (d.images / 16.0).astype(np.float32)[:, None]  # (N, 1, 8, 8)
    y = d.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    n_test = int(len(y) * test_fraction)
    te, tr = order[:n_test], order[n_test:]
    return vg.tensor(x[tr]), vg.tensor(y[tr]), vg.tensor(x[te]), vg.tensor(y[te])


def make_model():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),  # 4x4
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),  # 2x2
        nn.Flatten(), nn.Dropout(0.2), nn.Linear(32 * 2 * 2, 10))


def accuracy(model, x, y):
    model.eval()
    with vg.no_grad():
        acc = float((model(x).argmax(1) == y).float().mean())
    model.train()
    return acc


def train(epochs=10, seed=0, batch_size=64, lr=0.01, log=print):
    """Train and return (test accuracy, model)."""
    xtr, ytr, xte, yte = load_digits_split(seed)
    vg.manual_seed(seed)
    model = make_model()
    opt = optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    rng = np.random.default_rng(seed)
    n = len(ytr)
    for epoch in range(epochs):
        t0 = time.perf_counter()
        order = vg.tensor(rng.permutation(n))
        total = 0.0
        for i in range(0, n, batch_size):
            idx = order[i:i + batch_size]
            opt.zero_grad()
            loss = loss_fn(model(xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
            total += float(loss) * len(idx)
        log(f"epoch {epoch + 1:2d}  loss {total / n:.4f}  test accuracy "
            f"{accuracy(model, xte, yte):.4f}  ({time.perf_counter() - t0:.1f} s)")
    return accuracy(model, xte, yte), model


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", metavar="FILE.npz", help="save the trained weights")
    args = ap.parse_args(argv)
    try:
        import sklearn  # noqa: F401
    except ImportError:
        print("train_digits: scikit-learn is not installed, so the digits data set is not "
              "available; install the extra with  pip install 'viewgrad[digits]'  "
              "(skipping).", file=sys.stderr)
        return 0
    acc, model = train(args.epochs, args.seed)
    print(f"final test accuracy: {acc:.4f} ({int(round(acc * 359))}/359 digits)")
    if args.save:
        model.save(args.save)
        print(f"weights saved to {args.save}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
