# Module forward hooks collect activations (as feature-extraction code does); a pre-hook
# rescales the input; removing the handles stops them.
import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(SEED)
net = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)), dtype=torch.float32))
acts = {}
handles = [m.register_forward_hook(lambda mod, inp, out, n=n: acts.__setitem__(n, out.detach()))
           for n, m in net.named_children()]
handles.append(net[0].register_forward_pre_hook(lambda mod, inp: (inp[0] * 0.5,)))
x = torch.tensor(rng.standard_normal((3, 4)), dtype=torch.float32)
y = net(x)
y.sum().backward()
for h in handles:
    h.remove()
y2 = net(x)
RESULTS = {"acts": acts, "y": y, "y2": y2, "g": net[0].weight.grad}
