# A tiny CTC speech recogniser in the style of a DeepSpeech / wav2letter tutorial: a Conv1d
# front end over random "filterbank" frames (stride 2 halves the time axis), a
# bidirectional GRU, a Linear head, log_softmax over the characters (blank = 0), and
# nn.CTCLoss on variable-length utterances and transcripts (concatenated targets, repeated
# characters), trained with a few Adam steps; then a greedy CTC decode.
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
n_feats, n_chars, hidden, batch, frames = 8, 6, 5, 3, 20


class SpeechModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(n_feats, 6, kernel_size=3, stride=2, padding=1)
        self.rnn = nn.GRU(6, hidden, bidirectional=True)
        self.head = nn.Linear(2 * hidden, n_chars)

    def forward(self, x):                    # x: (N, n_feats, frames)
        h = torch.relu(self.conv(x))         # (N, 6, frames / 2)
        h = h.permute(2, 0, 1)               # (T, N, 6): CTC wants time first
        out, _ = self.rnn(h)
        return self.head(out).log_softmax(2)


model = SpeechModel()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.4, tuple(p.shape)), dtype=torch.float32))
feats = torch.tensor(rng.standard_normal((batch, n_feats, frames)), dtype=torch.float32)
frame_lengths = torch.tensor([20, 16, 11])
input_lengths = (frame_lengths + 1) // 2      # after the stride-2 conv: 10, 8, 6
transcripts = [[1, 2, 2, 3], [4, 4], [5, 1, 3]]   # "2 2" and "4 4" need a blank between
targets = torch.tensor([c for t in transcripts for c in t])
target_lengths = torch.tensor([len(t) for t in transcripts])

ctc = nn.CTCLoss(blank=0, zero_infinity=True)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
losses = []
for step in range(6):
    opt.zero_grad()
    log_probs = model(feats)
    loss = ctc(log_probs, targets, input_lengths, target_lengths)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    opt.step()
    losses.append(loss.item())

with torch.no_grad():
    log_probs = model(feats)
    per_utterance = nn.functional.ctc_loss(log_probs, targets, input_lengths, target_lengths,
                                           reduction="none")
    best = log_probs.argmax(2).t()            # greedy decode: merge repeats, drop blanks
decoded = []
for b in range(batch):
    path = best[b, :input_lengths[b]].tolist()
    decoded.append([c for i, c in enumerate(path) if c != 0 and (i == 0 or c != path[i - 1])])

# the gradient PyTorch's CTC backward hands to log_probs (a leaf here), and the node
lp_leaf = model(feats).detach().requires_grad_()
leaf_loss = nn.functional.ctc_loss(lp_leaf, targets, input_lengths, target_lengths,
                                   reduction="sum")
leaf_loss.backward()

RESULTS = {"losses": losses, "per_utterance": per_utterance, "decoded": decoded,
           "head_weight": model.head.weight, "lp_grad": lp_leaf.grad,
           "node": type(leaf_loss.grad_fn.next_functions[0][0]).__name__,
           "input_lengths": input_lengths, "repr": repr(ctc)}
