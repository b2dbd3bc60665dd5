# A two-layer MLP classifier with CrossEntropyLoss and Adam, a few full-batch steps.
import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(SEED)
X = torch.tensor(rng.standard_normal((64, 5)), dtype=torch.float32)
y = torch.tensor(rng.integers(0, 3, 64))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(5, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = MLP()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.4, tuple(p.shape)), dtype=torch.float32))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
losses = []
for epoch in range(20):
    opt.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
with torch.no_grad():
    acc = (model(X).argmax(dim=1) == y).float().mean().item()

TOL = 1e-3
RESULTS = {"losses": losses, "acc": acc, "fc2": model.fc2.weight}
