# A small CNN forward/backward: Conv2d, BatchNorm2d, ReLU, MaxPool2d, Linear, cross_entropy.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 6, 3)
        self.fc = nn.Linear(6 * 2 * 2, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv1(x))), 2)
        x = F.relu(self.conv2(x))
        x = torch.flatten(x, 1)
        return self.fc(x)


net = Net()
with torch.no_grad():
    for name, p in net.named_parameters():
        if "bn" not in name:
            p.copy_(torch.tensor(rng.normal(0, 0.3, tuple(p.shape)), dtype=torch.float32))
x = torch.tensor(rng.standard_normal((5, 1, 8, 8)), dtype=torch.float32)
target = torch.tensor(rng.integers(0, 3, 5))
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
for _ in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(net(x), target)
    loss.backward()
    opt.step()
net.eval()
with torch.no_grad():
    out = net(x)

TOL = 1e-3
RESULTS = {"loss": loss.item(), "out": out, "running_mean": net.bn.running_mean,
           "conv1_grad": net.conv1.weight.grad}
