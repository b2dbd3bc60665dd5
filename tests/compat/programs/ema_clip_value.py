# Exponential moving average of weights (Mean Teacher style) and gradient clipping by value.
import copy
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)


class EMA:
    def __init__(self, model, decay=0.9):
        self.decay = decay
        self.shadow = copy.deepcopy(model)
        for p in self.shadow.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        for ema_p, p in zip(self.shadow.parameters(), model.parameters()):
            ema_p.mul_(self.decay).add_(p.detach(), alpha=1 - self.decay)
        for ema_b, b in zip(self.shadow.buffers(), model.buffers()):
            ema_b.copy_(b)


net = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 1))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.5, tuple(p.shape)), dtype=torch.float32))
ema = EMA(net, decay=0.8)
lerp_copy = copy.deepcopy(net)
opt = torch.optim.SGD(net.parameters(), lr=0.2)
x = torch.tensor(rng.standard_normal((16, 4)), dtype=torch.float32)
y = torch.tensor(rng.standard_normal((16, 1)) * 4, dtype=torch.float32)
max_grads = []
for step in range(6):
    opt.zero_grad()
    loss = nn.functional.smooth_l1_loss(net(x), y, beta=0.5)
    loss.backward()
    torch.nn.utils.clip_grad_value_(net.parameters(), clip_value=0.05)
    max_grads.append(max(p.grad.abs().max().item() for p in net.parameters()))
    opt.step()
    ema.update(net)
    with torch.no_grad():
        for a, b in zip(lerp_copy.parameters(), net.parameters()):
            a.lerp_(b, 0.2)
            
ema.shadow.eval()
net.eval()
with torch.no_grad():
    ema_out = ema.shadow(x[:4])
    net_out = net(x[:4])
RESULTS = {"max_grads": max_grads, "ema_w": ema.shadow[0].weight, "lerp_w": lerp_copy[0].weight,
           "ema_out": ema_out, "net_out": net_out,
           "ema_rg": [p.requires_grad for p in ema.shadow.parameters()],
           "same": torch.allclose(ema.shadow[3].bias, lerp_copy[3].bias, atol=1e-6),
           "lerp_t": torch.lerp(torch.zeros(3), torch.ones(3), torch.tensor([0.0, 0.5, 2.0]))}
TOL = 1e-3
