# Constrained layers through torch.nn.utils.parametrize: a spectral-norm critic (GAN
# style), a weight-normalised conv, an orthogonal recurrent kernel read many times under
# P.cached(), and a hand-written symmetric parametrization with right_inverse.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P
from torch.nn.utils.parametrizations import orthogonal, spectral_norm, weight_norm

rng = np.random.default_rng(SEED)
torch.manual_seed(SEED)


def t(a):
    return torch.tensor(a, dtype=torch.float32)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).T

    def right_inverse(self, A):
        return A.triu()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = weight_norm(nn.Conv2d(1, 4, 3, padding=1))
        self.rnn_w = nn.Linear(6, 6, bias=False)
        self.proj = nn.Linear(16, 6)
        self.critic = nn.Sequential(spectral_norm(nn.Linear(6, 8)), nn.LeakyReLU(0.2),
                                    spectral_norm(nn.Linear(8, 1)))
        self.mix = nn.Linear(6, 6)

    def forward(self, img):
        h = torch.relu(self.conv(img)).mean(dim=1).flatten(1)      # (B, 16)
        state = torch.tanh(self.proj(h))
        with P.cached():                                          # one orthogonal matrix
            for _ in range(3):
                state = torch.tanh(state @ self.rnn_w.weight.T + state)
        return self.critic(self.mix(state))


model = Model()
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(t(rng.normal(0, 0.4, tuple(p.shape))))
orthogonal(model.rnn_w)
P.register_parametrization(model.mix, "weight", Symmetric())
sym = rng.normal(0, 0.3, (6, 6))
model.mix.weight = t(sym + sym.T)            # assigned through right_inverse

opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
img = t(rng.standard_normal((5, 1, 4, 4)))
target = t(rng.standard_normal((5, 1)))
losses = []
for step in range(5):
    opt.zero_grad()
    loss = ((model(img) - target) ** 2).mean()
    loss.backward()
    opt.step()
    losses.append(loss.item())

model.eval()
with torch.no_grad():
    out = model(img)
rnn_q = model.rnn_w.weight
try:
    P.remove_parametrizations(model.mix, "bias")
    err = None
except ValueError as e:
    err = e
try:
    P.remove_parametrizations(model.conv, "weight", leave_parametrized=False)
    err2 = None
except ValueError as e:
    err2 = e
P.remove_parametrizations(model.mix, "weight")

RESULTS = {
    "losses": losses,
    "out": out,
    "orth": (rnn_q.T @ rnn_q).detach(),
    "sym_is_sym": torch.allclose(model.mix.weight, model.mix.weight.T),
    "keys": list(model.state_dict()),
    "names": [n for n, _ in model.named_parameters()],
    "types": [type(m).__name__ for m in (model.conv, model.rnn_w, model.critic[0], model.mix)],
    "parametrized": [P.is_parametrized(model.conv), P.is_parametrized(model.mix),
                     P.is_parametrized(model.critic[2], "weight")],
    "before": P.type_before_parametrizations(model.conv).__name__,
    "g": model.conv.parametrizations.weight.original0,
    "u": model.critic[0].parametrizations.weight[0]._u,
    "critic_w": model.critic[2].weight,
    "err": err,
    "err2": err2,
}
TOL = 1e-4
