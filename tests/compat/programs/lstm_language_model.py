# A word-level LSTM language model in the style of pytorch/examples word_language_model:
# Embedding -> 2-layer LSTM (dropout 0 so both runs agree) -> Linear decoder, hidden state
# carried (detached) across BPTT chunks, gradient clipping, plain SGD on p.data.
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
ntoken, ninp, nhid, nlayers, bptt, bsz = 20, 6, 8, 2, 5, 3


class RNNModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.0)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=0.0)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        return self.decoder(output).view(-1, ntoken), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(nlayers, bsz, nhid), weight.new_zeros(nlayers, bsz, nhid))


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


model = RNNModel()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.3, 0.3, tuple(p.shape)), dtype=torch.float32))
data = torch.tensor(rng.integers(0, ntoken, (4 * bptt + 1, bsz)))
criterion = nn.NLLLoss()
log_softmax = nn.LogSoftmax(dim=1)
hidden = model.init_hidden(bsz)
losses = []
lr = 2.0
for i in range(0, 4 * bptt, bptt):
    x, y = data[i:i + bptt], data[i + 1:i + 1 + bptt].reshape(-1)
    model.zero_grad()
    hidden = repackage_hidden(hidden)
    output, hidden = model(x, hidden)
    loss = criterion(log_softmax(output), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-lr)
    losses.append(loss.item())
RESULTS = {"losses": losses, "h": hidden[0], "c": hidden[1],
           "names": [n for n, _ in model.named_parameters()], "repr": repr(model.rnn),
           "w_hh": model.rnn.weight_hh_l1}
