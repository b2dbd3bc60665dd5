# Gradients accumulate across backward calls until zeroed; micro-batches sum to the batch.
import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(SEED)
model = nn.Linear(3, 2)
with torch.no_grad():
    model.weight.copy_(torch.tensor(rng.standard_normal((2, 3)), dtype=torch.float32))
    model.bias.zero_()
X = torch.tensor(rng.standard_normal((8, 3)), dtype=torch.float32)
Y = torch.tensor(rng.standard_normal((8, 2)), dtype=torch.float32)
loss_fn = nn.MSELoss(reduction="sum")
for i in range(0, 8, 2):
    loss_fn(model(X[i:i + 2]), Y[i:i + 2]).backward()
acc = model.weight.grad.clone()
model.zero_grad()
loss_fn(model(X), Y).backward()
RESULTS = {"acc": acc, "full": model.weight.grad, "bias": model.bias.grad}
