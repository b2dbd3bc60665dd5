# One WGAN-GP step: the critic's gradient penalty differentiates through autograd.grad.
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)


def init_(model):
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.normal(0, 0.3, tuple(p.shape)), dtype=torch.float32))


G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
init_(G)
init_(D)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
real = torch.tensor(rng.normal(1, 0.5, (16, 2)), dtype=torch.float32)
z = torch.tensor(rng.normal(0, 1, (16, 4)), dtype=torch.float32)
alpha = torch.tensor(rng.uniform(0, 1, (16, 1)), dtype=torch.float32)

for step in range(3):
    fake = G(z).detach()
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d_interp = D(interp)
    grads = torch.autograd.grad(outputs=d_interp, inputs=interp,
                                grad_outputs=torch.ones_like(d_interp),
                                create_graph=True, retain_graph=True)[0]
    gp = ((grads.pow(2).sum(dim=1).sqrt() - 1) ** 2).mean()
    d_loss = D(fake).mean() - D(real).mean() + 10 * gp
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = -D(G(z)).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()

RESULTS = {"gp": gp.item(), "d_loss": d_loss.item(), "g_loss": g_loss.item(),
           "D0": D[0].weight, "G2": G[2].bias}
