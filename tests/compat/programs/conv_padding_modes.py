# Conv2d with padding_mode reflect/replicate/circular and F.pad in each mode.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)
x = torch.tensor(rng.standard_normal((1, 2, 5, 5)), dtype=torch.float32, requires_grad=True)
res = {}
for mode in ("zeros", "reflect", "replicate", "circular"):
    conv = nn.Conv2d(2, 3, 3, padding=1, padding_mode=mode)
    with torch.no_grad():
        conv.weight.copy_(torch.tensor(rng.standard_normal((3, 2, 3, 3)), dtype=torch.float32))
        conv.bias.zero_()
    x.grad = None
    y = conv(x)
    y.pow(2).sum().backward()
    res[mode] = (y.detach(), x.grad.clone())
for mode in ("reflect", "replicate", "circular"):
    res["pad_" + mode] = F.pad(x, (2, 1, 1, 2), mode=mode)
RESULTS = res
