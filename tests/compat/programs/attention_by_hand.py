# Scaled dot-product attention written by hand: causal + padding masks with masked_fill(-inf).
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)
B, T, C, H = 2, 5, 8, 2


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        assert d_model % n_heads == 0
        self.d_k = d_model // n_heads
        self.h = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.register_buffer("causal", torch.tril(torch.ones(T, T)).view(1, 1, T, T))

    def forward(self, x, pad_mask=None):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q = q.view(b, t, self.h, self.d_k).transpose(1, 2)
        k = k.view(b, t, self.h, self.d_k).transpose(1, 2)
        v = v.view(b, t, self.h, self.d_k).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.causal[:, :, :t, :t] == 0, float('-inf'))
        if pad_mask is not None:
            att = att.masked_fill(pad_mask[:, None, None, :], float('-inf'))
        att = F.softmax(att, dim=-1)
        att = torch.nan_to_num(att)          # rows that are fully masked
        self.last_att = att
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(b, t, c)
        return self.proj(y)


attn = MultiHeadSelfAttention(C, H)
with torch.no_grad():
    for p in attn.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.5, tuple(p.shape))).float())
x = torch.from_numpy(rng.standard_normal((B, T, C))).float().requires_grad_(True)
pad = torch.tensor([[False, False, False, True, True], [True, False, False, False, False]])
y = attn(x, pad)
loss = y.square().sum()
loss.backward()

# the same thing with the built-in kernel
q = torch.from_numpy(rng.standard_normal((B, H, T, 4))).float().requires_grad_()
k = torch.from_numpy(rng.standard_normal((B, H, T, 4))).float()
v = torch.from_numpy(rng.standard_normal((B, H, T, 4))).float()
sdpa = F.scaled_dot_product_attention(q, k, v, is_causal=True)
manual = torch.softmax((q @ k.transpose(-1, -2)) / 2.0 +
                       torch.triu(torch.full((T, T), float("-inf")), diagonal=1), -1) @ v
sdpa.sum().backward()
RESULTS = {"y": y, "xgrad": x.grad, "att": attn.last_att, "qkv_grad": attn.qkv.weight.grad,
           "sdpa": sdpa, "manual_close": torch.allclose(sdpa, manual, atol=1e-5),
           "qgrad": q.grad, "inf_row": F.softmax(torch.tensor([float('-inf')] * 3), 0)}
