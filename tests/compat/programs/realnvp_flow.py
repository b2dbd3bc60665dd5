# A RealNVP normalizing flow on 2-D data: affine coupling layers with masks, log-det-Jacobian,
# exact log-likelihood under a standard normal base, and sampling by the inverse.
import math
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)


class Coupling(nn.Module):
    def __init__(self, mask, hidden=8):
        super().__init__()
        self.register_buffer("mask", mask)
        self.s = nn.Sequential(nn.Linear(2, hidden), nn.LeakyReLU(), nn.Linear(hidden, 2), nn.Tanh())
        self.t = nn.Sequential(nn.Linear(2, hidden), nn.LeakyReLU(), nn.Linear(hidden, 2))

    def forward(self, x):
        xm = x * self.mask
        s = self.s(xm) * (1 - self.mask)
        t = self.t(xm) * (1 - self.mask)
        y = xm + (1 - self.mask) * (x * torch.exp(s) + t)
        return y, s.sum(dim=1)

    def inverse(self, y):
        ym = y * self.mask
        s = self.s(ym) * (1 - self.mask)
        t = self.t(ym) * (1 - self.mask)
        return ym + (1 - self.mask) * (y - t) * torch.exp(-s)


class Flow(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        masks = [torch.tensor([1.0, 0.0]) if i % 2 == 0 else torch.tensor([0.0, 1.0]) for i in range(n)]
        self.layers = nn.ModuleList(Coupling(m) for m in masks)

    def log_prob(self, x):
        logdet = torch.zeros(x.shape[0])
        for layer in self.layers:
            x, ld = layer(x)
            logdet = logdet + ld
        base = -0.5 * (x ** 2).sum(1) - math.log(2 * math.pi)
        return base + logdet

    def sample(self, z):
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z


flow = Flow()
with torch.no_grad():
    for p in flow.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.3, tuple(p.shape)), dtype=torch.float32))
theta = rng.uniform(0, 2 * np.pi, 32)
data = torch.tensor(np.stack([np.cos(theta), np.sin(theta)], 1) * 2 + rng.normal(0, 0.1, (32, 2)),
                    dtype=torch.float32)
opt = torch.optim.Adam(flow.parameters(), lr=5e-3)
nll = []
for _ in range(5):
    loss = -flow.log_prob(data).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    nll.append(loss.item())
z = torch.tensor(rng.standard_normal((4, 2)), dtype=torch.float32)
with torch.no_grad():
    xs = flow.sample(z)
    back = xs
    for layer in flow.layers:
        back, _ = layer(back)
n_buffers = len(dict(flow.named_buffers()))
RESULTS = {"nll": nll, "samples": xs, "roundtrip": torch.allclose(back, z, atol=1e-5),
           "n_buffers": n_buffers, "sd_len": len(flow.state_dict()),
           "logp": flow.log_prob(data[:3])}
TOL = 1e-3
