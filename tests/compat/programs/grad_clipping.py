# clip_grad_norm_ before each step of an exploding-gradient regression; the returned norms.
import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(SEED)
model = nn.Linear(5, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor(rng.standard_normal((1, 5)) * 3, dtype=torch.float32))
    model.bias.fill_(1.0)
X = torch.tensor(rng.standard_normal((10, 5)) * 10, dtype=torch.float32)
Y = torch.tensor(rng.standard_normal((10, 1)), dtype=torch.float32)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
norms = []
for _ in range(5):
    opt.zero_grad()
    loss = ((model(X) - Y) ** 2).mean()
    loss.backward()
    norms.append(float(nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)))
    opt.step()
nn.utils.clip_grad_value_(model.parameters(), 0.05)
TOL = 1e-3
RESULTS = {"norms": norms, "w": model.weight, "g": model.weight.grad}
