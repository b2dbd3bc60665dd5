# Recurrent variants: LSTM with proj_size, GRUCell/LSTMCell unrolled by hand with a mask for
# variable lengths, RNN with tanh and initial state, truncated BPTT with detach().
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)


def fill(m, s=0.4):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.tensor(rng.normal(0, s, tuple(p.shape)), dtype=torch.float32))
    return m


lstm = fill(nn.LSTM(3, 5, num_layers=2, proj_size=2, batch_first=True))
x = torch.tensor(rng.standard_normal((2, 4, 3)), dtype=torch.float32, requires_grad=True)
out, (h, c) = lstm(x)
out.sum().backward()
names = [(n, tuple(p.shape)) for n, p in lstm.named_parameters()]

cell = fill(nn.GRUCell(3, 4))
lcell = fill(nn.LSTMCell(3, 4, bias=False))
seq = torch.tensor(rng.standard_normal((5, 2, 3)), dtype=torch.float32)
lengths = torch.tensor([5, 3])
hx = torch.zeros(2, 4)
hl, cl = torch.zeros(2, 4), torch.zeros(2, 4)
outs = []
for t in range(5):
    mask = (t < lengths).float().unsqueeze(1)
    new = cell(seq[t], hx)
    hx = mask * new + (1 - mask) * hx
    hl, cl = lcell(seq[t], (hl, cl))
    outs.append(hx)
stacked = torch.stack(outs)
(stacked.sum() + hl.sum()).backward()

rnn = fill(nn.RNN(3, 4, num_layers=1, nonlinearity="tanh"))
head = fill(nn.Linear(4, 1))
opt = torch.optim.SGD(list(rnn.parameters()) + list(head.parameters()), lr=0.05)
long_seq = torch.tensor(rng.standard_normal((12, 1, 3)), dtype=torch.float32)
targets = torch.tensor(rng.standard_normal((12, 1, 1)), dtype=torch.float32)
h = torch.tensor(rng.standard_normal((1, 1, 4)), dtype=torch.float32)
bptt = []
for i in range(0, 12, 4):
    h = h.detach()
    o, h = rnn(long_seq[i:i + 4], h)
    loss = nn.functional.mse_loss(head(o), targets[i:i + 4])
    opt.zero_grad()
    loss.backward()
    opt.step()
    bptt.append(loss.item())
unbatched, hu = rnn(long_seq[:3, 0])
RESULTS = {"out": out, "h": h, "c": c, "xg": x.grad, "names": names, "stacked": stacked,
           "cell_grad": cell.weight_hh.grad, "lcell_grad": lcell.weight_ih.grad, "bptt": bptt,
           "unbatched": unbatched, "hu_shape": tuple(hu.shape), "lstm_repr": repr(lstm)}
TOL = 1e-3
