# "Learning PyTorch with examples": nn.Sequential fitted with torch.optim.RMSprop.
import math
import numpy as np
import torch

rng = np.random.default_rng(SEED)
x = torch.linspace(-math.pi, math.pi, 200)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
with torch.no_grad():
    model[0].weight.copy_(torch.tensor(rng.uniform(-0.5, 0.5, (1, 3)), dtype=torch.float32))
    model[0].bias.zero_()
loss_fn = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for t in range(200):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

TOL = 1e-3
RESULTS = {"loss": loss.item(), "w": model[0].weight, "b": model[0].bias}
