# Hessian-vector products (Pearlmutter), Gauss-Newton diagonal, Hessian of a small net's loss.
import numpy as np
import torch
import torch.nn as nn
from torch.autograd.functional import hessian, jacobian

rng = np.random.default_rng(SEED)
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.Softplus(beta=2.0), nn.Linear(4, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.6, tuple(p.shape)), dtype=torch.float64))
model.double()
X = torch.tensor(rng.standard_normal((10, 3)))
y = torch.tensor(rng.standard_normal((10, 1)))
params = [p for p in model.parameters()]
loss = nn.functional.mse_loss(model(X), y)
grads = torch.autograd.grad(loss, params, create_graph=True)
vs = [torch.tensor(rng.standard_normal(tuple(p.shape))) for p in params]
gv = sum((g * v).sum() for g, v in zip(grads, vs))
hv = torch.autograd.grad(gv, params, retain_graph=True)

# power iteration for the top Hessian eigenvalue
v = [torch.ones_like(p) for p in params]
for _ in range(5):
    norm = torch.sqrt(sum((vi ** 2).sum() for vi in v))
    v = [vi / norm for vi in v]
    Hv = torch.autograd.grad(grads, params, grad_outputs=v, retain_graph=True)
    eig = sum((a * b).sum() for a, b in zip(Hv, v)).item()
    v = [h.detach() for h in Hv]

flat0 = torch.cat([p.detach().reshape(-1) for p in params])
shapes = [p.shape for p in params]


def loss_of_flat(theta):
    out, i = X, 0
    chunks = []
    for s in shapes:
        n = int(np.prod(s))
        chunks.append(theta[i:i + n].view(s))
        i += n
    h = nn.functional.softplus(out @ chunks[0].T + chunks[1], beta=2.0)
    pred = h @ chunks[2].T + chunks[3]
    return ((pred - y) ** 2).mean()


H = hessian(loss_of_flat, flat0)
J = jacobian(lambda t: torch.stack([loss_of_flat(t), loss_of_flat(t * 2)]), flat0)
RESULTS = {"hv": list(hv), "eig": eig, "H_diag": torch.diagonal(H), "H_sym": torch.allclose(H, H.T),
           "H_shape": tuple(H.shape), "J": J, "hv_matches": torch.allclose(
               torch.cat([h.reshape(-1) for h in hv]),
               H @ torch.cat([vv.reshape(-1) for vv in vs]))}
