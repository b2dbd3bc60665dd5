# The "warm-up" two-layer net with tensors and a manual backward (mm, clamp, t()).
import numpy as np
import torch

rng = np.random.default_rng(SEED)
N, D_in, H, D_out = 16, 10, 8, 3
x = torch.tensor(rng.standard_normal((N, D_in)), dtype=torch.float32)
y = torch.tensor(rng.standard_normal((N, D_out)), dtype=torch.float32)
w1 = torch.tensor(rng.standard_normal((D_in, H)), dtype=torch.float32)
w2 = torch.tensor(rng.standard_normal((H, D_out)), dtype=torch.float32)
learning_rate = 1e-4
for t in range(50):
    h = x.mm(w1)
    h_relu = h.clamp(min=0)
    y_pred = h_relu.mm(w2)
    loss = (y_pred - y).pow(2).sum().item()
    grad_y_pred = 2.0 * (y_pred - y)
    grad_w2 = h_relu.t().mm(grad_y_pred)
    grad_h_relu = grad_y_pred.mm(w2.t())
    grad_h = grad_h_relu.clone()
    grad_h[h < 0] = 0
    grad_w1 = x.t().mm(grad_h)
    w1 -= learning_rate * grad_w1
    w2 -= learning_rate * grad_w2

TOL = 1e-3
RESULTS = {"loss": loss, "w2": w2}
