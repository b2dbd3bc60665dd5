# Research-code habits: a custom convolution written like PyTorch's own (_pair from
# torch.nn.modules.utils, reset_parameters with _calculate_fan_in_and_fan_out), a LARS optimizer
# with `lr=required`, datasets imported from torch.utils.data.dataset / .sampler, Variable, and
# isinstance checks on nn.modules.* bases.
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable
from torch.nn import init
from torch.nn.modules.utils import _pair
from torch.nn.parameter import Parameter
from torch.optim.optimizer import Optimizer, required
from torch.utils.data.dataloader import DataLoader, default_collate
from torch.utils.data.dataset import Dataset, TensorDataset
from torch.utils.data.sampler import SequentialSampler

rng = np.random.default_rng(SEED)


class WSConv2d(nn.Module):
    """Weight-standardised convolution, written in the style of torch.nn.Conv2d."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, bias=True):
        super(WSConv2d, self).__init__()
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        self.padding = _pair(padding)
        self.weight = Parameter(torch.Tensor(out_channels, in_channels, *self.kernel_size))
        if bias:
            self.bias = Parameter(torch.Tensor(out_channels))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in)
            init.uniform_(self.bias, -bound, bound)
        self.fan_in = init._calculate_fan_in_and_fan_out(self.weight)[0]

    def forward(self, x):
        w = self.weight
        mean = w.mean(dim=(1, 2, 3), keepdim=True)
        std = w.std(dim=(1, 2, 3), keepdim=True) + 1e-5
        return F.conv2d(x, (w - mean) / std, self.bias, self.stride, self.padding)

    def extra_repr(self):
        return "kernel_size={kernel_size}, stride={stride}, padding={padding}".format(**self.__dict__)


class LARS(Optimizer):
    def __init__(self, params, lr=required, momentum=0.9, weight_decay=1e-4, eta=0.001):
        if lr is not required and lr < 0.0:
            raise ValueError("Invalid learning rate: {}".format(lr))
        defaults = dict(lr=lr, momentum=momentum, weight_decay=weight_decay, eta=eta)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                dp = p.grad.add(p, alpha=group["weight_decay"])
                p_norm, g_norm = torch.norm(p), torch.norm(dp)
                q = torch.where(p_norm > 0., torch.where(g_norm > 0, (group["eta"] * p_norm / g_norm), torch.ones_like(p_norm)),
                                torch.ones_like(p_norm))
                dp = dp.mul(q)
                state = self.state[p]
                if "mu" not in state:
                    state["mu"] = torch.zeros_like(p)
                mu = state["mu"]
                mu.mul_(group["momentum"]).add_(dp)
                p.add_(mu, alpha=-group["lr"])


class Pairs(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


net = nn.Sequential(WSConv2d(2, 4, 3, padding=1), nn.GroupNorm(2, 4), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                    nn.Flatten(), nn.Linear(4, 3))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.5, tuple(p.shape)), dtype=torch.float32))
X = torch.tensor(rng.standard_normal((6, 2, 5, 5)), dtype=torch.float32)
Y = torch.tensor(rng.integers(0, 3, 6))
loader = DataLoader(Pairs(X, Y), batch_size=4, sampler=SequentialSampler(range(6)))
opt = LARS(net.parameters(), lr=0.5)
hist = []
for epoch in range(2):
    for xb, yb in loader:
        xb, yb = Variable(xb), Variable(yb)
        opt.zero_grad()
        loss = F.cross_entropy(net(xb), yb)
        loss.backward()
        opt.step()
        hist.append(loss.item())
try:
    LARS(net.parameters(), lr=-0.1)
except ValueError as e:
    bad = e
try:
    LARS([{"params": net[5].parameters()}])
except ValueError as e:
    missing = e
wsconv = net[0]
RESULTS = {"hist": hist, "repr": repr(wsconv), "fan_in": wsconv.fan_in, "pair": [_pair(3), _pair((1, 2))],
           "bad": bad, "missing": missing, "w": net[5].weight, "state_keys": sorted(opt.state_dict()["state"][0]),
           "is_conv_base": isinstance(nn.Conv2d(1, 1, 1), nn.modules.conv._ConvNd),
           "ws_is_conv_base": isinstance(wsconv, nn.modules.conv._ConvNd),
           "collate": default_collate([(1, torch.ones(2)), (2, torch.zeros(2))]),
           "tds": len(TensorDataset(X, Y)), "var_is_tensor": isinstance(Variable(torch.ones(1)), torch.Tensor)}
TOL = 1e-3
