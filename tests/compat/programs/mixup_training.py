# mixup (Zhang et al. 2018): convex combination of inputs and of the two losses; Beta lam from rng.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)


def mixup_data(x, y, alpha, rng):
    lam = rng.beta(alpha, alpha) if alpha > 0 else 1.0
    index = torch.from_numpy(rng.permutation(x.size(0)))
    mixed_x = lam * x + (1 - lam) * x[index, :]
    return mixed_x, y, y[index], lam


def mixup_criterion(criterion, pred, y_a, y_b, lam):
    return lam * criterion(pred, y_a) + (1 - lam) * criterion(pred, y_b)


net = nn.Sequential(nn.Flatten(), nn.Linear(12, 10), nn.Hardswish(), nn.Linear(10, 3))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.5, tuple(p.shape))))
X = torch.from_numpy(rng.standard_normal((20, 3, 4))).float()
Y = torch.from_numpy(rng.integers(0, 3, 20))
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, dampening=0.1)
crit = nn.CrossEntropyLoss()
train_loss, correct, total = 0, 0, 0
lams = []
for epoch in range(2):
    for i in range(0, 20, 8):
        inputs, targets = X[i:i + 8], Y[i:i + 8]
        inputs, ta, tb, lam = mixup_data(inputs, targets, 0.4, rng)
        lams.append(float(lam))
        outputs = net(inputs)
        loss = mixup_criterion(crit, outputs, ta, tb, lam)
        opt.zero_grad()
        loss.backward()
        opt.step()
        train_loss += loss.item()
        _, predicted = torch.max(outputs.data, 1)
        total += ta.size(0)
        correct += (lam * predicted.eq(ta.data).cpu().sum().float()
                    + (1 - lam) * predicted.eq(tb.data).cpu().sum().float())
RESULTS = {"train_loss": train_loss, "acc": 100. * correct / total, "total": total,
           "correct_type": correct.dtype == torch.float32, "w": net[1].weight, "lams": lams,
           "pred": net(X).argmax(1)}
TOL = 1e-3
