# "Learning PyTorch with examples": torch.nn with a Sequential, MSELoss(sum), manual SGD.
import math
import numpy as np
import torch

rng = np.random.default_rng(SEED)
x = torch.linspace(-math.pi, math.pi, 200)
y = torch.tensor(np.sin(np.linspace(-math.pi, math.pi, 200)), dtype=torch.float32)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)

model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
with torch.no_grad():
    model[0].weight.copy_(torch.tensor(rng.uniform(-0.5, 0.5, (1, 3)), dtype=torch.float32))
    model[0].bias.fill_(0.1)
loss_fn = torch.nn.MSELoss(reduction="sum")
learning_rate = 1e-6
for t in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad

linear_layer = model[0]
TOL = 1e-3
RESULTS = {"loss": loss.item(), "w": linear_layer.weight, "b": linear_layer.bias.item(),
           "shape": list(xx.shape)}
