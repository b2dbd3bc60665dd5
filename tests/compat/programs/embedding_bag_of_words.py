# A bag-of-words classifier: Embedding(padding_idx) averaged over tokens, LayerNorm, Linear,
# LogSoftmax + NLLLoss; the padding row gets no gradient.
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
tokens = torch.tensor(rng.integers(1, 10, (4, 6)))
tokens[:, 4:] = 0
labels = torch.tensor(rng.integers(0, 3, 4))
emb = nn.Embedding(10, 5, padding_idx=0)
norm = nn.LayerNorm(5)
head = nn.Linear(5, 3)
with torch.no_grad():
    emb.weight.copy_(torch.tensor(rng.standard_normal((10, 5)), dtype=torch.float32))
    emb.weight[0].zero_()
    head.weight.copy_(torch.tensor(rng.standard_normal((3, 5)), dtype=torch.float32))
    head.bias.zero_()
mask = (tokens != 0).float().unsqueeze(-1)
pooled = (emb(tokens) * mask).sum(1) / mask.sum(1)
logp = nn.LogSoftmax(dim=1)(head(norm(pooled)))
loss = nn.NLLLoss()(logp, labels)
loss.backward()
RESULTS = {"loss": loss.item(), "pad_grad": emb.weight.grad[0], "grad": emb.weight.grad,
           "ln": norm.weight.grad}
