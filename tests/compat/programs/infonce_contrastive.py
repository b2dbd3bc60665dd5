# SimCLR NT-Xent / InfoNCE contrastive loss, with a learnable temperature (CLIP style).
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)


def nt_xent(z1, z2, temperature=0.5):
    n = z1.shape[0]
    z = F.normalize(torch.cat([z1, z2], dim=0), dim=1)
    sim = z @ z.T / temperature
    sim.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


def clip_loss(img, txt, logit_scale):
    img = img / img.norm(dim=-1, keepdim=True)
    txt = txt / txt.norm(dim=-1, keepdim=True)
    logits_per_image = logit_scale.exp() * img @ txt.t()
    logits_per_text = logits_per_image.t()
    labels = torch.arange(img.shape[0])
    return (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)) / 2


proj = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 4))
with torch.no_grad():
    for p in proj.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.5, tuple(p.shape)), dtype=torch.float32))
logit_scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))
x = torch.tensor(rng.standard_normal((6, 5)), dtype=torch.float32)
aug1 = x + 0.1 * torch.tensor(rng.standard_normal((6, 5)), dtype=torch.float32)
aug2 = x + 0.1 * torch.tensor(rng.standard_normal((6, 5)), dtype=torch.float32)
opt = torch.optim.Adam(list(proj.parameters()) + [logit_scale], lr=0.01)
hist = []
for _ in range(4):
    z1, z2 = proj(aug1), proj(aug2)
    loss = nt_xent(z1, z2, 0.2) + clip_loss(z1, z2, logit_scale)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        logit_scale.clamp_(0, 4.6052)
    hist.append(loss.item())
cos = F.cosine_similarity(proj(aug1), proj(aug2), dim=1)
RESULTS = {"hist": hist, "scale": logit_scale.item(), "scale_grad": logit_scale.grad,
           "cos": cos, "pairwise": F.pairwise_distance(z1, z2, p=2.0, eps=1e-6)}
TOL = 1e-3
