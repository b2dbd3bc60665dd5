# torch.save(model.state_dict()) / load_state_dict(torch.load()) with an optimizer checkpoint;
# training resumes to the same numbers as training straight through.
import os
import tempfile
import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(SEED)
X = torch.tensor(rng.standard_normal((16, 3)), dtype=torch.float32)
Y = torch.tensor(rng.standard_normal((16, 1)), dtype=torch.float32)
init = [rng.standard_normal((4, 3)), rng.standard_normal(4), rng.standard_normal((1, 4)),
        rng.standard_normal(1)]


def make():
    m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    with torch.no_grad():
        for p, a in zip(m.parameters(), init):
            p.copy_(torch.tensor(a, dtype=torch.float32))
    return m, torch.optim.Adam(m.parameters(), lr=0.01)


def train(m, opt, steps):
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(m(X), Y)
        loss.backward()
        opt.step()
    return loss.item()


m, opt = make()
straight = train(m, opt, 10)
m2, opt2 = make()
train(m2, opt2, 5)
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "ckpt.pt")
    torch.save({"model": m2.state_dict(), "optim": opt2.state_dict(), "epoch": 5}, path)
    ck = torch.load(path)
m3, opt3 = make()
m3.load_state_dict(ck["model"])
opt3.load_state_dict(ck["optim"])
resumed = train(m3, opt3, 5)
RESULTS = {"straight": straight, "resumed": resumed, "epoch": ck["epoch"],
           "w": m3[0].weight, "keys": sorted(ck["model"].keys())}
