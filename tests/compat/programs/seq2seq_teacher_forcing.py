# Seq2seq (PyTorch tutorial style): GRU encoder, GRU decoder with teacher forcing decided by rng.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim

rng = np.random.default_rng(SEED)
SOS, EOS, V, H = 0, 1, 9, 6


class EncoderRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(V, H)
        self.gru = nn.GRU(H, H)

    def forward(self, inp, hidden):
        embedded = self.embedding(inp).view(1, 1, -1)
        return self.gru(embedded, hidden)

    def initHidden(self):
        return torch.zeros(1, 1, H)


class DecoderRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(V, H)
        self.gru = nn.GRU(H, H)
        self.out = nn.Linear(H, V)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, inp, hidden):
        output = F.relu(self.embedding(inp).view(1, 1, -1))
        output, hidden = self.gru(output, hidden)
        return self.softmax(self.out(output[0])), hidden


enc, dec = EncoderRNN(), DecoderRNN()
for mod in (enc, dec):
    with torch.no_grad():
        for p in mod.parameters():
            p.copy_(torch.tensor(rng.uniform(-0.4, 0.4, p.shape), dtype=torch.float32))
enc_opt = optim.SGD(enc.parameters(), lr=0.05)
dec_opt = optim.SGD(dec.parameters(), lr=0.05)
criterion = nn.NLLLoss()


def train(src, tgt, teacher):
    h = enc.initHidden()
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    for ei in range(src.size(0)):
        _, h = enc(src[ei], h)
    dec_in = torch.tensor([[SOS]])
    loss = 0
    preds = []
    for di in range(tgt.size(0)):
        out, h = dec(dec_in, h)
        loss += criterion(out, tgt[di])
        topv, topi = out.topk(1)
        preds.append(topi.item())
        if teacher[di]:
            dec_in = tgt[di]
        else:
            dec_in = topi.squeeze().detach()
        if dec_in.item() == EOS:
            break
    loss.backward()
    enc_opt.step()
    dec_opt.step()
    return loss.item() / tgt.size(0), preds


pairs = [(torch.tensor(rng.integers(2, V, (4, 1))), torch.tensor(np.r_[rng.integers(2, V, 3), EOS]).view(-1, 1))
         for _ in range(4)]
log = []
for it in range(8):
    src, tgt = pairs[it % 4]
    teacher = rng.random(4) < 0.5
    log.append(train(src, tgt, teacher))
RESULTS = {"log": log, "dec_out_w": dec.out.weight, "enc_emb_grad": enc.embedding.weight.grad}
TOL = 1e-3
