# nn.MultiheadAttention with key_padding_mask / attn_mask / averaged weights, and a post-norm
# TransformerEncoder in eval mode under no_grad (PyTorch's nested-tensor fast path zeroes padding).
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
E, H, B, T = 8, 2, 3, 5


def fill(mod, scale=0.3):
    with torch.no_grad():
        for p in mod.parameters():
            p.copy_(torch.tensor(rng.normal(0, scale, tuple(p.shape)), dtype=torch.float32))
    return mod


mha = fill(nn.MultiheadAttention(E, H, batch_first=True))
x = torch.tensor(rng.standard_normal((B, T, E)), dtype=torch.float32, requires_grad=True)
kpm = torch.tensor([[False] * 5, [False, False, False, True, True], [False, True, False, True, False]])
causal = nn.Transformer.generate_square_subsequent_mask(T)
out, w = mha(x, x, x, key_padding_mask=kpm, attn_mask=causal)
out2, w2 = mha(x, x, x, key_padding_mask=kpm, need_weights=True, average_attn_weights=False)
out3, w3 = mha(x, x, x, need_weights=False)
(out.sum() + out2.pow(2).sum()).backward()
bool_causal = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
out4, _ = mha(x, x, x, attn_mask=bool_causal)

kdim = fill(nn.MultiheadAttention(E, H, kdim=3, vdim=4, batch_first=False))
q = torch.tensor(rng.standard_normal((T, B, E)), dtype=torch.float32)
k = torch.tensor(rng.standard_normal((4, B, 3)), dtype=torch.float32)
v = torch.tensor(rng.standard_normal((4, B, 4)), dtype=torch.float32)
o5, w5 = kdim(q, k, v)

layer = nn.TransformerEncoderLayer(E, H, dim_feedforward=16, dropout=0.1, batch_first=True)
enc = fill(nn.TransformerEncoder(layer, num_layers=2))
enc.eval()
src = torch.tensor(rng.standard_normal((B, T, E)), dtype=torch.float32)
with torch.no_grad():
    fast = enc(src, src_key_padding_mask=kpm)
slow = enc(src, src_key_padding_mask=kpm)
RESULTS = {"out": out, "w": w, "w2": w2, "w3": w3, "xgrad": x.grad, "out4": out4,
           "causal": causal, "o5": o5, "w5": w5, "fast": fast, "slow_valid": slow[1, :3],
           "fast_pad": fast[1, 3:], "in_proj_grad": mha.in_proj_weight.grad,
           "names": [n for n, _ in kdim.named_parameters()]}
