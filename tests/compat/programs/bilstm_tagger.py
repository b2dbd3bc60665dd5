# POS-tagger style BiLSTM: padded batch, CrossEntropyLoss(ignore_index=-100) over flattened tokens,
# clip_grad_norm_, accuracy over non-pad tokens, weight tying in a second tiny LM.
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
V, T_TAGS, E, H = 15, 4, 6, 5


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, E, padding_idx=0)
        self.lstm = nn.LSTM(E, H, num_layers=1, bidirectional=True, batch_first=True)
        self.out = nn.Linear(2 * H, T_TAGS)

    def forward(self, ids):
        h, _ = self.lstm(self.emb(ids))
        return self.out(h)


class TiedLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Embedding(V, E)
        self.rnn = nn.RNN(E, E, nonlinearity="relu")
        self.decoder = nn.Linear(E, V)
        self.decoder.weight = self.encoder.weight

    def forward(self, ids, h=None):
        o, h = self.rnn(self.encoder(ids), h)
        return self.decoder(o), h


tagger = Tagger()
with torch.no_grad():
    for p in tagger.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.4, tuple(p.shape)), dtype=torch.float32))
ids = torch.tensor(rng.integers(1, V, (3, 6)))
tags = torch.tensor(rng.integers(0, T_TAGS, (3, 6)))
ids[1, 4:] = 0
ids[2, 2:] = 0
tags[ids == 0] = -100
loss_fn = nn.CrossEntropyLoss(ignore_index=-100)
opt = torch.optim.RMSprop(tagger.parameters(), lr=0.01, alpha=0.9, centered=True, momentum=0.5)
norms = []
for _ in range(4):
    opt.zero_grad()
    logits = tagger(ids)
    loss = loss_fn(logits.view(-1, T_TAGS), tags.view(-1))
    loss.backward()
    norms.append(nn.utils.clip_grad_norm_(tagger.parameters(), max_norm=0.5, norm_type=2.0).item())
    opt.step()
mask = tags != -100
acc = (logits.argmax(-1)[mask] == tags[mask]).float().mean()

lm = TiedLM()
with torch.no_grad():
    for p in lm.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.4, tuple(p.shape)), dtype=torch.float32))
seq = torch.tensor(rng.integers(0, V, (5, 2)))
logits, h = lm(seq[:-1])
lm_loss = nn.functional.cross_entropy(logits.reshape(-1, V), seq[1:].reshape(-1))
lm_loss.backward()
RESULTS = {"loss": loss.item(), "norms": norms, "acc": acc, "lm_loss": lm_loss,
           "n_lm_params": len(list(lm.parameters())), "tied": lm.decoder.weight is lm.encoder.weight,
           "tied_grad": lm.encoder.weight.grad, "sd_keys": list(lm.state_dict().keys()),
           "numel": sum(p.numel() for p in lm.parameters()), "h": h}
TOL = 1e-3
