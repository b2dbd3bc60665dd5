"""End to end: a small CNN (conv - batch norm - relu - max pool - linear) learns to tell
four kinds of line (horizontal, vertical, two diagonals) apart in generated 10x10 noisy
images. Stated target: at least 90% accuracy on 256 held-out images after 6 epochs over
512 training images with Adam (it takes about 2 s on one core; chance is 25%)."""
import numpy as np

import viewgrad as vg
from viewgrad import nn, optim


def make_lines(n, size=10, seed=0):
    """n noisy images (n, 1, size, size) with a line of one of four orientations; labels
    0 horizontal, 1 vertical, 2 diagonal, 3 anti-diagonal. Lengths and positions vary."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 0.3, (n, 1, size, size))
    y = rng.integers(0, 4, n)
    for i in range(n):
        r, c = rng.integers(1, size - 1, 2)
        half = rng.integers(2, size // 2 + 1)
        img = np.zeros((size, size))
        if y[i] == 0:
            img[r, max(0, c - half):c + half + 1] = 1
        elif y[i] == 1:
            img[max(0, r - half):r + half + 1, c] = 1
        else:
            img = np.roll(np.eye(size), rng.integers(-2, 3), axis=1)
            if y[i] == 3:
                img = np.fliplr(img)
        x[i, 0] += img
    return vg.tensor(x, dtype=vg.float32), vg.tensor(y)


def test_small_cnn_learns():
    xtr, ytr = make_lines(512, seed=0)
    xte, yte = make_lines(256, seed=1)
    vg.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(8 * 5 * 5, 4))
    opt = optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()

    def accuracy():
        model.eval()
        with vg.no_grad():
            acc = float((model(xte).argmax(1) == yte).float().mean())
        model.train()
        return acc

    before = accuracy()
    losses = []
    for epoch in range(6):
        for i in range(0, 512, 32):
            opt.zero_grad()
            loss = loss_fn(model(xtr[i:i + 32]), ytr[i:i + 32])
            loss.backward()
            opt.step()
            losses.append(float(loss))
    after = accuracy()
    assert np.mean(losses[-16:]) < 0.5 * np.mean(losses[:16])
    assert after >= 0.90, f"accuracy {after:.3f} (before training {before:.3f})"
    assert int(model[1].num_batches_tracked.item()) == 6 * 16
