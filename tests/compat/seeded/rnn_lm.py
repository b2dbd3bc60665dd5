import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.init_weights()
        self.nhid, self.nlayers = nhid, nlayers
    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)
    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.decoder.out_features)
        return F.log_softmax(decoded, dim=1), hidden
    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))
def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)
ntokens = 20
data = torch.randint(0, ntokens, (200,))
def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()
train_data = batchify(data, 4)
model = RNNModel(ntokens, 8, 16, 2)
criterion = nn.NLLLoss()
lr = 5.0
bptt = 10
model.train()
hidden = model.init_hidden(4)
for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
    seq_len = min(bptt, len(train_data) - 1 - i)
    d = train_data[i:i+seq_len]; target = train_data[i+1:i+1+seq_len].view(-1)
    model.zero_grad()
    hidden = repackage_hidden(hidden)
    output, hidden = model(d, hidden)
    loss = criterion(output, target)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-lr)
    print(batch, f"{loss.item():.5f}")
