# The nn.Transformer tutorial shape: token embeddings scaled by sqrt(d_model) plus a
# sinusoidal PositionalEncoding buffer, nn.Transformer (batch_first) with a causal target
# mask and key-padding masks, a generator Linear, CrossEntropyLoss(ignore_index=PAD), Adam;
# then greedy decoding in eval mode under no_grad.
import math
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
V, D, PAD, BOS = 12, 8, 0, 1


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=32):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(1, max_len, d_model)
        pe[0, :, 0::2] = torch.sin(position * div_term)
        pe[0, :, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[:, :x.size(1)]


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb, self.tgt_emb = nn.Embedding(V, D), nn.Embedding(V, D)
        self.pos = PositionalEncoding(D)
        self.transformer = nn.Transformer(D, nhead=2, num_encoder_layers=2,
                                          num_decoder_layers=1, dim_feedforward=16,
                                          dropout=0.0, batch_first=True)
        self.generator = nn.Linear(D, V)

    def forward(self, src, tgt):
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
        s = self.pos(self.src_emb(src) * math.sqrt(D))
        t = self.pos(self.tgt_emb(tgt) * math.sqrt(D))
        out = self.transformer(s, t, tgt_mask=tgt_mask, src_key_padding_mask=(src == PAD),
                               tgt_key_padding_mask=(tgt == PAD),
                               memory_key_padding_mask=(src == PAD))
        return self.generator(out)


model = Seq2Seq()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.3, tuple(p.shape)), dtype=torch.float32))
src = torch.tensor(rng.integers(2, V, (3, 6)))
src[1, 4:] = PAD
tgt = torch.tensor(rng.integers(2, V, (3, 5)))
tgt[:, 0] = BOS
tgt[2, 3:] = PAD
loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
opt = torch.optim.Adam(model.parameters(), lr=5e-3, betas=(0.9, 0.98), eps=1e-9)
losses = []
for step in range(4):
    logits = model(src, tgt[:, :-1])
    loss = loss_fn(logits.reshape(-1, V), tgt[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
model.eval()
with torch.no_grad():
    ys = torch.full((3, 1), BOS, dtype=torch.long)
    for i in range(4):
        nxt = model(src, ys)[:, -1].argmax(-1, keepdim=True)
        ys = torch.cat([ys, nxt], dim=1)
    memory = model.transformer.encoder(model.pos(model.src_emb(src) * math.sqrt(D)),
                                       src_key_padding_mask=(src == PAD))
TOL = 2e-4
RESULTS = {"losses": losses, "decoded": ys, "memory": memory,
           "gen_grad": model.generator.weight.grad}
