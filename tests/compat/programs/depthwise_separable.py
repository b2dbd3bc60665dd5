# MobileNet-style depthwise separable convolutions, grouped convs and channel shuffle.
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)


def channel_shuffle(x, groups):
    b, c, h, w = x.size()
    x = x.view(b, groups, c // groups, h, w)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(b, -1, h, w)


class DepthwiseSeparable(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.dw = nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False)
        self.pw = nn.Conv2d(cin, cout, 1, bias=True)
        self.gconv = nn.Conv2d(cout, cout, 3, padding=2, dilation=2, groups=2)
        self.act = nn.ReLU6(inplace=True)

    def forward(self, x):
        x = self.act(self.dw(x))
        x = self.act(self.pw(x))
        x = channel_shuffle(x, 2)
        return self.gconv(x)


net = DepthwiseSeparable(4, 6, stride=2)
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.5, tuple(p.shape)), dtype=torch.float32))
x = torch.tensor(rng.standard_normal((2, 4, 9, 9)) * 3, dtype=torch.float32, requires_grad=True)
out = net(x)
out.pow(2).mean().backward()

# functional grouped conv with explicit weights
w = torch.tensor(rng.standard_normal((6, 2, 3, 3)), dtype=torch.float32, requires_grad=True)
inp = torch.tensor(rng.standard_normal((1, 6, 5, 5)), dtype=torch.float32)
g = F.conv2d(inp, w, stride=(1, 2), padding=(1, 0), groups=3)
g.sum().backward()

RESULTS = {"out_shape": tuple(out.shape), "out": out, "xgrad": x.grad,
           "dw_grad": net.dw.weight.grad, "pw_bgrad": net.pw.bias.grad,
           "gconv_grad": net.gconv.weight.grad, "g": g, "wgrad": w.grad,
           "dw_repr": repr(net.dw), "g_repr": repr(net.gconv)}
