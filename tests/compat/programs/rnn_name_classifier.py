# Character-level sequence classification, the tutorial way: one-hot letters, an nn.GRU over
# a padded batch packed with pack_padded_sequence(enforce_sorted=False), the final hidden
# state into a Linear + LogSoftmax, NLLLoss, SGD; plus a bidirectional nn.RNN(relu) and an
# LSTMCell unrolled by hand over the same batch.
import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

rng = np.random.default_rng(SEED)
n_letters, n_hidden, n_categories = 8, 6, 3
lengths = [5, 3, 4, 2]
seqs = [torch.tensor(rng.integers(0, n_letters, n)) for n in lengths]
onehots = [nn.functional.one_hot(s, n_letters).float() for s in seqs]
padded = pad_sequence(onehots, batch_first=True)
labels = torch.tensor(rng.integers(0, n_categories, len(lengths)))


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(n_letters, n_hidden, batch_first=True)
        self.h2o = nn.Linear(n_hidden, n_categories)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, x, lens):
        packed = pack_padded_sequence(x, lens, batch_first=True, enforce_sorted=False)
        out, hidden = self.rnn(packed)
        unpacked, out_lens = pad_packed_sequence(out, batch_first=True)
        return self.softmax(self.h2o(hidden[0])), unpacked, out_lens


model = Classifier()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)), dtype=torch.float32))
criterion = nn.NLLLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.3)
losses = []
for epoch in range(5):
    opt.zero_grad()
    out, unpacked, out_lens = model(padded, lengths)
    loss = criterion(out, labels)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 3)
    opt.step()
    losses.append(loss.item())

birnn = nn.RNN(n_letters, 4, num_layers=2, nonlinearity="relu", bidirectional=True)
cell = nn.LSTMCell(n_letters, 4)
with torch.no_grad():
    for p in list(birnn.parameters()) + list(cell.parameters()):
        p.copy_(torch.tensor(rng.uniform(-0.4, 0.4, tuple(p.shape)), dtype=torch.float32))
x = padded.transpose(0, 1)
h0 = torch.zeros(4, len(lengths), 4)
y, hn = birnn(x, h0)
h, c = torch.zeros(len(lengths), 4), torch.zeros(len(lengths), 4)
outs = []
for t in range(x.size(0)):
    h, c = cell(x[t], (h, c))
    outs.append(h)
total = y.sum() + torch.stack(outs).pow(2).sum()
total.backward()
RESULTS = {"losses": losses, "unpacked": unpacked, "lens": out_lens, "y": y, "hn": hn,
           "cell_grad": cell.weight_hh.grad, "rnn_grad": birnn.weight_ih_l1_reverse.grad,
           "repr": repr(model), "names": [n for n, _ in birnn.named_parameters()]}
