# Logistic regression with BCEWithLogitsLoss (pos_weight), then BCELoss on sigmoid outputs.
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
X = torch.tensor(rng.standard_normal((40, 3)), dtype=torch.float32)
y = torch.tensor((rng.standard_normal(40) > 0.3).astype(np.float32)).unsqueeze(1)
model = nn.Linear(3, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor(rng.standard_normal((1, 3)), dtype=torch.float32))
    model.bias.zero_()
crit = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))
opt = torch.optim.Adam(model.parameters(), lr=0.1)
for _ in range(15):
    opt.zero_grad()
    loss = crit(model(X), y)
    loss.backward()
    opt.step()
with torch.no_grad():
    prob = torch.sigmoid(model(X))
    acc = ((prob > 0.5).float() == y).float().mean()
    bce = nn.BCELoss()(prob, y)

TOL = 1e-3
RESULTS = {"loss": loss.item(), "acc": acc.item(), "bce": bce.item(), "w": model.weight}
