# Optimising inputs instead of weights: FGSM and PGD adversarial examples (x.grad.sign(), clamp,
# projection), and neural-style-transfer Gram-matrix losses on an input image optimised by LBFGS.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)
clf = nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(3 * 16, 4))
with torch.no_grad():
    for p in clf.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.4, tuple(p.shape)), dtype=torch.float32))
for p in clf.parameters():
    p.requires_grad = False
x = torch.tensor(rng.uniform(0, 1, (2, 1, 4, 4)), dtype=torch.float32)
y = torch.tensor([1, 3])


def fgsm(model, x, y, eps):
    x = x.clone().detach().requires_grad_(True)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    return torch.clamp(x + eps * x.grad.sign(), 0, 1).detach()


def pgd(model, x, y, eps=0.1, alpha=0.03, steps=5):
    delta = torch.zeros_like(x, requires_grad=True)
    for _ in range(steps):
        loss = nn.CrossEntropyLoss()(model(x + delta), y)
        loss.backward()
        delta.data = (delta + alpha * delta.grad.detach().sign()).clamp(-eps, eps)
        delta.data = (x + delta.data).clamp(0, 1) - x
        delta.grad.zero_()
    return delta.detach()


adv = fgsm(clf, x, y, 0.1)
delta = pgd(clf, x, y)


def gram(f):
    b, c, h, w = f.size()
    feats = f.view(b * c, h * w)
    return torch.mm(feats, feats.t()).div(b * c * h * w)


features = clf[:2]
content = torch.tensor(rng.uniform(0, 1, (1, 1, 4, 4)), dtype=torch.float32)
style = torch.tensor(rng.uniform(0, 1, (1, 1, 4, 4)), dtype=torch.float32)
target_c = features(content).detach()
target_s = gram(features(style)).detach()
img = content.clone().requires_grad_(True)
optimizer = torch.optim.LBFGS([img], lr=0.5, max_iter=5)
run = [0]


def closure():
    with torch.no_grad():
        img.clamp_(0, 1)
    optimizer.zero_grad()
    f = features(img)
    loss = F.mse_loss(f, target_c) + 1e3 * F.mse_loss(gram(f), target_s)
    loss.backward()
    run[0] += 1
    return loss


for _ in range(2):
    last = optimizer.step(closure)
RESULTS = {"adv": adv, "adv_pred": clf(adv).argmax(1), "delta": delta, "delta_max": delta.abs().max().item(),
           "img": img.detach(), "last": last.item(), "runs": run[0], "gram": gram(features(img)),
           "frozen": [p.grad is None for p in clf.parameters()]}
TOL = 1e-3
