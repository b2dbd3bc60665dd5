# nn.TransformerEncoder classifier with src_key_padding_mask and masked mean pooling.
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
V, D, L = 20, 8, 6


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D, padding_idx=0)
        self.pos = nn.Parameter(torch.zeros(1, L, D))
        layer = nn.TransformerEncoderLayer(d_model=D, nhead=2, dim_feedforward=16,
                                           dropout=0.0, batch_first=True, norm_first=True,
                                           activation="gelu")
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(D, 3)

    def forward(self, tokens):
        pad = tokens == 0
        h = self.encoder(self.emb(tokens) + self.pos, src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).float()
        pooled = (h * keep).sum(1) / keep.sum(1).clamp(min=1)
        return self.head(pooled), h


model = Classifier()
with torch.no_grad():
    for n, p in model.named_parameters():
        if True:
            p.copy_(torch.tensor(rng.normal(0, 0.3, tuple(p.shape)), dtype=torch.float32))
tokens = torch.tensor(rng.integers(1, V, (4, L)))
tokens[0, 4:] = 0
tokens[2, 2:] = 0
labels = torch.tensor([0, 2, 1, 2])
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
losses = []
for _ in range(3):
    logits, _ = model(tokens)
    loss = nn.functional.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
model.eval()
with torch.no_grad():
    logits, h = model(tokens)
RESULTS = {"losses": losses, "logits": logits, "h_valid": h[0, :4], "h_row2": h[2, :2],
           "n_layers": len(model.encoder.layers),
           "param_names": [n for n, _ in model.named_parameters()][:12]}
TOL = 1e-3
