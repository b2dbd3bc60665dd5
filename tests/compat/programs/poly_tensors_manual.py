# "Learning PyTorch with examples": a cubic fit with tensors and a hand-written backward.
import numpy as np
import torch

rng = np.random.default_rng(SEED)
dtype = torch.float
x = torch.linspace(-3.14159, 3.14159, 200, dtype=dtype)
y = torch.tensor(np.sin(np.linspace(-3.14159, 3.14159, 200)), dtype=dtype)

a, b, c, d = (torch.tensor(rng.standard_normal(), dtype=dtype) for _ in range(4))
learning_rate = 1e-6
losses = []
for t in range(300):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    if t % 100 == 99:
        losses.append(loss)
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d

TOL = 1e-3
RESULTS = {"losses": losses, "coef": [a.item(), b.item(), c.item(), d.item()]}
