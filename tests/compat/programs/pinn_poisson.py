# Physics-informed NN for u'' = -pi^2 sin(pi x) on [0,1], u(0)=u(1)=0: derivatives by autograd.grad.
import math
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
torch.set_default_dtype(torch.float64)


class PINN(nn.Module):
    def __init__(self, width=10):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, width), nn.Tanh(), nn.Linear(width, width),
                                 nn.Tanh(), nn.Linear(width, 1))

    def forward(self, x):
        return self.net(x)


model = PINN()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.7, tuple(p.shape))))


def residual(model, x):
    x = x.clone().requires_grad_(True)
    u = model(x)
    du = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0]
    d2u = torch.autograd.grad(du.sum(), x, create_graph=True)[0]
    f = -(math.pi ** 2) * torch.sin(math.pi * x)
    return d2u - f, du


x_col = torch.tensor(rng.uniform(0, 1, (16, 1)))
x_bc = torch.tensor([[0.0], [1.0]])
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
history = []
for epoch in range(8):
    opt.zero_grad()
    r, du = residual(model, x_col)
    loss_pde = (r ** 2).mean()
    loss_bc = model(x_bc).pow(2).mean()
    loss = loss_pde + 10.0 * loss_bc
    loss.backward()
    opt.step()
    history.append([loss_pde.item(), loss_bc.item()])
xs = torch.linspace(0, 1, 5).unsqueeze(1)
with torch.no_grad():
    pred = model(xs)
r, du = residual(model, xs)
dtype_default = torch.get_default_dtype() == torch.float64
torch.set_default_dtype(torch.float32)
RESULTS = {"history": history, "pred": pred, "residual": r, "du": du, "pred_dtype64": dtype_default,
           "grad_last": model.net[4].weight.grad, "after_reset": torch.zeros(1).dtype == torch.float32}
