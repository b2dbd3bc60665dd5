# makemore-style MLP: character embeddings (nn.Embedding and C[X]), tanh hidden layer,
# F.cross_entropy, manual SGD over minibatches.
import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(SEED)
vocab, block, emb, hidden = 27, 3, 4, 16
X = torch.tensor(rng.integers(0, vocab, (64, block)))
Y = torch.tensor(rng.integers(0, vocab, 64))
C = torch.tensor(rng.standard_normal((vocab, emb)), dtype=torch.float32)
W1 = torch.tensor(rng.standard_normal((block * emb, hidden)) * 0.2, dtype=torch.float32)
b1 = torch.tensor(rng.standard_normal(hidden) * 0.01, dtype=torch.float32)
W2 = torch.tensor(rng.standard_normal((hidden, vocab)) * 0.01, dtype=torch.float32)
b2 = torch.zeros(vocab)
parameters = [C, W1, b1, W2, b2]
for p in parameters:
    p.requires_grad = True
batches = rng.integers(0, 64, (30, 16))
lossi = []
for i in range(30):
    ix = torch.tensor(batches[i])
    embs = C[X[ix]]
    h = torch.tanh(embs.view(-1, block * emb) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Y[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 20 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    lossi.append(loss.item())

emb_layer = torch.nn.Embedding(vocab, emb)
with torch.no_grad():
    emb_layer.weight.copy_(C)
same = bool((emb_layer(X) == C[X]).all())
with torch.no_grad():
    full = F.cross_entropy(torch.tanh(C[X].view(-1, block * emb) @ W1 + b1) @ W2 + b2, Y)

TOL = 1e-3
RESULTS = {"lossi": lossi, "full": full.item(), "same": same, "nparams": sum(p.nelement() for p in parameters)}
