# "Learning PyTorch with examples": the cubic fit with autograd and a manual update.
import math
import numpy as np
import torch

rng = np.random.default_rng(SEED)
x = torch.linspace(-math.pi, math.pi, 200)
y = torch.tensor(np.sin(np.linspace(-math.pi, math.pi, 200)), dtype=torch.float32)
a, b, c, d = (torch.tensor(rng.standard_normal(), dtype=torch.float32, requires_grad=True)
              for _ in range(4))
learning_rate = 1e-6
for t in range(300):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad.zero_()
        d.grad.zero_()

TOL = 1e-3
RESULTS = {"loss": loss.item(), "coef": [a.item(), b.item(), c.item(), d.item()],
           "grad_fn": type(loss.grad_fn).__name__ if False else loss.grad_fn.name()}
