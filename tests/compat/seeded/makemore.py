import torch
import torch.nn.functional as F
words = ["emma","olivia","ava","isabella","sophia","charlotte","mia","amelia","harper","evelyn","abigail","emily","elizabeth","mila","ella","avery","sofia","camila","aria","scarlett"]
chars = sorted(list(set(''.join(words))))
stoi = {s:i+1 for i,s in enumerate(chars)}; stoi['.'] = 0
itos = {i:s for s,i in stoi.items()}
block_size = 3
def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + '.':
            ix = stoi[ch]
            X.append(context); Y.append(ix)
            context = context[1:] + [ix]
    return torch.tensor(X), torch.tensor(Y)
Xtr, Ytr = build_dataset(words)
g = torch.Generator().manual_seed(2147483647)
V = len(stoi)
C = torch.randn((V, 10), generator=g)
W1 = torch.randn((30, 200), generator=g) * (5/3)/(30**0.5)
b1 = torch.randn(200, generator=g) * 0.01
W2 = torch.randn((200, V), generator=g) * 0.01
b2 = torch.randn(V, generator=g) * 0
bngain = torch.ones((1, 200)); bnbias = torch.zeros((1, 200))
parameters = [C, W1, b1, W2, b2, bngain, bnbias]
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True
for i in range(60):
    ix = torch.randint(0, Xtr.shape[0], (32,), generator=g)
    Xb, Yb = Xtr[ix], Ytr[ix]
    emb = C[Xb]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1 + b1
    bnmeani = hpreact.mean(0, keepdim=True)
    bnstdi = hpreact.std(0, keepdim=True)
    hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Yb)
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1
    for p in parameters:
        p.data += -lr * p.grad
    if i % 50 == 0:
        print(f'{i:7d}: {loss.item():.4f}')
g = torch.Generator().manual_seed(2147483647 + 10)
for _ in range(5):
    out = []
    context = [0] * block_size
    while True:
        emb = C[torch.tensor([context])]
        h = torch.tanh(emb.view(1, -1) @ W1 + b1)
        logits = h @ W2 + b2
        probs = F.softmax(logits, dim=1)
        ix = torch.multinomial(probs, num_samples=1, generator=g).item()
        context = context[1:] + [ix]
        out.append(ix)
        if ix == 0 or len(out) > 20:
            break
    print(''.join(itos[i] for i in out))
