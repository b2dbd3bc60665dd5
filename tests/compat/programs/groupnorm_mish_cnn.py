# Conv + GroupNorm + SiLU/Mish + AdaptiveAvgPool2d, trained three steps with Adam.
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.SiLU(),
                    nn.Conv2d(8, 8, 3, stride=2), nn.Mish(), nn.AdaptiveAvgPool2d(1),
                    nn.Flatten(), nn.Linear(8, 2), nn.LeakyReLU(0.1))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.3, tuple(p.shape)), dtype=torch.float32))
x = torch.tensor(rng.standard_normal((4, 3, 7, 7)), dtype=torch.float32)
t = torch.tensor(rng.standard_normal((4, 2)), dtype=torch.float32)
opt = torch.optim.Adam(net.parameters(), lr=0.01)
for _ in range(3):
    opt.zero_grad()
    loss = nn.functional.smooth_l1_loss(net(x), t)
    loss.backward()
    opt.step()
TOL = 1e-3
RESULTS = {"loss": loss.item(), "gn": net[1].weight, "out": net(x)}
