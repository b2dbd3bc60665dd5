# Kim (2014)-style TextCNN: Embedding -> several Conv1d widths -> max-over-time -> Linear.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)
VOCAB, EMB, PAD = 30, 8, 0


class TextCNN(nn.Module):
    def __init__(self, n_filters=5, widths=(2, 3, 4), n_classes=3, dropout=0.5):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMB, padding_idx=PAD)
        self.convs = nn.ModuleList([nn.Conv1d(EMB, n_filters, k) for k in widths])
        self.dropout = nn.Dropout(dropout)
        self.fc = nn.Linear(n_filters * len(widths), n_classes)

    def forward(self, tokens):
        emb = self.embedding(tokens).permute(0, 2, 1)          # (B, E, T)
        pooled = [F.relu(conv(emb)).max(dim=2)[0] for conv in self.convs]
        cat = self.dropout(torch.cat(pooled, dim=1))
        return self.fc(cat)


model = TextCNN()
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape)).astype("float32")))
    model.embedding.weight[PAD].fill_(0)

tokens = torch.from_numpy(rng.integers(1, VOCAB, (7, 10)))
tokens[:, 7:] = PAD
tokens[2, 5:] = PAD
labels = torch.from_numpy(rng.integers(0, 3, 7))
optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
model.eval()          # dropout off: deterministic
hist = []
for epoch in range(5):
    optimizer.zero_grad()
    logits = model(tokens)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    optimizer.step()
    hist.append(round(loss.item(), 5))
pad_grad = model.embedding.weight.grad[PAD]
with torch.no_grad():
    probs = F.softmax(model(tokens), dim=-1)
    pred = probs.argmax(-1)

RESULTS = {"hist": hist, "pad_grad": pad_grad, "probs": probs, "pred": pred,
           "emb_pad_row": model.embedding.weight[PAD],
           "conv_w": model.convs[1].weight}
TOL = 1e-3
