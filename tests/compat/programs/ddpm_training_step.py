# DDPM (Ho et al. 2020) training and sampling steps: linear beta schedule, alphas_cumprod gathered by
# timestep, sinusoidal time embeddings, a small noise-prediction MLP; noise drawn from rng.
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)
T = 50
betas = torch.linspace(1e-4, 0.02, T)
alphas = 1.0 - betas
alphas_cumprod = torch.cumprod(alphas, dim=0)
alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
sqrt_recip_alphas = torch.sqrt(1.0 / alphas)
posterior_variance = betas * (1.0 - alphas_cumprod_prev) / (1.0 - alphas_cumprod)


def extract(a, t, x_shape):
    batch_size = t.shape[0]
    out = a.gather(-1, t.cpu())
    return out.reshape(batch_size, *((1,) * (len(x_shape) - 1))).to(t.device)


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / half)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class Denoiser(nn.Module):
    def __init__(self, d=4, h=16, temb=8):
        super().__init__()
        self.temb = temb
        self.time_mlp = nn.Sequential(nn.Linear(temb, h), nn.SiLU(), nn.Linear(h, h))
        self.inp = nn.Linear(d, h)
        self.out = nn.Sequential(nn.SiLU(), nn.Linear(h, h), nn.Mish(), nn.Linear(h, d))

    def forward(self, x, t):
        return self.out(self.inp(x) + self.time_mlp(timestep_embedding(t, self.temb)))


model = Denoiser()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.3, tuple(p.shape)), dtype=torch.float32))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x0 = torch.tensor(rng.standard_normal((8, 4)), dtype=torch.float32)
losses = []
for step in range(4):
    t = torch.tensor(rng.integers(0, T, 8))
    noise = torch.tensor(rng.standard_normal((8, 4)), dtype=torch.float32)
    x_t = extract(alphas_cumprod.sqrt(), t, x0.shape) * x0 + extract((1 - alphas_cumprod).sqrt(), t, x0.shape) * noise
    loss = F.mse_loss(model(x_t, t), noise)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())


@torch.no_grad()
def p_sample(x, t_index):
    t = torch.full((x.shape[0],), t_index, dtype=torch.long)
    betas_t = extract(betas, t, x.shape)
    sqrt_one_minus = extract(torch.sqrt(1. - alphas_cumprod), t, x.shape)
    mean = extract(sqrt_recip_alphas, t, x.shape) * (x - betas_t * model(x, t) / sqrt_one_minus)
    if t_index == 0:
        return mean
    z = torch.tensor(rng.standard_normal(x.shape), dtype=torch.float32)
    return mean + torch.sqrt(extract(posterior_variance, t, x.shape)) * z


x = torch.tensor(rng.standard_normal((2, 4)), dtype=torch.float32)
for i in reversed(range(0, 5)):
    x = p_sample(x, i)
RESULTS = {"losses": losses, "sample": x, "acp": alphas_cumprod[[0, 10, 49]],
           "post_var": posterior_variance[:3], "emb": timestep_embedding(torch.tensor([0, 7]), 8)}
TOL = 1e-3
