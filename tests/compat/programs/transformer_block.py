# A pre-norm transformer block: LayerNorm, single-head attention with a causal mask,
# GELU MLP, residuals; one backward and an AdamW step.
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)
T, D = 5, 8


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(D)
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)
        self.ln2 = nn.LayerNorm(D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D),
                                 nn.Dropout(0.0))

    def forward(self, x):
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=-1)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(D)
        mask = torch.ones(T, T).tril() if hasattr(torch.ones(1), "tril") else None
        if mask is None:
            mask = torch.tensor(np.tril(np.ones((T, T))), dtype=torch.float32)
        att = att.masked_fill(mask == 0, float("-inf"))
        x = x + self.proj(F.softmax(att, dim=-1) @ v)
        return x + self.mlp(self.ln2(x))


blk = Block()
with torch.no_grad():
    for p in blk.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.3, tuple(p.shape)), dtype=torch.float32))
x = torch.tensor(rng.standard_normal((2, T, D)), dtype=torch.float32)
opt = torch.optim.AdamW(blk.parameters(), lr=1e-2)
out = blk(x)
loss = out.pow(2).mean()
loss.backward()
opt.step()
RESULTS = {"out": out, "loss": loss.item(), "qkv_grad": blk.qkv.weight.grad,
           "ln_after": blk.ln1.weight}
