# A nanoGPT-style model: token + position embeddings, blocks of causal self-attention via
# F.scaled_dot_product_attention(is_causal=True) and a GELU MLP, weight tying, AdamW with
# decay / no-decay parameter groups, a cosine learning-rate schedule by hand, gradient
# clipping; plus an nn.TransformerEncoderLayer(norm_first, batch_first) stack trained beside.
import math
import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F

rng = np.random.default_rng(SEED)
V, T, C, H, L = 11, 6, 8, 2, 2


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(C, 3 * C)
        self.c_proj = nn.Linear(C, C)

    def forward(self, x):
        B, T_, C_ = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T_, H, C_ // H).transpose(1, 2)
        q = q.view(B, T_, H, C_ // H).transpose(1, 2)
        v = v.view(B, T_, H, C_ // H).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0,
                                           is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T_, C_)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(C)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(C)
        self.mlp = nn.Sequential(nn.Linear(C, 4 * C), nn.GELU(), nn.Linear(4 * C, C))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(V, C), wpe=nn.Embedding(T, C),
            h=nn.ModuleList([Block() for _ in range(L)]), ln_f=nn.LayerNorm(C)))
        self.lm_head = nn.Linear(C, V, bias=False)
        self.transformer.wte.weight = self.lm_head.weight   # weight tying

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss


model = GPT()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.2, tuple(p.shape)), dtype=torch.float32))
param_dict = {pn: p for pn, p in model.named_parameters() if p.requires_grad}
decay = [p for n, p in param_dict.items() if p.dim() >= 2]
nodecay = [p for n, p in param_dict.items() if p.dim() < 2]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                         {"params": nodecay, "weight_decay": 0.0}], lr=3e-3, betas=(0.9, 0.95))

enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(C, H, 16, dropout=0.0, batch_first=True,
                                                       norm_first=True, activation="gelu"),
                            num_layers=2, enable_nested_tensor=False)
with torch.no_grad():
    for p in enc.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.2, tuple(p.shape)), dtype=torch.float32))
opt2 = torch.optim.Adam(enc.parameters(), lr=1e-2)
mask = nn.Transformer.generate_square_subsequent_mask(T)


def get_lr(it, warmup=2, max_iters=6, lr=3e-3, min_lr=3e-4):
    if it < warmup:
        return lr * (it + 1) / (warmup + 1)
    ratio = (it - warmup) / (max_iters - warmup)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (lr - min_lr)


data = rng.integers(0, V, (6, 4, T + 1))
losses, enc_losses = [], []
for it in range(6):
    for g in opt.param_groups:
        g["lr"] = get_lr(it)
    xb = torch.tensor(data[it, :, :T])
    yb = torch.tensor(data[it, :, 1:])
    logits, loss = model(xb, yb)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    losses.append(loss.item())
    h = enc(model.transformer.wte(xb).detach(), mask=mask, is_causal=True)
    enc_loss = h.pow(2).mean()
    opt2.zero_grad()
    enc_loss.backward()
    opt2.step()
    enc_losses.append(enc_loss.item())
model.eval()
with torch.no_grad():
    logits, _ = model(torch.tensor(data[0, :1, :T]), torch.tensor(data[0, :1, 1:]))
TOL = 2e-4
RESULTS = {"losses": losses, "enc_losses": enc_losses, "last_logits": logits[:, -1, :],
           "lm_head": model.lm_head.weight, "n_params": sum(p.numel() for p in model.parameters()),
           "enc_repr": repr(enc)}
